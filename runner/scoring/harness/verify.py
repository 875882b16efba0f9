"""Step C–D: verify the parsed properties with the question's unit test.

Runs as `python3 -I /sbx/verify.py` in a fresh sandbox that gets only
/sbx/unit_test.py (the question's new_unit_test.py), /sbx/name.txt (the
question id, which is the test function's name) and the pickled parsed dicts
/sbx/v1.pickle and /sbx/strict.pickle (either may be absent). Pickles are
loaded with a restricted unpickler that only builds builtin containers,
numpy arrays and scalars and pymatgen Elements, so a crafted pickle cannot run
code here.

mattools-v1 (docs/mattools.md §2.4 C–D): MatTools' wrapper loads the
dict, finds the function (missing -> a message, exit status 1), calls it and
prints json.dumps(result, default=repr) (exception -> a message with its text,
exit status 1); the container's log (stdout and stderr together, stripped) is
the output, and a non-zero exit status turns it into a failure text embedding
the status and the output. Decision: the letters "ok" anywhere -> "ok"; else
a JSON list -> that list; else an error text. Here fd 1 and fd 2 point at one
file while the v1 phase runs, so warnings interleave as in the container log.

mattools-v1-strict: the test function is called with {} to learn the property
names it checks (each "<name> not found in input properties"), then once per
property present in the dict with only that property, so that an error, or a
crash (e.g. a shape error inside np.allclose), costs exactly that property.
An error string is attributed to the longest property name it starts with;
errors naming no property count against the property being checked.

Writes one JSON object to fd 3:
{"v1": {"decision": "ok"|"list"|"error", "list": [...], "text": output text, "exit": status},
 "strict": {"names": [...], "passed": [bool...], "errors": [...], "messages": [...], "crash": text}},
where messages[i] is the errors of names[i] joined by line feeds ("" when it passed).
"""
import base64
import builtins
import io
import json
import os
import pickle
import sys
import traceback

side_fd = os.dup(3)
os.close(3)

import numpy as np  # noqa: E402,F401 - the unit tests import it too; warm it before the v1 phase
from pymatgen.core import Element  # noqa: E402

ALLOWED = {
    ("builtins", "set"), ("builtins", "frozenset"), ("builtins", "complex"), ("builtins", "slice"),
    ("builtins", "range"), ("builtins", "bytearray"),
    ("numpy", "ndarray"), ("numpy", "dtype"),
    ("numpy.core.multiarray", "_reconstruct"), ("numpy.core.multiarray", "scalar"),
    ("numpy._core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "scalar"),
    ("pymatgen.core.periodic_table", "Element"),
}


ELEMENT = object()  # stands for the Element class in a pickle: never the class itself


def element_member(cls, name):
    """Enum members pickle as getattr(Element, "Mg"); allow exactly that."""
    if cls is ELEMENT and isinstance(name, str) and name in Element.__members__:
        return Element[name]
    raise pickle.UnpicklingError("refused getattr on anything but pymatgen Element members")


SAFE_KINDS = set("biufcU")  # plain numeric, bool and str dtypes; no object, void or structured ones


def safe_dtype(obj, *_):
    dt = np.dtype(obj)
    if dt.kind not in SAFE_KINDS and dt != np.dtype("O"):
        raise pickle.UnpicklingError(f"refused dtype {dt}")
    return dt


class RestrictedUnpickler(pickle._Unpickler):
    """The pure-Python unpickler, so that BUILD can be checked: it may only
    restore an ndarray (never a class, an Element member or a dtype, whose
    __setstate__ can forge object pointers), and the array must have a plain
    dtype, or dtype object with its items given as a list."""

    dispatch = dict(pickle._Unpickler.dispatch)

    def load_build(self):
        state = self.stack.pop()
        inst = self.stack[-1]
        if isinstance(inst, np.dtype):
            return  # the dtype string already fixed it; flags and fields from the pickle are ignored
        if type(inst) is not np.ndarray or not isinstance(state, tuple) or len(state) != 5:
            raise pickle.UnpicklingError(f"refused BUILD on {type(inst).__name__}")
        dt = state[2]
        if not isinstance(dt, np.dtype) or dt.fields is not None or dt.subdtype is not None:
            raise pickle.UnpicklingError("refused array state")
        if dt == np.dtype("O") and not isinstance(state[4], list):
            raise pickle.UnpicklingError("refused object array from raw bytes")
        inst.__setstate__(state)

    dispatch[pickle.BUILD[0]] = load_build

    def find_class(self, module, name):
        if (module, name) == ("builtins", "getattr"):
            return element_member
        if (module, name) == ("pymatgen.core.periodic_table", "Element"):
            return ELEMENT
        if (module, name) == ("numpy", "dtype"):
            return safe_dtype
        if (module, name) in ALLOWED:
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"refused to load {module}.{name}")


def empty(v):
    """A zero-size array or an empty container: no expected value of the 138 is
    empty, and np.allclose broadcasts an empty (0, 1, ...) array against
    anything to an empty, all-true result."""
    if isinstance(v, np.ndarray):
        return v.size == 0
    return isinstance(v, (list, tuple, set, frozenset, dict, str, bytes)) and len(v) == 0


