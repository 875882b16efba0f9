package content

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/datasets/qaaudit"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
	"github.com/mattools-leaderboard/leaderboard/site/sitetest"
)

// qaRunnerRun returns a runner QA run of the question set "sample-balanced"
// of 120 items, correct strict / lenient, with the given extensions.
func qaRunnerRun(t *testing.T, bench results.Benchmark, round, correct, lenient int, b qaaudit.Baselines, f qaaudit.Format) *results.File {
	t.Helper()
	vi := qaaudit.VariantInfo{Variant: qaaudit.VariantBalanced, Algorithm: qaaudit.VariantAlgorithm, Of: "sample", OfQuestions: 120, Questions: 120}
	return qaRunWith(t, bench, round, correct, lenient, map[string]any{qaaudit.ExtensionBaselines: b, qaaudit.ExtensionFormat: f, qaaudit.ExtensionVariant: vi})
}

// qaRunWith is qaRunnerRun with the given extensions.
func qaRunWith(t *testing.T, bench results.Benchmark, round, correct, lenient int, ext map[string]any) *results.File {
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
	r.Extensions = map[string]json.RawMessage{}
	for k, v := range ext {
		r.Extensions[k], _ = json.Marshal(v)
	}
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
	if imported.Baselines != nil || imported.Formats != nil || imported.BaselinesCSV != "" || imported.QAVariant != "" {
		t.Errorf("imported table has baselines %v formats %v variant %q", imported.Baselines, imported.Formats, imported.QAVariant)
	}
	// The imported table says why it has no baselines and what the keys' bias is.
	for _, w := range []string{"runs imported from MatTools' CSVs hold no questions", "240-item sample", "cmd/audit-qa",
		"always answering C scores 48.3 % on code and 49.2 % on doc"} {
		if !strings.Contains(imported.QANote, w) {
			t.Errorf("imported table's note %q lacks %q", imported.QANote, w)
		}
	}
	// The variant table says what it is, from the runs' marker.
	if want := "A balanced variant of question set sample (derivation 1): each item's four choice texts were permuted, deterministically, " +
		"so that each letter is correct for a quarter of the items (code: A 30, B 30, C 30, D 30 of 120; doc: A 30, B 30, C 30, D 30 of 120); " +
		"the questions, correct texts and distractors are unchanged. Its scores are not comparable with those of the set as published, nor averaged with them."; got.QAVariant != want || got.QANote != "" {
		t.Errorf("variant caption %q, want %q (note %q)", got.QAVariant, want, got.QANote)
	}
	if len(v.e.Warnings) != 0 {
		t.Errorf("warnings %q", v.e.Warnings)
	}
	// Columns: code accuracy, doc accuracy, code lenient, doc lenient.
	want := []struct {
		label string
		cells string
		in    string
	}{
		{"Uniform random guess", "25.00 25.00 25.00 25.00", "1/4"},
		{"Best constant letter (code A/B/C/D, doc A/B/C/D)", "25.00 25.00 25.00 25.00", "code A 30/120, doc A 30/120"},
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

// TestQABaselinesOnlyFromAgreeingRunnerRuns: a run not made by the runner
// adds no baselines however it is labelled; runner runs of one set that
// disagree give the set none and a warning naming the runs; a clean
// variant's caption counts the items it left out.
func TestQABaselinesOnlyFromAgreeingRunnerRuns(t *testing.T) {
	b := qaaudit.Baselines{Questions: 91, Letters: [4]int{6, 30, 44, 11}, ConstantLetter: "C", ConstantCorrect: 44, LeakCorrect: 44}
	clean := qaaudit.VariantInfo{Variant: qaaudit.VariantClean, Algorithm: qaaudit.VariantAlgorithm, Of: "sample", OfQuestions: 120, Questions: 91, Malformed: 5, Leaked: 24}
	ext := map[string]any{qaaudit.ExtensionBaselines: b, qaaudit.ExtensionVariant: clean}
	submitted := qaRunWith(t, results.BenchmarkQADoc, 1, 40, 40, ext)
	submitted.Run.Provenance = results.Provenance{Kind: results.ProvenanceSubmitted}
	submitted.Run.RunID = results.MakeRunID(&submitted.Run)
	other := b
	other.LeakCorrect = 50
	runs := []*results.File{qaRunWith(t, results.BenchmarkQACode, 1, 40, 40, ext), qaRunWith(t, results.BenchmarkQACode, 2, 41, 41, ext),
		qaRunWith(t, results.BenchmarkQADoc, 1, 40, 40, map[string]any{qaaudit.ExtensionBaselines: other, qaaudit.ExtensionVariant: clean}),
		qaRunWith(t, results.BenchmarkQADoc, 2, 40, 40, ext), submitted}
	lb := aggregate.Build(runs, aggregate.DefaultCatalog())
	if len(lb.Tables[aggregate.BoardQA]) != 1 {
		t.Fatalf("%d QA tables", len(lb.Tables[aggregate.BoardQA]))
	}
	tab := lb.Tables[aggregate.BoardQA][0]
	recs, warnings := qaTableSets(tab)
	if len(recs) != 1 || recs[results.BenchmarkQACode] == nil || recs[results.BenchmarkQACode].baselines != b {
		t.Errorf("sets %+v, want code only", recs)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "qa-doc disagree") || !strings.Contains(warnings[0], runs[2].Run.RunID) ||
		!strings.Contains(warnings[0], runs[3].Run.RunID) {
		t.Errorf("warnings %q", warnings)
	}
	v := newViews(&Edition{Leaderboard: lb})
	tv := v.table(tab)
	if len(v.e.Warnings) != 1 || len(tv.Baselines) != 3 || tv.Baselines[1].Label != "Best constant letter (code C)" ||
		tv.Baselines[2].Cells[0] != "48.35" || tv.Baselines[2].Cells[1] != "" {
		t.Errorf("warnings %q, baselines %+v", v.e.Warnings, tv.Baselines)
	}
	if want := "A clean variant of question set sample (derivation 1): the set without its malformed and its leaked items " +
		"(code: 91 of 120 items, 5 malformed items and 24 leaked items left out). Its scores are not comparable with those of the set as published, nor averaged with them."; tv.QAVariant != want {
		t.Errorf("caption %q, want %q", tv.QAVariant, want)
	}
	// A frozen release whose QA board has no baselines shows no note (the
	// releases cut before stay as they were); the preview does.
	imp := aggregate.Build(sitetest.Runs(), aggregate.DefaultCatalog())
	for _, frozen := range []bool{true, false} {
		v := newViews(&Edition{Leaderboard: imp, Frozen: frozen})
		for _, tab := range imp.Tables[aggregate.BoardQA] {
			if note := v.table(tab).QANote; (note != "") == frozen {
				t.Errorf("frozen %v: note %q", frozen, note)
			}
		}
	}
}

// TestSampleConstantC: the figures the QA board quotes are those the audit
// measures on the real sample.
func TestSampleConstantC(t *testing.T) {
	dir := os.Getenv("MATTOOLS_QA_SAMPLE")
	if dir == "" {
		t.Skip("MATTOOLS_QA_SAMPLE is not set (the folder with qa_120.json and qa_doc_120.json; CI sets it)")
	}
	for bench, file := range map[results.Benchmark]string{results.BenchmarkQACode: "qa_120.json", results.BenchmarkQADoc: "qa_doc_120.json"} {
		set, err := datasets.LoadQA(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		r := qaaudit.Audit(file, set)
		if got := fmt.Sprintf("%.1f", r.Percent(r.Letters[2])); len(set.Questions) != 120 || got != fmt.Sprintf("%.1f", SampleConstantC[bench]) {
			t.Errorf("%s: %d items, C %s %%, the site says %.1f %%", file, len(set.Questions), got, SampleConstantC[bench])
		}
	}
}
