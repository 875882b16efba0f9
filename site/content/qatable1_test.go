package content

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/datasets/qaaudit"
	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/results/published"
	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
)

// fakeItem is one hand-made QA item of fakeQASet: its correct letter
// (0–3) and which choice texts its question quotes outside [MASK].
type fakeItem struct {
	correct int
	quoted  []int // choice indices whose text the question holds
}

// fakeItems describes n hand-made items. Correct letters repeat over 20
// items as A×1, B×5, C×10, D×4. The question quotes the correct text (a
// leak) when i mod 3 = 0, else a wrong text when i mod 9 = 1, the correct
// and a wrong text when i mod 9 = 2, otherwise none.
func fakeItems(n int) []fakeItem {
	items := make([]fakeItem, n)
	for i := range items {
		c := 3
		switch k := i % 20; {
		case k == 0:
			c = 0
		case k <= 5:
			c = 1
		case k <= 15:
			c = 2
		}
		wrong := (c + 1) % 4
		var q []int
		switch {
		case i%3 == 0:
			q = []int{c}
		case i%9 == 1:
			q = []int{wrong}
		case i%9 == 2:
			q = []int{c, wrong}
		}
		items[i] = fakeItem{c, q}
	}
	return items
}

// fakeQAZip writes items as upstream's generation_results_<set>.json.zip
// (documents of up to 5 questions, docs/mattools.md §4); it returns the
// zip and each item's Source (the key of MatTools' result CSVs).
func fakeQAZip(t *testing.T, set string, items []fakeItem) ([]byte, []string) {
	t.Helper()
	type question struct {
		QuestionID    string            `json:"question_id"`
		Question      string            `json:"question"`
		Choices       map[string]string `json:"choices"`
		CorrectAnswer string            `json:"correct_answer"`
	}
	type document struct {
		Source struct {
			PageContent string            `json:"page_content"`
			Metadata    map[string]string `json:"metadata"`
		} `json:"source"`
		Questions []question `json:"questions"`
	}
	var docs []document
	sources := make([]string, len(items))
	for i, it := range items {
		if i%5 == 0 {
			var d document
			d.Source.PageContent = "def f(): pass"
			d.Source.Metadata = map[string]string{"code_source_file": fmt.Sprintf("pymatgen/fake/mod%d.py", i/5), "name": "f"}
			docs = append(docs, d)
		}
		d := &docs[len(docs)-1]
		sources[i] = d.Source.Metadata["code_source_file"] + "/f"
		text := func(k int) string { return fmt.Sprintf("%s_item_%d_%s", set, i, datasets.QALetters[k]) }
		q := fmt.Sprintf("In module %d, what is [MASK] bound to?", i)
		for _, k := range it.quoted {
			q += " It is assigned to `obj." + text(k) + "`."
		}
		choices := map[string]string{}
		for k, l := range datasets.QALetters {
			choices[l] = l + ". " + text(k)
		}
		d.Questions = append(d.Questions, question{QuestionID: fmt.Sprint(len(d.Questions) + 1), Question: q, Choices: choices, CorrectAnswer: datasets.QALetters[it.correct]})
	}
	js, err := json.Marshal(docs)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	w, _ := zw.Create("generation_results_" + set + ".json")
	w.Write(js)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), sources
}

