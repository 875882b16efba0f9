package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/llm/llmtest"
	"github.com/mattools-leaderboard/leaderboard/results"
)

// TestFolderBenchmarkModules: datasets/testdata/folder-benchmark-modules's
// one verification imports pytest, which the sandbox lacks; the folder's
// manifest provides a stand-in (modules), so a right answer passes its
// property in the sandbox and a wrong one fails it. The same folder
// without "modules" cannot verify at all: the verification's import fails.
func TestFolderBenchmarkModules(t *testing.T) {
	python := envOr(os.Getenv, "MATTOOLS_SANDBOX_PYTHON", "/opt/mattools-sandbox")
	if _, err := os.Stat(filepath.Join(python, "pyvenv.cfg")); err != nil && os.Getenv("CI") == "" {
		t.Skipf("the sandbox's Python environment is not installed (make setup): %v", err)
	}
	root := sandboxReadableRoot(t)
	src, err := filepath.Abs(filepath.Join("..", "..", "datasets", "testdata", "folder-benchmark-modules"))
	if err != nil {
		t.Fatal(err)
	}
	without := filepath.Join(t.TempDir(), "without-modules")
	if err := os.CopyFS(without, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	manifest := filepath.Join(without, "benchmark.json")
	b, _ := os.ReadFile(manifest)
	if err := os.WriteFile(manifest, []byte(strings.Replace(string(b), `"modules": {"pytest": "support/pytest.py"}`, `"modules": {}`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		folder, mass string
		passed       int32
		verdict      results.Verdict
	}{
		{src, "float(Element('Si').atomic_mass)", 1, results.VerdictCorrect},
		{src, "28.5", 0, results.VerdictPartial}, // runnable, no property passed
		{without, "float(Element('Si').atomic_mass)", 0, results.VerdictVerificationCrash},
	} {
		srv := llmtest.New(t, llmtest.Options{Responder: func(r llmtest.Request) llmtest.Reply {
			code := "def f():\n    from pymatgen.core import Element\n    return {'atomic_mass': " + c.mass + "}"
			return llmtest.Reply{Content: "<answer><code>```python\n" + code + "\n```</code><name>f</name></answer>"}
		}})
		plan := writePlan(t, srv.URL)
		data, _ := os.ReadFile(plan)
		text := "benchmarks = [\"toy-modules\"]\n" + string(data) + fmt.Sprintf("[folder_benchmarks.toy-modules]\npath = %q\n[tool_usage]\nscoring_protocols = [\"mattools-v1\"]\n", c.folder)
		if err := os.WriteFile(plan, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		out := t.TempDir()
		cmd, _, stderr := child(t, "", "-plan", plan, "-data", root.Dir, "-out", out, "-no-progress")
		if code := exitCode(cmd.Wait()); code != 0 {
			t.Fatalf("%s, %s: exit %d\n%s", c.folder, c.mass, code, stderr)
		}
		q, passed := onlyQuestion(t, out)
		if results.Verdict(q.Verdict) != c.verdict || passed != c.passed {
			t.Errorf("%s, mass %s: verdict %s, %d properties passed (cause %q); want %s, %d", filepath.Base(c.folder), c.mass, q.Verdict, passed, q.VerdictCause, c.verdict, c.passed)
		}
	}
}
