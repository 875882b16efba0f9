// Package runner executes a run plan: it expands the plan (runner/plan) into
// configurations × rounds, asks each question to the configured system
// (runner/systems) through an OpenAI-compatible client (llm), scores
// the answers (QA: runner/scoring; tool usage: a Scorer, which runs the code
// in a sandbox and yields the verdicts of every scoring protocol at once)
// and writes one results file per run (results format v2, provenance
// "runner") into the output directory, atomically: one per scoring protocol
// the plan asks for, all from the same answers and executions.
//
// Runs are resumable: every finished question (answer and outcome) is
// appended to the checkpoint journal (OUT/.journal/<id>.jsonl) and counted
// done only once it is synced (lines are written in batches, synced at most
// every Options.JournalSync), so a run that is interrupted (Ctrl-C, a crash,
// SIGKILL) continues where it stopped when started again, without asking or
// executing a question reported done twice or duplicating a row; it loses
// at most the answers of the last sync interval. A run whose results file
// exists is skipped. With Options.Shard a process runs one shard of the
// plan's items, and Merge writes the results files from every shard's
// journals.
package runner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/datasets/qaaudit"
	"github.com/mattools-leaderboard/leaderboard/llm"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/runner/journal"
	"github.com/mattools-leaderboard/leaderboard/runner/plan"
	"github.com/mattools-leaderboard/leaderboard/runner/scoring"
	"github.com/mattools-leaderboard/leaderboard/runner/systems"
)

// Options configure Run and Estimate.
type Options struct {
	Plan *plan.Plan
	// DataRoot is the MatTools data root (MATTOOLS_DATA): questions and prompts.
	DataRoot string
	// PromptsDir holds the prompt texts (the layout of MATTOOLS_DATA/prompts);
	// "" means DataRoot/prompts when that folder exists, else the texts are
	// extracted from the upstream Python sources under DataRoot
	// (systems.ObtainPrompts) and cached in PromptsCache.
	PromptsDir string
	// PromptsCache is where extracted prompt texts are cached; "" means
	// systems.DefaultPromptsCache (build/prompts, relative to the working
	// directory).
	PromptsCache string
	// Python lists the interpreters tried for the prompt extraction (parsing
	// only); nil means systems.DefaultPythons (the sandbox's Python, then
	// python3).
	Python []string
	// OutDir receives one results file per run, <run id>.parquet, and the
	// journals in OutDir/.journal.
	OutDir string
	// APIKeys maps the environment-variable names of the plan's api_key_env
	// to the keys. The runner never reads the environment itself; see
	// ReadAPIKeys.
	APIKeys map[string]string
	// Scorer scores the tool-usage answers (every protocol of the plan from
	// one execution). Run refuses a plan with tool-usage runs and no Scorer
	// unless Unscored is set.
	Scorer Scorer
	// Unscored writes tool-usage runs unscored (ProtocolUnscored: generated
	// code only, for rescoring elsewhere) instead of scoring them.
	Unscored bool
	// Benchmark is the tool-usage benchmark to run; nil means
	// datasets.Load(DataRoot). Questions that are not Executable (their
	// data files are absent, or scoring.Restrict left them out) are asked
	// but not executed: data-missing, outside the runs' question set.
	Benchmark *datasets.Benchmark
	// Progress receives a progress bar with ETA; nil shows none.
	Progress io.Writer
	// Log receives one line per run and per retry; nil discards.
	Log *slog.Logger
	// HTTPClient sends the model requests; nil means a default client.
	HTTPClient *http.Client
	// endpoints records which model and embeddings endpoints have answered
	// during the run (llm.Endpoints): one record for every client, set by
	// prepareWith.
	endpoints *llm.Endpoints
	// Generator is recorded as the program that wrote the runs; default "run-benchmark".
	Generator string
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
	// CorpusCache and RetrievalCache hold the built corpora and the
	// retrieval indexes and embeddings; "" means DefaultCorpusCache and
	// DefaultRetrievalCache. CorpusPython parses the source-1 code (ast,
	// never executing it); "" means corpus.DefaultPython.
	CorpusCache, RetrievalCache, CorpusPython string
	// LightRAGDir holds LightRAG 1.3.3's prompt texts (graph-rag;
	// LIGHTRAG_DATA; see docs/graphrag.md); GraphCache graph-rag's
	// indexes ("" means DefaultGraphCache).
	LightRAGDir, GraphCache string
	// Shard, when its Count is above 1, runs only the shard's part of the
	// plan's items (see Shard) into journals of its own
	// (OUT/.journal/<id>.shard-<i>-of-<n>.jsonl) and writes no results
	// file: Merge assembles the shards' journals into the results files.
	Shard Shard
	// PlanSHA256 identifies the plan (the SHA-256 of its file); it is
	// recorded in every journal session, and Merge refuses shards whose
	// plan differs.
	PlanSHA256 string
	// JournalSync is the journal's sync interval (0: DefaultJournalSync):
	// how long a finished question may wait before it is on disk and
	// counted done (the crash window; see the journal type).
	JournalSync time.Duration
	// Models, when not empty, runs only the runs of these models (the
	// plan's [[models]] name; an unknown name is an error): a cluster task
	// that serves one model runs that model's part of the plan (or of its
	// shard). The items keep their plan positions, so the shards of every
	// model together are the plan's shards, and Merge (which ignores
	// Models) merges them. It is no part of the journals' fingerprints.
	Models []string
	// BaseURLs gives a model (by its plan name) another base URL than the
	// plan's, for this process only ("{round}" is replaced as in the plan):
	// a cluster task pointing the model at the server it started. The
	// journal's session line records it (without credentials); the runs
	// record the plan's endpoint, and neither the plan's hash nor a
	// journal's fingerprint changes. An unknown name is an error.
	BaseURLs map[string]string
	// OnJournaled, if set, is called once for every question once its
	// journal line is synced (the question is then "done": a kill cannot
	// lose it), with the journal's id and the question's id.
	OnJournaled func(journalID, questionID string)
}

// Status is what happened to one run.
type Status string

// Statuses of a run.
const (
	StatusWritten     Status = "written"     // all questions answered, results file written
	StatusExists      Status = "exists"      // the results file existed already: skipped
	StatusFailed      Status = "failed"      // stopped by an error; the journal keeps what finished
	StatusInterrupted Status = "interrupted" // stopped by the context (Ctrl-C); resumable
	StatusJournaled   Status = "journaled"   // a shard's part is journaled whole; Merge writes the results file
)

// RunResult reports one run of the plan (one results file).
type RunResult struct {
	RunID string
	// Model is the run's model as shown to the user: the plan's
	// display_name, or its name (plan.Model.Label).
	Model  string
	Path   string // the results file
	Status Status
	Err    error // when Status is failed
	Items  int   // questions in the run
	Done   int   // questions journaled when the run stopped
	Usage  results.Usage
}

