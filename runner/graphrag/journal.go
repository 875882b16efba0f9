package graphrag

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// JournalFile is the name of the extraction journal inside an index directory.
const JournalFile = "extract.journal.jsonl"

// journalHeader is the first line of a journal: what the answers depend on.
type journalHeader struct {
	Kind          string   `json:"kind"` // "header"
	FormatVersion int      `json:"format_version"`
	ChatModel     string   `json:"chat_model"`
	CorpusID      string   `json:"corpus_id"`
	Settings      Settings `json:"settings"`
}

// journalEntry is one later line: a finished chunk (both passes) or a
// description summary.
type journalEntry struct {
	Kind string `json:"kind"` // "chunk" or "summary"
	// PromptMD5 is the md5 of the extraction prompt (chunk) or of the
	// summary prompt, so an entry is used only for the very same prompt.
	PromptMD5  string   `json:"prompt_md5"`
	ChunkID    string   `json:"chunk_id,omitempty"`
	Extraction string   `json:"extraction,omitempty"`
	Gleaning   []string `json:"gleaning,omitempty"`
	IfLoop     []string `json:"if_loop,omitempty"`
	Answer     string   `json:"answer,omitempty"` // summary
}

// journal is the append-only, fsynced record of finished LLM work of a
// Build, read back by a rerun so that journaled work costs no call.
type journal struct {
	mu        sync.Mutex
	f         *os.File
	chunks    map[string]journalEntry // by chunk id
	summaries map[string]string       // by prompt md5
}

// openJournal opens (creating) dir's journal. An existing journal whose
// header differs from h in chat model, corpus or settings is an error
// naming both values. A last line cut short by a crash is dropped.
func openJournal(dir string, h journalHeader) (*journal, error) {
	path := filepath.Join(dir, JournalFile)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("graphrag: journal: %w", err)
	}
	j := &journal{chunks: map[string]journalEntry{}, summaries: map[string]string{}}
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("graphrag: journal: %w", err)
	}
	if cut := bytes.LastIndexByte(data, '\n'); cut+1 != len(data) {
		data = data[:cut+1] // an unfinished last line
		if err := os.Truncate(path, int64(len(data))); err != nil {
			return nil, fmt.Errorf("graphrag: journal: drop an unfinished line: %w", err)
		}
	}
	if len(data) > 0 {
		if err := j.load(path, data, h); err != nil {
			return nil, err
		}
	}
	j.f, err = os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("graphrag: journal: %w", err)
	}
	if len(data) == 0 {
		h.Kind = "header"
		if err := j.append(h); err != nil {
			j.f.Close()
			return nil, err
		}
	}
	return j, nil
}

func (j *journal) load(path string, data []byte, want journalHeader) error {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 1<<20), 1<<30)
	line := 0
	for sc.Scan() {
		line++
		if line == 1 {
			var h journalHeader
			if err := json.Unmarshal(sc.Bytes(), &h); err != nil || h.Kind != "header" {
				return fmt.Errorf("graphrag: %s:1: not a journal header", path)
			}
			if err := sameBuild(path, h, want); err != nil {
				return err
			}
			continue
		}
		var e journalEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return fmt.Errorf("graphrag: %s:%d: %w", path, line, err)
		}
		switch e.Kind {
		case "chunk":
			j.chunks[e.ChunkID] = e
		case "summary":
			j.summaries[e.PromptMD5] = e.Answer
		default:
			return fmt.Errorf("graphrag: %s:%d: unknown entry kind %q", path, line, e.Kind)
		}
	}
	return sc.Err()
}

// sameBuild compares a journal header with the one a Build would write.
func sameBuild(path string, got, want journalHeader) error {
	if got.FormatVersion != want.FormatVersion {
		return fmt.Errorf("graphrag: %s has format version %d, want %d: remove the index directory", path, got.FormatVersion, want.FormatVersion)
	}
	if got.ChatModel != want.ChatModel {
		return fmt.Errorf("graphrag: %s was written with chat model %q, this build uses %q: use another index directory", path, got.ChatModel, want.ChatModel)
	}
	if got.CorpusID != want.CorpusID {
		return fmt.Errorf("graphrag: %s was written for corpus %q, this build is of corpus %q: use another index directory", path, got.CorpusID, want.CorpusID)
	}
	g, _ := json.Marshal(got.Settings)
	w, _ := json.Marshal(want.Settings)
	if !bytes.Equal(g, w) {
		return fmt.Errorf("graphrag: %s was written with settings %s, this build uses %s: use another index directory", path, g, w)
	}
	return nil
}

// append writes v as one JSON line and fsyncs.
func (j *journal) append(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if _, err := j.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("graphrag: journal: %w", err)
	}
	if err := j.f.Sync(); err != nil {
		return fmt.Errorf("graphrag: journal: %w", err)
	}
	return nil
}

// chunk returns the journaled answers of chunkID if they were given for
// the prompt of md5 promptMD5.
func (j *journal) chunk(chunkID, promptMD5 string) (journalEntry, bool) {
	if j == nil {
		return journalEntry{}, false
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	e, ok := j.chunks[chunkID]
	return e, ok && e.PromptMD5 == promptMD5
}

func (j *journal) summary(promptMD5 string) (string, bool) {
	if j == nil {
		return "", false
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	a, ok := j.summaries[promptMD5]
	return a, ok
}

func (j *journal) addChunk(e journalEntry) error {
	if j == nil {
		return nil
	}
	e.Kind = "chunk"
	if err := j.append(e); err != nil {
		return err
	}
	j.mu.Lock()
	j.chunks[e.ChunkID] = e
	j.mu.Unlock()
	return nil
}

func (j *journal) addSummary(promptMD5, answer string) error {
	if j == nil {
		return nil
	}
	if err := j.append(journalEntry{Kind: "summary", PromptMD5: promptMD5, Answer: answer}); err != nil {
		return err
	}
	j.mu.Lock()
	j.summaries[promptMD5] = answer
	j.mu.Unlock()
	return nil
}

func (j *journal) close() error {
	if j == nil || j.f == nil {
		return nil
	}
	return j.f.Close()
}
