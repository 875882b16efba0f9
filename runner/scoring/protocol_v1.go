package scoring

import (
	"encoding/json"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/results"
)

// mattoolsV1 is protocol mattools-v1: MatTools' scorer reimplemented,
// quirks included (docs/mattools.md §2.4). It judges what the function
// printed (Printed), parsed whatever the run did: only stdout counts in
// MatTools, so a function that printed its dict and then raised is still
// checked. The check is the unit test called once with the whole dict:
// "ok" anywhere in its output makes the question correct with all its
// properties; a list L gives partial with L[-1] − L[-2] properties (which
// may undercount, even go negative); anything else, or no report, is a
// verification crash that MatTools counts as a function error (not
// runnable). Only a correct question gets per-property outcomes (every
// property passed): a count of error strings cannot be attributed to
// properties.
type mattoolsV1 struct{}

func init() { mustRegister(mattoolsV1{}) }

func (mattoolsV1) ID() string       { return results.ProtocolMatToolsV1 }
func (mattoolsV1) Channel() Channel { return Printed }

func (mattoolsV1) Admit(runCause string, p Parse) string { return ParseCause(runCause, p) }

func (v mattoolsV1) Judge(q *datasets.Question, c Check) (Outcome, error) {
	if !c.Answered {
		return VerificationCrash(v.ID(), c.HarnessCause, c.HarnessDetail, false), nil
	}
	o := tallyV1(len(q.Properties), c.Decision, c.List, c.Text)
	if o.Verdict == results.VerdictCorrect {
		for _, p := range q.Properties {
			o.Properties = append(o.Properties, results.PropertyOutcome{Property: p.Name, Passed: true})
		}
	}
	return o, nil
}

// tallyV1 applies MatTools' tally (docs/mattools.md §2.4 E) to the
// check's decision: "ok" → correct with all k properties; a list L →
// partial with L[-1] − L[-2]; anything else → a function error, which we
// call a verification crash (not runnable, 0 properties).
func tallyV1(k int, decision string, list []json.RawMessage, text string) Outcome {
	o := Outcome{Protocol: results.ProtocolMatToolsV1, VerificationOutput: text}
	switch decision {
	case "ok":
		o.Verdict, o.Runnable, o.PropertiesPassed = results.VerdictCorrect, true, k
		return o
	case "list":
		n := len(list)
		var last, prev float64
		if n < 2 || json.Unmarshal(list[n-1], &last) != nil || json.Unmarshal(list[n-2], &prev) != nil ||
			last != float64(int(last)) || prev != float64(int(prev)) {
			o.Verdict, o.Cause, o.Detail = results.VerdictVerificationCrash, CauseVerifyMalformed, text
			return o
		}
		for _, raw := range list[:n-2] {
			var s string
			if json.Unmarshal(raw, &s) != nil {
				s = string(raw)
			}
			o.Errors = append(o.Errors, s)
		}
		o.Verdict, o.Runnable, o.PropertiesPassed = results.VerdictPartial, true, int(last)-int(prev)
		return o
	}
	o.Verdict, o.Cause, o.Detail = results.VerdictVerificationCrash, CauseVerifyOutput, text
	return o
}
