package runner

// Tests of the run loop: unscored tool-usage runs, fault
// injection, interruption and resume, the journal, QA scoring, API keys,
// the scorer hook, --dry-run estimates.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/llm/llmtest"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/runner/journal"
	"github.com/mattools-leaderboard/leaderboard/runner/plan"
	"github.com/mattools-leaderboard/leaderboard/runner/scoring"
	"github.com/mattools-leaderboard/leaderboard/runner/systems"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

var questionRE = regexp.MustCompile(`Question (\d+) \((\w+)\)`)

// toolAnswer is the fake model's deterministic answer to a fake-root
// question: a function named after the question, tokens derived from it.
func toolAnswer(r llmtest.Request) llmtest.Reply {
	m := questionRE.FindStringSubmatch(r.Prompt())
	if m == nil {
		return llmtest.Reply{Content: "I cannot parse this question."}
	}
	i, _ := strconv.Atoi(m[1])
	return llmtest.Reply{
		Content:      fmt.Sprintf("<answer>\n<code>\n```python\ndef f_%s():\n    return {'n': %d}\n```\n</code>\n<name>f_%s</name>\n</answer>", m[2], i, m[2]),
		PromptTokens: 700 + i, CompletionTokens: 100 + i,
	}
}

func mustPlan(t *testing.T, text string) *plan.Plan {
	t.Helper()
	p, err := plan.Parse([]byte(text), filepath.Join(t.TempDir(), "plan.toml"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func toolPlan(baseURL string, rounds int, extra string) string {
	return fmt.Sprintf(`rounds = %d
concurrency = 4
[[models]]
name = "fake-model"
base_url = %q
api_key_env = "FAKE_API_KEY"
timeout = "5s"
price = { input_per_million = 2.5, output_per_million = 10.0 }
%s`, rounds, baseURL, extra) // 5 s: a loopback answer beats it on a loaded machine; a hang fault waits it out
}

const testKey = "sk-fake-THIS-MUST-NEVER-BE-WRITTEN-0042"

func readRun(t *testing.T, path string) *results.File {
	t.Helper()
	f, err := results.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// comparable drops the columns that legitimately differ between two runs of
// the same answers: latency (timestamps and latency may differ).
func comparableRows(rows []results.QuestionRow) []string {
	var out []string
	for _, r := range rows {
		r.LatencyMS = nil
		out = append(out, fmt.Sprintf("%d|%s|%d|%q|%s|%s|%s|%s|%s|%q|%s|%d|%d", r.QuestionIndex, r.QuestionID, r.PropertyCount, r.Code, r.FunctionName,
			text(r.Runnable), text(r.PropertiesPassed), r.Verdict, r.VerdictCause, r.FailedProperties, text(r.ErrorExcerpt),
			deref(r.PromptTokens), deref(r.CompletionTokens)))
	}
	sort.Strings(out)
	return out
}

// text renders an optional column.
func text[T any](p *T) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprint(*p)
}

func TestToolUsageRunWritesUnscoredRows(t *testing.T) {
	root := mattoolstest.NewRoot(t).Dir
	srv := llmtest.New(t, llmtest.Options{Responder: toolAnswer})
	out := t.TempDir()
	var logs bytes.Buffer
	res, err := Run(context.Background(), Options{Plan: mustPlan(t, toolPlan(srv.URL, 2, "")), DataRoot: root, OutDir: out, Unscored: true,
		APIKeys: map[string]string{"FAKE_API_KEY": testKey}, Log: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 || res[0].Status != StatusWritten || res[1].Status != StatusWritten {
		t.Fatalf("results %+v", res)
	}
	if n := len(srv.Requests()); n != 98 {
		t.Errorf("%d requests, want 49 questions × 2 rounds", n)
	}
	for round, rr := range res {
		if want := fmt.Sprintf("runner__tool-usage__single-llm__s0__fake-model__unscored__r%d", round+1); rr.RunID != want {
			t.Errorf("run id %s, want %s", rr.RunID, want)
		}
		f := readRun(t, rr.Path)
		r := f.Run
		if r.Provenance.Kind != results.ProvenanceRunner || r.ScoringProtocol != ProtocolUnscored || r.Totals.Scored ||
			r.Totals.Questions != 49 || r.Totals.Properties != 138 || r.Round != round+1 || *r.Generation.Temperature != 0.7 ||
			r.Generation.Source != "plan" || r.UpstreamCommit != mattoolstest.Commit || r.BenchmarkVersion != "2025-05" {
			t.Errorf("run %+v", r)
		}
		if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "not scored") || !strings.Contains(r.Warnings[0], "mattools-v1 and mattools-v1-strict") {
			t.Errorf("warnings %q", r.Warnings)
		}
		if r.StartedAt == nil || r.FinishedAt == nil || r.FinishedAt.Before(*r.StartedAt) || r.Environment.Generator != "run-benchmark" ||
			r.Environment.GoVersion == "" || r.Environment.Libraries["github.com/sashabaranov/go-openai"] == "" {
			t.Errorf("environment/timestamps %+v %v %v", r.Environment, r.StartedAt, r.FinishedAt)
		}
		if len(r.Provenance.Source) != 2 || r.Provenance.Source[0].Path != "prompts/single_llm/answer_format.txt" || len(r.Provenance.Source[0].SHA256) != 64 {
			t.Errorf("provenance sources %+v", r.Provenance.Source)
		}
		// Tokens: Σ(700+i) = 49·700 + 1176 = 35476 prompt, Σ(100+i) = 4900 + 1176 = 6076 completion;
		// cost = (35476·2.5 + 6076·10)/1e6 = 0.14945 dollars.
		if u := r.Usage; u.Calls != 49 || u.PromptTokens != 35476 || u.CompletionTokens != 6076 || u.CostUSD == nil || fmt.Sprintf("%.5f", *u.CostUSD) != "0.14945" {
			t.Errorf("usage %+v", *r.Usage)
		}
		if len(f.Questions) != 49 {
			t.Fatalf("%d rows", len(f.Questions))
		}
		for i, q := range f.Questions {
			id := datasets.Order()[i]
			if q.QuestionIndex != int32(i) || q.QuestionID != id || q.PropertyCount != int32(mattoolstest.PropertyCounts[i]) ||
				q.FunctionName != "f_"+id || q.Code != fmt.Sprintf("def f_%s():\n    return {'n': %d}", id, i) ||
				q.Verdict != string(results.VerdictUnknown) || q.Runnable != nil || *q.PromptTokens != int64(700+i) || q.LatencyMS == nil ||
				q.Response == nil || !strings.Contains(*q.Response, "<name>f_"+id+"</name>") || *q.FinishReason != "stop" || *q.Attempts != 1 ||
				q.ResponseBytes == nil || *q.ResponseBytes != int64(len(*q.Response)) {
				t.Errorf("row %d = %+v", i, q)
			}
		}
	}
	// The prompt is question.txt stripped + "\n" + the answer format.
	if got, want := srv.Requests()[0].Messages[0].Content, strings.TrimSpace(mattoolstest.QuestionText(0, "test_vacancy"))+"\n"+mattoolstest.AnswerFormat; !strings.Contains(got, "Question") || len(srv.Requests()[0].Messages) != 1 {
		t.Errorf("first prompt %q", got)
	} else {
		found := false
		for _, r := range srv.Requests() {
			found = found || r.Prompt() == want
		}
		if !found {
			t.Errorf("no request has the prompt %q", want)
		}
	}
	// A second Run of the same plan skips the written runs.
	res, err = Run(context.Background(), Options{Plan: mustPlan(t, toolPlan(srv.URL, 2, "")), DataRoot: root, OutDir: out, Unscored: true,
		APIKeys: map[string]string{"FAKE_API_KEY": testKey}})
	if err != nil || res[0].Status != StatusExists || len(srv.Requests()) != 98 {
		t.Errorf("rerun: %+v, %v, %d requests", res, err, len(srv.Requests()))
	}
	assertNoKey(t, out, logs.String())
}

// assertNoKey greps every file under dir and the log text for testKey.
func assertNoKey(t *testing.T, dir, logText string) {
	t.Helper()
	files := 0
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, _ := os.ReadFile(p)
		files++
		if bytes.Contains(data, []byte(testKey)) {
			t.Errorf("the API key appears in %s", p)
		}
		return nil
	})
	if files == 0 {
		t.Error("no output files to check")
	}
	if strings.Contains(logText, testKey) {
		t.Error("the API key appears in the log")
	}
}

// TestFaultInjectionAnswersEveryQuestionExactlyOnce is the fault-injection
// acceptance check: 20% of requests fail (429 with Retry-After,
// 500, a hang past the 5 s timeout, malformed JSON); the run completes with
// every question answered exactly once, no row lost or duplicated.
func TestFaultInjectionAnswersEveryQuestionExactlyOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("takes a few seconds of Retry-After and timeouts")
	}
	root := mattoolstest.NewRoot(t).Dir
	srv := llmtest.New(t, llmtest.Options{Responder: toolAnswer, FaultRate: 0.2, RetryAfter: "1"})
	out := t.TempDir()
	var logs bytes.Buffer
	start := time.Now()
	// retry_timeouts: the fake is on 127.0.0.1, whose timeouts are not retried by default.
	res, err := Run(context.Background(), Options{Plan: mustPlan(t, toolPlan(srv.URL, 1, "retry_timeouts = true\n")), DataRoot: root, OutDir: out, Unscored: true,
		APIKeys: map[string]string{"FAKE_API_KEY": testKey}, Log: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	faults := srv.FaultCounts()
	total := 0
	for _, n := range faults {
		total += n
	}
	reqs := srv.Requests()
	t.Logf("%d requests, %d faults %v, run took %v", len(reqs), total, faults, time.Since(start).Round(time.Millisecond))
	for _, f := range llmtest.AllFaults {
		if faults[f] == 0 {
			t.Errorf("no %s fault was injected", f)
		}
	}
	if total != len(reqs)/5 {
		t.Errorf("%d faults in %d requests, want every fifth", total, len(reqs))
	}
	// Every question was answered by the server exactly once.
	answered := map[string]int{}
	for _, r := range reqs {
		if r.Fault == llmtest.FaultNone {
			answered[questionRE.FindStringSubmatch(r.Prompt())[2]]++
		}
	}
	for _, id := range datasets.Order() {
		if answered[id] != 1 {
			t.Errorf("question %s answered %d times", id, answered[id])
		}
	}
	// The run has 49 rows, one per question, equal to a fault-free run's.
	f := readRun(t, res[0].Path)
	seen := map[string]int{}
	for _, q := range f.Questions {
		seen[q.QuestionID]++
	}
	if len(f.Questions) != 49 || len(seen) != 49 {
		t.Errorf("%d rows for %d distinct questions, want 49 and 49", len(f.Questions), len(seen))
	}
	clean := llmtest.New(t, llmtest.Options{Responder: toolAnswer})
	out2 := t.TempDir()
	res2, err := Run(context.Background(), Options{Plan: mustPlan(t, toolPlan(clean.URL, 1, "")), DataRoot: root, OutDir: out2, Unscored: true,
		APIKeys: map[string]string{"FAKE_API_KEY": testKey}})
	if err != nil {
		t.Fatal(err)
	}
	if a, b := comparableRows(f.Questions), comparableRows(readRun(t, res2[0].Path).Questions); strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Error("rows of the faulty run differ from a fault-free run's")
	}
	if n := strings.Count(logs.String(), "retrying"); n != total {
		t.Errorf("%d retry log lines for %d faults", n, total)
	}
	assertNoKey(t, out, logs.String())
}

// TestInterruptedRunResumesWithoutRepeating cancels a run (as Ctrl-C does)
// while the server holds requests after 20 answers, then resumes it.
func TestInterruptedRunResumesWithoutRepeating(t *testing.T) {
	root := mattoolstest.NewRoot(t).Dir
	srv := llmtest.New(t, llmtest.Options{Responder: toolAnswer, BlockAfter: 20})
	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for srv.Blocked() < 4 { // all four workers are stuck
			time.Sleep(5 * time.Millisecond)
		}
		cancel()
	}()
	pl := toolPlan(srv.URL, 1, "")
	sc := &fakeScorer{}
	res, err := Run(ctx, Options{Plan: mustPlan(t, pl), DataRoot: root, OutDir: out, APIKeys: map[string]string{"FAKE_API_KEY": testKey}, Scorer: sc})
	if !errors.Is(err, ErrInterrupted) || len(res) != 2 || res[0].Status != StatusInterrupted || res[0].Done != 20 || res[1].Status != StatusInterrupted {
		t.Fatalf("first session: %+v, %v; want both protocols' runs interrupted after 20", res, err)
	}
	if _, err := os.Stat(res[0].Path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("results file written for an interrupted run")
	}
	journaled := map[string]bool{}
	// One journal serves both protocols' runs.
	journals, _ := filepath.Glob(filepath.Join(out, JournalDir, "*.jsonl"))
	if len(journals) != 1 || !strings.HasSuffix(journals[0], "/runner__tool-usage__single-llm__s0__fake-model__scored__set-executable-92166d74__r1.jsonl") {
		t.Errorf("journals %q; want one for both protocols", journals)
	}
	n, _ := journal.Peek(journals[0])
	if n != 20 || sc.calls.Load() != 20 {
		t.Errorf("journal holds %d items, the scorer ran %d times; want 20 and 20", n, sc.calls.Load())
	}
	for _, r := range srv.Requests()[:20] {
		journaled[r.Prompt()] = true
	}

	srv2 := llmtest.New(t, llmtest.Options{Responder: toolAnswer})
	res, err = Run(context.Background(), Options{Plan: mustPlan(t, toolPlan(srv2.URL, 1, "")), DataRoot: root, OutDir: out,
		APIKeys: map[string]string{"FAKE_API_KEY": testKey}, Scorer: sc})
	if err != nil || res[0].Status != StatusWritten || res[1].Status != StatusWritten {
		t.Fatalf("second session: %+v, %v", res, err)
	}
	if n := len(srv2.Requests()); n != 29 {
		t.Errorf("resumed run made %d requests, want the 29 unfinished", n)
	}
	if sc.calls.Load() != 49 || sc.maxPerQuestion() != 1 {
		t.Errorf("the scorer ran %d times, at most %d times for one question; want 49 and 1: a journaled outcome is not executed again",
			sc.calls.Load(), sc.maxPerQuestion())
	}
	for _, r := range srv2.Requests() {
		if journaled[r.Prompt()] {
			t.Errorf("finished question asked again: %.60q", r.Prompt())
		}
	}
	f := readRun(t, res[0].Path)
	if len(f.Run.Warnings) != 3 || !strings.Contains(f.Run.Warnings[2], "2 sessions") {
		t.Errorf("warnings %q", f.Run.Warnings)
	}
	// Equal to an uninterrupted run, except latency.
	srv3 := llmtest.New(t, llmtest.Options{Responder: toolAnswer})
	out3 := t.TempDir()
	res3, err := Run(context.Background(), Options{Plan: mustPlan(t, toolPlan(srv3.URL, 1, "")), DataRoot: root, OutDir: out3,
		APIKeys: map[string]string{"FAKE_API_KEY": testKey}, Scorer: &fakeScorer{}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range res3 {
		if a, b := comparableRows(readRun(t, res[i].Path).Questions), comparableRows(readRun(t, res3[i].Path).Questions); strings.Join(a, "\n") != strings.Join(b, "\n") {
			t.Errorf("%s: resumed rows differ from an uninterrupted run's", res[i].RunID)
		}
	}
}

func TestChangedTemperatureCannotResumeAJournal(t *testing.T) {
	root := mattoolstest.NewRoot(t).Dir
	srv := llmtest.New(t, llmtest.Options{Responder: toolAnswer, BlockAfter: 5})
	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for srv.Blocked() == 0 {
			time.Sleep(5 * time.Millisecond)
		}
		cancel()
	}()
	Run(ctx, Options{Plan: mustPlan(t, toolPlan(srv.URL, 1, "")), DataRoot: root, OutDir: out, Unscored: true, APIKeys: map[string]string{"FAKE_API_KEY": testKey}})
	res, err := Run(context.Background(), Options{Plan: mustPlan(t, toolPlan(srv.URL, 1, "temperature = 0.2\n")), DataRoot: root, OutDir: out, Unscored: true,
		APIKeys: map[string]string{"FAKE_API_KEY": testKey}})
	if err == nil || res[0].Status != StatusFailed || !strings.Contains(err.Error(), "other settings") {
		t.Errorf("resume with another temperature: %v", err)
	}
}

func TestPermanentErrorFailsTheRunAndKeepsGoing(t *testing.T) {
	root := mattoolstest.NewRoot(t).Dir
	srv := llmtest.New(t, llmtest.Options{}) // no responder: every request gets 404
	out := t.TempDir()
	res, err := Run(context.Background(), Options{Plan: mustPlan(t, toolPlan(srv.URL, 2, "")), DataRoot: root, OutDir: out, Unscored: true,
		APIKeys: map[string]string{"FAKE_API_KEY": testKey}})
	if err == nil || len(res) != 2 || res[0].Status != StatusFailed || res[1].Status != StatusFailed || !strings.Contains(err.Error(), "404") {
		t.Fatalf("results %+v, err %v", res, err)
	}
	if len(srv.Requests()) > 2*4 {
		t.Errorf("%d requests: a permanent error should stop each run after the requests in flight", len(srv.Requests()))
	}
}

func TestMissingAPIKeyIsAnErrorBeforeAnyRequest(t *testing.T) {
	root := mattoolstest.NewRoot(t).Dir
	srv := llmtest.New(t, llmtest.Options{Responder: toolAnswer})
	_, err := Run(context.Background(), Options{Plan: mustPlan(t, toolPlan(srv.URL, 1, "")), DataRoot: root, OutDir: t.TempDir(), Unscored: true})
	if err == nil || !strings.Contains(err.Error(), "FAKE_API_KEY") || len(srv.Requests()) != 0 {
		t.Errorf("err = %v after %d requests", err, len(srv.Requests()))
	}
	keys, err := ReadAPIKeys(mustPlan(t, toolPlan(srv.URL, 1, "")), func(string) string { return "" })
	if err == nil || len(keys) != 0 || !strings.Contains(err.Error(), "fake-model") {
		t.Errorf("ReadAPIKeys: %v, %v", keys, err)
	}
}

func TestAPIKeyIsSentAsBearerToken(t *testing.T) {
	root := mattoolstest.NewRoot(t).Dir
	srv := llmtest.New(t, llmtest.Options{Responder: toolAnswer})
	if _, err := Run(context.Background(), Options{Plan: mustPlan(t, toolPlan(srv.URL, 1, "")), DataRoot: root, OutDir: t.TempDir(), Unscored: true,
		APIKeys: map[string]string{"FAKE_API_KEY": testKey}}); err != nil {
		t.Fatal(err)
	}
	for _, r := range srv.Requests() {
		if r.Header.Get("Authorization") != "Bearer "+testKey {
			t.Fatalf("Authorization %q", r.Header.Get("Authorization"))
		}
	}
}

// fakeScorer stands in for the sandbox scorer of runner/scoring, with
// made-up outcomes: questions with an even index pass all properties under
// both protocols; odd ones are not runnable under mattools-v1
// (exception:TypeError) and, under mattools-v1-strict, partial with their
// first property failed. Questions without their data files are
// data-missing, as the real scorer makes them.
type fakeScorer struct {
	calls atomic.Int32
	mu    sync.Mutex
	per   map[string]int
}

func (s *fakeScorer) Environment() scoring.Environment {
	return scoring.Environment{Sandbox: results.Sandbox{Backend: "fake", TimeoutSeconds: 60, LockSHA256: "0123"},
		Libraries: map[string]string{"pymatgen": "2024.8.9"}}
}

func (s *fakeScorer) Score(_ context.Context, q *datasets.Question, sub scoring.Submission) (*scoring.Scored, error) {
	s.calls.Add(1)
	s.mu.Lock()
	if s.per == nil {
		s.per = map[string]int{}
	}
	s.per[q.ID]++
	s.mu.Unlock()
	if sub.FunctionName != "f_"+q.ID {
		return nil, fmt.Errorf("scorer got the generation of another question")
	}
	out := &scoring.Scored{QuestionID: q.ID, PropertyCount: len(q.Properties), Outcomes: map[string]scoring.Outcome{}}
	k := len(q.Properties)
	switch {
	case !q.Executable():
		out.Outcomes[results.ProtocolMatToolsV1] = scoring.Outcome{Protocol: results.ProtocolMatToolsV1, Verdict: results.VerdictDataMissing}
		out.Outcomes[results.ProtocolMatToolsV1Strict] = scoring.Outcome{Protocol: results.ProtocolMatToolsV1Strict, Verdict: results.VerdictDataMissing}
		return out, nil
	case q.Index%2 == 0:
		out.Outcomes[results.ProtocolMatToolsV1] = scoring.Outcome{Protocol: results.ProtocolMatToolsV1, Verdict: results.VerdictCorrect, Runnable: true, PropertiesPassed: k,
			VerificationOutput: `"ok"`}
		out.Outcomes[results.ProtocolMatToolsV1Strict] = scoring.Outcome{Protocol: results.ProtocolMatToolsV1Strict, Verdict: results.VerdictCorrect, Runnable: true, PropertiesPassed: k}
	default:
		out.Outcomes[results.ProtocolMatToolsV1] = scoring.Outcome{Protocol: results.ProtocolMatToolsV1, Verdict: results.VerdictNotRunnable, Cause: "exception:TypeError"}
		out.Outcomes[results.ProtocolMatToolsV1Strict] = scoring.Outcome{Protocol: results.ProtocolMatToolsV1Strict, Verdict: results.VerdictPartial, Runnable: true,
			PropertiesPassed: k - 1, FailedProperties: []string{q.Properties[0].Name}, Errors: []string{q.Properties[0].Name + ": wrong"}}
		out.RunError = "TypeError: f() missing 1 required positional argument"
	}
	out.Stdout, out.ExecDuration = []byte(strings.Repeat("x", 5000)), 1500*time.Millisecond
	return out, nil
}

// maxPerQuestion is the largest number of times one question was scored.
func (s *fakeScorer) maxPerQuestion() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := 0
	for _, n := range s.per {
		m = max(m, n)
	}
	return m
}

