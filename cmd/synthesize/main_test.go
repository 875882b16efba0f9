package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/datasets/corpus"
	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/llm/llmtest"
	"github.com/mattools-leaderboard/leaderboard/runner/docgen"
	"github.com/mattools-leaderboard/leaderboard/synth"
	"github.com/mattools-leaderboard/leaderboard/synth/synthtest"
)

func needPython(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(synth.DefaultPython); err != nil {
		t.Skipf("no %s (scripts/setup.sh installs it): %v", synth.DefaultPython, err)
	}
}

// TestDryRunDefects: the dry run of MatTools' own synthesis counts the 55
// tests, 220 calls, and prices them; nothing is sent.
func TestDryRunDefects(t *testing.T) {
	needPython(t)
	root := mattoolstest.DataRoot(t, "to dry-run the synthesis of the defects tests")
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"-data", root, "-dry-run", "-price-in", "2.5", "-price-out", "10"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, s := range []string{"test files: 10\n", "tests found: 55\n", "triplets to generate: 55 (asserts: 147; tests without an assert: 6)\n", "calls: 220\n",
		"prompt src/question_generation/build_question_from_test_user.txt sha256:2c3a2171", "prompt synth/reference_prompt.txt " + synth.ReferencePromptSHA256, "estimated cost: $"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("dry run lacks %q:\n%s", s, out.String())
		}
	}
}

func TestNoModelNoDataRoot(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"-data", ""}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "MATTOOLS_DATA") {
		t.Errorf("no data root: exit %d, %q", code, errb.String())
	}
}

// TestSynthesizeLayout: the command end to end with a scripted model
// (synthtest) on two defects tests: four calls each, the checks in the
// sandbox, MatTools' layout written; a second run resumes from the
// journal without a call.
func TestSynthesizeLayout(t *testing.T) {
	needPython(t)
	root := mattoolstest.DataRoot(t, "to synthesise from the defects tests")
	p, err := synth.LoadPrompts(root)
	if err != nil {
		t.Fatal(err)
	}
	files, err := synth.Split(filepath.Join(root, synth.DefectsTestsDir), []string{"test_core.py"}, synth.DefaultPython)
	if err != nil {
		t.Fatal(err)
	}
	set := &synthtest.AnswerSet{Prompts: p, Tests: files[0].Tests}
	srv := llmtest.New(t, llmtest.Options{Responder: set.Respond})
	dir := t.TempDir()
	args := []string{"-data", root, "-only", `^test_core\.py::test_(vacancy|adsorbate)$`, "-model", "scripted", "-base-url", srv.URL,
		"-api-key-env", "", "-out", filepath.Join(dir, "t.json"), "-layout", filepath.Join(dir, "bench"), "-benchmark", "defects-synth"}
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	if code == 1 && strings.Contains(errb.String(), "sandbox") && os.Getenv("CI") == "" {
		t.Skipf("no sandbox: %s", errb.String())
	}
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errb.String(), out.String())
	}
	for _, s := range []string{"tests: 2 (2 triplets finished)\n", "calls: 8 (0 from the journal, 8 made: 8 answered, 0 failed)\n",
		"benchmark defects-synth 0.1, 2 of 2 tasks passed the checks; review page "} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("output lacks %q:\n%s", s, out.String())
		}
	}
	for _, f := range []string{"benchmark.json", "review.html", "src/question_segments/defects-synth/test_vacancy/question.txt", "src/question_segments/defects-synth/test_adsorbate/reference_solution.py"} {
		if _, err := os.Stat(filepath.Join(dir, "bench", f)); err != nil {
			t.Error(err)
		}
	}
	out.Reset()
	if code := run(context.Background(), args, &out, &errb); code != 0 || !strings.Contains(out.String(), "calls: 8 (8 from the journal, 0 made") {
		t.Errorf("second run: exit %d\n%s", code, out.String())
	}
}

