# Reference solution of the MatTools tool-usage question test_fed_plot,
# written from pymatgen-analysis-defects tests/plotting/test_thermo.py::test_fed_plot
# (this project's code, following the test's logic; see ../README.md).
def compute_properties():
    """Names of the data series of the Mg_Ga formation energy diagram plot
    (question test_fed_plot).

    Takes no parameters. Reads GaN.vasp, stable_entries_Mg_Ga_N.json and the
    vasprun.xml.gz and LOCPOT.gz files of Mg_Ga/bulk_sc and Mg_Ga/q=-2, -1, 0,
    1 under tool_source_code/pymatgen-analysis-defects/tests/test_files/
    relative to the working directory.

    Returns:
        dict: "formation_energy_diagram_defect_names" (set of str); a property
            whose computation raises is None.
    """
    from pathlib import Path

    from monty.serialization import loadfn
    from pymatgen.analysis.defects.core import PeriodicSite, Substitution
    from pymatgen.analysis.defects.thermo import DefectEntry, FormationEnergyDiagram
    from pymatgen.analysis.phase_diagram import PhaseDiagram
    from pymatgen.core import Structure
    from pymatgen.core.periodic_table import Specie
    from pymatgen.io.vasp.outputs import Locpot, Vasprun
    from pymatgen.analysis.defects.plotting.thermo import plot_formation_energy_diagrams
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

    def formation_energy_diagram(data, defect_entries, stable_entries):
        bulk_vasprun = data["bulk_sc"]["vasprun"]
        vbm = bulk_vasprun.get_band_structure().get_vbm()["energy"]
        bulk_entry = bulk_vasprun.get_computed_entry(inc_structure=False)
        atomic_entries = [e for e in stable_entries if len(e.composition.elements) == 1]
        return FormationEnergyDiagram.with_atomic_entries(
            defect_entries=list(defect_entries.values()),
            atomic_entries=atomic_entries,
            vbm=vbm,
            inc_inf_values=False,
            phase_diagram=PhaseDiagram(stable_entries),
            bulk_entry=bulk_entry,
        )

    data = attempt(load_data_Mg_Ga)
    entries_and_plots = attempt(lambda: defect_entries_and_plot_data(data))
    stable_entries = attempt(lambda: loadfn(test_dir / "stable_entries_Mg_Ga_N.json"))
    fed0 = attempt(lambda: formation_energy_diagram(data, entries_and_plots[0], stable_entries))

    def basic_fed():
        # conftest.py's basic_fed: the diagram with a band gap of 2 eV
        fed0.get_chempots(rich_element=Element("Ga"))
        fed0.band_gap = 2
        return fed0

    def series_names():
        fig = plot_formation_energy_diagrams([basic_fed()])
        return {d_.name for d_ in fig.data}

    return {
        "formation_energy_diagram_defect_names": attempt(series_names),
    }
