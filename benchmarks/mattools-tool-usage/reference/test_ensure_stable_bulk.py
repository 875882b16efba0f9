# Reference solution of the MatTools tool-usage question test_ensure_stable_bulk,
# written from pymatgen-analysis-defects tests/test_thermo.py::test_ensure_stable_bulk
# (this project's code, following the test's logic; see ../README.md).
def compute_properties():
    """Whether ensure_stable_bulk puts an unstable GaN entry on the hull
    (question test_ensure_stable_bulk).

    Takes no parameters. Reads
    tool_source_code/pymatgen-analysis-defects/tests/test_files/stable_entries_Mg_Ga_N.json
    relative to the working directory.

    Returns:
        dict: "GaN_stability_in_phase_diagram" (bool); a property whose
            computation raises is None.
    """
    from pathlib import Path

    from monty.serialization import loadfn
    from pymatgen.analysis.defects.thermo import Composition, ComputedEntry, ensure_stable_bulk
    from pymatgen.analysis.phase_diagram import PhaseDiagram

    def attempt(f):
        try:
            return f()
        except Exception:
            return None

    test_dir = Path.cwd() / "tool_source_code/pymatgen-analysis-defects/tests/test_files"

    def gan_stable():
        pd = PhaseDiagram(loadfn(test_dir / "stable_entries_Mg_Ga_N.json"))
        bulk_comp = Composition("GaN")
        fake_bulk_ent = ComputedEntry(bulk_comp, energy=pd.get_hull_energy(bulk_comp) + 2)
        pd2 = ensure_stable_bulk(pd, fake_bulk_ent)
        return "GaN" in [e.composition.reduced_formula for e in pd2.stable_entries]

    return {
        "GaN_stability_in_phase_diagram": attempt(gan_stable),
    }
