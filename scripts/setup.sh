#!/usr/bin/env bash
# Installs what the tests and the site build need on a fresh Debian 12 machine, idempotently:
# Debian packages (as root), the sandbox's Python environment and the npm tools used by interoperability tests.
set -euo pipefail
cd "$(dirname "$0")/.."

# step NAME: prints how long the step just finished took ("setup: NAME  1.2 s"), so that a slow CI set-up
# names its slow step. Every step skips what is already there; the times show it.
setup_start=${EPOCHREALTIME/./}
step_start=$setup_start
step() {
  local now=${EPOCHREALTIME/./}
  printf 'setup: %-40s %7.1f s\n' "$1" "$(( (now - step_start) / 100000 ))e-1"
  step_start=$now
}

need_apt=()
command -v bwrap >/dev/null 2>&1 || need_apt+=(bubblewrap)
# Debian's chromium: the site's real-browser test (site/realsite_integration_test.go, chromedp).
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
# npm: the DuckDB interoperability check (tools/duckdb).
command -v npm >/dev/null 2>&1 || need_apt+=(npm)
[ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || need_apt+=(python3-venv)
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: missing Debian packages: ${need_apt[*]}; install them as root (apt-get install ${need_apt[*]})" >&2
    exit 1
  fi
  echo "setup: apt-get install ${need_apt[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
step "Debian packages${need_apt[*]:+ (installed ${need_apt[*]})}"

# The sandbox's pinned Python environment (pymatgen 2024.8.9 …), world-readable under /opt:
# a no-op when the installed lock matches (stamp), about 1 minute cold.
if [ "$(id -u)" -eq 0 ]; then
  scripts/sandbox-env.sh
elif [ ! -f "${MATTOOLS_SANDBOX_PYTHON:-/opt/mattools-sandbox}/.mattools-lock.sha256" ]; then
  echo "setup: the sandbox's Python environment is not installed; run 'make setup' as root" >&2
fi
step "sandbox Python environment"

# npm ci again only when package-lock.json changed (its SHA-256 is stamped under build/; an installed tree without
# a stamp, from before the stamp existed, is kept and stamped).
npm_sha=$(sha256sum tools/duckdb/package-lock.json | cut -d' ' -f1)
npm_stamp=build/.duckdb-npm.sha256
if [ ! -d tools/duckdb/node_modules/@duckdb/node-api ] ||
   { [ -f "$npm_stamp" ] && [ "$(cat "$npm_stamp")" != "$npm_sha" ]; }; then
  echo "setup: npm ci (tools/duckdb)"
  (cd tools/duckdb && npm ci --no-audit --no-fund --silent)
fi
mkdir -p build && [ "$(cat "$npm_stamp" 2>/dev/null)" = "$npm_sha" ] || echo "$npm_sha" >"$npm_stamp"
step "npm ci (tools/duckdb)"

# Pagefind, the site's search index (tools/pagefind; scripts/publish.sh): npm ci again only when its lock changed.
pf_sha=$(sha256sum tools/pagefind/package-lock.json | cut -d' ' -f1)
pf_stamp=build/.pagefind-npm.sha256
if [ ! -d tools/pagefind/node_modules/pagefind ] || [ "$(cat "$pf_stamp" 2>/dev/null)" != "$pf_sha" ]; then
  echo "setup: npm ci (tools/pagefind)"
  (cd tools/pagefind && npm ci --no-audit --no-fund --silent)
  echo "$pf_sha" >"$pf_stamp"
fi
step "npm ci (tools/pagefind)"

# venv DIR REQUIREMENTS: a Python environment (Debian's python3) at DIR with the pinned REQUIREMENTS installed, made
# again only when the requirements file changed (its SHA-256 is stamped in DIR/.requirements.sha256).
venv() {
  local dir=$1 req=$2 sha
  sha=$(sha256sum "$req" | cut -d' ' -f1)
  if [ "$(cat "$dir/.requirements.sha256" 2>/dev/null)" != "$sha" ]; then
    echo "setup: python venv $dir ($req)"
    /usr/bin/python3 -m venv "$dir"
    "$dir/bin/pip" install -q -r "$req"
    echo "$sha" >"$dir/.requirements.sha256"
  fi
}

# The Python environment of the example submission writer (docs/submitting/write_submission.py:
# pyarrow, pandas), repo-relative under build/: a no-op when the installed requirements match (stamp).
venv build/submit-venv docs/submitting/requirements.txt
step "venv build/submit-venv"

# The test-only environment of the corpus fidelity check (LangChain's splitters and BeautifulSoup, pinned in
# scripts/corpus-fidelity/requirements.txt; datasets/corpus TestFidelity): a no-op when the stamp matches.
venv build/corpus-fidelity-venv scripts/corpus-fidelity/requirements.txt
step "venv build/corpus-fidelity-venv"

# The test-only environment of the semantic-chunker fidelity check (langchain_experimental's SemanticChunker,
# pinned in scripts/semantic-fidelity/requirements.txt; runner/retrieval TestSemanticFidelity).
venv build/semantic-fidelity-venv scripts/semantic-fidelity/requirements.txt
step "venv build/semantic-fidelity-venv"

# The test-only environment of the LightRAG reference check (lightrag-hku 1.3.3 and its dependencies, pinned in
# scripts/lightrag-check/requirements.txt; drive.py, run by scripts/lightrag-check/smoke): a no-op when the
# stamp matches; about 15 s and 160 MB cold.
venv build/lightrag-check-venv scripts/lightrag-check/requirements.txt
step "venv build/lightrag-check-venv"

# The test-only environment of the statistics reference check (SciPy and NumPy, pinned in
# scripts/stats-reference/requirements.txt; results/stats TestAgainstSciPy): a no-op when the stamp matches.
venv build/stats-reference-venv scripts/stats-reference/requirements.txt
step "venv build/stats-reference-venv"

# actionlint (a Go tool in its own module, tools/actionlint/go.mod), which checks .github/workflows in make test:
# built here, outside any test timeout.
go tool -modfile=tools/actionlint/go.mod actionlint -version >/dev/null
step "go tool actionlint"

# The Kubernetes manifests' test (a module of its own, deploy/kubernetes/go.mod; run by deploy/deploy_test.go in
# make test): download and build k8s.io/api here, outside any test timeout. Without -count=1, so that when nothing
# changed go test's cache answers instead of linking the test binaries again.
(cd deploy/kubernetes && GOFLAGS= go test -run '^$' ./... >/dev/null)
step "Kubernetes module (deploy/kubernetes)"

# Hugo (a Go tool, tools/go.mod): build it once here, outside any test timeout (a cold build takes minutes).
hugo_version=$(go tool -modfile=tools/go.mod hugo version)
echo "setup: go tool hugo: ${hugo_version%% linux*}"
step "go tool hugo"
step_start=$setup_start
step "total"
