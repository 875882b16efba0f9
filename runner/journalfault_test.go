package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mattools-leaderboard/leaderboard/runner/llm/llmtest"
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
	testHookBatchWrite = func() error {
		if batches.Add(1) >= 2 { // the first batch is written, every later one fails
			return syscall.ENOSPC
		}
		return nil
	}
	defer func() { testHookBatchWrite = nil }()
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

// A batch whose buffer is too large to keep as the spare one must not hand
// out the arrays in use a second time: every item reported durable is on
// disk when it is reported (here an append made while a batch reports its
// items, as OnDurable's callers may, must not be reported by that batch).
func TestJournalNeverReportsAnItemBeforeItsBatch(t *testing.T) {
	var j *journal
	var reported []int
	appendedDuring := false
	j, err := openJournal(filepath.Join(t.TempDir(), "j.jsonl"), "run", "fp", time.Now(), journalOptions{Every: time.Hour,
		OnDurable: func(index int, _ string) {
			reported = append(reported, index)
			if index == 10 && !appendedDuring {
				appendedDuring = true
				j.append(journalLine{Kind: "item", Index: 98, ID: "late"}) // queued, not on disk
				j.append(journalLine{Kind: "item", Index: 99, ID: "late"})
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer j.close()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(j.append(journalLine{Kind: "item", Index: 0, ID: "z"})) // the flusher's first, immediate batch
	time.Sleep(100 * time.Millisecond)
	for i := range 8 { // a batch of 8: the arrays then kept as spare have room for the later ones
		must(j.append(journalLine{Kind: "item", Index: 20 + i, ID: "first-batch-item"}))
	}
	must(j.flush())
	must(j.append(journalLine{Kind: "item", Index: 2, ID: strings.Repeat("x", 2*maxQueuedBytes+1)})) // a buffer not kept
	must(j.flush())
	must(j.append(journalLine{Kind: "item", Index: 10, ID: "b"}))
	must(j.append(journalLine{Kind: "item", Index: 11, ID: "c"}))
	must(j.flush())
	must(j.flush()) // 98 and 99, queued while 10 was reported
	want := []int{0, 20, 21, 22, 23, 24, 25, 26, 27, 2, 10, 11, 98, 99}
	if fmt.Sprint(reported) != fmt.Sprint(want) {
		t.Errorf("reported durable, in order: %v; want %v (98 and 99 in the batch after the one that reported 10)", reported, want)
	}
}
