#!/usr/bin/env bash
# site-scale (make site-scale; issue 17): the site build at N = 100, 1,000 and 5,000 tool-usage runs
# (+ N/10 QA runs of 7,192 rows), measured in one session.
#
# For each N: gen writes N runs copied from the imported MatTools runs (build/results/imported, make import)
# under renamed models; loadagg (the project's reader, site.LoadResults, and site/aggregate.BuildRows) and
# duckdb_agg.py (DuckDB over the same files) compute every configuration's means and population std, which
# compare.py checks equal; each is measured by measure.py (wall, peak RSS; best of REPEAT wall times);
# then build-site builds the whole site with Hugo (wall, peak RSS of the process tree, build-site's own RSS
# while Hugo runs, the largest page), and again without Hugo (own-nN: it stops where Hugo would start, so its
# peak RSS is build-site's own phase). BEFORE=1 also measures, at the N of BEFORE_NS (default 1000), the reader
# every column and row decoded and kept (loadagg -reader full) and git HEAD's build-site, for comparison. Figures: build/site-scale/results.md (and results.jsonl).
#
# Env: MATTOOLS_DATA (required), NS (default "100 1000 5000"), REPEAT (default 3), BUILD (default 1: also
# the full build), BEFORE (default 0), BEFORE_NS.
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${MATTOOLS_DATA:?set MATTOOLS_DATA (e.g. a MatTools checkout)}"
NS=${NS:-"100 1000 5000"} REPEAT=${REPEAT:-3} BUILD=${BUILD:-1} BEFORE=${BEFORE:-0} BEFORE_NS=${BEFORE_NS:-1000}
GO=${GO:-go}
out=build/site-scale
mkdir -p "$out/bin"
[ -d build/results/imported ] || make --no-print-directory import
# DuckDB, pinned (requirements.txt), in a venv under build/ as scripts/setup.sh's venv function does.
req=scripts/site-scale/requirements.txt sha=$(sha256sum "$req" | cut -d' ' -f1)
if [ "$(cat "$out/venv/.requirements.sha256" 2>/dev/null)" != "$sha" ]; then
  /usr/bin/python3 -m venv "$out/venv" && "$out/venv/bin/pip" install -q -r "$req" && echo "$sha" >"$out/venv/.requirements.sha256"
fi
$GO build -o "$out/bin/" ./scripts/site-scale/gen ./scripts/site-scale/loadagg ./cmd/build-site
# build-site's repository root: the templates, prose and assets and tools/go.mod (Hugo), without .git, so
# that the committed releases (whose runs the copies do not hold) are built empty by the running code.
rm -rf "$out/repo" && mkdir -p "$out/repo" && cp -r go.mod go.sum tools content layouts static "$out/repo/"
if [ "$BEFORE" = 1 ]; then
  rm -rf "$out/before" && mkdir -p "$out/before/repo"
  git archive HEAD | tar -x -C "$out/before/repo"
  (cd "$out/before/repo" && $GO build -o ../bin/ ./cmd/build-site)
fi
measure() { python3 scripts/site-scale/measure.py "$@"; }
mkdir -p "$out/nogo" && printf '#!/bin/sh\necho "site-scale: no go command here: build-site stops where Hugo would start" >&2\nexit 1\n' >"$out/nogo/go"
chmod +x "$out/nogo/go"
jsonl=$out/results.jsonl
: >"$jsonl"
: >"$out/pages.txt"
best() { # best of REPEAT: LABEL CMD... (stdout to $out/LABEL.out)
  local label=$1; shift
  for _ in $(seq "$REPEAT"); do measure "$label" "$jsonl" -- "$@" >"$out/$label.out"; done
}
largest() { find "$1" -name '*.html' -printf '%s %P\n' | sort -n | tail -1; }
for n in $NS; do
  before=0
  if [ "$BEFORE" = 1 ] && [[ " $BEFORE_NS " == *" $n "* ]]; then before=1; fi
  data=$out/n$n
  if [ ! -f "$data/.complete" ]; then rm -rf "$data"; "$out/bin/gen" -n "$n" -out "$data"; touch "$data/.complete"; fi
  best "loadagg-n$n" "$out/bin/loadagg" -results "$data"
  best "duckdb-n$n" "$out/venv/bin/python" scripts/site-scale/duckdb_agg.py "$data"
  python3 scripts/site-scale/compare.py "$out/loadagg-n$n.out" "$out/duckdb-n$n.out" | tee "$out/compare-n$n.txt"
  if [ "$before" = 1 ]; then
    best "before-loadagg-n$n" "$out/bin/loadagg" -results "$data" -reader full
    python3 scripts/site-scale/compare.py "$out/before-loadagg-n$n.out" "$out/duckdb-n$n.out" >/dev/null
  fi
  if [ "$BUILD" = 1 ]; then
    measure "build-n$n" "$jsonl" -- "$out/bin/build-site" -results "$data" -out "$out/public-n$n" -work "$out/work-n$n" \
      -repo "$out/repo" -data "$MATTOOLS_DATA" -submissions none -verified none >"$out/build-n$n.log" 2>&1
    echo "build-n$n $(largest "$out/public-n$n")" | tee -a "$out/pages.txt"
    # build-site's own phase: the same build with a go command that fails, so that it stops where Hugo would
    # start (exit 1, expected); its peak RSS is then build-site's alone (the full build's is Hugo's).
    measure "own-n$n" "$jsonl" -- env PATH="$PWD/$out/nogo:$PATH" "$out/bin/build-site" -results "$data" -out "$out/own-public-n$n" \
      -work "$out/own-work-n$n" -repo "$out/repo" -data "$MATTOOLS_DATA" -submissions none -verified none >"$out/own-n$n.log" 2>&1 || true
    if [ "$before" = 1 ]; then
      measure "before-build-n$n" "$jsonl" -- "$out/before/bin/build-site" -results "$data" -out "$out/before-public-n$n" \
        -work "$out/before-work-n$n" -repo "$out/before/repo" -data "$MATTOOLS_DATA" -submissions none -verified none \
        >"$out/before-build-n$n.log" 2>&1
      echo "before-build-n$n $(largest "$out/before-public-n$n")" | tee -a "$out/pages.txt"
    fi
  fi
done
python3 scripts/site-scale/report.py "$jsonl" "$out/pages.txt" | tee "$out/results.md"
