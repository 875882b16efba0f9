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