// ErrInterrupted is returned (wrapped) by Run when its context ended before
// the plan was complete; running the plan again resumes it.
var ErrInterrupted = errors.New("run interrupted; run the same plan again to resume")

// ReadAPIKeys returns the API keys the plan's models name, read with getenv
// (os.Getenv), and the names it read. A model whose api_key_env is unset or
// empty is an error naming the model and the variable.
func ReadAPIKeys(p *plan.Plan, getenv func(string) string) (map[string]string, error) {
	keys := map[string]string{}
	var errs []error
	for _, k := range KeyVariables(p) {
		v := getenv(k.Name)
		if v == "" {
			errs = append(errs, fmt.Errorf("%s: environment variable %s (its api_key_env) is not set", k.For, k.Name))
			continue
		}
		keys[k.Name] = v
	}
	return keys, errors.Join(errs...)
}

// KeyVariable is an environment variable a plan names for an API key, and
// what needs it ("model gpt-4o", "retrieval.embedding").
type KeyVariable struct{ Name, For string }

// KeyVariables lists the API-key variables of the plan: every model's
// api_key_env and, when a retrieving system uses the embedding method or
// retrieval source 3 (cut by the semantic chunker through that endpoint),
// retrieval.embedding.api_key_env. Callers unset them after reading them
// (ReadAPIKeys), so that no child process inherits a key.
func KeyVariables(p *plan.Plan) []KeyVariable {
	var out []KeyVariable
	for _, m := range p.Models {
		if m.APIKeyEnv != "" {
			out = append(out, KeyVariable{m.APIKeyEnv, "model " + m.Name})
		}
	}
	// The endpoint serves the embedding method, source 3's semantic
	// chunking (whatever the method) and the graph indexes (systems whose
	// Needs name a graph: graph-rag) and their queries.
	if e := p.Retrieval.Embedding; e != nil && e.APIKeyEnv != "" && (slices.Contains(p.Retrieval.Methods, plan.MethodEmbedding) ||
		slices.Contains(p.RetrievalSources, 3) || slices.ContainsFunc(p.Systems, func(s results.System) bool { return systems.NeedsOf(s).Graph })) {
		out = append(out, KeyVariable{e.APIKeyEnv, "retrieval.embedding"})
	}
	return out
}

// item is one question of a run.
type item struct {
	index int
	k     int // its position among all the plan's items, in plan order (Shard)
	id    string
	q     *datasets.Question   // tool usage
	qa    *datasets.QAQuestion // QA
}

// prepared is one configuration × round ready to execute: one generation
// of answers (one journal), written as one run per scoring protocol.
type prepared struct {
	pr          plan.Run
	sys         systems.System // the configured system (nil for QA)
	needs       systems.Needs  // what sys needs from the runner
	outs        []*output
	journalID   string
	journalPath string
	fingerprint string
	exists      bool // every output exists
	done        int  // journaled items (from a peek at the journal)
	// The run's items are built when needed (items) and dropped after, so
	// that memory does not grow with the plan's runs: n of them (this
	// shard's), from the tool-usage benchmark or the QA set, the first at
	// plan position first.
	n     int
	first int
	shard Shard
	bench *datasets.Benchmark
	qa    *datasets.QASet
}

// items returns p's items in question order: every question of its
// benchmark or QA set, with its position k among the plan's items, those of
// p's shard only when the plan is sharded. Each call builds a new slice
// (len p.n).
func (p *prepared) items() []item {
	out := make([]item, 0, p.n)
	if p.bench != nil {
		for i := range p.bench.Questions {
			if k := p.first + i; p.shard.Owns(k) {
				q := &p.bench.Questions[i]
				out = append(out, item{index: q.Index, k: k, id: q.ID, q: q})
			}
		}
		return out
	}
	for i := range p.qa.Questions {
		if k := p.first + i; p.shard.Owns(k) {
			q := &p.qa.Questions[i]
			out = append(out, item{index: q.Index, k: k, id: q.ID, qa: q})
		}
	}
	return out
}

// output is one run of a prepared configuration × round: one protocol.
type output struct {
	run    results.Run // the skeleton: everything but totals, usage and times
	path   string
	exists bool
}

// executorOf returns the systems.Executor that runs drafts through
// scorer's sandbox (scoring.Scorer.Execute), or nil when scorer cannot.
func executorOf(scorer Scorer) systems.Executor {
	ex, ok := scorer.(Executor)
	if !ok {
		return nil
	}
	timeout := scorer.Environment().Sandbox.TimeoutSeconds
	return func(ctx context.Context, q *datasets.Question, code, name string) (systems.Execution, error) {
		r, err := ex.Execute(ctx, q, scoring.Submission{Code: code, FunctionName: name})
		if err != nil {
			return systems.Execution{}, err
		}
		return systems.Execution{Stdout: string(r.Stdout), Stderr: string(r.Stderr), TimedOut: r.TimedOut, TimeoutSeconds: timeout,
			Dict: r.Dict(), Keys: r.Keys, NoneValues: r.NoneValues, Duration: r.Duration}, nil
	}
}

// systemParams returns the system parameters of configuration c.
func systemParams(c plan.Configuration) systems.Params {
	json := c.Model.JSONMode == nil || *c.Model.JSONMode // plan.Parse sets the default, true
	p := systems.Params{RetrievalSource: c.RetrievalSource, TopK: c.TopK, JSONMode: json,
		Variant: c.Variant, MaxIterations: c.MaxIterations, NameLookup: c.NameLookup, GraphMode: c.GraphMode, Settings: c.Settings}
	return p
}

// setGraphIndex records rec, a graph-rag run's index record
// (graphs.indexRecord), as the extension "graph_index" of p's runs.
func (p *prepared) setGraphIndex(rec json.RawMessage) {
	for _, out := range p.outs {
		if out.run.Extensions == nil {
			out.run.Extensions = map[string]json.RawMessage{}
		}
		out.run.Extensions["graph_index"] = rec
	}
}

// scored reports whether p's tool-usage answers are scored.
func (p *prepared) scored() bool {
	return p.pr.Benchmark.Kind() == results.KindToolUsage && p.outs[0].run.ScoringProtocol != ProtocolUnscored
}

type engine struct {
	o   Options
	log *slog.Logger
	// benches holds the loaded tool-usage-kind benchmarks, by name.
	benches map[results.Benchmark]*datasets.Benchmark
	prompts *systems.Prompts
	qaSets  map[string]*datasets.QASet
	// qaInfo holds, per loaded QA set (qaKey), its audit's baselines and,
	// for a variant, its VariantInfo: computed once for all its runs.
	qaInfo map[string]qaSetInfo
	ids    map[*datasets.QASet][]string // qaIDs
	runs   []*prepared
	nItems int // items of the runs prepared so far (before sharding)
	rr     *retrievers
	graphs *graphs
}

// prepare loads the data the plan needs and builds every run's skeleton.
func prepare(ctx context.Context, o Options) (*engine, error) { return prepareWith(ctx, o, false) }

