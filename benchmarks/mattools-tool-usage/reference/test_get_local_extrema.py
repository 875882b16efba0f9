# Reference solution of the MatTools tool-usage question test_get_local_extrema,
# written from pymatgen-analysis-defects tests/test_utils.py::test_get_local_extrema
# (this project's code, following the test's logic; see ../README.md).
def compute_properties():
    """Local minima of a GaN CHGCAR with four zeroed grid points (question
    test_get_local_extrema).

    Takes no parameters. Reads
    tool_source_code/pymatgen-analysis-defects/tests/test_files/GaN.vasp
    relative to the working directory.

    Returns:
        dict: "local_extrema_positions" (sorted list of fractional
            coordinates); a property whose computation raises is None.
    """
    from pathlib import Path

    import numpy as np
    from pymatgen.analysis.defects.utils import get_local_extrema
    from pymatgen.core import Structure
    from pymatgen.io.vasp.outputs import Chgcar

    def attempt(f):
        try:
            return f()
        except Exception:
            return None

    test_dir = Path.cwd() / "tool_source_code/pymatgen-analysis-defects/tests/test_files"
    frac_pos = [[0, 0, 0], [0.25, 0.25, 0.25], [0.5, 0.5, 0.5], [0.75, 0.75, 0.75]]

    def extrema():
        gan_struct = Structure.from_file(test_dir / "GaN.vasp")
        chgcar = Chgcar(poscar=gan_struct, data={"total": np.ones((48, 48, 48))})
        for fpos in frac_pos:
            idx = np.multiply(fpos, chgcar.data["total"].shape).astype(int)
            chgcar.data["total"][idx[0], idx[1], idx[2]] = 0
        return sorted(get_local_extrema(chgcar, frac_pos).tolist())

    return {
        "local_extrema_positions": attempt(extrema),
    }
