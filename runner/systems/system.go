// Package systems holds the LLM systems under test (the MatTools paper's
// single LLM, LLM-RAG, agentic RAG, GraphRAG and self-reflection RAG) behind
// one interface, System, and the prompts they build. A system turns one
// tool-usage question into generated code and a function name; it gets its
// model client (and later its retriever) from the runner through Env and
// never constructs them. Scoring happens elsewhere (runner/scoring).
//
// To add a system, write one file that registers it in init (see single.go).
package systems

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/runner/graphrag"
	"github.com/mattools-leaderboard/leaderboard/runner/llm"
	"github.com/mattools-leaderboard/leaderboard/runner/retrieval"
)

// Completer is the model client a system calls: *llm.Client, or a fake.
type Completer interface {
	Complete(ctx context.Context, msgs []llm.Message) (*llm.Completion, error)
	CompleteWith(ctx context.Context, msgs []llm.Message, o llm.CallOptions) (*llm.Completion, error)
}

// Env is what the runner gives a system for one question.
type Env struct {
	LLM     Completer
	Prompts *Prompts
	// Retriever searches the configuration's retrieval source (nil for
	// systems without retrieval).
	Retriever retrieval.Retriever
	// Objects are the code objects documented by the LLM documentation of
	// retrieval sources 3 and 4 (agentic RAG's code list and name lookup);
	// nil for other sources.
	Objects CodeObjects
	// Execute runs generated code in the scoring sandbox (the
	// self-reflection loop); nil when the run has no sandbox.
	Execute Executor
	// Graph is graph-rag's index, GraphPrompts LightRAG's prompt texts and
	// Embedder the client of the index's embedding model (nil for other
	// systems).
	Graph        *graphrag.Graph
	GraphPrompts *graphrag.Prompts
	Embedder     graphrag.Embedder
}

// CodeObjects are the code objects behind an LLM-documentation corpus
// (retrieval sources 3 and 4): for each chunk, the documented object's
// file and code; for each name, the objects of that name.
type CodeObjects interface {
	// ByChunk returns the code_source_file and code_content of the object
	// that chunk id (a retrieval.Hit's ChunkID) documents.
	ByChunk(id string) (file, code string, ok bool)
	// ByName returns, in corpus order, the code_content and the markdown
	// (page_content) of every document whose metadata name is name.
	ByName(name string) (codes, docs []string)
}

// Executor runs code (defining function name) for question q as scoring
// runs it, with the question's data and the sandbox's limits, and parses
// what it printed as mattools-v1 does; it never verifies. Errors are
// failures of the sandbox, not of the code.
type Executor func(ctx context.Context, q *datasets.Question, code, name string) (Execution, error)

// Execution is what one execution told the system.
type Execution struct {
	Stdout, Stderr string // what the program printed (as captured, capped by the sandbox)
	TimedOut       bool   // the sandbox's time limit killed it
	TimeoutSeconds float64
	// Dict reports that stdout parsed (MatTools' ComplexDictParser) to a
	// dict; Keys and NoneValues count its keys and its None values.
	Dict             bool
	Keys, NoneValues int
	Duration         time.Duration // sandbox time
}

// Prompted is implemented by systems that send prompt texts beyond the
// single-LLM and QA ones: the prompt files (relative to the prompts
// directory) the runner records in each run's provenance.
type Prompted interface {
	PromptFiles() []string
}

// Params configure a system.
type Params struct {
	RetrievalSource int // 0 = none, 1–4 as in the paper
	TopK            int // documents per retrieval; 0 = the system's default
	// JSONMode sends response_format json_object on the calls that ask for
	// JSON (agentic RAG's reranking, NER and final answer), as MatTools
	// does for every model but gemini-2.0-flash-thinking.
	JSONMode bool
	// Variant is the self-reflection loop's variant (SelfReflectionVariants;
	// "" = as-published) and MaxIterations its iteration limit (0 = 5).
	Variant       string
	MaxIterations int
	// NameLookup is agentic RAG's name lookup (NameLookups; "" =
	// as-published).
	NameLookup string
}

// call calls the model, in JSON mode when json is set.
func call(ctx context.Context, c Completer, msgs []llm.Message, json bool) (*llm.Completion, error) {
	if json {
		return c.CompleteWith(ctx, msgs, llm.CallOptions{JSONObject: true})
	}
	return c.Complete(ctx, msgs)
}

// Generation is a system's answer to one tool-usage question.
type Generation struct {
	// Code and FunctionName are the generated function and its name, ""
	// when the answer could not be parsed (MatTools then scores "" as well).
	Code, FunctionName string
	Extracted          bool   // the answer format was found
	Response           string // the final model answer, verbatim
	FinishReason       string // the final answer's finish reason ("stop", "length", …)
	Usage                     // over all model calls made for the question
	// Retrieved is the context given to the model, in its order (results
	// format v2 column retrieved); Trace the stages (column trace).
	Retrieved []results.RetrievedChunk
	Trace     []results.TraceStage
}

// Usage is the model usage of one question.
type Usage struct {
	Calls                          int
	PromptTokens, CompletionTokens int64
	Latency                        time.Duration // sum of the calls' latencies
	Attempts                       int           // HTTP attempts over all calls, retries included
}

func (u *Usage) add(c *llm.Completion) {
	u.Calls++
	u.PromptTokens += c.PromptTokens
	u.CompletionTokens += c.CompletionTokens
	u.Latency += c.Latency
	u.Attempts += c.Attempts
}

// Estimate is a system's forecast of one question's model usage, for
// --dry-run: the number of calls and the bytes of the prompts it will send.
type Estimate struct {
	Calls       int
	PromptBytes int
}

// System is an LLM system under test.
type System interface {
	// Name returns the system's id.
	Name() results.System
	// Generate answers q. Errors are infrastructure failures only (the model
	// could not be reached after retries, ctx ended); an unusable answer is
	// a Generation with Extracted false, for scoring to judge.
	Generate(ctx context.Context, q *datasets.Question, env Env) (Generation, error)
	// Estimate forecasts the model usage of q without calling the model.
	Estimate(q *datasets.Question, p *Prompts) Estimate
}

type factory func(Params) (System, error)

var registry = map[results.System]factory{}

// register adds a system; it is called from init only and panics on a duplicate.
func register(name results.System, f factory) {
	if _, dup := registry[name]; dup {
		panic("systems: duplicate registration of " + string(name))
	}
	registry[name] = f
}

// Names returns the registered systems, sorted.
func Names() []results.System {
	var out []results.System
	for n := range registry {
		out = append(out, n)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// New returns the system called name configured with p. An unknown or not
// yet implemented system is an error listing the available ones.
func New(name results.System, p Params) (System, error) {
	f, ok := registry[name]
	if !ok {
		known := "a system of the MatTools paper"
		if !slices.Contains(results.Systems, name) {
			known = "not a known system"
		}
		return nil, fmt.Errorf("system %q (%s) is not available in this runner; available: %v", name, known, Names())
	}
	return f(p)
}
