// Package plan reads a run plan: a TOML file listing the models (each an
// OpenAI-compatible endpoint with its generation parameters and optional
// prices), systems, retrieval sources, benchmarks and rounds to run, with
// concurrency and rate limits. It expands a plan into configurations and
// runs (configuration × round). It makes no request and reads no API key:
// a plan only names the environment variable that holds each key.
//
// See plans/paper.toml in the repository for a documented example.
package plan

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/mattools-leaderboard/leaderboard/results"
)

// Defaults of a plan.
const (
	DefaultRounds      = 3                 // the paper's three rounds
	DefaultConcurrency = 4                 // questions in flight per run
	DefaultTemperature = 0.7               // MatTools' temperature everywhere (docs/mattools.md §5)
	DefaultTimeout     = 600 * time.Second // per request, as MatTools' clients
	DefaultMaxRetries  = 5
	// Token estimates for --dry-run costs. 4 bytes per token over-estimates
	// the recorded GPT usage slightly (gpt-4o: 3,477 bytes → 711 prompt
	// tokens, 4.9 bytes/token); 800 completion tokens is the recorded
	// gpt-4o single-LLM answer size (≈ 700–750 tokens).
	DefaultBytesPerToken           = 4.0
	DefaultCompletionTokensToolUse = 800
	DefaultCompletionTokensQA      = 10
)

// Plan is a parsed and validated run plan.
type Plan struct {
	// Path is the file the plan was read from ("" when parsed from bytes).
	Path string `toml:"-"`
	// Rounds is how many times each configuration runs (rounds 1…Rounds).
	Rounds int `toml:"rounds"`
	// Concurrency is the number of questions in flight per run; a model's
	// MaxConcurrency lowers it for that model.
	Concurrency int `toml:"concurrency"`
	// Benchmarks to run: "tool-usage", "qa-code", "qa-doc".
	Benchmarks []results.Benchmark `toml:"benchmarks"`
	// Systems to run on the tool-usage benchmark (QA runs use single-llm only,
	// as the paper). Default ["single-llm"].
	Systems []results.System `toml:"systems"`
	// RetrievalSources (1–4) for the systems that retrieve; systems without
	// retrieval run with source 0 regardless.
	RetrievalSources []int `toml:"retrieval_sources"`
	// Retrieval configures how the retrieving systems retrieve.
	Retrieval Retrieval     `toml:"retrieval"`
	ToolUsage ToolUsage     `toml:"tool_usage"`
	Sandbox   Sandbox       `toml:"sandbox"`
	QASets    map[string]QA `toml:"qa_sets"` // keyed by benchmark: "qa-code", "qa-doc"
	// FolderBenchmarks are tool-usage benchmarks loaded from folders
	// (datasets.LoadFolder: MatTools' layout plus a benchmark.json), keyed
	// by their name, which benchmarks then lists; see RegisterFolder.
	FolderBenchmarks map[string]FolderBenchmark `toml:"folder_benchmarks"`
	Models           []Model                    `toml:"models"`
	Estimate         EstimateParams             `toml:"estimate"`
	// settings are the systems' own settings, each decoded from its
	// section by its SystemSpec (Settings).
	settings map[results.System]any
}

// Retrieval configures the retrievers (runner/retrieval) of the retrieving
// systems. Each method in Methods makes configurations of its own: BM25 and
// dense runs are never averaged together, nor with the paper's Chroma runs.
type Retrieval struct {
	// Methods are "bm25" (embedded, no server, no key: the default) and/or
	// "embedding" (dense vectors from an OpenAI-compatible embeddings
	// endpoint; needs Embedding).
	Methods []string `toml:"methods"`
	// TopK is the documents retrieved per query; default 5 (the paper).
	TopK int `toml:"top_k"`
	// Embedding is the embeddings endpoint of the "embedding" method (and
	// of source 3's semantic chunking).
	Embedding *Embedding `toml:"embedding"`
	// LLMDocs is the LLM-written documentation of sources 3 and 4: a JSON
	// list in upstream's schema (MatTools'
	// documents_llm_doc_gemini_20_flash_full.json, or cmd/gen-docs'
	// output). "" means the upstream file in the data root
	// (src/documents_llm_doc_gemini_20_flash_full.json). Environment
	// variables are expanded; a relative path is relative to the plan.
	LLMDocs string `toml:"llm_docs"`
	// LLMDocsChunked, when given, is upstream's chunked file of source 3
	// (documents_llm_doc_gemini_20_flash.json.zip), used as is instead of
	// chunking LLMDocs.
	LLMDocsChunked string `toml:"llm_docs_chunked"`
}

