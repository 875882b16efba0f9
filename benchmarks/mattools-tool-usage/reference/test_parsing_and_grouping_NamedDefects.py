# Reference solution of the MatTools tool-usage question test_parsing_and_grouping_NamedDefects,
# written from pymatgen-analysis-defects tests/test_core.py::test_parsing_and_grouping_NamedDefects
# (this project's code, following the test's logic; see ../README.md).
def compute_properties():
    """NamedDefect parsed from the Mg_Ga structures, and its equalities
    (question test_parsing_and_grouping_NamedDefects).

    Takes no parameters. Reads the CONTCAR.gz files of
    tool_source_code/pymatgen-analysis-defects/tests/test_files/Mg_Ga/bulk_sc
    and Mg_Ga/q=0 relative to the working directory.

    Returns:
        dict: the four property names mapped to a dict keyed by pymatgen
            Element, a str and two bools; a property whose computation raises
            is None.
    """
    from pathlib import Path

    from pymatgen.analysis.defects.core import NamedDefect
    from pymatgen.core import Structure

    def attempt(f):
        try:
            return f()
        except Exception:
            return None

    test_dir = Path.cwd() / "tool_source_code/pymatgen-analysis-defects/tests/test_files"
    bulk_struct = attempt(lambda: Structure.from_file(test_dir / "Mg_Ga" / "bulk_sc" / "CONTCAR.gz"))
    defect_struct = attempt(lambda: Structure.from_file(test_dir / "Mg_Ga" / "q=0" / "CONTCAR.gz"))
    nd0 = attempt(lambda: NamedDefect.from_structures(defect_structure=defect_struct, bulk_structure=bulk_struct))
    nd1 = attempt(lambda: NamedDefect(name="v_Ga", bulk_formula="GaN", element_changes={"Ga": -1}))
    nd2 = attempt(lambda: NamedDefect(name="Mg_Ga", bulk_formula="GaN", element_changes={"Mg": 1, "Ga": -1}))
    return {
        "element_changes": attempt(lambda: dict(nd0.element_changes)),
        "defect_string_representation": attempt(lambda: str(nd0)),
        "defect_inequality": attempt(lambda: bool(nd0 != nd1)),
        "defect_equality": attempt(lambda: bool(nd0 == nd2)),
    }
