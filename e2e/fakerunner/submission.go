package fakerunner

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// ExampleFolder is the folder of SUBMITTING.md's example submission
// (docs/submitting/write_submission.py, dated 2026-12-01).
const ExampleFolder = "2026-12-01_example_none-dict-baseline_single-llm"

// ExampleModel is the example submission's model id.
const ExampleModel = "none-dict-baseline"

var (
	subOnce          sync.Once
	subRoot, verRoot string
	subSkip, subErr  string
	subCreated       string
	subLog           string
)

// ExampleSubmission writes SUBMITTING.md's example submission with its
// script (the pinned Python of build/submit-venv, make setup) into a
// submissions root, and verifies it as the maintainers do: go run
// ./cmd/validate-submission -reexecute -record into a verified root beside
// it. Once per test binary; Cleanup removes both. Skipped (failed when CI
// is set) without the script's Python or the sandbox's.
func ExampleSubmission(t testing.TB, dataRoot string) (submissions, verified string) {
	t.Helper()
	subOnce.Do(func() { subRoot, verRoot, subSkip, subErr = exampleSubmission(dataRoot) })
	switch {
	case subSkip != "":
		t.Skip(subSkip)
	case subErr != "":
		t.Fatalf("fakerunner: example submission: %s", subErr)
	}
	t.Logf("fakerunner: example submission in %s, verified records in %s:\n%s", subRoot, verRoot, subLog)
	return subRoot, verRoot
}

func exampleSubmission(dataRoot string) (string, string, string, string) {
	_, file, _, _ := runtime.Caller(0)
	repo := filepath.Join(filepath.Dir(file), "..", "..") // this file is e2e/fakerunner/submission.go
	py := filepath.Join(repo, "build", "submit-venv", "bin", "python")
	python := sandboxPython()
	for _, need := range []string{py, filepath.Join(python, "pyvenv.cfg")} {
		if _, err := os.Stat(need); err != nil {
			if os.Getenv("CI") != "" {
				return "", "", "", fmt.Sprintf("%v (make setup installs it)", err)
			}
			return "", "", fmt.Sprintf("example submission: %v (make setup)", err), ""
		}
	}
	dir, err := os.MkdirTemp("", "example-submission-")
	if err != nil {
		return "", "", "", err.Error()
	}
	mu.Lock()
	subCreated = dir
	mu.Unlock()
	subs, ver := filepath.Join(dir, "submissions"), filepath.Join(dir, "verified")
	var log bytes.Buffer
	for _, c := range []*exec.Cmd{
		exec.Command(py, filepath.Join(repo, "docs", "submitting", "write_submission.py"), "--data", dataRoot, "--out", subs, "--date", "2026-12-01"),
		exec.Command("go", "run", "./cmd/validate-submission", "-quiet", "-reexecute", "-data", dataRoot, "-python", python, "-record", ver,
			filepath.Join(subs, ExampleFolder)),
	} {
		c.Dir = repo
		c.Stdout, c.Stderr = &log, &log
		if err := c.Run(); err != nil {
			return "", "", "", fmt.Sprintf("%v: %v\n%s", c.Args, err, log.String())
		}
	}
	subLog = log.String()
	return subs, ver, "", ""
}
