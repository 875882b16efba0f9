#!/bin/sh
# Corpus fidelity check: builds the test-only venv (once), runs the paper's
# LangChain chunking (chunk_reference.py) and compares it chunk by chunk with
# datasets/corpus (TestFidelity), printing the agreement per source.
# Usage: MATTOOLS_DATA=/path/to/mattools scripts/corpus-fidelity/run.sh
set -eu
cd "$(dirname "$0")/../.."
: "${MATTOOLS_DATA:?set MATTOOLS_DATA to a MatTools checkout}"
VENV=${MATTOOLS_CORPUS_FIDELITY_VENV:-build/corpus-fidelity-venv}
if [ ! -x "$VENV/bin/python" ]; then
	/usr/bin/python3 -m venv "$VENV"
	"$VENV/bin/pip" install -q -r scripts/corpus-fidelity/requirements.txt
fi
MATTOOLS_CORPUS_FIDELITY=1 MATTOOLS_CORPUS_FIDELITY_VENV="$(cd "$VENV" && pwd)" \
	go test -count=1 -run '^TestFidelity$' -v ./datasets/corpus | grep -E 'fidelity (code|docs)|^(---|ok|FAIL)|differences|LangChain|Go  '