// TestScoredRunsOnePerProtocol: a plan asking for both protocols gets two
// runs of each configuration × round from one generation and one scoring
// of each question; totals, rows and the environment follow the scorer.
func TestScoredRunsOnePerProtocol(t *testing.T) {
	r := mattoolstest.NewRoot(t)
	r.AddDataFiles() // all 49 questions executable: question set "all"
	srv := llmtest.New(t, llmtest.Options{Responder: toolAnswer})
	sc := &fakeScorer{}
	res, err := Run(context.Background(), Options{Plan: mustPlan(t, toolPlan(srv.URL, 1, "")), DataRoot: r.Dir, OutDir: t.TempDir(),
		APIKeys: map[string]string{"FAKE_API_KEY": testKey}, Scorer: sc})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 || len(srv.Requests()) != 49 || sc.calls.Load() != 49 {
		t.Fatalf("%d runs, %d requests, %d scorings; want 2 runs from 49 requests and 49 scorings", len(res), len(srv.Requests()), sc.calls.Load())
	}
	// 25 even-indexed questions (0, 2, …, 48) are correct; their properties:
	// 10+1+18+4+1+1+1+3+2+2+1+1+1+1+1+11+4+2+1+4+1+2+3+3+2 = 81 of 138.
	// Strict: the 24 odd ones are partial with k − 1: 138 − 24 = 114.
	want := map[string]string{
		"runner__tool-usage__single-llm__s0__fake-model__mattools-v1__r1":        "mattools-v1 runnable 25/49 passed 81/138 correct 25 partial 0",
		"runner__tool-usage__single-llm__s0__fake-model__mattools-v1-strict__r1": "mattools-v1-strict runnable 49/49 passed 114/138 correct 25 partial 24",
	}
	for _, rr := range res {
		f := readRun(t, rr.Path)
		tot := f.Run.Totals
		got := fmt.Sprintf("%s runnable %d/%d passed %d/%d correct %d partial %d", f.Run.ScoringProtocol, *tot.Runnable, tot.Questions,
			*tot.PropertiesPassed, tot.Properties, *tot.QuestionsCorrect, *tot.QuestionsPartial)
		if rr.Status != StatusWritten || got != want[rr.RunID] || !tot.Scored || f.Run.QuestionSet.Name != "all" {
			t.Errorf("%s: %s %q; want %q", rr.RunID, rr.Status, got, want[rr.RunID])
		}
		env := f.Run.Environment
		if env.Sandbox.Backend != "fake" || env.Sandbox.LockSHA256 != "0123" || env.Libraries["pymatgen"] != "2024.8.9" ||
			env.Libraries["github.com/sashabaranov/go-openai"] == "" {
			t.Errorf("environment %+v", env)
		}
		if len(f.Run.Warnings) != 1 || !strings.Contains(f.Run.Warnings[0], "wall-clock limit 1m0s") {
			t.Errorf("warnings %q", f.Run.Warnings)
		}
		q := f.Questions[1] // test_parsing_and_grouping_NamedDefects, 4 properties
		row := fmt.Sprintf("%s %s %s %s %q %s %s/%s %s", q.Verdict, q.VerdictCause, text(q.Runnable), text(q.PropertiesPassed), q.FailedProperties,
			text(q.ErrorExcerpt), text(q.StdoutDroppedBytes), text(q.ExecMS), text(q.FinishReason))
		wantRow := map[string]string{
			results.ProtocolMatToolsV1:       `not-runnable exception:TypeError false 0 [] TypeError: f() missing 1 required positional argument 1000/1500 stop`,
			results.ProtocolMatToolsV1Strict: `partial  true 3 ["p0"] p0: wrong 1000/1500 stop`,
		}[f.Run.ScoringProtocol]
		if row != wantRow {
			t.Errorf("%s row 1: %s\n want %s", f.Run.ScoringProtocol, row, wantRow)
		}
	}
}

