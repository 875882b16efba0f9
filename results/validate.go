package results

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// FormatError is a problem with a results file. It prints as
// "file:row: field: reason", where row is 1-based and "metadata" stands for
// the run record in the key-value metadata.
type FormatError struct {
	File  string
	Row   int // 1-based row; 0 = the run metadata
	Field string
	Err   error
}

func (e *FormatError) Error() string {
	loc := "metadata"
	if e.Row > 0 {
		loc = "row " + strconv.Itoa(e.Row)
	}
	if e.File != "" {
		loc = e.File + ":" + loc
	}
	if e.Field == "" {
		return loc + ": " + e.Err.Error()
	}
	return loc + ": " + e.Field + ": " + e.Err.Error()
}

func (e *FormatError) Unwrap() error { return e.Err }

func metaErr(field, format string, a ...any) error {
	return &FormatError{Field: field, Err: fmt.Errorf(format, a...)}
}

func rowErr(row int, field, format string, a ...any) error {
	return &FormatError{Row: row, Field: field, Err: fmt.Errorf(format, a...)}
}

// Validate checks f against the rules of its format version (FORMAT.md):
// required fields, known enum values, a citation on imported runs, a
// submission on submitted runs, the retrieval fields and system parameters,
// rows that match the question set, totals that equal the sums of the rows
// wherever the rows carry outcomes, and the per-question fields of format
// v2. Files of version 1 to FormatVersion are accepted (Write accepts only
// FormatVersion). Errors are *FormatError without a file name, naming the
// field (and the 1-based row); several are joined.
func Validate(f *File) error {
	errs := validateRecord(&f.Run)
	r := &f.Run
	switch r.Benchmark.Kind() {
	case KindMultipleChoice:
		if len(f.Questions) > 0 {
			errs = append(errs, metaErr("benchmark", "%s files hold QA items, not tool-usage questions", r.Benchmark))
		}
		errs = append(errs, validateQA(f)...)
	case KindToolUsage:
		if len(f.QAItems) > 0 {
			errs = append(errs, metaErr("benchmark", "%s files hold questions, not QA items", r.Benchmark))
		}
		errs = append(errs, validateToolUsage(f)...)
	}
	return errors.Join(errs...)
}

// validateRecord checks the run record's own rules, those that need no row.
func validateRecord(r *Run) []error {
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	if r.FormatVersion < 1 || r.FormatVersion > FormatVersion {
		add(metaErr("format_version", "is %d; this reader supports versions 1 to %d", r.FormatVersion, FormatVersion))
	}
	switch {
	case r.RunID == "":
		add(metaErr("run_id", "required field missing"))
	case !validRunID.MatchString(r.RunID):
		add(metaErr("run_id", "%q must use only [A-Za-z0-9._-]", r.RunID))
	}
	if r.Variant != "" && !validRunID.MatchString(r.Variant) {
		add(metaErr("variant", "%q must use only [A-Za-z0-9._-]", r.Variant))
	}
	add(checkProtocol(r)) // before the benchmark, which may list it
	add(checkBenchmark(r))
	add(checkSystem(r))
	add(checkEnum("provenance.kind", r.Provenance.Kind, provenances))
	for _, fv := range []struct{ field, v string }{{"benchmark_version", r.BenchmarkVersion}, {"model", r.Model},
		{"scoring_protocol", r.ScoringProtocol}, {"question_set.name", r.QuestionSet.Name},
		{"environment.generator", r.Environment.Generator}} {
		if fv.v == "" {
			add(metaErr(fv.field, "required field missing"))
		}
	}
	errs = append(errs, validateProvenance(r)...)
	if audit := r.Provenance.Kind == ProvenanceAudit; audit != r.System.IsAudit() {
		add(metaErr("system", "is %q with provenance kind %q; the audit's systems (%s) go with provenance kind %q and only with it", r.System, r.Provenance.Kind, joinSystems(AuditSystems), ProvenanceAudit))
	} else if audit && r.FormatVersion < 3 {
		add(metaErr("provenance.kind", "audit runs exist from format version 3; this file is version %d", r.FormatVersion))
	} else if audit && (r.Benchmark.Kind() != KindToolUsage || r.RetrievalSource != 0 || r.Model != ModelNone) {
		add(metaErr("system", "an audit run is a tool-usage run with retrieval source 0 and model %q", ModelNone))
	}
	errs = append(errs, validateSystemParams(r)...)
	if r.Round < 0 {
		add(metaErr("round", "is %d; want ≥ 0", r.Round))
	}
	if r.QuestionSet.Name != QuestionSetAll && (r.Benchmark.Kind() == KindToolUsage || len(r.QuestionSet.IDs) > 0) &&
		len(r.QuestionSet.IDs) != r.QuestionSet.Questions {
		add(metaErr("question_set.ids", "lists %d ids for a subset of %d questions", len(r.QuestionSet.IDs), r.QuestionSet.Questions))
	}
	if r.Totals.Questions != r.QuestionSet.Questions {
		add(metaErr("totals.questions", "is %d but the question set has %d", r.Totals.Questions, r.QuestionSet.Questions))
	}
	if q, p, ok := FullQuestionSet(r.Benchmark, r.BenchmarkVersion); ok && r.QuestionSet.Name == QuestionSetAll &&
		(r.QuestionSet.Questions != q || r.QuestionSet.Properties != p) {
		add(metaErr("question_set", "is named %q but has %d questions / %d properties; the whole %s %s benchmark has %d / %d",
			QuestionSetAll, r.QuestionSet.Questions, r.QuestionSet.Properties, r.Benchmark, r.BenchmarkVersion, q, p))
	}
	return errs
}

