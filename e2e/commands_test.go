package e2e_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/results"
)

// sandboxPython returns the sandbox's Python environment
// ($MATTOOLS_SANDBOX_PYTHON, else /opt/mattools-sandbox, as make setup
// installs it); the test is skipped when it is absent, and fails under CI.
func sandboxPython(t *testing.T) string {
	t.Helper()
	python := os.Getenv("MATTOOLS_SANDBOX_PYTHON")
	if python == "" {
		python = "/opt/mattools-sandbox"
	}
	if _, err := os.Stat(filepath.Join(python, "pyvenv.cfg")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("the sandbox's Python: %v (make setup installs it)", err)
		}
		t.Skipf("the sandbox's Python: %v (make setup)", err)
	}
	return python
}

// readableTempDir returns a new folder inside os.TempDir, mode 0755 with
// readable parents (the sandbox's uid reads the runs' code there), removed
// when the test ends.
func readableTempDir(t *testing.T, prefix string) string {
	t.Helper()
	base, err := os.MkdirTemp("", prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	return base
}

// commands builds the repository's commands pkgs ("./cmd/rescore", …) into
// base/bin and returns a function that runs one of them by name in base,
// with the data root root in the environment ($MATTOOLS_DATA), logging its
// arguments and output; it returns the combined output and the exit error.
// base is also where the commands look for their default folders
// (submissions, verified, audit), absent there.
func commands(t *testing.T, base, root string, pkgs ...string) func(name string, args ...string) (string, error) {
	t.Helper()
	bin := filepath.Join(base, "bin")
	build := exec.Command("go", append([]string{"build", "-o", bin + "/"}, pkgs...)...)
	build.Dir = repoRoot(t)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return func(name string, args ...string) (string, error) {
		c := exec.Command(filepath.Join(bin, name), args...)
		c.Dir = base
		c.Env = append(os.Environ(), datasets.EnvVar+"="+root)
		var out bytes.Buffer
		c.Stdout, c.Stderr = &out, &out
		err := c.Run()
		t.Logf("$ %s %s\n%s", name, strings.Join(args, " "), out.String())
		return out.String(), err
	}
}

// verdictKey names one row of a tool-usage run: its protocol, round and question.
type verdictKey struct {
	protocol string
	round    int
	question string
}

// rowVerdict is what re-execution must reproduce of a row: its verdict and,
// when scored, whether it ran and how many properties passed.
func rowVerdict(q results.QuestionRow) string {
	s := q.Verdict
	if q.Runnable != nil {
		s += fmt.Sprintf(" runnable=%v passed=%d", *q.Runnable, *q.PropertiesPassed)
	}
	return s
}
