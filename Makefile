# MatTools leaderboard: offline benchmark runner and static leaderboard.
#
# `make help` lists the targets, one line each, from the "## " comment after each target below.
#
# MATTOOLS_DATA: a MatTools checkout or download (github.com/Grenzlinie/MatTools).

GO          ?= go
RESULTS_DIR ?= build/results
PORT        ?= 8080
HUGO        := $(GO) tool -modfile=tools/go.mod hugo
COMMIT      := $(shell git rev-parse HEAD 2>/dev/null)$(shell git diff --quiet HEAD -- 2>/dev/null || echo -dirty)
LDFLAGS     := -X github.com/mattools-leaderboard/leaderboard/internal/version.Commit=$(COMMIT)

# SANDBOX_ENV: which recorded sandbox environment the sandbox targets use (docs/sandbox.md, "Two environments"):
# pinned (the default: sandbox-env/requirements.lock, /opt/mattools-sandbox; CI, the published verdicts, the site)
# or tasks (sandbox-env/requirements-tasks.lock: the pinned lock plus ASE and dscribe, /opt/mattools-sandbox-tasks).
# SANDBOX_PYTHON: where that environment is. PREFIX=DIR names it (make sandbox-env PREFIX=$$HOME/.local/share/mattools-sandbox
# installs it there, without root); else /opt/mattools-sandbox[-tasks] as root or when installed there, and otherwise the
# user's own $${XDG_DATA_HOME:-$$HOME/.local/share}/mattools-sandbox[-tasks] (the order the commands' -python flag
# follows: docs/sandbox.md, "Root and rootless").
SANDBOX_ENV    ?= pinned
SANDBOX_SUFFIX := $(if $(filter tasks,$(SANDBOX_ENV)),-tasks)
USER_SANDBOX_PYTHON := $(or $(XDG_DATA_HOME),$(HOME)/.local/share)/mattools-sandbox$(SANDBOX_SUFFIX)
SANDBOX_PYTHON ?= $(or $(PREFIX),$(if $(or $(filter 0,$(shell id -u)),$(wildcard /opt/mattools-sandbox$(SANDBOX_SUFFIX)/bin/python3)),/opt/mattools-sandbox$(SANDBOX_SUFFIX),$(USER_SANDBOX_PYTHON)))
ifeq ($(SANDBOX_ENV),tasks)
AUDIT_OUT      ?= build/audit-tasks
else ifeq ($(SANDBOX_ENV),pinned)
AUDIT_OUT      ?= build/audit
else
$(error SANDBOX_ENV=$(SANDBOX_ENV): want pinned or tasks)
endif
# PROMPTS: the prompt texts (optional: default $MATTOOLS_DATA/prompts, or extracted from an upstream checkout's
# Python sources into build/prompts; see docs/runner.md#prompts).
PROMPTS        ?=
# SANDBOX_FLAGS: more sandbox flags of the runner in make replay and make compare-verdicts, e.g. -sandbox-no-cgroup
# for a user whose session delegates no memory and pids cgroup (docs/sandbox.md, "Root and rootless").
SANDBOX_FLAGS  ?=
PAPER_RUNS     ?= results/published/testdata/paper-runs.csv
# PKGS: the packages make test runs.
PKGS           ?= ./...

.PHONY: all help test setup setup-slurm vet site preview import serve replay replay-check clean sandbox-env rescore-published selfcheck compare-verdicts compare-verdicts-rootless rescore-stored warm-bench check-api site-scale synth-pymatgen synth-qa audit record-llamacpp local-model

all: site ## the default: make site

help: ## list the targets
	@awk -F ':.*## ' 'BEGIN { n = 0; w = 0 } /^[a-zA-Z_-]+:.*## / { name[n] = $$1; text[n] = $$2; n++; if (length($$1) > w) w = length($$1) } \
	  END { for (i = 0; i < n; i++) printf "  make %-" w "s  %s\n", name[i], text[i] }' $(MAKEFILE_LIST)

