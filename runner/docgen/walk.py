# Walks the code objects of Python files for runner/docgen (parse-only:
# the files are read and parsed with ast, never imported or executed).
# Input (stdin): a JSON list of file paths. Output (stdout): a JSON list,
# per file, of {"error": "..."} or {"objects": [...]}, each object
# {"kind", "name", "qualname", "parent", "lineno", "end_lineno",
#  "name_column", "have_return", "code", "calls"} in ast.walk order, as
# RepoAgent's get_functions_and_classes lists them. Lines are read as
# RepoAgent reads them (open(..., encoding="utf-8").readlines()); "calls"
# are the simple names called in the object's own body (f() -> "f",
# x.f() -> "f"), not counting the bodies of the functions and classes
# nested in it, which are objects of their own.
import ast, json, sys, warnings
warnings.simplefilter("ignore")
DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)

def calls_of(node):
    names, stack = [], list(ast.iter_child_nodes(node))
    while stack:
        n = stack.pop()
        if isinstance(n, DEFS):
            # A nested object's decorators and defaults run in this body.
            stack.extend(n.decorator_list)
            if not isinstance(n, ast.ClassDef):
                stack.extend(n.args.defaults + [d for d in n.args.kw_defaults if d is not None])
            else:
                stack.extend(n.bases)
            continue
        if isinstance(n, ast.Call):
            f = n.func
            if isinstance(f, ast.Name):
                names.append(f.id)
            elif isinstance(f, ast.Attribute):
                names.append(f.attr)
        stack.extend(ast.iter_child_nodes(n))
    return sorted(set(names))

out = []
for path in json.load(sys.stdin):
    try:
        with open(path, "r", encoding="utf-8") as fh:
            lines = fh.readlines()
        tree = ast.parse("".join(lines), filename=path)
    except Exception as e:
        out.append({"error": type(e).__name__ + ": " + str(e)})
        continue
    parent = {}
    for n in ast.walk(tree):
        for c in ast.iter_child_nodes(n):
            parent[c] = n
    def enclosing(n):
        p = parent.get(n)
        while p is not None and not isinstance(p, DEFS):
            p = parent.get(p)
        return p
    qual = {}
    objs = []
    for n in ast.walk(tree):
        if not isinstance(n, DEFS):
            continue
        p = enclosing(n)
        qual[n] = (qual[p] + "." if p is not None else "") + n.name
        code = "".join(lines[n.lineno - 1:n.end_lineno])
        objs.append({
            "kind": type(n).__name__, "name": n.name, "qualname": qual[n],
            "parent": p.name if p is not None else "",
            "lineno": n.lineno, "end_lineno": n.end_lineno,
            "name_column": lines[n.lineno - 1].find(n.name),
            "have_return": "return" in code, "code": code, "calls": calls_of(n),
        })
    out.append({"objects": objs})
json.dump(out, sys.stdout)
