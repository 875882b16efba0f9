package aggregate

import (
	"slices"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/results"
)

// Outcome is one class of the failure taxonomy: what happened to
// one question in one round, from the recorded verdict and verdict cause.
type Outcome string

// The outcomes, in display order: the runnable ones first, then the causes
// of not-runnable verdicts, then verification crashes.
const (
	OutcomeCorrect     Outcome = "correct"      // every property passed
	OutcomePartial     Outcome = "partial"      // runnable; some, not all, properties passed
	OutcomeWrongValues Outcome = "wrong-values" // runnable; no property passed
	// Exceptions raised by the generated program, by Python type.
	OutcomeImportError    Outcome = "import-error"    // ImportError or ModuleNotFoundError
	OutcomeAttributeError Outcome = "attribute-error" // AttributeError
	OutcomeNameError      Outcome = "name-error"      // NameError, UnboundLocalError
	OutcomeTypeError      Outcome = "type-error"      // TypeError
	OutcomeOtherException Outcome = "other-exception" // any other exception type
	OutcomeTimeout        Outcome = "timeout"         // the sandbox's wall-clock limit expired
	// The printed value could not be read back: not parseable, not a
	// non-empty dict, or nothing printed.
	OutcomeUnparseable Outcome = "unparseable-output"
	OutcomeNoDict      Outcome = "no-dict"
	OutcomeEmptyCode   Outcome = "empty-code" // no code could be extracted from the answer
	OutcomeSyntaxError Outcome = "syntax-error"
	// The function needs arguments, or the named function is not defined.
	OutcomeRequiredParameters Outcome = "required-parameters"
	OutcomeMissingFunction    Outcome = "missing-function"
	OutcomeOtherNotRunnable   Outcome = "other-not-runnable" // killed, code too large, an unlisted cause
	OutcomeVerificationCrash  Outcome = "verification-crash" // the verification step itself failed
)

// Outcomes lists every outcome in display order.
var Outcomes = []Outcome{OutcomeCorrect, OutcomePartial, OutcomeWrongValues, OutcomeImportError, OutcomeAttributeError,
	OutcomeNameError, OutcomeTypeError, OutcomeOtherException, OutcomeTimeout, OutcomeUnparseable, OutcomeNoDict, OutcomeEmptyCode,
	OutcomeSyntaxError, OutcomeRequiredParameters, OutcomeMissingFunction, OutcomeOtherNotRunnable, OutcomeVerificationCrash}

// Title names an outcome in a column heading.
func (o Outcome) Title() string {
	switch o {
	case OutcomeCorrect:
		return "Correct"
	case OutcomePartial:
		return "Partly right"
	case OutcomeWrongValues:
		return "Wrong values"
	case OutcomeImportError:
		return "ImportError"
	case OutcomeAttributeError:
		return "AttributeError"
	case OutcomeNameError:
		return "NameError"
	case OutcomeTypeError:
		return "TypeError"
	case OutcomeOtherException:
		return "Other exception"
	case OutcomeTimeout:
		return "Timeout"
	case OutcomeUnparseable:
		return "Unparseable output"
	case OutcomeNoDict:
		return "No dict"
	case OutcomeEmptyCode:
		return "No code"
	case OutcomeSyntaxError:
		return "Syntax error"
	case OutcomeRequiredParameters:
		return "Needs arguments"
	case OutcomeMissingFunction:
		return "Function missing"
	case OutcomeOtherNotRunnable:
		return "Other (not runnable)"
	case OutcomeVerificationCrash:
		return "Verification crash"
	}
	return string(o)
}

// Classify returns the outcome of one question row; ok is false for rows
// with no scored outcome (verdict data-missing or unknown).
func Classify(q *results.QuestionRow) (o Outcome, ok bool) {
	return classify(q.Verdict, q.VerdictCause, q.PropertiesPassed)
}

// ClassifyRow is Classify of a row's summary columns.
func ClassifyRow(q *results.SummaryRow) (o Outcome, ok bool) {
	return classify(q.Verdict, q.VerdictCause, q.PropertiesPassed)
}