setup: ## install what the tests need (scripts/setup.sh; skips what is there, prints each step's time)
	@scripts/phase.sh setup scripts/setup.sh

vet: ## go vet ./...
	@echo "$(GO) vet ./..."; scripts/phase.sh vet $(GO) vet ./...

setup-slurm: ## install Debian's Slurm for cmd/slurm's real-cluster test (as root; opt-in: make setup does not, make test does as root)
	@scripts/phase.sh setup-slurm scripts/slurm/install.sh

test: setup vet ## install what the tests need, vet, run every test; the last line counts the tests skipped for lack of data
	@if [ "$$(id -u)" -eq 0 ]; then $(MAKE) --no-print-directory setup-slurm; fi
	$(GO) build -o build/bin/testreport ./scripts/testreport
	@scripts/phase.sh -q test build/bin/testreport -go $(GO) $(PKGS)

sandbox-env: ## install the sandbox's Python environment SANDBOX_ENV (pinned: sandbox-env/requirements.lock; tasks: requirements-tasks.lock) into /opt as root, or PREFIX=DIR (default for other users: ~/.local/share/mattools-sandbox)
	@MATTOOLS_SANDBOX_ENV=$(SANDBOX_ENV) MATTOOLS_SANDBOX_PYTHON=$(SANDBOX_PYTHON) scripts/sandbox-env.sh

# rescore-published re-executes, question by question, the generated code of every published tool-usage
# run in MATTOOLS_DATA (single LLM, LLM-RAG, agentic RAG, self-reflection) under mattools-v1 and
# mattools-v1-strict, and records the verdicts in results/published/reexecuted.json (committed, with its part files
# reexecuted-<part>.json for the keys "<run id>@<part>"; make import
# joins them with the published code, so make site never re-executes). Incremental and resumable: verdicts
# made for the same code in the same environment are kept; interrupted, it keeps what it did. SANDBOX_ENV=tasks
# re-executes them in the tasks environment and keeps those verdicts beside the main ones (rescore -alongside tasks:
# run keys "<run id>@tasks"; the importer never reads them), then prints every verdict that differs between the two.
# BENCHMARK_VERSION=2025-05-corrected-1 re-executes the questions that corrected version corrects (datasets/corrections.json)
# with its verification, kept under run keys "<run id>@2025-05-corrected-1": make import makes of them the runs of that
# version, scored apart from the published one (docs/benchmark-audit.md, "The corrected version").
rescore-published: sandbox-env ## re-execute every published answer into results/published/reexecuted.json (heavy, incremental; not part of make test)
	@if [ -z "$$MATTOOLS_DATA" ]; then echo "make rescore-published: MATTOOLS_DATA is not set" >&2; exit 1; fi
	$(GO) run -ldflags "$(LDFLAGS)" ./cmd/rescore -python $(SANDBOX_PYTHON) -all-published -store results/published/reexecuted.json \
	  $(if $(filter tasks,$(SANDBOX_ENV)),-alongside tasks) $(if $(BENCHMARK_VERSION),-benchmark-version $(BENCHMARK_VERSION))

# audit runs the benchmark audit (cmd/audit, docs/benchmark-audit.md): every reference solution of
# benchmarks/mattools-tool-usage/reference in the sandbox under both protocols, three negative controls per
# question, and the static probe of all 49 verifications; it prints the per-question table, the probe's flags and
# the diagnoses, and writes build/audit (audit.json, results files of the reference and the trivial baselines).
# Cached in build/audit/.cache: a rerun executes only what changed. Heavy (minutes); not part of make test.
# AUDIT_FLAGS: more flags of cmd/audit, e.g. -reference DIR -diagnoses FILE or -questions a,b; with
# -publish benchmarks/mattools-tool-usage/audit it also copies the results files there, the committed copy
# the site's unranked reference-solution and baseline rows are read from (make site never executes).
AUDIT_FLAGS ?=
audit: sandbox-env ## the benchmark audit: reference solutions, negative controls, static probe of every verification (build/audit; heavy)
	@if [ -z "$$MATTOOLS_DATA" ]; then echo "make audit: MATTOOLS_DATA is not set" >&2; exit 1; fi
	$(GO) run -ldflags "$(LDFLAGS)" ./cmd/audit -python $(SANDBOX_PYTHON) -out $(AUDIT_OUT) $(AUDIT_FLAGS)

