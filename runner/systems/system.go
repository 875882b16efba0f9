// Package systems holds the LLM systems under test (the MatTools paper's
// single LLM, LLM-RAG, agentic RAG, GraphRAG and self-reflection RAG) behind
// one interface, System, and the prompts they build. A system turns one
// tool-usage question into generated code and a function name. It gets its
// model client and prompts through Env and whatever else it declares in its
// registration's Needs (a retriever, code objects, the scoring sandbox, a
// graph index) through the runner's Resources, and never constructs them;
// it fills its own part of the run record (System.Record). Scoring happens
// elsewhere (runner/scoring).
//
// To add a system, write one file that registers it in init (see single.go);
// the runner, its estimates and its shards know no system by name.
package systems

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/llm"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/runner/graphrag"
	"github.com/mattools-leaderboard/leaderboard/runner/plan"
	"github.com/mattools-leaderboard/leaderboard/runner/retrieval"
)

// Completer is the model client a system calls: *llm.Client, or a fake.
type Completer interface {
	Complete(ctx context.Context, msgs []llm.Message) (*llm.Completion, error)
	CompleteWith(ctx context.Context, msgs []llm.Message, o llm.CallOptions) (*llm.Completion, error)
}

// Env is what every system gets for each question: the model client and
// the prompt texts. What a system needs beyond them (a retriever, code
// objects, the scoring sandbox, a graph index) it declares in its
// registration (Needs) and takes from the runner's Resources when its
// answerer is built (System.Build).
type Env struct {
	LLM     Completer
	Prompts *Prompts
}

// Needs declares what a system takes from the runner beyond Env; the
// runner reads it instead of knowing the systems by name.
type Needs struct {
	// Retriever: a retriever over the configuration's retrieval source and
	// method (Resources.Retriever); the run records the corpus, the method
	// and the top-k.
	Retriever bool
	// CodeObjects: the code objects of an LLM-documentation corpus
	// (retrieval sources 3 and 4; Resources.CodeObjects).
	CodeObjects bool
	// Executor: the scoring sandbox (Resources.Executor); such a system
	// cannot run unscored.
	Executor bool
	// Graph: a graph index of the pymatgen source with LightRAG's prompts,
	// an embeddings client and a chat client (Resources.Graph). Its runs
	// record the index (run extension graph_index, the journal sessions'
	// graph_index) and need the plan's retrieval.embedding endpoint.
	Graph bool
}

// Resources are what the runner provides a system: Record and Build call
// the ones its Needs name. Errors name what could not be provided.
type Resources interface {
	// Retriever returns the retriever of the configuration's retrieval
	// source and method (built, or loaded from the retrieval cache).
	Retriever(ctx context.Context) (retrieval.Retriever, error)
	// CodeObjects returns the code objects behind the configuration's
	// LLM-documentation corpus (retrieval sources 3 and 4).
	CodeObjects() (CodeObjects, error)
	// Executor returns the scoring sandbox's executor, nil when the run
	// has none (an unscored run).
	Executor() Executor
	// GraphInfo describes the graph index the configuration uses, without
	// building it or making any request (dry runs too).
	GraphInfo() (GraphInfo, error)
	// Graph returns the graph index (building it when no complete one is
	// cached) and the clients that query it.
	Graph(ctx context.Context) (GraphEnv, error)
}

// GraphInfo describes a configuration's graph index for its run record.
type GraphInfo struct {
	Corpus            string // the corpus folder (plan graph_rag.corpus)
	CorpusID          string // the corpus's content ID
	IndexModel        string // the model that extracted the graph
	EmbeddingModel    string
	EmbeddingEndpoint string // redacted (llm.RedactURL)
	// SendTemperature: the plan sends the model's sampling parameters
	// (plan graph_rag.send_temperature); LightRAG 1.3.x sends none.
	SendTemperature bool
	// PromptSHA256 maps each of LightRAG's prompt files (under its
	// prompts folder) to its hex SHA-256.
	PromptSHA256 map[string]string
}

// GraphEnv is a graph index with the clients that query it.
type GraphEnv struct {
	Graph    *graphrag.Graph
	Prompts  *graphrag.Prompts // LightRAG's prompt texts
	Embedder graphrag.Embedder // the index's embedding model
	// LLM is the chat client for the queries: the model without sampling
	// parameters, as LightRAG sends none (docs/graphrag.md §4).
	LLM Completer
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
	// GraphMode is graph-rag's query mode (LightRAG's QueryParam.mode;
	// "" = DefaultGraphMode).
	GraphMode string
	// Settings is the configuration's plan.Configuration.Settings: a
	// system's own settings, as its Registration.Plan.Expand set them.
	Settings any
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
	// Queries are the retrieval queries the question sends, each embedded
	// once by a dense retrieval or a graph index (0 without retrieval).
	Queries int
}

