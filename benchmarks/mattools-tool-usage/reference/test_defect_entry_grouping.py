# Reference solution of the MatTools tool-usage question test_defect_entry_grouping,
# written from pymatgen-analysis-defects tests/test_thermo.py::test_defect_entry_grouping
# (this project's code, following the test's logic; see ../README.md).
def compute_properties():
    """Whether group_defect_entries groups the Mg_Ga entries under their
    defect's name (question test_defect_entry_grouping).

    Takes no parameters. Reads GaN.vasp and the vasprun.xml.gz and LOCPOT.gz
    files of Mg_Ga/bulk_sc and Mg_Ga/q=-2, -1, 0, 1 under
    tool_source_code/pymatgen-analysis-defects/tests/test_files/ relative to
    the working directory.

    Returns:
        dict: "defect_name_consistency" (bool); a property whose computation
            raises is None.
    """
    from pathlib import Path

    from monty.serialization import loadfn
    from pymatgen.analysis.defects.core import PeriodicSite, Substitution
    from pymatgen.analysis.defects.thermo import DefectEntry, FormationEnergyDiagram
    from pymatgen.analysis.phase_diagram import PhaseDiagram
    from pymatgen.core import Structure
    from pymatgen.core.periodic_table import Specie
    from pymatgen.io.vasp.outputs import Locpot, Vasprun
    from pymatgen.analysis.defects.thermo import group_defect_entries

    def attempt(f):
        try:
            return f()
        except Exception:
            return None

    test_dir = Path.cwd() / "tool_source_code/pymatgen-analysis-defects/tests/test_files"

    def load_data_Mg_Ga():
        # {"bulk_sc": {"vasprun": Vasprun, "locpot": Locpot}, "q=-2": {...}, ...}
        data = {}
        for fold in (test_dir / "Mg_Ga").glob("./*"):
            if fold.is_dir():
                data[fold.name] = {"vasprun": Vasprun(fold / "vasprun.xml.gz"), "locpot": Locpot.from_file(fold / "LOCPOT.gz")}
        return data

    def defect_entries_and_plot_data(data):
        gan_struct = Structure.from_file(test_dir / "GaN.vasp")
        defect_Mg_Ga = Substitution(gan_struct, PeriodicSite(Specie("Mg"), gan_struct[0].frac_coords, gan_struct.lattice))
        bulk_locpot = data["bulk_sc"]["locpot"]
        defect_entries, plot_data = {}, {}
        for q in [-2, -1, 0, 1]:
            computed_entry = data[f"q={q}"]["vasprun"].get_computed_entry(inc_structure=True)
            def_entry = DefectEntry(defect=defect_Mg_Ga, charge_state=q, sc_entry=computed_entry)
            frey_summary = def_entry.get_freysoldt_correction(defect_locpot=data[f"q={q}"]["locpot"], bulk_locpot=bulk_locpot, dielectric=14)
            defect_entries[q] = def_entry
            plot_data[q] = frey_summary.metadata["plot_data"]
        return defect_entries, plot_data

    data = attempt(load_data_Mg_Ga)
    entries_and_plots = attempt(lambda: defect_entries_and_plot_data(data))

    def names_consistent():
        defect_entries = list(entries_and_plots[0].values())
        return all(de.defect.name == g_name for g_name, g in group_defect_entries(defect_entries=defect_entries) for de in g)

    return {
        "defect_name_consistency": attempt(names_consistent),
    }
