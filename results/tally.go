package results

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
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

// PropertySet is a question set defined by properties: question id → the
// names of the properties it counts (e.g. the verified set of
// docs/benchmark-audit.md).
type PropertySet map[string][]string

// Size returns the set's questions and properties.
func (s PropertySet) Size() (questions, properties int) {
	for _, props := range s {
		if len(props) > 0 {
			questions++
			properties += len(props)
		}
	}
	return questions, properties
}

// TallyProperties scores a run's stored rows on set without re-executing
// anything: the properties of set that passed, by the rows' per-property
// outcomes (format v3), and set's properties in all. It is an error, naming
// the question, when a question of set has no row, or a row without
// per-property outcomes (a file of format v1 or v2, a mattools-v1 partial
// question, a data-missing question: those must be re-executed, or are
// outside the run), or without one of set's properties.
func TallyProperties(rows []QuestionRow, set PropertySet) (passed, total int, err error) {
	byID := map[string][]PropertyPass{}
	verdict := map[string]string{}
	for i := range rows {
		q := &rows[i]
		verdict[q.QuestionID] = q.Verdict
		po := make([]PropertyPass, len(q.PropertyOutcomes))
		for j, o := range q.PropertyOutcomes {
			po[j] = PropertyPass{Property: o.Property, Passed: o.Passed}
		}
		byID[q.QuestionID] = po
	}
	return tallyProperties(byID, verdict, set)
}

// TallySummaryProperties is TallyProperties on a run's rows as the
// leaderboard keeps them (SummaryRow.Outcomes), with the same errors.
func TallySummaryProperties(rows []SummaryRow, set PropertySet) (passed, total int, err error) {
	byID := map[string][]PropertyPass{}
	verdict := map[string]string{}
	for i := range rows {
		byID[rows[i].QuestionID] = rows[i].Outcomes
		verdict[rows[i].QuestionID] = rows[i].Verdict
	}
	return tallyProperties(byID, verdict, set)
}

// TallySummaryPropertiesByQuestion is TallySummaryProperties per question
// of set: ids in sorted order (questions with no property in set left
// out), and for each the properties of set its row passed and scored; the
// same errors.
func TallySummaryPropertiesByQuestion(rows []SummaryRow, set PropertySet) (ids []string, passed, total []int, err error) {
	byID := map[string][]PropertyPass{}
	verdict := map[string]string{}
	for i := range rows {
		byID[rows[i].QuestionID] = rows[i].Outcomes
		verdict[rows[i].QuestionID] = rows[i].Verdict
	}
	return tallyByQuestion(byID, verdict, set)
}

// tallyProperties scores set on the per-property outcomes of each
// question's row (question id → outcomes; a question with a row is in
// verdict).
func tallyProperties(byID map[string][]PropertyPass, verdict map[string]string, set PropertySet) (passed, total int, err error) {
	_, ps, ts, err := tallyByQuestion(byID, verdict, set)
	if err != nil {
		return 0, 0, err
	}
	for i := range ps {
		passed += ps[i]
		total += ts[i]
	}
	return passed, total, nil
}

// tallyByQuestion is tallyProperties per question, in sorted id order.
func tallyByQuestion(byID map[string][]PropertyPass, verdict map[string]string, set PropertySet) (out []string, passed, total []int, err error) {
	ids := make([]string, 0, len(set))
	for id := range set {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		props := set[id]
		if len(props) == 0 {
			continue
		}
		v, ok := verdict[id]
		switch {
		case !ok:
			return nil, nil, nil, fmt.Errorf("question %s: no row", id)
		case len(byID[id]) == 0:
			return nil, nil, nil, fmt.Errorf("question %s: the row (verdict %s) has no per-property outcomes; re-execute it to score it by property", id, v)
		}
		outcome := map[string]bool{}
		for _, o := range byID[id] {
			outcome[o.Property] = o.Passed
		}
		p, n := 0, 0
		for _, name := range props {
			ok, found := outcome[name]
			if !found {
				return nil, nil, nil, fmt.Errorf("question %s: the row has no outcome for property %q", id, name)
			}
			n++
			if ok {
				p++
			}
		}
		out, passed, total = append(out, id), append(passed, p), append(total, n)
	}
	return out, passed, total, nil
}
