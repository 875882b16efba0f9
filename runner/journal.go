package runner

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

	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/runner/scoring"
)

// JournalDir is the directory, inside the output directory, that holds the
// per-run checkpoint journals.
const JournalDir = ".journal"

// journalVersion is the version of the journal line format.
const journalVersion = 1

// A journal is the checkpoint of one configuration × round: a JSON-lines
// file with one "session" line per start and one "item" line per finished
// question (the answer, and for scored tool-usage runs the outcome under
// every protocol), appended and synced as each question finishes. A killed
// run resumes from it without asking or executing a finished question again;
// a line cut short by the kill is discarded. After the results files are
// written the journal stays, as the record of the raw model answers, and
// serves a protocol asked for later without any model call or execution.
type journal struct {
	path     string
	mu       sync.Mutex
	f        *os.File
	sessions []journalLine
	items    map[int]journalLine // by item index
}

// journalLine is one line of a journal.
type journalLine struct {
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

// openJournal opens (creating if needed) the journal at path for the run
// with the given id and fingerprint and appends a session line. A journal
// written for another fingerprint (the plan's parameters, prompts or
// question set changed), or scored in another environment than senv (the
// sandbox, its limits or its Python libraries changed), is an error:
// resuming would mix two configurations. A truncated last line is cut off;
// any other malformed line is an error naming the file and line.
func openJournal(path, runID, fingerprint string, now time.Time, baseURL string, senv *scoring.Environment) (*journal, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("journal %s is in use by another runner: %w", path, err)
	}
	j := &journal{path: path, f: f, items: map[int]journalLine{}}
	if err := j.load(runID, fingerprint, senv); err != nil {
		f.Close()
		return nil, err
	}
	if _, err := f.Seek(0, io.SeekEnd); err != nil {
		f.Close()
		return nil, err
	}
	t := now.UTC()
	if err := j.append(journalLine{Kind: "session", Version: journalVersion, RunID: runID, Fingerprint: fingerprint,
		StartedAt: &t, BaseURL: baseURL, Scoring: senv}); err != nil {
		f.Close()
		return nil, err
	}
	return j, nil
}

func (j *journal) load(runID, fingerprint string, senv *scoring.Environment) error {
	want, _ := json.Marshal(senv)
	data, err := io.ReadAll(j.f)
	if err != nil {
		return err
	}
	good := 0 // bytes of complete lines
	for line := 1; len(data[good:]) > 0; line++ {
		rest := data[good:]
		nl := bytes.IndexByte(rest, '\n')
		if nl < 0 {
			// The last line was cut short by a kill: drop it.
			if err := j.f.Truncate(int64(good)); err != nil {
				return err
			}
			break
		}
		var l journalLine
		if err := json.Unmarshal(rest[:nl], &l); err != nil {
			return fmt.Errorf("journal %s:%d: %v (delete the journal to start the run over)", j.path, line, err)
		}
		switch l.Kind {
		case "session":
			if l.Version != journalVersion || l.RunID != runID {
				return fmt.Errorf("journal %s:%d: written for run %q (journal version %d), not %q", j.path, line, l.RunID, l.Version, runID)
			}
			if l.Fingerprint != fingerprint {
				return fmt.Errorf("journal %s:%d: written with other settings (model parameters, prompts, question set or "+
					"protocol changed); delete the journal to start the run over, or restore the settings", j.path, line)
			}
			if got, _ := json.Marshal(l.Scoring); !bytes.Equal(got, want) {
				return fmt.Errorf("journal %s:%d: its questions were scored in another sandbox environment (%s), not the current one (%s); "+
					"restore it, or delete the journal to start the run over", j.path, line, got, want)
			}
			j.sessions = append(j.sessions, l)
		case "item":
			if len(j.sessions) == 0 {
				return fmt.Errorf("journal %s:%d: item before any session line", j.path, line)
			}
			if _, dup := j.items[l.Index]; !dup { // the first record of an item wins
				j.items[l.Index] = l
			}
		default:
			return fmt.Errorf("journal %s:%d: unknown kind %q", j.path, line, l.Kind)
		}
		good += nl + 1
	}
	return nil
}

// append writes one line and syncs it to disk.
func (j *journal) append(l journalLine) error {
	b, err := json.Marshal(l)
	if err != nil {
		return err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if l.Kind == "item" {
		if _, dup := j.items[l.Index]; dup {
			return nil
		}
	}
	if _, err := j.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("writing journal %s: %w", j.path, err)
	}
	if err := j.f.Sync(); err != nil {
		return fmt.Errorf("syncing journal %s: %w", j.path, err)
	}
	if l.Kind == "item" {
		j.items[l.Index] = l
	} else {
		j.sessions = append(j.sessions, l)
	}
	return nil
}

// done reports whether item index is journaled.
func (j *journal) done(index int) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	_, ok := j.items[index]
	return ok
}

func (j *journal) close() error { return j.f.Close() }

// peekJournal reads a journal without opening it for writing, for --dry-run:
// the number of finished items, or 0 if there is none.
func peekJournal(path string) (int, error) {
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
		var l journalLine
		if json.Unmarshal(sc.Bytes(), &l) == nil && l.Kind == "item" {
			seen[l.Index] = true
		}
	}
	return len(seen), sc.Err()
}
