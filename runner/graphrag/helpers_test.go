package graphrag

// Test helpers: the prompt directory, a scripted fake LLM that recognises
// LightRAG's prompts by their openings (docs/graphrag.md §8), deterministic fake
// embeddings, and record builders. Fake replies are written here and in
// testdata/; they are not upstream data.

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mattools-leaderboard/leaderboard/llm"
	"github.com/mattools-leaderboard/leaderboard/llm/llmtest"
)

// DataDir returns LightRAG's prompt directory named by LIGHTRAG_DATA. When
// the variable is unset it skips the test, naming the variable, or fails it
// when CI is set (CI must run every test).
func DataDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv(EnvData)
	if dir == "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is not set, and CI is: CI must set it to LightRAG's prompt texts (docs/graphrag.md)", EnvData)
		}
		t.Skipf("%s is not set: set it to LightRAG 1.3.3's prompt texts (docs/graphrag.md) to run this test", EnvData)
	}
	return dir
}

// testPrompts loads the prompts of DataDir.
func testPrompts(t testing.TB) *Prompts {
	t.Helper()
	p, err := LoadPrompts(DataDir(t))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Call kinds the fake recognises, by the table of docs/graphrag.md §8.
func kindOf(msgs []llm.Message) string {
	last := msgs[len(msgs)-1].Content
	switch {
	case msgs[0].Role == "system" && strings.HasPrefix(msgs[0].Content, "---Role---"):
		return CallAnswer
	case len(msgs) == 1 && strings.HasPrefix(last, "---Goal---\nGiven a text document"):
		return CallExtract
	case len(msgs) >= 3 && strings.HasPrefix(last, "MANY entities"):
		return CallGlean
	case strings.HasPrefix(last, "---Goal---'"):
		return CallIfLoop
	case strings.HasPrefix(last, "You are a helpful assistant responsible for generating a comprehensive summary"):
		return CallSummary
	case strings.Contains(last, "Current Query:"):
		return CallKeywords
	}
	return "unknown"
}

// chunkOf returns the chunk text inside an extraction prompt.
func chunkOf(prompt string) string {
	i := strings.LastIndex(prompt, "\nText:\n")
	j := strings.LastIndex(prompt, "\n######################\nOutput:")
	if i < 0 || j < i {
		return ""
	}
	return prompt[i+len("\nText:\n") : j]
}

// questionOf returns the query inside a keywords prompt.
func questionOf(prompt string) string {
	i := strings.Index(prompt, "Current Query: ")
	if i < 0 {
		return ""
	}
	rest := prompt[i+len("Current Query: "):]
	return rest[:strings.Index(rest, "\n")]
}

type fakeCall struct {
	kind string
	msgs []llm.Message
	opts llm.CallOptions
}

// fakeLLM answers each call kind with its function (nil: a default). It
// records every call; fail, if set, makes a call fail.
type fakeLLM struct {
	extract  func(chunk string) string
	glean    func(chunk string) string
	summary  func(prompt string) string
	keywords func(question string) string
	answer   func(system, question string) string
	fail     func(kind, text string) error

	mu    sync.Mutex
	calls []fakeCall
}

func (f *fakeLLM) Model() string { return "fake-chat" }

func (f *fakeLLM) CompleteWith(ctx context.Context, msgs []llm.Message, o llm.CallOptions) (*llm.Completion, error) {
	kind := kindOf(msgs)
	f.mu.Lock()
	f.calls = append(f.calls, fakeCall{kind: kind, msgs: append([]llm.Message(nil), msgs...), opts: o})
	f.mu.Unlock()
	var text string
	switch kind {
	case CallExtract:
		text = chunkOf(msgs[0].Content)
	case CallGlean:
		text = chunkOf(msgs[0].Content)
	case CallKeywords:
		text = questionOf(msgs[0].Content)
	}
	if f.fail != nil {
		if err := f.fail(kind, text); err != nil {
			return nil, err
		}
	}
	reply := ""
	switch kind {
	case CallExtract:
		reply = `("content_keywords"<|>"none")<|COMPLETE|>`
		if f.extract != nil {
			reply = f.extract(text)
		}
	case CallGlean:
		reply = "<|COMPLETE|>"
		if f.glean != nil {
			reply = f.glean(text)
		}
	case CallIfLoop:
		reply = "no"
	case CallSummary:
		reply = "SUMMARY"
		if f.summary != nil {
			reply = f.summary(msgs[0].Content)
		}
	case CallKeywords:
		reply = `{"high_level_keywords": [], "low_level_keywords": []}`
		if f.keywords != nil {
			reply = f.keywords(text)
		}
	case CallAnswer:
		reply = "ANSWER"
		if f.answer != nil {
			reply = f.answer(msgs[0].Content, msgs[len(msgs)-1].Content)
		}
	default:
		return nil, fmt.Errorf("fake LLM: unrecognised prompt %.80q", msgs[len(msgs)-1].Content)
	}
	return &llm.Completion{Content: reply, Model: "fake-chat", PromptTokens: 10, CompletionTokens: 5, Latency: time.Millisecond, Attempts: 1}, nil
}

func (f *fakeLLM) taken() []fakeCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fakeCall(nil), f.calls...)
}

func (f *fakeLLM) count(kind string) int {
	n := 0
	for _, c := range f.taken() {
		if c.kind == kind {
			n++
		}
	}
	return n
}

func (f *fakeLLM) reset() {
	f.mu.Lock()
	f.calls = nil
	f.mu.Unlock()
}

// fakeEmbedder returns vec(text), or llmtest.Embedding(text, 64) when vec
// is nil or returns nil, and records every request's inputs.
type fakeEmbedder struct {
	vec func(text string) []float32

	mu     sync.Mutex
	inputs [][]string
}

func (f *fakeEmbedder) Embed(ctx context.Context, model string, inputs []string) (*llm.Embeddings, error) {
	f.mu.Lock()
	f.inputs = append(f.inputs, append([]string(nil), inputs...))
	f.mu.Unlock()
	out := &llm.Embeddings{Model: model, PromptTokens: int64(len(inputs)), Attempts: 1}
	for _, in := range inputs {
		var v []float32
		if f.vec != nil {
			v = f.vec(in)
		}
		if v == nil {
			v = llmtest.Embedding(in, 64)
		}
		out.Vectors = append(out.Vectors, v)
	}
	return out, nil
}

func (f *fakeEmbedder) requests() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.inputs)
}

// ent and rel write records in LightRAG's format, quoted as its examples are.
func ent(name, typ, desc string) string {
	return `("entity"<|>"` + name + `"<|>"` + typ + `"<|>"` + desc + `")`
}

func rel(src, tgt, desc, kw, strength string) string {
	return `("relationship"<|>"` + src + `"<|>"` + tgt + `"<|>"` + desc + `"<|>"` + kw + `"<|>` + strength + `)`
}

// records joins records as an answer: "##" between, "<|COMPLETE|>" at the end.
func records(rs ...string) string { return strings.Join(rs, "##\n") + "<|COMPLETE|>" }

// fixedClock is the clock of every test build: 2025-04-26 12:00:00 UTC.
func fixedClock() time.Time { return time.Date(2025, 4, 26, 12, 0, 0, 0, time.UTC) }

// charOpts are index options for hand-computed tests: the character
// tokenizer, the fixed clock and an embedding model name.
func charOpts(p *Prompts) IndexOptions {
	return IndexOptions{Prompts: p, Tokenizer: Chars(), EmbeddingModel: "fake-embed", CorpusID: "test-corpus", Clock: fixedClock}
}

func ptr[T any](v T) *T { return &v }