func classify(verdict, cause string, passed *int32) (o Outcome, ok bool) {
	switch results.Verdict(verdict) {
	case results.VerdictCorrect:
		return OutcomeCorrect, true
	case results.VerdictPartial:
		if passed != nil && *passed > 0 {
			return OutcomePartial, true
		}
		return OutcomeWrongValues, true
	case results.VerdictVerificationCrash:
		return OutcomeVerificationCrash, true
	case results.VerdictNotRunnable:
	default:
		return "", false
	}
	if typ, isExc := strings.CutPrefix(cause, "exception:"); isExc {
		switch typ {
		case "ImportError", "ModuleNotFoundError":
			return OutcomeImportError, true
		case "AttributeError":
			return OutcomeAttributeError, true
		case "NameError", "UnboundLocalError":
			return OutcomeNameError, true
		case "TypeError":
			return OutcomeTypeError, true
		}
		return OutcomeOtherException, true
	}
	switch cause {
	case "timeout":
		return OutcomeTimeout, true
	case "unparseable-output":
		return OutcomeUnparseable, true
	case "no-dict", "no-output":
		return OutcomeNoDict, true
	case "empty-code":
		return OutcomeEmptyCode, true
	case "syntax-error":
		return OutcomeSyntaxError, true
	case "required-parameters":
		return OutcomeRequiredParameters, true
	case "missing-function":
		return OutcomeMissingFunction, true
	}
	return OutcomeOtherNotRunnable, true
}

// Taxonomy is a configuration's failure taxonomy over its aggregated rounds:
// every question outcome (question × round) classified by Classify.
type Taxonomy struct {
	// Outcomes counts the classified question outcomes (data-missing and
	// unknown rows are left out): the denominator of the shares.
	Outcomes int
	Counts   map[Outcome]int
	// Examples lists, per outcome, the questions it happened to, in the
	// published evaluation order, each with its rounds.
	Examples map[Outcome][]Example
	// Causes counts the raw verdict causes behind each outcome, e.g.
	// "exception:ModuleNotFoundError" under OutcomeImportError.
	Causes map[Outcome]map[string]int
}

// Example is a question an outcome happened to, and in which rounds.
type Example struct {
	QuestionID    string
	QuestionIndex int
	Rounds        []int
}

// Share returns the share of o among the classified outcomes, percent 0–100
// (0 when there are none).
func (t *Taxonomy) Share(o Outcome) float64 {
	if t.Outcomes == 0 {
		return 0
	}
	return 100 * float64(t.Counts[o]) / float64(t.Outcomes)
}

// Taxonomy returns the configuration's failure taxonomy over its
// aggregated runs, or nil when no run has a per-question outcome (MatTools'
// published totals) or the benchmark is not of kind tool usage.
func (c *Configuration) Taxonomy() *Taxonomy {
	if c.Key.Benchmark.Kind() != results.KindToolUsage {
		return nil
	}
	t := &Taxonomy{Counts: map[Outcome]int{}, Examples: map[Outcome][]Example{}, Causes: map[Outcome]map[string]int{}}
	for _, r := range c.RunsWith(StatusAggregated) {
		for i := range r.Questions {
			q := &r.Questions[i]
			o, ok := ClassifyRow(q)
			if !ok {
				continue
			}
			t.Outcomes++
			t.Counts[o]++
			if t.Causes[o] == nil {
				t.Causes[o] = map[string]int{}
			}
			t.Causes[o][q.VerdictCause]++
			ex := t.Examples[o]
			j := slices.IndexFunc(ex, func(e Example) bool { return e.QuestionID == q.QuestionID })
			if j < 0 {
				ex = append(ex, Example{QuestionID: q.QuestionID, QuestionIndex: int(q.QuestionIndex)})
				j = len(ex) - 1
			}
			if !slices.Contains(ex[j].Rounds, r.Round()) {
				ex[j].Rounds = append(ex[j].Rounds, r.Round())
			}
			t.Examples[o] = ex
		}
	}
	if t.Outcomes == 0 {
		return nil
	}
	for o, ex := range t.Examples {
		slices.SortFunc(ex, func(a, b Example) int { return a.QuestionIndex - b.QuestionIndex })
		for _, e := range ex {
			slices.Sort(e.Rounds)
		}
		t.Examples[o] = ex
	}
	return t
}