# compare-verdicts re-executes the generated code of every published tool-usage run (both protocols) into
# build/verdicts/$(MODE).json, from scratch, in the sandbox's warm workers (MODE=warm, the default) or with a
# fresh interpreter per execution (MODE=cold, the reference), and compares every verdict, question by
# question, with the committed results/published/reexecuted.json; it fails on any difference and lists each.
# RUNS=regexp limits it to some published runs. Heavy: ~10-30 min warm on 2 cores; not part of make test.
MODE ?= warm
RUNS ?=
compare-verdicts: sandbox-env ## re-execute every published answer (MODE=warm|cold) and compare each verdict with the committed store (heavy)
	@if [ -z "$$MATTOOLS_DATA" ]; then echo "make compare-verdicts: MATTOOLS_DATA is not set" >&2; exit 1; fi
	@mkdir -p build/verdicts && rm -f build/verdicts/$(MODE).json
	$(GO) run -ldflags "$(LDFLAGS)" ./cmd/rescore -python $(SANDBOX_PYTHON) -all-published -store build/verdicts/$(MODE).json \
	  -compare results/published/reexecuted.json $(if $(filter cold,$(MODE)),-cold) $(if $(RUNS),-runs '$(RUNS)') $(SANDBOX_FLAGS)

# compare-verdicts-rootless is compare-verdicts in the sandbox's rootless mode (docs/sandbox.md, "Root and rootless"),
# into build/verdicts/rootless.json: as root it runs cmd/rescore as uid ROOTLESS_UID (setpriv; default 65534, nobody)
# with a private TMPDIR and no cgroup (-sandbox-no-cgroup), as any other user as that user. Heavy, as compare-verdicts.
ROOTLESS_UID ?= 65534
compare-verdicts-rootless: sandbox-env ## re-execute every published answer in the rootless mode and compare each verdict with the committed store (heavy)
	@if [ -z "$$MATTOOLS_DATA" ]; then echo "make compare-verdicts-rootless: MATTOOLS_DATA is not set" >&2; exit 1; fi
	$(GO) build -ldflags "$(LDFLAGS)" -o build/bin/rescore ./cmd/rescore
	@mkdir -p build/verdicts && rm -f build/verdicts/rootless.json; \
	if [ "$$(id -u)" -ne 0 ]; then \
	  build/bin/rescore -python $(SANDBOX_PYTHON) -data "$$MATTOOLS_DATA" -all-published -store build/verdicts/rootless.json \
	    -compare results/published/reexecuted.json -sandbox-no-cgroup $(if $(RUNS),-runs '$(RUNS)'); exit $$?; fi; \
	d=$$(mktemp -d) && trap 'rm -rf "$$d"' EXIT && chmod 755 "$$d" && cp build/bin/rescore results/published/reexecuted.json "$$d"/ && \
	mkdir -m 700 "$$d/private" && chown $(ROOTLESS_UID):$(ROOTLESS_UID) "$$d/private" || exit 1; st=0; \
	setpriv --reuid=$(ROOTLESS_UID) --regid=$(ROOTLESS_UID) --clear-groups env -i PATH=/usr/bin:/bin LANG=C.UTF-8 HOME="$$d/private" TMPDIR="$$d/private" \
	  "$$d/rescore" -python $(SANDBOX_PYTHON) -data "$$MATTOOLS_DATA" -all-published -store "$$d/private/rootless.json" \
	  -compare "$$d/reexecuted.json" -sandbox-no-cgroup $(if $(RUNS),-runs '$(RUNS)') || st=$$?; \
	cp "$$d/private/rootless.json" build/verdicts/rootless.json 2>/dev/null; exit $$st

