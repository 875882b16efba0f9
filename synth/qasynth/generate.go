package qasynth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/mattools-leaderboard/leaderboard/datasets/corpus"
	"github.com/mattools-leaderboard/leaderboard/internal/jsonl"
	"github.com/mattools-leaderboard/leaderboard/internal/workpool"
	"github.com/mattools-leaderboard/leaderboard/llm"
)

// JournalVersion is the "journal" value of a QA-synthesis journal's header.
const JournalVersion = "qasynth-journal/1"

// DocIDs gives each document an ID, stable across runs over the same file:
// "<code_source_file>#<name>#<k>", k the 0-based rank among the documents
// of the same file and name (as corpus.BuildLLMDocFull names its chunks).
func DocIDs(docs []corpus.LLMDoc) []string {
	seen := map[string]int{}
	ids := make([]string, len(docs))
	for i, d := range docs {
		key := d.Metadata.CodeSourceFile + "#" + d.Metadata.Name
		ids[i] = key + "#" + strconv.Itoa(seen[key])
		seen[key]++
	}
	return ids
}

// JournalLine is one answered attempt of one document.
type JournalLine struct {
	ID      string `json:"id"`
	Attempt int    `json:"attempt"` // 1..MaxAttempts
	// Fingerprint is the hex SHA-256 of the model, the attempt and the
	// message: a line counts only while it matches.
	Fingerprint      string `json:"fingerprint"`
	Answer           string `json:"answer"`
	PromptTokens     int64  `json:"prompt_tokens"`
	CompletionTokens int64  `json:"completion_tokens"`
	LatencyMS        int64  `json:"latency_ms"`
}

type journalHeader struct {
	Journal  string `json:"journal"`
	Set      string `json:"set"`
	Model    string `json:"model"`
	Endpoint string `json:"endpoint"`
	Prompt   string `json:"prompt"` // Prompt.Source ":" Variable " " SHA256
}

// Options configures Generate.
type Options struct {
	// Concurrency is the number of documents worked on at once (default
	// 4); the client's RequestsPerMinute limits the rate.
	Concurrency int
	// Journal is the JSON Lines journal (required): a header line and one
	// JournalLine per answered attempt, fsynced as it arrives, so that a
	// run killed half-way is resumed by the next, which asks only what is
	// missing. A journal of another set, model, endpoint or prompt is
	// refused.
	Journal string
	// Endpoint is the model's base URL without credentials (recorded).
	Endpoint string
	// Progress, if not nil, shows a progress bar of the documents with ETA.
	Progress io.Writer
}

// DocResult is what became of one document.
type DocResult struct {
	ID    string `json:"id"`
	Index int    `json:"index"` // its 0-based position in the input
	// Rejected gives, for each attempt check_answer rejected, the reason.
	Rejected []string `json:"rejected"`
	// Questions are those of the accepted answer; nil when every attempt
	// was rejected (the document is dropped, as upstream drops it) or the
	// document was not finished (Done false).
	Questions []Question `json:"-"`
	Done      bool       `json:"-"`
}

// Result summarises a Generate call.
type Result struct {
	// Docs has one entry per input document, in input order.
	Docs []DocResult
	// Documents is the input's size; Finished the documents done
	// (accepted or rejected MaxAttempts times); Resumed the attempts
	// taken from the journal; Requested the calls of this run
	// (Completions answered, Failed not).
	Documents, Finished, Resumed, Requested, Completions, Failed int
	PromptTokens, CompletionTokens                               int64
	Wall                                                         time.Duration
}

// Fingerprint is the hex SHA-256 of the model, the attempt and the message.
func Fingerprint(model string, attempt int, message string) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%d\x00%s", model, attempt, message)
	return hex.EncodeToString(h.Sum(nil))
}

