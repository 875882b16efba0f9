package graphrag

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mattools-leaderboard/leaderboard/internal/pystr"
	"github.com/mattools-leaderboard/leaderboard/llm"
)

// LLM is the chat model: *llm.Client satisfies it. This package never sets
// a sampling parameter; the only per-call option it sends is MaxTokens (500)
// on description summaries, as LightRAG does (docs/graphrag.md §4). To match
// LightRAG, which sends no temperature, configure the client with
// Params.Temperature (and TopP, Seed) nil.
type LLM interface {
	CompleteWith(ctx context.Context, msgs []llm.Message, o llm.CallOptions) (*llm.Completion, error)
}

// Embedder computes embeddings: *llm.Client satisfies it.
type Embedder interface {
	Embed(ctx context.Context, model string, inputs []string) (*llm.Embeddings, error)
}

// Call kinds recorded in Call.Kind.
const (
	CallExtract  = "extract"  // entity_extraction, one user message
	CallGlean    = "glean"    // entity_continue_extraction, three messages
	CallIfLoop   = "if-loop"  // entity_if_loop_extraction (only with ≥ 2 gleaning passes)
	CallSummary  = "summary"  // summarize_entity_descriptions, max_tokens 500
	CallKeywords = "keywords" // keywords_extraction
	CallAnswer   = "answer"   // rag_response / naive_rag_response / mix_rag_response
	CallEmbed    = "embed"    // one embeddings request
)

// Call is the usage of one LLM or embeddings request, for traces.
type Call struct {
	Kind             string // one of the Call* constants
	Model            string // as the server reports it
	PromptTokens     int64  // server-reported (0 if none)
	CompletionTokens int64
	Inputs           int // texts of an embeddings request
	Latency          time.Duration
	Attempts         int // HTTP attempts, retries of the client included
}

// maxEmptyAttempts is how often an empty answer is asked again: LightRAG's
// OpenAI binding raises InvalidResponseError on an empty answer and tenacity
// retries it, 3 attempts in all (llm/openai.py:97-103).
const maxEmptyAttempts = 3

// errEmptyAnswer is wrapped when the model answered empty maxEmptyAttempts times.
var errEmptyAnswer = errors.New("empty answer")

// caller sends the chat calls of one Build or Query: at most cap(sem) at
// once, every answer post-processed as LightRAG's OpenAI binding does.
type caller struct {
	model       LLM
	sem         chan struct{}
	keepEscapes bool

	mu    sync.Mutex
	calls []Call
}

func newCaller(model LLM, maxAsync int, keepEscapes bool) *caller {
	return &caller{model: model, sem: make(chan struct{}, max(1, maxAsync)), keepEscapes: keepEscapes}
}

// complete sends msgs and returns the answer: an empty (whitespace-only)
// answer is asked again, up to maxEmptyAttempts in all, and every \uXXXX
// written in the answer is decoded unless keepEscapes (safe_unicode_decode).
func (c *caller) complete(ctx context.Context, kind string, msgs []llm.Message, o llm.CallOptions) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	defer func() { <-c.sem }()
	for attempt := 1; ; attempt++ {
		comp, err := c.model.CompleteWith(ctx, msgs, o)
		if err != nil {
			return "", fmt.Errorf("graphrag: %s call: %w", kind, err)
		}
		c.record(Call{Kind: kind, Model: comp.Model, PromptTokens: comp.PromptTokens, CompletionTokens: comp.CompletionTokens,
			Latency: comp.Latency, Attempts: comp.Attempts})
		if pystr.Strip(comp.Content) == "" {
			if attempt < maxEmptyAttempts {
				continue
			}
			return "", fmt.Errorf("graphrag: %s call: %w %d times", kind, errEmptyAnswer, maxEmptyAttempts)
		}
		if c.keepEscapes {
			return comp.Content, nil
		}
		return safeUnicodeDecode(comp.Content), nil
	}
}

func (c *caller) record(call Call) {
	c.mu.Lock()
	c.calls = append(c.calls, call)
	c.mu.Unlock()
}

func (c *caller) taken() []Call {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Call(nil), c.calls...)
}

// embedTexts embeds texts in batches of batch (LightRAG's
// embedding_batch_num), at most maxAsync requests at once, and returns one
// vector per text in order.
func embedTexts(ctx context.Context, emb Embedder, model string, texts []string, batch, maxAsync int, rec func(Call)) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	batch = max(1, batch)
	out := make([][]float32, len(texts))
	sem := make(chan struct{}, max(1, maxAsync))
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	for lo := 0; lo < len(texts); lo += batch {
		hi := min(lo+batch, len(texts))
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			wg.Wait()
			return nil, ctx.Err()
		}
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			defer func() { <-sem }()
			res, err := emb.Embed(ctx, model, texts[lo:hi])
			if err == nil && len(res.Vectors) != hi-lo {
				err = fmt.Errorf("%d vectors for %d texts", len(res.Vectors), hi-lo)
			}
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if firstErr == nil {
					firstErr = fmt.Errorf("graphrag: embeddings (model %s): %w", model, err)
				}
				return
			}
			copy(out[lo:hi], res.Vectors)
			if rec != nil {
				rec(Call{Kind: CallEmbed, Model: res.Model, PromptTokens: res.PromptTokens, Inputs: hi - lo,
					Latency: res.Latency, Attempts: res.Attempts})
			}
		}(lo, hi)
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	return out, nil
}
