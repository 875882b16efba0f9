# Reference solution of the MatTools tool-usage question test_formation_energy_diagram_shape_fixed,
# written from pymatgen-analysis-defects tests/test_thermo.py::test_formation_energy_diagram_shape_fixed
# (this project's code, following the test's logic; see ../README.md).
def compute_properties():
    """Whether the formation energy diagram of Mg_Ga keeps its shape at every
    chemical potential limit (question
    test_formation_energy_diagram_shape_fixed).

    Takes no parameters. Reads GaN.vasp, stable_entries_Mg_Ga_N.json and the
    vasprun.xml.gz and LOCPOT.gz files of Mg_Ga/bulk_sc and Mg_Ga/q=-2, -1, 0,
    1 under tool_source_code/pymatgen-analysis-defects/tests/test_files/
    relative to the working directory.

    Returns:
        dict: the two checks (bool): x and y - min(y) of the transitions for
            Fermi levels 0 to 5 eV equal (np.allclose) at every limit to those
            at the first limit, as the test compares them (the question quotes
            them: x [0.0, 0.4230302543993645, 4.302142813614765, 5.0], y
            [5.274826931985871, 5.274826931985871, 1.3957143727704704, 0.0]); a
            property whose computation raises is None.
    """
    import copy

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

    def transitions():
        # x and y - min(y) of the diagram's kinks, Fermi level 0 to 5 eV, at each chemical potential limit
        fed = copy.deepcopy(fed0)
        out = []
        for point in fed.chempot_limits:
            form_en = np.array(fed.get_transitions(point, 0, 5))
            out.append((form_en[:, 0], form_en[:, 1] - form_en[:, 1].min()))
        return out

    points = attempt(transitions)
    return {
        "formation_energy_diagram_x_coordinates": attempt(lambda: all(bool(np.allclose(x, points[0][0])) for x, _ in points)),
        "formation_energy_diagram_y_coordinates": attempt(lambda: all(bool(np.allclose(y, points[0][1])) for _, y in points)),
    }
