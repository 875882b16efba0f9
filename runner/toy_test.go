package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/llm/llmtest"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/runner/scoring"
	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
)

// The toy benchmark and protocol: registered from this file alone, to show
// what a new benchmark and a new scoring protocol need (the registries of
// results/benchmarks.go and results/protocols.go, a loader, a Scorer).
const (
	toyBenchmark results.Benchmark = "toy-arithmetic"
	toyProtocol                    = "toy-exact"
)

func init() {
	must := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	must(results.RegisterScoringProtocol(results.ScoringProtocol{ID: toyProtocol, Kind: results.KindToolUsage, Scored: true}))
	must(results.RegisterBenchmark(results.BenchmarkInfo{Name: toyBenchmark, Kind: results.KindToolUsage,
		Versions: []results.BenchmarkVersion{{ID: "1", Questions: 2, Properties: 2}}, Protocols: []string{toyProtocol},
		Title: "Toy arithmetic", Headline: "task_success_rate", Recorded: true}))
	must(datasets.RegisterLoader(string(toyBenchmark), func(root string) (*datasets.Benchmark, error) {
		b := &datasets.Benchmark{Root: root, Version: "1"}
		for i, n := range []int{2, 3} {
			id := fmt.Sprintf("test_double_%d", n)
			b.Questions = append(b.Questions, datasets.Question{Index: i, ID: id, Text: fmt.Sprintf("Question %d (%s): return {'n': %d}.", i, id, i),
				Properties: []datasets.Property{{Name: "n", Value: json.RawMessage(fmt.Sprint(i))}}})
		}
		return b, nil
	}))
}

// toyScorer scores under toy-exact without running anything: a question
// is correct when the answer's code returns its index as n (the fake
// model's answers, toolAnswer, do).
type toyScorer struct{ fakeScorer }

func (s *toyScorer) Score(_ context.Context, q *datasets.Question, sub scoring.Submission) (*scoring.Scored, error) {
	o := scoring.Outcome{Protocol: toyProtocol, Verdict: results.VerdictNotRunnable, Cause: scoring.CauseEmptyCode}
	if strings.Contains(sub.Code, fmt.Sprintf("return {'n': %d}", q.Index)) {
		o = scoring.Outcome{Protocol: toyProtocol, Verdict: results.VerdictCorrect, Runnable: true, PropertiesPassed: len(q.Properties),
			Properties: []results.PropertyOutcome{{Property: "n", Passed: true}}}
	}
	return &scoring.Scored{QuestionID: q.ID, PropertyCount: len(q.Properties), Others: map[string]scoring.Outcome{toyProtocol: o}}, nil
}

// TestToyBenchmarkAndProtocol: a plan names the toy benchmark, whose only
// protocol is the toy one; the runner asks the fake model both questions
// and writes one run of toy-arithmetic, version 1, scored under toy-exact
// (2 of 2 correct), which reads back and forms a table of its own in the
// site's aggregation, titled from the registry.
func TestToyBenchmarkAndProtocol(t *testing.T) {
	root := mattoolstest.NewRoot(t).Dir // the prompts
	srv := llmtest.New(t, llmtest.Options{Responder: toolAnswer})
	text := strings.Replace(toolPlan(srv.URL, 1, ""), "concurrency = 4\n", "concurrency = 4\nbenchmarks = [\"toy-arithmetic\"]\n", 1)
	p := mustPlan(t, text)
	if cs := p.Configurations(); len(cs) != 1 || strings.Join(cs[0].ScoringProtocols, ",") != toyProtocol {
		t.Fatalf("configurations %+v; want one, scored under %s", cs, toyProtocol)
	}
	res, err := Run(context.Background(), Options{Plan: p, DataRoot: root, OutDir: t.TempDir(), Scorer: &toyScorer{}, APIKeys: map[string]string{"FAKE_API_KEY": testKey}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].Status != StatusWritten {
		t.Fatalf("runs %+v; want one written", res)
	}
	f := readRun(t, res[0].Path)
	r := f.Run
	if r.Benchmark != toyBenchmark || r.BenchmarkVersion != "1" || r.ScoringProtocol != toyProtocol || r.Totals.QuestionsCorrect == nil || *r.Totals.QuestionsCorrect != 2 {
		t.Errorf("run %s %s %s, totals %+v; want toy-arithmetic 1 toy-exact, 2 questions correct", r.Benchmark, r.BenchmarkVersion, r.ScoringProtocol, r.Totals)
	}
	lb := aggregate.Build([]*results.File{f}, aggregate.DefaultCatalog())
	var tables []*aggregate.Table
	for _, b := range aggregate.Boards {
		tables = append(tables, lb.Tables[b]...)
	}
	if len(tables) != 1 || !strings.HasPrefix(tables[0].ID, "single-llm-toy-arithmetic") || tables[0].Columns[1].Benchmark != toyBenchmark {
		t.Errorf("tables %+v; want one table of the toy benchmark's own", tables)
	}
}
