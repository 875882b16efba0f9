package scoring_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/runner/scoring"
	"github.com/mattools-leaderboard/leaderboard/sandbox"
)

// TestExecute runs drafts through the sandbox as the self-reflection loop
// does: what the program printed, whether it parsed to a dict and
// how many values are None, a hang stopped at the time limit, a missing
// function; the unit test is never involved (the question's unit test
// here would fail every dict).
func TestExecute(t *testing.T) {
	sb := openSandbox(t)
	// Only the hang meets the wall limit, and it never finishes: the other
	// drafts get a wall limit no loaded machine reaches.
	s := &scoring.Scorer{Sandbox: sb, Root: fixtureRoot(t), Limits: sandbox.Limits{Wall: 5 * time.Minute}}
	hang := &scoring.Scorer{Sandbox: sb, Root: fixtureRoot(t), Limits: sandbox.Limits{Wall: 3 * time.Second}}
	q := fixtureQuestion()
	q.UnitTest = "raise SystemExit('the unit test must not run')"
	cases := []struct {
		name, code          string
		dict                bool
		parse, cause        string
		keys, none          int
		timedOut            bool
		stdout, stderrShows string
	}{
		{"None values", "def f():\n    return {'a': 1, 'b': None, 'c': None}", true, "ok", "", 3, 2, false, "{'a': 1, 'b': None, 'c': None}\n", ""},
		{"complete", "def f():\n    import numpy as np\n    return {'a': np.array([1.0, 2.0])}", true, "ok", "", 1, 0, false, "{'a': array([1., 2.])}\n", ""},
		{"empty dict", "def f():\n    return {}", true, "empty-dict", "", 0, 0, false, "{}\n", ""},
		{"debug print", "def f():\n    print('hi')\n    return {'a': 1}", false, "unparseable", "", 0, 0, false, "hi\n{'a': 1}\n", ""},
		{"exception", "def f():\n    raise ValueError('no structure')", false, "empty", "exception:ValueError", 0, 0, false, "", "ValueError: no structure"},
		{"hang", "def f():\n    while True:\n        pass", false, "empty", scoring.CauseTimeout, 0, 0, true, "", ""},
		{"missing function", "def g():\n    return {}", false, "empty", scoring.CauseMissingFunction, 0, 0, false, "", "NameError"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sc := s
			if c.timedOut {
				sc = hang
			}
			ex, err := sc.Execute(context.Background(), q, scoring.Submission{Code: c.code, FunctionName: "f"})
			if err != nil {
				t.Fatal(err)
			}
			if ex.Dict() != c.dict || ex.Parse != c.parse || ex.Cause != c.cause || ex.Keys != c.keys || ex.NoneValues != c.none ||
				ex.TimedOut != c.timedOut || string(ex.Stdout) != c.stdout || !strings.Contains(string(ex.Stderr), c.stderrShows) {
				t.Errorf("got dict %v parse %q (%s) cause %q keys %d none %d timed out %v stdout %q stderr %q",
					ex.Dict(), ex.Parse, ex.ParseError, ex.Cause, ex.Keys, ex.NoneValues, ex.TimedOut, ex.Stdout, tailString(ex.Stderr, 300))
			}
		})
	}
}

// TestNoisyStdoutDoesNotSinkStrict: a correct function
// that also prints a noise mattools-v1's parser takes quadratic time over
// ("array(" without a closing parenthesis, many thousand times) makes the
// shared parse reach the time limit: v1 is not-runnable with cause timeout,
// and strict, which parses the returned value on its own, is correct. The
// 20 s wall limit separates the two by far on a loaded machine: the function,
// the strict parse and the verification take 1–3 s, the quadratic parse of
// the 1 MiB kept more than 3 minutes of CPU time.
func TestNoisyStdoutDoesNotSinkStrict(t *testing.T) {
	sb := openSandbox(t)
	s := &scoring.Scorer{Sandbox: sb, Root: fixtureRoot(t), Limits: sandbox.Limits{Wall: 20 * time.Second}}
	code := `def f():
    from pymatgen.core.periodic_table import Element
    print("array(" * 9_000_000)  # 54 MB, of which the sandbox keeps 1 MiB
    return {"a": 7, "b": "Ga site", "c": (Element("Mg"), 2), "d": [1.0, 2.0]}`
	got, err := s.Score(context.Background(), fixtureQuestion(), scoring.Submission{Code: code, FunctionName: "f"})
	if err != nil {
		t.Fatal(err)
	}
	if got.Outcomes[results.ProtocolMatToolsV1].Verdict != "not-runnable" || got.Outcomes[results.ProtocolMatToolsV1].Cause != scoring.CauseTimeout {
		t.Errorf("mattools-v1: %s/%s (%s); want not-runnable/timeout", got.Outcomes[results.ProtocolMatToolsV1].Verdict, got.Outcomes[results.ProtocolMatToolsV1].Cause, got.Outcomes[results.ProtocolMatToolsV1].Detail)
	}
	if got.Outcomes[results.ProtocolMatToolsV1Strict].Verdict != "correct" || got.Outcomes[results.ProtocolMatToolsV1Strict].PropertiesPassed != 4 {
		t.Errorf("mattools-v1-strict: %s/%s, %d passed (%s); want correct", got.Outcomes[results.ProtocolMatToolsV1Strict].Verdict, got.Outcomes[results.ProtocolMatToolsV1Strict].Cause, got.Outcomes[results.ProtocolMatToolsV1Strict].PropertiesPassed, got.Outcomes[results.ProtocolMatToolsV1Strict].Detail)
	}
}
