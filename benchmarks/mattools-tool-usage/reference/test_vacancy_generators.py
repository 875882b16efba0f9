# Reference solution of the MatTools tool-usage question test_vacancy_generators,
# written from pymatgen-analysis-defects tests/test_generators.py::test_vacancy_generators
# (this project's code, following the test's logic; see ../README.md).
def compute_properties():
    """Vacancies generated in GaN (question test_vacancy_generators).

    Takes no parameters. Reads
    tool_source_code/pymatgen-analysis-defects/tests/test_files/GaN.vasp
    relative to the working directory.

    Returns:
        dict: "defect_instance_type" (bool),
            "vacancy_count_for_specific_species" (int) and
            "invalid_species_error" (bool); a property whose computation raises
            is None.
    """
    from pathlib import Path

    from pymatgen.analysis.defects.core import Vacancy
    from pymatgen.analysis.defects.generators import VacancyGenerator
    from pymatgen.core import Structure

    def attempt(f):
        try:
            return f()
        except Exception:
            return None

    def raises_value_error():
        try:
            list(VacancyGenerator().get_defects(gan_struct, rm_species=["Xe"]))
        except ValueError:
            return True
        return False

    test_dir = Path.cwd() / "tool_source_code/pymatgen-analysis-defects/tests/test_files"
    gan_struct = attempt(lambda: Structure.from_file(test_dir / "GaN.vasp"))
    return {
        "defect_instance_type": attempt(lambda: all(isinstance(d, Vacancy) for d in VacancyGenerator().get_defects(gan_struct))),
        "vacancy_count_for_specific_species": attempt(lambda: sum(1 for d in VacancyGenerator().get_defects(gan_struct, ["Ga"]) if isinstance(d, Vacancy))),
        "invalid_species_error": attempt(raises_value_error),
    }
