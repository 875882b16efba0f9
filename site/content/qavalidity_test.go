package content

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/datasets/qaaudit"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
	"github.com/mattools-leaderboard/leaderboard/site/sitetest"
)

// qaRunnerRun returns a runner QA run of the question set "sample-balanced"
// of 120 items, correct strict / lenient, with the given extensions.
func qaRunnerRun(t *testing.T, bench results.Benchmark, round, correct, lenient int, b qaaudit.Baselines, f qaaudit.Format) *results.File {
	t.Helper()
	var base *results.File
	for _, x := range sitetest.Runs() {
		if x.Run.Benchmark == bench {
			base = x
			break
		}
	}
	r := base.Run
	r.Model, r.ModelDisplayName, r.Round = "answers-c", "Answers C", round
	r.ScoringProtocol, r.Provenance = results.ProtocolQAV1, results.Provenance{Kind: results.ProvenanceRunner}
	r.QuestionSet = results.QuestionSet{Name: "sample-balanced", Questions: 120}
	r.Totals = results.Totals{Scored: true, Questions: 120, Correct: &correct, CorrectLenient: &lenient}
	bj, _ := json.Marshal(b)
	fj, _ := json.Marshal(f)
	r.Extensions = map[string]json.RawMessage{qaaudit.ExtensionBaselines: bj, qaaudit.ExtensionFormat: fj}
	r.RunID = results.MakeRunID(&r)
	return &results.File{Run: r}
}

// TestQABoardBaselinesAndFormats: a QA table of runner runs gets the
// baseline rows of its sets and its format diagnostics; the fixture's
// imported QA table, whose runs record neither, gets none.
func TestQABoardBaselinesAndFormats(t *testing.T) {
	code := qaaudit.Baselines{Questions: 120, Letters: [4]int{30, 30, 30, 30}, ConstantLetter: "A", ConstantCorrect: 30, LeakCorrect: 41}
	doc := qaaudit.Baselines{Questions: 120, Letters: [4]int{30, 30, 30, 30}, ConstantLetter: "A", ConstantCorrect: 30, LeakCorrect: 30}
	// "Answer: C" to every item: all rejected by the exact rule, all C by the lenient one.
	allC := func(b qaaudit.Baselines) qaaudit.Format {
		return qaaudit.Format{Answers: 120, StrictRejected: 120, LenientFound: 120, ModelLetters: [5]int{0, 0, 120, 0, 0}, KeyLetters: b.Letters}
	}
	runs := append(sitetest.Runs(),
		qaRunnerRun(t, results.BenchmarkQACode, 1, 0, 30, code, allC(code)),
		qaRunnerRun(t, results.BenchmarkQACode, 2, 0, 30, code, allC(code)),
		qaRunnerRun(t, results.BenchmarkQADoc, 1, 0, 30, doc, allC(doc)))
	lb := aggregate.Build(runs, aggregate.DefaultCatalog())
	v := newViews(&Edition{Leaderboard: lb})
	var got, imported *tableView
	for _, tab := range lb.Tables[aggregate.BoardQA] {
		tv := v.table(tab)
		switch tab.QuestionSet {
		case "sample-balanced":
			got = tv
		default: // the fixture's imported QA runs
			imported = tv
		}
	}
	if got == nil || imported == nil {
		for _, tab := range lb.Tables[aggregate.BoardQA] {
			t.Logf("table %s %s", tab.QuestionSet, tab.ScoringProtocol)
		}
		t.Fatal("missing QA tables")
	}
	if imported.Baselines != nil || imported.Formats != nil || imported.BaselinesCSV != "" {
		t.Errorf("imported table has baselines %v formats %v", imported.Baselines, imported.Formats)
	}
	// Columns: code accuracy, doc accuracy, code lenient, doc lenient.
	want := []struct {
		label string
		cells string
		in    string
	}{
		{"Uniform random guess", "25.00 25.00 25.00 25.00", "1/4"},
		{"Best constant letter (code A, doc A)", "25.00 25.00 25.00 25.00", "code A 30/120, doc A 30/120"},
		{"Leak heuristic", "34.17 25.00 34.17 25.00", "code 41/120, doc 30/120"},
	}
	if len(got.Columns) != 4 || len(got.Baselines) != len(want) {
		t.Fatalf("columns %v, baselines %+v", got.Columns, got.Baselines)
	}
	for i, w := range want {
		b := got.Baselines[i]
		if b.Label != w.label || strings.Join(b.Cells, " ") != w.cells || !strings.Contains(b.Formula, w.in) {
			t.Errorf("baseline %d: %+v, want %s with cells %s and %q in the formula", i, b, w.label, w.cells, w.in)
		}
	}
	var tab *aggregate.Table
	for _, x := range lb.Tables[aggregate.BoardQA] {
		if x.QuestionSet == "sample-balanced" {
			tab = x
		}
	}
	wantCSV := "table,benchmark,benchmark_version,question_set,baseline,letter,correct,questions,percent\n" +
		tab.ID + ",qa-code,2025-05,sample-balanced,uniform-guess,,30,120,25.0000\n" +
		tab.ID + ",qa-code,2025-05,sample-balanced,constant-letter,A,30,120,25.0000\n" +
		tab.ID + ",qa-code,2025-05,sample-balanced,leak-heuristic,,41,120,34.1667\n" +
		tab.ID + ",qa-doc,2025-05,sample-balanced,uniform-guess,,30,120,25.0000\n" +
		tab.ID + ",qa-doc,2025-05,sample-balanced,constant-letter,A,30,120,25.0000\n" +
		tab.ID + ",qa-doc,2025-05,sample-balanced,leak-heuristic,,30,120,25.0000\n"
	if b := string(BaselinesCSV(tab)); b != wantCSV || got.BaselinesCSV != "downloads/tables/"+tab.ID+"-baselines.csv" {
		t.Errorf("baselines CSV %s:\n%s\nwant:\n%s", got.BaselinesCSV, b, wantCSV)
	}
	if len(got.Formats) != 2 {
		t.Fatalf("formats %+v", got.Formats)
	}
	c := got.Formats[0]
	if c.Benchmark != "code" || c.Runs != 2 || c.Answers != 240 || c.Rejected != "240 (100.0 %)" || c.LenientFound != "240 (100.0 %)" ||
		c.ModelLetters != "A 0.0 · B 0.0 · C 100.0 · D 0.0 · none 0.0" || c.KeyLetters != "A 25.0 · B 25.0 · C 25.0 · D 25.0" {
		t.Errorf("code format %+v", c)
	}
	if d := got.Formats[1]; d.Benchmark != "doc" || d.Runs != 1 || d.Answers != 120 {
		t.Errorf("doc format %+v", d)
	}
	// The model page lists the same diagnostics.
	var confs []*aggregate.Configuration
	for _, cf := range lb.Configurations {
		if cf.Key.Model == "answers-c" {
			confs = append(confs, cf)
		}
	}
	if f := v.qaFormats(confs); len(f) != 2 || f[0] != c {
		t.Errorf("model page formats %+v", f)
	}
}
