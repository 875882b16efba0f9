# Reference solution of the MatTools tool-usage question test_get_avg_chg,
# written from pymatgen-analysis-defects tests/test_utils.py::test_get_avg_chg
# (this project's code, following the test's logic; see ../README.md).
def compute_properties():
    """Average charge density in a sphere of a uniform GaN CHGCAR (question
    test_get_avg_chg).

    Takes no parameters. Reads
    tool_source_code/pymatgen-analysis-defects/tests/test_files/GaN.vasp
    relative to the working directory.

    Returns:
        dict: "average_charge_density" (float); a property whose computation
            raises is None.
    """
    from pathlib import Path

    import numpy as np
    from pymatgen.analysis.defects.utils import get_avg_chg
    from pymatgen.core import Structure
    from pymatgen.io.vasp.outputs import Chgcar

    def attempt(f):
        try:
            return f()
        except Exception:
            return None

    test_dir = Path.cwd() / "tool_source_code/pymatgen-analysis-defects/tests/test_files"
    gan_struct = attempt(lambda: Structure.from_file(test_dir / "GaN.vasp"))
    chgcar = attempt(lambda: Chgcar(poscar=gan_struct, data={"total": np.ones((48, 48, 48))}))
    return {
        "average_charge_density": attempt(lambda: float(get_avg_chg(chgcar, [0.1, 0.1, 0.1]))),
    }
