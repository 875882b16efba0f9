package fakerunner

// The steps of run, in the order run takes them.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/llm"
	"github.com/mattools-leaderboard/leaderboard/llm/llmtest"
	"github.com/mattools-leaderboard/leaderboard/runner"
	"github.com/mattools-leaderboard/leaderboard/runner/docgen"
	"github.com/mattools-leaderboard/leaderboard/runner/graphrag/graphragtest"
	"github.com/mattools-leaderboard/leaderboard/runner/plan"
	"github.com/mattools-leaderboard/leaderboard/runner/scoring"
)

// fixture is what the steps of run share: the data root and its
// benchmark, the temporary folder, the fake model's server, the scorer and
// the prompts no question matched.
type fixture struct {
	ctx       context.Context
	dataRoot  string
	dir       string
	bench     *datasets.Benchmark
	srv       *llmtest.Server
	ms        *memoScorer
	umu       sync.Mutex
	unmatched []string
}

// responder answers every request of the runner, runner/docgen and the
// retrieval systems as the fake model; a prompt it cannot place is kept in
// f.unmatched (runPlan then fails).
func (f *fixture) responder(answers *AnswerSet) func(llmtest.Request) llmtest.Reply {
	return func(r llmtest.Request) llmtest.Reply {
		if m := docgenObject.FindStringSubmatch(r.Prompt()); m != nil {
			// A documentation request of runner/docgen (sources 3 and 4).
			return llmtest.Reply{Content: fmt.Sprintf("# %[1]s\n\n%[1]s is the %[2]s of pymatgen's defects analysis in %[3]s. "+
				"It is documented here for retrieval. Use it as its code shows! Does it return anything? See its code.", m[2], m[1], m[3])}
		}
		switch graphragtest.Kind(r) {
		case graphragtest.KindExtract, graphragtest.KindGlean, graphragtest.KindIfLoop, graphragtest.KindSummary, graphragtest.KindKeywords:
			// graph-rag's index and keywords: LightRAG's record format, from the prompt.
			return graphragtest.Responder(r)
		case graphragtest.KindAnswerKG, graphragtest.KindAnswerNaive, graphragtest.KindAnswerMix:
			if a, ok := answers.For(r.Prompt()); ok { // the user message is the question in the answer format
				return llmtest.Reply{Content: a}
			}
		}
		if a, ok := advancedReply(r, answers, f.bench); ok {
			return llmtest.Reply{Content: a}
		}
		if a, ok := answers.For(r.Prompt()); ok {
			return llmtest.Reply{Content: a}
		}
		f.umu.Lock()
		f.unmatched = append(f.unmatched, r.Prompt())
		f.umu.Unlock()
		return llmtest.Reply{Content: "no question matches this prompt"}
	}
}

// parsePlan parses the plan head (rounds, concurrency, benchmarks,
// systems and their settings) followed by what every plan of the fixture
// shares: both scoring protocols, Slots sandbox slots and the fake model
// on f.srv. name is the plan's file name in errors.
func (f *fixture) parsePlan(head, name string) (*plan.Plan, error) {
	return plan.Parse([]byte(head+fmt.Sprintf(`[tool_usage]
scoring_protocols = ["mattools-v1", "mattools-v1-strict"]
[sandbox]
slots = %d
[[models]]
name = %q
display_name = %q
base_url = %q
timeout = "60s"
max_retries = 0
`, Slots, Model, DisplayName, f.srv.URL)), name)
}

// options are the runner options of p's runs into out: the fixture's data
// root, benchmark, scorer and prompts cache.
func (f *fixture) options(p *plan.Plan, out string) runner.Options {
	return runner.Options{Plan: p, DataRoot: f.dataRoot, PromptsCache: filepath.Join(f.dir, "prompts"),
		OutDir: out, Scorer: f.ms, Benchmark: f.bench, Generator: "e2e/fakerunner"}
}

// singleLLM runs the single-llm system, Rounds rounds, into the folder it
// returns.
func (f *fixture) singleLLM() (string, error) {
	p, err := f.parsePlan(fmt.Sprintf(`rounds = %d
concurrency = %d
benchmarks = ["tool-usage"]
systems = ["single-llm"]
`, Rounds, Concurrency), "fakerunner.toml")
	if err != nil {
		return "", err
	}
	out := filepath.Join(f.dir, "results")
	return out, runPlan(f.ctx, f.options(p, out), Rounds*len(scoring.Protocols), "single-llm", &f.unmatched, f.dataRoot)
}

