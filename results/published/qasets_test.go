package published

import (
	"archive/zip"
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/datasets/qaaudit"
	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/results"
)

// zipOf returns a zip holding one file name with data.
func zipOf(t *testing.T, name, data string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	w, _ := zw.Create(name)
	w.Write([]byte(data))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

const threeItems = `[{"source": {"page_content": "x", "metadata": {"code_source_file": "pymatgen/a.py", "name": "A"}},
 "questions": [
  {"question_id": "1", "question": "Q [MASK] uses alpha_x?", "choices": {"A": "A. alpha_x", "B": "B. beta_x", "C": "C. gamma", "D": "D. delta"}, "correct_answer": "A"},
  {"question_id": "2", "question": "Q two?", "choices": {"A": "A. a1", "B": "B. b1", "C": "C. c1", "D": "D. d1"}, "correct_answer": "C"},
  {"question_id": "3", "question": "Q three?", "choices": {"A": "A. a2", "B": "B. b2", "C": "C. c2", "D": "D. d2"}, "correct_answer": "C"}]}]`

// TestQASetBaselinesOnlyForTheWholeSet: a question set whose size is not
// the run's gives a whole-set run no baselines and a warning naming both
// files; a run of part of a set (published-subset) gets none without
// reading the set; a set that does not load stops the import naming its
// file and field; an unzipped set is read as well.
func TestQASetBaselinesOnlyForTheWholeSet(t *testing.T) {
	root := mattoolstest.NewRoot(t)
	full := make([][3]any, datasets.NumQACode)
	for i := range full {
		full[i] = [3]any{"pymatgen/a.py/A", 1, i % 2}
	}
	csvRel := QAResultsDir + "/gemini-1.5-pro/evaluation_results_code_gemini-1.5-pro.csv"
	root.Write(csvRel, mattoolstest.QACSV(full))
	root.Write(QASetFiles(results.BenchmarkQACode)[0], zipOf(t, "generation_results_code.json", threeItems))
	imp, err := Read(root.Dir, Options{Reexecuted: NewReexecuted()})
	if err != nil {
		t.Fatal(err)
	}
	w := strings.Join(imp.Warnings, "\n")
	if len(imp.Files) != 1 || imp.Files[0].Run.Extensions != nil || len(imp.Files[0].Run.Provenance.Source) != 1 ||
		!strings.Contains(w, csvRel+": 34621 questions, but qa_benchmark/generated_qa/generation_results_code.json.zip has 3: no baselines recorded") {
		t.Errorf("files %d, extensions %v, warnings %q", len(imp.Files), imp.Files[0].Run.Extensions, imp.Warnings)
	}

	// A subset run: the set is not read (a malformed one is no error then).
	sub := mattoolstest.NewRoot(t)
	sub.Write(csvRel, mattoolstest.QACSV([][3]any{{"pymatgen/a.py/A", 3, 2}}))
	sub.Write(QASetFiles(results.BenchmarkQACode)[0], []byte("not a zip"))
	if imp, err := Read(sub.Dir, Options{Reexecuted: NewReexecuted()}); err != nil || imp.Files[0].Run.Extensions != nil {
		t.Errorf("subset run: err %v, files %+v", err, imp)
	}
	// A whole-set run with a set that does not load: an error naming the file.
	root.Write(QASetFiles(results.BenchmarkQACode)[0], zipOf(t, "generation_results_code.json", strings.Replace(threeItems, `"correct_answer": "A"`, `"correct_answer": "E"`, 1)))
	if _, err := Read(root.Dir, Options{Reexecuted: NewReexecuted()}); err == nil ||
		!strings.Contains(err.Error(), "generation_results_code.json.zip") || !strings.Contains(err.Error(), "questions[0].correct_answer") {
		t.Errorf("malformed set: err %v", err)
	}

	// The unzipped JSON of the right size: the run records its baselines.
	var b strings.Builder
	b.WriteString("[")
	for i := 0; i < datasets.NumQACode; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		l := "B"
		if i%4 == 0 {
			l = "D"
		}
		b.WriteString(`{"source_file": "pymatgen/a.py", "question": "Q?", "choices": {"A": "A. a", "B": "B. b", "C": "C. c", "D": "D. d"}, "correct_answer": "` + l + `"}`)
	}
	b.WriteString("]")
	flat := mattoolstest.NewRoot(t)
	flat.Write(csvRel, mattoolstest.QACSV(full))
	flat.Write(QASetFiles(results.BenchmarkQACode)[1], []byte(b.String()))
	imp, err = Read(flat.Dir, Options{Reexecuted: NewReexecuted()})
	if err != nil {
		t.Fatal(err)
	}
	// 34621 items: D for i mod 4 = 0 (8656), B otherwise (25965); no text
	// is quoted, so the leak heuristic answers B throughout.
	want := `{"questions":34621,"letters":[0,25965,0,8656],"constant_letter":"B","constant_correct":25965,"leak_correct":25965}`
	r := imp.Files[0].Run
	if got := string(r.Extensions[qaaudit.ExtensionBaselines]); got != want || r.Provenance.Source[1].Path != QASetFiles(results.BenchmarkQACode)[1] {
		t.Errorf("baselines %s, want %s; sources %+v", got, want, r.Provenance.Source)
	}
	// The results file keeps them.
	dir := t.TempDir()
	if err := imp.WriteAll(dir); err != nil {
		t.Fatal(err)
	}
	back, err := results.Read(filepath.Join(dir, r.RunID+results.Extension))
	if err != nil || string(back.Run.Extensions[qaaudit.ExtensionBaselines]) != want {
		t.Errorf("read back: %v, %s", err, back.Run.Extensions[qaaudit.ExtensionBaselines])
	}
}
