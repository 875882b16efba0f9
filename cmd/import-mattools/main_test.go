package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
)

func TestImportCommand(t *testing.T) {
	root := mattoolstest.NewRoot(t)
	root.AddRun("src/pure_agent_test/round1/gpt-4o-2024-08-06", &mattoolstest.Summary{Correct: 11, Partial: 12, FunctionErrors: 26, PropertiesCorrect: 25})
	root.AddRun("src/agentic_RAG_test/round1/gpt-4o-2024-08-06_method3", nil)
	out := filepath.Join(t.TempDir(), "imported")
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"-data", root.Dir, "-out", out}, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, want := range []string{"tool-usage  single-llm   1     1       0", "tool-usage  agentic-rag  1     0       1", "wrote 2 results files"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout.String())
		}
	}
	if !strings.Contains(stderr.String(), "warning: src/agentic_RAG_test/round1/gpt-4o-2024-08-06_method3: no accuracy_summary.xlsx") {
		t.Errorf("stderr = %s", stderr.String())
	}
	entries, _ := os.ReadDir(out)
	if len(entries) != 2 {
		t.Errorf("%d files written", len(entries))
	}
}

// TestImportCommandLeavesNothingOnBadInput: a malformed file stops the
// import before anything is written, and the error names the file.
func TestImportCommandLeavesNothingOnBadInput(t *testing.T) {
	root := mattoolstest.NewRoot(t)
	root.AddRun("src/pure_agent_test/round1/a", &mattoolstest.Summary{Correct: 1, FunctionErrors: 48, PropertiesCorrect: 3})
	root.AddRun("src/pure_agent_test/round1/b", nil)
	root.Write("src/pure_agent_test/round1/b/accuracy_summary.xlsx", []byte("PK\x03\x04 truncated"))
	out := filepath.Join(t.TempDir(), "imported")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"-data", root.Dir, "-out", out}, &stdout, &stderr)
	if code != exitError || !strings.Contains(stderr.String(), "src/pure_agent_test/round1/b/accuracy_summary.xlsx: not a readable xlsx") {
		t.Fatalf("exit %d, stderr %s", code, stderr.String())
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		entries, _ := os.ReadDir(out)
		t.Errorf("output folder exists after a failed import: %v", entries)
	}
}

func TestImportCommandWithoutData(t *testing.T) {
	t.Setenv("MATTOOLS_DATA", "")
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), nil, &stdout, &stderr); code != exitUsage || !strings.Contains(stderr.String(), "MATTOOLS_DATA is not set") {
		t.Errorf("exit %d, stderr %s", code, stderr.String())
	}
}
