# Splits Python unit-test files into their test functions for synth
# (parse-only: files are read and parsed with ast, never imported or run).
#
# Input (stdin): a JSON list of {"path": file, "conftests": [conftest.py
# files that apply to it, nearest first]}. Output (stdout): a JSON list, per
# input, of {"error": "..."} or
#   {"imports": [...], "functions": [...], "classes": [...],
#    "variables": [...], "tests": [...]}
# where imports, functions (module-level defs, decorators included),
# classes and variables (module-level assignments) are source segments in
# file order, as MatTools' code_segments list them, and each test is
#   {"name", "class", "lineno", "code", "fixtures": [{"name", "file",
#    "code"}], "setup": [{"name", "code"}], "globals": [...],
#    "builtin_fixtures": [...], "bases": [...]}
# with its fixtures resolved (class, module, then conftests, nearest
# first; transitively; autouse ones included), in dependency order.
import ast, json, sys, textwrap, warnings

warnings.simplefilter("ignore")

# Fixtures pytest provides itself: left to pytest, never inlined.
BUILTIN = {"tmp_path", "tmpdir", "tmp_path_factory", "tmpdir_factory", "monkeypatch", "capsys", "capfd",
           "caplog", "request", "recwarn", "pytestconfig", "cache", "capsysbinary", "capfdbinary", "doctest_namespace",
           "record_property", "record_testsuite_property", "record_xml_attribute", "testdir", "pytester", "subtests"}
# unittest / PymatgenTest set-up methods, run before each test of the class.
SETUP = ("setUpClass", "setup_class", "setUp", "setup_method")


def segment(lines, node):
    """Source text of node, from its first decorator to its last token."""
    first = node.decorator_list[0] if getattr(node, "decorator_list", None) else node
    l0, c0 = first.lineno, first.col_offset
    if first is not node:
        c0 -= 1  # the "@" before the decorator expression
    l1, c1 = node.end_lineno, node.end_col_offset
    # A comment closing the last line belongs to the segment, as in the
    # tree-sitter parse MatTools' code_segments come from.
    rest = lines[l1 - 1].encode()[c1:].decode()
    if rest.strip().startswith("#"):
        c1 += len(rest.rstrip("\r\n").rstrip().encode())
    if l0 == l1:
        return lines[l0 - 1].encode()[c0:c1].decode()
    out = [lines[l0 - 1].encode()[c0:].decode()]
    out += lines[l0:l1 - 1]
    out.append(lines[l1 - 1].encode()[:c1].decode())
    return "".join(out)


def fixture_info(node):
    """(is a fixture, autouse, name) of a def's decorators."""
    for d in node.decorator_list:
        f = d.func if isinstance(d, ast.Call) else d
        name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
        if name != "fixture":
            continue
        auto, fname = False, node.name
        if isinstance(d, ast.Call):
            for k in d.keywords:
                if k.arg == "autouse" and isinstance(k.value, ast.Constant):
                    auto = bool(k.value.value)
                if k.arg == "name" and isinstance(k.value, ast.Constant):
                    fname = k.value.value
        return True, auto, fname
    return False, False, node.name


def params(node):
    a = node.args
    return [p.arg for p in a.posonlyargs + a.args + a.kwonlyargs if p.arg not in ("self", "cls")]


def names_used(node):
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def indented(mod, node):
    """Source of a class member with its indentation (from the line start)."""
    first = node.decorator_list[0] if getattr(node, "decorator_list", None) else node
    col = first.col_offset - (1 if first is not node else 0)
    return mod.lines[first.lineno - 1][:col] + mod.seg(node)


def used_names(fixtures):
    names = set()
    for f in fixtures:
        names |= names_used(ast.parse(textwrap.dedent(f["code"])))
    return names


