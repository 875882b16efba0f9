// Package mattoolstest builds small MatTools-layout data roots in a test's
// temporary folder: the 49 questions of the manifest (with placeholder text
// and properties of the right counts), run folders with a generated jsonl
// and accuracy_summary.xlsx, and QA CSVs. Tests use it to exercise the
// importer and its error paths without the real data.
package mattoolstest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/mattools-leaderboard/leaderboard/datasets"
)

// PropertyCounts is MatTools' ref_sub_tasks_list: the property count of
// each question in the published order (docs/mattools.md §2; 138 in
// total). The fake questions have these counts.
var PropertyCounts = []int{10, 4, 1, 2, 18, 3, 4, 1, 1, 3, 1, 1, 1, 2, 3, 1, 2, 2, 2, 1, 1, 2, 1, 9, 1, 3, 1, 2, 1, 2, 11, 2, 4, 2, 2, 2, 1, 2, 4, 2, 1, 3, 2, 1, 3, 2, 3, 3, 2}

// AnswerFormat is the fake root's single-LLM answer format
// (prompts/single_llm/answer_format.txt).
const AnswerFormat = "**Answer format**: <answer><code>```python\n# code\n```</code><name>fn</name></answer>"

// QATemplate is the fake root's QA prompt template (prompts/qa/qa_answer.txt),
// with the published placeholders.
const QATemplate = "Pick one.\n<question>{question}</question>\n{first_choice}\n{second_choice}\n{third_choice}\n{fourth_choice}\nAnswer as <answer>X</answer>."

// Commit is the fake root's UPSTREAM_COMMIT.
const Commit = "fake0000"

// QuestionText returns the fake question.txt of question i (0-based),
// with surrounding whitespace that the single-LLM prompt strips.
func QuestionText(i int, id string) string {
	return fmt.Sprintf("\n  Question %d (%s): write a function returning a dict of %d properties.\n\n", i, id, PropertyCounts[i])
}

// Root is a fake MatTools root.
type Root struct {
	t   testing.TB
	Dir string
}

// NewRoot creates a root holding the 49 manifest questions (made-up texts,
// each with as many properties as the manifest says, and unit tests that
// return "ok"), the two prompt templates, and an UPSTREAM_COMMIT file
// holding Commit. Nothing in it is copied from the MatTools data.
func NewRoot(t testing.TB) *Root {
	t.Helper()
	r := &Root{t: t, Dir: t.TempDir()}
	for _, e := range datasets.Manifest() {
		dir := filepath.Join(r.Dir, datasets.QuestionsDir, e.ID)
		var props []string
		for k := 0; k < e.Properties; k++ {
			props = append(props, fmt.Sprintf(`"p%d": {"description": "property %d", "format": "int", "value": "%d"}`, k, k, k))
		}
		r.Write(filepath.Join(dir, "properties.json"), []byte(`{"JSON_File_Name": "`+e.ID+`", "properties": {`+strings.Join(props, ", ")+`}}`))
		r.Write(filepath.Join(dir, "question.txt"), []byte(QuestionText(e.Index, e.ID)))
		r.Write(filepath.Join(dir, "new_unit_test.py"), []byte("def "+e.ID+"(properties):\n    return \"ok\"\n"))
	}
	r.Write("prompts/single_llm/answer_format.txt", []byte(AnswerFormat))
	r.Write("prompts/qa/qa_answer.txt", []byte(QATemplate))
	r.Write("UPSTREAM_COMMIT", []byte(Commit+"\n"))
	return r
}

// AddDataFiles writes a small placeholder for every data file the manifest
// lists (under src/), so that all 49 questions are executable
// (datasets.Question Executable). The placeholders hold no MatTools data.
func (r *Root) AddDataFiles() {
	r.t.Helper()
	for _, e := range datasets.Manifest() {
		for _, f := range e.DataFiles {
			r.Write(filepath.Join(r.Dir, "src", filepath.FromSlash(f)), []byte("placeholder for "+e.ID+"\n"))
		}
	}
}

