# Reference solution of the MatTools tool-usage question test_pchip_eval,
# written from pymatgen-analysis-defects tests/test_recombination.py::test_pchip_eval
# (this project's code, following the test's logic; see ../README.md).
def compute_properties():
    """Integral of the pchip interpolation of sin(x) + 1 (question
    test_pchip_eval).

    Takes no parameters. Reads no files.

    Returns:
        dict: "pchip_interpolation_integral" (float); a property whose
            computation raises is None.
    """
    import numpy as np
    from pymatgen.analysis.defects.recombination import pchip_eval

    def attempt(f):
        try:
            return f()
        except Exception:
            return None

    x_c = np.linspace(0, 2, 5)
    y_c = np.sin(x_c) + 1
    xx = np.linspace(-3, 3, 1000)
    fx = attempt(lambda: pchip_eval(xx, x_coarse=x_c, y_coarse=y_c))
    return {
        "pchip_interpolation_integral": attempt(lambda: float(np.trapz(np.nan_to_num(fx), x=xx))),
    }
