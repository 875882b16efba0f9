package results

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// FormatVersion is the version of the results format this package writes;
// it reads every version from 1 up to it. Changing the meaning or the order
// of a column, or of a field of Run, or adding one, means bumping it (see
// FORMAT.md). Version 2 added the retrieval fields (RetrievalMethod,
// CorpusID, EmbeddingModel), submitted runs (Provenance.Submission), the
// system parameters in the configuration and the run id, and per question
// the retrieved context, the stage trace and the original byte lengths of
// capped texts. Version 3 added the per-property outcomes of a tool-usage
// question (QuestionRow.PropertyOutcomes).
const FormatVersion = 3

// Run describes one run: one configuration (benchmark × system × retrieval
// source × model × scoring protocol) in one round. It is stored as JSON in
// the Parquet key-value metadata under MetaRun; FORMAT.md documents every
// field for authors who write the format without this package.
type Run struct {
	FormatVersion    int       `json:"format_version"`
	RunID            string    `json:"run_id"` // unique; [A-Za-z0-9._-]+; see MakeRunID
	Benchmark        Benchmark `json:"benchmark"`
	BenchmarkVersion string    `json:"benchmark_version"` // e.g. "2025-05"
	UpstreamCommit   string    `json:"upstream_commit"`   // MatTools commit of the benchmark data
	System           System    `json:"system"`
	// RetrievalSource is 0 for none, 1–4 as in the paper (1 code, 2 official
	// docs, 3 LLM docs chunked, 4 LLM docs per object).
	RetrievalSource int `json:"retrieval_source"`
	TopK            int `json:"top_k,omitempty"` // documents retrieved per query; 0 when not applicable or unknown
	// RetrievalMethod is how documents were retrieved (format v2):
	// "bm25", "embedding" (dense vectors, EmbeddingModel) or "graph"
	// (LightRAG-style graph retrieval); "" when RetrievalSource is 0, and
	// when a publisher did not record it (v1 files, imported runs).
	RetrievalMethod string `json:"retrieval_method,omitempty"`
	// CorpusID is the content-hash identity of the corpus retrieved from
	// (format v2): "sha256:" and the 64-hex SHA-256 of the corpus's
	// chunks as the writer defines them (documented with the corpus); ""
	// when RetrievalSource is 0 or unknown.
	CorpusID string `json:"corpus_id,omitempty"`
	// EmbeddingModel is the embedding model of "embedding" (and "graph")
	// retrieval, e.g. "text-embedding-3-large" (format v2); "" otherwise.
	// It is a field of its own rather than a SystemParams entry because,
	// with RetrievalMethod and CorpusID, it decides what is retrieved for
	// every retrieving system alike, and validation can require it.
	EmbeddingModel string `json:"embedding_model,omitempty"`
	// Model is the provider's model id, e.g. "gpt-4o-2024-08-06" (for QA
	// runs imported from MatTools: its results folder name, e.g.
	// "qwen2.5-72b-instruct-int4", which is all MatTools recorded).
	Model string `json:"model"`
	// ModelDisplayName and ModelGroup are optional presentation hints
	// ("GPT-4o"; "closed-source", "open-source", "materials-chemistry").
	ModelDisplayName string `json:"model_display_name,omitempty"`
	ModelGroup       string `json:"model_group,omitempty"`
	// Round is 1-based (the paper's round1–round3); 0 means the run was not
	// part of any round (for example a MatTools run folder outside roundN).
	Round int `json:"round"`
	// Variant is an optional label that tells apart configurations that
	// would otherwise be the same (e.g. one model at two temperatures); it is
	// part of the configuration and of the run id. [A-Za-z0-9._-]*.
	Variant         string `json:"variant,omitempty"`
	ScoringProtocol string `json:"scoring_protocol"`
	// Endpoint is the model's OpenAI-compatible base URL (never with
	// credentials), when a model was called.
	Endpoint   string           `json:"endpoint,omitempty"`
	Generation GenerationParams `json:"generation"`
	// SystemParams are the system's own parameters (e.g.
	// "max_iterations": "5"), as strings. Keys use [A-Za-z0-9._-] and are
	// not one of the run's own fields (retrieval_method, corpus_id,
	// embedding_model, top_k); values hold no control characters. They are part of the configuration and of the run
	// id (see SystemParamsIdentity).
	SystemParams map[string]string `json:"system_params,omitempty"`
	// PromptSHA256 is the SHA-256 (hex) of the prompt template(s) used, and
	// PlanSHA256 that of the plan file a runner run came from.
	PromptSHA256 string      `json:"prompt_sha256,omitempty"`
	PlanSHA256   string      `json:"plan_sha256,omitempty"`
	QuestionSet  QuestionSet `json:"question_set"`
	Provenance   Provenance  `json:"provenance"`
	Environment  Environment `json:"environment"`
	Totals       Totals      `json:"totals"`
	Usage        *Usage      `json:"usage,omitempty"`
	StartedAt    *time.Time  `json:"started_at,omitempty"`  // generation started (UTC)
	FinishedAt   *time.Time  `json:"finished_at,omitempty"` // scoring finished (UTC)
	// Warnings are conditions that do not stop the run from being shown but
	// that a reader must see (e.g. "per-question outcomes were never published").
	Warnings []string `json:"warnings,omitempty"`
	// Extensions holds fields that this format version does not define, by
	// name; readers keep them and otherwise ignore them.
	Extensions map[string]json.RawMessage `json:"extensions,omitempty"`
}

