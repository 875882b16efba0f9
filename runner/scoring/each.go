package scoring

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/internal/workpool"
)

// ScoreEach scores n stored answers, as many at a time as the sandbox has
// slots: answer(i) gives the i-th question and submission, done(i, sc)
// receives its outcome (called from the workers, one call at a time). The
// first error of Score stops the others and is returned, prefixed with
// label(i); if ctx ends first, its error is returned. With progress not
// nil, a bar with count and ETA is drawn there.
func (s *Scorer) ScoreEach(ctx context.Context, n int, answer func(i int) (*datasets.Question, Submission),
	done func(i int, sc *Scored), label func(i int) string, progress io.Writer) error {
	var bar *progressbar.ProgressBar
	if progress != nil && n > 0 {
		bar = progressbar.NewOptions(n, progressbar.OptionSetWriter(progress), progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true), progressbar.OptionSetElapsedTime(true), progressbar.OptionSetDescription("re-executing"),
			progressbar.OptionThrottle(200*time.Millisecond), progressbar.OptionOnCompletion(func() { fmt.Fprintln(progress) }))
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu       sync.Mutex
		firstErr error
	)
	workpool.Run(ctx, s.Sandbox.Info().Slots, n, nil, func(i int) {
		q, sub := answer(i)
		sc, err := s.Score(ctx, q, sub)
		mu.Lock()
		if err != nil {
			if firstErr == nil && ctx.Err() == nil {
				firstErr = fmt.Errorf("%s: %w", label(i), err)
			}
			mu.Unlock()
			cancel()
			return
		}
		done(i, sc)
		mu.Unlock()
		if bar != nil {
			bar.Add(1)
		}
	})
	if firstErr != nil {
		return firstErr
	}
	return ctx.Err()
}
