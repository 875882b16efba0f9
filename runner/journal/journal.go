// Package journal is the runner's resumable checkpoint: a JSON-lines file
// per configuration × round (or per shard of one, or per shard of a
// re-execution command's work) that a killed process resumes from, locked
// so that one process at a time writes it. It also holds the partition of a
// work into shards and the merge of the re-execution commands' outcome
// journals (cmd/rescore, cmd/validate-submission -shard), so that those
// commands need none of the runner's model clients or systems.
package journal

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
	"time"

	"github.com/mattools-leaderboard/leaderboard/internal/flock"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/runner/scoring"
)

// Dir is the directory, inside the output directory, that holds the
// per-run checkpoint journals.
const Dir = ".journal"

// Version is the version of the journal line format.
const Version = 1

// A Journal is the checkpoint of one configuration × round (or, with
// the runner's Options.Shard, of one shard's part of it): a JSON-lines file with one
// "session" line per start and one "item" line per finished question (the
// answer, and for scored tool-usage runs the outcome under every protocol).
// A killed run resumes from it without asking or executing a finished
// question again; a line cut short by the kill is discarded. After the
// results files are written the journal stays, as the record of the raw
// model answers, and serves a protocol asked for later without any model
// call or execution.
//
// Item lines are written in batches (group commit): append queues a line
// and returns; a flusher writes what is queued and syncs it at most once per
// sync interval (DefaultSync), then reports each of its items done
// (onDurable: the progress bar, RunResult.Done). The crash window is
// therefore the questions answered since the last sync, at most one sync
// interval's worth (plus the sync itself): a kill loses them, and they are
// asked again on resume; a question reported done is always on disk.
//
// In memory the journal keeps only where each item's line is (offset and
// length), not the line: the runner's results writer (liveSource) reads the lines
// back from the file, or takes them from memory where that is exact.
type Journal struct {
	path string
	f    *os.File

	mu       sync.Mutex
	cond     *sync.Cond // signalled after each batch is handed to the writer
	sessions []Line
	items    map[int]span // by item index: the first line of each item
	size     int64        // bytes of the file, queued lines excluded
	buf      []byte       // queued lines, not yet written
	spare    []byte       // the buffer of the last batch, reused as buf by the next
	rbuf     []byte       // read's scratch buffer (under rmu)
	rmu      sync.Mutex
	pending  []queued // the items of buf, in order
	spareP   []queued // the pending slice of the last batch, reused
	err      error    // the first write or sync error; every later append returns it

	wmu       sync.Mutex // serialises batches: write, sync, report
	every     time.Duration
	onDurable func(index int, id string)
	wake      chan struct{}
	quit      chan struct{}
	stopped   chan struct{}
	closed    bool
}

// queued is an item whose line is queued, for onDurable.
type queued struct {
	index int
	id    string
}

// span is where one line lies in a journal file.
type span struct {
	off int64
	n   int32 // without the newline
}

// DefaultSync is the longest a finished question waits in memory
// before its journal line is written and synced (the crash window).
const DefaultSync = 100 * time.Millisecond

// maxQueuedBytes bounds the queued lines of one journal: an append waits
// while more are queued (the disk is slower than the answers).
const maxQueuedBytes = 16 << 20

