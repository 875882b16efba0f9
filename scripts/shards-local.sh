#!/usr/bin/env bash
# The sharded run of deploy/kubernetes, each completion index's command run on this machine (issue 17): the
# commands are rendered from shards-job.yaml and merge-job.yaml (deploy/kubernetes/render: $(SHARD_INDEX)
# expanded, the mount paths /plan, /data/mattools and /shards mapped to local directories), run one after
# another against the project's fake OpenAI-compatible server (scripts/runner-bench/fakeserver -code, on
# 127.0.0.1), scored in the local sandbox as the pods score; then the same plan unsharded, and
# scripts/shards-local/compare checks that the merged results files equal the unsharded ones (timings
# aside: times, latencies, execution times). Needs root and the sandbox (make sandbox-env), as the pods do.
#
#   MATTOOLS_DATA=/path/to/MatTools scripts/shards-local.sh
#
# The plan: 1 round of the tool-usage benchmark (scored under both protocols) and of the 20-question QA
# sample (runner/testdata/qa20.json). Work files go to build/shards-local/.
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=${MATTOOLS_DATA:?set MATTOOLS_DATA}
DATA=$(cd "$DATA" && pwd)
W=$PWD/build/shards-local
rm -rf "$W"
mkdir -p "$W/bin" "$W/plan" "$W/shards"
go build -o "$W/bin/" ./cmd/run-benchmark ./cmd/merge ./scripts/runner-bench/fakeserver ./scripts/shards-local/compare
(cd deploy/kubernetes && GOFLAGS= go build -o "$W/bin/render" ./render)
export PATH="$W/bin:$PATH"

"$W/bin/fakeserver" -code > "$W/server.url" &
srv=$!
trap 'kill $srv 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -s "$W/server.url" ] && break; sleep 0.05; done
url=$(head -1 "$W/server.url")
cat > "$W/plan/plan.toml" <<PLAN
rounds = 1
concurrency = 4
benchmarks = ["tool-usage", "qa-code"]
[qa_sets.qa-code]
path = "$PWD/runner/testdata/qa20.json"
name = "sample-20"
[[models]]
name = "fake-model"
base_url = "$url"
temperature = 0
timeout = "60s"
PLAN

map="/plan=$W/plan,/data/mattools=$DATA,/shards=$W/shards"
n=$(grep -E '^  completions:' deploy/kubernetes/shards-job.yaml | awk '{print $2}')
for i in $(seq 0 $((n - 1))); do
  mapfile -t cmd < <(render -dir deploy/kubernetes -job shards -index "$i" -map "$map")
  echo "index $i: ${cmd[*]}"
  (cd "$W" && "${cmd[@]}")
done
mapfile -t cmd < <(render -dir deploy/kubernetes -job merge -map "$map")
echo "merge: ${cmd[*]}"
(cd "$W" && "${cmd[@]}")

# The same command without -shard, into its own directory.
mapfile -t cmd < <(render -dir deploy/kubernetes -job shards -index 0 -map "$map")
unsharded=()
skip=
for a in "${cmd[@]}"; do
  if [ -n "$skip" ]; then skip=; continue; fi
  case $a in -shard) skip=1; continue ;; esac
  unsharded+=("$a")
done
for k in "${!unsharded[@]}"; do [ "${unsharded[$k]}" = "$W/shards/shard-0" ] && unsharded[$k]=$W/unsharded; done
echo "unsharded: ${unsharded[*]}"
(cd "$W" && "${unsharded[@]}")
compare "$W/shards/results" "$W/unsharded"
