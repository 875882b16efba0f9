package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/llm/llmtest"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/results/submission"
	"github.com/mattools-leaderboard/leaderboard/runner"
	"github.com/mattools-leaderboard/leaderboard/runner/plan"
	"github.com/mattools-leaderboard/leaderboard/runner/scoring"
	"github.com/mattools-leaderboard/leaderboard/sandbox"
)

var fakeQuestionRE = regexp.MustCompile(`Question (\d+) \((\w+)\)`)

// fakeAnswer answers fake-root question i with a function returning the
// dict of all its properties (p0 … p(n-1), each its index, the fake
// question's values) when i is even, and a dict of only p0 when it is odd,
// so that the runs hold different verdicts.
func fakeAnswer(r llmtest.Request) llmtest.Reply {
	m := fakeQuestionRE.FindStringSubmatch(r.Prompt())
	if m == nil {
		return llmtest.Reply{Content: "no question here"}
	}
	i, _ := strconv.Atoi(m[1])
	n := 1
	if i%2 == 0 {
		n = mattoolstest.PropertyCounts[i]
	}
	var kv []string
	for k := range n {
		kv = append(kv, fmt.Sprintf("'p%d': %d", k, k))
	}
	return llmtest.Reply{Content: fmt.Sprintf("<answer><code>```python\ndef f_%s():\n    return {%s}\n```</code><name>f_%s</name></answer>",
		m[2], strings.Join(kv, ", "), m[2]), PromptTokens: 300 + i, CompletionTokens: 40 + i}
}

