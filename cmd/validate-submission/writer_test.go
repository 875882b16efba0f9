package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
)

// runWriter runs docs/submitting/write_submission.py with args and returns
// its exit code, standard output and standard error.
func runWriter(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(submitPython(t), append([]string{filepath.Join(repoRoot, "docs", "submitting", "write_submission.py")}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
}

func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// TestWriterDateDefaultsToTodayUTC: without --date the example submission
// is dated today (UTC), and a second run replaces the folder whole.
func TestWriterDateDefaultsToTodayUTC(t *testing.T) {
	root := mattoolstest.NewRoot(t).Dir
	out := t.TempDir()
	before := time.Now().UTC().Format(time.DateOnly)
	code, _, stderr := runWriter(t, "--data", root, "--out", out)
	after := time.Now().UTC().Format(time.DateOnly)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got := entries(t, out)
	if len(got) != 1 || !(strings.HasPrefix(got[0], before+"_") || strings.HasPrefix(got[0], after+"_")) {
		t.Fatalf("submissions root holds %v; want one folder dated %s (today, UTC)", got, after)
	}
	folder := filepath.Join(out, got[0])
	stray := filepath.Join(folder, "stray.txt")
	if err := os.WriteFile(stray, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runWriter(t, "--data", root, "--out", out); code != 0 {
		t.Fatalf("second run: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(stray); !os.IsNotExist(err) {
		t.Errorf("a second run kept a file of the folder it replaced (%v)", err)
	}
	if got := entries(t, folder); len(got) != 7 { // submission.toml and 2 protocols × 3 rounds
		t.Errorf("the folder holds %d files, want 7: %v", len(got), got)
	}
	if got := entries(t, out); len(got) != 1 {
		t.Errorf("after the second run the submissions root holds %v; want the folder alone", got)
	}
}

// TestWriterWrongDataSaysSoOnOneLineAndLeavesNothing: a --data that is not
// a MatTools checkout, or one that lacks a question's properties.json
// halfway through, gives a one-line error and leaves no folder, not even a
// temporary one, in the submissions root.
func TestWriterWrongDataSaysSoOnOneLineAndLeavesNothing(t *testing.T) {
	broken := mattoolstest.NewRoot(t)
	if err := os.Remove(filepath.Join(broken.Dir, "src", "question_segments", "pymatgen_analysis_defects", "test_defect_entry", "properties.json")); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{"not a checkout": filepath.Join(t.TempDir(), "nowhere"), "a question's properties missing": broken.Dir} {
		out := filepath.Join(t.TempDir(), "submissions")
		code, stdout, stderr := runWriter(t, "--data", data, "--out", out, "--date", "2026-12-01")
		if code == 0 {
			t.Errorf("%s: exit 0", name)
		}
		if lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n"); len(lines) != 1 || lines[0] == "" || strings.Contains(stderr, "Traceback") {
			t.Errorf("%s: stderr is not one line:\n%s", name, stderr)
		}
		if !strings.Contains(stderr, data) {
			t.Errorf("%s: the error does not name the path: %s", name, stderr)
		}
		if got := entries(t, out); len(got) != 0 || stdout != "" {
			t.Errorf("%s: the submissions root holds %v after the error (stdout %q)", name, got, stdout)
		}
	}
}