// GenerationParams are the sampling parameters sent to the model. Nil means
// not sent (the server's default applies) or not known.
type GenerationParams struct {
	Temperature *float64          `json:"temperature,omitempty"`
	TopP        *float64          `json:"top_p,omitempty"`
	MaxTokens   *int              `json:"max_tokens,omitempty"`
	Seed        *int64            `json:"seed,omitempty"`
	Extra       map[string]string `json:"extra,omitempty"`
	// Source says where the values come from, e.g. "request_bodies.jsonl"
	// or "plan" or "MatTools code default".
	Source string `json:"source,omitempty"`
}

// Rescored returns the generation parameters of a rescoring of code that
// was generated with g: the same values (pointers shared: they are never
// modified in place; they describe how the answers being
// rescored were generated, so that a rescoring shares its configuration's
// settings with the run it rescores), and a Source saying that nothing was
// re-generated.
func (g GenerationParams) Rescored() GenerationParams {
	out := g
	if g.Extra != nil {
		out.Extra = make(map[string]string, len(g.Extra))
		for k, v := range g.Extra {
			out.Extra[k] = v
		}
	}
	const rescored = "not re-generated: stored code rescored"
	switch {
	case strings.HasPrefix(g.Source, rescored): // a rescoring of a rescoring: already said
	case g.Source != "":
		out.Source = rescored + "; generated with these parameters (from " + g.Source + ")"
	default:
		out.Source = rescored
	}
	return out
}

// QuestionSet is the set of questions a run was scored on.
type QuestionSet struct {
	// Name is "all" for the whole benchmark, otherwise a short name for the
	// subset (e.g. "executable-2025-05"); runs of different question sets are
	// never aggregated together.
	Name       string   `json:"name"`
	Questions  int      `json:"questions"`            // e.g. 49 (tool usage), 34621 (qa-code)
	Properties int      `json:"properties,omitempty"` // tool usage only, e.g. 138
	IDs        []string `json:"ids,omitempty"`        // the question ids, when Name is not "all"
}

// QuestionSetAll is the name of the full question set.
const QuestionSetAll = "all"