// TestAProtocolAskedForLaterComesFromTheJournal: a plan first asking for
// mattools-v1 only, then for both, writes the strict run from the journal
// without asking the model or executing code again.
func TestAProtocolAskedForLaterComesFromTheJournal(t *testing.T) {
	root := mattoolstest.NewRoot(t).Dir // 7 questions (9 properties) read no data file: the others are data-missing
	srv := llmtest.New(t, llmtest.Options{Responder: toolAnswer})
	sc := &fakeScorer{}
	out := t.TempDir()
	opts := Options{Plan: mustPlan(t, toolPlan(srv.URL, 1, "[tool_usage]\nscoring_protocols = [\"mattools-v1\"]\n")), DataRoot: root, OutDir: out,
		APIKeys: map[string]string{"FAKE_API_KEY": testKey}, Scorer: sc}
	res, err := Run(context.Background(), opts)
	if err != nil || len(res) != 1 {
		t.Fatalf("%+v %v", res, err)
	}
	f := readRun(t, res[0].Path)
	// Executable: test_pchip_eval (2), test_get_SRH_coef (8), test_lower_envelope (16, 2 properties),
	// test_get_vibronic_matrix_elements (22), test_get_Rad_coef (24), test_boltzmann (43),
	// test_wswq_slope (48, 2 properties); even indices except 43: 6 correct with 8 properties.
	tot := f.Run.Totals
	if qs := f.Run.QuestionSet; qs.Questions != 7 || qs.Properties != 9 || len(qs.IDs) != 7 || *tot.Runnable != 6 || *tot.PropertiesPassed != 8 ||
		len(f.Questions) != 49 || f.Questions[0].Verdict != "data-missing" || f.Questions[0].Code == "" || len(f.Run.Warnings) != 2 {
		t.Errorf("question set %+v, totals %+v, warnings %q", qs, tot, f.Run.Warnings)
	}
	// The result reports the 42 questions without data files and the run as
	// written (its totals and question set those of the file).
	if r := res[0]; r.Items != 49 || r.Done != 49 || r.WithoutData != 42 || r.Run == nil || !reflect.DeepEqual(r.Run.Totals, tot) ||
		!reflect.DeepEqual(r.Run.QuestionSet, f.Run.QuestionSet) || !reflect.DeepEqual(r.Run.Warnings, f.Run.Warnings) {
		t.Errorf("result %+v; want 49 items, 42 without data files, the file's run %+v", r, f.Run)
	}
	opts.Plan = mustPlan(t, toolPlan(srv.URL, 1, ""))
	res, err = Run(context.Background(), opts)
	if err != nil || len(res) != 2 || res[0].Status != StatusExists || res[1].Status != StatusWritten {
		t.Fatalf("second plan: %+v %v", res, err)
	}
	if len(srv.Requests()) != 49 || sc.calls.Load() != 49 {
		t.Errorf("%d requests, %d scorings in all; want 49 and 49", len(srv.Requests()), sc.calls.Load())
	}
	if tot := readRun(t, res[1].Path).Run.Totals; *tot.Runnable != 7 || *tot.PropertiesPassed != 8 {
		t.Errorf("strict totals %+v; want 7 runnable, 8 + 0 (test_boltzmann: 1 − 1) properties", tot)
	}
	// The existing run is reported with the run and usage its file records;
	// the written one with its own.
	for _, r := range res {
		if want := readRun(t, r.Path).Run; r.WithoutData != 42 || r.Run == nil || !reflect.DeepEqual(r.Run.Totals, want.Totals) ||
			!reflect.DeepEqual(r.Run.QuestionSet, want.QuestionSet) || r.Usage.PromptTokens == 0 || !reflect.DeepEqual(r.Usage, *want.Usage) {
			t.Errorf("%s %s: result %+v; want 42 without data files and the file's run", r.Status, r.RunID, r)
		}
	}
}