var sha256Hex = regexp.MustCompile(`^[0-9a-f]{64}$`)

// validateProvenance checks the citation, origin and submission rules of
// the provenance kinds.
func validateProvenance(r *Run) []error {
	var errs []error
	p := r.Provenance
	switch {
	case p.Kind == ProvenanceRescored && p.Origin == "":
		errs = append(errs, metaErr("provenance.origin", "required field missing: a rescored run must say where its code came from (imported, runner or submitted)"))
	case p.Kind == ProvenanceRescored && p.Origin != ProvenanceImported && p.Origin != ProvenanceRunner && p.Origin != ProvenanceSubmitted:
		errs = append(errs, metaErr("provenance.origin", "unknown value %q; want imported, runner or submitted", p.Origin))
	case p.Kind != ProvenanceRescored && p.Origin != "":
		errs = append(errs, metaErr("provenance.origin", "is only for rescored runs"))
	}
	if p.Kind == ProvenanceImported && p.Citation == "" {
		errs = append(errs, metaErr("provenance.citation", "required field missing: imported runs must cite their source"))
	}
	if (p.Kind == ProvenanceSubmitted || p.Origin == ProvenanceSubmitted || p.Submission != nil) && r.FormatVersion < 2 {
		errs = append(errs, metaErr("provenance.kind", "submitted runs exist from format version 2; this file is version %d", r.FormatVersion))
		return errs
	}
	fromSubmission := p.Kind == ProvenanceSubmitted || (p.Kind == ProvenanceRescored && p.Origin == ProvenanceSubmitted)
	switch {
	case fromSubmission && p.Submission == nil:
		errs = append(errs, metaErr("provenance.submission", "required field missing: a submitted run (or a rescoring of submitted code) must name its submission"))
	case !fromSubmission && p.Submission != nil:
		errs = append(errs, metaErr("provenance.submission", "is only for submitted runs and rescorings of submitted code (provenance.kind is %q)", p.Kind))
	case p.Submission != nil:
		s := p.Submission
		switch {
		case s.Folder == "":
			errs = append(errs, metaErr("provenance.submission.folder", "required field missing"))
		case !validFolder(s.Folder):
			errs = append(errs, metaErr("provenance.submission.folder", "%q must be a relative, \"/\"-separated path without \".\", \"..\" or empty parts", s.Folder))
		}
		switch {
		case s.MetadataSHA256 == "":
			errs = append(errs, metaErr("provenance.submission.metadata_sha256", "required field missing"))
		case !sha256Hex.MatchString(s.MetadataSHA256):
			errs = append(errs, metaErr("provenance.submission.metadata_sha256", "%q is not 64 lowercase hex digits", s.MetadataSHA256))
		}
	}
	return errs
}

