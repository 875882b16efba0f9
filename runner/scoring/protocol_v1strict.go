package scoring

import (
	"fmt"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/results"
)

// mattoolsV1Strict is protocol mattools-v1-strict: mattools-v1 with the
// quirks fixed (the package comment lists them). It judges the value the
// function returned (Returned): a run that raised is not runnable with the
// run's cause, even when something was printed. Each property is checked on
// its own: the question is correct when every property passes, else
// partial with the properties that passed. A check that crashed or could
// not be read is a verification crash, but the function did return a
// dict, so it stays runnable.
type mattoolsV1Strict struct{}

func init() { mustRegister(mattoolsV1Strict{}) }

func (mattoolsV1Strict) ID() string       { return results.ProtocolMatToolsV1Strict }
func (mattoolsV1Strict) Channel() Channel { return Returned }

func (mattoolsV1Strict) Admit(runCause string, p Parse) string {
	if runCause != "" {
		return runCause
	}
	return ParseCause("", p)
}

func (s mattoolsV1Strict) Judge(q *datasets.Question, c Check) (Outcome, error) {
	switch {
	case !c.Answered:
		return VerificationCrash(s.ID(), c.HarnessCause, c.HarnessDetail, true), nil
	case c.Crash != "" || len(c.Passed) != len(c.Names) || len(c.Messages) != len(c.Names):
		return VerificationCrash(s.ID(), CauseVerifyException, c.Crash, true), nil
	}
	o := Outcome{Protocol: s.ID(), Runnable: true, Errors: c.Errors}
	for i, p := range c.Passed {
		o.Properties = append(o.Properties, results.PropertyOutcome{Property: c.Names[i], Passed: p, Message: c.Messages[i]})
		if p {
			o.PropertiesPassed++
		} else {
			o.FailedProperties = append(o.FailedProperties, c.Names[i])
		}
	}
	o.Verdict = results.VerdictPartial
	if o.PropertiesPassed == len(c.Names) {
		o.Verdict = results.VerdictCorrect
	}
	if len(c.Names) != len(q.Properties) {
		// The unit test checks a different number of properties than
		// properties.json lists; datasets.Load guarantees they agree.
		return Outcome{}, fmt.Errorf("question %s: the unit test checks %d properties, the question has %d", q.ID, len(c.Names), len(q.Properties))
	}
	return o, nil
}
