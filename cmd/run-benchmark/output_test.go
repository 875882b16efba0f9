package main

// Tests of what the command prints: the models named by their display
// names, and one line (no retry warnings) for an endpoint where nothing
// listens.

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/llm/llmtest"
)

const displayName = "Fake Model 7B (display)"

// writeDisplayPlan writes a plan of the tool-usage benchmark against
// baseURL whose model has display name displayName.
func writeDisplayPlan(t *testing.T, baseURL string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "plan.toml")
	err := os.WriteFile(p, []byte(fmt.Sprintf(`rounds = 1
concurrency = 4
[[models]]
name = "fake-model"
display_name = %q
base_url = %q
timeout = "5s"
`, displayName, baseURL)), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// table splits the command's table of runs into rows of cells (separated
// by two spaces or more).
func table(out string) [][]string {
	var rows [][]string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		rows = append(rows, regexp.MustCompile(`\s{2,}`).Split(strings.TrimSpace(l), -1))
	}
	return rows
}

var noEnv = environ{func(string) string { return "" }, func(string) error { return nil }}

func TestOutputNamesTheDisplayName(t *testing.T) {
	root := mattoolstest.NewRoot(t).Dir
	srv := llmtest.New(t, llmtest.Options{Responder: answer})
	planPath := writeDisplayPlan(t, srv.URL)

	// With -no-progress: the log lines of the run and the table.
	var stdout, stderr bytes.Buffer
	out := t.TempDir()
	if code := run(context.Background(), []string{"-plan", planPath, "-data", root, "-out", out, "-unscored", "-no-progress"}, &stdout, &stderr, noEnv); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	for _, msg := range []string{`msg="run started"`, `msg="run written"`} {
		re := regexp.MustCompile(regexp.QuoteMeta(msg) + ` model="([^"]*)"`)
		if m := re.FindStringSubmatch(stderr.String()); m == nil || m[1] != displayName {
			t.Errorf("log line %s names model %q, want %q:\n%s", msg, m, displayName, stderr.String())
		}
	}
	// The table: a header and one row per run (one per scoring protocol), the
	// model column holding the display name.
	rows := table(stdout.String())
	if len(rows) != 2 || strings.Join(rows[0][:4], "|") != "status|done|model|run" {
		t.Fatalf("table:\n%s", stdout.String())
	}
	if row := strings.Join(rows[1][:4], "|"); row != "written|49/49|"+displayName+"|runner__tool-usage__single-llm__s0__fake-model__unscored__r1" {
		t.Errorf("row %q, want the display name in the model column", row)
	}
	if f := onlyRun(t, out); f.Run.Model != "fake-model" || f.Run.ModelDisplayName != displayName {
		t.Errorf("results file: model %q, display name %q", f.Run.Model, f.Run.ModelDisplayName)
	}

	// With the progress bar: it is described by the display name.
	stdout.Reset()
	stderr.Reset()
	if code := run(context.Background(), []string{"-plan", planPath, "-data", root, "-out", t.TempDir(), "-unscored"}, &stdout, &stderr, noEnv); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	if !regexp.MustCompile(regexp.QuoteMeta(displayName) + ` +100% \|.*\| \(49/49\)`).MatchString(stderr.String()) {
		t.Errorf("no progress bar described by %q:\n%q", displayName, stderr.String())
	}
}

// TestNothingListensOneLine: the command against a base URL where nothing
// listens prints no retry warning: the failed run's log line and the
// command's closing error name the base URL, once each.
func TestNothingListensOneLine(t *testing.T) {
	root := mattoolstest.NewRoot(t).Dir
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String() + "/v1"
	ln.Close()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"-plan", writeDisplayPlan(t, base), "-data", root, "-out", t.TempDir(), "-unscored"}, &stdout, &stderr, noEnv)
	if code != exitFailed {
		t.Fatalf("exit %d, want %d\n%s", code, exitFailed, stderr.String())
	}
	want := "nothing answers at " + base + " (connection refused): is the server running?"
	var logged, closing, retrying int
	for _, l := range strings.Split(stderr.String(), "\n") {
		switch {
		case strings.Contains(l, "retrying"):
			retrying++
		case strings.HasPrefix(l, "time=") && strings.Contains(l, "level=ERROR") && strings.Contains(l, want) && strings.Contains(l, `model="`+displayName+`"`):
			logged++
		case strings.HasPrefix(l, "run-benchmark: run ") && strings.HasSuffix(l, want):
			closing++
		case strings.Contains(l, base):
			t.Errorf("another line names the base URL: %q", l)
		}
	}
	if logged != 1 || closing != 1 || retrying != 0 {
		t.Errorf("%d log lines and %d closing lines name the base URL, %d retry warnings; want 1, 1, 0:\n%s", logged, closing, retrying, stderr.String())
	}
	if rows := table(stdout.String()); len(rows) != 2 || strings.Join(rows[1][:3], "|") != "failed|0/49|"+displayName {
		t.Errorf("table:\n%s", stdout.String())
	}
}
