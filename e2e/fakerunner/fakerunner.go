// Package fakerunner produces, through this project's real runner
// (runner.Run) and its real sandbox scoring (runner/scoring on
// sandbox), the results files of a fake model, Model, that answers
// every tool-usage question with a syntactically valid Python function
// returning a dict of the question's property names, each mapped to None.
//
// Such a model is "runnable" on every executable question (any returned
// dict counts) but computes nothing, so it passes (almost) no property: a
// leaderboard ranked by task success rate must put it below GPT-4o although
// its function runnable rate is 100.
//
// The model is served by llm/llmtest, a loopback OpenAI-compatible
// server on 127.0.0.1; the runner asks it every question of the benchmark
// (single-llm system, rounds 1–3) and scores each answer under
// mattools-v1 and mattools-v1-strict: 6 results files. The answers are the
// same in every round, so by default each question's code is executed in
// the sandbox once, in round 1, and later rounds get a copy of that outcome
// (ExecuteEveryRound turns this off). Questions whose data
// files are absent from the data root are data-missing, and the runs'
// question set is the executable subset (executable-…/28 with
// this project's CI copy), the same as the re-executed published runs
// (results/published), so they land in the same leaderboard tables.
//
// Only tests import it. It imports the runner, which the site's own code
// never does: the results files it writes are the contract between them.
package fakerunner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/llm/llmtest"
	"github.com/mattools-leaderboard/leaderboard/runner"
	"github.com/mattools-leaderboard/leaderboard/runner/scoring"
	"github.com/mattools-leaderboard/leaderboard/sandbox"
)

// The fake model as the runs record it. Model is not in results/models.csv:
// the site's catalog (site/aggregate.Catalog.Model) then shows the run's
// display-name hint, DisplayName, with no group, after the listed models.
const (
	Model       = "fake-none-dict"
	DisplayName = "Fake model (dict of None)"
	Rounds      = 3
)

// Slots is the number of sandbox executions at once and Concurrency the
// questions in flight per run: two cores (CI) run two executions, while
// the other two questions wait for a slot with their (instant) answer.
const (
	Slots       = 2
	Concurrency = 4
)

// ExecuteEveryRound makes every round execute its answers in the sandbox.
// By default (false) the first execution of each question's code is reused
// for the identical code of later rounds (see memoScorer): the fake code is
// a constant function, so its outcome cannot differ, and on two busy cores
// the 3 × 28 executions take several minutes where 28 take one. Set it
// before the first call (e.g. in TestMain).
var ExecuteEveryRound bool

// Result is what one call of the runner produced.
type Result struct {
	// Dir holds the 6 results files (<run id>.parquet) and the runner's
	// journals (Dir/.journal); results.ReadDir(Dir) reads the runs.
	Dir string
	// Elapsed is the wall time of runner.Run (sandbox opening included).
	Elapsed time.Duration
	// Open is the part of Elapsed spent opening the sandbox (it reads the
	// library versions inside it).
	Open time.Duration
	// Requests is the number of model requests the fake server answered.
	Requests int
	// RAGDir holds the fake model's LLM-RAG runs: retrieval sources 1–4
	// (3 and 4 from the fake model's documentation of
	// pymatgen/analysis/defects, runner/docgen; source 3 cut by the semantic
	// chunker over the fake server's embeddings), each by BM25 and by dense
	// retrieval, 1 round, both protocols (16 results files). Their answers are the
	// single-LLM runs' code, so no question is executed again.
	RAGDir string
	// Executions is the number of answers passed to the sandbox scorer
	// (which runs nothing for a data-missing question) and Reused the number
	// given the outcome of identical code in an earlier round (0 with
	// ExecuteEveryRound).
	Executions, Reused int
	// RAGExecutions is the number of answers of the LLM-RAG runs executed
	// (not reused): 0 unless a system changed the fake model's code.
	RAGExecutions int
	// AdvancedDir holds the fake model's agentic-rag and self-reflection-rag
	// runs (both variants): source 4 (the fake model's documentation) by
	// BM25, Rounds rounds, both protocols (18 results files). The fake
	// answers every stage (keywords, queries, rankings of the documents it
	// is shown, NER, a critique); its final code is the single-LLM runs'
	// (none scored anew: AdvancedScored is 0 unless a system changed it).
	// The self-reflection loop executes its drafts: LoopExecutions ran in
	// the sandbox, LoopReused took the outcome of the same code executed
	// before (the fake code returns None values, so every loop runs its 5
	// iterations).
	AdvancedDir                                string
	AdvancedScored, LoopExecutions, LoopReused int
	// GraphDir holds the fake model's graph-rag runs (LightRAG's global
	// mode over an index of pymatgen/analysis/defects the fake model built
	// in GraphIndex; 3 rounds, both protocols: 6 results files), "" when
	// LIGHTRAG_DATA is unset outside CI. GraphRequests counts the model and
	// embeddings requests of index and queries, GraphElapsed their time;
	// GraphScored the final answers scored anew (0: the fake's code).
	GraphDir, GraphIndex       string
	GraphRequests, GraphScored int
	GraphElapsed               time.Duration
	// GraphIndexRequests counts the first graph-rag run's requests by kind
	// (graphragtest.CountKinds), GraphAgainRequests those of the same plan
	// run again into another folder (the index reused).
	GraphIndexRequests, GraphAgainRequests map[string]int
}

