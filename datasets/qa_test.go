package datasets

// Tests of the QA set loader.

import (
	"archive/zip"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// twoDocs is a QA set in MatTools' upstream format: two documents sharing
// one Source key, 3 questions; question_id as a string and as a number.
const twoDocs = `[
 {"source": {"page_content": "doc", "metadata": {"code_source_file": "pymatgen/core/lattice.py", "name": "__init__"}},
  "questions": [
   {"question_id": "1", "question": "Q one?", "choices": {"A": "A. a", "B": "B. b", "C": "C. c", "D": "D. d"}, "correct_answer": "C"},
   {"question_id": 2, "question": "Q two?", "choices": {"A": "A. a", "B": "B. b", "C": "C. c", "D": "D. d"}, "correct_answer": "A"}]},
 {"source": {"page_content": "doc", "metadata": {"code_source_file": "pymatgen/core/lattice.py", "name": "__init__"}},
  "questions": [
   {"question_id": "1", "question": "Q three?", "choices": {"D": "D. d", "C": "C. c", "B": "B. b", "A": "A. a"}, "correct_answer": "D"}]}
]`

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadQAFlattensDocumentsInOrder(t *testing.T) {
	set, err := LoadQA(writeFile(t, "set.json", twoDocs))
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Questions) != 3 || len(set.SHA256) != 64 {
		t.Fatalf("%d questions, sha %q", len(set.Questions), set.SHA256)
	}
	want := []struct{ id, source, qid, correct string }{
		{"pymatgen/core/lattice.py/__init__#0.1", "pymatgen/core/lattice.py/__init__", "1", "C"},
		{"pymatgen/core/lattice.py/__init__#0.2", "pymatgen/core/lattice.py/__init__", "2", "A"},
		{"pymatgen/core/lattice.py/__init__#1.1", "pymatgen/core/lattice.py/__init__", "1", "D"},
	}
	for i, w := range want {
		q := set.Questions[i]
		if q.Index != i || q.ID != w.id || q.Source != w.source || q.QuestionID != w.qid || q.CorrectAnswer != w.correct {
			t.Errorf("question %d = %+v, want %+v", i, q, w)
		}
	}
	if got := set.Questions[2].Choices; got != [4]string{"A. a", "B. b", "C. c", "D. d"} {
		t.Errorf("choices %q, want A–D order", got)
	}
}

func TestLoadQAReadsTheUpstreamZip(t *testing.T) {
	p := filepath.Join(t.TempDir(), "generation_results_code.json.zip")
	f, _ := os.Create(p)
	zw := zip.NewWriter(f)
	w, _ := zw.Create("generation_results_code.json")
	w.Write([]byte(twoDocs))
	zw.Close()
	f.Close()
	set, err := LoadQA(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Questions) != 3 || set.Questions[1].Question != "Q two?" {
		t.Errorf("got %+v", set.Questions)
	}
}

func TestLoadQARejectsBadInputNamingFileDocumentAndField(t *testing.T) {
	tests := []struct{ name, content, want string }{
		{"not a list", `{"a":1}`, "not a JSON list"},
		{"missing choice", strings.Replace(twoDocs, `"D": "D. d", "C"`, `"C"`, 1), "document 2 questions[0].choices.D: is missing"},
		{"bad answer", strings.Replace(twoDocs, `"correct_answer": "A"`, `"correct_answer": "E"`, 1), "document 1 questions[1].correct_answer"},
		{"no metadata name", strings.Replace(twoDocs, `"name": "__init__"}},
  "questions": [
   {"question_id": "1", "question": "Q three?"`, `"x": 1}},
  "questions": [
   {"question_id": "1", "question": "Q three?"`, 1), "document 2 source.metadata"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeFile(t, "bad.json", tt.content)
			_, err := LoadQA(p)
			var fe *FormatError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), p) {
				t.Errorf("err = %v, want a FormatError naming %s and %q", err, p, tt.want)
			}
		})
	}
}

// flatItems is the flattened form: one object per question, the second with
// an "id" of its own and an extra choice key.
const flatItems = `[
 {"source_file": "pymatgen/core/lattice.py", "question": "Q one?", "choices": {"A": "A. a", "B": "B. b", "C": "C. c", "D": "D. d"}, "correct_answer": "B"},
 {"id": "pymatgen/x.py/f#3.2", "source_file": "pymatgen/x.py", "question": "Q two?", "choices": {"A": "A. a", "B": "B. b", "C": "C. c", "D": "D. d", "E": "E. e"}, "correct_answer": "D"}
]`

func TestLoadQAFlattened(t *testing.T) {
	set, err := LoadQA(writeFile(t, "flat.json", flatItems))
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Questions) != 2 {
		t.Fatalf("got %d questions", len(set.Questions))
	}
	q0, q1 := set.Questions[0], set.Questions[1]
	if q0.ID != "pymatgen/core/lattice.py#0" || q0.Source != "pymatgen/core/lattice.py" || q0.CorrectAnswer != "B" || q0.Choices[2] != "C. c" || q0.ExtraChoices != nil {
		t.Errorf("item 0: %+v", q0)
	}
	if q1.ID != "pymatgen/x.py/f#3.2" || q1.Index != 1 || q1.DocIndex != 1 || len(q1.ExtraChoices) != 1 || q1.ExtraChoices[0] != "E" {
		t.Errorf("item 1: %+v", q1)
	}
	mixed := strings.Replace(twoDocs, "[\n", "[\n"+strings.Split(flatItems, "\n")[1]+"\n", 1)
	if _, err := LoadQA(writeFile(t, "mixed.json", mixed)); err == nil || !strings.Contains(err.Error(), "document 2: mixes flattened items") {
		t.Errorf("mixed forms: err = %v", err)
	}
	bad := strings.Replace(flatItems, `"correct_answer": "D"`, `"correct_answer": "d"`, 1)
	if _, err := LoadQA(writeFile(t, "bad.json", bad)); err == nil || !strings.Contains(err.Error(), "document 2 correct_answer: must be one of A, B, C, D") {
		t.Errorf("bad answer: err = %v", err)
	}
	noD := strings.Replace(flatItems, `, "D": "D. d"}, "correct_answer": "B"`, `}, "correct_answer": "B"`, 1)
	if _, err := LoadQA(writeFile(t, "nod.json", noD)); err == nil || !strings.Contains(err.Error(), "document 1 choices.D: is missing") {
		t.Errorf("missing choice: err = %v", err)
	}
}