# rescore-stored is compare-verdicts under the name issue 15 gives it (the stored runs' verdicts unchanged by the
# sandbox's hardening: MODE=cold re-executes them as cold tasks, the default as warm ones).
rescore-stored: compare-verdicts ## the same as make compare-verdicts

# check-api adds to the committed store site/apicheck/names.json the hallucinated-API check of every generated code
# under RESULTS_DIR it does not hold yet (names imported or read from pymatgen / pymatgen-analysis-defects that the
# pinned libraries lack; parsed with ast, never executed). Run it after new runs, then commit the store.
check-api: sandbox-env ## update the hallucinated-API store (site/apicheck/names.json) for the runs under RESULTS_DIR
	$(GO) run ./cmd/check-api -python $(SANDBOX_PYTHON)/bin/python $(RESULTS_DIR)

# warm-bench measures the warm workers against cold executions (scripts/warm-bench): per-execution overhead,
# and one stored run scored cold, warm and against the pure-compute bound.
warm-bench: sandbox-env ## cold vs warm sandbox executions: overhead and one stored run vs the compute bound
	@if [ -z "$$MATTOOLS_DATA" ]; then echo "make warm-bench: MATTOOLS_DATA is not set" >&2; exit 1; fi
	$(GO) run ./scripts/warm-bench -python $(SANDBOX_PYTHON)

# site-scale measures the site build at N = 100, 1,000 and 5,000 tool-usage runs (+ N/10 QA runs) derived from
# the imported runs: load+aggregate against DuckDB over the same files (means and std checked equal) and the
# full build with Hugo (issue 17; heavy: NS="100 1000" for less). Figures in build/site-scale/results.md.
site-scale: ## benchmark the site build at 100 / 1,000 / 5,000 runs against DuckDB (heavy; MATTOOLS_DATA; NS, BEFORE=1)
	@GO=$(GO) scripts/site-scale/run.sh

selfcheck: sandbox-env ## per-property self-consistency of the 138 properties (heavy; not part of make test)
	MATTOOLS_SELFCHECK=full MATTOOLS_SELFCHECK_OUT=$(CURDIR)/build/selfcheck.txt \
	  $(GO) test -count=1 -timeout 90m -run 'TestSelfConsistency' -v ./runner/scoring/

# synth-pymatgen synthesises the second benchmark from pymatgen's own tests (the tests whose data files the
# data root has; docs/synthesis.md): MODEL and BASE_URL name the model (key in $$OPENAI_API_KEY), resumable
# from build/synth/pymatgen-core.journal.jsonl; DRY=1 prints the calls, tokens and cost only.
SYNTH_FLAGS = -data "$(MATTOOLS_DATA)" -tests src/tool_source_code/pymatgen/tests -with-data
synth-pymatgen: sandbox-env ## synthesise the pymatgen-core benchmark into build/synth/pymatgen-core (MODEL=, BASE_URL=; DRY=1: dry run)
	@test -n "$(MATTOOLS_DATA)" || { echo "make synth-pymatgen: set MATTOOLS_DATA" >&2; exit 2; }
	$(GO) build -o build/bin/synthesize ./cmd/synthesize
	@if [ -n "$(DRY)" ]; then build/bin/synthesize $(SYNTH_FLAGS) -dry-run -price-in "$${PRICE_IN:-0}" -price-out "$${PRICE_OUT:-0}"; \
	else build/bin/synthesize $(SYNTH_FLAGS) -model "$(MODEL)" -base-url "$${BASE_URL:-https://api.openai.com/v1}" \
	  -out build/synth/pymatgen-core.json -layout build/synth/pymatgen-core -benchmark pymatgen_core; fi

