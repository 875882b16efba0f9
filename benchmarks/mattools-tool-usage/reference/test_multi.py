# Reference solution of the MatTools tool-usage question test_multi,
# written from pymatgen-analysis-defects tests/test_thermo.py::test_multi
# (this project's code, following the test's logic; see ../README.md).
def compute_properties():
    """Fermi level solved with a MultiFormationEnergyDiagram of the Mg_Ga
    entries (question test_multi).

    Takes no parameters. Reads GaN.vasp, stable_entries_Mg_Ga_N.json and the
    vasprun.xml.gz and LOCPOT.gz files of Mg_Ga/bulk_sc and Mg_Ga/q=-2, -1, 0,
    1 under tool_source_code/pymatgen-analysis-defects/tests/test_files/
    relative to the working directory.

    Returns:
        dict: "Fermi_Level_Solution" (float, eV) and
            "Formation_Energy_Diagrams_Count" (int); a property whose
            computation raises is None.
    """
    from pathlib import Path

    from monty.serialization import loadfn
    from pymatgen.analysis.defects.core import PeriodicSite, Substitution
    from pymatgen.analysis.defects.thermo import DefectEntry, FormationEnergyDiagram
    from pymatgen.analysis.phase_diagram import PhaseDiagram
    from pymatgen.core import Structure
    from pymatgen.core.periodic_table import Specie
    from pymatgen.io.vasp.outputs import Locpot, Vasprun
    from pymatgen.analysis.defects.thermo import MultiFormationEnergyDiagram
    from pymatgen.core import Element

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
    stable_entries = attempt(lambda: loadfn(test_dir / "stable_entries_Mg_Ga_N.json"))
    bulk_vasprun = attempt(lambda: data["bulk_sc"]["vasprun"])
    bulk_dos = attempt(lambda: bulk_vasprun.complete_dos)
    vbm = attempt(lambda: bulk_dos.get_cbm_vbm()[1])
    bulk_entry = attempt(lambda: bulk_vasprun.get_computed_entry(inc_structure=False))
    def_ent_list = attempt(lambda: list(entries_and_plots[0].values()))

    def fermi_level():
        fed = FormationEnergyDiagram(bulk_entry=bulk_entry, defect_entries=def_ent_list, vbm=vbm, pd_entries=stable_entries, inc_inf_values=False)
        mfed = MultiFormationEnergyDiagram(formation_energy_diagrams=[fed])
        cpots = fed.get_chempots(Element("Ga"))
        return float(mfed.solve_for_fermi_level(chempots=cpots, temperature=300, dos=bulk_dos))

    def diagrams_count():
        atomic_entries = [e for e in stable_entries if len(e.composition.elements) == 1]
        mfed = MultiFormationEnergyDiagram.with_atomic_entries(
            bulk_entry=bulk_entry, defect_entries=def_ent_list, atomic_entries=atomic_entries,
            phase_diagram=PhaseDiagram(stable_entries), vbm=vbm,
        )
        return len(mfed.formation_energy_diagrams)

    return {
        "Fermi_Level_Solution": attempt(fermi_level),
        "Formation_Energy_Diagrams_Count": attempt(diagrams_count),
    }
