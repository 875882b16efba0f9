"""Reference values for results/stats (TestAgainstSciPy), computed by SciPy and NumPy.

Reads the cases as JSON on stdin and writes the values as JSON on stdout:
  {"summaries": [[x, ...], ...], "intervals": [{"values": [...], "confidence": c}, ...],
   "t_ppf": [[p, df], ...], "t_cdf": [[t, df], ...], "betainc": [[a, b, x], ...], "sign": [[wins, losses], ...]}
→ {"summaries": [{"mean", "pop_std", "sample_std"}], "intervals": [[lo, hi]], "t_ppf": [...], "t_cdf": [...],
   "betainc": [...], "sign": [...]}
Run with the pinned test-only venv (scripts/stats-reference/requirements.txt; scripts/setup.sh makes it).
"""
import json
import sys

import numpy as np
from scipy import special, stats


def main():
    cases = json.load(sys.stdin)
    out = {"versions": {"numpy": np.__version__, "scipy": __import__("scipy").__version__}}
    out["summaries"] = [
        {"mean": float(np.mean(x)), "pop_std": float(np.std(x, ddof=0)), "sample_std": float(np.std(x, ddof=1))}
        for x in cases["summaries"]
    ]
    ivs = []
    for c in cases["intervals"]:
        x = np.asarray(c["values"], dtype=float)
        lo, hi = stats.t.interval(c["confidence"], len(x) - 1, loc=np.mean(x), scale=stats.sem(x))
        ivs.append([float(lo), float(hi)])
    out["intervals"] = ivs
    out["t_ppf"] = [float(stats.t.ppf(p, df)) for p, df in cases["t_ppf"]]
    out["t_cdf"] = [float(stats.t.cdf(t, df)) for t, df in cases["t_cdf"]]
    out["betainc"] = [float(special.betainc(a, b, x)) for a, b, x in cases["betainc"]]
    out["sign"] = [float(stats.binomtest(w, w + l, 0.5).pvalue) for w, l in cases["sign"]]
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
