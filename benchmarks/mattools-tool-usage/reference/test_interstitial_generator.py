# Reference solution of the MatTools tool-usage question test_interstitial_generator,
# written from pymatgen-analysis-defects tests/test_generators.py::test_interstitial_generator
# (this project's code, following the test's logic; see ../README.md).
def compute_properties():
    """An Mg interstitial generated in GaN (question
    test_interstitial_generator).

    Takes no parameters. Reads
    tool_source_code/pymatgen-analysis-defects/tests/test_files/GaN.vasp
    relative to the working directory.

    Returns:
        dict: "number_of_interstitials" (int) and
            "interstitial_site_description" (str); a property whose computation
            raises is None.
    """
    from pathlib import Path

    from pymatgen.analysis.defects.generators import InterstitialGenerator
    from pymatgen.core import Structure

    def attempt(f):
        try:
            return f()
        except Exception:
            return None

    test_dir = Path.cwd() / "tool_source_code/pymatgen-analysis-defects/tests/test_files"
    gan_struct = attempt(lambda: Structure.from_file(test_dir / "GaN.vasp"))
    l_gen = attempt(lambda: list(InterstitialGenerator().get_defects(gan_struct, insertions={"Mg": [[0, 0, 0]]})))
    return {
        "number_of_interstitials": attempt(lambda: len(l_gen)),
        "interstitial_site_description": attempt(lambda: str(l_gen[0])),
    }