// TestScoringNeedsAScorerOrUnscored: a plan with tool-usage runs and no
// Scorer is refused before any request, unless Unscored is set.
func TestScoringNeedsAScorerOrUnscored(t *testing.T) {
	root := mattoolstest.NewRoot(t).Dir
	srv := llmtest.New(t, llmtest.Options{Responder: toolAnswer})
	_, err := Run(context.Background(), Options{Plan: mustPlan(t, toolPlan(srv.URL, 1, "")), DataRoot: root, OutDir: t.TempDir(),
		APIKeys: map[string]string{"FAKE_API_KEY": testKey}})
	if err == nil || !strings.Contains(err.Error(), "need a Scorer") || len(srv.Requests()) != 0 {
		t.Errorf("err %v after %d requests", err, len(srv.Requests()))
	}
}

// TestJournalScoredElsewhereCannotBeResumed: a journal whose questions were
// scored in another sandbox environment (here: another lock hash) is not
// resumed.
func TestJournalScoredElsewhereCannotBeResumed(t *testing.T) {
	p := filepath.Join(t.TempDir(), "j.jsonl")
	env := (&fakeScorer{}).Environment()
	j, err := journal.Open(p, "run1", "fp1", time.Now(), journal.Options{Session: journal.Line{Scoring: &env}})
	if err != nil {
		t.Fatal(err)
	}
	j.Close()
	if j, err = journal.Open(p, "run1", "fp1", time.Now(), journal.Options{Session: journal.Line{Scoring: &env}}); err != nil {
		t.Fatalf("same environment: %v", err)
	}
	j.Close()
	other := env
	other.Sandbox.LockSHA256 = "4567"
	if _, err := journal.Open(p, "run1", "fp1", time.Now(), journal.Options{Session: journal.Line{Scoring: &other}}); err == nil || !strings.Contains(err.Error(), "another sandbox environment") ||
		!strings.Contains(err.Error(), "4567") {
		t.Errorf("other environment: %v", err)
	}
}

