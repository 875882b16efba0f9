package main

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/datasets/qaaudit"
)

// upstreamSet is a made-up set in upstream's document format: 4 items,
// correct letters C, C, B, D; item 1 has an empty text ("D.") and leaks
// "from_str"; item 3 repeats item 0's question.
const upstreamSet = `[
 {"source": {"metadata": {"code_source_file": "pymatgen/a.py", "name": "f"}},
  "questions": [
   {"question_id": "1", "question": "Which call? [MASK]", "choices": {"A": "A. one", "B": "B. two", "C": "C. three", "D": "D. four"}, "correct_answer": "C"},
   {"question_id": "2", "question": "x.[MASK] = newobj.from_str", "choices": {"A": "A. to_str", "B": "B. parse", "C": "C. from_str", "D": "D."}, "correct_answer": "C"}]},
 {"source": {"metadata": {"code_source_file": "pymatgen/b.py", "name": "g"}},
  "questions": [
   {"question_id": "1", "question": "Which class?", "choices": {"A": "A. Foo", "B": "B. Bar", "C": "C. Baz", "D": "D. Qux"}, "correct_answer": "B"},
   {"question_id": "2", "question": "Which call? [MASK]", "choices": {"A": "A. one", "B": "B. two", "C": "C. three", "D": "D. four"}, "correct_answer": "D"}]}
]`

