#!/usr/bin/env bash
# make record-llamacpp: record llama-cpp-python's OpenAI-compatible wire
# format into llm/testdata/wire/llama-cpp-python (docs/runner.md,
# "Local servers"). Heavy, not part of make test:
#   1-2. the pinned llama-cpp-python venv and the SmolLM2-135M GGUF (scripts/llamacpp-env.sh);
#   3. the server (serve.py: llama_cpp.server without AMX repacking) on 127.0.0.1 three times: chat, mean-pooled embeddings, and
#      embeddings without pooling (per-token); record.py drives the calls.
# Every step is skipped when its output is there. The servers are stopped on exit.
set -euo pipefail
cd "$(dirname "$0")/../.."
VENV=${VENV:-build/llamacpp-venv}
DIR=build/llamacpp
OUT=${OUT:-llm/testdata/wire/llama-cpp-python}
PORT=${PORT:-18431}
GGUF=$DIR/SmolLM2-135M-Instruct.Q4_1.gguf
t0=$(date +%s)
VENV=$VENV DIR=$DIR scripts/llamacpp-env.sh
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