// Embedding is an OpenAI-compatible embeddings endpoint and model.
type Embedding struct {
	Model   string `toml:"model"`    // e.g. "text-embedding-3-large" (the paper's)
	BaseURL string `toml:"base_url"` // e.g. "https://api.openai.com/v1"
	// APIKeyEnv is the NAME of the environment variable holding the key.
	APIKeyEnv         string   `toml:"api_key_env"`
	BatchSize         int      `toml:"batch_size"`          // inputs per request; default 100
	RequestsPerMinute float64  `toml:"requests_per_minute"` // 0 = unlimited
	Timeout           Duration `toml:"timeout"`             // per request; default 600s
	RetryTimeouts     *bool    `toml:"retry_timeouts"`      // as Model.RetryTimeouts
	// Price is in US dollars per million input tokens; cost is estimated only when set.
	PricePerMillion float64 `toml:"price_per_million"`
}

// Retrieval methods a plan may name (runner/retrieval).
const (
	MethodBM25      = "bm25"
	MethodEmbedding = "embedding"
)

// DefaultTopK is the documents retrieved per query (MatTools: k = 5).
const DefaultTopK = 5

// ToolUsage configures the tool-usage benchmark.
type ToolUsage struct {
	// ScoringProtocols are the protocols tool-usage runs are scored with,
	// each written as a run of its own: "mattools-v1", "mattools-v1-strict"
	// or both (the default). One execution of the generated code in the
	// sandbox yields the verdicts of both, so asking for both costs no more
	// model calls or executions than asking for one.
	ScoringProtocols []string `toml:"scoring_protocols"`
	// BenchmarkVersion is the version of MatTools' tool-usage benchmark
	// the plan's tool-usage runs answer: "2025-05" (the default, the
	// published questions) or a corrected version of it, e.g.
	// "2025-05-corrected-1" (datasets/corrections.json;
	// docs/benchmark-audit.md, "The corrected version"). Runs of another
	// version are scored and shown apart, never mixed. Folder benchmarks
	// have the version of their manifest.
	BenchmarkVersion string `toml:"benchmark_version"`
}

// Sandbox configures where generated code runs (sandbox).
type Sandbox struct {
	// Backend is "auto" (the default: local, else docker, else an error;
	// never unsandboxed), "local" (bubblewrap) or "docker".
	Backend string `toml:"backend"`
	// Timeout is the wall-clock limit of each execution; default 1200s,
	// a safety net beside the CPU-time limit of tool-usage scoring
	// (scoring.DefaultLimits, docs/benchmark-audit.md; MatTools had none).
	Timeout Duration `toml:"timeout"`
	// Slots is the number of executions at once; 0 = the number of CPUs.
	Slots int `toml:"slots"`
}

// Sandbox backends a plan may name (sandbox).
var SandboxBackends = []string{"auto", "local", "docker"}

// DefaultSandboxTimeout is the default wall-clock limit of one execution:
// scoring.DefaultLimits' (runner tests check that they agree).
const DefaultSandboxTimeout = 1200 * time.Second

// QA is one QA question set.
type QA struct {
	// Path is the set in MatTools' upstream JSON format, plain or as the
	// upstream .json.zip. Environment variables ($MATTOOLS_DATA) are
	// expanded; a relative path is relative to the plan file.
	Path string `toml:"path"`
	// Name is the question-set name recorded on the runs: "all" for the
	// whole upstream set (checked: 34,621 code / 34,604 doc questions),
	// otherwise a short name of your own (e.g. "sample-20").
	Name string `toml:"name"`
	// Variant is "" (the set as published) or one of QAVariants: "balanced"
	// (each item's choice texts permuted so that each letter is correct
	// for a quarter of the items) or "clean" (without the malformed and
	// leaked items), derived from Path by datasets/qaaudit
	// (docs/qa-validity.md). A variant is a question set of its own, named
	// "<name>-<variant>" (QuestionSetName), never averaged with the set.
	Variant string `toml:"variant"`
}

// QAVariants are the values of QA.Variant besides "" (datasets/qaaudit's
// Variants).
var QAVariants = []string{"balanced", "clean"}

// QuestionSetName is the question-set name the runs of q record: Name, or
// Name + "-" + Variant for a variant (e.g. "sample-240-balanced").
func (q QA) QuestionSetName() string {
	if q.Variant == "" {
		return q.Name
	}
	return q.Name + "-" + q.Variant
}