var (
	once    sync.Once
	res     Result
	runErr  error
	skipMsg string
	mu      sync.Mutex
	created string // the temporary folder, removed by Cleanup
)

// FakeNoneModelRuns runs the fake model through the runner on dataRoot,
// once per test binary (the first call's dataRoot is used; later calls
// return the same folder), and returns the folder of its results files.
//
// The folder is created under os.TempDir (readable by the sandbox's
// unprivileged uid) and outlives the calling test, since other tests of the
// binary share it: call Cleanup at the end of TestMain to remove it, or it
// is left to the caller. Callers must not modify it.
//
// The test is skipped when the sandbox or its Python environment
// (/opt/mattools-sandbox, or $MATTOOLS_SANDBOX_PYTHON; make sandbox-env) is
// unavailable, and fails instead when CI is set, which installs both.
func FakeNoneModelRuns(t testing.TB, dataRoot string) string {
	t.Helper()
	return Run(t, dataRoot).Dir
}

// Run is FakeNoneModelRuns returning the whole Result.
func Run(t testing.TB, dataRoot string) Result {
	t.Helper()
	once.Do(func() {
		start := time.Now()
		res, skipMsg, runErr = run(dataRoot)
		res.Elapsed = time.Since(start)
	})
	switch {
	case skipMsg != "":
		t.Skip(skipMsg)
	case runErr != nil:
		t.Fatalf("fakerunner: %v", runErr)
	}
	t.Logf("fakerunner: %s's %d rounds ran in %s (sandbox opened in %s; %d model requests) into %s", Model, Rounds,
		res.Elapsed.Round(time.Millisecond), res.Open.Round(time.Millisecond), res.Requests, res.Dir)
	return res
}

// Cleanup removes the folders FakeNoneModelRuns and ExampleSubmission created, if any. Call it from
// TestMain after m.Run.
func Cleanup() {
	mu.Lock()
	defer mu.Unlock()
	if created != "" {
		os.RemoveAll(created)
		created = ""
	}
	if subCreated != "" {
		os.RemoveAll(subCreated)
		subCreated = ""
	}
}

// sandboxPython is the sandbox's Python environment, as cmd/run-benchmark
// finds it.
func sandboxPython() string {
	if p := os.Getenv("MATTOOLS_SANDBOX_PYTHON"); p != "" {
		return p
	}
	return "/opt/mattools-sandbox"
}

