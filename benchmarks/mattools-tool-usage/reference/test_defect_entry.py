# Reference solution of the MatTools tool-usage question test_defect_entry,
# written from pymatgen-analysis-defects tests/test_thermo.py::test_defect_entry
# (this project's code, following the test's logic; see ../README.md).
def compute_properties():
    """Freysoldt correction, plot data and energy difference of the neutral
    Mg_Ga entry (question test_defect_entry).

    Takes no parameters. Reads GaN.vasp and the vasprun.xml.gz and LOCPOT.gz
    files of Mg_Ga/bulk_sc and Mg_Ga/q=-2, -1, 0, 1 under
    tool_source_code/pymatgen-analysis-defects/tests/test_files/ relative to
    the working directory.

    Returns:
        dict: "freysoldt_correction" (float, eV),
            "potential_alignment_consistency" (bool) and "energy_difference"
            (float, eV); a property whose computation raises is None.
    """
    import numpy as np
    from pathlib import Path

    from monty.serialization import loadfn
    from pymatgen.analysis.defects.core import PeriodicSite, Substitution
    from pymatgen.analysis.defects.thermo import DefectEntry, FormationEnergyDiagram
    from pymatgen.analysis.phase_diagram import PhaseDiagram
    from pymatgen.core import Structure
    from pymatgen.core.periodic_table import Specie
    from pymatgen.io.vasp.outputs import Locpot, Vasprun

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
    defect_entries = attempt(lambda: entries_and_plots[0])
    plot_data = attempt(lambda: entries_and_plots[1])

    def vr_consistent():
        vr1 = plot_data[0][1]["pot_plot_data"]["Vr"]
        vr2 = defect_entries[0].corrections_metadata["freysoldt"]["plot_data"][1]["pot_plot_data"]["Vr"]
        return bool(np.allclose(vr1, vr2))

    def ediff():
        def_entry = defect_entries[0]
        def_entry.bulk_entry = data["bulk_sc"]["vasprun"].get_computed_entry(inc_structure=False)
        return float(def_entry.get_ediff())

    return {
        "freysoldt_correction": attempt(lambda: float(defect_entries[0].corrections["freysoldt"])),
        "potential_alignment_consistency": attempt(vr_consistent),
        "energy_difference": attempt(ediff),
    }
