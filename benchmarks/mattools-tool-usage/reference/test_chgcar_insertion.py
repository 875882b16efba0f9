# Reference solution of the MatTools tool-usage question test_chgcar_insertion,
# written from pymatgen-analysis-defects tests/test_utils.py::test_chgcar_insertion
# (this project's code, following the test's logic; see ../README.md).
def compute_properties():
    """Charge insertion sites of Fe3O4 grouped by average charge (question
    test_chgcar_insertion).

    Takes no parameters. Reads
    tool_source_code/pymatgen-analysis-defects/tests/test_files/CHGCAR.Fe3O4.vasp
    relative to the working directory.

    Returns:
        dict: "average_charge" (list of float) and "insertion_site_positions"
            (list of lists of fractional coordinates, in the analyzer's order
            as the question's code collects them); a property whose computation
            raises is None.
    """
    from pathlib import Path

    from pymatgen.analysis.defects.utils import ChargeInsertionAnalyzer
    from pymatgen.io.vasp.outputs import Chgcar

    def attempt(f):
        try:
            return f()
        except Exception:
            return None

    test_dir = Path.cwd() / "tool_source_code/pymatgen-analysis-defects/tests/test_files"
    chgcar = attempt(lambda: Chgcar.from_file(test_dir / "CHGCAR.Fe3O4.vasp"))
    insert_groups = attempt(lambda: list(ChargeInsertionAnalyzer(chgcar).filter_and_group(max_avg_charge=0.5)))
    return {
        "average_charge": attempt(lambda: [float(avg_chg) for avg_chg, _ in insert_groups]),
        "insertion_site_positions": attempt(lambda: [[[float(x) for x in fpos] for fpos in group] for _, group in insert_groups]),
    }