// run does the work of the first call: it returns a skip message when the
// sandbox is unavailable outside CI. Its steps run in this order: the
// single-LLM runs, the fake model's documentation, the LLM-RAG runs, the
// agentic and self-reflection runs, then (with LIGHTRAG_DATA) the graph-rag
// runs, all answered by one fake server and scored by one memoScorer.
func run(dataRoot string) (Result, string, error) {
	ci := os.Getenv("CI") != ""
	python := sandboxPython()
	if _, err := os.Stat(filepath.Join(python, "pyvenv.cfg")); err != nil {
		if !ci {
			return Result{}, fmt.Sprintf("the sandbox's Python environment is not installed (make setup): %v", err), nil
		}
		return Result{}, "", fmt.Errorf("the sandbox's Python environment: %w", err)
	}
	bench, err := datasets.Load(dataRoot)
	if err != nil {
		return Result{}, "", err
	}
	answers, err := Answers(bench)
	if err != nil {
		return Result{}, "", err
	}
	dir, err := makeDir()
	if err != nil {
		return Result{}, "", err
	}

	ctx := context.Background()
	opened := time.Now()
	sc, err := scoring.Open(ctx, "auto", dataRoot, sandbox.Options{Slots: Slots, Python: python})
	if err != nil {
		if !ci && errors.Is(err, sandbox.ErrUnavailable) {
			return Result{}, fmt.Sprintf("no sandbox with the pinned Python environment (run `make setup` as root): %v", err), nil
		}
		return Result{}, "", fmt.Errorf("opening the sandbox: %w", err)
	}
	defer sc.Close()
	openTime := time.Since(opened)

	f := &fixture{ctx: ctx, dataRoot: dataRoot, dir: dir, bench: bench}
	f.srv = llmtest.NewServer(llmtest.Options{Responder: f.responder(answers)})
	defer f.srv.Close()
	f.ms = &memoScorer{sc: sc, reuse: !ExecuteEveryRound, calls: map[memoKey]*memoCall{}}

	out, err := f.singleLLM()
	if err != nil {
		return Result{}, "", err
	}
	requests, executions, reused := len(f.srv.Requests()), f.ms.executions, f.ms.reused
	llmDocs, err := f.llmDocs(python)
	if err != nil {
		return Result{}, "", err
	}
	ragOut, err := f.llmRAG(llmDocs)
	if err != nil {
		return Result{}, "", err
	}
	ragExecutions := f.ms.executions - executions
	before := f.ms.executions
	advOut, err := f.advanced(llmDocs)
	if err != nil {
		return Result{}, "", err
	}
	res := Result{Dir: out, RAGDir: ragOut, AdvancedDir: advOut, Open: openTime, Requests: requests, Executions: executions, Reused: reused,
		RAGExecutions: ragExecutions, AdvancedScored: f.ms.executions - before, LoopExecutions: f.ms.loopExecutions, LoopReused: f.ms.loopReused}

	// GraphRAG: LightRAG 1.3.3 re-implemented, its index built by the fake
	// model from pymatgen/analysis/defects, 3 rounds of the global mode.
	lightrag := os.Getenv("LIGHTRAG_DATA")
	if lightrag == "" {
		if ci {
			return Result{}, "", errors.New("LIGHTRAG_DATA is not set (CI sets it; docs/graphrag.md)")
		}
		return res, "", nil // no GraphDir
	}
	if err := f.graphRAG(&res, lightrag); err != nil {
		return Result{}, "", err
	}
	return res, "", nil
}

// makeDir creates the fixture's temporary folder under os.TempDir and
// records it for Cleanup.
func makeDir() (string, error) {
	dir, err := os.MkdirTemp("", "fakerunner-")
	if err != nil {
		return "", err
	}
	mu.Lock()
	created = dir
	mu.Unlock()
	// The sandbox uid reads nothing here, but keep the layout of the other
	// sandbox fixtures: a folder others may traverse.
	if err := os.Chmod(dir, 0o755); err != nil {
		return "", err
	}
	return dir, nil
}

// memoScorer is the real sandbox scorer that, when reuse is set, executes
// each distinct (question, code, function name) once and returns a copy of
// that outcome for the same submission in later rounds. The runner is
// unchanged: it asks, journals and writes every round as usual.
type memoScorer struct {
	sc    *scoring.Scorer
	reuse bool

	mu                 sync.Mutex
	calls              map[memoKey]*memoCall
	executions, reused int
	// The self-reflection loop's executions (Execute), memoized alike.
	execs                      map[memoKey]*memoExec
	loopExecutions, loopReused int
}

type memoExec struct {
	done chan struct{}
	e    *scoring.Execution
	err  error
}

// Execute runs the loop's draft once per distinct (question, code, name),
// as Score does, when reuse is set.
func (m *memoScorer) Execute(ctx context.Context, q *datasets.Question, sub scoring.Submission) (*scoring.Execution, error) {
	k := memoKey{q.ID, sub.Code, sub.FunctionName}
	m.mu.Lock()
	if m.execs == nil {
		m.execs = map[memoKey]*memoExec{}
	}
	c, ok := m.execs[k]
	if !ok || !m.reuse {
		c = &memoExec{done: make(chan struct{})}
		m.execs[k] = c
		m.loopExecutions++
		m.mu.Unlock()
		c.e, c.err = m.sc.Execute(ctx, q, sub)
		close(c.done)
		if c.err != nil {
			m.mu.Lock()
			delete(m.execs, k)
			m.mu.Unlock()
		}
	} else {
		m.loopReused++
		m.mu.Unlock()
		<-c.done
	}
	if c.err != nil {
		return nil, c.err
	}
	cp := *c.e
	return &cp, nil
}

type memoKey struct{ question, code, name string }

type memoCall struct {
	done chan struct{}
	s    *scoring.Scored
	err  error
}

func (m *memoScorer) Environment() scoring.Environment { return m.sc.Environment() }