// Generate asks client's model for the questions of each document with
// prompt p (one user message, Prompt.Message; upstream used
// gemini-2.0-flash at temperature 0.7: set the client's Params), as
// upstream's process_documents does: an answer CheckAnswer rejects is
// asked again, up to MaxAttempts in all, and a document with no accepted
// answer is dropped. Every answer is appended to opts.Journal at once; an
// attempt whose journal line matches its fingerprint is not asked again.
// A request that fails after the client's retries stops its document (not
// counted as an attempt, unlike upstream, which counted an exception as
// one: the next run asks it again) and Generate returns the Result with an
// error. When ctx ends it returns ctx's error once the calls in flight end.
func Generate(ctx context.Context, docs []corpus.LLMDoc, p *Prompt, client *llm.Client, opts Options) (*Result, error) {
	start := time.Now()
	if opts.Journal == "" {
		return nil, errors.New("qasynth: no journal file given")
	}
	if opts.Concurrency <= 0 {
		opts.Concurrency = 4
	}
	ids := DocIDs(docs)
	msgs := make([]string, len(docs))
	for i, d := range docs {
		m, err := p.Message(d)
		if err != nil {
			return nil, fmt.Errorf("document %d (%s): %w", i, ids[i], err)
		}
		msgs[i] = m
	}
	model := client.Model()
	j, err := jsonl.OpenJournal(opts.Journal, journalHeader{JournalVersion, p.Set, model, opts.Endpoint, p.Source + ":" + p.Variable + " " + p.SHA256}, journalSpec)
	if err != nil {
		return nil, err
	}
	defer j.Close()
	res := &Result{Documents: len(docs), Docs: make([]DocResult, len(docs))}
	bar := workpool.Bar(opts.Progress, len(docs), "documents")
	var (
		mu      sync.Mutex
		lastErr error
	)
	workpool.Run(ctx, opts.Concurrency, len(docs), func() bool { return j.Err() != nil }, func(i int) {
		r := DocResult{ID: ids[i], Index: i}
		for attempt := 1; attempt <= MaxAttempts; attempt++ {
			fp := Fingerprint(model, attempt, msgs[i])
			l, have := j.Get(ids[i] + "\x00" + strconv.Itoa(attempt))
			if have && l.Fingerprint == fp {
				mu.Lock()
				res.Resumed++
				mu.Unlock()
			} else {
				comp, err := client.Complete(ctx, []llm.Message{{Role: "user", Content: msgs[i]}})
				mu.Lock()
				res.Requested++
				if err != nil {
					if ctx.Err() == nil {
						res.Failed++
						lastErr = fmt.Errorf("%s, attempt %d: %w", ids[i], attempt, err)
					}
					mu.Unlock()
					break
				}
				res.Completions++
				res.PromptTokens += comp.PromptTokens
				res.CompletionTokens += comp.CompletionTokens
				l = JournalLine{ID: ids[i], Attempt: attempt, Fingerprint: fp, Answer: comp.Content,
					PromptTokens: comp.PromptTokens, CompletionTokens: comp.CompletionTokens, LatencyMS: comp.Latency.Milliseconds()}
				stop := j.Add(l) != nil
				mu.Unlock()
				if stop {
					break
				}
			}
			qs, err := CheckAnswer(l.Answer)
			if err == nil {
				r.Questions, r.Done = qs, true
				break
			}
			r.Rejected = append(r.Rejected, fmt.Sprintf("attempt %d: %v", attempt, err))
			r.Done = attempt == MaxAttempts
		}
		mu.Lock()
		res.Docs[i] = r
		if r.Done {
			res.Finished++
		}
		if bar != nil {
			bar.Add(1)
		}
		mu.Unlock()
	})
	if bar != nil {
		bar.Finish()
	}
	for i := range res.Docs {
		res.Docs[i].ID, res.Docs[i].Index = ids[i], i
	}
	res.Wall = time.Since(start)
	if err := j.Stopped(ctx, res.Finished, len(docs), "documents"); err != nil {
		return res, err
	}
	if res.Failed > 0 {
		return res, fmt.Errorf("qasynth: %d of %d calls failed (last: %v); run again to ask them again", res.Failed, res.Requested, lastErr)
	}
	return res, nil
}

// journalSpec is the QA-synthesis journal: its answered attempts by id
// NUL attempt.
var journalSpec = jsonl.Spec[journalHeader, JournalLine]{
	Program: "qasynth", Kind: "QA-synthesis", Version: JournalVersion,
	Key: func(l JournalLine) string {
		if l.ID == "" || l.Attempt < 1 {
			return ""
		}
		return l.ID + "\x00" + strconv.Itoa(l.Attempt)
	},
	Mismatch: func(h, want journalHeader) string {
		return fmt.Sprintf("was written for set %q, model %q at %q with prompt %s; this run is set %q, model %q at %q with prompt %s: refusing to mix them (use another -journal, or delete it to start over)",
			h.Set, h.Model, h.Endpoint, h.Prompt, want.Set, want.Model, want.Endpoint, want.Prompt)
	},
	InUse: "one synthesis per journal",
}