class Module:
    def __init__(self, path):
        with open(path, "r", encoding="utf-8") as fh:
            src = fh.read()
        self.path = path
        self.lines = src.splitlines(keepends=True)
        self.tree = ast.parse(src, filename=path)
        self.fixtures = {}  # name -> (node, autouse)
        self.defs = {}  # module-level functions and classes by name
        self.assigns = {}  # module-level assigned name -> node
        for n in self.tree.body:
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                fx, auto, name = fixture_info(n)
                if fx:
                    self.fixtures[name] = (n, auto)
                self.defs[n.name] = n
            elif isinstance(n, ast.ClassDef):
                self.defs[n.name] = n
            elif isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = n.targets if isinstance(n, ast.Assign) else [n.target]
                for t in targets:
                    for x in ast.walk(t):
                        if isinstance(x, ast.Name):
                            self.assigns.setdefault(x.id, n)

    def seg(self, node):
        return segment(self.lines, node)


def split(item):
    mod = Module(item["path"])
    confs = [Module(p) for p in item.get("conftests") or []]
    out = {"imports": [], "functions": [], "classes": [], "variables": [], "tests": []}
    for n in mod.tree.body:
        if isinstance(n, (ast.Import, ast.ImportFrom)):
            out["imports"].append(mod.seg(n))
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out["functions"].append(mod.seg(n))
        elif isinstance(n, ast.ClassDef):
            out["classes"].append(mod.seg(n))
        elif isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            out["variables"].append(mod.seg(n))

    classes = {n.name: n for n in mod.tree.body if isinstance(n, ast.ClassDef)}

    def class_chain(cls):
        """cls and its bases defined in this file, most derived first."""
        chain, todo = [], [cls]
        while todo:
            c = todo.pop(0)
            if c in chain:
                continue
            chain.append(c)
            for b in c.bases:
                if isinstance(b, ast.Name) and b.id in classes:
                    todo.append(classes[b.id])
        return chain

    def resolve(names, chain, autouse):
        """Fixtures of names (and autouse ones), transitively, in dependency order."""
        scopes = []
        for c in chain:
            fx = {}
            for m in c.body:
                if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    is_fx, auto, name = fixture_info(m)
                    if is_fx:
                        fx[name] = (m, auto)
            scopes.append(("class " + c.name, mod, fx))
        scopes.append(("module", mod, mod.fixtures))
        for cm in confs:
            scopes.append((cm.path, cm, cm.fixtures))
        found, order, builtin, seen = {}, [], [], set()

        def visit(name, stack):
            if name in seen:
                return
            seen.add(name)
            for where, m, fx in scopes:
                if name in fx:
                    node = fx[name][0]
                    for p in params(node):
                        if p not in stack:
                            visit(p, stack | {name})
                    found[name] = True
                    order.append({"name": name, "file": m.path, "scope": where, "code": m.seg(node)})
                    return
            if name in BUILTIN:
                builtin.append(name)

        if autouse:
            for where, m, fx in scopes:
                for name, (node, auto) in fx.items():
                    if auto:
                        visit(name, set())
        for n in names:
            visit(n, set())
        return order, builtin

    def globals_of(nodes):
        """Module-level assignments and helper defs the nodes use, transitively, in file order."""
        want, todo = set(), set()
        for n in nodes:
            todo |= names_used(n)
        while todo:
            x = todo.pop()
            if x in want:
                continue
            node = mod.assigns.get(x)
            if node is None:
                d = mod.defs.get(x)
                if d is not None and not fixture_info(d)[0] and not isinstance(d, ast.ClassDef) and not d.name.startswith("test"):
                    node = d
            if node is None:
                continue
            want.add(x)
            todo |= names_used(node)
        picked = []
        for n in mod.tree.body:
            if n in picked:
                continue
            if isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                if any(mod.assigns.get(x) is n for x in want):
                    picked.append(n)
            elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name in want:
                picked.append(n)
        return [mod.seg(n) for n in picked]

    def add_test(node, cls):
        chain = class_chain(cls) if cls is not None else []
        fixtures, builtin = resolve(params(node), chain, True)
        setup = []
        for c in reversed(chain):
            for m in c.body:
                if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)) and m.name in SETUP:
                    setup.append({"name": c.name + "." + m.name, "code": mod.seg(m)})
            for m in c.body:
                if isinstance(m, (ast.Assign, ast.AnnAssign)):
                    setup.append({"name": c.name + " (class attribute)", "code": mod.seg(m)})
        used_nodes = [node] + [m for c in chain for m in c.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Assign, ast.AnnAssign)) and (getattr(m, "name", "") in SETUP or isinstance(m, (ast.Assign, ast.AnnAssign)))]
        for f in fixtures:
            if f["file"] == mod.path:
                for scope, m, fx in [("module", mod, mod.fixtures)]:
                    if f["name"] in fx:
                        used_nodes.append(fx[f["name"]][0])
        bases = []
        if cls is not None:
            for b in cls.bases:
                bases.append(ast.unparse(b))
        glob = globals_of(used_nodes)
        local = [f for f in fixtures if f["file"] == mod.path]
        remote = [f for f in fixtures if f["file"] != mod.path]
        # The unit test, self-contained but for the conftest fixtures: the
        # file's imports, the module-level names it uses, the same file's
        # module fixtures it uses, and the test (for a method, its class
        # with only its attributes, set-up, fixtures and this method).
        parts = ["\n".join(out["imports"])] if out["imports"] else []
        parts += glob
        parts += [f["code"] for f in local if f["scope"] == "module"]
        if cls is None:
            parts.append(mod.seg(node))
        else:
            members = []
            for c in reversed(chain):
                for m in c.body:
                    keep = isinstance(m, (ast.Assign, ast.AnnAssign)) or (
                        isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)) and m.name in SETUP)
                    if keep:
                        members.append(indented(mod, m))
                for f in local:
                    if f["scope"] == "class " + c.name:
                        members.append(indented(mod, [m for m in c.body if getattr(m, "name", None) == f["name"] or (isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)) and fixture_info(m)[2] == f["name"])][0]))
            members.append(indented(mod, node))
            head = "class %s%s:" % (cls.name, "(" + ", ".join(bases) + ")" if bases else "")
            parts.append(head + "\n" + "\n\n".join(members))
        reading = []
        if remote:
            imps = []
            for cm in confs:
                if any(f["file"] == cm.path for f in remote):
                    imps += [cm.seg(n) for n in cm.tree.body if isinstance(n, (ast.Import, ast.ImportFrom)) and cm.seg(n) not in imps]
                    reading += [cm.seg(n) for n in cm.tree.body if isinstance(n, (ast.Assign, ast.AnnAssign)) and names_used(n) is not None and any(x.id in used_names(remote) for x in ast.walk(n) if isinstance(x, ast.Name) and isinstance(x.ctx, ast.Store))]
            reading = (["\n".join(imps)] if imps else []) + reading + [f["code"] for f in remote]
        out["tests"].append({
            "name": node.name, "class": cls.name if cls is not None else "", "lineno": node.lineno,
            "code": mod.seg(node), "fixtures": fixtures, "setup": setup, "globals": glob,
            "builtin_fixtures": builtin, "bases": bases,
            "unit_test": "\n\n\n".join(parts) + "\n",
            "file_reading": "\n\n\n".join(reading) + "\n" if reading else "",
        })

    for n in mod.tree.body:
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name.startswith("test") and not fixture_info(n)[0]:
            add_test(n, None)
        elif isinstance(n, ast.ClassDef) and n.name.startswith("Test"):
            seen = set()
            for c in class_chain(n):
                for m in c.body:
                    if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)) and m.name.startswith("test") and m.name not in seen and not fixture_info(m)[0]:
                        seen.add(m.name)
                        add_test(m, n)
    return out


res = []
for item in json.load(sys.stdin):
    try:
        res.append(split(item))
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError) as e:
        res.append({"error": "%s: %s" % (type(e).__name__, e)})
json.dump(res, sys.stdout)