func validFolder(f string) bool {
	if strings.ContainsAny(f, "\\\x00") || strings.HasPrefix(f, "/") {
		return false
	}
	for _, part := range strings.Split(f, "/") {
		if part == "" || part == "." || part == ".." || strings.IndexFunc(part, unicode.IsControl) >= 0 {
			return false
		}
	}
	return true
}

var (
	validParamKey = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)
	corpusIDRe    = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)
	// reserved are, per map, the keys it may not use because they are
	// fields of their own: the retrieval fields for system_params, the
	// generation parameters for generation.extra.
	reserved = map[string]map[string]bool{
		"system_params":    {ParamRetrievalMethod: true, ParamCorpusID: true, ParamEmbeddingModel: true, ParamTopK: true},
		"generation.extra": {"temperature": true, "top_p": true, "max_tokens": true, "seed": true},
	}
)

// validateSystemParams checks the retrieval fields, top_k and the keys and
// values of system_params and generation.extra, so that the system
// parameters identity and the settings are canonical and unambiguous.
func validateSystemParams(r *Run) []error {
	var errs []error
	add := func(field, format string, a ...any) { errs = append(errs, metaErr(field, format, a...)) }
	if r.RetrievalSource < 0 || r.RetrievalSource > 4 {
		add("retrieval_source", "is %d; want 0 (none) to 4", r.RetrievalSource)
	}
	if r.TopK < 0 {
		add("top_k", "is %d; want ≥ 0", r.TopK)
	}
	if r.FormatVersion < 2 {
		for field, v := range map[string]string{"retrieval_method": r.RetrievalMethod, "corpus_id": r.CorpusID, "embedding_model": r.EmbeddingModel} {
			if v != "" {
				add(field, "is a field of format version 2; this file is version %d", r.FormatVersion)
			}
		}
	}
	if r.RetrievalSource == 0 {
		for field, v := range map[string]string{"retrieval_method": r.RetrievalMethod, "corpus_id": r.CorpusID, "embedding_model": r.EmbeddingModel} {
			if v != "" {
				add(field, "is %q but retrieval_source is 0 (no retrieval); leave it empty", v)
			}
		}
	} else {
		if r.RetrievalMethod != "" && !slices.Contains(RetrievalMethods, r.RetrievalMethod) {
			add("retrieval_method", "unknown value %q; want one of %s", r.RetrievalMethod, strings.Join(RetrievalMethods, ", "))
		}
		if r.CorpusID != "" && !corpusIDRe.MatchString(r.CorpusID) {
			add("corpus_id", "%q is not \"sha256:\" and 64 lowercase hex digits", r.CorpusID)
		}
		switch {
		case r.RetrievalMethod == "embedding" && r.EmbeddingModel == "":
			add("embedding_model", "required field missing: embedding retrieval must name its embedding model")
		case r.RetrievalMethod == "bm25" && r.EmbeddingModel != "":
			add("embedding_model", "is %q but bm25 retrieval uses no embedding model", r.EmbeddingModel)
		}
	}
	for _, m := range []struct {
		field string
		kv    map[string]string
	}{{"system_params", r.SystemParams}, {"generation.extra", r.Generation.Extra}} {
		for _, k := range sortedKeys(m.kv) {
			v := m.kv[k]
			switch {
			case !validParamKey.MatchString(k):
				add(m.field, "key %q must be non-empty and use only [A-Za-z0-9._-]", k)
			case reserved[m.field][k]:
				add(m.field+"."+k, "is a field of its own (%s); do not repeat it here", k)
			case strings.IndexFunc(v, unicode.IsControl) >= 0:
				add(m.field+"."+k, "value %q holds control characters (line breaks, tabs)", v)
			}
		}
	}
	return errs
}

// MaxPropertyCount bounds a tool-usage question's property count: the
// MatTools questions have 1 to 10 (138 over 49 questions); a count beyond
// this is damage, not a question.
const MaxPropertyCount = 1000

// minPassed is the lowest properties_passed a protocol can credit for k
// properties: 0, except under mattools-v1, whose credit for a partial
// question is MatTools' L[-1] − L[-2] (runner/scoring tallyV1): the number of
// expected properties (k) minus the number of error strings the question's
// unit test appended. A test appends at most two error strings per
// property in MatTools' 49 unit tests (a missing key, a wrong type or a
// wrong value add one; the two exceptions, test_HarmonicDefect's "list of
// tuples" check and test_chgcar_insertion's loop over its two site
// groups, add at most two; docs/mattools.md §1), so
// L[-2] ≤ 2k and the credit is at least k − 2k = −k. Anything lower is
// damage (−2,000,000,000 showed as −200000000000.00 on the leaderboard).
func minPassed(protocol string, k int) int {
	if protocol == ProtocolMatToolsV1 {
		return -max(k, 0) // a negative k is reported on its own
	}
	return 0
}

