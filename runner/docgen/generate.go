package docgen

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mattools-leaderboard/leaderboard/datasets/corpus"
	"github.com/mattools-leaderboard/leaderboard/internal/jsonl"
	"github.com/mattools-leaderboard/leaderboard/internal/workpool"
	"github.com/mattools-leaderboard/leaderboard/llm"
)

// PromptTemplate is the prompt (prompt.txt), sent as the one user message
// of each request after replacing {kind} (e.g. "FunctionDef"), {name},
// {file} (code_source_file), {parent_line} ("It is defined in X." or "It
// is defined at module level."), {code} (the object's code), {callees} and
// {callers} (one "- <qualname> (<kind> in <file>)" line per object, at most
// MaxListed, then "- … and N more"; "- (none found)" when empty). It asks
// for RepoAgent's sections: a one-line summary, purpose, parameters,
// return, notes and an example.
//
//go:embed prompt.txt
var PromptTemplate string

// PromptSHA256 is "sha256:" and the hex SHA-256 of PromptTemplate: with the
// model id, the identity of a generated corpus.
var PromptSHA256 = func() string {
	s := sha256.Sum256([]byte(PromptTemplate))
	return "sha256:" + hex.EncodeToString(s[:])
}()

// MaxListed caps the callers and callees listed in a prompt.
const MaxListed = 20

// DefaultMaxAnswerBytes is the default cap of an answer (64 KiB).
const DefaultMaxAnswerBytes = 64 << 10

// JournalVersion is the "journal" value of a journal's header line.
const JournalVersion = "docgen-journal/2"

// Flags of a journal line.
const (
	FlagEmpty    = "empty"    // the answer was empty or only whitespace: no document
	FlagOversize = "oversize" // the answer exceeded MaxAnswerBytes: document capped
)

// Prompt returns the prompt of o; byID resolves the IDs of o.Calls and
// o.CalledBy (IDs it lacks are listed as such).
func Prompt(o Object, byID map[string]*Object) string {
	parent := "It is defined at module level."
	if o.Parent != "" {
		parent = "It is defined in " + o.Parent + "."
	}
	list := func(ids []string) string {
		if len(ids) == 0 {
			return "- (none found)"
		}
		var b strings.Builder
		for i, id := range ids {
			if i == MaxListed {
				fmt.Fprintf(&b, "- … and %d more\n", len(ids)-MaxListed)
				break
			}
			if x := byID[id]; x != nil {
				fmt.Fprintf(&b, "- %s (%s in %s)\n", x.Qualname, x.Kind, x.File)
			} else {
				fmt.Fprintf(&b, "- %s\n", id)
			}
		}
		return strings.TrimSuffix(b.String(), "\n")
	}
	return strings.NewReplacer("{kind}", o.Kind, "{name}", o.Name, "{file}", o.File, "{parent_line}", parent,
		"{code}", strings.TrimRight(o.Code, "\n"), "{callees}", list(o.Calls), "{callers}", list(o.CalledBy)).Replace(PromptTemplate)
}

// Fingerprint is the hex SHA-256 of model, PromptSHA256 and the object's
// whole prompt (Prompt: its code, parent, callers and callees), NUL
// separated: a journal line counts for an object only while it matches, so
// an object whose code or call graph changed (another walk) is asked again.
func Fingerprint(model, prompt string) string {
	s := sha256.Sum256([]byte(model + "\x00" + PromptSHA256 + "\x00" + prompt))
	return hex.EncodeToString(s[:])
}

// Options configures Generate.
type Options struct {
	// Concurrency is the number of requests in flight (default 4). The
	// client's RequestsPerMinute limits their rate.
	Concurrency int
	// Journal is the JSON Lines journal file (required). Its first line is
	// the header {"journal": JournalVersion, "model", "prompt_sha256"}; each
	// further line one finished object (JournalLine), written and fsynced
	// as soon as its answer arrives.
	Journal string
	// Out, if not "", is where the documents are written
	// (corpus.WriteLLMDocs) once every object is finished.
	Out string
	// MaxAnswerBytes caps an answer (DefaultMaxAnswerBytes if 0).
	MaxAnswerBytes int
	// Progress, if not nil, shows a progress bar with ETA.
	Progress io.Writer
	// Endpoint is the model's base URL without credentials, recorded in
	// the journal's header: a journal of another endpoint is refused.
	Endpoint string
}

// JournalLine is one finished object of a journal.
type JournalLine struct {
	ID          string `json:"id"`
	Fingerprint string `json:"fingerprint"`
	// Doc is the document kept ("" when flagged empty).
	Doc string `json:"doc"`
	// Flag is "", FlagEmpty or FlagOversize; AnswerBytes the answer's
	// length before capping.
	Flag             string `json:"flag,omitempty"`
	AnswerBytes      int    `json:"answer_bytes"`
	PromptTokens     int64  `json:"prompt_tokens"`
	CompletionTokens int64  `json:"completion_tokens"`
	LatencyMS        int64  `json:"latency_ms"`
}

