"""Reference values for results/stats (TestAgainstSciPy), computed by SciPy and NumPy.

Reads the cases as JSON on stdin and writes the values as JSON on stdout:
  {"summaries": [[x, ...], ...], "intervals": [{"values": [...], "confidence": c}, ...],
   "t_ppf": [[p, df], ...], "t_cdf": [[t, df], ...], "betainc": [[a, b, x], ...], "sign": [[wins, losses], ...],
   "clustered": [{"passed": [[k per round] per question], "weights": [m per question], "confidence": c}, ...],
   "paired": [{"a": clustered case, "b": clustered case (same weights)}, ...]}
→ {"summaries": [{"mean", "pop_std", "sample_std"}], "intervals": [[lo, hi]], "t_ppf": [...], "t_cdf": [...],
   "betainc": [...], "sign": [...], "clustered": [{"mean", "se", "lo", "hi", "bootstrap": [lo, hi]}],
   "paired": [{"mean", "se", "lo", "hi"}]}
The clustered cases are checked against statsmodels, an implementation independent of the formula in
results/stats/cluster.go: every property outcome of every round (k ones and m − k zeros for a question of m
properties that passed k in a round) regressed on a constant by OLS with a cluster-robust covariance, groups =
questions, and a Student t interval with G − 1 degrees of freedom (use_t). A paired difference is the coefficient of
"is A" in the regression of both configurations' outcomes on a constant and that indicator, clustered by question;
its covariance is taken without statsmodels' small-sample correction and multiplied by G/(G − 1), the correction
cluster.go applies (statsmodels' own would add (N − 1)/(N − 2) for the second regressor). "bootstrap" is a seeded
percentile bootstrap over questions and, within each, over its rounds (10,000 resamples), for comparison only.
Run with the pinned test-only venv (scripts/stats-reference/requirements.txt; scripts/setup.sh makes it).
"""
import json
import sys

import numpy as np
import statsmodels.api as sm
from scipy import special, stats


def outcomes(case, group_offset=0):
    """Property-level 0/1 outcomes of a clustered case, with their question (group) per outcome."""
    y, g = [], []
    for q, (ks, m) in enumerate(zip(case["passed"], case["weights"])):
        for k in ks:
            y += [1.0] * int(k) + [0.0] * int(m - k)
            g += [q + group_offset] * int(m)
    return np.asarray(y), np.asarray(g)


def clustered(case):
    y, g = outcomes(case)
    fit = sm.OLS(y, np.ones((len(y), 1))).fit(cov_type="cluster", cov_kwds={"groups": g}, use_t=True)
    lo, hi = fit.conf_int(alpha=1 - case["confidence"])[0]
    return {"mean": float(fit.params[0]), "se": float(fit.bse[0]), "lo": float(lo), "hi": float(hi),
            "bootstrap": bootstrap(case)}


def bootstrap(case, resamples=10000, seed=20241104):
    rng = np.random.default_rng(seed)
    passed = np.asarray(case["passed"], dtype=float)  # questions × rounds (every question has as many rounds)
    m = np.asarray(case["weights"], dtype=float)
    n, rounds = passed.shape
    qs = rng.integers(0, n, (resamples, n))
    rs = rng.integers(0, rounds, (resamples, n, rounds))
    est = passed[qs[..., None], rs].mean(axis=-1).sum(axis=1) / m[qs].sum(axis=1)
    alpha = 1 - case["confidence"]
    return [float(np.quantile(est, alpha / 2)), float(np.quantile(est, 1 - alpha / 2))]


def paired(case):
    ya, ga = outcomes(case["a"])
    yb, gb = outcomes(case["b"])
    y = np.concatenate([ya, yb])
    x = np.column_stack([np.ones(len(y)), np.concatenate([np.ones(len(ya)), np.zeros(len(yb))])])
    groups = np.concatenate([ga, gb])
    fit = sm.OLS(y, x).fit(cov_type="cluster", cov_kwds={"groups": groups, "use_correction": False})
    n_groups = len(case["a"]["weights"])
    se = float(np.sqrt(fit.cov_params()[1, 1] * n_groups / (n_groups - 1)))
    half = stats.t.ppf(1 - (1 - case["a"]["confidence"]) / 2, n_groups - 1) * se
    d = float(fit.params[1])
    return {"mean": d, "se": se, "lo": d - half, "hi": d + half}


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
    out["clustered"] = [clustered(c) for c in cases.get("clustered", [])]
    out["paired"] = [paired(c) for c in cases.get("paired", [])]
    out["versions"]["statsmodels"] = sm.__version__
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