// Model is one model under test behind an OpenAI-compatible endpoint.
type Model struct {
	Name        string `toml:"name"`         // the model id sent to the endpoint, e.g. "gpt-4o-2024-08-06"
	DisplayName string `toml:"display_name"` // optional, e.g. "GPT-4o"
	Group       string `toml:"group"`        // optional, e.g. "closed-source"
	// BaseURL is the endpoint, e.g. "https://api.openai.com/v1". "{round}"
	// is replaced by the round number (for the replay server's /roundN/ paths).
	BaseURL string `toml:"base_url"`
	// APIKeyEnv is the NAME of the environment variable holding the API key
	// ("" = send no key). The key itself never appears in a plan.
	APIKeyEnv string `toml:"api_key_env"`

	// Generation parameters. Temperature defaults to 0.7 (the paper); the
	// others are sent only when set.
	Temperature *float64 `toml:"temperature"`
	TopP        *float64 `toml:"top_p"`
	MaxTokens   *int     `toml:"max_tokens"`
	Seed        *int64   `toml:"seed"`

	Timeout           Duration `toml:"timeout"`             // per request; default 600s (MatTools)
	MaxRetries        *int     `toml:"max_retries"`         // default 5
	RequestsPerMinute float64  `toml:"requests_per_minute"` // 0 = unlimited
	MaxConcurrency    int      `toml:"max_concurrency"`     // 0 = the plan's concurrency
	// RetryTimeouts says whether a request that timed out is retried;
	// unset: yes, unless base_url is local (llm.IsLocal), whose server
	// keeps computing a request its client gave up on (llm.Config.RetryTimeouts).
	RetryTimeouts *bool `toml:"retry_timeouts"`

	// Price is in US dollars per million tokens; cost is reported only when set.
	Price *Price `toml:"price"`

	// JSONMode sends response_format {"type": "json_object"} on the calls
	// where MatTools' agentic RAG asks for JSON (reranking, NER, the final
	// answer). Default true, as upstream sends it to every model but
	// gemini-2.0-flash-thinking; set false for a server that rejects it.
	JSONMode *bool `toml:"json_mode"`
}

// Price is a model's price in US dollars per million tokens.
type Price struct {
	InputPerMillion  float64 `toml:"input_per_million"`
	OutputPerMillion float64 `toml:"output_per_million"`
}

// Cost returns the cost in US dollars of the given token counts.
func (p *Price) Cost(promptTokens, completionTokens int64) float64 {
	return (float64(promptTokens)*p.InputPerMillion + float64(completionTokens)*p.OutputPerMillion) / 1e6
}

// EstimateParams tune the --dry-run token estimates.
type EstimateParams struct {
	BytesPerToken              float64 `toml:"bytes_per_token"`
	CompletionTokensToolUsage  int     `toml:"completion_tokens_tool_usage"`
	CompletionTokensQAQuestion int     `toml:"completion_tokens_qa"`
}

// Duration is a TOML string such as "600s" or "2m".
type Duration struct {
	time.Duration
	set bool // given in the plan (so that an explicit "0s" is refused, not defaulted)
}

// UnmarshalText parses a Go duration string.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return err
	}
	if v < 0 {
		return errors.New("negative duration")
	}
	d.Duration, d.set = v, true
	return nil
}

// Bounds of a plan's values: beyond them a value is a mistake (concurrency
// = 100000000 would start that many goroutines and buffers before the first
// request), so Parse refuses it naming the field.
const (
	MaxConcurrency          = 1024 // concurrency and models[].max_concurrency
	MaxRounds               = 100
	MaxSandboxSlots         = 256
	MinTimeout              = time.Second
	MaxSandboxTimeout       = time.Hour     // [sandbox] timeout
	MaxRequestTimeout       = 2 * time.Hour // models[].timeout, [retrieval.embedding] timeout
	MaxRetriesLimit         = 20
	MaxTemperature, MaxTopP = 2.0, 1.0
)

// inRange reports lo ≤ v ≤ hi; false for NaN (every comparison with NaN is
// false, so "v < lo || v > hi" would let NaN through).
func inRange(v, lo, hi float64) bool { return v >= lo && v <= hi }

// nonNegative reports whether v is a finite number ≥ 0 (not NaN, not +Inf).
func nonNegative(v float64) bool { return inRange(v, 0, math.MaxFloat64) }

// Label is the model as shown to the user (progress, logs, the table of
// runs): its display_name, or its name when it has none.
func (m *Model) Label() string {
	if m.DisplayName != "" {
		return m.DisplayName
	}
	return m.Name
}

// BaseURLFor returns the model's base URL for round r ("{round}" replaced).
func (m *Model) BaseURLFor(round int) string {
	return strings.ReplaceAll(m.BaseURL, "{round}", strconv.Itoa(round))
}

// Error is a problem in a plan; it prints as "file: field: reason" or, for
// TOML syntax errors, "file:line: reason".
type Error struct {
	File  string
	Line  int
	Field string
	Err   error
}