func (m *memoScorer) Score(ctx context.Context, q *datasets.Question, sub scoring.Submission) (*scoring.Scored, error) {
	if !m.reuse {
		m.mu.Lock()
		m.executions++
		m.mu.Unlock()
		return m.sc.Score(ctx, q, sub)
	}
	k := memoKey{q.ID, sub.Code, sub.FunctionName}
	m.mu.Lock()
	c, ok := m.calls[k]
	if !ok {
		c = &memoCall{done: make(chan struct{})}
		m.calls[k] = c
		m.executions++
		m.mu.Unlock()
		c.s, c.err = m.sc.Score(ctx, q, sub)
		close(c.done)
		if c.err != nil {
			m.mu.Lock()
			delete(m.calls, k) // a failure of the scorer itself is not an outcome to reuse
			m.mu.Unlock()
		}
	} else {
		m.reused++
		m.mu.Unlock()
		<-c.done
	}
	if c.err != nil {
		return nil, c.err
	}
	cp := *c.s // the runner only reslices (Trim) and reads it
	return &cp, nil
}

// AnswerSet is the fake model's answer to each question of a benchmark.
type AnswerSet struct {
	texts   []string // the question texts, stripped
	answers []string
}

// Answers returns the fake model's answers to bench's questions: for each,
// a function named after the question that returns a dict of the
// question's property names (properties.json, which the question text
// lists too) mapped to None, in the answer format the runner extracts
// (<answer><code>```python … ```</code><name>…</name></answer>).
func Answers(bench *datasets.Benchmark) (*AnswerSet, error) {
	a := &AnswerSet{}
	for _, q := range bench.Questions {
		text := strings.TrimSpace(q.Text)
		if text == "" || len(q.Properties) == 0 {
			return nil, fmt.Errorf("question %s: no text or no properties", q.ID)
		}
		a.texts = append(a.texts, text)
		a.answers = append(a.answers, Answer(q))
	}
	return a, nil
}

// For returns the answer to the question prompt asks: the one whose text
// it holds (the longest such text, should one text hold another).
func (a *AnswerSet) For(prompt string) (string, bool) {
	best := -1
	for i, t := range a.texts {
		if strings.Contains(prompt, t) && (best < 0 || len(t) > len(a.texts[best])) {
			best = i
		}
	}
	if best < 0 {
		return "", false
	}
	return a.answers[best], true
}

// Function returns the fake model's generated code for q and its name, as
// the runner extracts them from Answer (stripped: no final newline).
func Function(q datasets.Question) (code, name string) {
	name = "fake_none_" + q.ID
	var items []string
	for _, p := range q.Properties {
		key, _ := json.Marshal(p.Name) // a JSON string is a valid Python string literal
		items = append(items, fmt.Sprintf("        %s: None,", key))
	}
	code = fmt.Sprintf("def %s():\n    \"\"\"Returns every property of %s as None: computes nothing.\"\"\"\n    return {\n%s\n    }",
		name, q.ID, strings.Join(items, "\n"))
	return code, name
}

// Answer returns the fake model's whole answer to q.
func Answer(q datasets.Question) string {
	code, name := Function(q)
	return "<answer>\n<code>\n```python\n" + code + "\n```\n</code>\n<name>" + name + "</name>\n</answer>"
}

// docgenObject finds, in a documentation prompt of runner/docgen, the
// object's kind, name and file ("The object is the {kind} "{name}" in the
// file {file}.").
var docgenObject = regexp.MustCompile(`The object is the (\S+) "([^"]+)" in the file (\S+)\.`)

// The fake model's answers to the stages of agentic RAG and the
// self-reflection loop, recognised by the opening of their prompt texts
// (MatTools' prompts: runner/systems).
var (
	fakeFunctionName = regexp.MustCompile(`fake_none_(test_\w+)`)
	rankedOnce       sync.Map // rerank prompt → answers given (*atomic.Int32)
)

