# Reference solution of the MatTools tool-usage question test_get_SRH_coef,
# written from pymatgen-analysis-defects tests/test_recombination.py::test_get_SRH_coef
# (this project's code, following the test's logic; see ../README.md).
def compute_properties():
    """Shockley-Read-Hall coefficients at 100, 200 and 300 K (question
    test_get_SRH_coef).

    Takes no parameters. Reads no files.

    Returns:
        dict: "SRH_Coefficient" (list of float); a property whose computation
            raises is None.
    """
    from pymatgen.analysis.defects.recombination import get_SRH_coef

    def attempt(f):
        try:
            return f()
        except Exception:
            return None

    return {
        "SRH_Coefficient": attempt(lambda: [float(x) for x in get_SRH_coef(
            T=[100, 200, 300], dQ=1.0, dE=1.0, omega_i=0.2, omega_f=0.2, elph_me=1, volume=1, g=1,
        )]),
    }
