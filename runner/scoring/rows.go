package scoring

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/results"
)

// What a scored run records, shared by every producer of scored tool-usage
// runs (the runner and cmd/rescore), so that a question scored by either
// gets the same row and a run the same question set, totals and warnings.

// ExcerptBytes caps each text column of a scored row: error_excerpt,
// stdout_excerpt (its first bytes), stderr_excerpt (its last bytes) and
// verification_output. The bytes cut from stdout and stderr are counted in
// the *_dropped_bytes columns.
const ExcerptBytes = 4000

// QuestionSet returns the question set of a scored run over benchmark b:
// the questions whose data files are all present (datasets.Question
// Executable), with their property count. It is named "all" when that is
// the whole benchmark, otherwise "executable-" and 8 hex digits of the
// SHA-256 of the ids joined by newlines, in the published evaluation order,
// so that runs on different subsets are never aggregated together; a subset
// lists its ids.
func QuestionSet(b *datasets.Benchmark) results.QuestionSet {
	var ids []string
	props := 0
	for _, q := range b.Questions {
		if q.Executable() {
			ids = append(ids, q.ID)
			props += len(q.Properties)
		}
	}
	return results.ExecutableQuestionSet(ids, props, len(b.Questions))
}

// LeftOut is the placeholder data file Restrict gives the questions it
// leaves out.
const LeftOut = "(left out: not among the questions to score)"

// Restrict leaves every question of b whose id is not in ids out of
// scoring: it gives it an absent data file (LeftOut), so that it is
// data-missing and outside QuestionSet, as a question whose data is absent.
// It is for scoring a few questions (tests, rescore -questions). b is
// modified; an id that is not a question of b is an error.
func Restrict(b *datasets.Benchmark, ids []string) error {
	known := map[string]bool{}
	for _, q := range b.Questions {
		known[q.ID] = true
	}
	for _, id := range ids {
		if !known[id] {
			return fmt.Errorf("question %q is not a question of the benchmark", id)
		}
	}
	for i := range b.Questions {
		q := &b.Questions[i]
		if !slices.Contains(ids, q.ID) {
			q.DataFiles = append(q.DataFiles, datasets.DataFile{Path: LeftOut})
		}
	}
	return nil
}

// FillRow writes s's outcome under protocol p into row: verdict and cause;
// for a scored question also runnable, properties passed, the failed
// properties and the per-property outcomes (Outcome.Properties, each
// message capped at ExcerptBytes; format v3), the error (the function's exception for a question that is not
// runnable, then the check's errors or the crash text), the excerpts of what
// the function printed, the check's output and the sandbox time. A
// data-missing question gets only its verdict (runnable and properties
// passed stay null). Texts are capped at ExcerptBytes and made valid UTF-8;
// each one's original length goes to its *_bytes column (format v2),
// counted as the excerpt's bytes plus the bytes cut, so that it is never
// less than the excerpt (an invalid UTF-8 sequence counts as its
// replacement, U+FFFD). The other columns of row (code, model usage) are
// left as they are. A protocol Outcome does not know is an error, and row
// is left as it is.
func (s *Scored) FillRow(row *results.QuestionRow, p string) error {
	o, err := s.Outcome(p)
	if err != nil {
		return err
	}
	row.Verdict, row.VerdictCause = string(o.Verdict), o.Cause
	if o.Verdict == results.VerdictDataMissing {
		return nil
	}
	rn, pp := o.Runnable, int32(o.PropertiesPassed)
	row.Runnable, row.PropertiesPassed = &rn, &pp
	row.FailedProperties = append([]string(nil), o.FailedProperties...)
	row.PropertyOutcomes = nil
	for _, po := range o.Properties {
		if len(po.Message) > ExcerptBytes {
			po.Message = po.Message[:ExcerptBytes]
		}
		po.Message = strings.ToValidUTF8(po.Message, "\uFFFD")
		row.PropertyOutcomes = append(row.PropertyOutcomes, po)
	}
	detail := o.Detail
	if len(o.Errors) > 0 {
		detail = strings.Join(o.Errors, "\n")
	}
	if s.RunError != "" && !o.Runnable {
		detail = strings.TrimSpace(s.RunError + "\n" + detail)
	}
	if detail != "" {
		var cut *int64
		row.ErrorExcerpt, cut = excerpt([]byte(detail), 0)
		row.ErrorExcerptBytes = originalBytes(row.ErrorExcerpt, cut)
	}
	if o.VerificationOutput != "" {
		var cut *int64
		row.VerificationOutput, cut = excerpt([]byte(o.VerificationOutput), 0)
		row.VerificationOutputBytes = originalBytes(row.VerificationOutput, cut)
	}
	if s.Stdout != nil {
		row.StdoutExcerpt, row.StdoutDroppedBytes = excerpt(s.Stdout, s.StdoutDropped)
		row.StderrExcerpt, row.StderrDroppedBytes = excerpt(tailBytes(s.Stderr, ExcerptBytes), s.StderrDropped+int64(max(0, len(s.Stderr)-ExcerptBytes)))
		row.StdoutBytes = originalBytes(row.StdoutExcerpt, row.StdoutDroppedBytes)
		row.StderrBytes = originalBytes(row.StderrExcerpt, row.StderrDroppedBytes)
	}
	if s.ExecDuration > 0 {
		ms := s.ExecDuration.Milliseconds()
		row.ExecMS = &ms
	}
	return nil
}

