# Reference solution of the MatTools tool-usage question test_cluster_nodes,
# written from pymatgen-analysis-defects tests/test_utils.py::test_cluster_nodes
# (this project's code, following the test's logic; see ../README.md).
def compute_properties():
    """Clustering of nearly coincident fractional positions (question
    test_cluster_nodes).

    Takes no parameters. Reads
    tool_source_code/pymatgen-analysis-defects/tests/test_files/GaN.vasp
    relative to the working directory.

    Returns:
        dict: "clustered_positions" (sorted list of fractional coordinates); a
            property whose computation raises is None.
    """
    from pathlib import Path

    from pymatgen.analysis.defects.utils import cluster_nodes
    from pymatgen.core import Structure

    def attempt(f):
        try:
            return f()
        except Exception:
            return None

    test_dir = Path.cwd() / "tool_source_code/pymatgen-analysis-defects/tests/test_files"
    gan_struct = attempt(lambda: Structure.from_file(test_dir / "GaN.vasp"))
    frac_pos = [[0, 0, 0], [0.25, 0.25, 0.25], [0.5, 0.5, 0.5], [0.75, 0.75, 0.75]]
    added = [[0.0002, 0.0001, 0.0001], [0.0002, 0.0002, 0.0003], [0.25001, 0.24999, 0.24999], [0.25, 0.249999, 0.250001]]
    return {
        "clustered_positions": attempt(lambda: sorted(cluster_nodes(frac_pos + added, gan_struct.lattice).tolist())),
    }