// linePool holds the buffers append encodes lines into.
var linePool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// Line is one line of a journal.
type Line struct {
	Kind string `json:"kind"` // "session" or "item"

	// session
	Version     int        `json:"version,omitempty"`
	RunID       string     `json:"run_id,omitempty"`
	Fingerprint string     `json:"fingerprint,omitempty"`
	StartedAt   *time.Time `json:"started_at,omitempty"`
	BaseURL     string     `json:"base_url,omitempty"` // without credentials
	// Scoring is where the session's code ran (scored runs only); a
	// journal is resumed only in the same environment.
	Scoring *scoring.Environment `json:"scoring,omitempty"`
	// Shard is "i/n" when the session ran shard i of n (the runner's
	// Options.Shard, a command's -shard); PlanSHA256 is the runner's
	// Options.PlanSHA256; Generator and GeneratorVersion name the program.
	// A merge refuses shards on which they differ.
	Shard            string `json:"shard,omitempty"`
	PlanSHA256       string `json:"plan_sha256,omitempty"`
	Generator        string `json:"generator,omitempty"`
	GeneratorVersion string `json:"generator_version,omitempty"`
	// GraphIndex is the run extension "graph_index" of a graph-rag run as
	// the session recorded it (the runner's graphs.indexRecord), so that
	// the runner's Merge can record it on the merged run without the index.
	GraphIndex json.RawMessage `json:"graph_index,omitempty"`

	// item
	Index      int                  `json:"index"`
	ID         string               `json:"id,omitempty"`
	Question   *results.QuestionRow `json:"question,omitempty"` // the answer (response included), unscored
	Scored     *scoring.Scored      `json:"scored,omitempty"`   // its outcome under every protocol, trimmed (Scored.Trim)
	QA         *results.QAItem      `json:"qa,omitempty"`
	Calls      int                  `json:"calls,omitempty"`
	Attempts   int                  `json:"attempts,omitempty"`
	FinishedAt *time.Time           `json:"finished_at,omitempty"`
}

// Options are the settings of Open beyond the run's identity.
type Options struct {
	Session Line // the session line's own fields (base URL, scoring, shard, plan, generator)
	// Every is the sync interval (0: DefaultSync).
	Every time.Duration
	// OnDurable, if set, is called once per item after its line is synced,
	// in journal order, from one goroutine at a time.
	OnDurable func(index int, id string)
}

