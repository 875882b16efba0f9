# Reference solution of the MatTools tool-usage question test_group_docs,
# written from pymatgen-analysis-defects tests/test_utils.py::test_group_docs
# (this project's code, following the test's logic; see ../README.md).
def compute_properties():
    """Grouping of GaN vacancies and interstitials by structure, and by
    structure and name (question test_group_docs).

    Takes no parameters. Reads
    tool_source_code/pymatgen-analysis-defects/tests/test_files/GaN.vasp
    relative to the working directory.

    Returns:
        dict: the three groupings as "|"-joined str; a property whose
            computation raises is None.
    """
    from pathlib import Path

    from pymatgen.analysis.defects.core import Interstitial, PeriodicSite, Vacancy
    from pymatgen.analysis.defects.utils import group_docs
    from pymatgen.analysis.structure_matcher import StructureMatcher
    from pymatgen.core import Structure
    from pymatgen.core.periodic_table import Specie

    def attempt(f):
        try:
            return f()
        except Exception:
            return None

    test_dir = Path.cwd() / "tool_source_code/pymatgen-analysis-defects/tests/test_files"
    s = attempt(lambda: Structure.from_file(test_dir / "GaN.vasp").copy())
    vac1, vac2, vac3, vac4 = (attempt(lambda i=i: Vacancy(s, s.sites[i])) for i in range(4))

    def get_interstitial(fpos):
        return Interstitial(s, PeriodicSite(Specie("N"), fpos, s.lattice))

    # two interstitials at inequivalent sites: they belong to different groups
    int1 = attempt(lambda: get_interstitial([0.0, 0.0, 0.0]))
    int2 = attempt(lambda: get_interstitial([0.0, 0.0, 0.25]))
    sm = StructureMatcher()

    def by_structure():
        sgroups = group_docs([vac1, vac2, int1, vac3, vac4, int2], sm, lambda x: x.defect_structure)
        return "|".join(sorted(",".join(x.name for x in group) for _, group in sgroups))

    def by_structure_and_name():
        sgroups = group_docs([vac1, vac2, int1, vac3, vac4, int1, int2], sm, lambda x: x.defect_structure, lambda x: x.name)
        res, g_names = [], []
        for name, group in sgroups:
            res.append(",".join(x.name for x in group))
            g_names.append(name)
        return "|".join(sorted(res)), "|".join(sorted(g_names))

    with_key = attempt(by_structure_and_name)
    return {
        "defect_grouping_without_key_function": attempt(by_structure),
        "defect_grouping_with_key_function": attempt(lambda: with_key[0]),
        "group_names_with_key_function": attempt(lambda: with_key[1]),
    }
