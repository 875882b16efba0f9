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
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and rest.strip().startswith("#"):
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


_names = {}


def names_used(node):
    k = id(node)
    if k not in _names:
        _names[k] = (node, {n.id for n in ast.walk(node) if isinstance(n, ast.Name)})
    return _names[k][1]


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


_conftests = {}


def conftest(path):
    if path not in _conftests:
        _conftests[path] = Module(path)
    return _conftests[path]


def split(item):
    mod = Module(item["path"])
    confs = [conftest(p) for p in item.get("conftests") or []]
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
            "code": mod.seg(node), "code_line": (node.decorator_list[0].lineno if node.decorator_list else node.lineno), "fixtures": fixtures, "setup": setup, "globals": glob,
            "builtin_fixtures": builtin, "bases": bases,
            "asserts": asserts_of(node, mod.lines),
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


ASSERT_CALLS_CLOSE = {"assert_allclose", "assert_array_almost_equal", "assert_almost_equal", "assertAlmostEqual",
                      "assert_array_almost_equal_nulp", "allclose", "isclose"}
ASSERT_CALLS_EQUAL = {"assert_array_equal", "assert_equal", "assertEqual", "assertListEqual", "assertDictEqual",
                      "assertSetEqual", "assertTupleEqual", "assertCountEqual", "array_equal", "assertIs"}
NUMPY_WRAP = {"array", "asarray", "approx", "tuple", "list", "set", "float", "int", "str", "frozenset"}
SPECIES = {"Element", "Specie", "Species", "DummySpecies", "DummySpecie", "Composition"}


def call_name(f):
    return f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")


class Opaque(Exception):
    pass


class NdList(list):
    """A list built by numpy (np.ones, np.array, …): arithmetic is elementwise."""


def elementwise(op, a, b):
    num = lambda x: isinstance(x, (int, float)) and not isinstance(x, bool)
    if num(a) and num(b):
        return {ast.Mult: a * b, ast.Add: a + b, ast.Sub: a - b, ast.Div: a / b if b else float("nan")}[op]
    if isinstance(a, list) and num(b):
        return NdList(elementwise(op, x, b) for x in a)
    if num(a) and isinstance(b, list):
        return NdList(elementwise(op, a, y) for y in b)
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return NdList(elementwise(op, x, y) for x, y in zip(a, b))
    raise Opaque()


def filled(shape, v):
    if isinstance(shape, int) and not isinstance(shape, bool):
        shape = [shape]
    if not isinstance(shape, list) or not all(isinstance(n, int) and 0 <= n <= 10000 for n in shape) or len(shape) > 4:
        raise Opaque()
    if len(shape) == 1:
        return NdList([v] * shape[0])
    return NdList(filled(shape[1:], v) for _ in range(shape[0]))


