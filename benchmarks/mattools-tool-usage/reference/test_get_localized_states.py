# Reference solution of the MatTools tool-usage question test_get_localized_states,
# written from pymatgen-analysis-defects tests/test_utils.py::test_get_localized_states
# (this project's code, following the test's logic; see ../README.md).
def compute_properties():
    """Most localized bands of the Ga vacancy's band structures (question
    test_get_localized_states).

    Takes no parameters. Reads the vasprun.xml, PROCAR and WSWQ files of
    tool_source_code/pymatgen-analysis-defects/tests/test_files/v_Ga/ccd_0_-1
    and v_Ga/ccd_-1_0 relative to the working directory.

    Returns:
        dict: the two sets of band indices (set of int); a property whose
            computation raises is None.
    """
    from pathlib import Path

    from pymatgen.analysis.defects.utils import get_localized_states
    from pymatgen.io.vasp.outputs import WSWQ, Procar, Vasprun

    def attempt(f):
        try:
            return f()
        except Exception:
            return None

    test_dir = Path.cwd() / "tool_source_code/pymatgen-analysis-defects/tests/test_files"

    def load_v_ga(pairs):
        # tests/conftest.py v_ga: per (q1, q2), the three vaspruns, the PROCAR of image 1 and the sorted WSWQ files
        res = {}
        for q1, q2 in pairs:
            ccd_dir = test_dir / f"v_Ga/ccd_{q1}_{q2}"
            wswq_files = sorted((ccd_dir / "wswqs").glob("WSWQ*"), key=lambda x: int(x.name.split(".")[1]))
            res[(q1, q2)] = {
                "vaspruns": [Vasprun(ccd_dir / f"{i}/vasprun.xml") for i in [0, 1, 2]],
                "procar": Procar(ccd_dir / "1/PROCAR"),
                "wswqs": [WSWQ.from_file(f) for f in wswq_files],
            }
        return res

    v_ga = attempt(lambda: load_v_ga([(0, -1), (-1, 0)]))

    def localized_bands(pair, **kwargs):
        bs = v_ga[pair]["vaspruns"][1].get_band_structure()
        return {int(iband) for iband, _ikpt, _ispin, _val in get_localized_states(bs, procar=v_ga[pair]["procar"], **kwargs)}

    return {
        "localized_bands_set_1": attempt(lambda: localized_bands((0, -1))),
        "localized_bands_set_2": attempt(lambda: localized_bands((-1, 0), band_window=100)),
    }
