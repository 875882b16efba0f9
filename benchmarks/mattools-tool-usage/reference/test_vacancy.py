# Reference solution of the MatTools tool-usage question test_vacancy,
# written from pymatgen-analysis-defects tests/test_core.py::test_vacancy
# (this project's code, following the test's logic; see ../README.md).
def compute_properties():
    """Properties of a Ga vacancy in GaN (question test_vacancy).

    Takes no parameters. Reads
    tool_source_code/pymatgen-analysis-defects/tests/test_files/GaN.vasp
    relative to the working directory.

    Returns:
        dict: the question's ten property names mapped to their values
        (bool, str, int, list, dict keyed by pymatgen Element); a property
        whose computation raises is None.
    """
    from pathlib import Path

    from pymatgen.analysis.defects.core import Vacancy
    from pymatgen.core import Structure

    def attempt(f):
        try:
            return f()
        except Exception:
            return None

    def as_int(x):
        # The question asks for an int; the library may give an integral float.
        return int(x) if x == int(x) else x

    test_dir = Path.cwd() / "tool_source_code/pymatgen-analysis-defects/tests/test_files"
    s = attempt(lambda: Structure.from_file(test_dir / "GaN.vasp").copy())
    vac = attempt(lambda: Vacancy(s, s.sites[0]))
    vac2 = attempt(lambda: Vacancy(s, s.sites[1]))
    return {
        "symmetry_equivalence": attempt(lambda: bool(vac == vac2)),
        "vacancy_string_representation": attempt(lambda: str(vac)),
        "vacancy_oxidation_state": attempt(lambda: as_int(vac.oxi_state)),
        "vacancy_charge_states": attempt(lambda: list(vac.get_charge_states())),
        "vacancy_multiplicity": attempt(lambda: int(vac.get_multiplicity())),
        "vacancy_supercell_formula": attempt(lambda: vac.get_supercell_structure().formula),
        "vacancy_name": attempt(lambda: vac.name),
        "vacancy_self_equivalence": attempt(lambda: bool(vac == vac)),
        "vacancy_element_changes": attempt(lambda: dict(vac.element_changes)),
        "vacancy_latex_name": attempt(lambda: vac.latex_name),
    }
