# Reference solution of the MatTools tool-usage question test_boltzmann,
# written from pymatgen-analysis-defects tests/test_recombination.py::test_boltzmann
# (this project's code, following the test's logic; see ../README.md).
def compute_properties():
    """Boltzmann filling of six phonon states at 300 K (question
    test_boltzmann).

    Takes no parameters. Reads no files.

    Returns:
        dict: "Boltzmann_Filling_Distribution" (list of float); a property
            whose computation raises is None.
    """
    from pymatgen.analysis.defects.recombination import boltzmann_filling

    def attempt(f):
        try:
            return f()
        except Exception:
            return None

    return {
        "Boltzmann_Filling_Distribution": attempt(lambda: [float(x) for x in boltzmann_filling(0.1, 300, n_states=6).flatten()]),
    }
