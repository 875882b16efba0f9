package runner

import (
	"context"
	"errors"
	"fmt"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/llm"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/runner/journal"
	"github.com/mattools-leaderboard/leaderboard/runner/scoring"
	"github.com/mattools-leaderboard/leaderboard/runner/systems"
)

// executorOf returns the systems.Executor that runs drafts through
// scorer's sandbox (scoring.Scorer.Execute), or nil when scorer cannot.
func executorOf(scorer Scorer) systems.Executor {
	ex, ok := scorer.(Executor)
	if !ok {
		return nil
	}
	timeout := scorer.Environment().Sandbox.TimeoutSeconds
	return func(ctx context.Context, q *datasets.Question, code, name string) (systems.Execution, error) {
		r, err := ex.Execute(ctx, q, scoring.Submission{Code: code, FunctionName: name})
		if err != nil {
			return systems.Execution{}, err
		}
		return systems.Execution{Stdout: string(r.Stdout), Stderr: string(r.Stderr), TimedOut: r.TimedOut, TimeoutSeconds: timeout,
			Dict: r.Dict(), Keys: r.Keys, NoneValues: r.NoneValues, Duration: r.Duration}, nil
	}
}

// FinishContextLength is the finish reason recorded for a tool-usage
// question whose model call the server refused as longer than the
// model's context window (llm.ErrContextLength): no answer was generated.
const FinishContextLength = "context_length_exceeded"

// answerToolUsage asks tool-usage question it.q to sys and, when scorer is
// set, scores the answer, filling l.Question (and l.Scored); it returns the
// question's usage. A call the server refuses as longer than the model's
// context is the question's outcome (FinishContextLength), not an error.
func (e *engine) answerToolUsage(ctx context.Context, p *prepared, it item, sys systems.Answerer, scorer Scorer, env systems.Env, l *journal.Line) (systems.Usage, error) {
	var u systems.Usage
	g, err := sys.Generate(ctx, it.q, env)
	// A call refused as longer than the model's context is the
	// question's outcome, not the run's failure: no answer, recorded
	// with finish reason FinishContextLength and cause
	// scoring.CauseContextLength (docs/runner.md, "Local servers").
	refused := err != nil && errors.Is(err, llm.ErrContextLength) && ctx.Err() == nil
	if refused {
		e.log.Warn("the server refused a call as longer than the model's context window; recorded as the question's outcome",
			"run", p.journalID, "question", it.id, "error", err)
		g.Code, g.FunctionName, g.Response, g.FinishReason, err = "", "", "", FinishContextLength, nil
	}
	if err != nil {
		return systems.Usage{}, err
	}
	u = g.Usage
	// Code and verdicts come from the whole answer; only the stored text is capped.
	code, tooLarge := g.Code, len(g.Code) > maxCodeBytes
	if tooLarge {
		code = ""
	}
	resp := llm.CapText(g.Response, maxStoredResponseBytes)
	l.Question = &results.QuestionRow{QuestionIndex: int32(it.q.Index), QuestionID: it.q.ID, PropertyCount: int32(len(it.q.Properties)),
		Code: code, FunctionName: g.FunctionName, Verdict: string(results.VerdictUnknown), Response: &resp,
		FinishReason: &g.FinishReason, Attempts: ptr(int32(u.Attempts)), PromptTokens: &u.PromptTokens,
		CompletionTokens: &u.CompletionTokens, LatencyMS: ptr(u.Latency.Milliseconds()),
		ResponseBytes: ptr(int64(len(g.Response))), // the original length, ≥ the stored text's
		Retrieved:     g.Retrieved, Trace: g.Trace}
	if tooLarge {
		l.Question.VerdictCause = scoring.CauseCodeTooLarge // also recorded when unscored
	}
	if refused {
		l.Question.VerdictCause = scoring.CauseContextLength // also recorded when unscored
	}
	if scorer != nil {
		s, err := scorer.Score(ctx, it.q, scoring.Submission{Code: code, FunctionName: g.FunctionName})
		if err != nil {
			return systems.Usage{}, fmt.Errorf("scoring: %w", err)
		}
		if tooLarge || refused {
			cause := scoring.CauseCodeTooLarge
			if refused {
				cause = scoring.CauseContextLength
			}
			s.ReplaceCause(scoring.CauseEmptyCode, cause)
		}
		s.Trim()
		l.Scored = s
	}
	return u, nil
}
