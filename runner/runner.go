// Package runner executes a run plan: it expands the plan (runner/plan) into
// configurations × rounds, asks each question to the configured system
// (runner/systems) through an OpenAI-compatible client (llm), scores
// the answers (QA: runner/scoring; tool usage: a Scorer, which runs the code
// in a sandbox and yields the verdicts of every scoring protocol at once)
// and writes one results file per run (results format v3,
// results.FormatVersion; provenance "runner") into the output directory,
// atomically: one per scoring protocol the plan asks for, all from the same
// answers and executions.
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
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/mattools-leaderboard/leaderboard/datasets"
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
	// Items are the questions the run asks: every question of its
	// benchmark or QA set (of its shard, in a sharded run), including
	// those without data files.
	Items int
	// Done are the questions of Items journaled when the run stopped
	// (asked and answered; a question without data files counts when
	// answered, though it is not executed).
	Done int
	// WithoutData are the questions of Items whose data files are absent
	// (datasets.Question.Executable false) in a scored tool-usage run: asked
	// but not executed, outside the run's question set (scoring.QuestionSet);
	// 0 for any other run.
	WithoutData int
	Usage       results.Usage
	// Run is the run as its results file records it, without its rows:
	// totals, question set and warnings; set when Status is written or
	// exists (nil when the existing file could not be read, which is
	// logged), nil otherwise.
	Run *results.Run
}

// newResults returns p's runs' results before p is executed or merged:
// those whose results file exists are reported as exists, with the run
// and usage their file records.
func (e *engine) newResults(p *prepared) []RunResult {
	res := make([]RunResult, len(p.outs))
	without := p.withoutData()
	for i, out := range p.outs {
		res[i] = RunResult{RunID: out.run.RunID, Model: p.pr.Model.Label(), Path: out.path, Items: p.n, WithoutData: without}
		if out.exists {
			res[i].Status, res[i].Done = StatusExists, p.n
			s, err := results.ReadSummary(out.path, results.SummaryOptions{Compact: true})
			if err != nil {
				e.log.Warn("the existing results file cannot be read; its totals are not shown", "run", out.run.RunID, "file", out.path, "error", err)
				continue
			}
			res[i].Run = &s.File.Run
			if u := s.File.Run.Usage; u != nil {
				res[i].Usage = *u
			}
		}
	}
	return res
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

// withoutData counts p's items whose data files are absent when p is a
// scored tool-usage run (asked, not executed: RunResult.WithoutData); 0
// otherwise.
func (p *prepared) withoutData() int {
	if p.bench == nil || !p.scored() {
		return 0
	}
	n := 0
	for _, it := range p.items() {
		if !it.q.Executable() {
			n++
		}
	}
	return n
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
	res := e.newResults(p)
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
	// Asked: every question; scored (in a scored tool-usage run): those
	// with their data files, the run's question set.
	started := []any{"model", m.Label(), "run", p.journalID, "asked", len(items)}
	if n := p.withoutData(); n > 0 {
		started = append(started, "scored", len(items)-n, "without_data_files", n)
	}
	e.log.Info("run started", append(started, "todo", len(todo))...)
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

// generatorVersion is journal.GeneratorVersion.
func generatorVersion() string { return journal.GeneratorVersion() }