// qa20Replies are the scripted answers to runner/testdata/qa20.json, in its
// order, with the correct letter and whether the strict and the lenient
// extraction count them correct. The first seven rows are the hand-made
// acceptance table of the QA extraction.
var qa20Replies = []struct {
	reply           string
	correct         string
	strict, lenient bool
}{
	{"A", "A", true, true},
	{"<answer>B</answer>", "B", true, true},
	{"Answer: C", "C", false, true},
	{"<think>Lattice.abc gives the lengths, so D.</think><answer>D</answer>", "D", false, true},
	{"A.", "A", false, true},
	{"a", "A", false, true},
	{"A or B", "A", false, false},
	{"<answer>C</answer>", "C", true, true},
	{"  D\n", "D", true, true},
	{"<answer>A</answer>", "B", false, false},
	{"B", "C", false, false},
	{"B)", "B", false, true},
	{"<answer> d </answer>", "D", false, true},
	{"The answer is A because it stores the site.", "A", false, false},
	{"<answer>C</answer>\n<answer>A</answer>", "C", false, false},
	{"<think>maybe A</think>\n<answer>Answer: B.</answer>", "B", false, true},
	{"<answer>D</answer>", "D", true, true},
	{"", "A", false, false},
	{"<answer>E</answer>", "C", false, false},
	{"A", "A", true, true},
}