// advancedReply answers a request of agentic RAG or the self-reflection
// loop; ok is false for other requests. Every other answer to a reranking
// prompt is unusable JSON, so that every ranking is retried once.
func advancedReply(r llmtest.Request, answers *AnswerSet, bench *datasets.Benchmark) (string, bool) {
	first, last := r.Messages[0].Content, r.Prompt()
	switch {
	case strings.HasPrefix(first, "Please provide a list of Code keywords"):
		return "DefectEntry, Vacancy, Supercell", true
	case strings.HasPrefix(first, "You are a helpful assistant that generates multiple search queries"):
		return "```\nvacancy defect structure\n\ndefect entry formation energy\nsupercell generation\ncharge state corrections\n```", true
	case strings.HasPrefix(first, "You are an expert relevance ranker"):
		n, _ := rankedOnce.LoadOrStore(last, new(atomic.Int32))
		if n.(*atomic.Int32).Add(1)%2 == 1 {
			return `{"documents": [`, true // each ranking's first attempt (in every round)
		}
		docs := pyStrings(last[strings.Index(last, "\n\nDocs: ")+len("\n\nDocs: "):])
		type doc struct {
			Content string  `json:"content"`
			Score   float64 `json:"relevance_score"`
		}
		var ranked []doc
		for i, d := range docs {
			ranked = append(ranked, doc{d, float64(100 - i)})
		}
		b, _ := json.Marshal(map[string][]doc{"documents": ranked})
		return string(b), true
	case strings.HasPrefix(first, "You are a helpful assistant in the Pymatgen repository Q&A"):
		return "The documents describe DefectEntry and Vacancy; the function can build them from the structure file.", true
	case strings.Contains(first, "Extract the most relevant Pymatgen class or function"):
		return `{"type": "class", "name": "DefectEntry"}`, true
	case strings.HasPrefix(first, "You are a helpful Repository-Level Software Q&A assistant"):
		if a, ok := answers.For(first); ok {
			if q, ok := bench.Question(fakeFunctionName.FindStringSubmatch(a)[1]); ok {
				code, name := Function(*q)
				b, _ := json.Marshal(map[string]string{"function_name": name, "function": code})
				return string(b), true
			}
		}
		return "{}", true
	case strings.HasPrefix(last, "Here is your task:\n1. Please check if the generated code"),
		strings.HasPrefix(last, "Here is your task:\n1. Please check if the content below"):
		// The format checks: the answer (or critique) given, unchanged.
		if m := fakeFunctionName.FindStringSubmatch(last); m != nil && strings.Contains(last, "Please check if the generated code") {
			if q, ok := bench.Question(m[1]); ok {
				return Answer(*q), true
			}
		}
		if i := strings.Index(last, "**Content:**\n"); i >= 0 {
			return last[i+len("**Content:**\n"):], true
		}
		return "", true
	case strings.HasPrefix(last, "You're a critical feedback agent"):
		return "<think>The function returns None for every property.</think>\n<feedback>The code runs, but it computes nothing: " +
			"every value is None.</feedback>\n<next_rag_retrieval>\n- DefectEntry and Vacancy constructors\n- reading the structure file\n</next_rag_retrieval>", true
	case strings.HasPrefix(last, "Your previous answer was executed in the sandbox"):
		// The feedback variant's message: the fake answers with the same code.
		for _, m := range r.Messages {
			if a, ok := answers.For(m.Content); ok {
				return a, true
			}
		}
	}
	return "", false
}

// pyStrings reads a Python list of str literals (str(list) of the
// reranking prompt): single- or double-quoted items with backslash
// escapes (\\, \', \", \n, \r, \t, \xhh, \uhhhh, \Uhhhhhhhh).
func pyStrings(s string) []string {
	var out []string
	for i := 0; i < len(s); i++ {
		q := s[i]
		if q != '\'' && q != '"' {
			continue
		}
		var b strings.Builder
		for i++; i < len(s) && s[i] != q; i++ {
			if s[i] != '\\' || i+1 >= len(s) {
				b.WriteByte(s[i])
				continue
			}
			i++
			switch c := s[i]; c {
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'x', 'u', 'U':
				n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[c]
				if i+n < len(s) {
					if v, err := strconv.ParseUint(s[i+1:i+1+n], 16, 32); err == nil {
						b.WriteRune(rune(v))
						i += n
						continue
					}
				}
				b.WriteByte(c)
			default:
				b.WriteByte(c)
			}
		}
		out = append(out, b.String())
	}
	return out
}

// runPlan runs o's plan through the runner and checks that it wrote want
// runs, each written, and that every prompt named a question (unmatched
// collects the fake server's misses); what names the plan in errors.
func runPlan(ctx context.Context, o runner.Options, want int, what string, unmatched *[]string, dataRoot string) error {
	runs, err := runner.Run(ctx, o)
	if err != nil {
		return fmt.Errorf("runner (%s): %w", what, err)
	}
	if len(*unmatched) > 0 {
		return fmt.Errorf("%s: %d prompts name no question of %s; the first: %.200q", what, len(*unmatched), dataRoot, (*unmatched)[0])
	}
	if len(runs) != want {
		return fmt.Errorf("runner wrote %d %s runs, want %d", len(runs), what, want)
	}
	for _, r := range runs {
		if r.Status != runner.StatusWritten {
			return fmt.Errorf("run %s: %s", r.RunID, r.Status)
		}
	}
	return nil
}
