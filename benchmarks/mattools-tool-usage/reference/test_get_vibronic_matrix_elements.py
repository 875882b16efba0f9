# Reference solution of the MatTools tool-usage question test_get_vibronic_matrix_elements,
# written from pymatgen-analysis-defects tests/test_recombination.py::test_get_vibronic_matrix_elements
# (this project's code, following the test's logic; see ../README.md).
def compute_properties():
    """Vibronic matrix elements from precomputed overlaps (question
    test_get_vibronic_matrix_elements).

    Takes no parameters. Reads no files.

    Returns:
        dict: "vibronic_matrix_elements" (list of float); a property whose
            computation raises is None.
    """
    import itertools

    import numpy as np
    from pymatgen.analysis.defects.recombination import analytic_overlap_NM, get_mQn

    def attempt(f):
        try:
            return f()
        except Exception:
            return None

    def matrix_elements():
        dQ, omega_i, omega_f = 0, 0.2, 0.2
        Ni, Nf = 5, 5
        ovl = np.zeros((Ni, Nf), dtype=np.longdouble)
        for m, n in itertools.product(range(Ni), range(Nf)):
            ovl[m, n] = analytic_overlap_NM(dQ, omega_i, omega_f, m, n)
        _, matel = get_mQn(omega_i=omega_i, omega_f=omega_f, m_init=0, Nf=Nf, dQ=dQ, ovl=ovl)
        return [float(x) for x in matel]

    return {
        "vibronic_matrix_elements": attempt(matrix_elements),
    }
