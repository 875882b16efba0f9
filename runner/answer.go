package runner

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/mattools-leaderboard/leaderboard/llm"
	"github.com/mattools-leaderboard/leaderboard/runner/journal"
	"github.com/mattools-leaderboard/leaderboard/runner/systems"
)

// answerAll answers and journals the todo items of p with workers
// goroutines, offering each line to live (when set) before it can be
// durable. The first failure (unless ctx itself ended) cancels rctx, a
// child of ctx, and is returned; the items not yet started are not.
func (e *engine) answerAll(ctx, rctx context.Context, cancel context.CancelFunc, p *prepared, todo []item, workers int,
	answerer systems.Answerer, scorer Scorer, env systems.Env, j *journal.Journal, live *liveSource) error {
	var (
		mu       sync.Mutex
		firstErr error
		wg       sync.WaitGroup
		jobs     = make(chan item)
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := range jobs {
				line, err := e.answer(rctx, p, it, answerer, scorer, env)
				if err == nil {
					if live != nil {
						live.offer(line) // before the line can be durable
					}
					err = j.Append(line)
				}
				if err != nil {
					if rctx.Err() == nil || !errors.Is(err, context.Canceled) {
						mu.Lock()
						if firstErr == nil && ctx.Err() == nil {
							firstErr = fmt.Errorf("question %s: %w", it.id, err)
						}
						mu.Unlock()
					}
					cancel()
					continue
				}
			}
		}()
	}
feed:
	for _, it := range todo {
		select {
		case jobs <- it:
		case <-rctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	return firstErr
}

// implausibleUsage counts, per prepared run, the model calls of this
// process whose server-reported usage was implausible (llm.UsageAudit);
// assemble names the count in the run's warnings. (Counts of an earlier
// session of a resumed run are not in the journal, so not included.)
var implausibleUsage sync.Map // *prepared → *atomic.Int64

// Caps of what answer stores: the model's answer text is stored
// capped at a UTF-8 boundary, with its original length; generated code is
// never cut: code over maxCodeBytes is refused whole (empty code, verdict
// cause scoring.CauseCodeTooLarge).
const (
	maxStoredResponseBytes = llm.DefaultMaxCompletionBytes // 1 MiB
	maxCodeBytes           = 256 << 10
)

// answer asks one question and scores the answer, returning its journal line.
func (e *engine) answer(ctx context.Context, p *prepared, it item, sys systems.Answerer, scorer Scorer, env systems.Env) (journal.Line, error) {
	l := journal.Line{Kind: "item", Index: it.index, ID: it.id}
	var u systems.Usage
	audit := &llm.UsageAudit{}
	ctx = llm.WithUsageAudit(ctx, audit)
	defer func() {
		if n := audit.Implausible(); n > 0 {
			v, _ := implausibleUsage.LoadOrStore(p, new(atomic.Int64))
			v.(*atomic.Int64).Add(n)
		}
	}()
	var err error
	if it.q != nil {
		u, err = e.answerToolUsage(ctx, p, it, sys, scorer, env, &l)
	} else {
		u, err = e.answerQA(ctx, p, it, env, &l)
	}
	if err != nil {
		return l, err
	}
	if audit.Missing() > 0 {
		// A call answered without usage: the question's tokens are
		// unknown (null), not 0, and so is the run's cost.
		if l.Question != nil {
			l.Question.PromptTokens, l.Question.CompletionTokens = nil, nil
		} else {
			l.QA.PromptTokens, l.QA.CompletionTokens = nil, nil
		}
	}
	l.Calls, l.Attempts = u.Calls, u.Attempts
	t := e.o.Now().UTC()
	l.FinishedAt = &t
	return l, nil
}

func ptr[T any](v T) *T { return &v }