// Provenance says where a run's outcomes come from.
type Provenance struct {
	Kind ProvenanceKind `json:"kind"`
	// Citation is required for imported runs: who published the numbers and where.
	Citation string `json:"citation,omitempty"`
	// Source lists the files the run was made from, relative to their root
	// (e.g. "src/pure_agent_test/round1/gpt-4o-2024-08-06/accuracy_summary.xlsx"),
	// each with its SHA-256.
	Source []SourceFile `json:"source,omitempty"`
	// DerivedFrom is the run id a rescored run re-executed, when the code
	// came from a results file.
	DerivedFrom string `json:"derived_from,omitempty"`
	// Origin is, for a rescored run, the provenance kind of the code it
	// re-executed ("imported" for MatTools' published code, "runner" for
	// this project's, "submitted" for a submission's); required for
	// rescored runs, empty otherwise.
	Origin ProvenanceKind `json:"origin,omitempty"`
	// Submission identifies the submission a submitted run came from
	// (format v2): required for provenance kind "submitted" and for
	// rescored runs of origin "submitted", forbidden otherwise.
	Submission *Submission `json:"submission,omitempty"`
}

// Submission is the origin of a submitted run: the submission's folder and
// the SHA-256 of its metadata file.
type Submission struct {
	// Folder is the submission's folder, relative to the submissions root,
	// "/"-separated (e.g. "2026-01-acme-gpt-5"); no "." or ".." parts.
	Folder string `json:"folder"`
	// MetadataSHA256 is the SHA-256 (64 lowercase hex digits) of the
	// submission's metadata file as submitted.
	MetadataSHA256 string `json:"metadata_sha256"`
}

// SourceFile is one input file of a run and its SHA-256 (hex).
type SourceFile struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// The Environment.Generator of the results files this project's own
// scoring writes: the runner (cmd/run-benchmark, whose files
// make-submission keeps) and the re-execution of stored code (cmd/rescore).
const (
	GeneratorRunner  = "run-benchmark"
	GeneratorRescore = "rescore"
)

// Environment records what produced and scored a run.
type Environment struct {
	Generator        string `json:"generator"`         // program that wrote the file, e.g. "import-mattools"
	GeneratorVersion string `json:"generator_version"` // its version (module version or VCS revision)
	GoVersion        string `json:"go_version,omitempty"`
	// Libraries maps package names to versions (e.g. "pymatgen": "2024.8.9")
	// for the libraries the generated code ran against.
	Libraries map[string]string `json:"libraries,omitempty"`
	Sandbox   *Sandbox          `json:"sandbox,omitempty"`
}

// Sandbox describes the environment generated code was executed in.
type Sandbox struct {
	Backend        string            `json:"backend"`                   // "local" (bubblewrap), "docker", or "mattools-docker" for MatTools' own
	Version        string            `json:"version,omitempty"`         // e.g. "bubblewrap 0.8.0" or an image digest
	TimeoutSeconds float64           `json:"timeout_seconds,omitempty"` // wall-clock limit per execution; 0 = none
	Limits         map[string]string `json:"limits,omitempty"`
	// LockSHA256 is the SHA-256 (hex) of the lock file the sandbox's Python
	// environment was installed from.
	LockSHA256 string `json:"lock_sha256,omitempty"`
}

// Totals are the run's counts. Rates are derived from them, never stored.
// Nil means unknown (an unscored run, or a count MatTools did not publish).
type Totals struct {
	// Scored is false for a run whose outcomes are unknown (code only).
	Scored bool `json:"scored"`
	// Questions is the number of questions in the question set (tool usage:
	// 49 for the full set; QA: the number of multiple-choice questions).
	Questions int `json:"questions"`
	// Tool usage, out of Questions: runnable questions (the function ran and
	// its dict was verified), fully correct and partially correct questions.
	Runnable         *int `json:"runnable,omitempty"`
	QuestionsCorrect *int `json:"questions_correct,omitempty"`
	QuestionsPartial *int `json:"questions_partial,omitempty"`
	// Tool usage: properties in the question set (138 for the full set) and
	// properties that passed verification.
	Properties       int  `json:"properties,omitempty"`
	PropertiesPassed *int `json:"properties_passed,omitempty"`
	// QA, out of Questions: correct under the strict (MatTools) extraction
	// and under the lenient extraction.
	Correct        *int `json:"correct,omitempty"`
	CorrectLenient *int `json:"correct_lenient,omitempty"`
}

