# A stand-in for the parts of pytest a unit test's own code uses, so that
# check (b) can run a test function in the sandbox, whose pinned Python
# environment has no pytest: fixture (recorded, resolved by check_b.py),
# approx (pytest's defaults: rel 1e-6, abs 1e-12), raises, warns, mark,
# skip, importorskip. Anything else raises AttributeError, and the test
# counts as an error, not as passed.
import math
import re
import warnings as _warnings


class Skipped(Exception):
    pass


def fixture(*args, **kwargs):
    def wrap(f):
        f._synth_fixture = kwargs.get("name") or f.__name__
        f._synth_autouse = bool(kwargs.get("autouse"))
        return f

    if args and callable(args[0]) and not kwargs:
        return wrap(args[0])
    return wrap


class approx:
    __array_ufunc__ = None  # numpy defers ndarray == approx to __eq__
    __array_priority__ = 100

    def __init__(self, expected, rel=None, abs=None, nan_ok=False):
        self.expected, self.rel, self.abs, self.nan_ok = expected, rel, abs, nan_ok

    def _close(self, a, e):
        try:
            import numpy as np

            if isinstance(a, np.ndarray) or isinstance(e, np.ndarray):
                a, e = np.asarray(a, dtype=float), np.asarray(e, dtype=float)
                if a.shape != e.shape and e.shape != ():
                    return False
                return bool(np.all([self._close(float(x), float(y)) for x, y in zip(a.ravel(), np.broadcast_to(e, a.shape).ravel())]))
        except ImportError:
            pass
        if isinstance(e, dict):
            return isinstance(a, dict) and a.keys() == e.keys() and all(self._close(a[k], e[k]) for k in e)
        if isinstance(e, (list, tuple)):
            return isinstance(a, (list, tuple)) and len(a) == len(e) and all(self._close(x, y) for x, y in zip(a, e))
        try:
            a, e = float(a), float(e)
        except (TypeError, ValueError):
            return a == e
        if math.isnan(e) or math.isnan(a):
            return self.nan_ok and math.isnan(e) and math.isnan(a)
        if math.isinf(e) or math.isinf(a):
            return a == e
        rel = 1e-6 if self.rel is None and self.abs is None else (self.rel or 0.0)
        ab = 1e-12 if self.abs is None else self.abs
        if self.rel is None and self.abs is not None:
            rel = 0.0
        return abs(a - e) <= max(rel * abs(e), ab)

    def __eq__(self, other):
        return self._close(other, self.expected)

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = None

    def __repr__(self):
        return "approx(%r)" % (self.expected,)


class _ExcInfo:
    value = None
    type = None


class raises:
    def __init__(self, exc, match=None):
        self.exc, self.match, self.info = exc, match, _ExcInfo()

    def __enter__(self):
        return self.info

    def __exit__(self, t, v, tb):
        if t is None:
            raise AssertionError("DID NOT RAISE %r" % (self.exc,))
        if not issubclass(t, self.exc):
            return False
        if self.match is not None and not re.search(self.match, str(v)):
            raise AssertionError("exception text %r does not match %r" % (str(v), self.match))
        self.info.value, self.info.type = v, t
        return True


class warns:
    def __init__(self, *a, **k):
        self.cm = _warnings.catch_warnings(record=True)

    def __enter__(self):
        r = self.cm.__enter__()
        _warnings.simplefilter("always")
        return r

    def __exit__(self, *a):
        return self.cm.__exit__(*a)


class _Mark:
    def __getattr__(self, name):
        def deco(*args, **kwargs):
            if len(args) == 1 and callable(args[0]) and not kwargs:
                return args[0]
            return lambda f: f

        return deco


mark = _Mark()


def skip(reason=""):
    raise Skipped(reason)


def importorskip(name, *a, **k):
    import importlib

    try:
        return importlib.import_module(name)
    except ImportError as e:
        raise Skipped(str(e))


MonkeyPatch = object