// prepareWith is prepare; dry makes no request (a dry run: see retrievers).
func prepareWith(ctx context.Context, o Options, dry bool) (*engine, error) {
	if o.Plan == nil {
		return nil, errors.New("runner: no plan")
	}
	if o.Generator == "" {
		o.Generator = "run-benchmark"
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if err := o.Shard.Check(); err != nil {
		return nil, err
	}
	if err := checkModels(o); err != nil {
		return nil, err
	}
	if o.HTTPClient == nil {
		// One pool for every client of the run, sized to the concurrency.
		o.HTTPClient = llm.NewHTTPClient(max(o.Plan.Concurrency, llm.DefaultConns))
	}
	o.endpoints = &llm.Endpoints{}
	e := &engine{o: o, log: o.Log, qaSets: map[string]*datasets.QASet{}, qaInfo: map[string]qaSetInfo{}, rr: newRetrievers(o), graphs: newGraphs(o)}
	e.rr.dry = dry
	if e.log == nil {
		e.log = slog.New(slog.DiscardHandler)
	}
	var err error
	if e.prompts, err = systems.ObtainPrompts(ctx, o.DataRoot, o.PromptsDir, systems.ExtractOptions{Python: o.Python, CacheDir: o.PromptsCache}); err != nil {
		return nil, err
	}
	e.benches = map[results.Benchmark]*datasets.Benchmark{}
	if o.Benchmark != nil {
		if e.benches[results.BenchmarkToolUsage], err = correctedVersion(o.Benchmark, o.Plan.ToolUsage.BenchmarkVersion); err != nil {
			return nil, err
		}
	}
	for _, pr := range o.Plan.Runs() {
		if pr.Benchmark.Kind() == results.KindToolUsage && e.benches[pr.Benchmark] == nil {
			if e.benches[pr.Benchmark], err = loadBenchmark(pr.Benchmark, o.DataRoot, o.Plan.ToolUsage.BenchmarkVersion); err != nil {
				return nil, err
			}
		}
		if pr.Benchmark.Kind() == results.KindMultipleChoice && e.qaSets[qaKey(pr.QA)] == nil {
			set, err := datasets.LoadQA(pr.QA.Path)
			if err != nil {
				return nil, err
			}
			want, _, _ := results.FullQuestionSet(pr.Benchmark, results.BenchmarkVersion2025_05)
			if pr.QA.Name == results.QuestionSetAll && len(set.Questions) != want {
				return nil, fmt.Errorf("%s: %d questions, but the whole %s set has %d; give the subset a name of its own in qa_sets.%s.name",
					pr.QA.Path, len(set.Questions), pr.Benchmark, want, pr.Benchmark)
			}
			var info qaSetInfo
			if pr.QA.Variant != "" {
				vs, vi, err := qaaudit.Variant(set, pr.QA.Variant)
				if err != nil {
					return nil, fmt.Errorf("qa_sets.%s.variant: %w", pr.Benchmark, err)
				}
				set, info.variant = vs, &vi
			}
			info.baselines = qaaudit.Audit(pr.QA.QuestionSetName(), set).Baselines()
			e.qaSets[qaKey(pr.QA)], e.qaInfo[qaKey(pr.QA)] = set, info
		}
		p, err := e.prepareRun(pr)
		if err != nil {
			return nil, err
		}
		if len(o.Models) > 0 && !slices.Contains(o.Models, pr.Model.Name) {
			continue // another task's model: its items keep their positions (e.nItems)
		}
		e.runs = append(e.runs, p)
	}
	return e, nil
}

func (e *engine) prepareRun(pr plan.Run) (*prepared, error) {
	m := pr.Model
	protocols := pr.ScoringProtocols
	if pr.Benchmark.Kind() == results.KindToolUsage && e.o.Unscored {
		protocols = []string{ProtocolUnscored}
	}
	r := results.Run{
		FormatVersion:    results.FormatVersion,
		Benchmark:        pr.Benchmark,
		BenchmarkVersion: results.BenchmarkVersion2025_05,
		System:           pr.System,
		RetrievalSource:  pr.RetrievalSource,
		Model:            m.Name,
		ModelDisplayName: m.DisplayName,
		ModelGroup:       m.Group,
		Round:            pr.Round,
		Generation: results.GenerationParams{Temperature: m.Temperature, TopP: m.TopP, MaxTokens: m.MaxTokens, Seed: m.Seed,
			Source: "plan"},
		Provenance: results.Provenance{Kind: results.ProvenanceRunner, Source: append([]results.SourceFile(nil), e.prompts.Files...)},
		Endpoint:   llm.RedactURL(m.BaseURLFor(pr.Round)),
	}
	var sys systems.System
	var needs systems.Needs
	if pr.Benchmark.Kind() == results.KindToolUsage {
		var err error
		if sys, err = systems.New(pr.System, systemParams(pr.Configuration)); err != nil {
			return nil, err
		}
		needs = systems.NeedsOf(pr.System)
	}
	if needs.Retriever && pr.RetrievalMethod != "" {
		c, err := e.rr.corpus(pr.RetrievalSource)
		if err != nil {
			return nil, err
		}
		r.RetrievalMethod, r.CorpusID, r.TopK = pr.RetrievalMethod, c.ID, pr.TopK
		if c.Origin != "" {
			// Who wrote the LLM documentation and how it was cut (sources 3
			// and 4): a label, shown beside the retrieval source on the site,
			// outside the configuration (the corpus ID identifies the corpus).
			origin, _ := json.Marshal(c.Origin)
			r.Extensions = map[string]json.RawMessage{"corpus_origin": origin}
		}
		if pr.RetrievalMethod == plan.MethodEmbedding {
			emb := e.o.Plan.Retrieval.Embedding
			// The endpoint is part of the configuration: two servers may
			// serve different vectors under one model name.
			r.EmbeddingModel = emb.Model
			if r.SystemParams == nil {
				r.SystemParams = map[string]string{}
			}
			r.SystemParams["embedding_endpoint"] = llm.RedactURL(emb.BaseURL)
		}
	}
	if sys != nil {
		if _, ok := e.o.Scorer.(Executor); needs.Executor && !e.rr.dry && (!ok || e.o.Unscored) {
			return nil, fmt.Errorf("system %s executes its answers in the scoring sandbox: it cannot run without scoring", pr.System)
		}
		if err := sys.Record(&resources{e: e, pr: pr}, &r); err != nil {
			return nil, err
		}
		if ps, ok := sys.(systems.Prompted); ok {
			for _, rel := range ps.PromptFiles() {
				_, src, err := e.prompts.Text(rel)
				if err != nil {
					return nil, err
				}
				if !slices.Contains(r.Provenance.Source, src) {
					r.Provenance.Source = append(r.Provenance.Source, src)
				}
			}
		}
	}
	if ext, ok := results.BenchmarkRecord(pr.Benchmark); ok { // a folder benchmark describes itself on its runs
		r.Extensions = maps.Clone(r.Extensions)
		if r.Extensions == nil {
			r.Extensions = map[string]json.RawMessage{}
		}
		r.Extensions[results.ExtensionBenchmark] = ext
	}
	p := &prepared{pr: pr, sys: sys, needs: needs, first: e.nItems, shard: e.o.Shard}
	h := sha256.New()
	var all int // items before sharding
	if bench := e.benches[pr.Benchmark]; bench != nil {
		r.UpstreamCommit = bench.Commit
		if bench.Version != "" {
			r.BenchmarkVersion = bench.Version
		}
		r.QuestionSet = results.QuestionSet{Name: results.QuestionSetAll, Questions: len(bench.Questions), Properties: bench.Properties()}
		if protocols[0] != ProtocolUnscored {
			// Every question is asked (its code is kept for a later
			// rescoring); those whose data files are absent are data-missing.
			r.QuestionSet = scoring.QuestionSet(bench)
		}
		p.bench, all = bench, len(bench.Questions)
		for i := range bench.Questions {
			q := &bench.Questions[i]
			h.Write([]byte(q.ID + "\x00" + q.Text + "\x00"))
		}
	} else {
		set := e.qaSets[qaKey(pr.QA)]
		r.QuestionSet = results.QuestionSet{Name: pr.QA.QuestionSetName(), Questions: len(set.Questions)}
		p.qa, all = set, len(set.Questions)
		if r.QuestionSet.Name != results.QuestionSetAll {
			r.QuestionSet.IDs = e.qaIDs(set) // shared by the runs of the set: not modified
		}
		r.Provenance.Source = append(r.Provenance.Source, results.SourceFile{Path: sourcePath(e.o.DataRoot, set.Path), SHA256: set.SHA256})
		// The baselines of the set as asked (the variant's, for a variant),
		// which the QA board shows beside the run's accuracy, and for a
		// variant which one it is, of which set.
		info := e.qaInfo[qaKey(pr.QA)]
		ext := map[string]any{qaaudit.ExtensionBaselines: info.baselines}
		if info.variant != nil {
			vi := *info.variant
			vi.Of = pr.QA.Name
			ext[qaaudit.ExtensionVariant] = vi
		}
		r.Extensions = maps.Clone(r.Extensions)
		if r.Extensions == nil {
			r.Extensions = map[string]json.RawMessage{}
		}
		for k, v := range ext {
			b, err := json.Marshal(v)
			if err != nil {
				return nil, err
			}
			r.Extensions[k] = b
		}
	}
	p.exists = true
	for _, protocol := range protocols {
		out := &output{run: r}
		out.run.ScoringProtocol = protocol
		out.run.RunID = results.MakeRunID(&out.run)
		out.path = filepath.Join(e.o.OutDir, out.run.RunID+results.Extension)
		if _, err := os.Stat(out.path); err == nil {
			out.exists = true
		}
		p.exists = p.exists && out.exists
		p.outs = append(p.outs, out)
	}
	// One journal per configuration × round: a scored one holds the
	// outcomes of every protocol, so it serves any of them.
	p.journalID = p.outs[0].run.RunID
	if p.scored() {
		j := r
		j.ScoringProtocol = "scored"
		p.journalID = results.MakeRunID(&j)
	}
	// The fingerprint covers what must not change while a run is resumed.
	fp, _ := json.Marshal(struct {
		RunID      string
		Generation results.GenerationParams
		Set        results.QuestionSet
		Sources    []results.SourceFile
		Questions  string
	}{p.journalID, r.Generation, r.QuestionSet, r.Provenance.Source, hex.EncodeToString(h.Sum(nil))})
	sum := sha256.Sum256(fp)
	p.fingerprint = hex.EncodeToString(sum[:])
	p.journalPath = filepath.Join(e.o.OutDir, JournalDir, p.journalID+".jsonl")
	e.nItems += all
	p.n = all
	if s := e.o.Shard; s.Count > 1 {
		// A shard writes no results file: it journals its own items.
		p.exists = false
		for _, out := range p.outs {
			out.exists = false
		}
		p.journalPath = filepath.Join(e.o.OutDir, JournalDir, p.journalID+s.Suffix()+".jsonl")
		p.n = 0
		for k := p.first; k < p.first+all; k++ {
			if s.Owns(k) {
				p.n++
			}
		}
	}
	if p.exists {
		p.done = p.n
	} else {
		var err error
		if p.done, err = journal.Peek(p.journalPath); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// qaSetInfo is what the runs of one loaded QA set record of it.
type qaSetInfo struct {
	baselines qaaudit.Baselines
	variant   *qaaudit.VariantInfo // nil: the set as published
}

// qaKey keys the loaded QA sets: the file and the variant.
func qaKey(q *plan.QA) string { return q.Path + "\x00" + q.Variant }

// qaIDs returns the question IDs of set, in order, one slice per set for
// all the runs that record them (results.QuestionSet.IDs).
func (e *engine) qaIDs(set *datasets.QASet) []string {
	if ids, ok := e.ids[set]; ok {
		return ids
	}
	ids := make([]string, len(set.Questions))
	for i := range set.Questions {
		ids[i] = set.Questions[i].ID
	}
	if e.ids == nil {
		e.ids = map[*datasets.QASet][]string{}
	}
	e.ids[set] = ids
	return ids
}

// sourcePath returns path relative to root when it lies inside it, else its base name.
func sourcePath(root, path string) string {
	if rel, err := filepath.Rel(root, path); err == nil && !strings.HasPrefix(rel, "..") && !filepath.IsAbs(rel) {
		return filepath.ToSlash(rel)
	}
	return filepath.Base(path)
}

// Run executes every run of the plan in plan order (round-major), each with
// up to the plan's concurrency of questions in flight, and returns one
// RunResult per run. A run that fails (the model stays unreachable after
// retries, a scorer fails) is reported and the next run starts; the
// returned error joins those failures. When ctx ends, the runs stop at once,
// their journals keeping every finished question, and the error wraps
// ErrInterrupted.
func Run(ctx context.Context, o Options) ([]RunResult, error) {
	e, err := prepare(ctx, o)
	if err != nil {
		return nil, err
	}
	for _, p := range e.runs {
		m := p.pr.Model
		if !p.exists && m.APIKeyEnv != "" && o.APIKeys[m.APIKeyEnv] == "" {
			return nil, fmt.Errorf("model %s: no API key: environment variable %s is not set", m.Name, m.APIKeyEnv)
		}
		if e := o.Plan.Retrieval.Embedding; e != nil && !p.exists && (p.pr.RetrievalMethod == plan.MethodEmbedding || p.pr.RetrievalSource == 3 ||
			p.needs.Graph) &&
			e.APIKeyEnv != "" && o.APIKeys[e.APIKeyEnv] == "" {
			return nil, fmt.Errorf("retrieval.embedding: no API key: environment variable %s is not set", e.APIKeyEnv)
		}
		if !p.exists && p.scored() && o.Scorer == nil {
			return nil, errors.New("runner: tool-usage runs need a Scorer (a sandbox) to be scored; set Unscored to write them unscored")
		}
	}
	pending := 0
	for _, p := range e.runs {
		pending += p.n - p.done
	}
	var bar *progressbar.ProgressBar
	if o.Progress != nil && pending > 0 {
		bar = progressbar.NewOptions64(int64(pending), progressbar.OptionSetWriter(o.Progress),
			progressbar.OptionSetDescription("questions"), progressbar.OptionShowCount(), progressbar.OptionSetPredictTime(true),
			progressbar.OptionSetElapsedTime(true), progressbar.OptionThrottle(200*time.Millisecond), progressbar.OptionSetWidth(30),
			progressbar.OptionShowElapsedTimeOnFinish())
	}
	var out []RunResult
	var errs []error
	for _, p := range e.runs {
		if ctx.Err() != nil {
			break
		}
		res := e.execute(ctx, p, bar)
		out = append(out, res...)
		for _, r := range res {
			if r.Status == StatusFailed {
				errs = append(errs, fmt.Errorf("run %s: %w", r.RunID, r.Err))
				break // the runs of one configuration × round fail together
			}
		}
	}
	if bar != nil {
		bar.Exit()
		fmt.Fprintln(o.Progress)
	}
	if ctx.Err() != nil {
		errs = append(errs, fmt.Errorf("%w (%v)", ErrInterrupted, context.Cause(ctx)))
	}
	return out, errors.Join(errs...)
}

// execute runs one prepared configuration × round to completion, failure
// or interruption, and reports each of its runs. A failed or interrupted
// configuration × round reports every run that is not written with the
// same status and error.
func (e *engine) execute(ctx context.Context, p *prepared, bar *progressbar.ProgressBar) []RunResult {
	res := make([]RunResult, len(p.outs))
	for i, out := range p.outs {
		res[i] = RunResult{RunID: out.run.RunID, Model: p.pr.Model.Label(), Path: out.path, Items: p.n}
		if out.exists {
			res[i].Status, res[i].Done = StatusExists, p.n
		}
	}
	if p.exists {
		for _, out := range p.outs {
			e.log.Info("run exists, skipped", "model", p.pr.Model.Label(), "run", out.run.RunID, "file", out.path)
		}
		return res
	}
	set := func(status Status, err error, done int) []RunResult {
		for i := range res {
			if res[i].Status == "" {
				res[i].Status, res[i].Err, res[i].Done = status, err, done
			}
		}
		return res
	}
	fail := func(err error, done int) []RunResult {
		e.log.Error("run failed; run the plan again to resume it", "model", p.pr.Model.Label(), "run", p.journalID, "done", done, "of", p.n, "error", err)
		return set(StatusFailed, err, done)
	}
	var scorer Scorer
	var senv *scoring.Environment
	if p.scored() {
		scorer = e.o.Scorer
		se := scorer.Environment()
		senv = &se
	}
	// The system's answerer first, from the resources it needs: a corpus
	// that cannot be embedded or a graph index that cannot be built fails
	// the run before any journal is opened.
	var answerer systems.Answerer
	rs := &resources{e: e, pr: p.pr, scorer: scorer}
	if p.sys != nil {
		var err error
		if answerer, err = p.sys.Build(ctx, rs); err != nil {
			if errors.Is(err, errIndexInterrupted) {
				e.log.Warn("graph index interrupted; run the plan again to resume it (its journal keeps every finished chunk)", "run", p.journalID)
				return set(StatusInterrupted, nil, 0)
			}
			return fail(err, 0)
		}
		if rs.graphRec != nil {
			p.setGraphIndex(rs.graphRec)
		}
	}
	sess := journal.Line{BaseURL: llm.RedactURL(e.baseURL(p)), Scoring: senv, PlanSHA256: e.o.PlanSHA256,
		Generator: e.o.Generator, GeneratorVersion: generatorVersion(), GraphIndex: rs.graphRec}
	if e.o.Shard.Count > 1 {
		sess.Shard = e.o.Shard.String()
	}
	var live *liveSource // set before the first append
	j, err := journal.Open(p.journalPath, p.journalID, p.fingerprint, e.o.Now(), journal.Options{Session: sess, Every: e.o.JournalSync,
		OnDurable: func(index int, id string) {
			// Reported done only once on disk.
			if live != nil {
				live.markDurable(index)
			}
			if bar != nil {
				bar.Add(1)
			}
			if e.o.OnJournaled != nil {
				e.o.OnJournaled(p.journalID, id)
			}
		}})
	if err != nil {
		return fail(err, 0)
	}
	defer j.Close()

	m := p.pr.Model
	client, err := e.modelClient(p)
	if err != nil {
		return fail(err, j.Count())
	}
	env := systems.Env{LLM: client, Prompts: e.prompts}

	items := p.items()
	var todo []item
	for _, it := range items {
		if !j.Done(it.index) {
			todo = append(todo, it)
		}
	}
	e.log.Info("run started", "model", m.Label(), "run", p.journalID, "questions", len(items), "todo", len(todo))
	if bar != nil {
		bar.Describe(m.Label())
	}
	workers := e.o.Plan.Concurrency
	if m.MaxConcurrency > 0 {
		workers = min(workers, m.MaxConcurrency)
	}
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The results files are written while the questions are answered
	// (liveSource), unless this is one shard of the plan.
	var assembled chan error
	if e.o.Shard.Count <= 1 {
		live = newLiveSource(j, items)
		for _, out := range p.outs {
			if !out.exists {
				removeStaleTemps(out.path)
			}
		}
		src := &lineSource{desc: "journal " + j.Path(), read: live.read, sessions: j.Sessions(), resumed: max(len(j.Sessions())-1, 0)}
		assembled = make(chan error, 1)
		go func() { // res is read after
			err := e.writeOuts(p, src, senv, res, p.n, "run written")
			if err != nil && !errors.Is(err, errLiveStopped) {
				e.log.Error("writing the results files failed; the answers still go into the journal, and the run fails at its end",
					"run", p.journalID, "error", err)
			}
			assembled <- err
		}()
	}
	firstErr := e.answerAll(ctx, rctx, cancel, p, todo, workers, answerer, scorer, env, j, live)
	if err := j.Flush(); err != nil && firstErr == nil {
		firstErr = err
	}
	var writeErr error
	if live != nil {
		// Every line is on disk: the writer finishes, or (a question
		// missing) fails and leaves no file.
		live.stop()
		writeErr = <-assembled
	}
	done := j.Count()
	if ctx.Err() != nil {
		e.log.Warn("run interrupted; run the plan again to resume it", "model", m.Label(), "run", p.journalID, "done", done, "of", p.n)
		return set(StatusInterrupted, nil, done)
	}
	if firstErr != nil {
		return fail(firstErr, done)
	}
	if e.o.Shard.Count > 1 {
		e.log.Info("shard journaled", "model", m.Label(), "run", p.journalID, "shard", e.o.Shard.String(), "questions", done, "journal", p.journalPath)
		return set(StatusJournaled, nil, done)
	}
	if writeErr != nil {
		return fail(writeErr, done)
	}
	return res
}

// baseURL returns the base URL p's model is asked at: Options.BaseURLs'
// for it, else the plan's, for p's round.
func (e *engine) baseURL(p *prepared) string {
	m := p.pr.Model
	if u, ok := e.o.BaseURLs[m.Name]; ok {
		return strings.ReplaceAll(u, "{round}", strconv.Itoa(p.pr.Round))
	}
	return m.BaseURLFor(p.pr.Round)
}

// checkModels checks that o.Models and o.BaseURLs name models of the plan
// and that every base URL given is an absolute http(s) URL.
func checkModels(o Options) error {
	names := make([]string, len(o.Plan.Models))
	for i, m := range o.Plan.Models {
		names[i] = m.Name
	}
	var errs []error
	for _, n := range o.Models {
		if !slices.Contains(names, n) {
			errs = append(errs, fmt.Errorf("model %q: the plan has no such model (its models: %s)", n, strings.Join(names, ", ")))
		}
	}
	for _, n := range slices.Sorted(maps.Keys(o.BaseURLs)) {
		if !slices.Contains(names, n) {
			errs = append(errs, fmt.Errorf("base URL of model %q: the plan has no such model (its models: %s)", n, strings.Join(names, ", ")))
			continue
		}
		u, err := url.Parse(strings.ReplaceAll(o.BaseURLs[n], "{round}", "1"))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("base URL of model %q: %q is not an absolute http(s) URL", n, llm.RedactURL(o.BaseURLs[n])))
		}
	}
	return errors.Join(errs...)
}

// modelClient returns the client of p's model as the plan configures it
// (its round's endpoint, sampling parameters, timeout, retries and rate).
func (e *engine) modelClient(p *prepared) (*llm.Client, error) {
	m := p.pr.Model
	retries := *m.MaxRetries
	if retries == 0 {
		retries = llm.NoRetries // the plan's 0 means none; llm's 0 means its default
	}
	return llm.New(llm.Config{
		BaseURL: e.baseURL(p), APIKey: e.o.APIKeys[m.APIKeyEnv], Model: m.Name,
		Params:  llm.Params{Temperature: m.Temperature, TopP: m.TopP, MaxTokens: m.MaxTokens, Seed: m.Seed},
		Timeout: m.Timeout.Duration, MaxRetries: retries, RequestsPerMinute: m.RequestsPerMinute, RetryTimeouts: m.RetryTimeouts, HTTPClient: e.o.HTTPClient,
		Endpoints: e.o.endpoints,
		OnRetry: func(attempt int, err error, delay time.Duration) {
			e.log.Warn("retrying", "model", m.Label(), "run", p.journalID, "attempt", attempt, "delay", delay.Round(time.Millisecond), "error", err)
		},
	})
}

// answerAll answers and journals the todo items of p with workers
// goroutines, offering each line to live (when set) before it can be
// durable. The first failure (unless ctx itself ended) cancels rctx, a
// child of ctx, and is returned; the items not yet started are not.
func (e *engine) answerAll(ctx, rctx context.Context, cancel context.CancelFunc, p *prepared, todo []item, workers int,
	answerer systems.Answerer, scorer Scorer, env systems.Env, j *journal.Journal, live *liveSource) error {
	var (
		mu       sync.Mutex
		firstErr error
		wg       sync.WaitGroup
		jobs     = make(chan item)
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := range jobs {
				line, err := e.answer(rctx, p, it, answerer, scorer, env)
				if err == nil {
					if live != nil {
						live.offer(line) // before the line can be durable
					}
					err = j.Append(line)
				}
				if err != nil {
					if rctx.Err() == nil || !errors.Is(err, context.Canceled) {
						mu.Lock()
						if firstErr == nil && ctx.Err() == nil {
							firstErr = fmt.Errorf("question %s: %w", it.id, err)
						}
						mu.Unlock()
					}
					cancel()
					continue
				}
			}
		}()
	}
feed:
	for _, it := range todo {
		select {
		case jobs <- it:
		case <-rctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	return firstErr
}

// writeOuts assembles from src and writes every results file of p not yet
// on disk, marking it written in res with done questions, and logs msg for
// each (a run's own journal, or the merged journals of its shards).
func (e *engine) writeOuts(p *prepared, src *lineSource, senv *scoring.Environment, res []RunResult, done int, msg string) error {
	for i, out := range p.outs {
		if out.exists {
			continue
		}
		usage, err := e.writeOut(p, out, src, senv)
		if err != nil {
			return err
		}
		res[i].Status, res[i].Done, res[i].Usage = StatusWritten, done, usage
		e.log.Info(msg, "model", p.pr.Model.Label(), "run", out.run.RunID, "file", out.path, "prompt_tokens", res[i].Usage.PromptTokens,
			"completion_tokens", res[i].Usage.CompletionTokens)
	}
	return nil
}

// implausibleUsage counts, per prepared run, the model calls of this
// process whose server-reported usage was implausible (llm.UsageAudit);
// assemble names the count in the run's warnings. (Counts of an earlier
// session of a resumed run are not in the journal, so not included.)
var implausibleUsage sync.Map // *prepared → *atomic.Int64

// qaRefused counts, per prepared QA run, the questions of this process the
// server refused as longer than the model's context (recorded unanswered);
// assemble names the count in the run's warnings. A tool-usage question's
// refusal is in its row (FinishContextLength, scoring.CauseContextLength).
var qaRefused sync.Map // *prepared → *atomic.Int64

// FinishContextLength is the finish reason recorded for a tool-usage
// question whose model call the server refused as longer than the
// model's context window (llm.ErrContextLength): no answer was generated.
const FinishContextLength = "context_length_exceeded"

// Caps of what answer stores: the model's answer text is stored
// capped at a UTF-8 boundary, with its original length; generated code is
// never cut: code over maxCodeBytes is refused whole (empty code, verdict
// cause scoring.CauseCodeTooLarge).
const (
	maxStoredResponseBytes = llm.DefaultMaxCompletionBytes // 1 MiB
	maxCodeBytes           = 256 << 10
)

// answer asks one question and scores the answer, returning its journal line.
func (e *engine) answer(ctx context.Context, p *prepared, it item, sys systems.Answerer, scorer Scorer, env systems.Env) (journal.Line, error) {
	l := journal.Line{Kind: "item", Index: it.index, ID: it.id}
	var u systems.Usage
	audit := &llm.UsageAudit{}
	ctx = llm.WithUsageAudit(ctx, audit)
	defer func() {
		if n := audit.Implausible(); n > 0 {
			v, _ := implausibleUsage.LoadOrStore(p, new(atomic.Int64))
			v.(*atomic.Int64).Add(n)
		}
	}()
	if it.q != nil {
		g, err := sys.Generate(ctx, it.q, env)
		// A call refused as longer than the model's context is the
		// question's outcome, not the run's failure: no answer, recorded
		// with finish reason FinishContextLength and cause
		// scoring.CauseContextLength (docs/runner.md, "Local servers").
		refused := err != nil && errors.Is(err, llm.ErrContextLength) && ctx.Err() == nil
		if refused {
			e.log.Warn("the server refused a call as longer than the model's context window; recorded as the question's outcome",
				"run", p.journalID, "question", it.id, "error", err)
			g.Code, g.FunctionName, g.Response, g.FinishReason, err = "", "", "", FinishContextLength, nil
		}
		if err != nil {
			return l, err
		}
		u = g.Usage
		// Code and verdicts come from the whole answer; only the stored text is capped.
		code, tooLarge := g.Code, len(g.Code) > maxCodeBytes
		if tooLarge {
			code = ""
		}
		resp := llm.CapText(g.Response, maxStoredResponseBytes)
		l.Question = &results.QuestionRow{QuestionIndex: int32(it.q.Index), QuestionID: it.q.ID, PropertyCount: int32(len(it.q.Properties)),
			Code: code, FunctionName: g.FunctionName, Verdict: string(results.VerdictUnknown), Response: &resp,
			FinishReason: &g.FinishReason, Attempts: ptr(int32(u.Attempts)), PromptTokens: &u.PromptTokens,
			CompletionTokens: &u.CompletionTokens, LatencyMS: ptr(u.Latency.Milliseconds()),
			ResponseBytes: ptr(int64(len(g.Response))), // the original length, ≥ the stored text's
			Retrieved:     g.Retrieved, Trace: g.Trace}
		if tooLarge {
			l.Question.VerdictCause = scoring.CauseCodeTooLarge // also recorded when unscored
		}
		if refused {
			l.Question.VerdictCause = scoring.CauseContextLength // also recorded when unscored
		}
		if scorer != nil {
			s, err := scorer.Score(ctx, it.q, scoring.Submission{Code: code, FunctionName: g.FunctionName})
			if err != nil {
				return l, fmt.Errorf("scoring: %w", err)
			}
			if tooLarge || refused {
				cause := scoring.CauseCodeTooLarge
				if refused {
					cause = scoring.CauseContextLength
				}
				for _, o := range []*scoring.Outcome{&s.V1, &s.Strict} {
					if o.Cause == scoring.CauseEmptyCode {
						o.Cause = cause
					}
				}
			}
			s.Trim()
			l.Scored = s
		}
	} else {
		a, err := systems.AnswerQA(ctx, it.qa, env)
		if err != nil && errors.Is(err, llm.ErrContextLength) && ctx.Err() == nil {
			// The question's outcome: no answer (scored incorrect), counted
			// in the run's warnings.
			e.log.Warn("the server refused the question as longer than the model's context window; recorded as unanswered",
				"run", p.journalID, "question", it.id, "error", err)
			a, err = systems.QAAnswer{}, nil
			v, _ := qaRefused.LoadOrStore(p, new(atomic.Int64))
			v.(*atomic.Int64).Add(1)
		}
		if err != nil {
			return l, err
		}
		s := scoring.QAScoreAnswer(a.Response, it.qa.CorrectAnswer)
		text := llm.CapText(a.Response, maxStoredResponseBytes)
		l.QA = &results.QAItem{ItemIndex: int32(it.qa.Index), Item: it.qa.ID, Questions: 1, Correct: b2i(s.Correct),
			CorrectLenient: ptr(b2i(s.CorrectLenient)), AnswerText: &text, ExtractedStrict: &s.Strict,
			ExtractedLenient: &s.Lenient, CorrectAnswer: &it.qa.CorrectAnswer, AnswerTextBytes: ptr(int64(len(a.Response)))}
		u = a.Usage
		l.QA.PromptTokens, l.QA.CompletionTokens, l.QA.LatencyMS = &u.PromptTokens, &u.CompletionTokens, ptr(u.Latency.Milliseconds())
	}
	if audit.Missing() > 0 {
		// A call answered without usage: the question's tokens are
		// unknown (null), not 0, and so is the run's cost.
		if l.Question != nil {
			l.Question.PromptTokens, l.Question.CompletionTokens = nil, nil
		} else {
			l.QA.PromptTokens, l.QA.CompletionTokens = nil, nil
		}
	}
	l.Calls, l.Attempts = u.Calls, u.Attempts
	t := e.o.Now().UTC()
	l.FinishedAt = &t
	return l, nil
}

func ptr[T any](v T) *T { return &v }

func b2i(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

// lineSource is where assemble reads a run's journal lines: one journal,
// or the shards' journals (Merge).
type lineSource struct {
	desc string // "journal <path>", for errors
	read func(it item) (journal.Line, bool, error)
	// sessions are the session lines; resumed is the number of sessions
	// that continued an interrupted one (len(sessions)−1 for one journal;
	// for shards, the sum over the shards).
	sessions   []journal.Line
	resumed    int
	generator  string          // the shards' generator (Merge)
	graphIndex json.RawMessage // the shards' graph index record, of a graph-rag run (Merge)
}

// writeOut writes the results file of run out, complete, from the journal
// lines of src, streaming its rows to the results writer one journal line
// at a time (a run's memory does not grow with its rows; the
// tool-usage rows' outcomes, at most a benchmark's questions, are kept for
// the totals); senv is the scorer's environment for a scored run. It
// returns the run's usage.
func (e *engine) writeOut(p *prepared, out *output, src *lineSource, senv *scoring.Environment) (results.Usage, error) {
	run := out.run
	r := &run
	r.Environment = results.Environment{Generator: e.o.Generator, GeneratorVersion: generatorVersion(), GoVersion: runtime.Version(),
		Libraries: libraryVersions()}
	if senv != nil {
		sb := senv.Sandbox
		r.Environment.Sandbox = &sb
		for k, v := range senv.Libraries {
			r.Environment.Libraries[k] = v
		}
	}
	w, err := results.NewStreamWriter(out.path, r)
	if err != nil {
		return results.Usage{}, err
	}
	defer w.Abort() // after Close, nothing
	usage := &results.Usage{}
	// Usage from the server is not trusted (the client already replaces a
	// call's negative or implausibly large count by 0 and counts the call):
	// a journal row's negative count, or one above llm.MaxPlausibleTokens
	// per call, is counted as unknown (0), and the sums saturate.
	var badRows int64
	satAdd := func(a, b int64) int64 {
		if b > math.MaxInt64-a {
			return math.MaxInt64
		}
		return a + b
	}
	var unknownRows, refusedRows int64
	addUsage := func(pt, ct *int64, calls int) {
		if pt == nil && ct == nil && calls > 0 {
			unknownRows++ // a call was answered without usage (answer)
		}
		bound := llm.MaxPlausibleTokens * int64(max(calls, 1))
		bad := false
		add := func(sum *int64, n int64) {
			if n < 0 || n > bound {
				bad = true
				return
			}
			*sum = satAdd(*sum, n)
		}
		add(&usage.PromptTokens, deref(pt))
		add(&usage.CompletionTokens, deref(ct))
		if bad {
			badRows++
		}
	}
	var qaCorrect, qaLenient int
	var qaFormat qaaudit.Format
	// The rows in index order (the items are; a copy is sorted otherwise).
	items := p.items()
	byIndex := func(a, b item) int { return a.index - b.index }
	if !slices.IsSortedFunc(items, byIndex) {
		items = slices.SortedFunc(slices.Values(items), byIndex)
	}
	var outcomes []results.QuestionRow // the tool-usage rows' outcomes only, for the totals
	for _, it := range items {
		l, ok, err := src.read(it)
		if err != nil {
			return results.Usage{}, err
		}
		if !ok {
			return results.Usage{}, fmt.Errorf("%s: question %s is missing", src.desc, it.id)
		}
		if l.ID != it.id || (it.q != nil) != (l.Question != nil) || (it.q == nil && l.QA == nil) {
			return results.Usage{}, fmt.Errorf("%s: item %d is %q, but the run's question %d is %q", src.desc, it.index, l.ID, it.index, it.id)
		}
		usage.Calls = satAdd(usage.Calls, max(int64(l.Calls), 0))
		if it.q != nil {
			row := l.Question
			if senv != nil {
				if l.Scored == nil {
					return results.Usage{}, fmt.Errorf("%s: question %s has no scoring outcome; delete the journal to run it again", src.desc, it.id)
				}
				if err := l.Scored.FillRow(row, r.ScoringProtocol); err != nil {
					return results.Usage{}, fmt.Errorf("%s: question %s: %w", src.desc, it.id, err)
				}
			}
			addUsage(row.PromptTokens, row.CompletionTokens, l.Calls)
			if row.FinishReason != nil && *row.FinishReason == FinishContextLength {
				refusedRows++
			}
			outcomes = append(outcomes, results.QuestionRow{QuestionID: row.QuestionID, Verdict: row.Verdict, Runnable: row.Runnable,
				PropertiesPassed: row.PropertiesPassed})
			err = w.WriteQuestion(row)
		} else {
			row := l.QA
			addUsage(row.PromptTokens, row.CompletionTokens, l.Calls)
			qaCorrect += int(row.Correct)
			qaLenient += int(deref(row.CorrectLenient))
			qaFormat.Add(derefString(row.ExtractedStrict), derefString(row.ExtractedLenient), derefString(row.CorrectAnswer))
			err = w.WriteQAItem(row)
		}
		if err != nil {
			return results.Usage{}, err
		}
	}
	switch {
	case r.Benchmark.Kind() == results.KindMultipleChoice:
		r.Totals = results.Totals{Scored: true, Questions: r.QuestionSet.Questions, Correct: &qaCorrect, CorrectLenient: &qaLenient}
		b, err := json.Marshal(qaFormat)
		if err != nil {
			return results.Usage{}, err
		}
		r.Extensions = maps.Clone(r.Extensions) // the skeleton's map is shared
		if r.Extensions == nil {
			r.Extensions = map[string]json.RawMessage{}
		}
		r.Extensions[qaaudit.ExtensionFormat] = b
	case senv != nil:
		var missing []string
		r.Totals, missing = scoring.Tally(outcomes, r.QuestionSet)
		r.Warnings = append(r.Warnings, scoring.Warnings(r.Environment.Sandbox, p.bench, r.QuestionSet, missing)...)
	default:
		r.Totals = results.Totals{Questions: r.QuestionSet.Questions, Properties: r.QuestionSet.Properties}
		r.Warnings = append(r.Warnings, fmt.Sprintf("not scored: generated code only (run with scoring off); the plan asks for %s",
			strings.Join(p.pr.ScoringProtocols, " and ")))
	}
	var calls int64
	if v, ok := implausibleUsage.Load(p); ok {
		calls = v.(*atomic.Int64).Load()
	}
	if calls > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("usage: %d model call(s) reported implausible token counts (negative, or above %d per call); "+
			"they are counted as unknown (0), so the usage totals are lower bounds", calls, llm.MaxPlausibleTokens))
	}
	if badRows > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("usage: %d journal row(s) held negative or implausible token counts; "+
			"they are counted as unknown (0), so the usage totals are lower bounds", badRows))
	}
	if v, ok := qaRefused.Load(p); ok {
		refusedRows += v.(*atomic.Int64).Load()
	}
	if refusedRows > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("context: the server refused %d question(s) as longer than the model's context window; "+
			"they are recorded unanswered (finish reason %s, cause %s)", refusedRows, FinishContextLength, scoring.CauseContextLength))
	}
	if unknownRows > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("usage: the server reported no token usage for %d question(s) (their tokens are null); "+
			"the usage totals are lower bounds and the cost is unknown", unknownRows))
	}
	if price := p.pr.Model.Price; price != nil && unknownRows == 0 {
		usage.CostUSD = ptr(price.Cost(usage.PromptTokens, usage.CompletionTokens))
	}
	r.Usage = usage
	for _, sl := range src.sessions {
		if sl.StartedAt != nil && (r.StartedAt == nil || sl.StartedAt.Before(*r.StartedAt)) {
			r.StartedAt = sl.StartedAt
		}
	}
	if n := src.resumed + 1; n > 1 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("resumed: the run was interrupted and written over %d sessions", n))
	}
	fin := e.o.Now().UTC()
	r.FinishedAt = &fin
	if err := w.Close(r); err != nil {
		return results.Usage{}, err
	}
	return *usage, nil
}

func derefString(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func deref[T int32 | int64](p *T) T {
	if p == nil {
		return 0
	}
	return *p
}

// recordedModules are the modules whose versions every run records.
var recordedModules = []string{"github.com/sashabaranov/go-openai", "github.com/parquet-go/parquet-go", "github.com/BurntSushi/toml"}

// libraryVersions returns the versions of recordedModules linked into this
// binary ("unknown" when the build carries no module information).
func libraryVersions() map[string]string {
	out := map[string]string{}
	for _, m := range recordedModules {
		out[m] = "unknown"
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if _, want := out[d.Path]; want {
				v := d.Version
				if d.Replace != nil {
					v = d.Replace.Version + " (replaces " + d.Version + ")"
				}
				out[d.Path] = v
			}
		}
	}
	return out
}

// generatorVersion is journal.GeneratorVersion.
func generatorVersion() string { return journal.GeneratorVersion() }
