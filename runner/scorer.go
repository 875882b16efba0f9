package runner

import (
	"context"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/runner/systems"
)

// ProtocolUnscored is the scoring protocol recorded on tool-usage runs
// written without a scorer: Totals.Scored is false, every verdict is
// "unknown", and the run's warnings name the protocol the plan asked for.
// Because a configuration includes its scoring protocol, unscored runs are
// never averaged with scored ones; the code they hold can be scored later
// (a rescored run, provenance "rescored", derived from the unscored one).
const ProtocolUnscored = "unscored"

// Scorer scores generated code of the tool-usage benchmark under one
// scoring protocol (mattools-v1, mattools-v1-strict; runner/scoring with a
// sandbox of runner/sandbox). The runner calls Score once per question,
// right after generation, possibly from several goroutines at once, and
// writes the outcome into the question's row; a plan's tool-usage runs are
// scored by the Scorer registered for the plan's protocol in
// Options.Scorers, or written unscored when there is none.
//
// The runner removes API keys from its process environment before any
// Scorer runs, so a sandbox started by a Scorer cannot inherit them.
type Scorer interface {
	// Protocol returns the protocol id recorded on the run.
	Protocol() string
	// Score runs and verifies g's code for question q. Errors are failures
	// of the scorer itself (the sandbox could not start); the runner then
	// stops the run, resumably. A failing generated function is an Outcome.
	Score(ctx context.Context, q *datasets.Question, g systems.Generation) (Outcome, error)
	// Environment describes the sandbox and the library versions the code
	// ran against, recorded on the run (results.Environment Sandbox and
	// Libraries).
	Environment() ScorerEnvironment
}

// Outcome is the verdict on one question, as a row of results format v1
// records it (results.QuestionRow; verdict rules in results/vocab.go).
type Outcome struct {
	Verdict          results.Verdict
	VerdictCause     string // "empty-code", "timeout", "exception:<Type>", …; "" if none
	Runnable         bool
	PropertiesPassed int // out of the question's properties

	ErrorExcerpt       *string
	StdoutExcerpt      *string
	StdoutDroppedBytes *int64
	StderrExcerpt      *string
	StderrDroppedBytes *int64
}

// ScorerEnvironment is what a Scorer reports about where code ran.
type ScorerEnvironment struct {
	Sandbox   *results.Sandbox
	Libraries map[string]string // e.g. "pymatgen": "2024.8.9"
}