func (e *Error) Error() string {
	s := e.File
	if s == "" {
		s = "plan"
	}
	if e.Line > 0 {
		s += ":" + strconv.Itoa(e.Line)
	}
	if e.Field != "" {
		s += ": " + e.Field
	}
	return s + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// Load reads and validates the plan at path.
func Load(path string) (*Plan, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(data, path)
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Parse parses and validates a plan; name is used in errors and to resolve
// relative QA paths. Unknown keys are errors (they are usually typos), as
// are missing or invalid values; errors are *Error values, joined.
//
// A system's own section ([self_reflection], [graph_rag], [agentic], …)
// and the configurations its settings make come from its SystemSpec,
// which the system registers from its file in runner/systems: a program
// that parses plans naming such systems must link runner/systems (the
// runner does; a test of this package links it in systems_link_test.go),
// else their sections are unknown keys and each such system makes one
// configuration without its settings. The sections are checked in the
// systems' registration order (agentic RAG, graph-rag, self-reflection);
// the errors' texts do not depend on it.
func Parse(data []byte, name string) (*Plan, error) {
	p := &Plan{Path: name}
	md, err := toml.Decode(string(data), p)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, &Error{File: name, Line: pe.Position.Line, Err: errors.New(pe.Message)}
		}
		return nil, &Error{File: name, Err: err}
	}
	c := &checker{p: p, md: md, name: name}
	unknown, err := c.decodeSections(string(data))
	if err != nil {
		return nil, &Error{File: name, Err: err}
	}
	c.keys(unknown)
	c.runs()
	toolUsage := c.benchmarks()
	retrieves := c.systems()
	c.retrieval(retrieves)
	c.toolUsage(toolUsage)
	c.sandbox()
	c.checkSections()
	c.models()
	c.estimate()
	if len(c.errs) > 0 {
		return nil, errors.Join(c.errs...)
	}
	return p, nil
}

// checker validates a decoded plan section by section (Parse's stages, in
// the order their errors are reported), setting absent values to their
// defaults.
type checker struct {
	p    *Plan
	md   toml.MetaData
	name string
	errs []error
}

func (c *checker) add(field, format string, a ...any) {
	c.errs = append(c.errs, &Error{File: c.name, Field: field, Err: fmt.Errorf(format, a...)})
}

// duration checks a timeout: set to def when absent, else within lo–hi.
func (c *checker) duration(field string, d *Duration, def, lo, hi time.Duration) {
	if !d.set && d.Duration == 0 {
		d.Duration = def
		return
	}
	if d.Duration < lo || d.Duration > hi {
		c.add(field, "is %s; want %s–%s", d.Duration, lo, hi)
	}
}

// path expands $VARs in a path of the plan and resolves it against the
// plan's folder when relative.
func (c *checker) path(s string) string {
	s = os.ExpandEnv(s)
	if !filepath.IsAbs(s) && c.name != "" {
		s = filepath.Join(filepath.Dir(c.name), s)
	}
	return s
}

// keys reports the keys the plan's types do not have, and those of the
// systems' sections that their settings do not have (unknown).
func (c *checker) keys(unknown map[string]bool) {
	for _, k := range c.md.Undecoded() {
		if spec, ok := sectionSpec(k[0]); ok && spec.Section != "" && !unknown[k.String()] {
			continue
		}
		if k[len(k)-1] == "api_key" {
			c.add(k.String(), "API keys never go in a plan: put the key in an environment variable and name it in api_key_env")
			continue
		}
		if k.String() == "tool_usage.scoring_protocol" {
			// The message of a key renamed in plan format history: it names
			// the protocol of its example as the old key's users wrote it.
			c.add(k.String(), "is now a list: scoring_protocols = [\"%s\"] (or both protocols, the default)", results.ProtocolMatToolsV1)
			continue
		}
		c.add(k.String(), "unknown key")
	}
}

// runs checks rounds and concurrency.
func (c *checker) runs() {
	p := c.p
	if !c.md.IsDefined("rounds") {
		p.Rounds = DefaultRounds
	}
	if p.Rounds < 1 || p.Rounds > MaxRounds {
		c.add("rounds", "is %d; want 1–%d", p.Rounds, MaxRounds)
	}
	if !c.md.IsDefined("concurrency") {
		p.Concurrency = DefaultConcurrency
	}
	if p.Concurrency < 1 || p.Concurrency > MaxConcurrency {
		c.add("concurrency", "is %d; want 1–%d", p.Concurrency, MaxConcurrency)
	}
}

