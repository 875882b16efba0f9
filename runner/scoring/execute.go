package scoring

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/sandbox"
)

// Execution is one execution of generated code outside scoring: what a
// system that executes its own drafts (the self-reflection loop of
// docs/mattools.md §5) learns from it. It never involves the
// question's unit test or expected values.
type Execution struct {
	// Stdout and Stderr are what the program printed (the first
	// sandbox.Limits StdoutBytes/StderrBytes bytes; the Dropped counts are
	// the bytes beyond).
	Stdout, Stderr               []byte
	StdoutDropped, StderrDropped int64
	// TimedOut reports that the sandbox's wall-clock limit killed the program.
	TimedOut bool
	// Cause is why the function returned no value (a Cause constant or
	// "exception:<type>"), "" when it returned one.
	Cause string
	// Parse is the outcome of MatTools' ComplexDictParser over the stripped
	// stdout, as mattools-v1 parses it (harness/parse.py): "ok" (a
	// non-empty dict), "empty-dict", "empty" (nothing printed),
	// "unparseable" or "not-dict"; ParseError says why it failed.
	Parse, ParseError string
	// Keys and NoneValues count the parsed dict's keys and the values that
	// are None (Parse "ok"; both 0 for an empty dict).
	Keys, NoneValues int
	// Duration is the sandbox time of both executions (run and parse).
	Duration time.Duration
}

// Dict reports whether stdout parsed to a dict (empty or not).
func (e *Execution) Dict() bool { return e.Parse == "ok" || e.Parse == "empty-dict" }

// Execute runs sub's function for question q as scoring's step A does
// (function code, then print(name()), in a fresh sandbox with the
// question data read-only, the Scorer's limits) and parses what it
// printed as step B does, in a second fresh sandbox. A question whose data
// files are absent, or empty code, is an error: callers execute only what
// scoring could run. Other errors are failures of the sandbox.
func (s *Scorer) Execute(ctx context.Context, q *datasets.Question, sub Submission) (*Execution, error) {
	if !q.Executable() {
		return nil, fmt.Errorf("question %s: its data files are absent; nothing can be executed", q.ID)
	}
	run, _, cause, err := s.run(ctx, q, sub)
	if err != nil {
		return nil, err
	}
	ex := &Execution{Stdout: run.Stdout, Stderr: run.Stderr, StdoutDropped: run.StdoutDropped, StderrDropped: run.StderrDropped,
		TimedOut: run.TimedOut, Cause: cause, Duration: run.Duration}
	if run.TimedOut {
		ex.Parse, ex.ParseError = "empty", "the program was killed at the time limit"
		if len(run.Stdout) > 0 {
			ex.Parse = "unparseable"
		}
		return ex, nil
	}
	pr, err := s.Sandbox.Run(ctx, sandbox.Spec{Files: map[string][]byte{"parse.py": harnessFile("parse.py"), "stdout.txt": run.Stdout},
		Argv: []string{"python3", "-I", "/sbx/parse.py"}, Limits: s.Limits})
	if err != nil {
		return nil, fmt.Errorf("question %s: parsing the output: %w", q.ID, err)
	}
	ex.Duration += pr.Duration
	var ps struct{ V1 Parse }
	if err := json.Unmarshal(pr.Side, &ps); err != nil || ps.V1.Status == "" {
		ex.Parse, ex.ParseError = "unparseable", "the parser gave no answer: "+tail(pr.Stderr, 2000)
		if pr.TimedOut {
			ex.ParseError = "the parser was killed at the time limit"
		}
		return ex, nil
	}
	ex.Parse, ex.ParseError, ex.Keys, ex.NoneValues = ps.V1.Status, ps.V1.Error, ps.V1.Keys, ps.V1.NoneValues
	return ex, nil
}
