# Reference solution of the MatTools tool-usage question test_topography_analyzer,
# written from pymatgen-analysis-defects tests/test_utils.py::test_topography_analyzer
# (this project's code, following the test's logic; see ../README.md).
def compute_properties():
    """Voronoi nodes of Fe3O4 found by TopographyAnalyzer (question
    test_topography_analyzer).

    Takes no parameters. Reads
    tool_source_code/pymatgen-analysis-defects/tests/test_files/CHGCAR.Fe3O4.vasp
    relative to the working directory.

    Returns:
        dict: "dummy_sites_count" (int) and "value_error_check" (bool); a
            property whose computation raises is None.
    """
    from pathlib import Path

    from pymatgen.analysis.defects.utils import TopographyAnalyzer
    from pymatgen.io.vasp.outputs import Chgcar

    def attempt(f):
        try:
            return f()
        except Exception:
            return None

    test_dir = Path.cwd() / "tool_source_code/pymatgen-analysis-defects/tests/test_files"
    struct = attempt(lambda: Chgcar.from_file(test_dir / "CHGCAR.Fe3O4.vasp").structure)

    def dummy_sites_count():
        node_struct = TopographyAnalyzer(struct, ["Fe", "O"], [], check_volume=True).get_structure_with_nodes()
        return len([site for site in node_struct if site.specie.symbol == "X"])

    def conflicting_species_raise():
        try:
            TopographyAnalyzer(struct, ["O"], ["Fe"], check_volume=True)
        except ValueError:
            return True
        return False

    return {
        "dummy_sites_count": attempt(dummy_sites_count),
        "value_error_check": attempt(conflicting_species_raise),
    }
