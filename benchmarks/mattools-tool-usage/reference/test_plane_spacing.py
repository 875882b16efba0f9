# Reference solution of the MatTools tool-usage question test_plane_spacing,
# written from pymatgen-analysis-defects tests/test_utils.py::test_plane_spacing
# (this project's code, following the test's logic; see ../README.md).
def compute_properties():
    """Spacings of the lattice planes of GaN (question test_plane_spacing).

    Takes no parameters. Reads
    tool_source_code/pymatgen-analysis-defects/tests/test_files/GaN.vasp
    relative to the working directory.

    Returns:
        dict: "plane_spacing" (list of float, Angstrom); a property whose
            computation raises is None.
    """
    from pathlib import Path

    from pymatgen.analysis.defects.utils import get_plane_spacing
    from pymatgen.core import Structure

    def attempt(f):
        try:
            return f()
        except Exception:
            return None

    test_dir = Path.cwd() / "tool_source_code/pymatgen-analysis-defects/tests/test_files"
    gan_struct = attempt(lambda: Structure.from_file(test_dir / "GaN.vasp"))
    return {
        "plane_spacing": attempt(lambda: [float(x) for x in get_plane_spacing(gan_struct.lattice.matrix)]),
    }