def load(path):
    try:
        data = open(path, "rb").read()
    except FileNotFoundError:
        return None, None
    try:
        return RestrictedUnpickler(io.BytesIO(data)).load(), None
    except BaseException as e:  # noqa: BLE001
        return None, f"{type(e).__name__}: {e}"


unit_test = open("/sbx/unit_test.py", encoding="utf-8").read()
test_name = open("/sbx/name.txt", encoding="utf-8").read().strip()
out = {}


def test_function():
    ns = {"__name__": "__main__", "__builtins__": builtins}
    exec(compile(unit_test, "/app/unit_test.py", "exec"), ns)
    fn = ns.get(test_name)
    if fn is None:
        raise LookupError(f"Function {test_name} not found in unit test")
    return fn


# --- mattools-v1 -----------------------------------------------------------
v1_params, v1_load_error = load("/sbx/v1.pickle")
if v1_params is not None or v1_load_error is not None:
    sys.stdout.flush()
    sys.stderr.flush()
    saved_out, saved_err = os.dup(1), os.dup(2)
    log_fd = os.open("/tmp/v1-log.txt", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(log_fd, 1)
    os.dup2(log_fd, 2)
    os.close(log_fd)
    exit_status = 0
    try:
        if v1_load_error is not None:
            raise pickle.UnpicklingError(v1_load_error)
        ns = {"__name__": "__main__", "__builtins__": builtins}
        exec(compile(unit_test, "/app/unit_test.py", "exec"), ns)
        fn = ns.get(test_name)
        if fn is None:
            print(f"Error: function {test_name} not found in the test code")
            exit_status = 1
        else:
            result = fn(v1_params)
            print(json.dumps(result, default=repr))
    except SystemExit as e:
        exit_status = e.code if isinstance(e.code, int) else 1
    except BaseException as e:  # noqa: BLE001
        print(f"Error executing test function: {e}")
        exit_status = 1
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:  # noqa: BLE001
        pass
    os.dup2(saved_out, 1)
    os.dup2(saved_err, 2)
    output = open("/tmp/v1-log.txt", encoding="utf-8", errors="replace").read().strip()
    if exit_status != 0:
        output = f"执行失败（状态码 {exit_status}）:\n{output}"
    v1 = {"text": output, "exit": exit_status}
    if "ok" in output:
        v1["decision"] = "ok"
    else:
        try:
            parsed = json.loads(output)
        except Exception:  # noqa: BLE001
            parsed = None
        if isinstance(parsed, list):
            v1["decision"], v1["list"] = "list", parsed
        else:
            v1["decision"] = "error"
    out["v1"] = v1

# --- mattools-v1-strict ----------------------------------------------------
strict_params, strict_load_error = load("/sbx/strict.pickle")
if strict_params is not None or strict_load_error is not None:
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    st = {"names": [], "passed": [], "errors": [], "messages": []}
    try:
        if strict_load_error is not None:
            raise pickle.UnpicklingError(strict_load_error)
        fn = test_function()
        probe = fn({})
        suffix = " not found in input properties"
        if not isinstance(probe, list):
            raise ValueError(f"calling the test with no properties returned {probe!r}, not a list of errors")
        names = [e[: -len(suffix)] for e in probe if isinstance(e, str) and e.endswith(suffix)]
        if not names or len(names) != probe[-1]:
            raise ValueError(f"could not learn the property names from {probe!r}")
        st["names"] = names

        def owner(err, current):
            best = None
            for n in names:
                if err.startswith(n) and (len(err) == len(n) or err[len(n)] in " :") and (best is None or len(n) > len(best)):
                    best = n
            return best or current

        for n in names:
            if n in strict_params and empty(strict_params[n]):
                st["passed"].append(False)
                st["errors"].append(f"{n}: empty value")
                st["messages"].append(f"{n}: empty value")
                continue
            if n not in strict_params:
                st["passed"].append(False)
                st["errors"].append(f"{n} not found in input properties")
                st["messages"].append(f"{n} not found in input properties")
                continue
            try:
                r = fn({n: strict_params[n]})
            except BaseException as e:  # noqa: BLE001
                st["passed"].append(False)
                st["errors"].append(f"{n}: verification raised {type(e).__name__}: {e}"[:2000])
                st["messages"].append(st["errors"][-1])
                continue
            if r == "ok":
                st["passed"].append(True)
                st["messages"].append("")
                continue
            mine = [e for e in (r[:-2] if isinstance(r, list) else [r]) if isinstance(e, str) and owner(e, n) == n]
            st["passed"].append(not mine)
            st["errors"].extend(x[:2000] for x in mine)
            st["messages"].append("\n".join(x[:2000] for x in mine))
    except BaseException as e:  # noqa: BLE001
        st["crash"] = (f"{type(e).__name__}: {e}\n" + traceback.format_exc())[-4000:]
    out["strict"] = st

data = json.dumps(out, default=repr).encode()
while data:
    n = os.write(side_fd, data)
    data = data[n:]
os.close(side_fd)
