package jsonl

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
)

// Spec describes one kind of Journal: its header type H (a JSON object
// with a "journal" field holding Version) and its line type L.
type Spec[H, L any] struct {
	// Program prefixes every error ("synth", "qasynth", "docgen").
	Program string
	// Kind names the journal in "the first line is not a <Kind> journal
	// header" (e.g. "synthesis").
	Kind string
	// Version is the "journal" value a header must have (e.g.
	// "synth-journal/1").
	Version string
	// Key returns the key a line is finished under (e.g. its item ID and
	// step, NUL separated), or "" when the line lacks the fields that make
	// one: such a line is an error.
	Key func(L) string
	// Mismatch says, after "<file>: ", how a header of this version that
	// differs from the one this run writes differs from it (the settings
	// the answers depend on), and what to do.
	Mismatch func(got, want H) string
	// InUse says, after "journal <file> is in use by another process
	// (…): ", why one process at a time (e.g. "one synthesis per journal").
	InUse string
}

// A Journal is an open File of one Spec with its finished lines by key:
// the record from which a long model-calling job (task or QA synthesis,
// documentation generation) resumes without asking the model again. It is
// safe for concurrent use.
type Journal[L any] struct {
	f    *File
	path string
	prog string
	key  func(L) string
	mu   sync.Mutex
	done map[string]L
	err  error
}

// OpenJournal opens (creating it and its folder) and locks the journal at
// path and reads its finished lines, the last line of a key winning. A
// new journal gets want as its header line. Errors, each after
// "<Program>: journal ": "<path>: the first line is not a <Kind> journal
// header" (not a JSON object of H, or no "journal" field); "<path>: version
// %q, want %q"; "<path>: <Mismatch>" when the header differs from want in
// any other field (compared as JSON); "<path>: line N is not a journal
// line" (a line that is not an L with no unknown field, or has no Key);
// "<path> is in use by another process (…): <InUse>" while another open
// journal holds the lock; I/O errors naming the file. A last line cut short
// by a crash is dropped, not an error.
func OpenJournal[H, L any](path string, want H, s Spec[H, L]) (*Journal[L], error) {
	j := &Journal[L]{path: path, prog: s.Program, key: s.Key, done: map[string]L{}}
	wantJSON, err := json.Marshal(want)
	if err != nil {
		return nil, fmt.Errorf("%s: journal %s: %w", s.Program, path, err)
	}
	f, err := Open(path, want, func(raw []byte) error {
		var h H
		var v struct {
			Journal string `json:"journal"`
		}
		if json.Unmarshal(raw, &h) != nil || json.Unmarshal(raw, &v) != nil || v.Journal == "" {
			return fmt.Errorf("the first line is not a %s journal header", s.Kind)
		}
		if v.Journal != s.Version {
			return fmt.Errorf("version %q, want %q", v.Journal, s.Version)
		}
		if got, _ := json.Marshal(h); !bytes.Equal(got, wantJSON) {
			return errors.New(s.Mismatch(h, want))
		}
		return nil
	}, func(n int, raw []byte) error {
		var l L
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&l); err != nil {
			return fmt.Errorf("line %d is not a journal line", n)
		}
		k := s.Key(l)
		if k == "" {
			return fmt.Errorf("line %d is not a journal line", n)
		}
		j.done[k] = l
		return nil
	})
	if errors.Is(err, ErrInUse) {
		return nil, fmt.Errorf("%s: journal %s is %v: %s", s.Program, path, err, s.InUse)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: journal %w", s.Program, err)
	}
	j.f = f
	return j, nil
}

// Get returns the finished line of key, and whether there is one.
func (j *Journal[L]) Get(key string) (L, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	l, ok := j.done[key]
	return l, ok
}

// Forget drops key's finished line from memory (not from the file): a
// line that no longer matches its item, to be asked again.
func (j *Journal[L]) Forget(key string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	delete(j.done, key)
}

// Len returns the number of keys with a finished line, those read
// (Forget aside) and those added.
func (j *Journal[L]) Len() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return len(j.done)
}

// Add appends l as one JSON line, fsynced, and records it as its key's
// finished line. The first error (writing or syncing the file) is kept:
// from then on Add writes nothing and returns it, and so does Err.
func (j *Journal[L]) Add(l L) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.err != nil {
		return j.err
	}
	if j.err = j.f.Append(l); j.err != nil {
		return j.err
	}
	j.done[j.key(l)] = l
	return nil
}

// Err returns Add's first error, or nil.
func (j *Journal[L]) Err() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.err
}

// Stopped returns the error that ends a run on the journal early, or nil:
// Err's, as "<Program>: journal <path>: <error>"; else, when ctx has
// ended, "<Program>: stopped with <finished> of <total> <items> finished
// (journal <path>; run again to resume): <ctx's error>".
func (j *Journal[L]) Stopped(ctx context.Context, finished, total int, items string) error {
	if err := j.Err(); err != nil {
		return fmt.Errorf("%s: journal %s: %w", j.prog, j.path, err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: stopped with %d of %d %s finished (journal %s; run again to resume): %w", j.prog, finished, total, items, j.path, err)
	}
	return nil
}

// Close releases the lock and closes the file.
func (j *Journal[L]) Close() error { return j.f.Close() }
