"""Static check of the pymatgen names that generated code uses (site/apicheck, cmd/check-api).

Reads JSON lines {"id": str, "code": str} on stdin and writes one JSON object on stdout:
  {"environment": {"python", "pymatgen", "pymatgen-analysis-defects"},
   "results": {id: {"missing": [dotted names], "checked": n, "error": str}}}

The code is parsed with Python's ast module and NEVER executed. For each answer it checks, against the
installed libraries (run it with the sandbox's Python, /opt/mattools-sandbox/bin/python):
  * `import pymatgen.x.y [as z]`: the module pymatgen.x.y must import;
  * `from pymatgen.x import N [as M]`: the module must import and have N (an attribute or a submodule);
  * `B.a.b…` where B was bound by one of those imports: each attribute in turn must exist (a submodule,
    an attribute of the object, or a dataclass field / annotation of a class); the first that does not is
    reported and the rest of the chain is not followed.
Only names under the packages `pymatgen` (which includes pymatgen.analysis.defects, the namespace package of
pymatgen-analysis-defects) are checked. Importing the real library modules is the only thing that runs.
"""
import ast
import importlib
import json
import sys
import warnings

ROOTS = ("pymatgen",)
_missing = object()
_module_cache = {}


def import_module(name):
    if name not in _module_cache:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                _module_cache[name] = importlib.import_module(name)
        except Exception:  # ModuleNotFoundError, ImportError, or a failing library import
            _module_cache[name] = None
    return _module_cache[name]


def attribute(obj, path, name):
    """Returns obj.name (importing path.name as a submodule when obj is a module), or _missing."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return getattr(obj, name)
    except Exception:
        pass
    if isinstance(obj, type(sys)):
        sub = import_module(path + "." + name)
        if sub is not None:
            return sub
    if isinstance(obj, type):
        for klass in obj.__mro__:
            if name in getattr(klass, "__dataclass_fields__", {}) or name in getattr(klass, "__annotations__", {}):
                return None  # an instance field: exists, but there is nothing to follow
    return _missing


def in_scope(dotted):
    return dotted.split(".")[0] in ROOTS


def check(code):
    tree = ast.parse(code)
    bound = {}  # local name -> (dotted path, object)
    missing, checked = [], 0

    def report(name):
        if name not in missing:
            missing.append(name)

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if not in_scope(a.name):
                    continue
                checked += 1
                mod = import_module(a.name)
                if mod is None:
                    report(a.name)
                    continue
                if a.asname:
                    bound[a.asname] = (a.name, mod)
                else:
                    top = a.name.split(".")[0]
                    bound[top] = (top, import_module(top))
        elif isinstance(node, ast.ImportFrom):
            if node.level or not node.module or not in_scope(node.module):
                continue
            checked += 1
            mod = import_module(node.module)
            if mod is None:
                report(node.module)
                continue
            for a in node.names:
                if a.name == "*":
                    continue
                checked += 1
                obj = attribute(mod, node.module, a.name)
                if obj is _missing:
                    report(node.module + "." + a.name)
                    continue
                bound[a.asname or a.name] = (node.module + "." + a.name, obj)
    # Names rebound by the code itself (assignment, def, class, loop or with target) are not followed.
    rebound = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            rebound.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            rebound.add(node.name)
        elif isinstance(node, ast.arg):
            rebound.add(node.arg)
    # Attribute chains on bound names: only the outermost Attribute of each chain is walked.
    inner = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute):
            inner.add(id(node.value))
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute) or id(node) in inner:
            continue
        chain, base = [], node
        while isinstance(base, ast.Attribute):
            chain.append(base.attr)
            base = base.value
        if not isinstance(base, ast.Name) or base.id not in bound or base.id in rebound:
            continue
        path, obj = bound[base.id]
        for name in reversed(chain):
            if obj is None:
                break
            checked += 1
            nxt = attribute(obj, path, name)
            path = path + "." + name
            if nxt is _missing:
                report(path)
                break
            obj = nxt
    return missing, checked


def version(dist):
    try:
        from importlib.metadata import version as v
        return v(dist)
    except Exception:
        return ""


def main():
    out = {"environment": {"python": sys.version.split()[0], "pymatgen": version("pymatgen"),
                           "pymatgen-analysis-defects": version("pymatgen-analysis-defects")}, "results": {}}
    for line in sys.stdin:
        if not line.strip():
            continue
        item = json.loads(line)
        try:
            missing, checked = check(item["code"])
            out["results"][item["id"]] = {"missing": missing, "checked": checked}
        except SyntaxError as e:
            out["results"][item["id"]] = {"missing": [], "checked": 0, "error": "syntax error: " + str(e.msg)}
        except RecursionError:
            out["results"][item["id"]] = {"missing": [], "checked": 0, "error": "too deeply nested to parse"}
    json.dump(out, sys.stdout, sort_keys=True)


if __name__ == "__main__":
    main()