// Usage is the model usage of a whole run.
type Usage struct {
	Calls            int64    `json:"calls,omitempty"`
	PromptTokens     int64    `json:"prompt_tokens"`
	CompletionTokens int64    `json:"completion_tokens"`
	CostUSD          *float64 `json:"cost_usd,omitempty"` // only where prices were given
}

// FunctionRunnableRate returns the function runnable rate in percent (0–100):
// runnable questions out of the question set, as MatTools' result_analysis.py
// computes it ((49 − function errors)/49·100; docs/mattools.md §2).
// ok is false when the run is unscored or not a tool-usage run.
func (t Totals) FunctionRunnableRate() (pct float64, ok bool) {
	if t.Runnable == nil || t.Questions == 0 {
		return 0, false
	}
	return 100 * float64(*t.Runnable) / float64(t.Questions), true
}

// TaskSuccessRate returns the task success rate in percent (0–100):
// properties passed out of the question set's properties (MatTools' Sub-tasks
// accuracy, Correct/138·100). ok is false when unknown.
func (t Totals) TaskSuccessRate() (pct float64, ok bool) {
	if t.PropertiesPassed == nil || t.Properties == 0 {
		return 0, false
	}
	return 100 * float64(*t.PropertiesPassed) / float64(t.Properties), true
}

// Accuracy returns the strict QA accuracy in percent (0–100).
func (t Totals) Accuracy() (pct float64, ok bool) {
	if t.Correct == nil || t.Questions == 0 {
		return 0, false
	}
	return 100 * float64(*t.Correct) / float64(t.Questions), true
}

// AccuracyLenient returns the lenient QA accuracy in percent (0–100).
func (t Totals) AccuracyLenient() (pct float64, ok bool) {
	if t.CorrectLenient == nil || t.Questions == 0 {
		return 0, false
	}
	return 100 * float64(*t.CorrectLenient) / float64(t.Questions), true
}

// Configuration identifies what is averaged over rounds: runs with equal
// Configuration are the rounds of one leaderboard row. It includes the
// scoring protocol, the question set, the provenance kind and the system
// parameters, so that imported, rescored, submitted and runner runs, runs
// on different question sets, or runs of one system with different
// retrieval or parameters are never averaged together.
type Configuration struct {
	Benchmark        Benchmark
	BenchmarkVersion string
	System           System
	RetrievalSource  int
	Model            string
	Variant          string
	ScoringProtocol  string
	QuestionSet      string // QuestionSet.Name plus its size, e.g. "all/49"
	// Provenance is the provenance kind; for rescored runs followed by the
	// origin of the code, e.g. "rescored:imported"; for submitted runs
	// (and rescorings of submitted code) followed by the submission
	// folder, e.g. "submitted:2026-01-acme".
	Provenance string
	// Settings are the generation parameters that change outputs (all but
	// the seed, which may differ per round), canonically written, e.g.
	// "temperature=0.7,top_p=1".
	Settings string
	// SystemParams is the run's system parameters identity
	// (SystemParamsIdentity): sorted "key=value" lines, "" when none.
	SystemParams string
	// Standalone is true for a run outside any round (Round 0): it is its
	// own configuration and is never averaged with others.
	Standalone bool
}

