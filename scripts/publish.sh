#!/usr/bin/env bash
# Builds the leaderboard for publishing and checks it: the whole logic of .github/workflows/pages.yml, so that
# it runs the same on a laptop, in make test and in the deploy workflow.
#
#   scripts/publish.sh [--no-build] OUT BASE_URL
#
# OUT        the folder the site is written to (replaced by the build), then uploaded as it is.
# BASE_URL   where it will be served, e.g. https://OWNER.github.io/REPO/ (or its path, /REPO/): every
#            root-relative link must lie under its path. The site itself links relatively (a release must
#            work wherever it is copied), so the base URL is checked, not built in.
# --no-build check an already built OUT (index it and check it) instead of building it first.
#
# Steps: (1) make site SITE_OUT=OUT, the project's own build (MatTools' published results imported from
# MATTOOLS_DATA, every release rendered and checked against its numbers manifest, the preview, the root;
# docs/site.md); (2) the search index:
# tools/pagefind/index.mjs (Pagefind, pinned in tools/pagefind; scripts/setup.sh installs it) writes
# OUT/pagefind/; (3) cmd/check-site OUT: prints pages, files and bytes in all and per edition, the largest
# page, the pages over the page budget, the search index's files and bytes, and fails on any broken link or
# #anchor, a missing search index, or a budget exceeded.
#
# PAGE_BUDGET (default 500KB) and TOTAL_BUDGET (default 1GB: what GitHub Pages allows a site) are the budgets;
# ALLOW_HEAVY=1 reports pages over the page budget without failing (the total budget always fails).
#
# GO: the go command (default go).
# Exit status: 0 when the site is built and passes, 1 when a step fails, 2 on a usage error.
set -euo pipefail

prog=publish
usage() {
  echo "usage: scripts/publish.sh [--no-build] OUT BASE_URL" >&2
  exit 2
}
build=1
if [ "${1:-}" = "--no-build" ]; then
  build=0
  shift
fi
[ $# -eq 2 ] || usage
out=$(realpath -m "$1") base=$2
case "$base" in
  http://* | https://* | /*) ;;
  *) echo "$prog: BASE_URL $base: want https://HOST/PATH/ or /PATH/" >&2; exit 2 ;;
esac
GO=${GO:-go}
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"

if [ ! -d tools/pagefind/node_modules/pagefind ]; then
  echo "$prog: Pagefind is not installed: run scripts/setup.sh (or: cd tools/pagefind && npm ci)" >&2
  exit 1
fi

if [ "$build" = 1 ]; then
  echo "$prog: make site SITE_OUT=$out"
  make --no-print-directory site GO="$GO" SITE_OUT="$out"
elif [ ! -f "$out/index.html" ]; then
  echo "$prog: $out has no index.html: build it first, or leave out --no-build" >&2
  exit 1
fi

# The 404 page (GitHub Pages serves it for any missing path, at any depth) learns the base path, so that it sends
# /REPO/latest/… to the newest release and links the home page under /REPO/.
path=${base#http://}; path=${path#https://}
case "$base" in http://* | https://*) path=/${path#*/} ;; esac
path=${path%/}/
if [ -f "$out/404.html" ]; then
  sed -i "s|<meta name=\"site-base\" content=\"\">|<meta name=\"site-base\" content=\"$path\">|" "$out/404.html"
fi

echo "$prog: search index (Pagefind) → $out/pagefind"
rm -rf "$out/pagefind"
node tools/pagefind/index.mjs "$out"

echo "$prog: check-site $out (base $base)"
flags=(-base-url "$base" -search -page-budget "${PAGE_BUDGET:-500KB}" -total-budget "${TOTAL_BUDGET:-1GB}")
[ "${ALLOW_HEAVY:-0}" = 1 ] && flags+=(-allow-heavy)
"$GO" run ./cmd/check-site "${flags[@]}" "$out"