func TestAuditUpstreamZip(t *testing.T) {
	dir := t.TempDir()
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	f, _ := zw.Create("generation_results_code.json")
	f.Write([]byte(upstreamSet))
	zw.Close()
	in := filepath.Join(dir, "generation_results_code.json.zip")
	os.WriteFile(in, zb.Bytes(), 0o644)
	csvOut, vdir := filepath.Join(dir, "flagged.csv"), filepath.Join(dir, "variants")
	var out, errb bytes.Buffer
	if code := run([]string{"-csv", csvOut, "-variants", vdir, in}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	lines := strings.Split(out.String(), "\n")
	for i, want := range []string{
		"set generation_results_code (" + in + ")",
		"correct letters: A 0.0% B 25.0% C 50.0% D 25.0% (4 items)",
		"best constant letter: C 50.0% (2 of 4)",
		"malformed: 1 items (25.0%): extra-choice 0, bad-prefix 0, empty-text 1, duplicate-text 0, mask-in-choice 0, html-entity 0",
		"leaked: strict 1 (25.0%), loose 1 (25.0%)",
		"duplicate questions: 1 (25.0%)",
		// The leak heuristic answers item 1 from the question and C elsewhere: items 0 and 1.
		"baselines: uniform guess 25.0%, constant C 50.0%, leak heuristic 50.0%",
	} {
		if lines[i] != want {
			t.Errorf("line %d: %q, want %q", i+1, lines[i], want)
		}
	}
	csvb, _ := os.ReadFile(csvOut)
	wantCSV := "set,item_index,item,source,rule\n" +
		"generation_results_code,1,pymatgen/a.py/f#0.2,pymatgen/a.py/f,empty-text\n" +
		"generation_results_code,1,pymatgen/a.py/f#0.2,pymatgen/a.py/f,leaked-strict\n" +
		"generation_results_code,1,pymatgen/a.py/f#0.2,pymatgen/a.py/f,leaked-loose\n" +
		"generation_results_code,3,pymatgen/b.py/g#1.2,pymatgen/b.py/g,duplicate-question\n"
	if string(csvb) != wantCSV {
		t.Errorf("CSV:\n%s\nwant:\n%s", csvb, wantCSV)
	}
	// The written item lists load back as the variants the runner derives.
	orig, err := datasets.LoadQA(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range qaaudit.Variants {
		got, err := datasets.LoadQA(filepath.Join(vdir, "generation_results_code."+v+".json"))
		if err != nil {
			t.Fatal(err)
		}
		want, _, _ := qaaudit.Variant(orig, v)
		if len(got.Questions) != len(want.Questions) {
			t.Fatalf("%s: %d items, want %d", v, len(got.Questions), len(want.Questions))
		}
		for i := range want.Questions {
			g, w := got.Questions[i], want.Questions[i]
			if g.ID != w.ID || g.Question != w.Question || g.Choices != w.Choices || g.CorrectAnswer != w.CorrectAnswer {
				t.Errorf("%s item %d: %+v, want %+v", v, i, g, w)
			}
		}
	}
	if n := len(mustLoad(t, filepath.Join(vdir, "generation_results_code.clean.json")).Questions); n != 3 {
		t.Errorf("clean: %d items, want 3 (without item 1)", n)
	}
}

func mustLoad(t *testing.T, p string) *datasets.QASet {
	t.Helper()
	s, err := datasets.LoadQA(p)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestAuditUsage(t *testing.T) {
	t.Setenv(SampleEnv, "")
	var out, errb bytes.Buffer
	if code := run(nil, &out, &errb); code != 2 || !strings.Contains(errb.String(), SampleEnv) {
		t.Errorf("no SET and no %s: exit %d, %q", SampleEnv, code, errb.String())
	}
	if code := run([]string{filepath.Join(t.TempDir(), "absent.json")}, &out, &errb); code != 1 {
		t.Errorf("absent file: exit %d", code)
	}
}

// TestAuditSample runs the command on the real sample ($MATTOOLS_QA_SAMPLE).
func TestAuditSample(t *testing.T) {
	if os.Getenv(SampleEnv) == "" {
		t.Skip(SampleEnv + " is not set (the folder with qa_120.json and qa_doc_120.json; CI sets it)")
	}
	var out, errb bytes.Buffer
	if code := run(nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{
		"correct letters: A 6.7% B 33.3% C 48.3% D 11.7% (120 items)",
		"correct letters: A 1.7% B 41.7% C 49.2% D 7.5% (120 items)",
		"| qa_120 | 120 | 6.7% | 33.3% | 48.3% | 11.7% | C 48.3% | 5 | 25 | 53 | 0 | 52.5% |",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

// TestAuditTieAndDuplicateNames: a tie for the best constant letter says
// so; two SETs of one name (in two folders) are refused, naming both.
func TestAuditTieAndDuplicateNames(t *testing.T) {
	dir := t.TempDir()
	// Two items keyed A, two keyed B: A and B tie at 50 %.
	tie := `[
 {"source_file": "pymatgen/a.py", "question": "q1", "choices": {"A": "A. one", "B": "B. two", "C": "C. three", "D": "D. four"}, "correct_answer": "A"},
 {"source_file": "pymatgen/a.py", "question": "q2", "choices": {"A": "A. one", "B": "B. two", "C": "C. three", "D": "D. four"}, "correct_answer": "B"},
 {"source_file": "pymatgen/a.py", "question": "q3", "choices": {"A": "A. one", "B": "B. two", "C": "C. three", "D": "D. four"}, "correct_answer": "A"},
 {"source_file": "pymatgen/a.py", "question": "q4", "choices": {"A": "A. one", "B": "B. two", "C": "C. three", "D": "D. four"}, "correct_answer": "B"}]`
	a, b := filepath.Join(dir, "x", "set.json"), filepath.Join(dir, "y", "set.json")
	for _, p := range []string{a, b} {
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(tie), 0o644)
	}
	var out, errb bytes.Buffer
	if code := run([]string{a}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"best constant letter: A (tie) 50.0% (2 of 4)\n", "constant A (tie) 50.0%", "| set | 4 | 50.0% | 50.0% | 0.0% | 0.0% | A (tie) 50.0% |"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	errb.Reset()
	if code := run([]string{a, filepath.Join(dir, "y")}, &out, &errb); code != 1 ||
		!strings.Contains(errb.String(), a+" and "+b+`: both name the set "set"`) {
		t.Errorf("two sets named set: exit %d, %q", code, errb.String())
	}
}
