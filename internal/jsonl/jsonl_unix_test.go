//go:build unix

package jsonl

import (
	"errors"
	"path/filepath"
	"testing"
)

// Where flock exists, a journal open in one file cannot be opened again.
func TestSecondOpenIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	f, _, _ := open(t, path)
	defer f.Close()
	_, err := Open(path, head{}, func([]byte) error { return nil }, func(int, []byte) error { return nil })
	if !errors.Is(err, ErrInUse) {
		t.Fatalf("second Open: err = %v, want ErrInUse", err)
	}
}
