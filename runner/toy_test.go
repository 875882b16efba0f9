package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/llm/llmtest"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/runner/scoring"
	"github.com/mattools-leaderboard/leaderboard/sandbox"
	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
)

// The toy benchmark and protocol: registered from this file alone, to show
// what a new benchmark and a new scoring protocol need (the registries of
// results/benchmarks.go and results/protocols.go, a loader, and the
// protocol's behaviour, scoring.Register).
const (
	toyBenchmark results.Benchmark = "toy-arithmetic"
	toyProtocol                    = "toy-all-or-nothing"
	toyTitle                       = "Toy all-or-nothing"
)

// toyExpected are the toy questions' properties: question i expects n = i
// (what the fake model's answers, toolAnswer, return) and question 1 also
// m = 6, which no answer returns.
var toyExpected = []map[string]int{{"n": 0}, {"n": 1, "m": 6}}

func init() {
	must := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	must(results.RegisterScoringProtocol(results.ScoringProtocol{ID: toyProtocol, Kind: results.KindToolUsage, Scored: true, Title: toyTitle,
		Description: "The returned dict checked property by property; a question earns its properties only when every one passes."}))
	must(scoring.Register(toyAllOrNothing{}))
	must(results.RegisterBenchmark(results.BenchmarkInfo{Name: toyBenchmark, Kind: results.KindToolUsage,
		Versions: []results.BenchmarkVersion{{ID: "1", Questions: 2, Properties: 3}}, Protocols: []string{toyProtocol},
		Title: "Toy arithmetic", Headline: "task_success_rate", Recorded: true}))
	must(datasets.RegisterLoader(string(toyBenchmark), func(root string) (*datasets.Benchmark, error) {
		b := &datasets.Benchmark{Root: root, Version: "1"}
		for i, want := range toyExpected {
			id := fmt.Sprintf("test_double_%d", i+2)
			q := datasets.Question{Index: i, ID: id, Text: fmt.Sprintf("Question %d (%s): return {'n': %d}.", i, id, i)}
			var names []string
			for _, name := range slices.Sorted(maps.Keys(want)) {
				q.Properties = append(q.Properties, datasets.Property{Name: name, Value: json.RawMessage(fmt.Sprint(want[name]))})
				names = append(names, fmt.Sprintf("%q: %d", name, want[name]))
			}
			// A unit test in MatTools' form: a list of errors ending with
			// the counts of failed and expected properties, or "ok".
			q.UnitTest = fmt.Sprintf(`def %s(properties):
    expected = {%s}
    errors = []
    for name, value in expected.items():
        if name not in properties:
            errors.append(f"{name} not found in input properties")
        elif properties[name] != value:
            errors.append(f"{name}: Expected {value} but got {properties[name]}")
    if errors:
        return errors + [len(errors), len(expected)]
    return "ok"
`, id, strings.Join(names, ", "))
			b.Questions = append(b.Questions, q)
		}
		return b, nil
	}))
}

// toyAllOrNothing is the toy protocol's behaviour: the returned value,
// checked property by property as mattools-v1-strict checks it, but a
// question earns its properties only when every one passes; otherwise it
// is partial with none passed, every property failed.
type toyAllOrNothing struct{}

func (toyAllOrNothing) ID() string               { return toyProtocol }
func (toyAllOrNothing) Channel() scoring.Channel { return scoring.Returned }

func (toyAllOrNothing) Admit(runCause string, p scoring.Parse) string {
	if runCause != "" {
		return runCause
	}
	return scoring.ParseCause("", p)
}

func (toyAllOrNothing) Judge(q *datasets.Question, c scoring.Check) (scoring.Outcome, error) {
	if !c.Answered || c.Crash != "" || len(c.Passed) != len(q.Properties) {
		return scoring.VerificationCrash(toyProtocol, scoring.CauseVerifyException, c.Crash+c.HarnessDetail, true), nil
	}
	o := scoring.Outcome{Protocol: toyProtocol, Verdict: results.VerdictCorrect, Runnable: true, PropertiesPassed: len(q.Properties), Errors: c.Errors}
	if slices.Contains(c.Passed, false) {
		o.Verdict, o.PropertiesPassed, o.FailedProperties = results.VerdictPartial, 0, c.Names
	}
	for i, name := range c.Names {
		po := results.PropertyOutcome{Property: name, Passed: o.Verdict == results.VerdictCorrect, Message: c.Messages[i]}
		if !po.Passed && c.Passed[i] {
			po.Message = "all or nothing: another property failed"
		}
		o.Properties = append(o.Properties, po)
	}
	return o, nil
}

