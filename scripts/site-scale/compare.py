#!/usr/bin/env python3
"""Compares loadagg's and duckdb_agg.py's CSVs (scripts/site-scale): the same
configuration-metrics (benchmark … metric, n), and means and population
standard deviations equal to within 1e-9 percentage points. Prints one
line; exits 1 on any difference, naming the first.

    compare.py project.csv duckdb.csv
"""
import csv
import sys


def load(path):
    with open(path) as f:
        rows = list(csv.reader(f))[1:]
    return {tuple(r[:9]): (float(r[9]), float(r[10])) for r in rows}


def main():
    a, b = load(sys.argv[1]), load(sys.argv[2])
    if a.keys() != b.keys():
        only = sorted(a.keys() ^ b.keys())
        sys.exit(f"compare: {len(only)} configuration-metrics in one file only, e.g. {only[0]}")
    exact = 0
    for k in sorted(a):
        (ma, sa), (mb, sb) = a[k], b[k]
        if abs(ma - mb) > 1e-9 or abs(sa - sb) > 1e-9:
            sys.exit(f"compare: {k}: project mean {ma} ± {sa}, DuckDB {mb} ± {sb}")
        exact += (ma, sa) == (mb, sb)
    print(f"means and population std agree in {len(a)} of {len(a)} configuration-metrics "
          f"({exact} bit for bit, the rest within 1e-9 points)")


if __name__ == "__main__":
    main()
