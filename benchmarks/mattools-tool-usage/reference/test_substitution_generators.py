# Reference solution of the MatTools tool-usage question test_substitution_generators,
# written from pymatgen-analysis-defects tests/test_generators.py::test_substitution_generators
# (this project's code, following the test's logic; see ../README.md).
def compute_properties():
    """Substitutions of Ga generated in GaN (question
    test_substitution_generators).

    Takes no parameters. Reads
    tool_source_code/pymatgen-analysis-defects/tests/test_files/GaN.vasp
    relative to the working directory.

    Returns:
        dict: "defect_type" (bool) and the two sets of substituting species
            (set of str); a property whose computation raises is None.
    """
    from pathlib import Path

    from pymatgen.analysis.defects.core import Substitution
    from pymatgen.analysis.defects.generators import SubstitutionGenerator
    from pymatgen.core import Structure

    def attempt(f):
        try:
            return f()
        except Exception:
            return None

    test_dir = Path.cwd() / "tool_source_code/pymatgen-analysis-defects/tests/test_files"
    gan_struct = attempt(lambda: Structure.from_file(test_dir / "GaN.vasp"))
    defects_1 = attempt(lambda: list(SubstitutionGenerator().get_defects(gan_struct, {"Ga": ["Mg", "Ca"]})))
    defects_2 = attempt(lambda: list(SubstitutionGenerator().get_defects(gan_struct, {"Ga": "Mg"})))
    return {
        "defect_type": attempt(lambda: all(isinstance(d, Substitution) for d in defects_1 + defects_2)),
        "replaced_atoms_set_1": attempt(lambda: {d.site.specie.symbol for d in defects_1}),
        "replaced_atoms_set_2": attempt(lambda: {d.site.specie.symbol for d in defects_2}),
    }
