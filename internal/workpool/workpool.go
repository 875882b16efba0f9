// Package workpool runs the items of a resumable batch job (the model calls
// of gen-docs, synthesis and QA synthesis) on a fixed number of goroutines,
// with a progress bar (count, elapsed time and ETA).
package workpool

import (
	"context"
	"io"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
)

// Bar returns a progress bar of n steps, described as desc, drawn on w at
// most five times a second; nil when w is nil or n is 0 (callers check
// before Add and Finish).
func Bar(w io.Writer, n int, desc string) *progressbar.ProgressBar {
	if w == nil || n <= 0 {
		return nil
	}
	return progressbar.NewOptions(n, progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(desc), progressbar.OptionShowCount(), progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetElapsedTime(true), progressbar.OptionThrottle(200*time.Millisecond), progressbar.OptionSetWidth(30),
		progressbar.OptionShowElapsedTimeOnFinish())
}

// Run calls work(k) for k = 0 … n-1 on workers goroutines (at least one),
// in order of k as they free up. Before each k is handed out it stops
// handing out when ctx is done or stop (nil: never) reports true. It
// returns once every call it started has returned; the caller tells a
// finished batch from a stopped one by ctx.Err() and its own stop state.
func Run(ctx context.Context, workers, n int, stop func() bool, work func(k int)) {
	if workers < 1 {
		workers = 1
	}
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range jobs {
				work(k)
			}
		}()
	}
feed:
	for k := range n {
		if ctx.Err() != nil || (stop != nil && stop()) {
			break
		}
		select {
		case jobs <- k:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
}
