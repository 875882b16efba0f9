# MatTools leaderboard: offline benchmark runner and static leaderboard.
#
#   make site    import the published MatTools results (when MATTOOLS_DATA is set) and build the leaderboard
#   make test    install what the tests need (see scripts/setup.sh) and run every test
#   make sandbox-env     install the sandbox's pinned Python environment (sandbox-env/requirements.lock)
#   make rescore-stored  rescore the 15 stored single-LLM runs of MatTools (heavy; not part of make test)
#   make selfcheck       per-property self-consistency of the 138 properties (heavy; not part of make test)
#
# MATTOOLS_DATA: a MatTools checkout or download (github.com/Grenzlinie/MatTools).

GO          ?= go
RESULTS_DIR ?= build/results
HUGO        := $(GO) tool -modfile=tools/go.mod hugo
COMMIT      := $(shell git rev-parse HEAD 2>/dev/null)$(shell git diff --quiet HEAD -- 2>/dev/null || echo -dirty)
LDFLAGS     := -X github.com/mattools-leaderboard/leaderboard/internal/version.Commit=$(COMMIT)

SANDBOX_PYTHON ?= /opt/mattools-sandbox
PAPER_RUNS     ?= ../shared/reference/paper-runs.csv

.PHONY: all test setup vet site import clean sandbox-env rescore-stored selfcheck

all: site

setup:
	@scripts/setup.sh

vet:
	$(GO) vet ./...

test: setup vet
	$(GO) test ./...

sandbox-env:
	@MATTOOLS_SANDBOX_PYTHON=$(SANDBOX_PYTHON) scripts/sandbox-env.sh

# rescore-stored re-executes the generated code of MatTools' 15 single-LLM runs (5 models × 3 rounds)
# under mattools-v1 and mattools-v1-strict, without any model; per-question verdicts go to verdicts.csv.
rescore-stored: sandbox-env
	@if [ -z "$$MATTOOLS_DATA" ]; then echo "make rescore-stored: MATTOOLS_DATA is not set" >&2; exit 1; fi
	$(GO) run -ldflags "$(LDFLAGS)" ./cmd/rescore -python $(SANDBOX_PYTHON) -out $(RESULTS_DIR)/rescored \
	  -verdicts $(RESULTS_DIR)/rescored/verdicts.csv $$( [ -f $(PAPER_RUNS) ] && echo -published $(PAPER_RUNS) ) \
	  "$$MATTOOLS_DATA"/src/pure_agent_test/round*/*/

selfcheck: sandbox-env
	MATTOOLS_SELFCHECK=full MATTOOLS_SELFCHECK_OUT=$(CURDIR)/build/selfcheck.txt \
	  $(GO) test -count=1 -timeout 90m -run 'TestSelfConsistency' -v ./runner/scoring/

# import converts every published MatTools artefact under MATTOOLS_DATA into results files.
import:
	@if [ -z "$$MATTOOLS_DATA" ]; then \
	  echo "make import: MATTOOLS_DATA is not set. Clone https://github.com/Grenzlinie/MatTools" \
	       "(commit 44385630f2acf461512996468fc0b24f44ddcaaf) and run: MATTOOLS_DATA=/path/to/MatTools make site" >&2; \
	  exit 1; fi
	$(GO) run -ldflags "$(LDFLAGS)" ./cmd/import-mattools -data "$$MATTOOLS_DATA" -out $(RESULTS_DIR)/imported

site: import

clean:
	rm -rf build public