func validateToolUsage(f *File) []error {
	var errs []error
	r := &f.Run
	t := r.Totals
	qs := &r.QuestionSet
	if qs.Questions < 0 {
		errs = append(errs, metaErr("question_set.questions", "is %d; want ≥ 0", qs.Questions))
	}
	if maxProps := max(qs.Questions, 0) * MaxPropertyCount; qs.Properties < 0 || qs.Properties > maxProps {
		errs = append(errs, metaErr("question_set.properties", "is %d; want 0–%d (%d questions × at most %d properties)",
			qs.Properties, maxProps, qs.Questions, MaxPropertyCount))
	}
	if t.Properties != r.QuestionSet.Properties {
		errs = append(errs, metaErr("totals.properties", "is %d but the question set has %d", t.Properties, r.QuestionSet.Properties))
	}
	if t.Scored {
		if t.Runnable == nil || t.PropertiesPassed == nil {
			errs = append(errs, metaErr("totals", "a scored tool-usage run needs runnable and properties_passed"))
		} else {
			if *t.Runnable < 0 || *t.Runnable > t.Questions {
				errs = append(errs, metaErr("totals.runnable", "is %d; want 0–%d", *t.Runnable, t.Questions))
			}
			if lo := minPassed(r.ScoringProtocol, t.Properties); *t.PropertiesPassed > t.Properties || *t.PropertiesPassed < lo {
				errs = append(errs, metaErr("totals.properties_passed", "is %d; want %d–%d", *t.PropertiesPassed, lo, t.Properties))
			}
			for _, c := range []struct {
				field string
				n     *int
			}{{"totals.questions_correct", t.QuestionsCorrect}, {"totals.questions_partial", t.QuestionsPartial}} {
				if c.n != nil && (*c.n < 0 || *c.n > t.Questions) {
					errs = append(errs, metaErr(c.field, "is %d; want 0–%d", *c.n, t.Questions))
				}
			}
			if t.QuestionsCorrect != nil && t.QuestionsPartial != nil {
				if c := *t.QuestionsCorrect + *t.QuestionsPartial; c > *t.Runnable || (r.ScoringProtocol == ProtocolMatToolsOriginal && c != *t.Runnable) {
					errs = append(errs, metaErr("totals.runnable", "is %d but %d questions are correct or partial", *t.Runnable, c))
				}
			}
		}
	} else if t.Runnable != nil || t.PropertiesPassed != nil {
		errs = append(errs, metaErr("totals.scored", "is false but runnable or properties_passed is set"))
	}
	inSet := map[string]bool{}
	for _, id := range r.QuestionSet.IDs {
		inSet[id] = true
	}
	seenIdx, seenID := map[int32]bool{}, map[string]bool{}
	var scored, props, runnable, passed int
	known := true
	for i, q := range f.Questions {
		row := i + 1
		if seenIdx[q.QuestionIndex] {
			errs = append(errs, rowErr(row, "question_index", "%d appears twice", q.QuestionIndex))
		}
		if seenID[q.QuestionID] || q.QuestionID == "" {
			errs = append(errs, rowErr(row, "question_id", "%q is empty or appears twice", q.QuestionID))
		}
		seenIdx[q.QuestionIndex], seenID[q.QuestionID] = true, true
		errs = append(errs, validateQuestionText(row, &q)...)
		errs = append(errs, checkPropertyOutcomes(row, r.FormatVersion, &q)...)
		v := Verdict(q.Verdict)
		if !v.Valid() {
			errs = append(errs, rowErr(row, "verdict", "unknown value %q", q.Verdict))
			continue
		}
		if (q.Runnable == nil) != (q.PropertiesPassed == nil) {
			errs = append(errs, rowErr(row, "runnable", "runnable and properties_passed must both be set or both be null"))
			continue
		}
		if v == VerdictDataMissing {
			if q.Runnable != nil {
				errs = append(errs, rowErr(row, "runnable", "must be null for a data-missing question"))
			}
			if len(inSet) > 0 && inSet[q.QuestionID] {
				errs = append(errs, rowErr(row, "verdict", "question %s is data-missing but listed in question_set.ids", q.QuestionID))
			}
			continue
		}
		if q.PropertyCount < 0 || q.PropertyCount > MaxPropertyCount {
			errs = append(errs, rowErr(row, "property_count", "is %d; want 0–%d", q.PropertyCount, MaxPropertyCount))
		}
		scored++
		props += int(q.PropertyCount)
		if len(inSet) > 0 && !inSet[q.QuestionID] {
			errs = append(errs, rowErr(row, "question_id", "%s is not in question_set.ids", q.QuestionID))
		}
		if !t.Scored && v != VerdictUnknown {
			errs = append(errs, rowErr(row, "verdict", "is %s but the run is unscored (want unknown)", v))
			continue
		}
		if v == VerdictUnknown {
			known = false
			if q.Runnable != nil {
				errs = append(errs, rowErr(row, "runnable", "must be null when the verdict is unknown"))
			}
			continue
		}
		if q.Runnable == nil {
			errs = append(errs, rowErr(row, "runnable", "is null but the verdict is %s", v))
			known = false
			continue
		}
		switch {
		case v == VerdictCorrect && (!*q.Runnable || *q.PropertiesPassed != q.PropertyCount):
			errs = append(errs, rowErr(row, "properties_passed", "a correct question passes all %d properties and is runnable", q.PropertyCount))
		case v == VerdictPartial && (!*q.Runnable || *q.PropertiesPassed >= q.PropertyCount):
			errs = append(errs, rowErr(row, "properties_passed", "a partial question is runnable and fails at least one of its %d properties", q.PropertyCount))
		case v == VerdictNotRunnable && (*q.Runnable || *q.PropertiesPassed != 0):
			errs = append(errs, rowErr(row, "runnable", "a not-runnable question is not runnable and passes 0 properties"))
		case v == VerdictVerificationCrash && (*q.PropertiesPassed != 0 || (*q.Runnable && (r.ScoringProtocol == ProtocolMatToolsV1 || r.ScoringProtocol == ProtocolMatToolsOriginal))):
			errs = append(errs, rowErr(row, "runnable", "a verification crash passes 0 properties (and is not runnable under %s)", r.ScoringProtocol))
		}
		if lo := minPassed(r.ScoringProtocol, int(q.PropertyCount)); *q.PropertiesPassed > q.PropertyCount || int(*q.PropertiesPassed) < lo {
			errs = append(errs, rowErr(row, "properties_passed", "is %d; want %d–%d", *q.PropertiesPassed, lo, q.PropertyCount))
		}
		if *q.Runnable {
			runnable++
		}
		passed += int(*q.PropertiesPassed)
	}
	if scored != r.QuestionSet.Questions {
		errs = append(errs, metaErr("question_set.questions", "is %d but the file has %d scored question rows", r.QuestionSet.Questions, scored))
	}
	if props != r.QuestionSet.Properties {
		errs = append(errs, metaErr("question_set.properties", "is %d but the question rows add up to %d", r.QuestionSet.Properties, props))
	}
	if known && t.Scored && t.Runnable != nil && t.PropertiesPassed != nil && len(f.Questions) > 0 {
		if runnable != *t.Runnable {
			errs = append(errs, metaErr("totals.runnable", "is %d but %d rows are runnable", *t.Runnable, runnable))
		}
		if passed != *t.PropertiesPassed {
			errs = append(errs, metaErr("totals.properties_passed", "is %d but the rows add up to %d", *t.PropertiesPassed, passed))
		}
	}
	return errs
}

