# Reference solution of the MatTools tool-usage question test_adsorbate,
# written from pymatgen-analysis-defects tests/test_core.py::test_adsorbate
# (this project's code, following the test's logic; see ../README.md).
def compute_properties():
    """Name and description of an N adsorbate on GaN (question test_adsorbate).

    Takes no parameters. Reads
    tool_source_code/pymatgen-analysis-defects/tests/test_files/GaN.vasp
    relative to the working directory.

    Returns:
        dict: "adsorbate_name" and "adsorbate_description" (str); a property
            whose computation raises is None.
    """
    from pathlib import Path

    from pymatgen.analysis.defects.core import Adsorbate, PeriodicSite
    from pymatgen.core import Structure
    from pymatgen.core.periodic_table import Specie

    def attempt(f):
        try:
            return f()
        except Exception:
            return None

    test_dir = Path.cwd() / "tool_source_code/pymatgen-analysis-defects/tests/test_files"
    s = attempt(lambda: Structure.from_file(test_dir / "GaN.vasp").copy())
    ads = attempt(lambda: Adsorbate(s, PeriodicSite(Specie("N"), [0, 0, 0.75], s.lattice)))
    return {
        "adsorbate_name": attempt(lambda: ads.name),
        "adsorbate_description": attempt(lambda: str(ads)),
    }