// benchmarks checks benchmarks, registers folder_benchmarks and checks
// qa_sets; it returns the plan's tool-usage-kind benchmarks.
func (c *checker) benchmarks() []results.Benchmark {
	p := c.p
	if len(p.Benchmarks) == 0 {
		p.Benchmarks = []results.Benchmark{results.DefaultBenchmark(results.KindToolUsage)}
	}
	for k, fb := range p.FolderBenchmarks {
		if fb.Path == "" {
			c.add("folder_benchmarks."+k+".path", "is required: the benchmark's folder (with its benchmark.json)")
			continue
		}
		fb.Path = c.path(fb.Path)
		p.FolderBenchmarks[k] = fb
		if info, err := RegisterFolder(fb.Path); err != nil {
			c.add("folder_benchmarks."+k+".path", "%v", err)
		} else if string(info.Name) != k {
			c.add("folder_benchmarks."+k, "the folder %s holds benchmark %q; name the table after it", fb.Path, info.Name)
		}
	}
	var toolUsage []results.Benchmark
	for i, b := range p.Benchmarks {
		if _, ok := results.LookupBenchmark(b); !ok {
			c.add(fmt.Sprintf("benchmarks[%d]", i), "unknown benchmark %q; want one of %v", b, results.BenchmarkNames())
		}
		switch b.Kind() {
		case results.KindMultipleChoice:
			if qa, ok := p.QASets[string(b)]; !ok || qa.Path == "" {
				c.add("qa_sets."+string(b)+".path", "is required to run the %s benchmark (the question set in MatTools' JSON format)", b)
			}
		case results.KindToolUsage:
			toolUsage = append(toolUsage, b)
		}
	}
	for k, qa := range p.QASets {
		if results.Benchmark(k).Kind() != results.KindMultipleChoice {
			c.add("qa_sets."+k, "unknown QA benchmark; want %s", orList(results.BenchmarksOf("", results.KindMultipleChoice)))
			continue
		}
		if qa.Name == "" {
			qa.Name = results.QuestionSetAll
		}
		if qa.Variant != "" && !slices.Contains(QAVariants, qa.Variant) {
			c.add("qa_sets."+k+".variant", "unknown variant %q; want one of %v (or none: the set as published)", qa.Variant, QAVariants)
		}
		if qa.Path != "" {
			qa.Path = c.path(qa.Path)
		}
		p.QASets[k] = qa
	}
	return toolUsage
}

// systems checks systems and retrieval_sources; it reports whether a
// system of the plan retrieves.
func (c *checker) systems() (retrieves bool) {
	p := c.p
	if len(p.Systems) == 0 {
		p.Systems = []results.System{results.DefaultSystem}
	}
	for i, s := range p.Systems {
		if under := results.SystemsUnderTest(); !slices.Contains(under, s) {
			c.add(fmt.Sprintf("systems[%d]", i), "unknown system %q; want one of %v", s, under)
		}
		retrieves = retrieves || UsesRetrieval(s)
	}
	for i, src := range p.RetrievalSources {
		if src < 1 || src > 4 {
			c.add(fmt.Sprintf("retrieval_sources[%d]", i), "is %d; want 1–4", src)
		}
	}
	if retrieves && len(p.RetrievalSources) == 0 {
		c.add("retrieval_sources", "is required by the retrieving systems in systems")
	}
	return retrieves
}

// retrieval checks [retrieval] and its embedding model.
func (c *checker) retrieval(retrieves bool) {
	r := &c.p.Retrieval
	if len(r.Methods) == 0 {
		r.Methods = []string{MethodBM25}
	}
	for i, m := range r.Methods {
		switch {
		case m != MethodBM25 && m != MethodEmbedding:
			c.add(fmt.Sprintf("retrieval.methods[%d]", i), "is %q; want %s or %s", m, MethodBM25, MethodEmbedding)
		case slices.Index(r.Methods, m) != i:
			c.add(fmt.Sprintf("retrieval.methods[%d]", i), "%q appears twice", m)
		}
	}
	if r.TopK == 0 {
		r.TopK = DefaultTopK
	}
	for _, f := range []*string{&r.LLMDocs, &r.LLMDocsChunked} {
		if *f != "" {
			*f = c.path(*f)
		}
	}
	if r.TopK < 1 || r.TopK > 100 {
		c.add("retrieval.top_k", "is %d; want 1–100", r.TopK)
	}
	if e := r.Embedding; e != nil {
		if e.Model == "" {
			c.add("retrieval.embedding.model", "is empty")
		}
		if !strings.HasPrefix(e.BaseURL, "http://") && !strings.HasPrefix(e.BaseURL, "https://") {
			c.add("retrieval.embedding.base_url", "must start with http:// or https://")
		}
		if e.APIKeyEnv != "" && !envName.MatchString(e.APIKeyEnv) {
			c.add("retrieval.embedding.api_key_env", "must be the NAME of an environment variable (letters, digits, _), not the key itself")
		}
		if e.BatchSize == 0 {
			e.BatchSize = 100
		}
		if e.BatchSize < 1 || e.BatchSize > 2048 {
			c.add("retrieval.embedding.batch_size", "is %d; want 1–2048", e.BatchSize)
		}
		if !nonNegative(e.RequestsPerMinute) {
			c.add("retrieval.embedding.requests_per_minute", "is %g; want a finite number ≥ 0 (0 = unlimited)", e.RequestsPerMinute)
		}
		if !nonNegative(e.PricePerMillion) {
			c.add("retrieval.embedding.price_per_million", "is %g; want a finite number ≥ 0", e.PricePerMillion)
		}
		c.duration("retrieval.embedding.timeout", &e.Timeout, DefaultTimeout, MinTimeout, MaxRequestTimeout)
	}
	if retrieves && slices.Contains(r.Methods, MethodEmbedding) && r.Embedding == nil {
		c.add("retrieval.embedding", "is required by the method %q (model, base_url, api_key_env)", MethodEmbedding)
	}
}