def value_of(node, env):
    """A comparable Python value of an expected-value expression: literals,
    names bound to literals earlier in the test (env), pytest.approx /
    np.array / list / tuple wrappers, Element("X") as "X"; Opaque if none."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id in env:
            return value_of(env[node.id], {k: v for k, v in env.items() if k != node.id})
        if node.id in ("True", "False", "None"):
            return {"True": True, "False": False, "None": None}[node.id]
        raise Opaque()
    if isinstance(node, (ast.List, ast.Tuple)):
        return [value_of(e, env) for e in node.elts]
    if isinstance(node, ast.Set):
        return {"__set__": sorted((canon(value_of(e, env)) for e in node.elts), key=repr)}
    if isinstance(node, ast.Dict):
        if any(k is None for k in node.keys):
            raise Opaque()
        return {"__dict__": sorted(([canon(value_of(k, env)), value_of(v, env)] for k, v in zip(node.keys, node.values)), key=lambda kv: repr(kv[0]))}
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = value_of(node.operand, env)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return -v if isinstance(node.op, ast.USub) else v
        raise Opaque()
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mult, ast.Add, ast.Sub, ast.Div)):
        a, b = value_of(node.left, env), value_of(node.right, env)
        if all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (a, b)) or isinstance(a, NdList) or isinstance(b, NdList):
            return elementwise(type(node.op), a, b)
        raise Opaque()
    if isinstance(node, ast.Call):
        n = call_name(node.func)
        if n in SPECIES and len(node.args) == 1 and isinstance(node.args[0], ast.Constant):
            return str(node.args[0].value)
        if n in ("ones", "zeros") and len(node.args) == 1:
            return filled(value_of(node.args[0], env), 1.0 if n == "ones" else 0.0)
        if n == "full" and len(node.args) == 2:
            return filled(value_of(node.args[0], env), value_of(node.args[1], env))
        if n in ("array", "asarray") and node.args:
            v = value_of(node.args[0], env)
            return NdList(v) if isinstance(v, list) else v
        if n in NUMPY_WRAP and node.args:
            v = value_of(node.args[0], env)
            if n == "set" or n == "frozenset":
                return {"__set__": sorted((canon(x) for x in v), key=repr)} if isinstance(v, list) else v
            return v
    raise Opaque()


def canon(v):
    return json.dumps(v, sort_keys=True, default=repr)


def expected_of(node, env):
    """(kind, value or None) of one assert statement or assert call."""
    if isinstance(node, ast.Assert):
        t = node.test
        if isinstance(t, ast.UnaryOp) and isinstance(t.op, ast.Not):
            return "truth", False
        if isinstance(t, ast.Compare) and len(t.ops) == 1 and isinstance(t.ops[0], (ast.Eq, ast.Is)):
            a, b = t.left, t.comparators[0]
            close = any(isinstance(x, ast.Call) and call_name(x.func) == "approx" for x in (a, b))
            for side in (b, a):
                try:
                    return ("close" if close else "equal"), value_of(side, env)
                except Opaque:
                    pass
            return "truth", True
        if isinstance(t, ast.Call):
            n = call_name(t.func)
            if n in ASSERT_CALLS_CLOSE | ASSERT_CALLS_EQUAL and len(t.args) >= 2:
                for side in (t.args[1], t.args[0]):
                    try:
                        return ("close" if n in ASSERT_CALLS_CLOSE else "equal"), value_of(side, env)
                    except Opaque:
                        pass
        return "truth", True
    n = call_name(node.func)
    if n in ("assertTrue",):
        return "truth", True
    if n in ("assertFalse",):
        return "truth", False
    if (n in ASSERT_CALLS_CLOSE or n in ASSERT_CALLS_EQUAL) and len(node.args) >= 2:
        for side in (node.args[1], node.args[0]):
            try:
                return ("close" if n in ASSERT_CALLS_CLOSE else "equal"), value_of(side, env)
            except Opaque:
                pass
        return "opaque", None
    return "opaque", None


def truth_expr(node, lines):
    """Source of what an assert statement tests (for assert not X: X)."""
    if not isinstance(node, ast.Assert):
        return None
    t = node.test
    if isinstance(t, ast.UnaryOp) and isinstance(t.op, ast.Not):
        t = t.operand
    return segment(lines, t)


def expected_src(node, lines, env):
    """Source of the literal side of an equality or closeness assert."""
    if isinstance(node, ast.Assert):
        t = node.test
        if isinstance(t, ast.Compare) and len(t.ops) == 1 and isinstance(t.ops[0], (ast.Eq, ast.Is)):
            sides = (t.comparators[0], t.left)
        elif isinstance(t, ast.Call) and len(t.args) >= 2:
            sides = (t.args[1], t.args[0])
        else:
            return None
    elif len(node.value.args) >= 2:
        sides = (node.value.args[1], node.value.args[0])
    else:
        return None
    for side in sides:
        try:
            value_of(side, env)
            return segment(lines, side)
        except Opaque:
            pass
    return None


def subjects_of(node, lines, env):
    """Source of the computed (non-literal) operands of an assert that
    call or read an attribute: what the property's value is computed by."""
    if isinstance(node, ast.Assert):
        t = node.test
        if isinstance(t, ast.UnaryOp):
            t = t.operand
        ops = [t.left] + list(t.comparators) if isinstance(t, ast.Compare) else (
            list(t.args) if isinstance(t, ast.Call) and call_name(t.func) in ASSERT_CALLS_CLOSE | ASSERT_CALLS_EQUAL else [t])
    else:
        ops = list(node.value.args)
    out = []
    for o in ops:
        try:
            value_of(o, env)
            continue  # a literal
        except Opaque:
            pass
        if any(isinstance(x, (ast.Call, ast.Attribute)) for x in ast.walk(o)):
            out.append(segment(lines, o))
    return out