// Configuration returns the run's configuration.
func (r *Run) Configuration() Configuration {
	prov := string(r.Provenance.Kind)
	if r.Provenance.Origin != "" {
		prov += ":" + string(r.Provenance.Origin)
	}
	if r.Provenance.Submission != nil {
		prov += ":" + r.Provenance.Submission.Folder
	}
	return Configuration{
		Benchmark:        r.Benchmark,
		BenchmarkVersion: r.BenchmarkVersion,
		System:           r.System,
		RetrievalSource:  r.RetrievalSource,
		Model:            r.Model,
		Variant:          r.Variant,
		ScoringProtocol:  r.ScoringProtocol,
		QuestionSet:      r.QuestionSet.Name + "/" + strconv.Itoa(r.QuestionSet.Questions),
		Provenance:       prov,
		Settings:         r.settings(),
		SystemParams:     r.SystemParamsIdentity(),
		Standalone:       r.Round == 0,
	}
}

// settings writes the output-changing generation parameters canonically,
// e.g. "temperature=0.7,max_tokens=4096" (temperature, top_p, max_tokens,
// then the extra parameters by key).
func (r *Run) settings() string {
	var parts []string
	g := r.Generation
	if g.Temperature != nil {
		parts = append(parts, "temperature="+strconv.FormatFloat(*g.Temperature, 'g', -1, 64))
	}
	if g.TopP != nil {
		parts = append(parts, "top_p="+strconv.FormatFloat(*g.TopP, 'g', -1, 64))
	}
	if g.MaxTokens != nil {
		parts = append(parts, "max_tokens="+strconv.Itoa(*g.MaxTokens))
	}
	for _, k := range sortedKeys(g.Extra) {
		parts = append(parts, k+"="+g.Extra[k])
	}
	return strings.Join(parts, ",")
}

// Names of the run fields that enter the system parameters identity beside
// SystemParams; a SystemParams key may not use them.
const (
	ParamRetrievalMethod = "retrieval_method"
	ParamCorpusID        = "corpus_id"
	ParamEmbeddingModel  = "embedding_model"
	ParamTopK            = "top_k"
)

