#!/usr/bin/env bash
# Runner vs a minimal Go HTTP client (issue 17): N chat completions (default
# 20,000) at concurrency C (default 64) against the project's fake
# OpenAI-compatible server (llm/llmtest, in a process of its own on
# 127.0.0.1, restarted for every measurement), each measured with
# /usr/bin/time: wall, CPU (user + sys) and peak RSS, then the ratios
# runner / minimal. The runner runs a QA plan of N synthetic questions
# (genqa), journal and results file included; the minimal client
# (minimal/) only sends and decodes.
#
#   MATTOOLS_DATA=/path/to/MatTools scripts/runner-bench/run.sh
#   REPS=3 N=20000 C=64 BASELINE=1 MATTOOLS_DATA=… scripts/runner-bench/run.sh   # BASELINE=1: also the runner of git revision BASE_REV (default HEAD)
#
# Work files go to build/runner-bench/. It prints one line per measurement
# and the ratios of the medians.
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${N:-20000}
C=${C:-64}
REPS=${REPS:-3}
DATA=${MATTOOLS_DATA:?set MATTOOLS_DATA (the prompts of the QA benchmark come from it)}
W=$PWD/build/runner-bench
rm -rf "$W"
mkdir -p "$W/bin"
go build -o "$W/bin/" ./cmd/run-benchmark ./scripts/runner-bench/fakeserver ./scripts/runner-bench/minimal ./scripts/runner-bench/genqa
"$W/bin/genqa" -n "$N" -out "$W/qa.json"
if [ "${BASELINE:-0}" = 1 ]; then
  mkdir -p "$W/head"
  git archive "${BASE_REV:-HEAD}" | tar -x -C "$W/head"
  (cd "$W/head" && go build -o "$W/bin/run-benchmark-head" ./cmd/run-benchmark)
fi

srv_pid=
start_server() {
  "$W/bin/fakeserver" > "$W/server.url" &
  srv_pid=$!
  for _ in $(seq 100); do [ -s "$W/server.url" ] && break; sleep 0.05; done
  URL=$(head -1 "$W/server.url")
}
stop_server() { kill "$srv_pid" 2>/dev/null || true; wait "$srv_pid" 2>/dev/null || true; : > "$W/server.url"; }
trap stop_server EXIT

write_plan() {
  cat > "$W/plan.toml" <<PLAN
rounds = 1
concurrency = $C
benchmarks = ["qa-code"]
[qa_sets.qa-code]
path = "$W/qa.json"
name = "bench-$N"
[[models]]
name = "fake-model"
base_url = "$1"
temperature = 0
timeout = "120s"
PLAN
}

# measure NAME CMD...: one line "NAME wall_s cpu_s rss_kib"; an argument
# @URL@ is replaced by the fresh server's base URL.
measure() {
  local name=$1; shift
  start_server
  write_plan "$URL"
  rm -rf "$W/out"
  local args=()
  for a in "$@"; do args+=("${a//@URL@/$URL}"); done
  /usr/bin/time -f "%e %U %S %M" -o "$W/time.txt" "${args[@]}" > "$W/$name.log" 2>&1 || { cat "$W/$name.log" >&2; exit 1; }
  stop_server
  read -r wall user sys rss < "$W/time.txt"
  echo "$name $wall $(echo "$user + $sys" | bc) $rss" | tee -a "$W/measurements.txt"
}

: > "$W/measurements.txt"
echo "name wall_s cpu_s peak_rss_kib  (N=$N, concurrency $C)"
for _ in $(seq "$REPS"); do
  measure minimal "$W/bin/minimal" -url @URL@ -n "$N" -c "$C"
  measure runner "$W/bin/run-benchmark" -plan "$W/plan.toml" -data "$DATA" -out "$W/out" -no-progress
  if [ "${BASELINE:-0}" = 1 ]; then
    measure runner-head "$W/bin/run-benchmark-head" -plan "$W/plan.toml" -data "$DATA" -out "$W/out" -no-progress
  fi
done
# The last runner measured wrote its results file.
ls "$W/out"/*.parquet > /dev/null
awk -v n="$N" '
  { w[$1] = w[$1] " " $2; c[$1] = c[$1] " " $3; m[$1] = m[$1] " " $4 }
  function median(s,   a, k, i, j, t) { k = split(s, a, " "); for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }; return a[int((k + 1) / 2)] }
  END {
    printf "medians: minimal wall %.2f s, CPU %.2f s, RSS %d KiB\n", median(w["minimal"]), median(c["minimal"]), median(m["minimal"])
    for (k in w) if (k != "minimal")
      printf "%s / minimal: wall %.2fx, CPU %.2fx, RSS %.2fx (wall %.2f s, CPU %.2f s, RSS %d KiB)\n", k,
        median(w[k]) / median(w["minimal"]), median(c[k]) / median(c["minimal"]), median(m[k]) / median(m["minimal"]),
        median(w[k]), median(c[k]), median(m[k])
  }' "$W/measurements.txt"