// toySandboxScorer opens the scoring sandbox over root, or skips (fails
// under CI, which installs the sandbox) when there is none.
func toySandboxScorer(t *testing.T, root string) *scoring.Scorer {
	python := os.Getenv("MATTOOLS_SANDBOX_PYTHON")
	if python == "" {
		python = "/opt/mattools-sandbox"
	}
	for _, d := range []string{filepath.Dir(root), root, filepath.Join(root, "src"), filepath.Join(root, "src", "tool_source_code")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		os.Chmod(d, 0o755) // readable by the sandbox's uid
	}
	s, err := scoring.Open(context.Background(), "auto", root, sandbox.Options{Slots: 2, Python: python, Cold: true})
	if err != nil {
		if os.Getenv("CI") == "" && errors.Is(err, sandbox.ErrUnavailable) {
			t.Skipf("no sandbox with the pinned Python environment (run `make setup` as root): %v", err)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestToyBenchmarkAndProtocol: a plan names the toy benchmark, whose only
// protocol is the toy one; the runner asks the fake model both questions
// and the sandbox scorer runs and checks both answers ({'n': i}), deciding
// the toy protocol's outcome by its own behaviour: question 0 correct (1
// property), question 1 partial with 0 of 2 properties (n passed, m is
// missing), where mattools-v1-strict credits n. The run of toy-arithmetic,
// version 1, scored under the toy protocol, reads back and forms a ranked
// table of its own in the site's aggregation, its columns titled from the
// registry. The run records the toy protocol (extension
// "scoring_protocol") beside the toy benchmark, so that a process that
// links neither (a tiny program, go run) reads, validates and aggregates
// it the same way.
func TestToyBenchmarkAndProtocol(t *testing.T) {
	root := mattoolstest.NewRoot(t).Dir // the prompts
	scorer := toySandboxScorer(t, root)
	srv := llmtest.New(t, llmtest.Options{Responder: toolAnswer})
	text := strings.Replace(toolPlan(srv.URL, 1, ""), "concurrency = 4\n", "concurrency = 4\nbenchmarks = [\"toy-arithmetic\"]\n", 1)
	p := mustPlan(t, text)
	if cs := p.Configurations(); len(cs) != 1 || strings.Join(cs[0].ScoringProtocols, ",") != toyProtocol {
		t.Fatalf("configurations %+v; want one, scored under %s", cs, toyProtocol)
	}
	res, err := Run(context.Background(), Options{Plan: p, DataRoot: root, OutDir: t.TempDir(), Scorer: scorer, APIKeys: map[string]string{"FAKE_API_KEY": testKey}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].Status != StatusWritten {
		t.Fatalf("runs %+v; want one written", res)
	}
	f := readRun(t, res[0].Path)
	r := f.Run
	if r.Benchmark != toyBenchmark || r.BenchmarkVersion != "1" || r.ScoringProtocol != toyProtocol || r.Totals.QuestionsCorrect == nil ||
		*r.Totals.QuestionsCorrect != 1 || r.Totals.PropertiesPassed == nil || *r.Totals.PropertiesPassed != 1 {
		t.Errorf("run %s %s %s, totals %+v; want toy-arithmetic 1 %s, 1 question correct, 1 property passed", r.Benchmark, r.BenchmarkVersion, r.ScoringProtocol, r.Totals, toyProtocol)
	}
	if ext, want := string(r.Extensions[results.ExtensionScoringProtocol]), `{"id":"toy-all-or-nothing","kind":"tool-usage","scored":true,`+
		`"title":"Toy all-or-nothing","description":"The returned dict checked property by property; a question earns its properties only when every one passes."}`; ext != want {
		t.Errorf("extension %s = %s; want %s", results.ExtensionScoringProtocol, ext, want)
	}
	var got []string
	for _, q := range f.Questions {
		got = append(got, fmt.Sprintf("%s %s %d %v", q.QuestionID, q.Verdict, *q.PropertiesPassed, q.FailedProperties))
	}
	if want := []string{"test_double_2 correct 1 []", "test_double_3 partial 0 [m n]"}; !slices.Equal(got, want) {
		t.Errorf("rows %q; want %q", got, want)
	}

	// The same answer under mattools-v1-strict, from the same executions:
	// n's property is credited there.
	load, _ := datasets.LoaderOf(string(toyBenchmark))
	b, err := load(root)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scorer.Score(context.Background(), &b.Questions[1], scoring.Submission{Code: "def f():\n    return {'n': 1}\n", FunctionName: "f"})
	if err != nil {
		t.Fatal(err)
	}
	if toy, strict := sc.Outcomes[toyProtocol], sc.Outcomes[results.ProtocolMatToolsV1Strict]; toy.PropertiesPassed != 0 || strict.PropertiesPassed != 1 ||
		strict.Verdict != results.VerdictPartial {
		t.Errorf("question 1: %s %d passed, mattools-v1-strict %s %d; want 0 and partial 1", toyProtocol, toy.PropertiesPassed, strict.Verdict, strict.PropertiesPassed)
	}

	lb := aggregate.Build([]*results.File{f}, aggregate.DefaultCatalog())
	var ranked []*aggregate.RankedTable
	for _, ts := range lb.Ranked {
		ranked = append(ranked, ts...)
	}
	if len(ranked) != 1 || ranked[0].Benchmark != toyBenchmark || ranked[0].HeadlineProtocol != toyProtocol ||
		ranked[0].Columns[0].Title() != "Task success rate (%), "+toyTitle {
		t.Fatalf("ranked tables %+v; want one of the toy benchmark, its first column titled %q", ranked, "Task success rate (%), "+toyTitle)
	}
	if rows := ranked[0].Rows; len(rows) != 1 || rows[0].Cells[0] == nil || math.Abs(rows[0].Cells[0].Summary.Mean-100.0/3) > 1e-9 {
		t.Errorf("ranked rows %+v; want one with a task success rate of 1/3", rows)
	}

	// A fresh process that links neither the toy benchmark nor the toy
	// protocol (only results and site/aggregate) reads the file: its
	// extensions register both, so it validates and forms the same table.
	prog := filepath.Join(t.TempDir(), "main.go")
	if err := os.WriteFile(prog, []byte(toyReader), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "run", prog, res[0].Path, toyProtocol)
	cmd.Dir = ".."
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go run (a reader without the toy): %v\n%s", err, out)
	}
	if want := "before: false false\ntoy-arithmetic|toy-all-or-nothing|Task success rate (%), Toy all-or-nothing|33.3333\n"; string(out) != want {
		t.Errorf("a reader without the toy printed\n%s\nwant\n%s", out, want)
	}
}

// toyReader is a program that knows the toy benchmark and protocol only
// from a results file: it prints whether they were registered before
// reading it (os.Args[1]; protocol os.Args[2]), then each ranked table the
// site's aggregation forms from it: benchmark, headline protocol, first
// column's title and first row's mean.
const toyReader = `package main

import (
	"fmt"
	"os"

	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
)

func main() {
	_, protocol := results.LookupScoringProtocol(os.Args[2])
	_, benchmark := results.LookupBenchmark("toy-arithmetic")
	fmt.Println("before:", protocol, benchmark)
	f, err := results.Read(os.Args[1])
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	for _, ts := range aggregate.Build([]*results.File{f}, aggregate.DefaultCatalog()).Ranked {
		for _, t := range ts {
			fmt.Printf("%s|%s|%s|%.4f\n", t.Benchmark, t.HeadlineProtocol, t.Columns[0].Title(), t.Rows[0].Cells[0].Summary.Mean)
		}
	}
}
`