// toolUsage checks [tool_usage] against the plan's tool-usage benchmarks.
func (c *checker) toolUsage(toolUsage []results.Benchmark) {
	p := c.p
	// tool_usage.scoring_protocols apply to every tool-usage benchmark of
	// the plan that they score (results.ScoredProtocols); the default is
	// all of those benchmarks' scored protocols (MatTools' tool usage:
	// mattools-v1 and mattools-v1-strict).
	if len(toolUsage) == 0 {
		toolUsage = []results.Benchmark{results.DefaultBenchmark(results.KindToolUsage)}
	}
	var scoredTU []string
	for _, b := range toolUsage {
		for _, id := range results.ScoredProtocols(b) {
			if !slices.Contains(scoredTU, id) {
				scoredTU = append(scoredTU, id)
			}
		}
	}
	if !c.md.IsDefined("tool_usage", "scoring_protocols") {
		p.ToolUsage.ScoringProtocols = scoredTU
	}
	if len(p.ToolUsage.ScoringProtocols) == 0 {
		c.add("tool_usage.scoring_protocols", "is empty; want one or more of %s", strings.Join(scoredTU, ", "))
	}
	for i, sp := range p.ToolUsage.ScoringProtocols {
		if !slices.Contains(scoredTU, sp) {
			c.add(fmt.Sprintf("tool_usage.scoring_protocols[%d]", i), "is %q; want %s", sp, orList(scoredTU))
		} else if slices.Index(p.ToolUsage.ScoringProtocols, sp) != i {
			c.add(fmt.Sprintf("tool_usage.scoring_protocols[%d]", i), "%q appears twice", sp)
		}
	}
	for _, b := range toolUsage {
		if !slices.ContainsFunc(p.ToolUsage.ScoringProtocols, func(id string) bool { return slices.Contains(results.ScoredProtocols(b), id) }) && len(p.ToolUsage.ScoringProtocols) > 0 {
			c.add("tool_usage.scoring_protocols", "has no protocol that scores the %s benchmark; want one or more of %s", b, strings.Join(results.ScoredProtocols(b), ", "))
		}
	}
	// benchmark_version is a version of the default tool-usage benchmark
	// (MatTools' tool usage: 2025-05, the default, or a corrected version).
	info, _ := results.LookupBenchmark(results.DefaultBenchmark(results.KindToolUsage))
	if v := p.ToolUsage.BenchmarkVersion; v == "" && len(info.Versions) > 0 {
		p.ToolUsage.BenchmarkVersion = info.Versions[0].ID
	} else if !slices.ContainsFunc(info.Versions, func(bv results.BenchmarkVersion) bool { return bv.ID == v }) {
		var ids []string
		for _, bv := range info.Versions {
			ids = append(ids, bv.ID)
		}
		c.add("tool_usage.benchmark_version", "is %q; want %s", v, orList(ids))
	}
}

// sandbox checks [sandbox].
func (c *checker) sandbox() {
	p := c.p
	if p.Sandbox.Backend == "" {
		p.Sandbox.Backend = "auto"
	}
	if !slices.Contains(SandboxBackends, p.Sandbox.Backend) {
		c.add("sandbox.backend", "is %q; want one of %v", p.Sandbox.Backend, SandboxBackends)
	}
	c.duration("sandbox.timeout", &p.Sandbox.Timeout, DefaultSandboxTimeout, MinTimeout, MaxSandboxTimeout)
	if p.Sandbox.Slots < 0 || p.Sandbox.Slots > MaxSandboxSlots {
		c.add("sandbox.slots", "is %d; want 0–%d (0 = the number of CPUs)", p.Sandbox.Slots, MaxSandboxSlots)
	}
}