// TestRunnerRunBecomesASubmission: the runner runs the fake model (an
// OpenAI-compatible server on 127.0.0.1, no API key) on a fake MatTools
// root, three rounds scored in the sandbox under both protocols;
// submission.FromRuns (make-submission) turns the six results files and an
// author's metadata file that leaves out what the runs say into a
// submission folder, which validate-submission -reexecute accepts: every
// verdict re-executed agrees. The runs keep their rows and verdicts; only
// provenance and run ids change.
func TestRunnerRunBecomesASubmission(t *testing.T) {
	python := sandboxPython(t)
	root := mattoolstest.NewRoot(t)
	for d := root.Dir; d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil { // the sandbox uid reads it; t.TempDir's parent is private
			t.Fatal(err)
		}
	}
	root.Write("src/tool_source_code/README", []byte("fake\n"))
	srv := llmtest.New(t, llmtest.Options{Responder: fakeAnswer})
	p, err := plan.Parse([]byte(fmt.Sprintf(`rounds = 3
concurrency = 4
benchmarks = ["tool-usage"]
systems = ["single-llm"]
[[models]]
name = "local/fake-coder-7b"
base_url = %q
timeout = "60s"
`, srv.URL)), filepath.Join(t.TempDir(), "plan.toml"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	sc, err := scoring.Open(ctx, "auto", root.Dir, sandbox.Options{Slots: 2, Python: python})
	if err != nil {
		if os.Getenv("CI") == "" && errors.Is(err, sandbox.ErrUnavailable) {
			t.Skipf("no sandbox (make setup): %v", err)
		}
		t.Fatal(err)
	}
	defer sc.Close()
	out := t.TempDir()
	if _, err := runner.Run(ctx, runner.Options{Plan: p, DataRoot: root.Dir, OutDir: out, Scorer: sc, PromptsCache: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	runs, err := results.ReadDir(out)
	if err != nil || len(runs) != 6 {
		t.Fatalf("runner wrote %d runs (%v); want 3 rounds × 2 protocols", len(runs), err)
	}
	byRunnerID := map[string]*results.File{}
	for _, f := range runs {
		byRunnerID[f.Run.RunID] = f
	}

	meta := filepath.Join(t.TempDir(), "author.toml")
	if err := os.WriteFile(meta, []byte(`organization = "Example Lab"
provider = "a local vLLM server"
authors = ["A. Author"]
contact = "author@example.org"
link = "https://example.org/fake-coder"
model_release_date = "unknown"
open_model = true
open_system = true
outputs_license = "CC-BY-4.0"
`), 0o644); err != nil {
		t.Fatal(err)
	}
	subs := t.TempDir()
	bad := filepath.Join(t.TempDir(), "bad.toml")
	os.WriteFile(bad, []byte("organization = \"x\"\nmodel = \"another-model\"\n"), 0o644)
	if _, _, err := submission.FromRuns(bad, runs, subs, time.Now()); err == nil || !strings.Contains(err.Error(), "no run has the model") {
		t.Errorf("metadata naming a model no run has: %v", err)
	}
	os.WriteFile(bad, []byte("organisation = \"x\"\n"), 0o644)
	if _, _, err := submission.FromRuns(bad, runs, subs, time.Now()); err == nil || !strings.Contains(err.Error(), "unknown field(s) organisation") {
		t.Errorf("metadata with an unknown field: %v", err)
	}
	fresh, _ := results.ReadDir(out) // FromRuns rewrites the files it is given
	folder, n, err := submission.FromRuns(meta, fresh, subs, time.Date(2026, 12, 4, 23, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	const want = "2026-12-04_example-lab_local-fake-coder-7b_single-llm"
	if folder != want || n != 6 {
		t.Fatalf("folder %q with %d files; want %q with 6", folder, n, want)
	}
	dir := filepath.Join(subs, folder)
	if left, _ := filepath.Glob(filepath.Join(subs, ".*")); len(left) > 0 {
		t.Errorf("temporary files left in the submissions root: %q", left)
	}
	sub, ps := submission.Load(dir, submission.DefaultLimits)
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	metaBytes, _ := os.ReadFile(filepath.Join(dir, submission.MetadataFile))
	sum := sha256.Sum256(metaBytes)
	if m := sub.Metadata; m.Model != "local/fake-coder-7b" || m.System != "single-llm" || m.Benchmark != "tool-usage" || *m.RetrievalSource != 0 || m.Date != "2026-12-04" {
		t.Errorf("metadata filled from the runs: %+v", m)
	}
	for _, f := range sub.Files {
		r := f.Run
		orig := byRunnerID[strings.Replace(r.RunID, submission.Namespace(folder), "runner__", 1)]
		if orig == nil {
			t.Errorf("%s: no runner run of that id", r.RunID)
			continue
		}
		if r.Provenance.Kind != results.ProvenanceSubmitted || r.Provenance.Submission.Folder != folder ||
			r.Provenance.Submission.MetadataSHA256 != hex.EncodeToString(sum[:]) || !strings.HasPrefix(r.RunID, submission.Namespace(folder)) ||
			filepath.Base(f.Path) != r.RunID+results.Extension {
			t.Errorf("%s: provenance %+v in %s", r.RunID, r.Provenance, f.Path)
		}
		if *r.Totals.PropertiesPassed != *orig.Run.Totals.PropertiesPassed || len(f.Questions) != 49 {
			t.Errorf("%s: totals %+v, %d rows; the runner's %+v", r.RunID, r.Totals, len(f.Questions), orig.Run.Totals)
		}
		for i, q := range f.Questions {
			if o := orig.Questions[i]; q.Verdict != o.Verdict || q.Code != o.Code {
				t.Errorf("%s row %d: verdict %s, the runner's %s", r.RunID, i+1, q.Verdict, o.Verdict)
			}
		}
	}

	code, outText := validateArgs(t, "-reexecute", "-data", root.Dir, "-python", python, dir)
	if code != exitOK || !strings.Contains(outText, "re-executed: 21 answers (7 distinct)") || !strings.Contains(outText, "all agree") {
		t.Fatalf("validate-submission -reexecute: exit %d:\n%s", code, outText)
	}
	t.Logf("validate-submission -reexecute:\n%s", outText)

	// Again into the same root: the folder exists and is never replaced.
	again, _ := results.ReadDir(out)
	if _, _, err := submission.FromRuns(meta, again, subs, time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC)); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("a second conversion into the same folder: %v; want it refused", err)
	}
}
