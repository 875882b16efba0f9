package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/results"
)

// rescored renders the results files of dir by name, without what differs
// between two executions of the same code: the finish time and each row's
// sandbox time.
func rescored(t *testing.T, dir string) map[string]string {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(dir, "*"+results.Extension))
	out := map[string]string{}
	for _, p := range paths {
		f, err := results.Read(p)
		if err != nil {
			t.Fatal(err)
		}
		f.Path, f.Run.FinishedAt = "", nil
		for i := range f.Questions {
			f.Questions[i].ExecMS = nil
		}
		b, _ := json.MarshalIndent(f, "", " ")
		out[filepath.Base(p)] = string(b)
	}
	return out
}

// TestShardedRescoreMergesIntoTheUnshardedOutputs: rescoring
// MatTools' single-LLM GPT-4o rounds 1 and 2 (three real questions each,
// 2 × 49 items) as 3 shards and merging them writes the same 4 results
// files as the unsharded command; a merge without one shard, or of other
// inputs, is refused and writes nothing.
func TestShardedRescoreMergesIntoTheUnshardedOutputs(t *testing.T) {
	root := mattoolstest.DataRoot(t, "to rescore the MatTools runs")
	python := envOr("MATTOOLS_SANDBOX_PYTHON", "/opt/mattools-sandbox")
	if _, err := os.Stat(filepath.Join(python, "pyvenv.cfg")); err != nil && os.Getenv("CI") == "" {
		t.Skipf("the sandbox's Python environment is not installed (make setup): %v", err)
	}
	var ins []string
	for _, round := range []string{"round1", "round2"} {
		ins = append(ins, filepath.Join(root, "src", "pure_agent_test", round, "gpt-4o-2024-08-06"))
	}
	base := []string{"-quiet", "-slots", "2", "-questions", "test_vacancy,test_pchip_eval,test_boltzmann"}
	rescore := func(args ...string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), append(append(append([]string{}, base...), args...), ins...), &stdout, &stderr); code != exitOK {
			t.Fatalf("rescore %s: exit %d: %s", strings.Join(args, " "), code, stderr.String())
		}
		return stderr.String()
	}
	full := t.TempDir()
	rescore("-out", full)
	want := rescored(t, full)
	if len(want) != 4 {
		t.Fatalf("unsharded: %d results files; want 4 (2 runs × 2 protocols)", len(want))
	}
	shards := []string{t.TempDir(), t.TempDir(), t.TempDir()}
	for i, d := range shards {
		said := rescore("-out", d, "-shard", []string{"0/3", "1/3", "2/3"}[i])
		// 98 items dealt round-robin: 33, 33, 32.
		if n := []string{"33", "33", "32"}[i]; !strings.Contains(said, "shard "+itoa(i)+"/3: "+n+" items re-executed now (of 98 items in all)") {
			t.Errorf("shard %d said %q; want %s items of 98", i, said, n)
		}
		if paths, _ := filepath.Glob(filepath.Join(d, "*"+results.Extension)); len(paths) != 0 {
			t.Errorf("shard %d wrote results files %v", i, paths)
		}
	}
	merged := t.TempDir()
	rescore("-out", merged, "-merge", strings.Join(shards, ","))
	got := rescored(t, merged)
	if len(got) != len(want) {
		t.Fatalf("merged %d files, unsharded %d", len(got), len(want))
	}
	for name, w := range want {
		if g := got[name]; g != w {
			gl, wl := strings.Split(g, "\n"), strings.Split(w, "\n")
			for i := range min(len(gl), len(wl)) {
				if gl[i] != wl[i] {
					t.Errorf("%s: the merged file differs from the unsharded one at line %d: %.300s; unsharded %.300s", name, i+1, gl[i], wl[i])
					break
				}
			}
		}
	}

	refused := func(what, wantErr string, args ...string) {
		t.Helper()
		out := t.TempDir()
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), append(append(append([]string{}, base...), append([]string{"-out", out}, args...)...), ins...), &stdout, &stderr)
		if code != exitError || !strings.Contains(stderr.String(), wantErr) {
			t.Errorf("%s: exit %d, stderr %q; want 1 and %q", what, code, stderr.String(), wantErr)
		}
		if paths, _ := filepath.Glob(filepath.Join(out, "*"+results.Extension)); len(paths) != 0 {
			t.Errorf("%s: wrote %v", what, paths)
		}
	}
	refused("a shard missing", "shard(s) 2 of 3 missing", "-merge", strings.Join(shards[:2], ","))
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"-quiet", "-out", t.TempDir(), "-questions", "test_vacancy", "-merge", strings.Join(shards, ","), ins[0]}, &stdout, &stderr)
	if code != exitError || !strings.Contains(stderr.String(), "no shard journal") {
		t.Errorf("merge of other inputs: exit %d, stderr %q; want 1 and no shard journal of these inputs", code, stderr.String())
	}
}

// TestShardedAllPublishedMergesIntoTheUnshardedStore: -all-published as 2
// shards (two real questions of one published run) merged into a store
// gives the unsharded store byte for byte.
func TestShardedAllPublishedMergesIntoTheUnshardedStore(t *testing.T) {
	root := mattoolstest.DataRoot(t, "to re-execute the published runs")
	python := envOr("MATTOOLS_SANDBOX_PYTHON", "/opt/mattools-sandbox")
	if _, err := os.Stat(filepath.Join(python, "pyvenv.cfg")); err != nil && os.Getenv("CI") == "" {
		t.Skipf("the sandbox's Python environment is not installed (make setup): %v", err)
	}
	mini := miniRoot(t, root)
	args := func(store string, more ...string) []string {
		return append([]string{"-quiet", "-slots", "2", "-data", mini, "-all-published", "-store", store, "-questions", "test_vacancy,test_boltzmann"}, more...)
	}
	do := func(a []string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), a, &stdout, &stderr); code != exitOK {
			t.Fatalf("rescore %v: exit %d: %s", a, code, stderr.String())
		}
		return stderr.String()
	}
	dir := t.TempDir()
	full, mergedStore := filepath.Join(dir, "full.json"), filepath.Join(dir, "merged.json")
	do(args(full))
	shards := []string{t.TempDir(), t.TempDir()}
	for i, d := range shards {
		if said := do(args(mergedStore, "-out", d, "-shard", itoa(i)+"/2")); !strings.Contains(said, "1 item re-executed now (of 2 items in all)") {
			t.Errorf("shard %d said %q", i, said)
		}
		if _, err := os.Stat(mergedStore); err == nil {
			t.Fatalf("shard %d wrote the store", i)
		}
	}
	do(args(mergedStore, "-merge", strings.Join(shards, ",")))
	a, _ := os.ReadFile(full)
	b, err := os.ReadFile(mergedStore)
	if err != nil || !bytes.Equal(a, b) || !strings.Contains(string(a), `"test_boltzmann"`) {
		t.Errorf("merged store (%v):\n%s\nunsharded:\n%s", err, b, a)
	}
}
