# Reference solution of the MatTools tool-usage question test_ase_supercells,
# written from pymatgen-analysis-defects tests/test_supercells.py::test_ase_supercells
# (this project's code, following the test's logic; see ../README.md).
def compute_properties():
    """Cubic supercells of GaN found with ASE (question test_ase_supercells).

    Takes no parameters. Reads
    tool_source_code/pymatgen-analysis-defects/tests/test_files/GaN.vasp
    relative to the working directory. _ase_cubic needs the package ase.

    Returns:
        dict: "supercell_size_constraint" and "supercell_generation_failure"
            (bool); a property whose computation raises is None.
    """
    from pathlib import Path

    from pymatgen.analysis.defects.supercells import _ase_cubic
    from pymatgen.core import Structure

    def attempt(f):
        try:
            return f()
        except Exception:
            return None

    test_dir = Path.cwd() / "tool_source_code/pymatgen-analysis-defects/tests/test_files"
    gan_struct = attempt(lambda: Structure.from_file(test_dir / "GaN.vasp"))

    def size_within_range():
        sc = gan_struct * _ase_cubic(gan_struct, min_atoms=4, max_atoms=8, min_length=1.0)
        return 4 <= sc.num_sites <= 8

    def raises_runtime_error():
        try:
            _ase_cubic(gan_struct, min_atoms=4, max_atoms=8, min_length=10)
        except RuntimeError:
            return True
        return False

    return {
        "supercell_size_constraint": attempt(size_within_range),
        "supercell_generation_failure": attempt(raises_runtime_error),
    }
