package workpool

import (
	"bytes"
	"context"
	"sync"
	"testing"
)

func TestRunCallsEveryItemOnce(t *testing.T) {
	var mu sync.Mutex
	seen := map[int]int{}
	Run(context.Background(), 3, 50, nil, func(k int) {
		mu.Lock()
		seen[k]++
		mu.Unlock()
	})
	if len(seen) != 50 {
		t.Fatalf("%d items called, want 50", len(seen))
	}
	for k, c := range seen {
		if c != 1 {
			t.Errorf("item %d called %d times", k, c)
		}
	}
}

func TestRunStopsHandingOut(t *testing.T) {
	// One worker: item k is handed out only once the worker took item k-1,
	// so items 0 … k-2 have returned when stop is asked before item k; stop
	// says true once 5 have returned, so the batch ends after 5 or 6 items.
	var mu sync.Mutex
	done := 0
	stop := func() bool { mu.Lock(); defer mu.Unlock(); return done >= 5 }
	Run(context.Background(), 1, 20, stop, func(int) { mu.Lock(); done++; mu.Unlock() })
	if done < 5 || done > 6 {
		t.Errorf("%d items called, want 5 or 6", done)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	called := 0
	Run(ctx, 0, 20, nil, func(int) { called++ })
	if called != 0 {
		t.Errorf("a cancelled context: %d items called, want 0", called)
	}
}

func TestBar(t *testing.T) {
	if Bar(nil, 3, "x") != nil || Bar(&bytes.Buffer{}, 0, "x") != nil {
		t.Fatal("a bar without a writer or steps")
	}
	var buf bytes.Buffer
	b := Bar(&buf, 2, "documents")
	b.Add(2)
	b.Finish()
	if !bytes.Contains(buf.Bytes(), []byte("documents")) || !bytes.Contains(buf.Bytes(), []byte("2/2")) {
		t.Errorf("bar output %q", buf.String())
	}
}
