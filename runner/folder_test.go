package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/llm/llmtest"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/runner/scoring"
	"github.com/mattools-leaderboard/leaderboard/sandbox"
)

// folderAnswers are the fake model's answers to the three questions of
// datasets/testdata/folder-benchmark: the lattice and iron right, NaCl's
// atom count an int where the unit test wants a float (1 of 2 properties).
var folderAnswers = map[string]string{
	"cubic lattice": "def lattice():\n    from pymatgen.core import Lattice\n    l = Lattice.cubic(3.0)\n    return {'volume': l.volume, 'abc': list(l.abc)}",
	"rock salt":     "def nacl():\n    from pymatgen.core import Composition\n    c = Composition('NaCl')\n    return {'num_atoms': int(c.num_atoms), 'reduced_formula': c.reduced_formula}",
	"iron":          "def iron():\n    from pymatgen.core import Element\n    return {'atomic_number': Element('Fe').Z}",
}

func folderAnswer(r llmtest.Request) llmtest.Reply {
	for key, code := range folderAnswers {
		if strings.Contains(r.Prompt(), key) {
			name := code[4:strings.Index(code, "(")]
			return llmtest.Reply{Content: fmt.Sprintf("<answer>\n<code>\n```python\n%s\n```\n</code>\n<name>%s</name>\n</answer>", code, name), PromptTokens: 500, CompletionTokens: 80}
		}
	}
	return llmtest.Reply{Content: "no such question"}
}

// TestFolderBenchmarkRunsAndScoresInTheSandbox: a plan naming the folder
// benchmark of datasets/testdata by path dry-runs (3 questions, both
// tool-usage protocols) and runs through the fake model into two results
// files (mattools-v1, mattools-v1-strict) of benchmark toy-pymatgen,
// version 0.1, scored in the real sandbox: 2 correct questions, 1 partial,
// 4 of 5 properties, every function runnable; the files describe their
// benchmark (extension "benchmark") and read back.
func TestFolderBenchmarkRunsAndScoresInTheSandbox(t *testing.T) {
	root := mattoolstest.NewRoot(t).Dir // the prompts
	dir, err := filepath.Abs("../datasets/testdata/folder-benchmark")
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.New(t, llmtest.Options{Responder: folderAnswer})
	text := strings.Replace(toolPlan(srv.URL, 1, ""), "concurrency = 4\n", fmt.Sprintf("concurrency = 2\nbenchmarks = [\"toy-pymatgen\"]\n[folder_benchmarks.toy-pymatgen]\npath = %q\n", dir), 1)
	p := mustPlan(t, text)
	est, err := EstimatePlan(Options{Plan: p, DataRoot: root, OutDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if len(est) != 1 || est[0].Benchmark != "toy-pymatgen" || est[0].Questions != 3 || strings.Join(est[0].Protocols, ",") != "mattools-v1,mattools-v1-strict" {
		t.Fatalf("dry run %+v; want one run of toy-pymatgen, 3 questions, both protocols", est)
	}

	python := os.Getenv("MATTOOLS_SANDBOX_PYTHON")
	if python == "" {
		python = "/opt/mattools-sandbox"
	}
	sb, err := sandbox.Open(context.Background(), "auto", sandbox.Options{Slots: 2, Python: python})
	if err != nil {
		if os.Getenv("CI") == "" && errors.Is(err, sandbox.ErrUnavailable) {
			t.Skipf("no sandbox: %v", err)
		}
		t.Fatal(err)
	}
	defer sb.Close()
	dataDir, err := os.MkdirTemp("", "folder-data-") // readable by the sandbox's uid
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dataDir)
	os.Chmod(dataDir, 0o755)
	os.MkdirAll(dataDir+"/src/tool_source_code", 0o755)
	sc := &scoring.Scorer{Sandbox: sb, Root: dataDir, Limits: sandbox.Limits{Wall: 10 * time.Minute, CPU: 120 * time.Second}}
	out := t.TempDir()
	res, err := Run(context.Background(), Options{Plan: p, DataRoot: root, OutDir: out, Scorer: sc, APIKeys: map[string]string{"FAKE_API_KEY": testKey}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 {
		t.Fatalf("%d runs; want 2 (one per protocol)", len(res))
	}
	for _, r := range res {
		f := readRun(t, r.Path)
		run := f.Run
		tot := run.Totals
		if run.Benchmark != "toy-pymatgen" || run.BenchmarkVersion != "0.1" || run.QuestionSet.Name != results.QuestionSetAll ||
			run.QuestionSet.Questions != 3 || run.QuestionSet.Properties != 5 {
			t.Errorf("%s: benchmark %s %s, question set %+v; want toy-pymatgen 0.1, all 3 / 5", r.RunID, run.Benchmark, run.BenchmarkVersion, run.QuestionSet)
		}
		if _, ok := run.Extensions[results.ExtensionBenchmark]; !ok {
			t.Errorf("%s: no extension %q", r.RunID, results.ExtensionBenchmark)
		}
		verdicts := map[string]results.Verdict{}
		for _, q := range f.Questions {
			verdicts[q.QuestionID] = results.Verdict(q.Verdict)
		}
		want := map[string]results.Verdict{"test_cubic_lattice": results.VerdictCorrect, "test_nacl_composition": results.VerdictPartial, "test_iron_number": results.VerdictCorrect}
		if fmt.Sprint(verdicts) != fmt.Sprint(want) || tot.Runnable == nil || *tot.Runnable != 3 || tot.PropertiesPassed == nil || *tot.PropertiesPassed != 4 {
			t.Errorf("%s (%s): verdicts %v, totals %+v; want %v, 3 runnable, 4 properties passed", r.RunID, run.ScoringProtocol, verdicts, tot, want)
		}
	}
}
