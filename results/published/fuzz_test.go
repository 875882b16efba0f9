package published

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/results"
)

// Fuzz targets of the MatTools importers: one file's
// bytes each, through the function the importer reads that file with.
// Invariants: no panic, bounded time, errors are errors; what is accepted
// is consistent (and, for QA, gives a results file that validates).

const fuzzBudget = 10 * time.Second

func timed(t *testing.T, what string, n int, fn func()) {
	start := time.Now()
	fn()
	if d := time.Since(start); d > fuzzBudget {
		t.Fatalf("%s took %v for %d bytes", what, d, n)
	}
}

// FuzzReadGenerations: function_generation_results.jsonl. An accepted file
// has one generation per question, in the published order, every field set.
func FuzzReadGenerations(f *testing.F) {
	f.Add(mattoolstest.JSONL(func(i int) string { return "def f():\n    return {}\n" }))
	f.Add([]byte(`{"question_file_path": "x", "function": "", "function_name": ""}` + "\n"))
	order := datasets.Order()
	f.Fuzz(func(t *testing.T, data []byte) {
		var gens []generation
		var err error
		timed(t, "readGenerations", len(data), func() { gens, err = readGenerations("g.jsonl", data, order) })
		if err != nil {
			return
		}
		if len(gens) != len(order) {
			t.Fatalf("accepted %d generations for %d questions", len(gens), len(order))
		}
		for i, g := range gens {
			if g.QuestionFilePath == nil || g.Function == nil || g.FunctionName == nil || *g.QuestionFilePath != order[i] {
				t.Fatalf("generation %d accepted incomplete or out of order: %+v", i, g)
			}
		}
	})
}

// FuzzReadQACSV: a QA results CSV. An accepted file's items add up to its
// Overall row, and the results file the importer builds from it validates.
func FuzzReadQACSV(f *testing.F) {
	f.Add(mattoolstest.QACSV([][3]any{{"pymatgen/a.py/__init__", 5, 4}, {"pymatgen/b.py/B", 3, 3}, {"pymatgen/a.py/__init__", 2, 0}}))
	f.Add([]byte("Source,Total Questions,Correct Answers,Incorrect Answers,Accuracy\nOverall,0,0,0,0.00%\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var c *qaCounts
		var err error
		timed(t, "readQACSV", len(data), func() { c, err = readQACSV("q.csv", data) })
		if err != nil {
			return
		}
		var q, k int64
		for _, it := range c.items {
			if it.Questions < 1 || it.Correct < 0 || it.Correct > it.Questions {
				t.Fatalf("accepted item %+v", it)
			}
			q += int64(it.Questions)
			k += int64(it.Correct)
		}
		if q != int64(c.questions) || k != int64(c.correct) {
			t.Fatalf("items add up to %d/%d but the totals are %d/%d", k, q, c.correct, c.questions)
		}
		im := &importer{root: t.TempDir(), commit: mattoolstest.Commit}
		file, err := im.qaRun("model-a", "evaluation_results_code_model-a.csv", data)
		if err != nil {
			t.Fatalf("readQACSV accepted what qaRun refuses: %v", err)
		}
		if err := results.Validate(file); err != nil {
			t.Fatalf("imported QA run does not validate: %v", err)
		}
	})
}

// FuzzReadSummary: accuracy_summary.xlsx (written to a temporary file, as
// readSummary opens a path). An accepted summary satisfies the consistency
// rules of docs/mattools.md §3.2.
func FuzzReadSummary(f *testing.F) {
	for _, s := range []mattoolstest.Summary{{Correct: 10, Partial: 5, FunctionErrors: 34, PropertiesCorrect: 20}, {FunctionErrors: 49}} {
		x := excelize.NewFile()
		for cell, v := range s.Cells() {
			x.SetCellValue("Sheet1", cell, v)
		}
		buf, err := x.WriteToBuffer()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes())
	}
	f.Add([]byte("PK\x03\x04 not a zip"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), SummaryFile)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		var s *summary
		var err error
		timed(t, "readSummary", len(data), func() { s, err = readSummary(p, 49, 138) })
		if err != nil {
			return
		}
		if s.questions != 49 || s.properties != 138 || s.correct+s.partial+s.incorrect != 49 || s.incorrect != s.functionErrors ||
			s.partial != s.resultErrors || s.propertiesCorrect+s.propertiesIncorrect != 138 || s.correct < 0 || s.partial < 0 ||
			s.propertiesCorrect < 0 || s.runnable() < 0 || s.runnable() > 49 {
			t.Fatalf("accepted an inconsistent summary %+v", s)
		}
	})
}

// FuzzReadBatch: request_bodies.jsonl and raw_responses.jsonl of a run
// folder. An accepted pair has one temperature and, when responses are
// present, usage for every question.
func FuzzReadBatch(f *testing.F) {
	const n = 3
	var req, resp strings.Builder
	for i := 1; i <= n; i++ {
		req.WriteString(`{"custom_id": "task_` + string(rune('0'+i)) + `", "body": {"model": "m", "temperature": 0.7, "messages": []}}` + "\n")
		resp.WriteString(`{"custom_id": "task_` + string(rune('0'+i)) + `", "error": null, "response": {"status_code": 200, "body": {"usage": {"prompt_tokens": 700, "completion_tokens": 650}}}}` + "\n")
	}
	f.Add([]byte(req.String()), []byte(resp.String()))
	f.Add([]byte(""), []byte(`{"custom_id": "task_1", "response": {"status_code": 500}}`))
	f.Fuzz(func(t *testing.T, reqData, respData []byte) {
		dir := t.TempDir()
		if len(reqData) > 0 {
			os.WriteFile(filepath.Join(dir, RequestBodiesFile), reqData, 0o644)
		}
		if len(respData) > 0 {
			os.WriteFile(filepath.Join(dir, RawResponsesFile), respData, 0o644)
		}
		var b *batchUsage
		var err error
		timed(t, "readBatch", len(reqData)+len(respData), func() { b, _, err = readBatch(dir, n) })
		if err != nil {
			return
		}
		if len(b.prompt) != 0 && (len(b.prompt) != n || len(b.complete) != n) {
			t.Fatalf("accepted usage for %d/%d of %d questions", len(b.prompt), len(b.complete), n)
		}
	})
}

// FuzzParseReexecuted: the store of re-executed verdicts
// (reexecuted.json). An accepted store's runs name known environments.
func FuzzParseReexecuted(f *testing.F) {
	if data, err := os.ReadFile("reexecuted.json"); err == nil && len(data) < 64<<10 {
		f.Add(data)
	}
	f.Add([]byte(`{"environments": {}, "runs": {}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var st *Reexecuted
		var err error
		timed(t, "parseReexecuted", len(data), func() { st, err = parseReexecuted(data, "reexecuted.json") })
		if err != nil {
			if errors.Unwrap(err) == nil && err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		for id, r := range st.Runs {
			if _, ok := st.Environments[r.Environment]; !ok {
				t.Fatalf("run %s: unknown environment accepted", id)
			}
		}
	})
}