// TestQADryRunAndScripted: -qa code dry-runs the code objects of the
// defects package (one call each, tokens and cost), then makes a set with
// a model that keys every question C and repeats one: the repeat is
// dropped, the letters rebalanced, the set and its review written.
func TestQADryRunAndScripted(t *testing.T) {
	needPython(t)
	root := mattoolstest.DataRoot(t, "to make questions from the defects code")
	var out, errb bytes.Buffer
	args := []string{"-data", root, "-qa", "code", "-under", "pymatgen/analysis/defects"}
	if code := run(context.Background(), append(args, "-dry-run", "-price-in", "2.5", "-price-out", "10"), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	objs, err := docgen.Walk(root, "pymatgen/analysis/defects", synth.DefaultPython)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{fmt.Sprintf("documents: %d\ncalls: %d (up to %d", len(objs), len(objs), 3*len(objs)), "prompt qa_benchmark/pymatgen-qa-generation/src/files/prompt.py:question_code_generation_prompt sha256:", "estimated cost: $"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("dry run lacks %q:\n%s", s, out.String())
		}
	}
	if code := run(context.Background(), []string{"-data", root, "-qa", "doc", "-model", "m"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "give -docs") {
		t.Errorf("doc set without documents: exit %d, %q", code, errb.String())
	}
	// Each call gets a number of its own (the documents are asked
	// concurrently: a plain counter read by two calls at once made their
	// questions 1-3 equal, and dropped them as duplicates).
	var calls atomic.Int64
	srv := llmtest.New(t, llmtest.Options{Responder: func(r llmtest.Request) llmtest.Reply {
		n := calls.Add(1) - 1
		var b strings.Builder
		for q := 1; q <= 4; q++ {
			text := fmt.Sprintf("Question %d about the masked name in %d", q, n)
			if q == 4 {
				text = "The same question every time"
			}
			fmt.Fprintf(&b, "<question%d>%s</question%d><answer_choices%d><choice>A. w%d</choice><choice>B. x%d</choice><choice>C. y%d</choice><choice>D. z%d</choice></answer_choices%d><correct_answer%d>C</correct_answer%d>",
				q, text, q, q, q, q, q, q, q, q, q)
		}
		return llmtest.Reply{Content: b.String()}
	}})
	dir := t.TempDir()
	set := filepath.Join(dir, "generation_results_code.json")
	out.Reset()
	if code := run(context.Background(), append(args, "-only", "#(get_dQ|get_SRH_coef|_fit_parabola)#0$", "-model", "scripted", "-base-url", srv.URL, "-api-key-env", "", "-out", set), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, s := range []string{"documents: 3 (3 finished)\n", "questions: 12, kept 10, dropped 2 map[duplicate-question:2]\n", "correct letters A B C D: [0 0 10 0] as written, [3 3 2 2] rebalanced\n"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("output lacks %q:\n%s", s, out.String())
		}
	}
	if qs, err := datasets.LoadQA(set); err != nil || len(qs.Questions) != 10 {
		t.Errorf("the written set: %v", err)
	}
	// The doc set from an LLM-documentation file (cmd/gen-docs' format):
	// the document's text is in the one message sent.
	var docs []corpus.LLMDoc
	for _, o := range objs[:2] {
		docs = append(docs, corpus.LLMDoc{PageContent: "## " + o.Name + "\n\nDocuments " + o.Qualname + ".", Metadata: corpus.LLMDocMetadata{
			CodeSourceFile: o.File, Type: o.Kind, Name: o.Name, CodeStartLine: o.StartLine, CodeEndLine: o.EndLine, HaveReturn: o.HaveReturn,
			CodeContent: o.Code, NameColumn: o.NameColumn, ItemStatus: "doc_up_to_date"}})
	}
	docFile := filepath.Join(dir, "docs.json")
	if err := corpus.WriteLLMDocs(docFile, docs); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	before := len(srv.Requests())
	docSet := filepath.Join(dir, "generation_results_doc.json")
	if code := run(context.Background(), []string{"-data", root, "-qa", "doc", "-docs", docFile, "-model", "scripted", "-base-url", srv.URL, "-api-key-env", "", "-out", docSet}, &out, &errb); code != 0 {
		t.Fatalf("doc set: exit %d: %s", code, errb.String())
	}
	reqs := srv.Requests()[before:]
	if len(reqs) != 2 || !strings.Contains(out.String(), "documents: 2 (2 finished)\n") {
		t.Fatalf("doc set: %d requests\n%s", len(reqs), out.String())
	}
	for _, r := range reqs {
		if !strings.Contains(r.Messages[0].Content, "\n\nDocument: \n## "+docs[0].Metadata.Name) && !strings.Contains(r.Messages[0].Content, "\n\nDocument: \n## "+docs[1].Metadata.Name) {
			t.Errorf("doc set message lacks the document's text:\n%.400s", r.Messages[0].Content)
		}
	}
	if qs, err := datasets.LoadQA(docSet); err != nil || len(qs.Questions) != 7 {
		t.Errorf("the doc set: %v", err)
	}
}
