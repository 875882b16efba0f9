package graphrag

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/mattools-leaderboard/leaderboard/internal/jsonl"
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
// Build (an internal/jsonl journal, locked while the build runs), read back
// by a rerun so that journaled work costs no call.
type journal struct {
	mu        sync.Mutex
	f         *jsonl.File
	chunks    map[string]journalEntry // by chunk id
	summaries map[string]string       // by prompt md5
}

// openJournal opens (creating) dir's journal. An existing journal whose
// header differs from h in chat model, corpus or settings is an error
// naming both values; so is one another build holds open. A last line cut
// short by a crash is dropped.
func openJournal(dir string, h journalHeader) (*journal, error) {
	path := filepath.Join(dir, JournalFile)
	j := &journal{chunks: map[string]journalEntry{}, summaries: map[string]string{}}
	h.Kind = "header"
	f, err := jsonl.Open(path, h, func(raw []byte) error {
		var got journalHeader
		if err := json.Unmarshal(raw, &got); err != nil || got.Kind != "header" {
			return errors.New("line 1 is not a journal header")
		}
		return sameBuild(got, h)
	}, func(n int, raw []byte) error {
		var e journalEntry
		if err := json.Unmarshal(raw, &e); err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
		switch e.Kind {
		case "chunk":
			j.chunks[e.ChunkID] = e
		case "summary":
			j.summaries[e.PromptMD5] = e.Answer
		default:
			return fmt.Errorf("line %d: unknown entry kind %q", n, e.Kind)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("graphrag: journal %w", err)
	}
	j.f = f
	return j, nil
}

// sameBuild compares a journal header with the one a Build would write.
func sameBuild(got, want journalHeader) error {
	if got.FormatVersion != want.FormatVersion {
		return fmt.Errorf("written in format version %d, want %d: remove the index directory", got.FormatVersion, want.FormatVersion)
	}
	if got.ChatModel != want.ChatModel {
		return fmt.Errorf("written with chat model %q, this build uses %q: use another index directory", got.ChatModel, want.ChatModel)
	}
	if got.CorpusID != want.CorpusID {
		return fmt.Errorf("written for corpus %q, this build is of corpus %q: use another index directory", got.CorpusID, want.CorpusID)
	}
	g, _ := json.Marshal(got.Settings)
	w, _ := json.Marshal(want.Settings)
	if !bytes.Equal(g, w) {
		return fmt.Errorf("written with settings %s, this build uses %s: use another index directory", g, w)
	}
	return nil
}

// append writes v as one JSON line and fsyncs.
func (j *journal) append(v any) error {
	if err := j.f.Append(v); err != nil {
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
