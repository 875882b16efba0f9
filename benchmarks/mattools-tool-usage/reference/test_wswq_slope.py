# Reference solution of the MatTools tool-usage question test_wswq_slope,
# written from pymatgen-analysis-defects tests/test_ccd.py::test_wswq_slope
# (this project's code, following the test's logic; see ../README.md).
def compute_properties():
    """Slopes of fake WSWQ overlaps against distortion (question
    test_wswq_slope).

    Takes no parameters. Reads no files.

    Returns:
        dict: the two slope matrices (3 x 5 numpy arrays); a property whose
            computation raises is None.
    """
    from collections import namedtuple

    import numpy as np
    from pymatgen.analysis.defects.ccd import _get_wswq_slope

    def attempt(f):
        try:
            return f()
        except Exception:
            return None

    mats = [np.ones((3, 5)), np.zeros((3, 5)), np.ones((3, 5))]
    FakeWSWQ = namedtuple("FakeWSWQ", ["data"])
    fake_wswqs = [FakeWSWQ(data=m) for m in mats]
    return {
        "wswq_slope_positive_distortion": attempt(lambda: _get_wswq_slope([-0.5, 0, 0.5], fake_wswqs)),
        "wswq_slope_negative_distortion": attempt(lambda: _get_wswq_slope([1.0, 0, -1.0], fake_wswqs)),
    }
