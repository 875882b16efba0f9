package systems

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/internal/pystr"
	"github.com/mattools-leaderboard/leaderboard/llm"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/runner/retrieval"
)

func init() {
	Register(Registration{Name: results.SystemLLMRAG, Needs: Needs{Retriever: true}, New: newLLMRAG})
}

// DefaultTopK is the documents LLM-RAG retrieves per question, as MatTools
// (similarity_search(question, k=5)).
const DefaultTopK = 5

// The LLM-RAG prompt files (prompts layout), from MatTools
// src/RAG_agent_test/build_agent.py.
const (
	PromptLLMRAGSystem     = "llm_rag/system.txt"                  // SYSTEM_PROMPT
	PromptLLMRAGUserCode   = "llm_rag/user_code_source1.txt"       // USER_PROMPT (source 1)
	PromptLLMRAGUserDoc    = "llm_rag/user_doc_source2.txt"        // USER_PROMPT_DOC (source 2)
	PromptLLMRAGUserLLMDoc = "llm_rag/user_llm_doc_sources3_4.txt" // USER_PROMPT_LLM_DOC (sources 3, 4)
)

// ContextSeparator joins the retrieved items of a context, as MatTools.
const ContextSeparator = "\n\n---------------------------------\n\n"

// llmRAG is the paper's LLM-RAG system: retrieve k documents with the whole
// question as the query, then one chat call with MatTools' system prompt
// and the source's user prompt holding the question and the retrieved
// items (docs/mattools.md §5; MatTools src/RAG_agent_test/build_agent.py,
// retrieve / retrieve_doc / retrieve_llm_doc and generate).
type llmRAG struct {
	noRecord
	source, k int
	retriever retrieval.Retriever // set by Build
}

func newLLMRAG(p Params) (System, error) {
	if p.RetrievalSource < 1 || p.RetrievalSource > 4 {
		return nil, fmt.Errorf("system llm-rag needs a retrieval source 1–4; got %d", p.RetrievalSource)
	}
	k := p.TopK
	if k == 0 {
		k = DefaultTopK
	}
	if k < 0 {
		return nil, fmt.Errorf("system llm-rag: top-k %d; want ≥ 1", k)
	}
	return &llmRAG{source: p.RetrievalSource, k: k}, nil
}

func (s *llmRAG) Name() results.System { return results.SystemLLMRAG }

// Build takes the configuration's retriever.
func (s *llmRAG) Build(ctx context.Context, res Resources) (Answerer, error) {
	r, err := res.Retriever(ctx)
	if err != nil {
		return nil, err
	}
	a := *s
	a.retriever = r
	return &a, nil
}

// PromptFiles returns the prompt files the system sends for its source.
func (s *llmRAG) PromptFiles() []string { return []string{PromptLLMRAGSystem, userPrompt(s.source)} }

func userPrompt(source int) string {
	switch source {
	case 1:
		return PromptLLMRAGUserCode
	case 2:
		return PromptLLMRAGUserDoc
	}
	return PromptLLMRAGUserLLMDoc
}

// RAGContext formats retrieved hits as MatTools' retrieve functions did for
// retrieval source: per hit a prefix line (source 1: "This code belongs to
// the module: {source}" and "The top-level function or class of this code:
// {name or None}"; sources 2–4: "Source of this document: {source}"), then
// the chunk text, joined by "\n"; the items joined by ContextSeparator.
func RAGContext(source int, hits []retrieval.Hit) string {
	items := make([]string, len(hits))
	for i, h := range hits {
		if source == 1 {
			name := h.Name
			if name == "" {
				name = "None" // doc.metadata.get("first_function_or_class", "None")
			}
			items[i] = strings.Join([]string{"This code belongs to the module: " + h.Source,
				"The top-level function or class of this code: " + name, h.Text}, "\n")
		} else {
			items[i] = strings.Join([]string{"Source of this document: " + h.Source, h.Text}, "\n")
		}
	}
	return strings.Join(items, ContextSeparator)
}

