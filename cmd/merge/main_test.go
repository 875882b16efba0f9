package main

// Tests of the merge command: four shards of a plan, run as
// run-benchmark -shard i/4 runs them, merge into the unsharded run's files;
// a plan file that changed after the shards ran is refused.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/llm/llmtest"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/runner"
	"github.com/mattools-leaderboard/leaderboard/runner/plan"
)

var questionRE = regexp.MustCompile(`Question (\d+) \((\w+)\)`)

func answer(r llmtest.Request) llmtest.Reply {
	m := questionRE.FindStringSubmatch(r.Prompt())
	i, _ := strconv.Atoi(m[1])
	return llmtest.Reply{Content: fmt.Sprintf("<answer><code>```python\ndef f_%s():\n    return {'i': %d}\n```</code><name>f_%s</name></answer>", m[2], i, m[2]),
		PromptTokens: 500 + i, CompletionTokens: 50 + i}
}

// runPlan runs the plan file at path with runner.Run, as run-benchmark
// -unscored [-shard] does.
func runPlan(t *testing.T, path, root, out string, shard runner.Shard) {
	t.Helper()
	p, err := plan.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := runner.PlanFileSHA256(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runner.Run(context.Background(), runner.Options{Plan: p, DataRoot: root, OutDir: out, Unscored: true, Shard: shard, PlanSHA256: sum}); err != nil {
		t.Fatal(err)
	}
}

// withoutTimes is a results file as JSON, without its times, latencies and path.
func withoutTimes(t *testing.T, path string) string {
	t.Helper()
	f, err := results.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	f.Run.StartedAt, f.Run.FinishedAt, f.Path = nil, nil, ""
	for i := range f.Questions {
		f.Questions[i].LatencyMS = nil
	}
	b, _ := json.Marshal(f)
	return string(b)
}

func TestMergeOfFourShardsEqualsTheUnshardedRun(t *testing.T) {
	root := mattoolstest.NewRoot(t).Dir
	srv := llmtest.New(t, llmtest.Options{Responder: answer})
	planPath := filepath.Join(t.TempDir(), "plan.toml")
	os.WriteFile(planPath, []byte(fmt.Sprintf("rounds = 2\nconcurrency = 4\n[[models]]\nname = \"fake-model\"\nbase_url = %q\ntimeout = \"5s\"\n", srv.URL)), 0o644)

	full := t.TempDir()
	runPlan(t, planPath, root, full, runner.Shard{})
	var dirs []string
	for i := range 4 {
		d := t.TempDir()
		runPlan(t, planPath, root, d, runner.Shard{Index: i, Count: 4})
		dirs = append(dirs, d)
	}
	if n := len(srv.Requests()); n != 2*2*49 {
		t.Fatalf("%d requests, want 196: 98 unsharded, 98 over the shards", n)
	}

	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), append([]string{"-plan", planPath, "-data", root, "-out", out, "-unscored"}, dirs...), &stdout, &stderr, os.Getenv); code != exitOK {
		t.Fatalf("merge exit %d\n%s", code, stderr.String())
	}
	if strings.Count(stdout.String(), "written") != 2 {
		t.Errorf("stdout:\n%s", stdout.String())
	}
	for r := 1; r <= 2; r++ {
		name := fmt.Sprintf("runner__tool-usage__single-llm__s0__fake-model__unscored__r%d.parquet", r)
		if a, b := withoutTimes(t, filepath.Join(out, name)), withoutTimes(t, filepath.Join(full, name)); a != b {
			t.Errorf("%s: merged\n%s\nunsharded\n%s", name, a, b)
		}
	}

	// The plan file changed after the shards ran (a comment is enough).
	os.WriteFile(planPath, append([]byte("# edited\n"), []byte(fmt.Sprintf("rounds = 2\nconcurrency = 4\n[[models]]\nname = \"fake-model\"\nbase_url = %q\ntimeout = \"5s\"\n", srv.URL))...), 0o644)
	stderr.Reset()
	out2 := t.TempDir()
	if code := run(context.Background(), append([]string{"-plan", planPath, "-data", root, "-out", out2, "-unscored"}, dirs...), &stdout, &stderr, os.Getenv); code != exitFailed ||
		!strings.Contains(stderr.String(), "written for another plan") || !strings.Contains(stderr.String(), "nothing written") {
		t.Errorf("edited plan: exit %d, stderr:\n%s", code, stderr.String())
	}
	if fs, _ := filepath.Glob(filepath.Join(out2, "*.parquet")); len(fs) != 0 {
		t.Errorf("refused merge wrote %v", fs)
	}
	if code := run(context.Background(), []string{"-plan", planPath, "-data", root}, &stdout, &stderr, os.Getenv); code != exitUsage {
		t.Errorf("no shard directory: exit %d, want %d", code, exitUsage)
	}
}