# synth-qa makes a QA set (SET=code or doc) with MatTools' QA prompts (docs/synthesis.md §6): DOCS names an
# LLM-documentation file (upstream's or cmd/gen-docs output; needed for SET=doc), else the code objects of the
# data root's pymatgen are walked; MODEL and BASE_URL as above; resumable from its journal; DRY=1: dry run.
synth-qa: ## make a QA set into build/synth/generation_results_<set>.json (SET=code|doc, MODEL=, BASE_URL=, DOCS=; DRY=1: dry run)
	@test -n "$(MATTOOLS_DATA)" || { echo "make synth-qa: set MATTOOLS_DATA" >&2; exit 2; }
	$(GO) build -o build/bin/synthesize ./cmd/synthesize
	@if [ -n "$(DRY)" ]; then build/bin/synthesize -data "$(MATTOOLS_DATA)" -qa "$${SET:-code}" $${DOCS:+-docs "$$DOCS"} -dry-run -price-in "$${PRICE_IN:-0}" -price-out "$${PRICE_OUT:-0}"; \
	else build/bin/synthesize -data "$(MATTOOLS_DATA)" -qa "$${SET:-code}" $${DOCS:+-docs "$$DOCS"} -model "$(MODEL)" -base-url "$${BASE_URL:-https://api.openai.com/v1}" \
	  -out "build/synth/generation_results_$${SET:-code}.json"; fi

# import converts every published MatTools artefact under MATTOOLS_DATA into results files.
import: ## import the published MatTools results of MATTOOLS_DATA into build/results/imported
	@if [ -z "$$MATTOOLS_DATA" ]; then \
	  echo "make import: MATTOOLS_DATA is not set. Clone https://github.com/Grenzlinie/MatTools" \
	       "(commit 44385630f2acf461512996468fc0b24f44ddcaaf) and run: MATTOOLS_DATA=/path/to/MatTools make site" >&2; \
	  exit 1; fi
	$(GO) run -ldflags "$(LDFLAGS)" ./cmd/import-mattools -data "$$MATTOOLS_DATA" -out $(RESULTS_DIR)/imported

# site imports the published results when MATTOOLS_DATA is set, then builds public/ from every results
# file under RESULTS_DIR. Without data it says how to get it and builds a valid, empty site.
# Every release is rendered by the running code and checked against its numbers manifest
# (site/releases/<version>.numbers.csv; docs/site.md).
# SITE_OUT: where make site writes the site (scripts/publish.sh sets it).
SITE_OUT ?= public
site: ## import the published results (when MATTOOLS_DATA is set) and build the leaderboard into public/
	@if [ -n "$$MATTOOLS_DATA" ]; then $(MAKE) --no-print-directory import; else \
	  echo "make site: MATTOOLS_DATA is not set: building an empty site. To get the data: git clone https://github.com/Grenzlinie/MatTools" \
	       "/path/to/MatTools && git -C /path/to/MatTools checkout 44385630f2acf461512996468fc0b24f44ddcaaf, then run:" \
	       "MATTOOLS_DATA=/path/to/MatTools make site" >&2; fi
	$(GO) run -ldflags "$(LDFLAGS)" ./cmd/build-site -results $(RESULTS_DIR) -out $(SITE_OUT) -work build/site

# preview is make site without the releases: only /preview/ (every run present) and the root page, into
# build/preview (public/ is left alone); serve it with make serve SITE=build/preview.
preview: ## import (when MATTOOLS_DATA is set) and build only /preview/ and the root into build/preview (quick)
	@if [ -n "$$MATTOOLS_DATA" ]; then $(MAKE) --no-print-directory import; fi
	$(GO) run -ldflags "$(LDFLAGS)" ./cmd/build-site -results $(RESULTS_DIR) -out build/preview -work build/preview-work -preview-only