// LLMRAGMessages returns the two messages LLM-RAG sends for question text
// (question.txt stripped) and retrieved context ctx: MatTools' system
// prompt, and the source's user prompt with {question} and
// {retrieved_code_segments} (source 1) or {retrieved_code_documents}
// (sources 2–4) filled in as Python's str.format fills them.
func LLMRAGMessages(p *Prompts, source int, question, ctx string) ([]llm.Message, error) {
	sys, _, err := p.Text(PromptLLMRAGSystem)
	if err != nil {
		return nil, err
	}
	user, _, err := p.Text(userPrompt(source))
	if err != nil {
		return nil, err
	}
	field := "{retrieved_code_documents}"
	if source == 1 {
		field = "{retrieved_code_segments}"
	}
	if strings.Count(user, "{question}") != 1 || strings.Count(user, field) != 1 || strings.Count(user, "{") != 2 {
		return nil, fmt.Errorf("prompt %s: want exactly the fields {question} and %s (no other braces), as MatTools' template", userPrompt(source), field)
	}
	// One pass, as str.format: a brace in the question or the context is
	// never taken for a field.
	i, j := strings.Index(user, "{question}"), strings.Index(user, field)
	var b strings.Builder
	if i < j {
		b.WriteString(user[:i] + question + user[i+len("{question}"):j] + ctx + user[j+len(field):])
	} else {
		b.WriteString(user[:j] + ctx + user[j+len(field):i] + question + user[i+len("{question}"):])
	}
	return []llm.Message{{Role: "system", Content: sys}, llm.User(b.String())}, nil
}

func (s *llmRAG) Generate(ctx context.Context, q *datasets.Question, env Env) (Generation, error) {
	var g Generation
	if s.retriever == nil {
		return g, fmt.Errorf("system llm-rag: no retriever for retrieval source %d", s.source)
	}
	question := pystr.Strip(q.Text)
	start := time.Now()
	hits, err := s.retriever.Search(ctx, question, s.k)
	if err != nil {
		return g, fmt.Errorf("retrieval: %w", err)
	}
	took := time.Since(start)
	msgs, err := LLMRAGMessages(env.Prompts, s.source, question, RAGContext(s.source, hits))
	if err != nil {
		return g, err
	}
	c, err := env.LLM.Complete(ctx, msgs)
	if err != nil {
		return g, err
	}
	g.add(c)
	g.Response, g.FinishReason = c.Content, c.FinishReason
	g.Code, g.FunctionName, g.Extracted = ExtractCode(c.Content)
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ChunkID
		g.Retrieved = append(g.Retrieved, results.RetrievedChunk{ChunkID: h.ChunkID, Source: h.Source, Score: h.Score, Rank: int32(h.Rank)})
	}
	g.Trace = []results.TraceStage{
		{Stage: "retrieve", LatencyMS: took.Milliseconds(), RetrievedIDs: ids},
		{Stage: "generate", PromptTokens: c.PromptTokens, CompletionTokens: c.CompletionTokens, LatencyMS: c.Latency.Milliseconds()},
	}
	return g, nil
}

// Estimate counts one chat call; the prompt bytes are the question, the
// prompts and k chunks of at most 1,000 characters with their prefixes
// (an upper bound: the retrieved chunks are unknown before retrieval).
func (s *llmRAG) Estimate(q *datasets.Question, p *Prompts) Estimate {
	question := pystr.Strip(q.Text)
	ctx := strings.Repeat(strings.Repeat("x", 1000+120), s.k) + strings.Repeat(ContextSeparator, max(0, s.k-1))
	msgs, err := LLMRAGMessages(p, s.source, question, ctx)
	n := 0
	if err == nil {
		for _, m := range msgs {
			n += len(m.Content)
		}
	}
	return Estimate{Calls: 1, PromptBytes: n, Queries: 1}
}
