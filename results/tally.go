package results

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// ExecutableQuestionSet names the question set of a scored tool-usage run
// from the ids it was scored on (in the published evaluation order) and
// their property count, out of a benchmark of total questions: "all" when
// ids are the whole benchmark, otherwise "executable-" and 8 hex digits of
// the SHA-256 of the ids joined by newlines (a subset lists its ids), so
// that runs on different subsets are never aggregated together. The runner,
// cmd/rescore and the importer's re-executed runs all name sets this way.
func ExecutableQuestionSet(ids []string, properties, total int) QuestionSet {
	qs := QuestionSet{Questions: len(ids), Properties: properties}
	if len(ids) == total {
		qs.Name = QuestionSetAll
		return qs
	}
	sum := sha256.Sum256([]byte(strings.Join(ids, "\n")))
	qs.Name = "executable-" + hex.EncodeToString(sum[:4])
	qs.IDs = append([]string(nil), ids...)
	return qs
}

// Tally returns the totals of a scored tool-usage run from its rows over
// question set qs: runnable questions, fully and partially correct
// questions and properties passed, as MatTools' result_analysis.py counts
// them (see docs/mattools.md §2), and the ids of the data-missing
// questions in row order (they count for nothing).
func Tally(rows []QuestionRow, qs QuestionSet) (Totals, []string) {
	var runnable, correct, partial, passed int
	var missing []string
	for _, r := range rows {
		switch Verdict(r.Verdict) {
		case VerdictDataMissing:
			missing = append(missing, r.QuestionID)
			continue
		case VerdictCorrect:
			correct++
		case VerdictPartial:
			partial++
		}
		if r.Runnable != nil && *r.Runnable {
			runnable++
		}
		if r.PropertiesPassed != nil {
			passed += int(*r.PropertiesPassed)
		}
	}
	return Totals{Scored: true, Questions: qs.Questions, Properties: qs.Properties,
		Runnable: &runnable, QuestionsCorrect: &correct, QuestionsPartial: &partial, PropertiesPassed: &passed}, missing
}