func validateQA(f *File) []error {
	var c qaCheck
	for i := range f.QAItems {
		c.add(i+1, &f.QAItems[i])
	}
	return c.finish(f.Run.Totals)
}

// qaCheck checks QA rows one at a time (validateQA, and the stream writer,
// which holds no rows): each row's own rules as it comes, the totals and
// the rows' sums at the end.
type qaCheck struct {
	rowErrs                                        []error
	rows, questions, correct, lenient, withLenient int
}

// add checks row (1-based) q.
func (c *qaCheck) add(row int, q *QAItem) {
	errs := c.rowErrs
	if q.Questions < 1 {
		errs = append(errs, rowErr(row, "questions", "is %d; want ≥ 1", q.Questions))
	}
	if q.Correct < 0 || q.Correct > q.Questions {
		errs = append(errs, rowErr(row, "correct", "is %d; want 0–%d", q.Correct, q.Questions))
	}
	if q.CorrectLenient != nil {
		c.withLenient++
		c.lenient += int(*q.CorrectLenient)
		if *q.CorrectLenient < 0 || *q.CorrectLenient > q.Questions {
			errs = append(errs, rowErr(row, "correct_lenient", "is %d; want 0–%d", *q.CorrectLenient, q.Questions))
		}
	}
	c.rows++
	c.questions += int(q.Questions)
	c.correct += int(q.Correct)
	if err := checkBytes(row, "answer_text_bytes", q.AnswerTextBytes, q.AnswerText); err != nil {
		errs = append(errs, err)
	}
	c.rowErrs = errs
}