// TestQAOnTwentyQuestionsWithAScriptedModel is the QA acceptance check.
// Hand count: strict correct = rows 1, 2, 8, 9, 17, 20 = 6 of 20
// (30.00%); lenient correct = rows 1–6, 8, 9, 12, 13, 16, 17, 20 = 13 of 20
// (65.00%).
func TestQAOnTwentyQuestionsWithAScriptedModel(t *testing.T) {
	root := mattoolstest.NewRoot(t).Dir
	set, err := datasets.LoadQA("testdata/qa20.json")
	if err != nil {
		t.Fatal(err)
	}
	prompts, _ := systems.LoadPrompts(filepath.Join(root, "prompts"))
	srv := llmtest.New(t, llmtest.Options{})
	for i, q := range set.Questions {
		if q.CorrectAnswer != qa20Replies[i].correct {
			t.Fatalf("question %d: correct %s, table says %s", i, q.CorrectAnswer, qa20Replies[i].correct)
		}
		prompt, err := systems.QAPrompt(&q, prompts)
		if err != nil {
			t.Fatal(err)
		}
		srv.Script(prompt, llmtest.Reply{Content: qa20Replies[i].reply, PromptTokens: 100, CompletionTokens: 3})
	}
	abs, _ := filepath.Abs("testdata/qa20.json")
	p := mustPlan(t, fmt.Sprintf(`rounds = 1
benchmarks = ["qa-code"]
[qa_sets.qa-code]
path = %q
name = "sample-20"
[[models]]
name = "scripted"
base_url = %q
temperature = 0
`, abs, srv.URL))
	res, err := Run(context.Background(), Options{Plan: p, DataRoot: root, OutDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	srv.Verify(t) // every scripted reply consumed: the runner sent exactly these 20 prompts
	f := readRun(t, res[0].Path)
	r := f.Run
	if r.RunID != "runner__qa-code__single-llm__s0__scripted__mattools-qa-v1__set-sample-20__r1" || r.ScoringProtocol != results.ProtocolQAV1 ||
		r.QuestionSet.Name != "sample-20" || len(r.QuestionSet.IDs) != 20 || *r.Generation.Temperature != 0 {
		t.Errorf("run %+v", r)
	}
	for i, q := range f.QAItems {
		w := qa20Replies[i]
		if q.ItemIndex != int32(i) || q.Questions != 1 || (q.Correct == 1) != w.strict || (*q.CorrectLenient == 1) != w.lenient ||
			*q.AnswerText != w.reply || *q.CorrectAnswer != w.correct || *q.PromptTokens != 100 || *q.AnswerTextBytes != int64(len(w.reply)) {
			t.Errorf("row %d (%q): correct %d lenient %d, want %v %v", i+1, w.reply, q.Correct, *q.CorrectLenient, w.strict, w.lenient)
		}
	}
	strict, _ := r.Totals.Accuracy()
	lenient, _ := r.Totals.AccuracyLenient()
	t.Logf("QA sample: strict %d/20 = %.2f%%, lenient %d/20 = %.2f%%", *r.Totals.Correct, strict, *r.Totals.CorrectLenient, lenient)
	if *r.Totals.Correct != 6 || *r.Totals.CorrectLenient != 13 || fmt.Sprintf("%.2f %.2f", strict, lenient) != "30.00 65.00" {
		t.Errorf("totals %+v", r.Totals)
	}
	// The temperature 0 of the plan reached the server.
	if !regexp.MustCompile(`"temperature":0[,}]`).Match(srv.Requests()[0].Body) {
		t.Errorf("body %s lacks temperature 0", srv.Requests()[0].Body)
	}
}

func TestDryRunEstimatesGolden(t *testing.T) {
	root := mattoolstest.NewRoot(t).Dir
	abs, _ := filepath.Abs("testdata/qa20.json")
	p := mustPlan(t, fmt.Sprintf(`rounds = 2
benchmarks = ["tool-usage", "qa-code"]
[qa_sets.qa-code]
path = %q
name = "sample-20"
[[models]]
name = "priced"
base_url = "http://127.0.0.1:9/v1"
api_key_env = "NOT_NEEDED_FOR_A_DRY_RUN"
price = { input_per_million = 2.5, output_per_million = 10.0 }
[[models]]
name = "free"
base_url = "http://127.0.0.1:9/round{round}/v1"
`, abs))
	ests, err := EstimatePlan(Options{Plan: p, DataRoot: root, OutDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteEstimates(&buf, ests, p.Estimate.BytesPerToken); err != nil {
		t.Fatal(err)
	}
	golden(t, "testdata/dry-run.golden", buf.Bytes())
	// tool usage: 2 models × 2 rounds × 2 protocols = 8 runs, QA: 2 × 2 = 4 runs;
	// calls 4 × 49 + 4 × 20 = 276 (one generation serves both protocols).
	if len(ests) != 8 || !strings.Contains(buf.String(), "12 runs (results files), 276 model calls") {
		t.Errorf("estimates:\n%s", buf.String())
	}
}

// TestDryRunCostUnknownWithoutPrices: when no model with calls to make has
// a price, the dry run says the cost is unknown instead of "$0.00".
func TestDryRunCostUnknownWithoutPrices(t *testing.T) {
	root := mattoolstest.NewRoot(t).Dir
	p := mustPlan(t, `rounds = 1
benchmarks = ["tool-usage"]
[[models]]
name = "free"
base_url = "http://127.0.0.1:9/v1"
`)
	ests, err := EstimatePlan(Options{Plan: p, DataRoot: root, OutDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteEstimates(&buf, ests, p.Estimate.BytesPerToken); err != nil {
		t.Fatal(err)
	}
	if out := buf.String(); !strings.Contains(out, "cost unknown (no price configured") || strings.Contains(out, "$0.00") {
		t.Errorf("dry run of a plan without prices:\n%s", out)
	}
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if os.Getenv("CI") != "" {
			t.Fatal("-update refuses to run in CI")
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		os.WriteFile(strings.TrimSuffix(path, ".golden")+".got", got, 0o644)
		t.Errorf("%s differs from the output (written to .got):\n%s", path, got)
	}
}

func TestMaxRetriesZeroMeansNoRetry(t *testing.T) {
	root := mattoolstest.NewRoot(t).Dir
	srv := llmtest.New(t, llmtest.Options{Responder: toolAnswer, FaultRate: 1, Faults: []llmtest.Fault{llmtest.FaultServerError}})
	_, err := Run(context.Background(), Options{Plan: mustPlan(t, toolPlan(srv.URL, 1, "max_retries = 0\n")), DataRoot: root, OutDir: t.TempDir(), Unscored: true,
		APIKeys: map[string]string{"FAKE_API_KEY": testKey}})
	if err == nil || !strings.Contains(err.Error(), "1 attempt(s)") || len(srv.Requests()) > 4 {
		t.Errorf("err %v after %d requests; want failure after one attempt per worker", err, len(srv.Requests()))
	}
}

// TestPreparedRunsHoldNoItems: preparing a plan keeps no per-question
// entries for its runs (prepared.items builds them when a run executes), so
// the heap after prepare does not grow with the number of runs. Before, each
// item took ~150 B from the start: 36 runs of a 5,000-question set held
// ~27 MB more than 3 runs did.
func TestPreparedRunsHoldNoItems(t *testing.T) {
	root := mattoolstest.NewRoot(t).Dir
	dir := t.TempDir()
	// A synthetic QA set of 5,000 questions in MatTools' JSON format.
	var docs []map[string]any
	for d := range 50 {
		var qs []map[string]any
		for i := d * 100; i < (d+1)*100; i++ {
			qs = append(qs, map[string]any{"question_id": strconv.Itoa(i + 1), "question": fmt.Sprintf("Which call returns value %d?", i),
				"choices": map[string]string{"A": "A. a", "B": "B. b", "C": "C. c", "D": "D. d"}, "correct_answer": "A"})
		}
		docs = append(docs, map[string]any{"source": map[string]any{"page_content": "synthetic",
			"metadata": map[string]string{"code_source_file": fmt.Sprintf("pymatgen/m%d.py", d), "name": "M", "type": "ClassDef"}}, "questions": qs})
	}
	b, err := json.Marshal(docs)
	if err != nil {
		t.Fatal(err)
	}
	set := filepath.Join(dir, "qa.json")
	if err := os.WriteFile(set, b, 0o644); err != nil {
		t.Fatal(err)
	}
	live := func(models int) (uint64, *engine) {
		text := fmt.Sprintf("rounds = 3\nbenchmarks = [\"qa-code\"]\n[qa_sets.qa-code]\npath = %q\nname = \"synthetic\"\n", set)
		for i := range models {
			text += fmt.Sprintf("[[models]]\nname = \"m%d\"\nbase_url = \"http://127.0.0.1:9/v1\"\n", i)
		}
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		e, err := prepareWith(context.Background(), Options{Plan: mustPlan(t, text), DataRoot: root, OutDir: t.TempDir()}, true)
		if err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		return after.HeapAlloc - min(after.HeapAlloc, before.HeapAlloc), e
	}
	live(1) // what the first prepare allocates once (caches) is not counted
	few, e1 := live(1)
	many, e12 := live(12)
	if len(e1.runs) != 3 || len(e12.runs) != 36 || e12.runs[35].n != 5000 || len(e12.runs[35].items()) != 5000 {
		t.Fatalf("runs %d and %d", len(e1.runs), len(e12.runs))
	}
	// The last run's items come after the other 35 runs' in the plan's order.
	if it := e12.runs[35].items(); it[0].k != 35*5000 || it[4999].index != 4999 || it[4999].qa.QuestionID != "5000" {
		t.Errorf("last run's items: first k %d, last %+v", it[0].k, it[4999])
	}
	t.Logf("heap after prepare: 3 runs %d KiB, 36 runs %d KiB", few>>10, many>>10)
	// 33 more runs' items would be ≥ 33 × 5,000 × 56 B ≈ 9 MB; the runs' own
	// records take a few KiB each (about 40 KiB for the 33).
	if many > few+1<<20 {
		t.Errorf("heap after prepare grows with the runs: 3 runs %d KiB, 36 runs %d KiB", few>>10, many>>10)
	}
	runtime.KeepAlive(e1)
	runtime.KeepAlive(e12)
}
