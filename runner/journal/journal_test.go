package journal

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A batch whose buffer is too large to keep as the spare one must not hand
// out the arrays in use a second time: every item reported durable is on
// disk when it is reported (here an append made while a batch reports its
// items, as OnDurable's callers may, must not be reported by that batch).
func TestJournalNeverReportsAnItemBeforeItsBatch(t *testing.T) {
	var j *Journal
	var reported []int
	appendedDuring := false
	j, err := Open(filepath.Join(t.TempDir(), "j.jsonl"), "run", "fp", time.Now(), Options{Every: time.Hour,
		OnDurable: func(index int, _ string) {
			reported = append(reported, index)
			if index == 10 && !appendedDuring {
				appendedDuring = true
				j.Append(Line{Kind: "item", Index: 98, ID: "late"}) // queued, not on disk
				j.Append(Line{Kind: "item", Index: 99, ID: "late"})
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(j.Append(Line{Kind: "item", Index: 0, ID: "z"})) // the flusher's first, immediate batch
	time.Sleep(100 * time.Millisecond)
	for i := range 8 { // a batch of 8: the arrays then kept as spare have room for the later ones
		must(j.Append(Line{Kind: "item", Index: 20 + i, ID: "first-batch-item"}))
	}
	must(j.Flush())
	must(j.Append(Line{Kind: "item", Index: 2, ID: strings.Repeat("x", 2*maxQueuedBytes+1)})) // a buffer not kept
	must(j.Flush())
	must(j.Append(Line{Kind: "item", Index: 10, ID: "b"}))
	must(j.Append(Line{Kind: "item", Index: 11, ID: "c"}))
	must(j.Flush())
	must(j.Flush()) // 98 and 99, queued while 10 was reported
	want := []int{0, 20, 21, 22, 23, 24, 25, 26, 27, 2, 10, 11, 98, 99}
	if fmt.Sprint(reported) != fmt.Sprint(want) {
		t.Errorf("reported durable, in order: %v; want %v (98 and 99 in the batch after the one that reported 10)", reported, want)
	}
}

// A journal reopened after a kill mid-write drops the cut line and keeps
// the first record of each item; another fingerprint, or a malformed line
// (named by file and line), is refused.
func TestJournalDropsATruncatedLastLineAndRejectsChangedSettings(t *testing.T) {
	p := filepath.Join(t.TempDir(), "j.jsonl")
	j, err := Open(p, "run1", "fp1", time.Now(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := j.Append(Line{Kind: "item", Index: i, ID: "q" + strconv.Itoa(i)}); err != nil {
			t.Fatal(err)
		}
	}
	j.Append(Line{Kind: "item", Index: 1, ID: "dup"}) // ignored: item 1 is done
	j.Close()
	// A kill in the middle of a write leaves half a line.
	f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"kind":"item","index":3,"id":"q3","resp`)
	f.Close()
	j, err = Open(p, "run1", "fp1", time.Now(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if l, ok, err := j.Read(1); len(j.items) != 3 || !ok || err != nil || l.ID != "q1" || len(j.Sessions()) != 2 || j.Done(3) {
		t.Errorf("items %v (item 1: %+v, %v), sessions %d", j.items, l, err, len(j.Sessions()))
	}
	j.Close()
	data, _ := os.ReadFile(p)
	if bytes.Contains(data, []byte(`"resp`)) || strings.Count(string(data), "\n") != 5 {
		t.Errorf("journal after reopening:\n%s", data)
	}
	if _, err := Open(p, "run1", "fp2", time.Now(), Options{}); err == nil || !strings.Contains(err.Error(), "other settings") {
		t.Errorf("changed fingerprint: err = %v", err)
	}
	os.WriteFile(p, []byte("{\"kind\":\"session\",\"version\":1,\"run_id\":\"run1\",\"fingerprint\":\"fp1\"}\nnot json\n"), 0o644)
	if _, err := Open(p, "run1", "fp1", time.Now(), Options{}); err == nil || !strings.Contains(err.Error(), p+":2") {
		t.Errorf("malformed line: err = %v", err)
	}
}