// finish returns the problems of the totals t, of the rows added, and of
// the rows' sums against t, in that order.
func (c *qaCheck) finish(t Totals) []error {
	var errs []error
	if t.Scored && t.Correct == nil {
		errs = append(errs, metaErr("totals.correct", "a scored QA run needs correct"))
	}
	if t.Questions < 0 {
		errs = append(errs, metaErr("totals.questions", "is %d; want ≥ 0", t.Questions))
	}
	for _, n := range []struct {
		field string
		n     *int
	}{{"totals.correct", t.Correct}, {"totals.correct_lenient", t.CorrectLenient}} {
		if n.n != nil && (*n.n < 0 || *n.n > t.Questions) {
			errs = append(errs, metaErr(n.field, "is %d; want 0–%d", *n.n, t.Questions))
		}
	}
	errs = append(errs, c.rowErrs...)
	if c.questions != t.Questions {
		errs = append(errs, metaErr("totals.questions", "is %d but the rows add up to %d", t.Questions, c.questions))
	}
	if t.Correct != nil && *t.Correct != c.correct {
		errs = append(errs, metaErr("totals.correct", "is %d but the rows add up to %d", *t.Correct, c.correct))
	}
	switch {
	case c.withLenient != 0 && c.withLenient != c.rows:
		errs = append(errs, metaErr("correct_lenient", "is set on %d of %d rows; set it on all or none", c.withLenient, c.rows))
	case c.withLenient > 0 && (t.CorrectLenient == nil || *t.CorrectLenient != c.lenient):
		errs = append(errs, metaErr("totals.correct_lenient", "does not equal the rows' sum %d", c.lenient))
	}
	return errs
}

// validateQuestionText checks a tool-usage row's code and the format-v2
// columns: the original byte lengths of the capped texts, the retrieved
// context and the stage trace.
func validateQuestionText(row int, q *QuestionRow) []error {
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	// Code is never capped (re-execution must see it whole). A cut made at a
	// byte limit usually splits a UTF-8 sequence; model answers arrive as
	// JSON strings, which are always valid UTF-8.
	if !utf8.ValidString(q.Code) {
		add(rowErr(row, "code", "is not valid UTF-8, a sign of capping; code is never capped or truncated"))
	}
	add(checkBytes(row, "error_excerpt_bytes", q.ErrorExcerptBytes, q.ErrorExcerpt))
	add(checkBytes(row, "stdout_bytes", q.StdoutBytes, q.StdoutExcerpt))
	add(checkBytes(row, "stderr_bytes", q.StderrBytes, q.StderrExcerpt))
	add(checkBytes(row, "verification_output_bytes", q.VerificationOutputBytes, q.VerificationOutput))
	add(checkBytes(row, "response_bytes", q.ResponseBytes, q.Response))
	ranks := map[int32]bool{}
	for i, c := range q.Retrieved {
		field := fmt.Sprintf("retrieved[%d]", i)
		switch {
		case c.ChunkID == "":
			add(rowErr(row, field+".chunk_id", "required field missing (empty)"))
		case c.Rank < 1:
			add(rowErr(row, field+".rank", "is %d; want ≥ 1", c.Rank))
		case ranks[c.Rank]:
			add(rowErr(row, field+".rank", "%d appears twice", c.Rank))
		case math.IsNaN(c.Score) || math.IsInf(c.Score, 0):
			add(rowErr(row, field+".score", "is %v; want a finite number", c.Score))
		}
		ranks[c.Rank] = true
	}
	for i, st := range q.Trace {
		field := fmt.Sprintf("trace[%d]", i)
		switch {
		case st.Stage == "":
			add(rowErr(row, field+".stage", "required field missing (empty)"))
		case st.Iteration < 0:
			add(rowErr(row, field+".iteration", "is %d; want ≥ 0", st.Iteration))
		case st.PromptTokens < 0:
			add(rowErr(row, field+".prompt_tokens", "is %d; want ≥ 0", st.PromptTokens))
		case st.CompletionTokens < 0:
			add(rowErr(row, field+".completion_tokens", "is %d; want ≥ 0", st.CompletionTokens))
		case st.LatencyMS < 0:
			add(rowErr(row, field+".latency_ms", "is %d; want ≥ 0", st.LatencyMS))
		case st.Verdict != "" && !Verdict(st.Verdict).Valid():
			add(rowErr(row, field+".verdict", "unknown value %q", st.Verdict))
		case slices.Contains(st.RetrievedIDs, ""):
			add(rowErr(row, field+".retrieved_ids", "holds an empty chunk id"))
		}
	}
	return errs
}

