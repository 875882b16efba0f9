# Reference solution of the MatTools tool-usage question test_dielectric_func,
# written from pymatgen-analysis-defects tests/test_ccd.py::test_dielectric_func
# (this project's code, following the test's logic; see ../README.md).
def compute_properties():
    """Dielectric function and optical transitions of the Ga vacancy (question
    test_dielectric_func).

    Takes no parameters. Reads the vasprun.xml, PROCAR and WAVEDER files of
    tool_source_code/pymatgen-analysis-defects/tests/test_files/v_Ga/ccd_0_-1/optics
    relative to the working directory.

    Returns:
        dict: the two integrals (float), "optical_transitions_dataframe_type"
            (bool) and "optical_transitions_dataframe_length" (int); a property
            whose computation raises is None.
    """
    from pathlib import Path

    import numpy as np
    import pandas as pd
    from pymatgen.analysis.defects.ccd import HarmonicDefect
    from pymatgen.analysis.defects.plotting.optics import plot_optical_transitions
    from pymatgen.io.vasp.outputs import Waveder

    def attempt(f):
        try:
            return f()
        except Exception:
            return None

    test_dir = Path.cwd() / "tool_source_code/pymatgen-analysis-defects/tests/test_files"
    dir0_opt = test_dir / "v_Ga" / "ccd_0_-1" / "optics"

    def harmonic_defect():
        hd0 = HarmonicDefect.from_directories(directories=[dir0_opt], store_bandstructure=True)
        hd0.waveder = Waveder.from_binary(dir0_opt / "WAVEDER")
        return hd0

    hd0 = attempt(harmonic_defect)
    eps = attempt(lambda: hd0.get_dielectric_function(idir=0, jdir=0))  # energy, eps_vbm, eps_cbm
    df = attempt(lambda: plot_optical_transitions(hd0, kpt_index=0, band_window=5)[0])
    return {
        "inter_vbm_integral": attempt(lambda: float(np.trapz(np.imag(eps[1][:100]), eps[0][:100]))),
        "inter_cbm_integral": attempt(lambda: float(np.trapz(np.imag(eps[2][:100]), eps[0][:100]))),
        # None when plot_optical_transitions failed: no DataFrame to check
        "optical_transitions_dataframe_type": None if df is None else isinstance(df, pd.DataFrame),
        "optical_transitions_dataframe_length": attempt(lambda: len(df)),
    }
