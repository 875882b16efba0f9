package results

// Benchmark names one of the benchmarks a run is scored on: an entry of
// the benchmark registry (benchmarks.go).
type Benchmark string

// BenchmarkVersion2025_05 is the version of the MatTools benchmark data as
// published at UpstreamCommit (all result files date from May 2025).
const BenchmarkVersion2025_05 = "2025-05"

// BenchmarkVersion2025_05Corrected1 is the tool-usage benchmark of version
// 2025-05 with three verifications corrected as the original unit tests
// check them (datasets/corrections.json; docs/benchmark-audit.md, "The
// corrected version"). Its runs are never mixed with 2025-05's.
const BenchmarkVersion2025_05Corrected1 = "2025-05-corrected-1"

// BenchmarkVersion2025_05Corrected2 is the tool-usage benchmark of version
// 2025-05 with the corrections of 2025-05-corrected-1 (test_interstitial's
// replaced), verifications that accept the forms of the expected value the
// question allows, and question texts whose undefined or misspelt names
// are fixed (datasets/corrections.json; docs/benchmark-audit.md, "The
// second corrected version"). Its runs are never mixed with 2025-05's nor
// with 2025-05-corrected-1's.
const BenchmarkVersion2025_05Corrected2 = "2025-05-corrected-2"

// UpstreamCommit is the commit of github.com/Grenzlinie/MatTools that
// BenchmarkVersion2025_05 refers to.
const UpstreamCommit = "44385630f2acf461512996468fc0b24f44ddcaaf"

// System names an LLM system under test (the paper's five systems).
type System string

// The systems of the MatTools paper, by their project ids.
const (
	SystemSingleLLM         System = "single-llm"          // one chat call per question
	SystemLLMRAG            System = "llm-rag"             // retrieve top-k from one retrieval source, then generate
	SystemAgenticRAG        System = "agentic-rag"         // task decomposition, NER, reranking
	SystemGraphRAG          System = "graph-rag"           // LightRAG-style graph retrieval
	SystemSelfReflectionRAG System = "self-reflection-rag" // execution-gated LLM-doc RAG loop
)

// Systems lists every system in the paper's order.
var Systems = []System{SystemSingleLLM, SystemLLMRAG, SystemAgenticRAG, SystemGraphRAG, SystemSelfReflectionRAG}

// The benchmark audit's systems (format v3; provenance kind audit only):
// not systems under test but the bounds a table is read against, never
// ranked. They call no model (Run.Model is ModelNone).
const (
	// SystemReferenceSolution answers each question with this project's
	// reference solution (benchmarks/mattools-tool-usage/reference).
	SystemReferenceSolution System = "reference-solution"
	// SystemBaselineAllTrue answers every property with True.
	SystemBaselineAllTrue System = "baseline-all-true"
	// SystemBaselineAllNone answers every property with None.
	SystemBaselineAllNone System = "baseline-all-none"
)

// AuditSystems lists the benchmark audit's systems in display order.
var AuditSystems = []System{SystemReferenceSolution, SystemBaselineAllTrue, SystemBaselineAllNone}

// ModelNone is the model of a run that calls no model (the audit's systems).
const ModelNone = "none"

// ProvenanceKind says where a run's outcomes come from.
type ProvenanceKind string

// Provenance kinds.
const (
	// ProvenanceImported: converted from files published by others (MatTools);
	// Provenance.Citation says which.
	ProvenanceImported ProvenanceKind = "imported"
	// ProvenanceRunner: generated and scored by this project's runner.
	ProvenanceRunner ProvenanceKind = "runner"
	// ProvenanceRescored: stored generated code re-executed and re-scored by
	// this project, without calling any model; Provenance.DerivedFrom names the source.
	ProvenanceRescored ProvenanceKind = "rescored"
	// ProvenanceSubmitted: generated and scored by someone else and
	// submitted to the leaderboard as results files (format v2);
	// Provenance.Submission names the submission.
	ProvenanceSubmitted ProvenanceKind = "submitted"
	// ProvenanceAudit: answers written by this project to bound the
	// benchmark (the reference solution and the trivial baselines of
	// cmd/audit, format v3), scored in the sandbox; their system is one of
	// AuditSystems.
	ProvenanceAudit ProvenanceKind = "audit"
)

// Scoring protocols. A configuration includes its scoring protocol, so runs
// of different protocols are never averaged together.
const (
	// ProtocolMatToolsOriginal marks numbers scored by MatTools' own scorer
	// (result_analysis.py in its Docker image), imported as published.
	ProtocolMatToolsOriginal = "mattools-original"
	// ProtocolMatToolsV1 is this project's faithful reimplementation of
	// MatTools' scorer, quirks included (docs/mattools.md §2.4).
	ProtocolMatToolsV1 = "mattools-v1"
	// ProtocolMatToolsV1Strict is mattools-v1 with the quirks fixed.
	ProtocolMatToolsV1Strict = "mattools-v1-strict"
	// ProtocolQAV1 scores QA answers with MatTools' exact strict extraction
	// (column correct) and this project's lenient extraction (column correct_lenient).
	ProtocolQAV1 = "mattools-qa-v1"
)

// Verdict is the outcome of one tool-usage question in a run.
type Verdict string

// Verdicts. How each maps onto the run totals:
//
//	verdict             runnable  properties passed
//	correct             yes       all of the question's properties
//	partial             yes       as the protocol credits them (may be 0)
//	not-runnable        no        0
//	verification-crash  protocol-dependent (mattools-v1: no, as MatTools counts a harness crash as a function error)
//	data-missing        not scored: the question is outside the run's question set
//	unknown             no per-question outcome exists (MatTools published run totals only)
const (
	VerdictCorrect           Verdict = "correct"
	VerdictPartial           Verdict = "partial"
	VerdictNotRunnable       Verdict = "not-runnable"
	VerdictVerificationCrash Verdict = "verification-crash"
	VerdictDataMissing       Verdict = "data-missing"
	VerdictUnknown           Verdict = "unknown"
)

var verdicts = map[Verdict]bool{
	VerdictCorrect: true, VerdictPartial: true, VerdictNotRunnable: true,
	VerdictVerificationCrash: true, VerdictDataMissing: true, VerdictUnknown: true,
}

// Valid reports whether v is one of the verdicts above.
func (v Verdict) Valid() bool { return verdicts[v] }

var systems = map[System]bool{SystemSingleLLM: true, SystemLLMRAG: true, SystemAgenticRAG: true, SystemGraphRAG: true, SystemSelfReflectionRAG: true,
	SystemReferenceSolution: true, SystemBaselineAllTrue: true, SystemBaselineAllNone: true}
var provenances = map[ProvenanceKind]bool{ProvenanceImported: true, ProvenanceRunner: true, ProvenanceRescored: true, ProvenanceSubmitted: true,
	ProvenanceAudit: true}

// IsAudit reports whether s is one of the benchmark audit's systems.
func (s System) IsAudit() bool {
	return s == SystemReferenceSolution || s == SystemBaselineAllTrue || s == SystemBaselineAllNone
}

// RetrievalMethods are the values of Run.RetrievalMethod (format v2).
var RetrievalMethods = []string{"bm25", "embedding", "graph"}

func checkEnum[T ~string](field string, v T, ok map[T]bool) error {
	if v == "" {
		return metaErr(field, "required field missing")
	}
	if !ok[v] {
		return metaErr(field, "unknown value %q", string(v))
	}
	return nil
}