func joinSystems(ss []System) string {
	var out []string
	for _, s := range ss {
		out = append(out, string(s))
	}
	return strings.Join(out, ", ")
}

// checkPropertyOutcomes checks a row's per-property outcomes (format v3):
// none in files of earlier versions and none for a question without an
// outcome; otherwise one per property of the question, named, each name
// once, valid UTF-8, as many passed as properties_passed says and the
// failed ones, in order, failed_properties when that is set.
func checkPropertyOutcomes(row, version int, q *QuestionRow) []error {
	po := q.PropertyOutcomes
	if len(po) == 0 {
		return nil
	}
	const field = "property_outcomes"
	if version < 3 {
		return []error{rowErr(row, field, "is a column of format version 3; this file is version %d", version)}
	}
	if v := Verdict(q.Verdict); v == VerdictDataMissing || v == VerdictUnknown || q.PropertiesPassed == nil {
		return []error{rowErr(row, field, "lists %d outcomes but the question has none (verdict %s, properties_passed null); leave it empty", len(po), q.Verdict)}
	}
	var errs []error
	if len(po) != int(q.PropertyCount) {
		errs = append(errs, rowErr(row, field, "lists %d properties but property_count is %d", len(po), q.PropertyCount))
	}
	seen := map[string]bool{}
	passed := 0
	var failed []string
	for i, o := range po {
		switch {
		case o.Property == "":
			errs = append(errs, rowErr(row, fmt.Sprintf("%s[%d].property", field, i), "required field missing (empty)"))
		case seen[o.Property]:
			errs = append(errs, rowErr(row, fmt.Sprintf("%s[%d].property", field, i), "%q appears twice", o.Property))
		}
		if !utf8.ValidString(o.Message) {
			errs = append(errs, rowErr(row, fmt.Sprintf("%s[%d].message", field, i), "is not valid UTF-8"))
		}
		seen[o.Property] = true
		if o.Passed {
			passed++
		} else {
			failed = append(failed, o.Property)
		}
	}
	if passed != int(*q.PropertiesPassed) {
		errs = append(errs, rowErr(row, field, "%d of its %d properties passed but properties_passed is %d", passed, len(po), *q.PropertiesPassed))
	}
	if len(q.FailedProperties) > 0 && !slices.Equal(q.FailedProperties, failed) {
		errs = append(errs, rowErr(row, "failed_properties", "is %q but the failed properties of property_outcomes are %q", q.FailedProperties, failed))
	}
	return errs
}

// checkBytes checks the original byte length of a capped text: ≥ 0 and at
// least the stored excerpt's length.
func checkBytes(row int, field string, n *int64, text *string) error {
	switch {
	case n == nil:
		return nil
	case *n < 0:
		return rowErr(row, field, "is %d; want ≥ 0", *n)
	case text != nil && *n < int64(len(*text)):
		return rowErr(row, field, "is %d but the stored text has %d bytes; it counts the text before capping", *n, len(*text))
	}
	return nil
}
