package e2e_test

// A toy system, registered by this file alone, run through the whole
// pipeline: a plan naming it → the runner (against the fake
// OpenAI-compatible server, scored by a fake scorer) → results files →
// the site. It needs no sandbox and no MatTools data (a made-up data root).

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/llm"
	"github.com/mattools-leaderboard/leaderboard/llm/llmtest"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/runner"
	"github.com/mattools-leaderboard/leaderboard/runner/plan"
	"github.com/mattools-leaderboard/leaderboard/runner/scoring"
	"github.com/mattools-leaderboard/leaderboard/runner/systems"
	"github.com/mattools-leaderboard/leaderboard/site"
	"github.com/mattools-leaderboard/leaderboard/site/release"
)

// toySystem asks the model "name: <question id>" in one call and takes the
// first line of its answer as the function name, the rest as the code.
const toySystem results.System = "toy-echo"

func init() {
	systems.Register(systems.Registration{Name: toySystem, New: func(p systems.Params) (systems.System, error) {
		if p.RetrievalSource != 0 {
			return nil, fmt.Errorf("system %s uses no retrieval source; got %d", toySystem, p.RetrievalSource)
		}
		return toy{}, nil
	}})
}

type toy struct{}

func (toy) Name() results.System { return toySystem }

// Record: the toy records how it asks (system parameter prompt).
func (toy) Record(_ systems.Resources, r *results.Run) error {
	if r.SystemParams == nil {
		r.SystemParams = map[string]string{}
	}
	r.SystemParams["prompt"] = "name: <question id>"
	return nil
}

func (t toy) Build(context.Context, systems.Resources) (systems.Answerer, error) { return t, nil }

func (toy) Generate(ctx context.Context, q *datasets.Question, env systems.Env) (systems.Generation, error) {
	var g systems.Generation
	c, err := env.LLM.Complete(ctx, []llm.Message{llm.User("name: " + q.ID)})
	if err != nil {
		return g, err
	}
	g.Calls, g.PromptTokens, g.CompletionTokens, g.Latency, g.Attempts = 1, c.PromptTokens, c.CompletionTokens, c.Latency, c.Attempts
	g.Response, g.FinishReason = c.Content, c.FinishReason
	name, code, ok := strings.Cut(c.Content, "\n")
	if ok {
		g.FunctionName, g.Code, g.Extracted = name, code, true
	}
	return g, nil
}

func (toy) Estimate(q *datasets.Question, _ *systems.Prompts) systems.Estimate {
	return systems.Estimate{Calls: 1, PromptBytes: len("name: " + q.ID)}
}

// toyScorer passes every property of a question whose index is even and
// fails the others as not runnable, under both protocols, when the code is
// the toy model's for that question.
type toyScorer struct{}

func (toyScorer) Environment() scoring.Environment {
	return scoring.Environment{Sandbox: results.Sandbox{Backend: "fake", TimeoutSeconds: 60, LockSHA256: "0123"},
		Libraries: map[string]string{"pymatgen": "2024.8.9"}}
}

func (toyScorer) Score(_ context.Context, q *datasets.Question, sub scoring.Submission) (*scoring.Scored, error) {
	if sub.FunctionName != "f_"+q.ID || sub.Code != "def f_"+q.ID+"(): return {}" {
		return nil, fmt.Errorf("question %s: scored the answer %q/%q", q.ID, sub.FunctionName, sub.Code)
	}
	out := &scoring.Scored{QuestionID: q.ID, PropertyCount: len(q.Properties)}
	for _, o := range []struct {
		dst      *scoring.Outcome
		protocol string
	}{{&out.V1, results.ProtocolMatToolsV1}, {&out.Strict, results.ProtocolMatToolsV1Strict}} {
		*o.dst = scoring.Outcome{Protocol: o.protocol, Verdict: results.VerdictNotRunnable, Cause: "exception:TypeError"}
		if q.Index%2 == 0 {
			*o.dst = scoring.Outcome{Protocol: o.protocol, Verdict: results.VerdictCorrect, Runnable: true, PropertiesPassed: len(q.Properties)}
		}
	}
	return out, nil
}