// llmDocs writes the LLM-written documentation of sources 3 and 4: the
// fake model documents pymatgen/analysis/defects (runner/docgen, as
// cmd/gen-docs). It returns the documentation's file.
func (f *fixture) llmDocs(python string) (string, error) {
	objs, err := docgen.Walk(f.dataRoot, "pymatgen/analysis/defects", filepath.Join(python, "bin", "python3"))
	if err != nil {
		return "", fmt.Errorf("docgen: %w", err)
	}
	docsClient, err := llm.New(llm.Config{BaseURL: f.srv.URL, Model: "fake-docs"})
	if err != nil {
		return "", err
	}
	llmDocs := filepath.Join(f.dir, "llm-docs", "fake-docs.json")
	if err := os.MkdirAll(filepath.Dir(llmDocs), 0o755); err != nil {
		return "", err
	}
	dres, err := docgen.Generate(f.ctx, objs, docsClient, docgen.Options{Concurrency: Concurrency, Journal: llmDocs + ".journal.jsonl", Out: llmDocs})
	if err != nil {
		return "", fmt.Errorf("docgen: %w", err)
	}
	if err := os.WriteFile(llmDocs+".origin", []byte(dres.Origin+"\n"), 0o644); err != nil {
		return "", err
	}
	return llmDocs, nil
}

// llmRAG runs LLM-RAG, sources 1–4 × BM25 and dense, one round, into the
// folder it returns.
func (f *fixture) llmRAG(llmDocs string) (string, error) {
	rp, err := f.parsePlan(fmt.Sprintf(`rounds = 1
concurrency = %d
benchmarks = ["tool-usage"]
systems = ["llm-rag"]
retrieval_sources = [1, 2, 3, 4]
[retrieval]
methods = ["bm25", "embedding"]
llm_docs = %q
[retrieval.embedding]
model = "fake-embedding"
base_url = %q
`, Concurrency, llmDocs, f.srv.URL), "fakerunner-rag.toml")
	if err != nil {
		return "", err
	}
	ragOut := filepath.Join(f.dir, "rag")
	o := f.options(rp, ragOut)
	o.CorpusCache, o.RetrievalCache = filepath.Join(f.dir, "corpus"), filepath.Join(f.dir, "retrieval")
	return ragOut, runPlan(f.ctx, o, 4*2*len(scoring.Protocols), "llm-rag", &f.unmatched, f.dataRoot)
}

// advanced runs agentic RAG and both self-reflection variants, source 4 by
// BM25, Rounds rounds, both protocols, into the folder it returns.
func (f *fixture) advanced(llmDocs string) (string, error) {
	ap, err := f.parsePlan(fmt.Sprintf(`rounds = %d
concurrency = %d
benchmarks = ["tool-usage"]
systems = ["agentic-rag", "self-reflection-rag"]
retrieval_sources = [4]
[retrieval]
methods = ["bm25"]
llm_docs = %q
[self_reflection]
variants = ["as-published", "feedback"]
`, Rounds, Concurrency, llmDocs), "fakerunner-advanced.toml")
	if err != nil {
		return "", err
	}
	advOut := filepath.Join(f.dir, "advanced")
	o := f.options(ap, advOut)
	o.CorpusCache, o.RetrievalCache = filepath.Join(f.dir, "corpus"), filepath.Join(f.dir, "retrieval")
	return advOut, runPlan(f.ctx, o, Rounds*3*len(scoring.Protocols), "advanced systems", &f.unmatched, f.dataRoot)
}

// graphRAG runs graph-rag over the LightRAG data in lightrag into
// res.GraphDir, then the same plan again into another folder (the index
// reused), and records both in res.
func (f *fixture) graphRAG(res *Result, lightrag string) error {
	gp, err := f.parsePlan(fmt.Sprintf(`rounds = %d
concurrency = %d
benchmarks = ["tool-usage"]
systems = ["graph-rag"]
[graph_rag]
corpus = "pymatgen/analysis/defects"
modes = ["global"]
[retrieval.embedding]
model = "fake-embedding"
base_url = %q
`, Rounds, Concurrency, f.srv.URL), "fakerunner-graph.toml")
	if err != nil {
		return err
	}
	res.GraphDir = filepath.Join(f.dir, "graph")
	before, reqBefore := f.ms.executions, len(f.srv.Requests())
	indexStart := time.Now()
	o := f.options(gp, res.GraphDir)
	o.LightRAGDir, o.GraphCache = lightrag, filepath.Join(f.dir, "graphrag")
	if err := runPlan(f.ctx, o, Rounds*len(scoring.Protocols), "graph-rag", &f.unmatched, f.dataRoot); err != nil {
		return err
	}
	res.GraphScored, res.GraphRequests, res.GraphElapsed = f.ms.executions-before, len(f.srv.Requests())-reqBefore, time.Since(indexStart)
	res.GraphIndex = filepath.Join(f.dir, "graphrag")
	res.GraphIndexRequests = graphragtest.CountKinds(f.srv.Requests()[reqBefore:])

	// A second run of the plan into another folder reuses the index: no
	// extraction, gleaning or summary request.
	again := len(f.srv.Requests())
	o = f.options(gp, filepath.Join(f.dir, "graph-again"))
	o.LightRAGDir, o.GraphCache = lightrag, res.GraphIndex
	if _, err := runner.Run(f.ctx, o); err != nil {
		return fmt.Errorf("runner (graph-rag, again): %w", err)
	}
	res.GraphAgainRequests = graphragtest.CountKinds(f.srv.Requests()[again:])
	return nil
}
