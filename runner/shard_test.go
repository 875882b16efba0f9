package runner

// Tests of sharded runs and Merge: a plan run as 4 shards and
// merged equals the unsharded run; Merge refuses incomplete or foreign
// shards.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/llm/llmtest"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/runner/scoring"
)

func TestParseShard(t *testing.T) {
	for _, tt := range []struct {
		in, want string // want "" = an error
	}{
		{"0/4", "0/4"}, {"3/4", "3/4"}, {"0/1", "0/1"},
		{"4/4", ""}, {"-1/4", ""}, {"1/0", ""}, {"1", ""}, {"a/4", ""}, {"1/4/2", ""}, {"", ""},
	} {
		s, err := ParseShard(tt.in)
		if got := s.String(); (err == nil) != (tt.want != "") || (err == nil && got != tt.want) {
			t.Errorf("ParseShard(%q) = %s, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

// mixedAnswer answers the fake root's tool-usage questions as toolAnswer
// does and a QA question with a letter that depends on its prompt.
func mixedAnswer(r llmtest.Request) llmtest.Reply {
	if questionRE.MatchString(r.Prompt()) {
		return toolAnswer(r)
	}
	return llmtest.Reply{Content: "<answer>" + string(rune('A'+len(r.Prompt())%4)) + "</answer>", PromptTokens: 90, CompletionTokens: 4}
}

// shardPlan is 2 rounds of the tool-usage benchmark (49 questions, scored
// under both protocols) and of the 20-question QA sample: 4 journals, 6 runs,
// 138 items.
func shardPlan(t *testing.T, baseURL string) string {
	abs, err := filepath.Abs("testdata/qa20.json")
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf(`rounds = 2
concurrency = 3
benchmarks = ["tool-usage", "qa-code"]
[qa_sets.qa-code]
path = %q
name = "sample-20"
[[models]]
name = "fake-model"
base_url = %q
api_key_env = "FAKE_API_KEY"
timeout = "5s"
price = { input_per_million = 2.5, output_per_million = 10.0 }
`, abs, baseURL) // 5 s: a loopback answer beats it on a loaded machine
}

// lockScorer is fakeScorer in another sandbox environment.
type lockScorer struct{ fakeScorer }

func (s *lockScorer) Environment() scoring.Environment {
	env := s.fakeScorer.Environment()
	env.Sandbox.LockSHA256 = "other-lock"
	return env
}

// comparableFile renders a results file without what may differ between
// two runs of the same answers: the run's start and finish times and each
// row's (and trace stage's) latency.
func comparableFile(t *testing.T, path string) string {
	t.Helper()
	f := readRun(t, path)
	f.Run.StartedAt, f.Run.FinishedAt, f.Path = nil, nil, ""
	for i := range f.Questions {
		f.Questions[i].LatencyMS = nil
		for j := range f.Questions[i].Trace {
			f.Questions[i].Trace[j].LatencyMS = 0
		}
	}
	for i := range f.QAItems {
		f.QAItems[i].LatencyMS = nil
	}
	b, err := json.MarshalIndent(f, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// firstDiff returns where two renderings of comparableFile first differ
// (the line and both texts; unsharded first), or "" when they are equal.
func firstDiff(unsharded, merged string) string {
	al, bl := strings.Split(unsharded, "\n"), strings.Split(merged, "\n")
	for i := range max(len(al), len(bl)) {
		if i >= len(al) || i >= len(bl) || al[i] != bl[i] {
			line := func(l []string) string {
				if i < len(l) {
					return l[i]
				}
				return "(end)"
			}
			return fmt.Sprintf("line %d: %.300s, unsharded %.300s", i+1, line(bl), line(al))
		}
	}
	return ""
}

func parquetNames(t *testing.T, dir string) []string {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(dir, "*"+results.Extension))
	var names []string
	for _, p := range paths {
		names = append(names, filepath.Base(p))
	}
	sort.Strings(names)
	return names
}

func TestFourShardsMergeIntoTheUnshardedRun(t *testing.T) {
	root := mattoolstest.NewRoot(t).Dir // 28 of 49 questions executable, as on the shared copy
	ctx := context.Background()
	srv := llmtest.New(t, llmtest.Options{Responder: mixedAnswer})
	pl := mustPlan(t, shardPlan(t, srv.URL))
	opts := func(out string) Options {
		return Options{Plan: pl, DataRoot: root, OutDir: out, APIKeys: map[string]string{"FAKE_API_KEY": testKey},
			Scorer: &fakeScorer{}, PlanSHA256: "plan-sha"}
	}

	full := t.TempDir()
	res, err := Run(ctx, opts(full))
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 6 || len(srv.Requests()) != 2*(49+20) {
		t.Fatalf("unsharded: %d runs, %d requests; want 6 and 138", len(res), len(srv.Requests()))
	}

	dirs := make([]string, 4)
	var asked []int
	for i := range dirs {
		dirs[i] = t.TempDir()
		before := len(srv.Requests())
		o := opts(dirs[i])
		o.Shard = Shard{Index: i, Count: 4}
		res, err := Run(ctx, o)
		if err != nil {
			t.Fatalf("shard %d: %v", i, err)
		}
		for _, r := range res {
			if r.Status != StatusJournaled || r.Done != r.Items {
				t.Errorf("shard %d: run %s %s %d/%d; want journaled whole", i, r.RunID, r.Status, r.Done, r.Items)
			}
		}
		if names := parquetNames(t, dirs[i]); len(names) != 0 {
			t.Errorf("shard %d wrote results files %v", i, names)
		}
		asked = append(asked, len(srv.Requests())-before)
	}
	// 138 items dealt round-robin: 35, 35, 34, 34; each asked once.
	if fmt.Sprint(asked) != "[35 35 34 34]" {
		t.Errorf("questions asked per shard %v; want [35 35 34 34]", asked)
	}

	merged := t.TempDir()
	mres, err := Merge(ctx, opts(merged), dirs)
	if err != nil {
		t.Fatal(err)
	}
	if len(mres) != 6 {
		t.Fatalf("merge: %d runs, want 6", len(mres))
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
	// A merge again finds every file there and writes nothing.
	again, err := Merge(ctx, opts(merged), dirs)
	if err != nil || len(again) != 6 || again[0].Status != StatusExists {
		t.Errorf("second merge: %+v, %v", again, err)
	}
	if _, err := os.Stat(filepath.Join(merged, MergeLock)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("merge left its lock file: %v", err)
	}

	// A merge into a directory another merge holds is refused and writes
	// nothing; once it is free, the merge removes the temporary file that a
	// killed merge left and writes the runs.
	busy := t.TempDir()
	unlock, err := lockMerge(busy)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Merge(ctx, opts(busy), dirs); err == nil || !strings.Contains(err.Error(), "in use by another merge") {
		t.Errorf("merge into a locked directory: err = %v", err)
	}
	if names := parquetNames(t, busy); len(names) != 0 {
		t.Errorf("merge into a locked directory wrote %v", names)
	}
	// The lock is taken before the plan is prepared (which notes the results
	// files already there): a merge whose data root is gone is refused by
	// the lock, not by the missing data.
	noData := opts(busy)
	noData.DataRoot = filepath.Join(t.TempDir(), "gone")
	if _, err := Merge(ctx, noData, dirs); err == nil || !strings.Contains(err.Error(), "in use by another merge") {
		t.Errorf("merge into a locked directory, data root missing: err = %v; want the lock's error first", err)
	}
	unlock()
	// A merge that fails leaves no output folder it created.
	fresh := filepath.Join(t.TempDir(), "new-out")
	noData.OutDir = fresh
	if _, err := Merge(ctx, noData, dirs); err == nil {
		t.Error("merge with its data root missing: no error")
	}
	if _, err := os.Stat(fresh); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed merge left its new output folder %s: %v", fresh, err)
	}
	stale := filepath.Join(busy, "."+want[0]+".tmp-123")
	if err := os.WriteFile(stale, []byte("half a file"), 0o644); err != nil {
		t.Fatal(err)
	}
	if res, err := Merge(ctx, opts(busy), dirs); err != nil || len(res) != 6 {
		t.Fatalf("merge after the lock was released: %d runs, %v", len(res), err)
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the killed merge's temporary file is still there: %v", err)
	}
	if got := parquetNames(t, busy); len(got) != 6 {
		t.Errorf("merged %v", got)
	}

	refused := func(what string, o Options, dirs []string, wantErr string) {
		t.Helper()
		_, err := Merge(ctx, o, dirs)
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("%s: err = %v; want it to say %q", what, err, wantErr)
		}
		if names := parquetNames(t, o.OutDir); len(names) != 0 {
			t.Errorf("%s: wrote %v", what, names)
		}
	}
	refused("a shard missing", opts(t.TempDir()), dirs[:3], "shard(s) 3 of 4 missing")
	other := opts(t.TempDir())
	other.PlanSHA256 = "another-plan"
	refused("another plan", other, dirs, "written for another plan")

	// Shard 1 run again in another sandbox environment.
	lock := t.TempDir()
	o := opts(lock)
	o.Shard, o.Scorer = Shard{Index: 1, Count: 4}, &lockScorer{}
	if _, err := Run(ctx, o); err != nil {
		t.Fatal(err)
	}
	refused("another sandbox lock", opts(t.TempDir()), []string{dirs[0], lock, dirs[2], dirs[3]}, "another sandbox environment")

	// Shard 2 written by another build of the generator.
	gen := t.TempDir()
	journals, _ := filepath.Glob(filepath.Join(dirs[2], JournalDir, "*.jsonl"))
	for _, j := range journals {
		data, err := os.ReadFile(j)
		if err != nil {
			t.Fatal(err)
		}
		data = []byte(strings.ReplaceAll(string(data), `"generator_version":"`+generatorVersion()+`"`, `"generator_version":"0000000"`))
		os.MkdirAll(filepath.Join(gen, JournalDir), 0o755)
		if err := os.WriteFile(filepath.Join(gen, JournalDir, filepath.Base(j)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	refused("another generator", opts(t.TempDir()), []string{dirs[0], dirs[1], gen, dirs[3]}, "generator version 0000000")

	// Shard 3 cut short: its last item line lost.
	short := t.TempDir()
	journals, _ = filepath.Glob(filepath.Join(dirs[3], JournalDir, "*.jsonl"))
	for _, j := range journals {
		data, _ := os.ReadFile(j)
		lines := strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n")
		os.MkdirAll(filepath.Join(short, JournalDir), 0o755)
		os.WriteFile(filepath.Join(short, JournalDir, filepath.Base(j)), []byte(strings.Join(lines[:len(lines)-1], "")), 0o644)
	}
	refused("an incomplete shard", opts(t.TempDir()), []string{dirs[0], dirs[1], dirs[2], short}, "not journaled by their shard")
}
