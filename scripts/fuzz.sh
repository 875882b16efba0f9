#!/bin/sh
# fuzz.sh runs every go test -fuzz target of the project for FUZZTIME each,
# one after another (make fuzz; issue 15 item 8), and prints per target the
# executions and what it found. A failing input is written by go test under
# the package's testdata/fuzz/<target>/ (so make test replays it): fix the
# bug, or move the file out before committing. Logs: build/fuzz/<target>.log.
#
#   FUZZTIME (default 1m): per target; FUZZPARALLEL (default 1): workers.
set -u
GO=${GO:-go}
FUZZTIME=${FUZZTIME:-1m}
FUZZPARALLEL=${FUZZPARALLEL:-1}
mkdir -p build/fuzz
targets="
./results:FuzzDecode
./results:FuzzValidate
./runner/plan:FuzzParse
./runner/systems:FuzzExtractCode
./llm:FuzzCompleteResponse
./internal/pystr:FuzzStrip
./internal/pystr:FuzzFormat
./results/published:FuzzReadGenerations
./results/published:FuzzReadQACSV
./results/published:FuzzReadSummary
./results/published:FuzzReadBatch
./results/published:FuzzParseReexecuted
./results/submission:FuzzFindCredential
./results/submission:FuzzReadMetadata
./results/submission:FuzzCheckFooter
"
failed=0
summary=""
for t in $targets; do
	pkg=${t%%:*}
	name=${t#*:}
	log=build/fuzz/$name.log
	echo "== $pkg $name (fuzztime $FUZZTIME)"
	$GO test -run '^$' -fuzz "^$name\$" -fuzztime "$FUZZTIME" -parallel "$FUZZPARALLEL" "$pkg" > "$log" 2>&1
	st=$?
	last=$(grep 'execs:' "$log" | tail -1 | sed 's/^fuzz: //')
	if [ $st -eq 0 ]; then
		result="ok"
	else
		failed=1
		crash=$(grep -o 'testdata/fuzz/[^ ]*' "$log" | head -1)
		result="FOUND: $(grep -m1 -E -- '--- FAIL|panic:|fuzz_test.go:[0-9]+:' "$log" | sed 's/^[[:space:]]*//') ${crash:+(input: $pkg/$crash)}"
		tail -30 "$log"
	fi
	echo "   $last"
	echo "   $result"
	summary="$summary
$name ($pkg): ${last:-no fuzzing output} -- $result"
done
echo
echo "make fuzz summary (FUZZTIME=$FUZZTIME):$summary"
exit $failed
