#!/usr/bin/env bash
# Measures rescoring speed: rescores one stored run (default: MatTools single-LLM GPT-4o round 1)
# with 2 sandbox slots and prints the wall time, the wall seconds per executable question and the
# median seconds one question takes (run + parse + verify sandboxes, both protocols together).
#   MATTOOLS_DATA=… scripts/rescore-timing.sh [RUN_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
: "${MATTOOLS_DATA:?set MATTOOLS_DATA to the MatTools data root}"
run="${1:-$MATTOOLS_DATA/src/pure_agent_test/round1/gpt-4o-2024-08-06}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
go build -o "$out/rescore" ./cmd/rescore
start=$(date +%s.%N)
"$out/rescore" -quiet -slots 2 -out "$out/results" -verdicts "$out/verdicts.csv" "$run" >/dev/null
end=$(date +%s.%N)
/usr/bin/python3 - "$out/verdicts.csv" "$start" "$end" <<'PY'
import csv, statistics, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["protocol"] == "mattools-v1" and r["verdict"] != "data-missing"]
wall = float(sys.argv[3]) - float(sys.argv[2])
secs = [float(r["seconds"]) for r in rows]
print(f"questions scored: {len(rows)}; wall {wall:.1f} s with 2 slots = {wall/len(rows):.2f} s per question; "
      f"median {statistics.median(secs):.2f} s per question (min {min(secs):.2f}, max {max(secs):.2f})")
PY
