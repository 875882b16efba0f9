package runner

// Tests of the cluster task's view of a plan (Options.Models and
// Options.BaseURLs): a plan of two models run as models × shards, each
// task asking its own server, merges into the unsharded run.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/llm/llmtest"
)

// twoModelPlan is 1 round of the tool-usage benchmark (49 questions) and
// of the 20-question QA sample for two models at baseURL.
func twoModelPlan(t *testing.T, baseURL string) string {
	abs, err := filepath.Abs("testdata/qa20.json")
	if err != nil {
		t.Fatal(err)
	}
	m := func(name string) string {
		return fmt.Sprintf("[[models]]\nname = %q\nbase_url = %q\ntimeout = \"5s\"\n", name, baseURL)
	}
	return fmt.Sprintf("rounds = 1\nconcurrency = 2\nbenchmarks = [\"tool-usage\", \"qa-code\"]\n[qa_sets.qa-code]\npath = %q\nname = \"sample-20\"\n", abs) +
		m("model-a") + m("model-b")
}

func TestModelTasksWithTheirOwnServersMergeIntoTheUnshardedRun(t *testing.T) {
	root := mattoolstest.NewRoot(t).Dir
	ctx := context.Background()
	srv := llmtest.New(t, llmtest.Options{Responder: mixedAnswer})
	pl := mustPlan(t, twoModelPlan(t, srv.URL))
	opts := func(out string) Options {
		return Options{Plan: pl, DataRoot: root, OutDir: out, Scorer: &fakeScorer{}, PlanSHA256: "plan-sha"}
	}
	full := t.TempDir()
	if _, err := Run(ctx, opts(full)); err != nil {
		t.Fatal(err)
	}
	if n := len(srv.Requests()); n != 2*(49+20) {
		t.Fatalf("unsharded: %d requests, want 138", n)
	}

	// The plan's base URL is unreachable for the tasks: each task's model
	// is pointed at a server of its own (Options.BaseURLs).
	plDead := mustPlan(t, twoModelPlan(t, "http://127.0.0.1:9/v1"))
	var dirs []string
	for _, model := range []string{"model-a", "model-b"} {
		own := llmtest.New(t, llmtest.Options{Responder: mixedAnswer})
		for i := range 2 {
			dir := t.TempDir()
			dirs = append(dirs, dir)
			o := opts(dir)
			o.Plan, o.Shard, o.Models, o.BaseURLs = plDead, Shard{Index: i, Count: 2}, []string{model}, map[string]string{model: own.URL}
			res, err := Run(ctx, o)
			if err != nil {
				t.Fatalf("%s shard %d: %v", model, i, err)
			}
			if len(res) != 3 { // tool usage under 2 protocols, QA
				t.Errorf("%s shard %d: %d runs, want 3 (its model's only)", model, i, len(res))
			}
			for _, r := range res {
				if r.Model != model || r.Status != StatusJournaled {
					t.Errorf("%s shard %d: run %s of %s %s", model, i, r.RunID, r.Model, r.Status)
				}
			}
			// The session line records the task's server; the plan's hash is the plan's.
			js, _ := filepath.Glob(filepath.Join(dir, JournalDir, "*.jsonl"))
			b, err := os.ReadFile(js[0])
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), `"base_url":"`+own.URL+`"`) || !strings.Contains(string(b), `"plan_sha256":"plan-sha"`) {
				t.Errorf("%s shard %d: session line %.300s; want base_url %s", model, i, b, own.URL)
			}
		}
		// 69 items of the model, every one asked once of its own server.
		if n := len(own.Requests()); n != 49+20 {
			t.Errorf("%s: its server got %d requests, want 69", model, n)
		}
		for _, r := range own.Requests() {
			if r.Model != model {
				t.Errorf("%s's server was asked for %s", model, r.Model)
			}
		}
	}
	merged := t.TempDir()
	if _, err := Merge(ctx, opts(merged), dirs); err != nil {
		t.Fatal(err)
	}
	want := parquetNames(t, full)
	if got := parquetNames(t, merged); strings.Join(got, " ") != strings.Join(want, " ") || len(got) != 6 {
		t.Fatalf("merged files %v, unsharded %v", got, want)
	}
	for _, name := range want {
		if d := firstDiff(comparableFile(t, filepath.Join(full, name)), comparableFile(t, filepath.Join(merged, name))); d != "" {
			t.Errorf("%s: merged differs from the unsharded run at %s", name, d)
		}
	}

	// Unknown names and a base URL that is no URL are refused before any run.
	for _, o := range []Options{{Models: []string{"model-c"}}, {BaseURLs: map[string]string{"model-c": srv.URL}},
		{BaseURLs: map[string]string{"model-a": "127.0.0.1:8000"}}} {
		o.Plan, o.DataRoot, o.OutDir, o.Scorer = pl, root, t.TempDir(), &fakeScorer{}
		if _, err := Run(ctx, o); err == nil || !strings.Contains(err.Error(), "model-") {
			t.Errorf("Models %v BaseURLs %v: err = %v", o.Models, o.BaseURLs, err)
		}
	}
}
