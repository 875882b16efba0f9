package runner

import (
	"context"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/runner/scoring"
)

// ProtocolUnscored is the scoring protocol recorded on tool-usage runs
// written without scoring (Options.Unscored): Totals.Scored is false, every
// verdict is "unknown", and the run's warnings say so. Because a
// configuration includes its scoring protocol, unscored runs are never
// averaged with scored ones; the code they hold can be scored later
// (cmd/rescore: a rescored run, provenance "rescored").
const ProtocolUnscored = "unscored"

// Scorer scores generated code of the tool-usage benchmark under every
// protocol of runner/scoring at once (mattools-v1 and mattools-v1-strict
// from one execution): *scoring.Scorer, running the code in a sandbox of
// sandbox, or a fake in tests. The runner calls Score once per
// question, right after generation, possibly from several goroutines at
// once; it journals the outcome with the answer and writes one run per
// protocol the plan asks for, each row filled by scoring.Scored.FillRow,
// as cmd/rescore fills its rows.
//
// The command removes API keys from its process environment before any
// Scorer is opened, so a sandbox cannot inherit them.
type Scorer interface {
	// Score runs and verifies sub for question q. A question whose data
	// files are absent is data-missing without running anything. Errors are
	// failures of the scorer itself (the sandbox could not start); the
	// runner then stops the run, resumably. A failing generated function is
	// an outcome, not an error.
	Score(ctx context.Context, q *datasets.Question, sub scoring.Submission) (*scoring.Scored, error)
	// Environment describes the sandbox (backend, version, limits, lock
	// hash) and the library versions the code runs against, recorded on
	// every scored run.
	Environment() scoring.Environment
}

var _ Scorer = (*scoring.Scorer)(nil)

// Executor is implemented by Scorers that can also execute code without
// verifying it (*scoring.Scorer): the self-reflection loop runs its drafts
// through it, with the scoring sandbox, limits and data. Without one,
// self-reflection-rag cannot run.
type Executor interface {
	Execute(ctx context.Context, q *datasets.Question, sub scoring.Submission) (*scoring.Execution, error)
}

var _ Executor = (*scoring.Scorer)(nil)
