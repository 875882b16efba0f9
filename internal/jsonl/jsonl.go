// Package jsonl is the append-only JSON-lines journal that this project's
// long model-calling jobs resume from (documentation generation, task and
// QA synthesis): a header line saying what the answers depend on, then one
// line per finished item, each written and fsynced before the item counts
// as done. The file is locked exclusively (internal/flock) while it is
// open, so two processes never write one journal, and a line cut short by
// a crash is dropped when it is opened again. File is the file; Journal
// (OpenJournal) is the one journal of those three jobs on top of it: the
// header's version and settings checked, each line's key, its finished
// lines by key, and the first write error kept.
package jsonl

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/mattools-leaderboard/leaderboard/internal/flock"
)

// ErrInUse is returned (wrapped) by Open when another open file, in this
// process or another, holds the journal's lock.
var ErrInUse = errors.New("in use by another process")

// File is an open, locked journal.
type File struct {
	mu sync.Mutex
	f  *os.File
}

// Open opens the journal at path (creating it and its folder), locks it
// and reads it: header is given its first line and item every later
// complete line with its 1-based line number; an error they return is
// returned wrapped, after the file's name. A last line without its newline (a crash while it
// was written) is cut off, and so is a first line without one. A journal
// with no complete line gets first, as JSON, for its header line, synced.
// Errors: ErrInUse (wrapped) when the lock is held; I/O errors naming the
// file.
func Open(path string, first any, header func(raw []byte) error, item func(n int, raw []byte) error) (*File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*File, error) {
		f.Close()
		return nil, err
	}
	// Locked before it is read: two writers would overwrite each other's lines.
	if err := flock.Lock(f); err != nil {
		return fail(fmt.Errorf("%w (%v)", ErrInUse, err))
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return fail(fmt.Errorf("%s: %w", path, err))
	}
	good := 0 // bytes of complete lines read
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	for n := 1; sc.Scan(); n++ {
		line := sc.Bytes()
		if good+len(line) >= len(b) {
			break // no newline after it: a torn last line, dropped
		}
		check := func() error { return item(n, line) }
		if n == 1 {
			check = func() error { return header(line) }
		}
		if err := check(); err != nil {
			return fail(fmt.Errorf("%s: %w", path, err))
		}
		good += len(line) + 1
	}
	if err := sc.Err(); err != nil {
		return fail(fmt.Errorf("%s: %w", path, err))
	}
	err = f.Truncate(int64(good))
	if err == nil {
		_, err = f.Seek(int64(good), io.SeekStart)
	}
	j := &File{f: f}
	if err == nil && good == 0 {
		err = j.Append(first)
	}
	if err != nil {
		return fail(fmt.Errorf("%s: %w", path, err))
	}
	return j, nil
}

// Append writes v as one JSON line (HTML characters not escaped) and
// fsyncs it; it is safe for concurrent use.
func (j *File) Append(v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if _, err := j.f.Write(buf.Bytes()); err != nil {
		return err
	}
	return j.f.Sync()
}

// Close releases the lock and closes the file.
func (j *File) Close() error { return j.f.Close() }
