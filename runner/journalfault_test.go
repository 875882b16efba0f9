package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mattools-leaderboard/leaderboard/llm/llmtest"
	"github.com/mattools-leaderboard/leaderboard/runner/journal"
)

// The journal's last batch fails to be written (a full disk) while every
// QA line is in the live writer's memory: the run fails, no results file
// (nor a temporary one) is left, and the journal holds what was written.
// (The live writer once counted the failed batch's lines as on disk, and
// wrote the file of a run whose journal held 1 line of 20.)
func TestJournalWriteFailureWritesNoResultsFile(t *testing.T) {
	root, respond, mkPlan := qa20Live(t)
	p := mkPlan(t, llmtest.New(t, llmtest.Options{Responder: respond}).URL)
	var batches atomic.Int32
	journal.TestHookBatchWrite = func() error {
		if batches.Add(1) >= 2 { // the first batch is written, every later one fails
			return syscall.ENOSPC
		}
		return nil
	}
	defer func() { journal.TestHookBatchWrite = nil }()
	out := t.TempDir()
	res, err := Run(context.Background(), Options{Plan: p, DataRoot: root, OutDir: out, JournalSync: time.Hour})
	if err == nil || !strings.Contains(err.Error(), "no space left on device") || res[0].Status != StatusFailed {
		t.Fatalf("Run: %v, %+v; want the run failed with the journal's write error", err, res)
	}
	if files, _ := filepath.Glob(filepath.Join(out, "*.parquet")); len(files) != 0 {
		t.Errorf("results files %v written for a run whose journal could not be written", files)
	}
	if temps, _ := filepath.Glob(filepath.Join(out, ".*.tmp-*")); len(temps) != 0 {
		t.Errorf("temporary files left: %v", temps)
	}
	journals, _ := filepath.Glob(filepath.Join(out, JournalDir, "*.jsonl"))
	b, _ := os.ReadFile(journals[0])
	if n := strings.Count(string(b), `"kind":"item"`); n >= 20 || n < 1 {
		t.Errorf("the journal holds %d item lines; want the first batch's only (1 to 19)", n)
	}
}
