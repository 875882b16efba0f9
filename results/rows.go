package results

// QuestionRow is one tool-usage question of a run: one row of a tool-usage
// Parquet file, in the published evaluation order. The identity columns
// (run_id … scoring_protocol) repeat the run's fields on every row so that a
// glob over many files can be grouped without reading the metadata; Read
// checks that they agree with the run. Column order is part of the format.
type QuestionRow struct {
	RunID           string `parquet:"run_id,dict"`
	Benchmark       string `parquet:"benchmark,dict"`
	System          string `parquet:"system,dict"`
	RetrievalSource int32  `parquet:"retrieval_source"`
	Model           string `parquet:"model,dict"`
	Round           int32  `parquet:"round"`
	ScoringProtocol string `parquet:"scoring_protocol,dict"`

	// QuestionIndex is the 0-based position in the published evaluation order.
	QuestionIndex int32  `parquet:"question_index"`
	QuestionID    string `parquet:"question_id"`    // the question folder name, e.g. "test_vacancy"
	PropertyCount int32  `parquet:"property_count"` // properties the question asks for
	Code          string `parquet:"code"`           // the generated code ("" when extraction failed)
	FunctionName  string `parquet:"function_name"`  // the generated function's name, verbatim

	// Runnable and PropertiesPassed are null when the outcome is unknown
	// (imported MatTools runs: only run totals were published).
	Runnable         *bool  `parquet:"runnable,optional"`
	PropertiesPassed *int32 `parquet:"properties_passed,optional"`
	Verdict          string `parquet:"verdict,dict"` // a Verdict
	// VerdictCause refines not-runnable and verification-crash verdicts:
	// "empty-code", "syntax-error", "exception:<Type>", "timeout", "no-dict",
	// "unparseable-output", "missing-function", …; "" otherwise.
	VerdictCause string `parquet:"verdict_cause,dict"`

	// FailedProperties names the properties that did not pass, where the
	// protocol can attribute errors to properties (mattools-v1-strict).
	FailedProperties []string `parquet:"failed_properties,list"`

	ErrorExcerpt       *string `parquet:"error_excerpt,optional"`
	StdoutExcerpt      *string `parquet:"stdout_excerpt,optional"` // the function's stdout, capped; see StdoutDroppedBytes
	StdoutDroppedBytes *int64  `parquet:"stdout_dropped_bytes,optional"`
	StderrExcerpt      *string `parquet:"stderr_excerpt,optional"`
	StderrDroppedBytes *int64  `parquet:"stderr_dropped_bytes,optional"`
	// VerificationOutput is what the verification step printed (MatTools:
	// "ok" or the JSON list of error strings and counts), capped.
	VerificationOutput *string `parquet:"verification_output,optional"`
	ExecMS             *int64  `parquet:"exec_ms,optional"` // sandbox wall time of execution plus verification, milliseconds

	// Response is the model's final answer the code was extracted from
	// (format v1: always whole; v2: may be capped, see ResponseBytes).
	Response         *string `parquet:"response,optional"`
	FinishReason     *string `parquet:"finish_reason,optional"`
	Attempts         *int32  `parquet:"attempts,optional"` // generation attempts or iterations (self-reflection: up to 5)
	PromptTokens     *int64  `parquet:"prompt_tokens,optional"`
	CompletionTokens *int64  `parquet:"completion_tokens,optional"`
	LatencyMS        *int64  `parquet:"latency_ms,optional"` // model latency, milliseconds

	// Format v2. The original byte length (UTF-8) of each capped text,
	// before capping: null when unknown (v1 files, or the writer did not
	// record it). When set it is at least the stored excerpt's length, and
	// equal to it when nothing was cut. Code is never capped, so it has no
	// such column.
	ErrorExcerptBytes       *int64 `parquet:"error_excerpt_bytes,optional"`
	StdoutBytes             *int64 `parquet:"stdout_bytes,optional"`
	StderrBytes             *int64 `parquet:"stderr_bytes,optional"`
	VerificationOutputBytes *int64 `parquet:"verification_output_bytes,optional"`
	ResponseBytes           *int64 `parquet:"response_bytes,optional"`

	// Retrieved is the context the system retrieved for the question, in
	// the order it was given to the model (format v2; empty for systems
	// without retrieval and for v1 files).
	Retrieved []RetrievedChunk `parquet:"retrieved,list"`
	// Trace is the question's stage trace, one entry per stage and
	// iteration, in execution order (format v2; empty when not recorded).
	Trace []TraceStage `parquet:"trace,list"`

	// PropertyOutcomes is the outcome of each of the question's properties
	// under the run's scoring protocol, in the unit test's order (format
	// v3; empty when the protocol cannot attribute its credit to
	// properties, e.g. a mattools-v1 partial question, and for v1 and v2
	// files). When set it has property_count entries, and the entries that
	// passed are exactly properties_passed (and the failed ones are
	// failed_properties, when that is set).
	PropertyOutcomes []PropertyOutcome `parquet:"property_outcomes,list"`
}

// PropertyOutcome is the outcome of one property of a tool-usage question
// (column property_outcomes, format v3).
type PropertyOutcome struct {
	// Property is the property's name as the question's unit test checks
	// it (properties.json's key), non-empty and unique within the row.
	Property string `parquet:"property"`
	// Passed reports whether the property's check passed.
	Passed bool `parquet:"passed"`
	// Message is what the verification said about the property: its error
	// strings joined by line feeds, or why no check ran (the question's
	// verdict and cause), capped like the other texts; "" when it passed.
	Message string `parquet:"message"`
}