// TestTable1BaselinesFromUpstreamQuestionSets imports a fake upstream
// root holding the two question sets (hand-made items, full size, as
// upstream's zips) and two models' QA CSVs: Table 1 (the imported runs of
// the whole sets) gets the three baseline rows with the values the items
// give, counted here from their construction, and no note. The same root
// without the zips gives today's Table 1: no baselines, the note.
func TestTable1BaselinesFromUpstreamQuestionSets(t *testing.T) {
	root := mattoolstest.NewRoot(t)
	root.AddRun("src/pure_agent_test/round1/gemini-1.5-pro", &mattoolstest.Summary{Correct: 10, Partial: 5, FunctionErrors: 34, PropertiesCorrect: 20})
	type want struct {
		letters              [4]int
		constant, leak       int
		constantPct, leakPct string
	}
	wants := map[results.Benchmark]*want{}
	for bench, n := range map[results.Benchmark]int{results.BenchmarkQACode: datasets.NumQACode, results.BenchmarkQADoc: datasets.NumQADoc} {
		set := strings.TrimPrefix(string(bench), "qa-")
		items := fakeItems(n)
		zipped, sources := fakeQAZip(t, set, items)
		root.Write(published.QASetFiles(bench)[0], zipped)
		// The expected baselines, from the construction: the best constant
		// letter is C (10 of every 20); the leak heuristic answers the only
		// quoted text (right when i mod 3 = 0, wrong when i mod 9 = 1) and C
		// otherwise.
		w := &want{}
		for i, it := range items {
			w.letters[it.correct]++
			switch {
			case i%3 == 0:
				w.leak++
			case i%9 == 1:
			case it.correct == 2:
				w.leak++
			}
		}
		w.constant = w.letters[2]
		w.constantPct = fmt.Sprintf("%.2f", 100*float64(w.constant)/float64(n))
		w.leakPct = fmt.Sprintf("%.2f", 100*float64(w.leak)/float64(n))
		wants[bench] = w
		for m, model := range []string{"gemini-1.5-pro", "qwen2.5-7b-instruct"} {
			rows := make([][3]any, n)
			for i := range rows {
				rows[i] = [3]any{sources[i], 1, (i + m) % 3 / 2} // one item in three right
			}
			root.Write(fmt.Sprintf("%s/%s/evaluation_results_%s_%s.csv", published.QAResultsDir, model, set, model), mattoolstest.QACSV(rows))
		}
	}
	// The figures the rows must show, pinned as well (counted separately:
	// code 34621 items = 1731×20 + 1 → A 1732, B 8655, C 17310, D 6924,
	// leak heuristic 21157; doc 34604 → C 17300, leak heuristic 21146).
	if c, d := wants[results.BenchmarkQACode], wants[results.BenchmarkQADoc]; c.letters != [4]int{1732, 8655, 17310, 6924} ||
		c.constantPct != "50.00" || c.leak != 21157 || c.leakPct != "61.11" || d.constant != 17300 || d.constantPct != "49.99" ||
		d.leak != 21146 || d.leakPct != "61.11" {
		t.Fatalf("construction: code %+v, doc %+v", c, d)
	}

	table1 := func(imp *published.Import) (*aggregate.Table, *tableView) {
		t.Helper()
		lb := aggregate.Build(imp.Files, aggregate.DefaultCatalog())
		v := newViews(&Edition{Leaderboard: lb})
		for _, tab := range lb.Tables[aggregate.BoardQA] {
			if tab.QuestionSet == results.QuestionSetAll {
				return tab, v.table(tab)
			}
		}
		t.Fatalf("no QA table of question set all among %d", len(lb.Tables[aggregate.BoardQA]))
		return nil, nil
	}

	imp, err := published.Read(root.Dir, published.Options{Reexecuted: published.NewReexecuted()})
	if err != nil {
		t.Fatal(err)
	}
	// Each imported QA run records its set's baselines and lists the zip among its sources.
	qaRuns := 0
	for _, f := range imp.Files {
		if f.Run.Benchmark.Kind() != results.KindMultipleChoice {
			continue
		}
		qaRuns++
		var b qaaudit.Baselines
		w := wants[f.Run.Benchmark]
		if err := json.Unmarshal(f.Run.Extensions[qaaudit.ExtensionBaselines], &b); err != nil ||
			b.Letters != w.letters || b.ConstantLetter != "C" || b.ConstantCorrect != w.constant || b.LeakCorrect != w.leak {
			t.Errorf("%s: baselines %+v (%v), want %+v", f.Run.RunID, b, err, w)
		}
		src := f.Run.Provenance.Source
		if len(src) != 2 || src[1].Path != published.QASetFiles(f.Run.Benchmark)[0] || len(src[1].SHA256) != 64 {
			t.Errorf("%s: sources %+v", f.Run.RunID, src)
		}
	}
	if qaRuns != 4 {
		t.Fatalf("%d QA runs, want 4", qaRuns)
	}
	tab, tv := table1(imp)
	if len(tab.Rows) < 2 || tv.QANote != "" || len(tv.Baselines) != 3 {
		t.Fatalf("Table 1: %d rows, note %q, baselines %+v", len(tab.Rows), tv.QANote, tv.Baselines)
	}
	code, doc := wants[results.BenchmarkQACode], wants[results.BenchmarkQADoc]
	rows := []struct {
		label, formula string
		cell           func(w *want) string
	}{
		{"Uniform random guess", "1/4", func(*want) string { return "25.00" }},
		{"Best constant letter (code C, doc C)", fmt.Sprintf("code C %d/%d, doc C %d/%d", code.constant, datasets.NumQACode, doc.constant, datasets.NumQADoc),
			func(w *want) string { return w.constantPct }},
		{"Leak heuristic", fmt.Sprintf("code %d/%d, doc %d/%d", code.leak, datasets.NumQACode, doc.leak, datasets.NumQADoc),
			func(w *want) string { return w.leakPct }},
	}
	for i, r := range rows {
		b := tv.Baselines[i]
		if b.Label != r.label || !strings.Contains(b.Formula, r.formula) || len(b.Cells) != len(tab.Columns) {
			t.Errorf("baseline %d: %+v, want %q with %q in the formula", i, b, r.label, r.formula)
			continue
		}
		for c, col := range tab.Columns {
			if w := wants[col.Benchmark]; b.Cells[c] != r.cell(w) {
				t.Errorf("baseline %q, column %d (%s): %q, want %q", r.label, c, col.Benchmark, b.Cells[c], r.cell(w))
			}
		}
	}
	t.Logf("Table 1 baselines: constant code %s %% doc %s %%, leak heuristic code %s %% (%d) doc %s %% (%d)",
		code.constantPct, doc.constantPct, code.leakPct, code.leak, doc.leakPct, doc.leak)
	if csv := string(BaselinesCSV(tab)); !strings.Contains(csv, fmt.Sprintf(",qa-code,2025-05,all,leak-heuristic,,%d,%d,", code.leak, datasets.NumQACode)) {
		t.Errorf("baselines CSV:\n%s", csv)
	}

	// Without the question sets: no baselines, today's note, a warning per set.
	for bench := range wants {
		if err := os.Remove(filepath.Join(root.Dir, published.QASetFiles(bench)[0])); err != nil {
			t.Fatal(err)
		}
	}
	imp, err = published.Read(root.Dir, published.Options{Reexecuted: published.NewReexecuted()})
	if err != nil {
		t.Fatal(err)
	}
	_, tv = table1(imp)
	if tv.Baselines != nil || !strings.Contains(tv.QANote, "runs imported from MatTools' CSVs hold no questions") {
		t.Errorf("without the sets: baselines %+v, note %q", tv.Baselines, tv.QANote)
	}
	if w := strings.Join(imp.Warnings, "\n"); !strings.Contains(w, "generation_results_code.json.zip: no question set of qa-code") ||
		!strings.Contains(w, "generation_results_doc.json.zip: no question set of qa-doc") {
		t.Errorf("warnings %q", imp.Warnings)
	}
}