// models checks each [[models]] entry.
func (c *checker) models() {
	p := c.p
	if len(p.Models) == 0 {
		c.add("models", "no [[models]] given")
	}
	seen := map[string]bool{}
	for i := range p.Models {
		m := &p.Models[i]
		f := fmt.Sprintf("models[%d]", i)
		if m.Name == "" {
			c.add(f+".name", "is empty")
		} else if seen[m.Name] {
			c.add(f+".name", "%q appears twice", m.Name)
		}
		seen[m.Name] = true
		if m.BaseURL == "" {
			c.add(f+".base_url", "is empty")
		} else if !strings.HasPrefix(m.BaseURL, "http://") && !strings.HasPrefix(m.BaseURL, "https://") {
			c.add(f+".base_url", "must start with http:// or https://")
		}
		if m.APIKeyEnv != "" && !envName.MatchString(m.APIKeyEnv) {
			// Never echo the value: it may be a key pasted by mistake.
			c.add(f+".api_key_env", "must be the NAME of an environment variable (letters, digits, _), not the key itself")
		}
		if m.JSONMode == nil {
			on := true
			m.JSONMode = &on
		}
		if m.Temperature == nil {
			t := DefaultTemperature
			m.Temperature = &t
		}
		if !inRange(*m.Temperature, 0, MaxTemperature) {
			c.add(f+".temperature", "is %g; want 0–%g", *m.Temperature, MaxTemperature)
		}
		if m.TopP != nil && !inRange(*m.TopP, 0, MaxTopP) {
			c.add(f+".top_p", "is %g; want 0–%g", *m.TopP, MaxTopP)
		}
		if m.MaxTokens != nil && *m.MaxTokens < 1 {
			c.add(f+".max_tokens", "is %d; want ≥ 1", *m.MaxTokens)
		}
		c.duration(f+".timeout", &m.Timeout, DefaultTimeout, MinTimeout, MaxRequestTimeout)
		if m.MaxRetries == nil {
			n := DefaultMaxRetries
			m.MaxRetries = &n
		}
		if *m.MaxRetries < 0 || *m.MaxRetries > MaxRetriesLimit {
			c.add(f+".max_retries", "is %d; want 0–%d", *m.MaxRetries, MaxRetriesLimit)
		}
		if !nonNegative(m.RequestsPerMinute) {
			c.add(f+".requests_per_minute", "is %g; want a finite number ≥ 0 (0 = unlimited)", m.RequestsPerMinute)
		}
		if m.MaxConcurrency < 0 || m.MaxConcurrency > MaxConcurrency {
			c.add(f+".max_concurrency", "is %d; want 0–%d (0 = the plan's concurrency)", m.MaxConcurrency, MaxConcurrency)
		}
		if m.Price != nil {
			if !nonNegative(m.Price.InputPerMillion) {
				c.add(f+".price.input_per_million", "is %g; want a finite number ≥ 0", m.Price.InputPerMillion)
			}
			if !nonNegative(m.Price.OutputPerMillion) {
				c.add(f+".price.output_per_million", "is %g; want a finite number ≥ 0", m.Price.OutputPerMillion)
			}
		}
	}
}

// estimate checks [estimate]: absent values take the defaults; given ones
// must be finite and positive (0, negative, NaN or Inf would make every
// estimate meaningless).
func (c *checker) estimate() {
	e := &c.p.Estimate
	if !c.md.IsDefined("estimate", "bytes_per_token") {
		e.BytesPerToken = DefaultBytesPerToken
	} else if !inRange(e.BytesPerToken, math.SmallestNonzeroFloat64, math.MaxFloat64) {
		c.add("estimate.bytes_per_token", "is %g; want a finite number > 0", e.BytesPerToken)
	}
	if !c.md.IsDefined("estimate", "completion_tokens_tool_usage") {
		e.CompletionTokensToolUsage = DefaultCompletionTokensToolUse
	} else if e.CompletionTokensToolUsage < 1 {
		c.add("estimate.completion_tokens_tool_usage", "is %d; want ≥ 1", e.CompletionTokensToolUsage)
	}
	if !c.md.IsDefined("estimate", "completion_tokens_qa") {
		e.CompletionTokensQAQuestion = DefaultCompletionTokensQA
	} else if e.CompletionTokensQAQuestion < 1 {
		c.add("estimate.completion_tokens_qa", "is %d; want ≥ 1", e.CompletionTokensQAQuestion)
	}
}

// UsesRetrieval reports whether system s retrieves from the plan's
// retrieval sources (its results.SystemInfo.Retrieval.PlanSources: LLM-RAG,
// agentic RAG, self-reflection RAG); the others run with source 0 or a
// source of their own.
func UsesRetrieval(s results.System) bool {
	info, _ := results.LookupSystem(s)
	return info.Retrieval.PlanSources
}