def asserts_of(fn, lines):
    """The assert statements and assert calls of a test function, in
    order, with the value each expects (None when it is not a literal)."""
    out = []
    env = {}

    def visit(node, raises):
        for ch in ast.iter_child_nodes(node):
            if isinstance(ch, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                continue
            r = raises
            if isinstance(ch, (ast.With, ast.AsyncWith)):
                for it in ch.items:
                    e = it.context_expr
                    if isinstance(e, ast.Call) and call_name(e.func) in ("raises", "assertRaises", "assertRaisesRegex", "warns", "assertWarns"):
                        r = True
            if isinstance(ch, ast.Assign) and len(ch.targets) == 1 and isinstance(ch.targets[0], ast.Name):
                env[ch.targets[0].id] = ch.value
            is_call = isinstance(ch, ast.Expr) and isinstance(ch.value, ast.Call) and (
                call_name(ch.value.func).startswith("assert") and call_name(ch.value.func) != "assert_msonable")
            if isinstance(ch, ast.Assert) or is_call:
                kind, val = expected_of(ch if isinstance(ch, ast.Assert) else ch.value, dict(env))
                out.append({"line": ch.lineno, "code": segment(lines, ch),
                            "kind": kind, "value": canon(val) if kind in ("equal", "close") else None,
                            "truth": val if kind == "truth" else None, "in_raises": r,
                            "subjects": subjects_of(ch, lines, env), "end_line": ch.end_lineno,
                            "expr": truth_expr(ch, lines), "expected_src": expected_src(ch, lines, env)})
                continue
            visit(ch, r)

    visit(fn, False)
    return out


def parse_value(text):
    """A property's value (a string in the properties JSON, or any JSON
    value) as value_of sees it; Opaque if it is not a literal."""
    if not isinstance(text, str):
        return normalize(text)
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        return text
    try:
        return value_of(node, {})
    except Opaque:
        return text


def normalize(v):
    """A JSON value in value_of's form (dicts as sorted key-value pairs;
    string items parsed as Python literals where they are)."""
    if isinstance(v, list):
        return [normalize(x) for x in v]
    if isinstance(v, dict):
        return {"__dict__": sorted(([canon(parse_value(k)), normalize(x)] for k, x in v.items()), key=lambda kv: repr(kv[0]))}
    return v


def close(a, b, rtol=1e-5, atol=1e-8):
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return abs(a - b) <= atol + rtol * abs(b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(close(x, y, rtol, atol) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return canon(a) == canon(b) or (a.keys() == b.keys() and all(close(a[k], b[k], rtol, atol) for k in a))
    return canon(a) == canon(b)


def check(item):
    """Check (a): each property maps to an assert of the test, each
    asserted literal value to a property."""
    src = textwrap.dedent(item["code"]) if item["code"][:1].isspace() else item["code"]
    lines = src.splitlines(keepends=True)
    try:
        tree = ast.parse(src)
    except SyntaxError:
        # A method's continuation lines keep their class indentation.
        first, rest = src.split("\n", 1) if "\n" in src else (src, "")
        src = first + "\n" + textwrap.dedent(rest)
        tree = ast.parse(src)
        lines = src.splitlines(keepends=True)
    fn = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))][0]
    asserts = asserts_of(fn, lines)
    props = []
    for p in item["properties"]:
        v = parse_value(p["value"])
        matched = []
        for i, a in enumerate(asserts):
            if a["in_raises"]:
                continue
            if a["kind"] in ("equal", "close"):
                if close(v, json.loads(a["value"])):
                    matched.append(i)
            elif a["kind"] == "truth" and isinstance(v, bool) and v == a["truth"]:
                matched.append(i)
        props.append({"name": p["name"], "value": canon(v), "asserts": matched})
    covered = {i for p in props for i in p["asserts"]}
    for i, a in enumerate(asserts):
        a["covered"] = i in covered
    return {"asserts": asserts, "properties": props}


def main():
    data = json.load(sys.stdin)
    res = []
    if isinstance(data, dict) and "check" in data:
        for item in data["check"]:
            try:
                res.append(check(item))
            except (SyntaxError, ValueError, IndexError, RecursionError) as e:
                res.append({"error": "%s: %s" % (type(e).__name__, e)})
    else:
        for item in data:
            try:
                res.append(split(item))
            except (OSError, SyntaxError, UnicodeDecodeError, ValueError) as e:
                res.append({"error": "%s: %s" % (type(e).__name__, e)})
    json.dump(res, sys.stdout)


main()