// Trim cuts what the function printed to what FillRow keeps (the first
// ExcerptBytes of stdout, the last ExcerptBytes of stderr), counting the
// rest in the dropped counts, so that a Scored can be stored compactly
// (the runner's journal) and still fill the same rows.
func (s *Scored) Trim() {
	if n := len(s.Stdout); n > ExcerptBytes {
		s.StdoutDropped += int64(n - ExcerptBytes)
		s.Stdout = s.Stdout[:ExcerptBytes:ExcerptBytes]
	}
	if n := len(s.Stderr); n > ExcerptBytes {
		s.StderrDropped += int64(n - ExcerptBytes)
		s.Stderr = s.Stderr[n-ExcerptBytes:]
	}
}

func excerpt(b []byte, dropped int64) (*string, *int64) {
	s := string(b)
	if len(s) > ExcerptBytes {
		dropped += int64(len(s) - ExcerptBytes)
		s = s[:ExcerptBytes]
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	return &s, &dropped
}

// originalBytes returns the length of the text an excerpt was cut from:
// its bytes plus the bytes cut.
func originalBytes(excerpt *string, cut *int64) *int64 {
	n := int64(len(*excerpt)) + *cut
	return &n
}

func tailBytes(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// Tally is results.Tally: the totals of a scored run from its rows (filled
// by FillRow) and the ids of its data-missing questions.
func Tally(rows []results.QuestionRow, qs results.QuestionSet) (results.Totals, []string) {
	return results.Tally(rows, qs)
}

// Warnings returns the warnings every scored run records: the CPU-time
// limit per process (when the sandbox records one) and the wall-clock limit
// per execution (MatTools had neither) and, when questions were left out
// because their data files are absent (missing, from Tally), how many, which,
// and that the run must not be compared with full-set runs.
func Warnings(sb *results.Sandbox, b *datasets.Benchmark, qs results.QuestionSet, missing []string) []string {
	w := []string{fmt.Sprintf("wall-clock limit %s per execution (MatTools had none); resource limits in environment.sandbox",
		time.Duration(sb.TimeoutSeconds*float64(time.Second)))}
	if cpu := sb.Limits["cpu"]; cpu != "" {
		w[0] = fmt.Sprintf("CPU-time limit %s per process and wall-clock limit %s per execution (MatTools had none); resource limits in environment.sandbox",
			cpu, time.Duration(sb.TimeoutSeconds*float64(time.Second)))
	}
	if len(missing) > 0 {
		w = append(w, fmt.Sprintf("scored on %d of %d questions (%d of %d properties): data files absent for %d questions (%s); never compare with full-set runs",
			qs.Questions, len(b.Questions), qs.Properties, b.Properties(), len(missing), strings.Join(missing, ", ")))
	}
	return w
}