type journalHeader struct {
	Journal        string `json:"journal"`
	Model          string `json:"model"`
	PromptSHA256   string `json:"prompt_sha256"`
	Endpoint       string `json:"endpoint"` // the model's base URL, without credentials
	MaxAnswerBytes int    `json:"max_answer_bytes"`
}

// Result summarises a Generate call.
type Result struct {
	// Docs are the documents, in object order (flagged-empty objects have none).
	Docs []corpus.LLMDoc
	// Objects is len(objects); Resumed those finished by an earlier run
	// (from the journal); Requested those asked in this run (Completions
	// answered, Failed not).
	Objects, Resumed, Requested, Completions, Failed int
	// Empty and Oversize count flagged answers over all objects (journal included).
	Empty, Oversize int
	// PromptTokens and CompletionTokens are the usage of this run's answers.
	PromptTokens, CompletionTokens int64
	Wall                           time.Duration
	// Origin is "generated by <model>, prompt sha256:…", the corpus label.
	Origin string
}

// Generate documents objects with client's model: one chat request per
// object not yet finished in opts.Journal (same object ID and
// Fingerprint), opts.Concurrency at a time, each answer appended to the
// journal at once, so that a run killed or cancelled half-way is resumed by
// the next one, which asks only the missing objects. A journal whose header
// names another model or prompt is refused (nothing is asked); a journal
// line whose fingerprint no longer matches (the code changed) is redone.
// A torn last line (a crash while writing) is dropped.
//
// Answers are trimmed of surrounding whitespace and never silently
// accepted: an empty one is flagged FlagEmpty and the object gets no
// document (page_content must not be empty); one over MaxAnswerBytes is
// flagged FlagOversize and kept cut to the cap at a UTF-8 boundary. Flags
// are recorded in the journal line and counted; a flagged object is
// finished (delete its line to ask again).
//
// A request that fails after the client's retries is counted in Failed and
// the others go on; Generate then returns the Result and an error, and
// writes no output. When ctx ends, Generate returns ctx's error after the
// requests in flight end. With every object finished, the documents
// (corpus metadata filled from the object, item_status "doc_up_to_date")
// are written to opts.Out.
func Generate(ctx context.Context, objects []Object, client *llm.Client, opts Options) (*Result, error) {
	start := time.Now()
	if opts.Journal == "" {
		return nil, errors.New("docgen: no journal file given")
	}
	if opts.Concurrency <= 0 {
		opts.Concurrency = 4
	}
	if opts.MaxAnswerBytes <= 0 {
		opts.MaxAnswerBytes = DefaultMaxAnswerBytes
	}
	model := client.Model()
	res := &Result{Objects: len(objects), Origin: "generated by " + model + ", prompt " + PromptSHA256}
	byID := map[string]*Object{}
	for i := range objects {
		if byID[objects[i].ID] != nil {
			return nil, fmt.Errorf("docgen: object id %s occurs twice", objects[i].ID)
		}
		byID[objects[i].ID] = &objects[i]
	}
	j, err := openJournal(opts.Journal, model, opts.Endpoint, opts.MaxAnswerBytes)
	if err != nil {
		return nil, err
	}
	defer j.Close()
	var todo []int
	for i, o := range objects {
		if l, ok := j.Get(o.ID); ok && l.Fingerprint == Fingerprint(model, Prompt(o, byID)) {
			res.Resumed++
			continue
		}
		j.Forget(o.ID)
		todo = append(todo, i)
	}
	bar := workpool.Bar(opts.Progress, len(todo), "documents")
	var (
		mu      sync.Mutex
		lastErr error
	)
	workpool.Run(ctx, opts.Concurrency, len(todo), func() bool { return j.Err() != nil }, func(k int) {
		i := todo[k]
		o := objects[i]
		prompt := Prompt(o, byID)
		comp, err := client.Complete(ctx, []llm.Message{llm.User(prompt)})
		mu.Lock()
		res.Requested++
		if err != nil {
			if ctx.Err() == nil {
				res.Failed++
				lastErr = fmt.Errorf("%s: %w", o.ID, err)
			}
			mu.Unlock()
			return
		}
		res.Completions++
		res.PromptTokens += comp.PromptTokens
		res.CompletionTokens += comp.CompletionTokens
		l := JournalLine{ID: o.ID, Fingerprint: Fingerprint(model, prompt), PromptTokens: comp.PromptTokens,
			CompletionTokens: comp.CompletionTokens, LatencyMS: comp.Latency.Milliseconds()}
		l.Doc, l.Flag, l.AnswerBytes = capAnswer(comp.Content, opts.MaxAnswerBytes)
		j.Add(l) // its error stops the run (j.Err)
		if bar != nil {
			bar.Add(1)
		}
		mu.Unlock()
	})
	if bar != nil {
		bar.Finish()
	}
	res.Wall = time.Since(start)
	if err := j.Stopped(ctx, j.Len(), len(objects), "objects"); err != nil {
		return res, err
	}
	for _, o := range objects {
		l, ok := j.Get(o.ID)
		switch l.Flag {
		case FlagEmpty:
			res.Empty++
			continue
		case FlagOversize:
			res.Oversize++
		}
		if !ok {
			continue
		}
		res.Docs = append(res.Docs, corpus.LLMDoc{PageContent: l.Doc, Metadata: corpus.LLMDocMetadata{
			CodeSourceFile: o.File, Type: o.Kind, Name: o.Name, CodeStartLine: o.StartLine, CodeEndLine: o.EndLine,
			HaveReturn: o.HaveReturn, CodeContent: o.Code, NameColumn: o.NameColumn, ItemStatus: "doc_up_to_date",
		}})
	}
	if res.Failed > 0 {
		return res, fmt.Errorf("docgen: %d of %d requests failed (last: %v); run again to ask them again", res.Failed, res.Requested, lastErr)
	}
	if opts.Out != "" {
		if len(res.Docs) == 0 {
			return res, fmt.Errorf("docgen: every answer was flagged empty; nothing to write to %s", opts.Out)
		}
		if err := corpus.WriteLLMDocs(opts.Out, res.Docs); err != nil {
			return res, err
		}
	}
	res.Wall = time.Since(start)
	return res, nil
}