// Write writes data to path (absolute, or relative to the root), creating folders.
func (r *Root) Write(path string, data []byte) {
	r.t.Helper()
	if !filepath.IsAbs(path) {
		path = filepath.Join(r.Dir, filepath.FromSlash(path))
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// JSONL returns a function_generation_results.jsonl of the 49 questions in
// the published order; fn(i) gives the code of question i.
func JSONL(fn func(i int) string) []byte {
	var b strings.Builder
	for i, id := range datasets.Order() {
		line, _ := json.Marshal(map[string]string{"question_file_path": id, "function": fn(i), "function_name": "f"})
		b.Write(line)
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

// Summary is the content of an accuracy_summary.xlsx: the Tasks and
// Sub-tasks counts (docs/mattools.md §3.2).
type Summary struct {
	Correct, Partial, FunctionErrors int // out of 49 questions
	PropertiesCorrect                int // out of 138 properties
}

// Cells returns the A1:I3 cells MatTools writes for s, consistent by the
// rules of docs/mattools.md §3.2.
func (s Summary) Cells() map[string]any {
	q, p := 49, 138
	return map[string]any{
		"A1": "Task/ Sub-task", "B1": "Total", "C1": "Correct", "D1": "Partially Correct", "E1": "Incorrect",
		"F1": "Function Runnable Rate", "G1": "Accuracy (%)", "H1": "Function Errors", "I1": "Result Errors",
		"A2": "Tasks", "B2": q, "C2": s.Correct, "D2": s.Partial, "E2": s.FunctionErrors,
		"F2": float64(q-s.FunctionErrors) / float64(q) * 100, "G2": float64(s.Correct) / float64(q) * 100,
		"H2": s.FunctionErrors, "I2": s.Partial,
		"A3": "Sub-tasks", "B3": p, "C3": s.PropertiesCorrect, "E3": p - s.PropertiesCorrect,
		"G3": float64(s.PropertiesCorrect) / float64(p) * 100,
	}
}

// XLSX writes an xlsx with the given cells on Sheet1 to path (relative to the root).
func (r *Root) XLSX(path string, cells map[string]any) {
	r.t.Helper()
	x := excelize.NewFile()
	defer x.Close()
	for cell, v := range cells {
		if err := x.SetCellValue("Sheet1", cell, v); err != nil {
			r.t.Fatal(err)
		}
	}
	full := filepath.Join(r.Dir, filepath.FromSlash(path))
	os.MkdirAll(filepath.Dir(full), 0o755)
	if err := x.SaveAs(full); err != nil {
		r.t.Fatal(err)
	}
}

// AddRun adds a run folder (relative to the root, e.g.
// "src/pure_agent_test/round1/m") with a generated jsonl and, unless s is
// nil, an accuracy_summary.xlsx of s.
func (r *Root) AddRun(folder string, s *Summary) {
	r.t.Helper()
	r.Write(folder+"/function_generation_results.jsonl", JSONL(func(i int) string {
		return fmt.Sprintf("def f():\n    return {'q': %d, 'folder': %q}\n", i, folder)
	}))
	if s != nil {
		r.XLSX(folder+"/accuracy_summary.xlsx", s.Cells())
	}
}

// QACSV returns a MatTools QA CSV with cumulative rows per source: items
// lists (source, questions, correct) per item in order; the Overall row is
// the sum of the last row per source.
func QACSV(items [][3]any) []byte {
	var b strings.Builder
	b.WriteString("Source,Total Questions,Correct Answers,Incorrect Answers,Accuracy\n")
	type c struct{ t, k int }
	last := map[string]c{}
	var order []string
	row := func(s string, t, k int) {
		fmt.Fprintf(&b, "%s,%d,%d,%d,%.2f%%\n", s, t, k, t-k, 100*float64(k)/float64(t))
	}
	for _, it := range items {
		s := it[0].(string)
		prev, ok := last[s]
		if !ok {
			order = append(order, s)
		}
		cur := c{prev.t + it[1].(int), prev.k + it[2].(int)}
		last[s] = cur
		row(s, cur.t, cur.k)
	}
	var tot c
	for _, s := range order {
		tot.t += last[s].t
		tot.k += last[s].k
	}
	row("Overall", tot.t, tot.k)
	return []byte(b.String())
}

// DataRoot returns the MatTools data root named by MATTOOLS_DATA, or skips
// the test with a message that names the variable and says what the test
// needs the data for.
func DataRoot(t testing.TB, need string) string {
	t.Helper()
	root := os.Getenv(datasets.EnvVar)
	if root == "" {
		t.Skipf("%s is not set: set it to a MatTools checkout (CI sets it) %s", datasets.EnvVar, need)
	}
	return root
}

// WithoutPrompts returns a data root laid out like an upstream MatTools
// checkout: a folder in the test's temporary folder holding a symbolic link
// to every top-level entry of root except prompts/ (this project's copy of
// the prompt texts, which upstream keeps inside its Python sources). Nothing
// is copied.
func WithoutPrompts(t testing.TB, root string) string {
	t.Helper()
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, e := range entries {
		if e.Name() == "prompts" {
			continue
		}
		if err := os.Symlink(filepath.Join(abs, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
