# Reference solution of the MatTools tool-usage question test_substitution,
# written from pymatgen-analysis-defects tests/test_core.py::test_substitution
# (this project's code, following the test's logic; see ../README.md).
def compute_properties():
    """Properties of an O-on-N substitution in GaN (question
    test_substitution).

    Takes no parameters. Reads
    tool_source_code/pymatgen-analysis-defects/tests/test_files/GaN.vasp
    relative to the working directory. DefectSiteFinder, used for four of the
    properties, needs the package dscribe.

    Returns:
        dict: the eighteen property names mapped to str, bool, int, list, a
            dict keyed by pymatgen Element, float and lists of fractional
            coordinates; a property whose computation raises is None.
    """
    from pathlib import Path

    from pymatgen.analysis.defects.core import PeriodicSite, Substitution
    from pymatgen.analysis.defects.finder import DefectSiteFinder
    from pymatgen.core import Structure
    from pymatgen.core.periodic_table import Element, Specie

    def attempt(f):
        try:
            return f()
        except Exception:
            return None

    def as_int(x):
        # The question asks for an int; the library gives an integral float.
        return int(x) if x == int(x) else x

    test_dir = Path.cwd() / "tool_source_code/pymatgen-analysis-defects/tests/test_files"
    s = attempt(lambda: Structure.from_file(test_dir / "GaN.vasp").copy())
    n_site = attempt(lambda: s.sites[3])
    o_site = attempt(lambda: PeriodicSite(Specie("O"), n_site.frac_coords, s.lattice))
    o_site2 = attempt(lambda: PeriodicSite(Specie("O"), s.sites[2].frac_coords, s.lattice))
    sub = attempt(lambda: Substitution(s, o_site))
    sub2 = attempt(lambda: Substitution(s, o_site2))
    sc_and_site = attempt(lambda: sub.get_supercell_structure(return_site=True))

    # supercell with the sites beyond 5 A of the defect locked (selective dynamics)
    sc_locked = attempt(lambda: sub.get_supercell_structure(relax_radius=5.0))
    free_sites = attempt(lambda: [i for i, site in enumerate(sc_locked) if site.properties["selective_dynamics"][0]])
    cpos = attempt(lambda: sc_locked.lattice.get_cartesian_coords(DefectSiteFinder().get_defect_fpos(sc_locked, sub.structure)))
    free_sites_ref = attempt(lambda: [site.index for site in sc_locked.get_sites_in_sphere(cpos, 5.0, include_index=True)])

    def intersection_ratio():
        union = set(free_sites_ref) | set(free_sites)
        return float(len(set(free_sites_ref) & set(free_sites)) / len(union))

    def perturbed_free_sites_equal():
        sc_perturbed = sub.get_supercell_structure(relax_radius=5.0, perturb=0.0)
        free_sites_ref2 = [site.index for site in sc_perturbed.get_sites_in_sphere(cpos, 5.0, include_index=True)]
        return set(free_sites_ref2) == set(free_sites_ref)

    def charge_states_with(user_charges):
        dd = sub.as_dict()
        dd["user_charges"] = user_charges  # [] means none: use the oxidation states
        return list(Substitution.from_dict(dd).get_charge_states())

    def defect_fpos(**kwargs):
        sc = sub.get_supercell_structure(**kwargs)
        return [float(x) for x in DefectSiteFinder().get_defect_fpos(sc, sub.structure)]

    def antisite_charge_states():
        # N on a Ga site, in the structure without oxidation states
        s2 = s.copy()
        s2.remove_oxidation_states()
        n_on_ga = PeriodicSite(Element("N"), s2.sites[0].frac_coords, s2.lattice)
        return list(Substitution(s2, n_on_ga).get_charge_states())

    return {
        "site_specie_symbol": attempt(lambda: n_site.specie.symbol),
        "substitution_symmetry_equivalence": attempt(lambda: bool(sub == sub2)),
        "substitution_string_representation": attempt(lambda: str(sub)),
        "substitution_oxidation_state": attempt(lambda: as_int(sub.oxi_state)),
        "substitution_charge_states": attempt(lambda: list(sub.get_charge_states())),
        "substitution_multiplicity": attempt(lambda: int(sub.get_multiplicity())),
        "supercell_site_specie_symbol": attempt(lambda: sc_and_site[1].specie.symbol),
        "supercell_formula": attempt(lambda: sc_and_site[0].formula),
        "substitution_name": attempt(lambda: sub.name),
        "substitution_latex_name": attempt(lambda: sub.latex_name),
        "substitution_element_changes": attempt(lambda: dict(sub.element_changes)),
        "free_sites_intersection_ratio": attempt(intersection_ratio),
        "perturbation_free_sites": attempt(perturbed_free_sites_equal),
        "user_defined_charge_states": attempt(lambda: charge_states_with([-100, 102])),
        "default_charge_states": attempt(lambda: charge_states_with([])),
        "target_fractional_coordinates": attempt(lambda: defect_fpos()),
        "closest_equivalent_site_coordinates": attempt(lambda: defect_fpos(target_frac_coords=[0.3, 0.5, 0.9])),
        "antisite_charge_states": attempt(antisite_charge_states),
    }