// capAnswer trims an answer and applies the cap: (document, flag, bytes
// of the trimmed answer).
func capAnswer(s string, max int) (string, string, int) {
	s = strings.TrimSpace(s)
	n := len(s)
	switch {
	case n == 0:
		return "", FlagEmpty, 0
	case n > max:
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		return s[:cut], FlagOversize, n
	}
	return s, "", n
}

// openJournal reads (or creates) the journal and returns it, open for
// appending, with its finished lines by ID.
func openJournal(p, model, endpoint string, maxAnswer int) (*jsonl.Journal[JournalLine], error) {
	return jsonl.OpenJournal(p, journalHeader{JournalVersion, model, PromptSHA256, endpoint, maxAnswer}, journalSpec)
}

var journalSpec = jsonl.Spec[journalHeader, JournalLine]{
	Program: "docgen", Kind: "docgen", Version: JournalVersion,
	Key: func(l JournalLine) string { return l.ID },
	Mismatch: func(h, want journalHeader) string {
		return fmt.Sprintf("written for model %q at %q with prompt %s and answers capped at %d bytes; this run uses model %q at %q with prompt %s, cap %d: refusing to mix them (use another -journal, or delete it to start over)",
			h.Model, h.Endpoint, h.PromptSHA256, h.MaxAnswerBytes, want.Model, want.Endpoint, want.PromptSHA256, want.MaxAnswerBytes)
	},
	InUse: "one generator per journal",
}

// Estimate is a dry run's forecast.
type Estimate struct {
	// Objects and Calls (one request per object).
	Objects, Calls int
	// PromptTokens is the prompts' bytes / 4; CompletionTokens assumes
	// 400 tokens plus a quarter of the object's code tokens (code bytes /
	// 4) per answer, at most MaxAnswerBytes/4: RepoAgent documents run to
	// a few kilobytes whatever the object.
	PromptTokens, CompletionTokens int64
}

// EstimateCalls forecasts a Generate over objects with no journal.
func EstimateCalls(objects []Object, maxAnswerBytes int) Estimate {
	if maxAnswerBytes <= 0 {
		maxAnswerBytes = DefaultMaxAnswerBytes
	}
	byID := map[string]*Object{}
	for i := range objects {
		byID[objects[i].ID] = &objects[i]
	}
	e := Estimate{Objects: len(objects), Calls: len(objects)}
	for _, o := range objects {
		e.PromptTokens += int64(len(Prompt(o, byID))) / 4
		e.CompletionTokens += min(400+int64(len(o.Code))/16, int64(maxAnswerBytes)/4)
	}
	return e
}

// Cost returns the cost of e at the given prices per million prompt and
// completion tokens.
func (e Estimate) Cost(pricePerMIn, pricePerMOut float64) float64 {
	return float64(e.PromptTokens)/1e6*pricePerMIn + float64(e.CompletionTokens)/1e6*pricePerMOut
}
