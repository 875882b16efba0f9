package runner

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/mattools-leaderboard/leaderboard/llm"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/runner/journal"
	"github.com/mattools-leaderboard/leaderboard/runner/scoring"
	"github.com/mattools-leaderboard/leaderboard/runner/systems"
)

// qaRefused counts, per prepared QA run, the questions of this process the
// server refused as longer than the model's context (recorded unanswered);
// assemble names the count in the run's warnings. A tool-usage question's
// refusal is in its row (FinishContextLength, scoring.CauseContextLength).
var qaRefused sync.Map // *prepared → *atomic.Int64

// answerQA asks QA question it.qa and scores the answer (scoring.QAScoreAnswer),
// filling l.QA; it returns the question's usage. A question the server
// refuses as longer than the model's context is recorded unanswered and
// counted in qaRefused, not an error.
func (e *engine) answerQA(ctx context.Context, p *prepared, it item, env systems.Env, l *journal.Line) (systems.Usage, error) {
	var u systems.Usage
	a, err := systems.AnswerQA(ctx, it.qa, env)
	if err != nil && errors.Is(err, llm.ErrContextLength) && ctx.Err() == nil {
		// The question's outcome: no answer (scored incorrect), counted
		// in the run's warnings.
		e.log.Warn("the server refused the question as longer than the model's context window; recorded as unanswered",
			"run", p.journalID, "question", it.id, "error", err)
		a, err = systems.QAAnswer{}, nil
		v, _ := qaRefused.LoadOrStore(p, new(atomic.Int64))
		v.(*atomic.Int64).Add(1)
	}
	if err != nil {
		return systems.Usage{}, err
	}
	s := scoring.QAScoreAnswer(a.Response, it.qa.CorrectAnswer)
	text := llm.CapText(a.Response, maxStoredResponseBytes)
	l.QA = &results.QAItem{ItemIndex: int32(it.qa.Index), Item: it.qa.ID, Questions: 1, Correct: b2i(s.Correct),
		CorrectLenient: ptr(b2i(s.CorrectLenient)), AnswerText: &text, ExtractedStrict: &s.Strict,
		ExtractedLenient: &s.Lenient, CorrectAnswer: &it.qa.CorrectAnswer, AnswerTextBytes: ptr(int64(len(a.Response)))}
	u = a.Usage
	l.QA.PromptTokens, l.QA.CompletionTokens, l.QA.LatencyMS = &u.PromptTokens, &u.CompletionTokens, ptr(u.Latency.Milliseconds())
	return u, nil
}

func b2i(b bool) int32 {
	if b {
		return 1
	}
	return 0
}