// RetrievedChunk is one retrieved item of a question's context (column
// retrieved, format v2).
type RetrievedChunk struct {
	// ChunkID identifies the chunk within the corpus (Run.CorpusID); non-empty.
	ChunkID string `parquet:"chunk_id"`
	// Source is where the chunk comes from: a file or object of the corpus
	// (e.g. "pymatgen/core/structure.py"), or the retrieval source's name.
	Source string `parquet:"source"`
	// Score is the retriever's score (higher or lower is better as the
	// retrieval method defines it: BM25 score, cosine similarity, L2
	// distance); a finite number.
	Score float64 `parquet:"score"`
	// Rank is the 1-based position in the retriever's ranking.
	Rank int32 `parquet:"rank"`
}

// TraceStage is one stage of one iteration of a system answering a
// question (column trace, format v2): a model call, a retrieval or an
// execution.
type TraceStage struct {
	// Stage names the stage, e.g. "retrieve", "generate", "format-check",
	// "execute", "critic", "rerank"; non-empty.
	Stage string `parquet:"stage"`
	// Iteration is the 0-based iteration of the system's loop (0 for
	// systems without a loop).
	Iteration        int32 `parquet:"iteration"`
	PromptTokens     int64 `parquet:"prompt_tokens"`     // model tokens of this stage, ≥ 0 (0 for stages that call no model)
	CompletionTokens int64 `parquet:"completion_tokens"` // ≥ 0
	LatencyMS        int64 `parquet:"latency_ms"`        // wall time of the stage, milliseconds, ≥ 0
	// RetrievedIDs are the chunk ids a retrieval stage returned (chunk_id
	// of the retrieved column's chunks, or of chunks not kept in the
	// final context).
	RetrievedIDs []string `parquet:"retrieved_ids,list"`
	// Verdict is an execution stage's verdict (a Verdict, "" for other
	// stages), and StopReason why the loop stopped after this stage
	// ("" when it did not stop here), e.g. "complete-dict", "max-iterations".
	Verdict    string `parquet:"verdict"`
	StopReason string `parquet:"stop_reason"`
}

// QAItem is one row of a QA Parquet file: either one question (Questions = 1,
// with the answer text and the extracted letters) or one source item of an
// imported MatTools CSV (Questions = the item's question count, answers
// unknown). Counts are per row, never cumulative.
type QAItem struct {
	RunID           string `parquet:"run_id,dict"`
	Benchmark       string `parquet:"benchmark,dict"`
	System          string `parquet:"system,dict"`
	RetrievalSource int32  `parquet:"retrieval_source"`
	Model           string `parquet:"model,dict"`
	Round           int32  `parquet:"round"`
	ScoringProtocol string `parquet:"scoring_protocol,dict"`

	ItemIndex int32 `parquet:"item_index"` // 0-based position in the benchmark order
	// Item is the question id, or for imported CSVs the Source key
	// ("pymatgen/<file>/<name>"), which several items may share.
	Item           string `parquet:"item"`
	Questions      int32  `parquet:"questions"`                // questions in this row (1 per question row)
	Correct        int32  `parquet:"correct"`                  // correct under the strict (MatTools) extraction
	CorrectLenient *int32 `parquet:"correct_lenient,optional"` // correct under the lenient extraction

	AnswerText       *string `parquet:"answer_text,optional"`       // the model's whole answer
	ExtractedStrict  *string `parquet:"extracted_strict,optional"`  // MatTools' extraction of it
	ExtractedLenient *string `parquet:"extracted_lenient,optional"` // the lenient letter, or "" when invalid
	CorrectAnswer    *string `parquet:"correct_answer,optional"`    // "A"–"D"

	PromptTokens     *int64 `parquet:"prompt_tokens,optional"`
	CompletionTokens *int64 `parquet:"completion_tokens,optional"`
	LatencyMS        *int64 `parquet:"latency_ms,optional"`

	// AnswerTextBytes is the original byte length of AnswerText before any
	// capping (format v2; null when unknown), at least len(*AnswerText).
	AnswerTextBytes *int64 `parquet:"answer_text_bytes,optional"`
}

// File is the content of one results file: a run and its rows. Exactly one
// of Questions (tool usage) and QAItems (QA) is used, by Run.Benchmark.
type File struct {
	Run       Run
	Questions []QuestionRow
	QAItems   []QAItem
	// QA holds a QA file's per-item outcomes in compact form (CompactQA)
	// when ReadSummary read it, which keeps no QAItems; nil otherwise.
	// Write ignores it.
	QA *QAOutcomes
	// Path is the file Read read it from ("" otherwise); Write ignores it.
	Path string
}

// fillIdentity fills the identity columns of every row from f.Run.
func (f *File) fillIdentity() {
	r := &f.Run
	for i := range f.Questions {
		q := &f.Questions[i]
		q.RunID, q.Benchmark, q.System, q.RetrievalSource = r.RunID, string(r.Benchmark), string(r.System), int32(r.RetrievalSource)
		q.Model, q.Round, q.ScoringProtocol = r.Model, int32(r.Round), r.ScoringProtocol
	}
	for i := range f.QAItems {
		q := &f.QAItems[i]
		q.RunID, q.Benchmark, q.System, q.RetrievalSource = r.RunID, string(r.Benchmark), string(r.System), int32(r.RetrievalSource)
		q.Model, q.Round, q.ScoringProtocol = r.Model, int32(r.Round), r.ScoringProtocol
	}
}
