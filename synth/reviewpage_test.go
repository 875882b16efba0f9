package synth

import (
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// The review page lists every task with each check's findings, the
// model and the prompt hashes, escapes the model's text, and is one
// self-contained, well-formed HTML file.
func TestReviewPage(t *testing.T) {
	q := "Compute <script>alert(1)</script> for Si"
	props := `{"properties": {"p0": 3}}`
	m := Manifest{Format: ManifestFormat, Name: "bench", Version: "0.3", Tests: "src/tests", DataCommit: "4438", Model: "model-x",
		Prompts: []PromptFile{{Path: "src/question_generation/extract_params_from_test.txt", SHA256: "sha256:abc123"}}}
	tasks := []ReviewTask{
		{Review: TaskReview{Test: "t.py::test_ok", Folder: "test_ok", Model: "model-x",
			A: &CheckResult{Asserts: []Assert{{Line: 7, Code: "assert n == 3", Kind: "equal"}}, Properties: []PropertyMatch{{Name: "p0", Value: "3", Asserts: []int{0}}}},
			B: &ExecResult{None: StepOutcome{Status: "ok", Failed: []string{"p0"}}, Reference: StepOutcome{Status: "ok"}, Test: StepOutcome{Status: "passed"}}},
			Question: q, Properties: props, Verification: "def test_ok(properties): ...", Reference: "def f(): return {'p0': 3}"},
		{Review: TaskReview{Test: "t.py::test_bad", Folder: "test_bad", Model: "model-x", C: []string{"the question contains `n.count()`"},
			Problems: []string{"property p0 (value \"a wrong value\") maps to no assert of the test", "the question contains `n.count()`"}},
			Excluded: true},
	}
	b, err := ReviewPage(m, tasks)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, s := range []string{"Review of the synthesised benchmark bench 0.3", "1 passed every check", "1 excluded", "model-x", "sha256:abc123",
		`<a href="#test_ok">test_ok</a>`, `id="test_bad"`, "line 7", "assert n == 3", "verification given None",
		"maps to no assert of the test", "the question contains `n.count()`", "Compute &lt;script&gt;alert(1)&lt;/script&gt; for Si", "Not run."} {
		if !strings.Contains(page, s) {
			t.Errorf("the page lacks %q", s)
		}
	}
	if strings.Contains(page, "<script") || strings.Contains(page, "src=") || strings.Contains(page, "<link") {
		t.Error("the page holds a script or an external resource")
	}
	// Well formed: the tokenizer reads it to the end, and every section closes.
	z := html.NewTokenizer(strings.NewReader(page))
	open := 0
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		if n, _ := z.TagName(); string(n) == "section" {
			if tt == html.StartTagToken {
				open++
			} else if tt == html.EndTagToken {
				open--
			}
		}
	}
	if open != 0 || strings.Count(page, `<section class="task"`) != 2 {
		t.Errorf("%d sections left open, %d tasks", open, strings.Count(page, `<section class="task"`))
	}
}
