package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/results"
)

// records renders the verified records under dir by name, without what
// differs between two executions of the same code: the finish time and
// each row's sandbox time.
func records(t *testing.T, dir string) map[string]string {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(dir, exampleFolder, "*"+results.Extension))
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

// TestShardedReexecutionMergesIntoTheUnshardedVerdicts: the
// example submission re-executed on three real questions as 2 shards and
// merged reports and records what the unsharded -reexecute -record does
// (3 distinct answers: 9 answers over 3 rounds, 18 verdicts); the shards
// compare and record nothing; a merge without a shard is refused.
func TestShardedReexecutionMergesIntoTheUnshardedVerdicts(t *testing.T) {
	data := mattoolstest.DataRoot(t, "to re-execute the example submission")
	python := sandboxPython(t)
	dir := exampleSubmission(t)
	base := []string{"-reexecute", "-data", data, "-python", python, "-slots", "2", "-questions", "test_vacancy,test_boltzmann,test_pchip_eval"}
	args := func(more ...string) []string { return append(append(append([]string{}, base...), more...), dir) }
	full := filepath.Join(t.TempDir(), "verified")
	code, want := validateArgs(t, args("-record", full)...)
	if code != exitOK || !strings.Contains(want, "re-executed: 9 answers (3 distinct)") {
		t.Fatalf("unsharded: exit %d:\n%s", code, want)
	}
	shards := []string{t.TempDir(), t.TempDir()}
	for i, d := range shards {
		code, out := validateArgs(t, args("-shard", strconv.Itoa(i)+"/2", "-out", d)...)
		// 3 answers dealt round-robin: 2, 1.
		if n := []string{"2", "1"}[i]; code != exitOK || !strings.Contains(out, "shard "+strconv.Itoa(i)+"/2: "+n+" of 3 distinct answers re-executed now") ||
			strings.Contains(out, "verdicts compared") {
			t.Errorf("shard %d: exit %d:\n%s", i, code, out)
		}
	}
	merged := filepath.Join(t.TempDir(), "verified")
	code, got := validateArgs(t, args("-merge", strings.Join(shards, ","), "-record", merged)...)
	if code != exitOK {
		t.Fatalf("merge: exit %d:\n%s", code, got)
	}
	// The reports agree but for the times taken and the records' folder.
	clean := func(s, rec string) string {
		return regexp.MustCompile(`\(\d+\.\d s\)`).ReplaceAllString(strings.ReplaceAll(s, rec, "VERIFIED"), "(… s)")
	}
	if clean(got, merged) != clean(want, full) {
		t.Errorf("merged report:\n%s\nunsharded:\n%s", got, want)
	}
	w, g := records(t, full), records(t, merged)
	if len(w) != 6 || len(g) != len(w) {
		t.Fatalf("records: %d unsharded, %d merged; want 6 each", len(w), len(g))
	}
	for name := range w {
		if g[name] != w[name] {
			t.Errorf("%s: the merged record differs from the unsharded one:\n%.2000s\nunsharded:\n%.2000s", name, g[name], w[name])
		}
	}
	code, out := validateArgs(t, args("-merge", shards[1])...)
	if code != exitInvalid || !strings.Contains(out, "shard(s) 0 of 2 missing") {
		t.Errorf("merge without shard 0: exit %d:\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(shards[0], ".journal")); err != nil {
		t.Errorf("shard 0's journal: %v", err)
	}
}
