// Package fakeroot writes a synthetic MatTools data root for tests that must
// run without MATTOOLS_DATA: the 49 question folders of the tool-usage
// benchmark in the published order with the published property counts, but
// made-up question texts, properties and unit tests, and made-up prompt
// templates with the published placeholders. Nothing in it is copied from
// the MatTools data.
package fakeroot

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/datasets"
)

// PropertyCounts is MatTools' ref_sub_tasks_list: the property count of each
// question in the published order (mattools-reference.md §2; 138 in total).
var PropertyCounts = []int{10, 4, 1, 2, 18, 3, 4, 1, 1, 3, 1, 1, 1, 2, 3, 1, 2, 2, 2, 1, 1, 2, 1, 9, 1, 3, 1, 2, 1, 2, 11, 2, 4, 2, 2, 2, 1, 2, 4, 2, 1, 3, 2, 1, 3, 2, 3, 3, 2}

// AnswerFormat is the fake root's single-LLM answer format.
const AnswerFormat = "**Answer format**: <answer><code>```python\n# code\n```</code><name>fn</name></answer>"

// QATemplate is the fake root's QA prompt template.
const QATemplate = "Pick one.\n<question>{question}</question>\n{first_choice}\n{second_choice}\n{third_choice}\n{fourth_choice}\nAnswer as <answer>X</answer>."

// QuestionText returns the fake question.txt of question i (0-based).
func QuestionText(i int, id string) string {
	return fmt.Sprintf("\n  Question %d (%s): write a function returning a dict of %d properties.\n\n", i, id, PropertyCounts[i])
}

// Write creates the fake root in a new temporary directory and returns it.
func Write(t testing.TB) string {
	t.Helper()
	root := t.TempDir()
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	write := func(rel, content string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		must(os.MkdirAll(filepath.Dir(p), 0o755))
		must(os.WriteFile(p, []byte(content), 0o644))
	}
	for i, id := range datasets.Order() {
		dir := datasets.QuestionsDir + "/" + id + "/"
		write(dir+"question.txt", QuestionText(i, id))
		var props []string
		for k := range PropertyCounts[i] {
			props = append(props, fmt.Sprintf(`"p%d": {"description": "property %d", "format": "int", "value": "%d"}`, k, k, k))
		}
		write(dir+"properties.json", `{"JSON_File_Name": "`+id+`", "properties": {`+strings.Join(props, ", ")+`}}`)
		write(dir+"new_unit_test.py", "def "+id+"(properties):\n    return \"ok\"\n")
	}
	write("prompts/single_llm/answer_format.txt", AnswerFormat)
	write("prompts/qa/qa_answer.txt", QATemplate)
	write("UPSTREAM_COMMIT", "fake0000\n")
	return root
}