// Configuration is one configuration of a plan before scoring: benchmark ×
// system × retrieval source × model. Each of its ScoringProtocols makes a
// configuration of the results of its own (results.Configuration), all
// from the same generated answers.
type Configuration struct {
	Benchmark       results.Benchmark
	System          results.System
	RetrievalSource int
	// RetrievalMethod is "bm25" or "embedding" for retrieving systems, ""
	// otherwise; TopK the documents per query (0 without retrieval).
	RetrievalMethod string
	TopK            int
	Model           *Model
	// ScoringProtocols are the protocols the plan asks for, one run each:
	// the plan's tool_usage.scoring_protocols, or mattools-qa-v1 for QA.
	ScoringProtocols []string
	QA               *QA // the question set of a QA configuration
	// Variant, MaxIterations, NameLookup and GraphMode are set by the
	// system's SystemSpec.Expand from its settings ("" and 0 otherwise):
	// the self-reflection variant and its loop bound, agentic RAG's name
	// lookup, graph-rag's query mode.
	Variant       string
	MaxIterations int
	NameLookup    string
	GraphMode     string
	// Settings is any other value the system's Expand sets for its
	// configurations (a system's own settings), given to the system
	// (runner/systems.Params.Settings); nil for the paper's systems.
	Settings any
}

// Run is one configuration in one round (1-based).
type Run struct {
	Configuration
	Round int
}

// Configurations expands the plan in a stable order: benchmarks, then
// systems, then retrieval sources, then retrieval methods, then the
// configurations a system's settings make of each (SystemSpec.Expand:
// self-reflection variants, graph modes), then models, each in plan order.
// A system's retrieval sources are its registration's
// (results.SystemInfo.Retrieval): none (source 0 once), the plan's
// sources and methods with its top_k, some of them only (agentic-rag: 3
// and 4), or a fixed one (graph-rag: source 1, method graph). Multiple-
// choice benchmarks run with the systems that answer them only
// (SystemInfo.MultipleChoice: the single LLM, as the paper).
func (p *Plan) Configurations() []Configuration {
	var out []Configuration
	for _, b := range p.Benchmarks {
		for _, s := range p.Systems {
			info, _ := results.LookupSystem(s)
			if b.Kind() == results.KindMultipleChoice && !info.MultipleChoice {
				continue
			}
			r := info.Retrieval
			sources, methods, topK := []int{0}, []string{""}, 0
			switch {
			case r.Fixed != nil:
				sources, methods, topK = []int{r.Fixed.Source}, []string{r.Fixed.Method}, r.Fixed.TopK
			case r.PlanSources:
				sources, methods, topK = p.RetrievalSources, p.Retrieval.Methods, p.Retrieval.TopK
			}
			spec := specs[s]
			for _, src := range sources {
				if len(r.Only) > 0 && !slices.Contains(r.Only, src) {
					continue
				}
				for _, method := range methods {
					c := Configuration{Benchmark: b, System: s, RetrievalSource: src, RetrievalMethod: method}
					if method != "" {
						c.TopK = topK
					}
					variants := []Configuration{c}
					if spec.Expand != nil {
						variants = spec.Expand(p.settings[s], c)
					}
					for _, v := range variants {
						for i := range p.Models {
							c := v
							c.Model = &p.Models[i]
							switch b.Kind() {
							case results.KindMultipleChoice:
								qa := p.QASets[string(b)]
								c.QA, c.ScoringProtocols = &qa, results.ScoredProtocols(b)
							case results.KindToolUsage:
								c.ScoringProtocols = protocolsFor(b, p.ToolUsage.ScoringProtocols)
							default:
								c.ScoringProtocols = p.ToolUsage.ScoringProtocols
							}
							out = append(out, c)
						}
					}
				}
			}
		}
	}
	return out
}

// protocolsFor returns the protocols of ids that score benchmark b, in
// the order of ids.
func protocolsFor(b results.Benchmark, ids []string) []string {
	scored := results.ScoredProtocols(b)
	var out []string
	for _, id := range ids {
		if slices.Contains(scored, id) {
			out = append(out, id)
		}
	}
	return out
}

// orList joins names as "a", "a or b", "a, b or c".
func orList[T ~string](names []T) string {
	s := make([]string, len(names))
	for i, n := range names {
		s[i] = string(n)
	}
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

// Runs returns every run of the plan, round-major: round 1 of every
// configuration, then round 2, and so on, so that a plan stopped half-way
// has comparable rounds for all configurations.
func (p *Plan) Runs() []Run {
	var out []Run
	cs := p.Configurations()
	for r := 1; r <= p.Rounds; r++ {
		for _, c := range cs {
			out = append(out, Run{Configuration: c, Round: r})
		}
	}
	return out
}
