package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/runner/llm/llmtest"
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
		"benchmark defects-synth 0.1, 2 of 2 tasks passed the checks\n"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("output lacks %q:\n%s", s, out.String())
		}
	}
	for _, f := range []string{"benchmark.json", "src/question_segments/defects-synth/test_vacancy/question.txt", "src/question_segments/defects-synth/test_adsorbate/reference_solution.py"} {
		if _, err := os.Stat(filepath.Join(dir, "bench", f)); err != nil {
			t.Error(err)
		}
	}
	out.Reset()
	if code := run(context.Background(), args, &out, &errb); code != 0 || !strings.Contains(out.String(), "calls: 8 (8 from the journal, 0 made") {
		t.Errorf("second run: exit %d\n%s", code, out.String())
	}
}
