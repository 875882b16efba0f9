# Reference solution of the MatTools tool-usage question test_lower_envelope,
# written from pymatgen-analysis-defects tests/test_thermo.py::test_lower_envelope
# (this project's code, following the test's logic; see ../README.md).
def compute_properties():
    """Lower envelope of a set of lines and its transitions (question test_lower_envelope).

    Takes no parameters and reads no files.

    Returns:
        dict: "lower_envelope" (list of (slope, intercept) tuples) and
        "transitions" (list of (x, y) tuples for x in [-5, 2]); a property
        whose computation raises is None.
    """
    from pymatgen.analysis.defects.thermo import get_lower_envelope, get_transitions

    def attempt(f):
        try:
            return f()
        except Exception:
            return None

    def plain(x):
        # numpy scalars as Python numbers, so that the printed dict is a Python literal
        if isinstance(x, (list, tuple)):
            return type(x)(plain(v) for v in x)
        return x.item() if hasattr(x, "item") else x

    lines = [[4, 12], [-1, 3], [-5, 4], [-2, 1], [3, 8], [-4, 14], [2, 12], [3, 8]]
    envelope = attempt(lambda: get_lower_envelope(lines))
    return {
        "lower_envelope": attempt(lambda: plain(list(envelope))),
        "transitions": attempt(lambda: plain(list(get_transitions(envelope, -5, 2)))),
    }
