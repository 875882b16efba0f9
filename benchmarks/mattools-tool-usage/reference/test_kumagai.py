# Reference solution of the MatTools tool-usage question test_kumagai,
# written from pymatgen-analysis-defects tests/test_corrections.py::test_kumagai
# (this project's code, following the test's logic; see ../README.md).
def compute_properties():
    """eFNV (Kumagai) corrections of the neutral and +1 Mg_Ga defects (question
    test_kumagai).

    Takes no parameters. Reads the vasprun.xml.gz and OUTCAR.gz files of
    tool_source_code/pymatgen-analysis-defects/tests/test_files/Mg_Ga/bulk_sc,
    Mg_Ga/q=0 and Mg_Ga/q=1 relative to the working directory; needs the
    package pydefect.

    Returns:
        dict: the two correction energies (float, eV); a property whose
            computation raises is None.
    """
    from pathlib import Path

    from pymatgen.analysis.defects.corrections.kumagai import get_efnv_correction, get_structure_with_pot

    def attempt(f):
        try:
            return f()
        except Exception:
            return None

    test_dir = Path.cwd() / "tool_source_code/pymatgen-analysis-defects/tests/test_files"
    sb = attempt(lambda: get_structure_with_pot(test_dir / "Mg_Ga" / "bulk_sc"))

    def correction(q):
        sd = get_structure_with_pot(test_dir / "Mg_Ga" / f"q={q}")
        res = get_efnv_correction(q, sd, sb, dielectric_tensor=[[1, 0, 0], [0, 1, 0], [0, 0, 1]])
        return float(res.correction_energy)

    return {
        "correction_energy_neutral": attempt(lambda: correction(0)),
        "correction_energy_charged": attempt(lambda: correction(1)),
    }