# serve serves public/ on the loopback interface only.
SITE ?= public
serve: ## serve the built site (SITE=public unless given) on http://127.0.0.1:PORT/ (PORT=8080 unless given)
	$(GO) run ./cmd/build-site -serve 127.0.0.1:$(PORT) -out $(SITE)

# replay serves the recorded single-LLM GPT batches (3 models × 3 rounds) with replay-llm on
# 127.0.0.1:8765 and runs plans/replay.toml against it: 9 configuration × round of 49 questions, no model
# called, each scored in the sandbox under mattools-v1 and mattools-v1-strict (18 results files; 68 s on
# the 2-core machine at a load of ~5.5 with the MatTools copy in which 28 questions can run; docs/performance.md). Resumable: run it again after an interruption.
replay: sandbox-env ## replay MatTools' recorded GPT answers through the runner, scored in the sandbox (build/results/replay)
	@if [ -z "$$MATTOOLS_DATA" ]; then echo "make replay: MATTOOLS_DATA is not set" >&2; exit 1; fi
	$(GO) build -o build/bin/ ./cmd/replay-llm ./cmd/run-benchmark
	@build/bin/replay-llm -addr 127.0.0.1:8765 -quiet > build/replay-llm.log 2>&1 & pid=$$!; \
	  trap 'kill $$pid' EXIT; sleep 1; \
	  build/bin/run-benchmark -plan plans/replay.toml -out $(RESULTS_DIR)/replay -sandbox-python $(SANDBOX_PYTHON) -no-progress $(SANDBOX_FLAGS) \
	    $(if $(PROMPTS),-prompts $(PROMPTS))

# replay-check is the scoring acceptance check of the runner (issue 5): after make replay it rescores
# the same 9 published jsonl with cmd/rescore (into build/replay-check/rescored, outside RESULTS_DIR: make
# import already holds re-executed published runs with these run ids; runs rescored there are kept) and checks, question by question and under both protocols, that the
# replayed runs' verdicts equal rescore's. The per-run table goes to build/replay-check.txt.
replay-check: replay ## make replay, rescore the same 9 published runs, compare verdicts question by question (heavy)
	$(GO) run -ldflags "$(LDFLAGS)" ./cmd/rescore -python $(SANDBOX_PYTHON) -quiet -out build/replay-check/rescored \
	  "$$MATTOOLS_DATA"/src/pure_agent_test/round*/gpt-*/
	@MATTOOLS_REPLAY_DIR=$(abspath $(RESULTS_DIR))/replay MATTOOLS_RESCORED_DIR=$(abspath build/replay-check/rescored) \
	  $(GO) test -count=1 -run 'TestReplayedRunsScoreAsRescore' -v ./cmd/rescore/ > build/replay-check.txt 2>&1; \
	  st=$$?; cat build/replay-check.txt; exit $$st

# fuzz runs every go test -fuzz target (results reader and validator, plan loader, answer extractor,
# response decoder, MatTools importers, pystr, submission checks) for FUZZTIME each, one after another;
# make test runs only their seeds (testdata/fuzz). A failing input lands in the package's testdata/fuzz.
FUZZTIME ?= 1m
record-llamacpp: ## record llama-cpp-python's server (SmolLM2-135M on CPU) into llm/testdata/wire (heavy: builds llama.cpp; not part of make test)
	scripts/record-llamacpp/run.sh

local-model: ## SmolLM2-135M on CPU (llama.cpp's server) through every system, gen-docs and the QA sample, 3 rounds, into build/results/local-cpu (plans/local-cpu.toml; heavy, not part of make test)
	scripts/local-model/run.sh

fuzz: ## run each fuzz target for FUZZTIME (default 1m), one after another; per target: executions and findings
	@GO=$(GO) FUZZTIME=$(FUZZTIME) scripts/fuzz.sh

clean: ## remove build/ and public/
	rm -rf build public