// Open opens (creating if needed) the journal at path for the run
// with the given id and fingerprint and appends a session line (synced
// before it returns). A journal written for another fingerprint (the plan's
// parameters, prompts or question set changed), or scored in another
// environment than o.Session.Scoring (the sandbox, its limits or its Python
// libraries changed), is an error: resuming would mix two configurations. A
// truncated last line is cut off; any other malformed line is an error
// naming the file and line.
func Open(path, runID, fingerprint string, now time.Time, o Options) (*Journal, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := flock.Lock(f); err != nil {
		f.Close()
		if errors.Is(err, flock.ErrLocked) {
			return nil, fmt.Errorf("journal %s is in use by another runner: %w", path, err)
		}
		return nil, fmt.Errorf("journal: %w", err)
	}
	j := &Journal{path: path, f: f, items: map[int]span{}, every: o.Every, onDurable: o.OnDurable}
	if j.every <= 0 {
		j.every = DefaultSync
	}
	j.cond = sync.NewCond(&j.mu)
	good, err := j.scan()
	if err == nil {
		err = j.Check(runID, fingerprint, o.Session.Scoring)
	}
	if err == nil && good < j.size {
		// The last line was cut short by a kill: drop it.
		err = f.Truncate(good)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	j.size = good
	t := now.UTC()
	sl := o.Session
	sl.Kind, sl.Version, sl.RunID, sl.Fingerprint, sl.StartedAt = "session", Version, runID, fingerprint, &t
	b, err := json.Marshal(sl)
	if err == nil {
		err = j.writeSync(append(b, '\n'))
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	j.sessions = append(j.sessions, sl)
	j.wake, j.quit, j.stopped = make(chan struct{}, 1), make(chan struct{}), make(chan struct{})
	go j.flushLoop()
	return j, nil
}

// OpenReadOnly opens the journal at path read-only (for cmd/merge) and reads
// its sessions and where its items are, without checking them; a truncated
// last line is ignored.
func OpenReadOnly(path string) (*Journal, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	j := &Journal{path: path, f: f, items: map[int]span{}, closed: true}
	good, err := j.scan()
	if err != nil {
		f.Close()
		return nil, err
	}
	j.size = good
	return j, nil
}

// scan reads the lines of the file from its start: the sessions and where
// each item's first line is. It returns the length of the complete lines;
// j.size is left at the length of the file.
func (j *Journal) scan() (int64, error) {
	if _, err := j.f.Seek(0, io.SeekStart); err != nil {
		return 0, err
	}
	r := bufio.NewReaderSize(j.f, 1<<20)
	var good int64 // bytes of complete lines
	for line := 1; ; line++ {
		b, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) { // a line longer than the buffer
			long := append([]byte(nil), b...)
			for errors.Is(err, bufio.ErrBufferFull) {
				b, err = r.ReadSlice('\n')
				long = append(long, b...)
			}
			b = long
		}
		if err == io.EOF {
			j.size = good + int64(len(b))
			return good, nil
		}
		if err != nil {
			return 0, err
		}
		var l Line
		if err := json.Unmarshal(b[:len(b)-1], &l); err != nil {
			return 0, fmt.Errorf("journal %s:%d: %v (delete the journal to start the run over)", j.path, line, err)
		}
		switch l.Kind {
		case "session":
			j.sessions = append(j.sessions, l)
		case "item":
			if len(j.sessions) == 0 {
				return 0, fmt.Errorf("journal %s:%d: item before any session line", j.path, line)
			}
			if _, dup := j.items[l.Index]; !dup { // the first record of an item wins
				j.items[l.Index] = span{good, int32(len(b) - 1)}
			}
		default:
			return 0, fmt.Errorf("journal %s:%d: unknown kind %q", j.path, line, l.Kind)
		}
		good += int64(len(b))
	}
}

// Check verifies that every session of the journal was written for runID
// with fingerprint, scored in environment senv (nil: unscored).
func (j *Journal) Check(runID, fingerprint string, senv *scoring.Environment) error {
	want, _ := json.Marshal(senv)
	for i, l := range j.sessions {
		at := fmt.Sprintf("journal %s (session %d)", j.path, i+1)
		if l.Version != Version || l.RunID != runID {
			return fmt.Errorf("%s: written for run %q (journal version %d), not %q", at, l.RunID, l.Version, runID)
		}
		if l.Fingerprint != fingerprint {
			return fmt.Errorf("%s: written with other settings (model parameters, prompts, question set or "+
				"protocol changed); delete the journal to start the run over, or restore the settings", at)
		}
		if got, _ := json.Marshal(l.Scoring); !bytes.Equal(got, want) {
			return fmt.Errorf("%s: its questions were scored in another sandbox environment (%s), not the current one (%s); "+
				"restore it, or delete the journal to start the run over", at, got, want)
		}
	}
	return nil
}

// writeSync writes b at the end of the file and syncs it.
func (j *Journal) writeSync(b []byte) error {
	if _, err := j.f.WriteAt(b, j.size); err != nil {
		return fmt.Errorf("writing journal %s: %w", j.path, err)
	}
	if err := j.f.Sync(); err != nil {
		return fmt.Errorf("syncing journal %s: %w", j.path, err)
	}
	j.size += int64(len(b))
	return nil
}

// Append queues an item line; the flusher writes and syncs it within the
// sync interval. A line of an item already journaled is dropped. It returns
// the journal's first write error, if any.
func (j *Journal) Append(l Line) error {
	lb := linePool.Get().(*bytes.Buffer)
	defer linePool.Put(lb)
	lb.Reset()
	if err := json.NewEncoder(lb).Encode(l); err != nil { // as json.Marshal, plus a newline
		return err
	}
	b := lb.Bytes()
	j.mu.Lock()
	for len(j.buf) >= maxQueuedBytes && j.err == nil {
		j.cond.Wait()
	}
	if j.err != nil || j.closed {
		err := j.err
		if err == nil {
			err = fmt.Errorf("journal %s is closed", j.path)
		}
		j.mu.Unlock()
		return err
	}
	if _, dup := j.items[l.Index]; dup {
		j.mu.Unlock()
		return nil
	}
	j.items[l.Index] = span{j.size + int64(len(j.buf)), int32(len(b) - 1)}
	j.buf = append(j.buf, b...)
	j.pending = append(j.pending, queued{l.Index, l.ID})
	j.mu.Unlock()
	select {
	case j.wake <- struct{}{}:
	default:
	}
	return nil
}

// flushLoop writes and syncs the queued lines, at most once per interval.
func (j *Journal) flushLoop() {
	defer close(j.stopped)
	for {
		select {
		case <-j.quit:
			return
		case <-j.wake:
		}
		j.batch()
		t := time.NewTimer(j.every)
		select {
		case <-j.quit:
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// batch writes and syncs the queued lines, then reports their items done.
func (j *Journal) batch() error {
	j.wmu.Lock()
	defer j.wmu.Unlock()
	j.mu.Lock()
	buf, pend, off := j.buf, j.pending, j.size
	j.buf, j.pending = j.spare[:0], j.spareP[:0]
	j.spare, j.spareP = nil, nil // now j.buf's and j.pending's: never handed out twice
	j.size += int64(len(buf))
	err := j.err
	j.cond.Broadcast()
	j.mu.Unlock()
	defer func() {
		if cap(buf) <= 2*maxQueuedBytes {
			j.mu.Lock()
			j.spare, j.spareP = buf, pend
			j.mu.Unlock()
		}
	}()
	if err != nil || len(buf) == 0 {
		return err
	}
	if TestHookBatchWrite != nil {
		err = TestHookBatchWrite()
	}
	if err == nil {
		_, err = j.f.WriteAt(buf, off)
	}
	if err != nil {
		err = fmt.Errorf("writing journal %s: %w", j.path, err)
	} else if err = j.f.Sync(); err != nil {
		err = fmt.Errorf("syncing journal %s: %w", j.path, err)
	}
	if err != nil {
		j.mu.Lock()
		if j.err == nil {
			j.err = err
		}
		j.cond.Broadcast()
		j.mu.Unlock()
		return err
	}
	if j.onDurable != nil {
		for _, l := range pend {
			j.onDurable(l.index, l.id)
		}
	}
	return nil
}

// Flush writes and syncs every queued line now.
func (j *Journal) Flush() error {
	if err := j.batch(); err != nil {
		return err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.err
}

// Done reports whether item index is journaled (queued or written).
func (j *Journal) Done(index int) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	_, ok := j.items[index]
	return ok
}

// Count returns the number of journaled items.
func (j *Journal) Count() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return len(j.items)
}

// Read returns the journaled line of item index (flushed first), and
// whether there is one.
func (j *Journal) Read(index int) (Line, bool, error) {
	j.mu.Lock()
	sp, ok := j.items[index]
	j.mu.Unlock()
	if !ok {
		return Line{}, false, nil
	}
	j.rmu.Lock()
	defer j.rmu.Unlock()
	if cap(j.rbuf) < int(sp.n) {
		j.rbuf = make([]byte, sp.n)
	}
	b := j.rbuf[:sp.n]
	if _, err := j.f.ReadAt(b, sp.off); err != nil {
		return Line{}, false, fmt.Errorf("reading journal %s: %w", j.path, err)
	}
	var l Line
	if err := json.Unmarshal(b, &l); err != nil {
		return Line{}, false, fmt.Errorf("journal %s at byte %d: %v", j.path, sp.off, err)
	}
	return l, true, nil
}

// Close writes and syncs what is queued and closes the file.
func (j *Journal) Close() error {
	j.mu.Lock()
	wasClosed := j.closed
	j.closed = true
	j.mu.Unlock()
	var err error
	if !wasClosed && j.quit != nil {
		close(j.quit)
		<-j.stopped
		err = j.Flush()
	}
	if cerr := j.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Path returns the journal file's path.
func (j *Journal) Path() string { return j.path }

// Sessions returns the session lines read or written so far, in order
// (the caller must not modify them).
func (j *Journal) Sessions() []Line { return j.sessions }

// Peek reads a journal without opening it for writing, for --dry-run:
// the number of finished items, or 0 if there is none.
func Peek(path string) (int, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	seen := map[int]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var l Line
		if json.Unmarshal(sc.Bytes(), &l) == nil && l.Kind == "item" {
			seen[l.Index] = true
		}
	}
	return len(seen), sc.Err()
}

// TestHookBatchWrite, set by tests, runs before each batch is written; an
// error it returns fails the batch as a failed write would (a full disk).
var TestHookBatchWrite func() error
