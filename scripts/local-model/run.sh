#!/usr/bin/env bash
# make local-model: SmolLM2-135M-Instruct on CPU, served by llama.cpp's server (llama-cpp-python 0.3.36)
# on 127.0.0.1, through every system, gen-docs and the QA sample (plans/local-cpu.toml says what and why).
# Needs MATTOOLS_DATA (the questions, pymatgen's source), MATTOOLS_QA_SAMPLE (the QA sample) and
# LIGHTRAG_DATA (LightRAG's prompt texts, for graph-rag); make setup (the sandbox) before.
# Re-running reuses the venv, the GGUF, the documentation, the graph index and every finished run
# (the runner's journals: an interrupted run resumes; gen-docs' journal). The servers are stopped on exit.
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${MATTOOLS_DATA:?set MATTOOLS_DATA to the MatTools data root (an upstream checkout or a copy)}"
: "${MATTOOLS_QA_SAMPLE:?set MATTOOLS_QA_SAMPLE to the folder holding the QA sample (qa_120.json)}"
: "${LIGHTRAG_DATA:?set LIGHTRAG_DATA to the folder of LightRAG 1.3.3 prompt texts (graph-rag)}"
VENV=${VENV:-build/llamacpp-venv}
DIR=build/llamacpp
GGUF=$DIR/SmolLM2-135M-Instruct.Q4_1.gguf
WORK=build/local-model
OUT=${OUT:-build/results/local-cpu}
CHAT_PORT=18511 EMBED_PORT=18512   # as plans/local-cpu.toml
t0=$(date +%s)
phase() { echo "local-model: $1 ($(( $(date +%s) - t0 )) s)"; }
VENV=$VENV DIR=$DIR scripts/llamacpp-env.sh
phase "llama-cpp-python and the GGUF ready"

# The two-question folder benchmark (MatTools' questions that read no data file) and the QA subset.
bench=$WORK/bench
mkdir -p "$bench/src/question_segments/mattools-cpu-smoke"
for q in test_pchip_eval test_boltzmann; do
  mkdir -p "$bench/src/question_segments/mattools-cpu-smoke/$q"
  for f in question.txt properties.json new_unit_test.py; do
    cp "$MATTOOLS_DATA/src/question_segments/pymatgen_analysis_defects/$q/$f" "$bench/src/question_segments/mattools-cpu-smoke/$q/$f"
  done
done
cat > "$bench/benchmark.json.tmp" <<'JSON'
{
  "name": "mattools-cpu-smoke",
  "version": "2025.05-cpu-smoke-2",
  "title": "MatTools tool usage: two questions (local CPU model smoke run)",
  "description": "Two of MatTools' 49 tool-usage questions that read no data file (test_pchip_eval, test_boltzmann), copied unchanged by make local-model: a smoke run of a small model on CPU through every system, never mixed with the 49-question tables.",
  "questions": ["test_pchip_eval", "test_boltzmann"]
}
JSON
mv "$bench/benchmark.json.tmp" "$bench/benchmark.json"
python3 - "$MATTOOLS_QA_SAMPLE/qa_120.json" "$WORK/qa-code-4.json" <<'PY'
import json, os, sys
items = json.load(open(sys.argv[1]))[:4]
tmp = sys.argv[2] + ".tmp"
with open(tmp, "w") as f:
    json.dump(items, f, indent=1)
os.replace(tmp, sys.argv[2])
PY

pids=()
stop() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done; }
trap stop EXIT
serve() { # serve PORT THREADS LOG ARGS...: start a server, wait for /v1/models
  local port=$1 threads=$2 log=$3; shift 3
  "$VENV/bin/python" scripts/record-llamacpp/serve.py --model "$GGUF" --model_alias smollm2-135m --host 127.0.0.1 --port "$port" \
    --n_ctx 8192 --n_threads "$threads" "$@" > "$log" 2>&1 &
  pids+=($!)
  for _ in $(seq 300); do
    if curl -sf "http://127.0.0.1:$port/v1/models" > /dev/null; then return 0; fi
    kill -0 "${pids[-1]}" 2>/dev/null || { cat "$log"; exit 1; }
    sleep 1
  done
  echo "local-model: the server on :$port did not start; see $log" >&2; exit 1
}
serve $CHAT_PORT 2 "$WORK/server-chat.log"
serve $EMBED_PORT 1 "$WORK/server-embeddings.log" --embedding true --kv_overrides llama.pooling_type=int:1
phase "servers up (chat :$CHAT_PORT, embeddings :$EMBED_PORT)"

# Retrieval source 4: the LLM-written documentation of a small folder, by the same model.
go run ./cmd/gen-docs -data "$MATTOOLS_DATA" -under pymatgen/analysis/topological -model smollm2-135m \
  -base-url "http://127.0.0.1:$CHAT_PORT/v1" -api-key-env "" -concurrency 1 -out "$WORK/llm-docs.json"
phase "gen-docs done ($WORK/llm-docs.json)"

for plan in plans/local-cpu.toml plans/local-cpu-dense.toml; do
  go run ./cmd/run-benchmark -plan "$plan" -data "$MATTOOLS_DATA" -lightrag "$LIGHTRAG_DATA" -out "$OUT" ${RUN_FLAGS:-}
  phase "$plan done"
done
phase "runs done in $OUT; chat requests served: $(grep -c 'POST /v1/chat/completions' "$WORK/server-chat.log" || true), embeddings requests: $(grep -c 'POST /v1/embeddings' "$WORK/server-embeddings.log" || true)"
echo "local-model: make preview shows them (build-site reads build/results recursively)"
