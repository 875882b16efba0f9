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
