package audit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/results"
)

// TestPublishRefusesAnUnreadableResultsFile: a results file in the publish
// folder that cannot be read is named, and nothing is copied or removed,
// so that a file publishResults cannot judge is never lost.
func TestPublishRefusesAnUnreadableResultsFile(t *testing.T) {
	dir, pub := t.TempDir(), t.TempDir()
	src := filepath.Join("..", "..", "benchmarks", "mattools-tool-usage", "audit",
		"audit__tool-usage__reference-solution__s0__none__mattools-v1-strict__set-executable-85659656__r1"+results.Extension)
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	written := filepath.Join(dir, "new"+results.Extension)
	if err := os.WriteFile(written, data, 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(pub, "truncated"+results.Extension)
	if err := os.WriteFile(bad, []byte("PAR1"), 0o644); err != nil {
		t.Fatal(err)
	}
	err = publishResults([]string{written}, pub, results.BenchmarkToolUsage, results.BenchmarkVersion2025_05)
	if err == nil || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), "nothing was copied or removed") {
		t.Fatalf("error %v; want one naming %s", err, bad)
	}
	if _, err := os.Stat(filepath.Join(pub, "new"+results.Extension)); err == nil {
		t.Error("the new results file was copied although the folder held an unreadable one")
	}
	if _, err := os.Stat(bad); err != nil {
		t.Errorf("the unreadable file was removed: %v", err)
	}
}

// TestPublishReplacesOnlyItsBenchmarkAndVersion: publishing tool-usage
// 2025-05's audit removes that audit's earlier file and keeps another
// benchmark's audit run of the same version name, another version's audit
// run and a run that is no audit.
func TestPublishReplacesOnlyItsBenchmarkAndVersion(t *testing.T) {
	committed := filepath.Join("..", "..", "benchmarks", "mattools-tool-usage", "audit")
	name := func(version string) string {
		b := ""
		if version != "" {
			b = "b-" + version + "__"
		}
		return "audit__tool-usage__" + b + "reference-solution__s0__none__mattools-v1-strict__set-executable-85659656__r1" + results.Extension
	}
	pub, dir := t.TempDir(), t.TempDir()
	f, err := results.Read(filepath.Join(committed, name("")))
	if err != nil {
		t.Fatal(err)
	}
	// The same audit run, of a benchmark of another name with a version of the same name.
	if err := results.RegisterBenchmark(results.BenchmarkInfo{Name: "publish-other", Kind: results.KindToolUsage,
		Versions:  []results.BenchmarkVersion{{ID: results.BenchmarkVersion2025_05, Questions: 49, Properties: 138}},
		Protocols: []string{results.ProtocolMatToolsV1, results.ProtocolMatToolsV1Strict}}); err != nil {
		t.Fatal(err)
	}
	f.Run.Benchmark = "publish-other"
	f.Run.RunID = results.MakeRunID(&f.Run)
	other := filepath.Join(pub, f.Run.RunID+results.Extension)
	if err := results.Write(other, f); err != nil {
		t.Fatal(err)
	}
	stale, otherVersion := filepath.Join(pub, "earlier"+results.Extension), filepath.Join(pub, name("2025-05-corrected-2"))
	copyTo(t, filepath.Join(committed, name("")), stale)
	copyTo(t, filepath.Join(committed, name("2025-05-corrected-2")), otherVersion)
	notAudit := filepath.Join(pub, "runner"+results.Extension)
	copyTo(t, filepath.Join("..", "..", "results", "testdata", "v2", "tool-usage"+results.Extension), notAudit)
	written := filepath.Join(dir, name(""))
	copyTo(t, filepath.Join(committed, name("")), written)

	if err := publishResults([]string{written}, pub, results.BenchmarkToolUsage, results.BenchmarkVersion2025_05); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); err == nil {
		t.Error("the earlier audit file of tool-usage 2025-05 was kept")
	}
	for _, p := range []string{other, otherVersion, notAudit, filepath.Join(pub, name(""))} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s: %v; want it kept (or copied)", filepath.Base(p), err)
		}
	}
}

func copyTo(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
