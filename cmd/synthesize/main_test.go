package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/synth"
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
