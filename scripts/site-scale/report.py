#!/usr/bin/env python3
"""Summarises scripts/site-scale's measurements (results.jsonl, pages.txt) as
a markdown table: per label the best wall and CPU times of its repeats and
the peak RSS of that label's runs (largest), and the largest page of each
build. peak RSS (process) is the largest single process of the tree
(getrusage); (process tree) the sampled sum over the tree.

    report.py results.jsonl pages.txt
"""
import collections
import json
import sys


def main():
    by = collections.OrderedDict()
    with open(sys.argv[1]) as f:
        for line in f:
            r = json.loads(line)
            by.setdefault(r["label"], []).append(r)
    pages = {}
    try:
        with open(sys.argv[2]) as f:
            for line in f:
                label, _, rest = line.strip().partition(" ")
                pages[label] = rest
    except FileNotFoundError:
        pass
    print("| measurement | wall s (best) | CPU s (best) | peak RSS MiB (process) | peak RSS MiB (process tree) | build-site RSS while Hugo runs MiB | Hugo peak MiB | largest page (bytes path) |")
    print("|---|---|---|---|---|---|---|---|")
    for label, rs in by.items():
        page = pages.get(label, "")
        cpu = min((r["cpu_s"] for r in rs if "cpu_s" in r), default=float("nan"))
        print(f"| {label} | {min(r['wall_s'] for r in rs):.2f} | {cpu:.2f} | {max(r['peak_rss_mib'] for r in rs):.0f} | "
              f"{max(r['peak_tree_rss_mib'] for r in rs):.0f} | {max(r['root_rss_during_hugo_mib'] for r in rs):.0f} | "
              f"{max(r['hugo_peak_rss_mib'] for r in rs):.0f} | {page} |")


if __name__ == "__main__":
    main()
