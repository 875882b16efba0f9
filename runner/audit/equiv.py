import ast
import json

# The equivalent-answer probes of cmd/audit (docs/benchmark-audit.md,
# "Equivalent answers"): every property answered with a form of its own
# expected value that the question text does not rule out. One answer per
# form (FORM); STATED holds, by property, what the question's text states
# about the value (cmd/audit/equiv.go, statedFormat). A property the form
# does not apply to is answered with its expected value as it is. The
# answer prints one line, MARKER and a JSON object: by property, the form's
# description, for the properties it changed. Templated by
# cmd/audit/equiv.go: UNIT_TEST, TEST_NAME, STATED, FORM, MARKER, QUESTION,
# FUNCTION.

UNIT_TEST = {{UNIT_TEST}}
TEST_NAME = {{TEST_NAME}}
STATED = json.loads({{STATED}})
FORM = {{FORM}}
MARKER = {{MARKER}}
QUESTION = {{QUESTION}}


class NotApplicable(Exception):
    pass


def parsed(v):
    """v, or for a string that holds a Python literal other than a string
    (a number a unit test stores as text), that literal."""
    if isinstance(v, str):
        try:
            x = ast.literal_eval(v.strip())
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return v
        if not isinstance(x, str):
            return x
    return v


def short(x):
    r = repr(x)
    return r if len(r) <= 100 else r[:100] + "…"


def is_label(x):
    import numpy as np
    return isinstance(x, (str, int, np.integer)) and not isinstance(x, (bool, np.bool_))


def form_keys(v, st):
    """Element or Species keys <-> their symbols, when the question states
    a dict and not the keys' type."""
    from pymatgen.core import Element
    if not isinstance(v, dict) or not v or st["keys_named"] or st["outer"] not in ("", "dict"):
        raise NotApplicable
    if all(hasattr(k, "symbol") and not isinstance(k, str) for k in v):
        out = {k.symbol: x for k, x in v.items()}
        return out, "string keys %s" % short(out)
    if all(isinstance(k, str) for k in v):
        try:
            out = {Element(k): x for k, x in v.items()}
        except ValueError:
            raise NotApplicable
        return out, "Element keys %s" % short(out)
    raise NotApplicable


def form_container(v, st):
    """Another container of the same items: when the question names no
    container, tuple <-> list, set -> sorted list, array -> list; when it
    names one the expected value is not (a list, the value an array), the
    named one; when it names the outer container only, the items' lists <->
    tuples."""
    import numpy as np
    outer = st["outer"]
    if outer == "":
        if isinstance(v, tuple):
            return list(v), "list %s (a tuple expected)" % short(list(v))
        if isinstance(v, list):
            return tuple(v), "tuple %s (a list expected)" % short(tuple(v))
        if isinstance(v, (set, frozenset)):
            out = sorted(v, key=str)
            return out, "sorted list %s (a set expected)" % short(out)
        if isinstance(v, np.ndarray):
            return v.tolist(), "list %s (an array expected)" % short(v.tolist())
        raise NotApplicable
    if outer == "list" and isinstance(v, np.ndarray):
        return v.tolist(), "list %s, as the question states (an array expected)" % short(v.tolist())
    if outer == "ndarray" and isinstance(v, list):
        return np.array(v), "array, as the question states (a list expected)"
    if outer == "list" and isinstance(v, list) and st["inner"] == "" and v and all(isinstance(x, (list, tuple)) for x in v):
        out = [tuple(x) if isinstance(x, list) else list(x) for x in v]
        return out, "items as %s %s" % ("tuples" if isinstance(v[0], list) else "lists", short(out))
    raise NotApplicable


def form_order(v, st):
    """The items in another order: a list of labels (strings, integers),
    when the property's line states no order and the question's text does
    not write the list out."""
    if not isinstance(v, list) or len(v) < 2 or not all(is_label(x) for x in v) or len(set(v)) != len(v):
        raise NotApplicable
    if st["order_stated"]:
        raise NotApplicable
    if str(v) in QUESTION or json.dumps(v) in QUESTION:
        raise NotApplicable  # the question writes the list out (its line or its code), in its order
    out = list(reversed(v))
    return out, "reversed order %s" % short(out)


def form_numpy(v, st):
    """numpy's scalar for a Python number or truth value, when the question
    names the kind (int, float, bool) and not a Python type alone; a list's
    numbers as numpy scalars."""
    import numpy as np
    if isinstance(v, bool):
        return np.bool_(v), "numpy.bool_(%r)" % v
    if isinstance(v, int):
        return np.int64(v), "numpy.int64(%r)" % v
    if isinstance(v, float):
        return np.float64(v), "numpy.float64(%r)" % v
    if isinstance(v, list) and v and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v):
        out = [np.float64(x) if isinstance(x, float) else np.int64(x) for x in v]
        return out, "a list of numpy scalars %s" % short(out)
    raise NotApplicable


def sig_digits(x):
    """Significant digits of repr(x)."""
    r = repr(abs(x)).lower()
    mant = r.split("e")[0].replace(".", "").lstrip("0")
    return len(mant)


def nudge(x, st):
    if not isinstance(x, float) or isinstance(x, bool) or x == 0:
        return x
    if st["tolerance_stated"]:
        return x + 0.5 * (1e-8 + 1e-5 * abs(x))  # within np.allclose's default tolerance
    n = sig_digits(x)
    if n < 6:
        return x  # a value stated to few digits is stated exactly
    return float("%.*g" % (n - 1, x))


def form_float(v, st):
    """A float within the tolerance the question states (np.allclose's
    default), or, when it states none, rounded to one significant digit
    less than the expected value has (of six or more)."""
    import numpy as np

    def walk(x):
        if isinstance(x, float):
            return nudge(x, st)
        if isinstance(x, list):
            return [walk(y) for y in x]
        if isinstance(x, tuple):
            return tuple(walk(y) for y in x)
        if isinstance(x, np.ndarray) and x.dtype.kind == "f":
            return np.array([walk(float(y)) for y in x.ravel()]).reshape(x.shape)
        return x
    out = walk(v)
    same = out == v
    if isinstance(same, np.ndarray):
        same = bool(same.all())
    if same:
        raise NotApplicable
    how = "within the stated tolerance" if st["tolerance_stated"] else "rounded to one digit less"
    return out, "%s %s" % (how, short(out))


FORMS = {"keys": form_keys, "container": form_container, "order": form_order, "numpy": form_numpy, "float": form_float}


def {{FUNCTION}}():
    tree = ast.parse(UNIT_TEST)
    fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == TEST_NAME)
    body = []
    for stmt in fn.body:
        body.append(stmt)
        if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "expected_properties" for t in stmt.targets):
            break
    ns = {}
    exec(compile(ast.Module(body=body, type_ignores=[]), "<expected>", "exec"), ns)
    out, changed = {}, {}
    for k, info in ns["expected_properties"].items():
        v = parsed(info["value"])
        out[k] = v
        st = STATED.get(k)
        if st is None:
            continue
        try:
            out[k], changed[k] = FORMS[FORM](v, st)
        except NotApplicable:
            pass
    print(MARKER + json.dumps(changed))
    return out
