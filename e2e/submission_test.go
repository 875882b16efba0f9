package e2e_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/e2e/fakerunner"
	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/llm/llmtest"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/site"
	"github.com/mattools-leaderboard/leaderboard/site/release"
)

// authorTOML is a model author's metadata for make-submission: the fields
// the runs do not say (SUBMITTING.md §2).
const authorTOML = `organization = "Example Lab"
provider = "a local OpenAI-compatible server"
authors = ["A. Author"]
contact = "author@example.org"
link = "https://example.org/fake-coder"
model_release_date = "unknown"
open_model = true
open_system = true
outputs_license = "CC-BY-4.0"
`

// TestRunnerRunToSubmissionOnPreview walks a model author's path with the
// commands themselves (SUBMITTING.md, "From a run-benchmark run to a
// submission"): run-benchmark asks the fake model (fakerunner's answers,
// served by llmtest on 127.0.0.1 as a local vLLM or Ollama server would be)
// every tool-usage question for 3 rounds, scored in the sandbox under both
// protocols; make-submission turns the 6 results files and the author's
// metadata into a submission folder; validate-submission -reexecute
// re-executes every answer and finds every verdict as submitted (exit 0);
// and the site built with that submissions root shows the model on
// /preview/, badged self-reported (no verified record yet). It needs the
// sandbox and MATTOOLS_DATA; a few minutes on 2 busy cores.
func TestRunnerRunToSubmissionOnPreview(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the benchmark through the sandbox three times; skipped with -short")
	}
	root := mattoolstest.DataRoot(t, "to run the fake model through run-benchmark, make-submission and validate-submission")
	python := sandboxPython(t)
	bench, err := datasets.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	answers, err := fakerunner.Answers(bench)
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.New(t, llmtest.Options{Responder: func(r llmtest.Request) llmtest.Reply {
		if a, ok := answers.For(r.Prompt()); ok {
			return llmtest.Reply{Content: a, PromptTokens: 1500, CompletionTokens: 120}
		}
		return llmtest.Reply{Content: "no question recognised", PromptTokens: 10, CompletionTokens: 3}
	}})

	base := readableTempDir(t, "e2e-submission-")
	cmd := commands(t, base, root, "./cmd/run-benchmark", "./cmd/make-submission", "./cmd/validate-submission")

	const model = "local/fake-none-coder"
	planPath := filepath.Join(base, "plan.toml")
	// plans/local-vllm.toml with the fake server's address and model id.
	if err := os.WriteFile(planPath, []byte(fmt.Sprintf(`rounds = 3
concurrency = 4
benchmarks = ["tool-usage"]
systems = ["single-llm"]

[tool_usage]
scoring_protocols = ["mattools-v1", "mattools-v1-strict"]

[sandbox]
backend = "auto"

[[models]]
name = %q
display_name = "Fake coder (local server)"
base_url = %q
timeout = "60s"
`, model, srv.URL)), 0o644); err != nil {
		t.Fatal(err)
	}
	runs := filepath.Join(base, "runs")
	if _, err := cmd("run-benchmark", "-plan", planPath, "-out", runs, "-sandbox-python", python, "-prompts-cache", filepath.Join(base, "prompts"), "-no-progress"); err != nil {
		t.Fatalf("run-benchmark: %v", err)
	}
	files, err := results.ReadDir(runs)
	if err != nil || len(files) != 6 {
		t.Fatalf("run-benchmark wrote %d results files (%v); want 3 rounds × 2 protocols", len(files), err)
	}
	for _, f := range files {
		if f.Run.Provenance.Kind != results.ProvenanceRunner || f.Run.Model != model {
			t.Fatalf("%s: provenance %q, model %q; want a runner run of %s", f.Path, f.Run.Provenance.Kind, f.Run.Model, model)
		}
	}

	meta := filepath.Join(base, "author.toml")
	if err := os.WriteFile(meta, []byte(authorTOML), 0o644); err != nil {
		t.Fatal(err)
	}
	subs := filepath.Join(base, "submissions")
	out, err := cmd("make-submission", "-metadata", meta, "-out", subs, runs)
	if err != nil {
		t.Fatalf("make-submission: %v", err)
	}
	m := regexp.MustCompile(`wrote (\S+): submission.toml and 6 results files \(provenance submitted`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("make-submission printed %q; want the folder written with 6 results files", out)
	}
	folder := m[1]
	if !strings.HasSuffix(folder, "_example-lab_local-fake-none-coder_single-llm") {
		t.Errorf("folder %s; want <date>_example-lab_local-fake-none-coder_single-llm", folder)
	}

	out, err = cmd("validate-submission", "-reexecute", "-quiet", "-data", root, "-python", python, folder)
	if err != nil {
		t.Fatalf("validate-submission -reexecute: %v", err)
	}
	if !strings.Contains(out, ": valid: ") || !strings.Contains(out, "all agree") {
		t.Errorf("validate-submission printed %q; want it to say the submission is valid and every re-executed verdict agrees", out)
	}

	siteOut := filepath.Join(base, "public")
	rep, err := site.Build(context.Background(), site.Options{ResultsDir: filepath.Join(base, "no-results"), SubmissionsDir: subs, Benchmark: bench,
		RepoRoot: repoRoot(t), OutDir: siteOut, WorkDir: filepath.Join(base, "work"), Releases: []release.Release{}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Runs != 6 {
		t.Errorf("the site read %d runs; want the submission's 6", rep.Runs)
	}
	page, err := os.ReadFile(filepath.Join(siteOut, site.PreviewPath, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	html := string(page)
	i := strings.Index(html, "Fake coder (local server)")
	if i < 0 {
		t.Fatalf("/%s/ does not show the model", site.PreviewPath)
	}
	start, end := strings.LastIndex(html[:i], "<tr"), strings.Index(html[i:], "</tr>")
	if start < 0 || end < 0 {
		t.Fatalf("/%s/: the model is not in a table row", site.PreviewPath)
	}
	if tr := html[start : i+end]; !strings.Contains(tr, `badge-self-reported`) {
		t.Errorf("/%s/: the model's row has no self-reported badge:\n%s", site.PreviewPath, tr)
	}
}
