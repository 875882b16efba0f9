# Reference solution of the MatTools tool-usage question test_generate_all_native_defects,
# written from pymatgen-analysis-defects tests/test_generators.py::test_generate_all_native_defects
# (this project's code, following the test's logic; see ../README.md).
def compute_properties():
    """Native defects of Fe3O4 generated from its CHGCAR and from its structure
    (question test_generate_all_native_defects).

    Takes no parameters. Reads
    tool_source_code/pymatgen-analysis-defects/tests/test_files/CHGCAR.Fe3O4.vasp
    relative to the working directory.

    Returns:
        dict: the two defect counts (int); a property whose computation raises
            is None.
    """
    from pathlib import Path

    from pymatgen.analysis.defects.generators import generate_all_native_defects
    from pymatgen.io.vasp.outputs import Chgcar

    def attempt(f):
        try:
            return f()
        except Exception:
            return None

    test_dir = Path.cwd() / "tool_source_code/pymatgen-analysis-defects/tests/test_files"
    chgcar = attempt(lambda: Chgcar.from_file(test_dir / "CHGCAR.Fe3O4.vasp"))
    return {
        "number_of_defects_with_chgcar": attempt(lambda: len(list(generate_all_native_defects(chgcar)))),
        "number_of_defects_with_structure": attempt(lambda: len(list(generate_all_native_defects(chgcar.structure)))),
    }
