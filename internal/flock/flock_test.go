//go:build unix

package flock_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/internal/flock"
)

// A second open file of a locked path cannot take the lock (ErrLocked)
// until the first is closed; then it can.
func TestLockIsExclusiveUntilClosed(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.lock")
	open := func() *os.File {
		f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	a, b := open(), open()
	defer b.Close()
	if err := flock.Lock(a); err != nil {
		t.Fatalf("first lock: %v", err)
	}
	if err := flock.Lock(b); !errors.Is(err, flock.ErrLocked) {
		t.Fatalf("second lock while the first is held: %v; want ErrLocked", err)
	}
	a.Close()
	if err := flock.Lock(b); err != nil {
		t.Fatalf("second lock after the first file closed: %v", err)
	}
}