// SystemParamsIdentity returns the run's system parameters identity, the
// canonical parameter string of FORMAT.md ("Configuration and run id"):
// one "key=value" line per parameter, sorted by key, joined by "\n", of
// retrieval_method, corpus_id, embedding_model and top_k (each when set)
// and every SystemParams entry. Example: "corpus_id=sha256:…\nmax_iterations=5\n
// retrieval_method=bm25\ntop_k=5". It is "" when the run has none of them.
func (r *Run) SystemParamsIdentity() string {
	kv := map[string]string{}
	for k, v := range r.SystemParams {
		kv[k] = v
	}
	for k, v := range map[string]string{ParamRetrievalMethod: r.RetrievalMethod, ParamCorpusID: r.CorpusID, ParamEmbeddingModel: r.EmbeddingModel} {
		if v != "" {
			kv[k] = v
		}
	}
	if r.TopK != 0 {
		kv[ParamTopK] = strconv.Itoa(r.TopK)
	}
	lines := make([]string, 0, len(kv))
	for _, k := range sortedKeys(kv) {
		lines = append(lines, k+"="+kv[k])
	}
	return strings.Join(lines, "\n")
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// String returns a stable, human-readable key such as
// "tool-usage@2025-05/llm-rag/source-4/gpt-4o-2024-08-06/mattools-original/all/49/imported/temperature=0.7,top_k=5":
// the settings and then the system parameters lines, joined by ",". (For
// the runs of format v1, whose only system parameter was top_k, this is the
// key v1 gave, so that pages and downloads keep their names.)
func (c Configuration) String() string {
	s := fmt.Sprintf("%s@%s/%s/source-%d/%s", c.Benchmark, c.BenchmarkVersion, c.System, c.RetrievalSource, c.Model)
	if c.Variant != "" {
		s += "+" + c.Variant
	}
	params := c.Settings
	if c.SystemParams != "" {
		if params != "" {
			params += ","
		}
		params += strings.ReplaceAll(c.SystemParams, "\n", ",")
	}
	s += fmt.Sprintf("/%s/%s/%s/%s", c.ScoringProtocol, c.QuestionSet, c.Provenance, params)
	if c.Standalone {
		s += "/standalone"
	}
	return s
}

var runIDPart = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// MakeRunID returns the canonical run id of a run, its parts joined by "__":
//
//   - the provenance kind (for rescored runs followed by "-" and the
//     origin); for submitted runs (and rescorings of submitted code) then
//     the submission folder, so that submitted runs have their own
//     namespace "submitted__<folder>__…";
//   - benchmark, system, "s"+retrieval source, model;
//   - "v-"+variant, when set;
//   - "p-" and the first 8 hex digits of the SHA-256 of the system
//     parameters identity (SystemParamsIdentity), when it is not empty,
//     except for imported runs and runs rescored from imported code;
//   - scoring protocol, "set-"+question subset (when not "all"), "r"+round.
//
// After the benchmark comes "b-"+benchmark version when the run's version
// is not its benchmark's first registered one (a corrected version,
// "b-2025-05-corrected-1"), so that runs of both versions sit side by side.
//
// Example: "imported__tool-usage__single-llm__s0__gpt-4o-2024-08-06__mattools-original__r1".
// Imported runs (and their rescorings) leave the system parameters out:
// their identity is the published run folder, which MatTools ran with one
// fixed setting per system and retrieval source (top-k 5), so their ids stay
// those of format v1. A part that is not already made of [A-Za-z0-9._-]
// without "__" is cleaned (other characters become "-") and suffixed with
// 8 hex digits of its SHA-256, so that different names never collide
// ("Qwen/Qwen2.5-7B" → "Qwen-Qwen2.5-7B-<hash>"). The first version and
// the generation settings are not in the id: a runner must give a Variant
// to runs that would otherwise share an id.
func MakeRunID(r *Run) string {
	kind := string(r.Provenance.Kind)
	if r.Provenance.Origin != "" {
		kind += "-" + string(r.Provenance.Origin)
	}
	parts := []string{kind}
	if r.Provenance.Submission != nil {
		parts = append(parts, r.Provenance.Submission.Folder)
	}
	parts = append(parts, string(r.Benchmark))
	if b, ok := LookupBenchmark(r.Benchmark); ok && len(b.Versions) > 1 && r.BenchmarkVersion != b.Versions[0].ID && r.BenchmarkVersion != "" {
		parts = append(parts, "b-"+r.BenchmarkVersion) // a later version: runs of both versions sit side by side
	}
	parts = append(parts, string(r.System), "s"+strconv.Itoa(r.RetrievalSource), r.Model)
	if r.Variant != "" {
		parts = append(parts, "v-"+r.Variant)
	}
	if id := r.SystemParamsIdentity(); id != "" && !r.importedIdentity() {
		sum := sha256.Sum256([]byte(id))
		parts = append(parts, "p-"+hex.EncodeToString(sum[:4]))
	}
	parts = append(parts, r.ScoringProtocol)
	if r.QuestionSet.Name != "" && r.QuestionSet.Name != QuestionSetAll {
		parts = append(parts, "set-"+r.QuestionSet.Name)
	}
	parts = append(parts, "r"+strconv.Itoa(r.Round))
	for i, p := range parts {
		if !validRunID.MatchString(p) || strings.Contains(p, "__") || strings.HasPrefix(p, "-") || strings.HasSuffix(p, "-") {
			sum := sha256.Sum256([]byte(p))
			clean := strings.Trim(strings.ReplaceAll(runIDPart.ReplaceAllString(p, "-"), "__", "-"), "-_")
			parts[i] = clean + "-" + hex.EncodeToString(sum[:4])
		}
	}
	return strings.Join(parts, "__")
}

// importedIdentity reports whether the run's identity is a published run
// folder: an imported run, or a rescoring of imported code.
func (r *Run) importedIdentity() bool {
	return r.Provenance.Kind == ProvenanceImported ||
		(r.Provenance.Kind == ProvenanceRescored && r.Provenance.Origin == ProvenanceImported)
}

var validRunID = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)
