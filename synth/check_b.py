# Check (b) of a synthesised triplet, run inside the sandbox (sandbox)
# by synth.CheckExecution. /sbx/triplet.json gives the verification code
# (MatTools' new_unit_test) and its function name, the property names, the
# reference solution and its function name (or null), and the test module
# (the test with its fixtures inlined, Test.FileReading + Test.UnitTest)
# with the test's name and class. The result goes to fd 3 as JSON:
#   none:      the verification given {p: None for every p}
#   reference: the reference's dict given to the verification
#   test:      the test function itself
# each {"status": "ok" | "crash", "detail", "failed": [names of the
# properties some error names], "errors": [...]}; test's status is
# "passed", "failed", "error" or "skipped" (a pytest.skip, a missing data
# file or a package the sandbox's environment lacks).
import contextlib, io, json, os, sys, traceback

sys.path.insert(0, "/sbx")  # the pytest stand-in (python -I leaves /sbx out)
os.chdir("/app")
spec = json.load(open("/sbx/triplet.json"))
out = {}


def errors_of(r, printed):
    """MatTools' verification returns "ok" or [errors..., n_errors, n_props]
    (published form), or prints "ok" / "failed: e1; e2" (the generated
    template): the error strings."""
    if isinstance(r, str) and r == "ok":
        return []
    if isinstance(r, (list, tuple)):
        return [str(e) for e in r if isinstance(e, str)]
    text = printed.strip()
    if r is None and text.endswith("ok") and "failed" not in text:
        return []
    if r is None and "failed:" in text:
        return [e.strip() for e in text.split("failed:", 1)[1].split("; ")]
    return ["unexpected result %r, output %r" % (r, text[-300:])]


def verify(props):
    ns = {"__name__": "new_unit_test"}
    buf = io.StringIO()
    try:
        exec(compile(spec["unit_test"], "new_unit_test.py", "exec"), ns)
        fn = ns[spec["unit_test_name"]]
        with contextlib.redirect_stdout(buf):
            r = fn(props)
    except BaseException as e:  # noqa: BLE001 - the verification's own failure is the finding
        return {"status": "crash", "detail": "".join(traceback.format_exception_only(type(e), e)).strip()[-500:]}
    errs = errors_of(r, buf.getvalue())
    failed = [p for p in spec["properties"] if any(e.startswith(p) or (p + ":") in e or (p + " ") in e for e in errs)]
    return {"status": "ok", "errors": errs[:50], "failed": failed}


out["none"] = verify({p: None for p in spec["properties"]})

if spec.get("reference"):
    ns = {"__name__": "reference"}
    buf = io.StringIO()
    try:
        exec(compile(spec["reference"], "reference.py", "exec"), ns)
        with contextlib.redirect_stdout(buf):
            d = ns[spec["reference_name"]]()
        if not isinstance(d, dict):
            raise TypeError("the reference returned %s, not a dict" % type(d).__name__)
        out["reference"] = verify(d)
    except BaseException as e:  # noqa: BLE001
        out["reference"] = {"status": "crash", "detail": "".join(traceback.format_exception_only(type(e), e)).strip()[-500:]}

if spec.get("test_module"):
    import pytest  # the stand-in

    def run_test():
        ns = {"__name__": "test_module"}
        exec(compile(spec["test_module"], "test_module.py", "exec"), ns)
        fixtures = {}
        for v in list(ns.values()):
            name = getattr(v, "_synth_fixture", None)
            if name:
                fixtures[name] = v
        cache = {}

        def value(name):
            if name in cache:
                return cache[name]
            if name in ("tmp_path", "tmpdir"):
                import pathlib, tempfile
                v = pathlib.Path(tempfile.mkdtemp())
            elif name in fixtures:
                f = fixtures[name]
                v = f(*[value(a) for a in argnames(f)])
                if hasattr(v, "__next__"):
                    v = next(v)
            else:
                raise pytest.Skipped("fixture %r is not available outside pytest" % name)
            cache[name] = v
            return v

        for f in fixtures.values():
            if getattr(f, "_synth_autouse", False) and not argnames(f, skip_self=False)[:1] == ["self"]:
                value(f._synth_fixture)
        if spec["test_class"]:
            cls = ns[spec["test_class"]]
            obj = cls(spec["test_name"]) if _is_testcase(cls) else cls()
            for m in ("setUpClass", "setup_class"):
                if hasattr(cls, m):
                    getattr(cls, m)()
            for m in ("setUp", "setup_method"):
                if hasattr(obj, m):
                    f = getattr(obj, m)
                    f() if m == "setUp" else f(getattr(obj, spec["test_name"]))
            meth = getattr(obj, spec["test_name"])
            meth(*[value(a) for a in argnames(meth)])
        else:
            f = ns[spec["test_name"]]
            f(*[value(a) for a in argnames(f)])

    def _is_testcase(cls):
        import unittest
        return issubclass(cls, unittest.TestCase)

    def argnames(f, skip_self=True):
        import inspect
        ps = [p.name for p in inspect.signature(f).parameters.values()
              if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty]
        return ps

    buf = io.StringIO()
    try:
        with contextlib.redirect_stdout(buf):
            run_test()
        out["test"] = {"status": "passed"}
    except pytest.Skipped as e:
        out["test"] = {"status": "skipped", "detail": str(e)[-500:]}
    except FileNotFoundError as e:
        # A test-data file this data root lacks: the environment's, not the triplet's.
        out["test"] = {"status": "skipped", "detail": "data missing: %s" % (e,)}
    except ImportError as e:
        # An optional package the sandbox's pinned environment lacks.
        out["test"] = {"status": "skipped", "detail": "module missing in the sandbox: %s" % (e,)}
    except AssertionError as e:
        tb = traceback.extract_tb(e.__traceback__)
        line = tb[-1].lineno if tb else 0
        out["test"] = {"status": "failed", "detail": ("line %d: " % line) + (str(e)[-400:] or "assert failed")}
    except BaseException as e:  # noqa: BLE001
        out["test"] = {"status": "error", "detail": "".join(traceback.format_exception_only(type(e), e)).strip()[-500:]}

os.write(3, json.dumps(out, default=repr).encode())
