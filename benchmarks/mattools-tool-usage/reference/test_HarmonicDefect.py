# Reference solution of the MatTools tool-usage question test_HarmonicDefect,
# written from pymatgen-analysis-defects tests/test_ccd.py::test_HarmonicDefect
# (this project's code, following the test's logic; see ../README.md).
def compute_properties():
    """Defect bands and spin of HarmonicDefect objects of the Ga vacancy
    (question test_HarmonicDefect).

    Takes no parameters. Reads the vasprun.xml files of
    tool_source_code/pymatgen-analysis-defects/tests/test_files/v_Ga/ccd_0_-1/0,
    1 and 2 and the PROCAR of 1 relative to the working directory.

    Returns:
        dict: two defect bands (list of (band, spin, occupation) tuples),
            "spin_index" (int) and "non_unique_spin_error" (bool); a property
            whose computation raises is None.
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
    vaspruns = attempt(lambda: [Vasprun(ccd_dir / f"{i}/vasprun.xml") for i in [0, 1, 2]])
    procar = attempt(lambda: Procar(ccd_dir / "1/PROCAR"))

    def bands(hd):
        return [tuple(int(v) for v in band) for band in hd.defect_band]

    def non_unique_spin_raises():
        try:
            hd3 = HarmonicDefect.from_vaspruns(vaspruns, charge_state=0, procar=procar, defect_band=((139, 0, 1), (139, 1, 0)))
            hd3.spin
        except ValueError as e:
            return "Spin index" in str(e)
        return False

    return {
        "defect_band_initial": attempt(lambda: bands(HarmonicDefect.from_vaspruns(vaspruns, charge_state=0, procar=procar, store_bandstructure=True))),
        "defect_band_from_directories": attempt(lambda: bands(HarmonicDefect.from_directories(directories=[ccd_dir / str(i) for i in range(3)], charge_state=0))),
        "spin_index": attempt(lambda: int(HarmonicDefect.from_vaspruns(vaspruns, charge_state=0, procar=procar, defect_band=((139, 0, 1), (139, 1, 1))).spin_index)),
        "non_unique_spin_error": attempt(non_unique_spin_raises),
    }
