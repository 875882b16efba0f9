# Reference solution of the MatTools tool-usage question test_antisite_generator,
# written from pymatgen-analysis-defects tests/test_generators.py::test_antisite_generator
# (this project's code, following the test's logic; see ../README.md).
def compute_properties():
    """Names of the antisite defects of GaN, in the generator's order (question
    test_antisite_generator).

    Takes no parameters. Reads
    tool_source_code/pymatgen-analysis-defects/tests/test_files/GaN.vasp
    relative to the working directory.

    Returns:
        dict: "antisite_defect_names" (list of str); a property whose
            computation raises is None.
    """
    from pathlib import Path

    from pymatgen.analysis.defects.generators import AntiSiteGenerator
    from pymatgen.core import Structure

    def attempt(f):
        try:
            return f()
        except Exception:
            return None

    test_dir = Path.cwd() / "tool_source_code/pymatgen-analysis-defects/tests/test_files"
    gan_struct = attempt(lambda: Structure.from_file(test_dir / "GaN.vasp"))
    return {
        # the question's own expression: the names as the generator yields them (the test sorts them before comparing)
        "antisite_defect_names": attempt(lambda: [defect.name for defect in AntiSiteGenerator().get_defects(gan_struct)]),
    }
