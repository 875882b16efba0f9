# Reference solution of the MatTools tool-usage question test_supercells,
# written from pymatgen-analysis-defects tests/test_supercells.py::test_supercells
# (this project's code, following the test's logic; see ../README.md).
def compute_properties():
    """Supercell matrices of GaN and the consistency of their lattices
    (question test_supercells).

    Takes no parameters. Reads
    tool_source_code/pymatgen-analysis-defects/tests/test_files/GaN.vasp
    relative to the working directory.

    Returns:
        dict: two matrix shapes (tuple) and
            "supercell_lattice_parameters_consistency" (bool); a property whose
            computation raises is None.
    """
    from pathlib import Path

    import numpy as np
    from pymatgen.analysis.defects.supercells import get_matched_structure_mapping, get_sc_fromstruct
    from pymatgen.core import Structure

    def attempt(f):
        try:
            return f()
        except Exception:
            return None

    test_dir = Path.cwd() / "tool_source_code/pymatgen-analysis-defects/tests/test_files"
    uc = attempt(lambda: Structure.from_file(test_dir / "GaN.vasp").copy())
    sc_mat = attempt(lambda: get_sc_fromstruct(uc))
    sc = attempt(lambda: uc * sc_mat)
    sc_mat2 = attempt(lambda: get_matched_structure_mapping(uc, sc)[0])
    sc2 = attempt(lambda: uc * sc_mat2)
    return {
        "supercell_matrix_shape": attempt(lambda: tuple(int(n) for n in sc_mat.shape)),
        "matched_supercell_matrix_shape": attempt(lambda: tuple(int(n) for n in sc_mat2.shape)),
        # the test's np.testing.assert_allclose (rtol 1e-7) of the two lattices' abc
        "supercell_lattice_parameters_consistency": attempt(lambda: bool(np.allclose(sc.lattice.abc, sc2.lattice.abc, rtol=1e-7, atol=0))),
    }