// noRecord is embedded by systems that record nothing of their own.
type noRecord struct{}

func (noRecord) Record(Resources, *results.Run) error { return nil }

// System is an LLM system under test, configured for one configuration.
type System interface {
	// Name returns the system's id.
	Name() results.System
	// Record fills the system's part of run record r (system parameters,
	// provenance of the prompt texts it sends, generation settings)
	// from res, without making any request (dry runs too).
	Record(res Resources, r *results.Run) error
	// Build returns the answerer of one run, given the resources its
	// registration's Needs name. Errors are failures to obtain them.
	Build(ctx context.Context, res Resources) (Answerer, error)
	// Estimate forecasts the model usage of q without calling the model.
	Estimate(q *datasets.Question, p *Prompts) Estimate
}

// Answerer answers the tool-usage questions of one run.
type Answerer interface {
	// Generate answers q. Errors are infrastructure failures only (the model
	// could not be reached after retries, ctx ended); an unusable answer is
	// a Generation with Extracted false, for scoring to judge.
	Generate(ctx context.Context, q *datasets.Question, env Env) (Generation, error)
}

// Registration is a system as registered, whole: its name, what the site
// and the plan know of it (title, board, retrieval sources), its plan
// settings, what it needs from the runner and how it is configured.
type Registration struct {
	Name results.System
	// Info is its title, description, board and retrieval sources
	// (results.RegisterSystemInfo; Name is set from the registration's).
	// Nil for the paper's systems, which results describes (results
	// registered.go) so that the site, which never imports the runner,
	// shows them. Without either, the system runs with no retrieval
	// source and the site shows its id.
	Info *results.SystemInfo
	// Plan is its plan section, decoded and checked by itself, and the
	// configurations its settings make (plan.RegisterSystemSpec).
	Plan  plan.SystemSpec
	Needs Needs
	New   func(Params) (System, error)
}

var registry = map[results.System]Registration{}

// Register adds a system; it is called from init only (this package's
// systems, or a test's) and panics on a duplicate or an incomplete
// registration, or on one of the audit's systems. A system that is not one
// of the paper's is also registered with results (results.RegisterSystem),
// so that plans may name it and its results files validate.
func Register(r Registration) {
	if r.Name == "" || r.New == nil {
		panic("systems: a registration needs a name and New")
	}
	if _, dup := registry[r.Name]; dup {
		panic("systems: duplicate registration of " + string(r.Name))
	}
	if r.Name.IsAudit() {
		panic("systems: " + string(r.Name) + " is one of the benchmark audit's systems, not a system under test")
	}
	if r.Info != nil {
		info := *r.Info
		info.Name = r.Name
		results.RegisterSystemInfo(info) // registers it with results too
	} else if !results.KnownSystem(r.Name) {
		results.RegisterSystem(r.Name) // its runs' results files may name it
	}
	plan.RegisterSystemSpec(r.Name, r.Plan)
	registry[r.Name] = r
}

// NeedsOf returns what the registered system name needs (nothing for an
// unknown name).
func NeedsOf(name results.System) Needs { return registry[name].Needs }

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
	reg, ok := registry[name]
	if !ok {
		known := "a system of the MatTools paper"
		if !slices.Contains(results.Systems, name) {
			known = "not a known system"
		}
		return nil, fmt.Errorf("system %q (%s) is not available in this runner; available: %v", name, known, Names())
	}
	return reg.New(p)
}

// Given is a Resources of values the caller holds already (tests, tools
// that answer questions outside the runner). Asking for one it does not
// hold is an error naming it; Executor returns Execute, nil or not.
type Given struct {
	Search   retrieval.Retriever
	Objects  CodeObjects
	Execute  Executor
	Info     *GraphInfo
	GraphEnv *GraphEnv
}

var _ Resources = Given{}

func (g Given) Retriever(context.Context) (retrieval.Retriever, error) {
	if g.Search == nil {
		return nil, errors.New("systems: no retriever given")
	}
	return g.Search, nil
}

func (g Given) CodeObjects() (CodeObjects, error) {
	if g.Objects == nil {
		return nil, errors.New("systems: no code objects given")
	}
	return g.Objects, nil
}

func (g Given) Executor() Executor { return g.Execute }

func (g Given) GraphInfo() (GraphInfo, error) {
	if g.Info == nil {
		return GraphInfo{}, errors.New("systems: no graph index described")
	}
	return *g.Info, nil
}

func (g Given) Graph(context.Context) (GraphEnv, error) {
	if g.GraphEnv == nil {
		return GraphEnv{}, errors.New("systems: no graph index given")
	}
	return *g.GraphEnv, nil
}
