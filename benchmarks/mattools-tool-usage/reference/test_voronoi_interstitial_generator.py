# Reference solution of the MatTools tool-usage question test_voronoi_interstitial_generator,
# written from pymatgen-analysis-defects tests/test_generators.py::test_voronoi_interstitial_generator
# (this project's code, following the test's logic; see ../README.md).
def compute_properties():
    """Li interstitials placed at Voronoi nodes of Fe3O4 (question
    test_voronoi_interstitial_generator).

    Takes no parameters. Reads
    tool_source_code/pymatgen-analysis-defects/tests/test_files/CHGCAR.Fe3O4.vasp
    relative to the working directory.

    Returns:
        dict: "defect_type" and "defect_specie" (bool) and "defect_count"
            (int); a property whose computation raises is None.
    """
    from pathlib import Path

    from pymatgen.analysis.defects.core import Interstitial
    from pymatgen.analysis.defects.generators import VoronoiInterstitialGenerator
    from pymatgen.io.vasp.outputs import Chgcar

    def attempt(f):
        try:
            return f()
        except Exception:
            return None

    test_dir = Path.cwd() / "tool_source_code/pymatgen-analysis-defects/tests/test_files"
    chgcar_fe3o4 = attempt(lambda: Chgcar.from_file(test_dir / "CHGCAR.Fe3O4.vasp"))
    defects = attempt(lambda: list(VoronoiInterstitialGenerator().get_defects(chgcar_fe3o4.structure, {"Li"})))
    return {
        "defect_type": attempt(lambda: all(isinstance(d, Interstitial) for d in defects)),
        "defect_specie": attempt(lambda: all(d.site.specie.symbol == "Li" for d in defects)),
        "defect_count": attempt(lambda: len(defects)),
    }
