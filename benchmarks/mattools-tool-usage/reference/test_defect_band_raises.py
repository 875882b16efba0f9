# Reference solution of the MatTools tool-usage question test_defect_band_raises,
# written from pymatgen-analysis-defects tests/test_ccd.py::test_defect_band_raises
# (this project's code, following the test's logic; see ../README.md).
def compute_properties():
    """Whether mismatched defect bands of the Ga vacancy raise ValueError
    (question test_defect_band_raises).

    Takes no parameters. Reads the vasprun.xml files of
    tool_source_code/pymatgen-analysis-defects/tests/test_files/v_Ga/ccd_0_-1/0,
    1 and 2 and the PROCAR of 1 relative to the working directory.

    Returns:
        dict: the two checks, each the str "Raises ValueError" when the
            ValueError is raised; a property whose computation raises is None.
    """
    from pathlib import Path

    from pymatgen.analysis.defects.ccd import HarmonicDefect
    from pymatgen.io.vasp.outputs import Procar, Vasprun

    def attempt(f):
        try:
            return f()
        except Exception:
            return None

    test_dir = Path.cwd() / "tool_source_code/pymatgen-analysis-defects/tests/test_files"
    ccd_dir = test_dir / "v_Ga/ccd_0_-1"

    def harmonic_defect():
        vaspruns = [Vasprun(ccd_dir / f"{i}/vasprun.xml") for i in [0, 1, 2]]
        return HarmonicDefect.from_vaspruns(vaspruns, charge_state=0, procar=Procar(ccd_dir / "1/PROCAR"), store_bandstructure=True)

    hd0 = attempt(harmonic_defect)

    def raises(defect_band, attribute):
        hd0.defect_band = defect_band
        try:
            getattr(hd0, attribute)
        except ValueError:
            return "Raises ValueError"
        return "No ValueError"

    return {
        "defect_band_index_mismatch": attempt(lambda: raises([(138, 0, 1), (139, 1, 1)], "defect_band_index")),
        "defect_spin_index_mismatch": attempt(lambda: raises([(138, 0, 1), (138, 1, 0)], "spin_index")),
    }
