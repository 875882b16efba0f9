package results

import (
	"errors"
	"fmt"
	"strconv"
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

// Validate checks f against the rules of format v1 (FORMAT.md): known enum
// values, a citation on imported runs, rows that match the question set, and
// totals that equal the sums of the rows wherever the rows carry outcomes.
// Errors are *FormatError without a file name; several are joined.
func Validate(f *File) error {
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	r := &f.Run
	if r.FormatVersion != FormatVersion {
		add(metaErr("format_version", "is %d; this format is version %d", r.FormatVersion, FormatVersion))
	}
	if !validRunID.MatchString(r.RunID) {
		add(metaErr("run_id", "%q must be non-empty and use only [A-Za-z0-9._-]", r.RunID))
	}
	if r.Variant != "" && !validRunID.MatchString(r.Variant) {
		add(metaErr("variant", "%q must use only [A-Za-z0-9._-]", r.Variant))
	}
	switch {
	case r.Provenance.Kind == ProvenanceRescored && r.Provenance.Origin != ProvenanceImported && r.Provenance.Origin != ProvenanceRunner:
		add(metaErr("provenance.origin", "is %q; a rescored run must say where its code came from (imported or runner)", r.Provenance.Origin))
	case r.Provenance.Kind != ProvenanceRescored && r.Provenance.Origin != "":
		add(metaErr("provenance.origin", "is only for rescored runs"))
	}
	if err := checkEnum("benchmark", r.Benchmark, benchmarks); err != nil {
		add(&FormatError{Err: err})
	}
	if err := checkEnum("system", r.System, systems); err != nil {
		add(&FormatError{Err: err})
	}
	if err := checkEnum("provenance.kind", r.Provenance.Kind, provenances); err != nil {
		add(&FormatError{Err: err})
	}
	for field, v := range map[string]string{"benchmark_version": r.BenchmarkVersion, "model": r.Model,
		"scoring_protocol": r.ScoringProtocol, "question_set.name": r.QuestionSet.Name,
		"environment.generator": r.Environment.Generator} {
		if v == "" {
			add(metaErr(field, "is empty"))
		}
	}
	if r.RetrievalSource < 0 || r.RetrievalSource > 4 {
		add(metaErr("retrieval_source", "is %d; want 0 (none) to 4", r.RetrievalSource))
	}
	if r.Round < 0 {
		add(metaErr("round", "is %d; want ≥ 0", r.Round))
	}
	if r.Provenance.Kind == ProvenanceImported && r.Provenance.Citation == "" {
		add(metaErr("provenance.citation", "imported runs must cite their source"))
	}
	if r.QuestionSet.Name != QuestionSetAll && (r.Benchmark == BenchmarkToolUsage || len(r.QuestionSet.IDs) > 0) &&
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
	if r.Benchmark.IsQA() {
		if len(f.Questions) > 0 {
			add(metaErr("benchmark", "%s files hold QA items, not tool-usage questions", r.Benchmark))
		}
		errs = append(errs, validateQA(f)...)
	} else if r.Benchmark == BenchmarkToolUsage {
		if len(f.QAItems) > 0 {
			add(metaErr("benchmark", "tool-usage files hold questions, not QA items"))
		}
		errs = append(errs, validateToolUsage(f)...)
	}
	return errors.Join(errs...)
}

func validateToolUsage(f *File) []error {
	var errs []error
	r := &f.Run
	t := r.Totals
	// Only MatTools' own arithmetic (mattools-v1) can credit a question with
	// fewer than zero properties (reference §2.4 E).
	negativeOK := r.ScoringProtocol == ProtocolMatToolsV1
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
			if *t.PropertiesPassed > t.Properties || (*t.PropertiesPassed < 0 && !negativeOK) {
				errs = append(errs, metaErr("totals.properties_passed", "is %d; want 0–%d", *t.PropertiesPassed, t.Properties))
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
		if *q.PropertiesPassed > q.PropertyCount || (*q.PropertiesPassed < 0 && !negativeOK) {
			errs = append(errs, rowErr(row, "properties_passed", "is %d; want 0–%d", *q.PropertiesPassed, q.PropertyCount))
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
	var errs []error
	t := f.Run.Totals
	if t.Scored && t.Correct == nil {
		errs = append(errs, metaErr("totals.correct", "a scored QA run needs correct"))
	}
	var questions, correct, lenient, withLenient int
	for i, q := range f.QAItems {
		row := i + 1
		if q.Questions < 1 {
			errs = append(errs, rowErr(row, "questions", "is %d; want ≥ 1", q.Questions))
		}
		if q.Correct < 0 || q.Correct > q.Questions {
			errs = append(errs, rowErr(row, "correct", "is %d; want 0–%d", q.Correct, q.Questions))
		}
		if q.CorrectLenient != nil {
			withLenient++
			lenient += int(*q.CorrectLenient)
			if *q.CorrectLenient < 0 || *q.CorrectLenient > q.Questions {
				errs = append(errs, rowErr(row, "correct_lenient", "is %d; want 0–%d", *q.CorrectLenient, q.Questions))
			}
		}
		questions += int(q.Questions)
		correct += int(q.Correct)
	}
	if questions != t.Questions {
		errs = append(errs, metaErr("totals.questions", "is %d but the rows add up to %d", t.Questions, questions))
	}
	if t.Correct != nil && *t.Correct != correct {
		errs = append(errs, metaErr("totals.correct", "is %d but the rows add up to %d", *t.Correct, correct))
	}
	switch {
	case withLenient != 0 && withLenient != len(f.QAItems):
		errs = append(errs, metaErr("correct_lenient", "is set on %d of %d rows; set it on all or none", withLenient, len(f.QAItems)))
	case withLenient > 0 && (t.CorrectLenient == nil || *t.CorrectLenient != lenient):
		errs = append(errs, metaErr("totals.correct_lenient", "does not equal the rows' sum %d", lenient))
	}
	return errs
}