func TestToySystemFromPlanToSite(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a site with Hugo; skipped with -short")
	}
	root := mattoolstest.NewRoot(t)
	root.AddDataFiles() // all 49 questions executable
	srv := llmtest.New(t, llmtest.Options{Responder: func(r llmtest.Request) llmtest.Reply {
		id := strings.TrimPrefix(r.Prompt(), "name: ")
		return llmtest.Reply{Content: "f_" + id + "\ndef f_" + id + "(): return {}", PromptTokens: 10, CompletionTokens: 4}
	}})
	base := t.TempDir()
	text := fmt.Sprintf(`systems = [%q]
rounds = 2
[[models]]
name = "toy-model"
base_url = %q
timeout = "30s"
`, toySystem, srv.URL)
	p, err := plan.Parse([]byte(text), filepath.Join(base, "plan.toml"))
	if err != nil {
		t.Fatal(err)
	}
	resultsDir := filepath.Join(base, "results")
	o := runner.Options{Plan: p, DataRoot: root.Dir, OutDir: resultsDir, Scorer: toyScorer{}}
	ests, err := runner.EstimatePlan(o)
	if err != nil {
		t.Fatal(err)
	}
	if len(ests) != 2 || ests[0].System != toySystem || ests[0].Calls != 49 || ests[1].Calls != 49 {
		t.Fatalf("estimates %+v; want 2 configurations × rounds of the toy, 49 calls each", ests)
	}
	res, err := runner.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 4 || len(srv.Requests()) != 2*49 {
		t.Fatalf("%d runs from %d requests; want 4 runs (2 rounds × 2 protocols) from 98", len(res), len(srv.Requests()))
	}
	files, err := results.ReadDir(resultsDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		r := f.Run
		// 25 even-indexed questions are correct: 81 of the 138 properties
		// (their property counts, as runner's TestScoredRunsOnePerProtocol sums them).
		if r.System != toySystem || r.SystemParams["prompt"] != "name: <question id>" || !r.Totals.Scored ||
			*r.Totals.QuestionsCorrect != 25 || *r.Totals.Runnable != 25 || *r.Totals.PropertiesPassed != 81 || r.Totals.Properties != 138 {
			t.Errorf("%s: system %q, params %v, totals %+v", r.RunID, r.System, r.SystemParams, r.Totals)
		}
	}

	bench, err := datasets.Load(root.Dir)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(base, "public")
	rep, err := site.Build(context.Background(), site.Options{ResultsDir: resultsDir, Benchmark: bench, DataHint: "hint",
		RepoRoot: repoRoot(t), OutDir: out, WorkDir: filepath.Join(base, "work"), Releases: []release.Release{}, Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Runs != 4 || len(rep.Skipped) != 0 {
		t.Errorf("site read %d runs, skipped %v; want the toy's 4", rep.Runs, rep.Skipped)
	}
	// The toy's configuration is ranked on the landing board, one row
	// for both protocols: task success rate 25/49 = 51.02 %, properties
	// 81/138 = 58.70 % in each round (n = 2), linked to the toy's system page.
	preview := filepath.Join(out, site.PreviewPath)
	board, err := os.ReadFile(filepath.Join(preview, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile(`(?s)<tr[^>]*data-system="` + string(toySystem) + `"[^>]*>.*?</tr>`)
	rows := row.FindAllString(string(board), -1)
	if len(rows) != 1 {
		t.Fatalf("the landing page has %d rows of system %s, want 1", len(rows), toySystem)
	}
	for _, w := range []string{">toy-model</a>", `<a href="./systems/toy-echo/">toy-echo</a>`, "round 1: 51.02 (25/49); round 2: 51.02 (25/49)",
		"round 1: 58.70 (81/138); round 2: 58.70 (81/138)", "mattools-v1-strict"} {
		if !strings.Contains(rows[0], w) {
			t.Errorf("toy row lacks %q: %s", w, rows[0])
		}
	}
	sys, err := os.ReadFile(filepath.Join(preview, "systems", string(toySystem), "index.html"))
	if err != nil {
		t.Fatalf("the toy's system page: %v", err)
	}
	if !strings.Contains(string(sys), "toy-model") {
		t.Errorf("the toy's system page does not list its configuration")
	}
}
