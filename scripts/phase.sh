#!/usr/bin/env bash
# phase.sh [-q] NAME CMD...: runs CMD as the phase NAME of make test and times it. It prints
# "phase NAME: 12.3 s" on stderr when CMD ends (not with -q: the test phase, whose last line stays the count of
# tests skipped), and appends "NAME<TAB>seconds<TAB>exit status" to $MATTOOLS_PHASES when that is set (.ci/run
# prints the table at the end). The exit status is CMD's.
set -uo pipefail
quiet=0
if [ "${1:-}" = "-q" ]; then quiet=1; shift; fi
name=$1
shift
start=${EPOCHREALTIME/./}
"$@"
rc=$?
secs="$(( (${EPOCHREALTIME/./} - start) / 100000 ))e-1"
[ "$quiet" = 1 ] || printf 'phase %s: %.1f s\n' "$name" "$secs" >&2
[ -z "${MATTOOLS_PHASES:-}" ] || printf '%s\t%.1f\t%d\n' "$name" "$secs" "$rc" >>"$MATTOOLS_PHASES"
exit $rc
