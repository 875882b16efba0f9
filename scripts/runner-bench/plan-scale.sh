#!/usr/bin/env bash
# The runner's peak RSS over the size of the plan (issue 17): QA plans of M models × 3 rounds
# (M = 1, 4, 12 by default), measured with /usr/bin/time:
#   - run-benchmark -dry-run over a synthetic QA set of the code set's size (34,621 questions): the data
#     loaded, every run prepared and every prompt estimated, no request;
#   - run-benchmark over a 2,000-question set against the fake server (scripts/runner-bench/fakeserver on
#     127.0.0.1): 6,000 / 24,000 / 72,000 requests, journals and results files included.
# BASELINE=1 also measures the runner of git revision BASE_REV (default HEAD: set it to the commit before
# the change measured, since a committed change is in HEAD) the same way.
#
#   MATTOOLS_DATA=/path/to/MatTools scripts/runner-bench/plan-scale.sh
#   MS="1 4 12" BASELINE=1 MATTOOLS_DATA=… scripts/runner-bench/plan-scale.sh
#
# Work files go to build/plan-scale/. It prints one line per measurement: name, models, runs, wall s, CPU s,
# peak RSS KiB.
set -euo pipefail
cd "$(dirname "$0")/../.."
MS=${MS:-"1 4 12"}
DATA=${MATTOOLS_DATA:?set MATTOOLS_DATA (the prompts of the QA benchmark come from it)}
W=$PWD/build/plan-scale
rm -rf "$W"
mkdir -p "$W/bin"
go build -o "$W/bin/" ./cmd/run-benchmark ./scripts/runner-bench/fakeserver ./scripts/runner-bench/genqa
"$W/bin/genqa" -n 34621 -out "$W/qa-big.json"
"$W/bin/genqa" -n 2000 -out "$W/qa-small.json"
runners=("$W/bin/run-benchmark")
if [ "${BASELINE:-0}" = 1 ]; then
  mkdir -p "$W/head"
  git archive "${BASE_REV:-HEAD}" | tar -x -C "$W/head"
  (cd "$W/head" && go build -o "$W/bin/run-benchmark-head" ./cmd/run-benchmark)
  runners+=("$W/bin/run-benchmark-head")
fi

srv_pid=
stop_server() { [ -z "$srv_pid" ] || { kill "$srv_pid" 2>/dev/null || true; wait "$srv_pid" 2>/dev/null || true; }; srv_pid=; }
trap stop_server EXIT
start_server() {
  : > "$W/server.url"
  "$W/bin/fakeserver" > "$W/server.url" &
  srv_pid=$!
  for _ in $(seq 100); do [ -s "$W/server.url" ] && break; sleep 0.05; done
  URL=$(head -1 "$W/server.url")
}

# plan FILE QA_SET MODELS URL
plan() {
  { printf 'rounds = 3\nconcurrency = 64\nbenchmarks = ["qa-code"]\n[qa_sets.qa-code]\npath = "%s"\nname = "synthetic"\n' "$2"
    for i in $(seq "$3"); do printf '[[models]]\nname = "model-%d"\nbase_url = "%s"\ntemperature = 0\n' "$i" "$4"; done; } > "$1"
}

# measure NAME MODELS CMD...
measure() {
  local name=$1 m=$2; shift 2
  /usr/bin/time -f "%e %U %S %M" -o "$W/time.txt" "$@" > "$W/$name.log" 2>&1 || { cat "$W/$name.log" >&2; exit 1; }
  read -r wall user sys rss < "$W/time.txt"
  echo "$name $m $((m * 3)) $wall $(echo "$user + $sys" | bc) $rss"
}

echo "name models runs wall_s cpu_s peak_rss_kib"
for r in "${runners[@]}"; do
  tag=$(basename "$r")
  for m in $MS; do
    plan "$W/plan.toml" "$W/qa-big.json" "$m" "http://127.0.0.1:9/v1"
    rm -rf "$W/out"
    measure "$tag-dry-run" "$m" "$r" -plan "$W/plan.toml" -data "$DATA" -out "$W/out" -dry-run
    start_server
    plan "$W/plan.toml" "$W/qa-small.json" "$m" "$URL"
    rm -rf "$W/out"
    measure "$tag-run" "$m" "$r" -plan "$W/plan.toml" -data "$DATA" -out "$W/out" -no-progress
    stop_server
    n=$(ls "$W/out"/*.parquet | wc -l)
    [ "$n" = $((m * 3)) ] || { echo "plan-scale: $n results files, want $((m * 3))" >&2; exit 1; }
  done
done
