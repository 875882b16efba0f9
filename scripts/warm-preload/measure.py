"""Decides the warm workers' preload list (runner/scoring/preload.go; issue 16).

Reads every published tool-usage answer under MATTOOLS_DATA (the "function"
field of each function_generation_results.jsonl) and the 49 unit tests, and
lists the modules their import statements name, parsed with ast (generated
code is never executed here). For each module named by at least --min-share
of the answers, or by a unit test or the scoring harness, it measures the
cumulative import time in a fresh interpreter of the sandbox's Python
environment (python -X importtime -c "import M", the median of --repeat
runs) and prints a table: module, answers naming it, unit tests naming it,
milliseconds. Modules of at least --min-ms are the preload list, printed last
in the order preload.go keeps.

  MATTOOLS_DATA=... /opt/mattools-sandbox/bin/python3 scripts/warm-preload/measure.py
"""
import argparse
import ast
import collections
import glob
import json
import os
import statistics
import subprocess
import sys

p = argparse.ArgumentParser()
p.add_argument("--data", default=os.environ.get("MATTOOLS_DATA"))
p.add_argument("--python", default=sys.executable)
p.add_argument("--min-share", type=float, default=0.01)
p.add_argument("--min-ms", type=float, default=20)
p.add_argument("--repeat", type=int, default=3)
a = p.parse_args()
if not a.data:
    sys.exit("measure.py: set MATTOOLS_DATA or --data")


def imports(src):
    try:
        tree = ast.parse(src)
    except (SyntaxError, ValueError):
        return set()
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(n.name for n in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
    return out


answers = collections.Counter()
n_answers = 0
for path in glob.glob(os.path.join(a.data, "src", "**", "function_generation_results.jsonl"), recursive=True):
    with open(path, encoding="utf-8") as f:
        for line in f:
            try:
                code = json.loads(line).get("function") or ""
            except json.JSONDecodeError:
                continue
            n_answers += 1
            answers.update(imports(code))
tests = collections.Counter()
for path in glob.glob(os.path.join(a.data, "src", "question_segments", "**", "new_unit_test.py"), recursive=True):
    tests.update(imports(open(path, encoding="utf-8").read()))
harness = {"numpy", "pymatgen.core"}  # parse.py and verify.py import these before any untrusted text

env = {"HOME": "/tmp", "MPLBACKEND": "Agg", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "PYTHONDONTWRITEBYTECODE": "1"}


def import_ms(mod):
    runs = []
    for _ in range(a.repeat):
        r = subprocess.run([a.python, "-I", "-X", "importtime", "-c", f"import {mod}"], capture_output=True, text=True, env=env)
        if r.returncode != 0:
            return None
        total = 0
        for line in r.stderr.splitlines():
            # "import time: self [us] | cumulative | imported package"; top-level lines are not indented
            if line.startswith("import time:") and "|" in line:
                parts = [x.strip() for x in line[len("import time:"):].split("|")]
                if len(parts) == 3 and parts[1].isdigit() and not parts[2].startswith(" ") and not line.split("|")[2].startswith("  "):
                    total += int(parts[1])
        runs.append(total / 1000)
    return statistics.median(runs)


cands = sorted({m for m, c in answers.items() if c >= a.min_share * n_answers} | set(tests) | harness)
rows = []
for m in cands:
    ms = import_ms(m)
    rows.append((m, answers[m], tests[m], ms))
print(f"{n_answers} answers; modules named by >= {a.min_share:.0%} of them, by a unit test or by the harness:\n")
print(f"{'module':55} {'answers':>8} {'tests':>6} {'import ms':>10}")
for m, c, t, ms in sorted(rows, key=lambda r: -(r[3] or 0)):
    print(f"{m:55} {c:8d} {t:6d} {'absent' if ms is None else f'{ms:10.0f}'}")
chosen = [m for m, _, _, ms in rows if ms is not None and ms >= a.min_ms]
print("\npreload (import >= %g ms):" % a.min_ms)
for m in sorted(chosen):
    print(" ", m)
