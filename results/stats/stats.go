// Package stats summarises the rounds of a configuration: mean, population
// and sample standard deviation of per-round values, the Student t
// confidence interval of the mean (TInterval), the rank bands that
// intervals imply (RankBands), and the exact sign test of a paired
// comparison (SignTest). It uses only the standard library and imports no
// project package; TestAgainstSciPy checks it against SciPy and NumPy.
//
// The default dispersion is the population standard deviation (divisor n),
// which is what the MatTools paper's error bars show (docs/mattools.md
// §3.4: pixel-measured error bars match ddof=0, not ddof=1).
package stats

import (
	"errors"
	"math"
)

// Summary describes n per-round values of one metric, in the values' unit
// (for the leaderboard: percent, 0–100).
type Summary struct {
	N    int
	Mean float64
	// PopStd is the population standard deviation, sqrt(Σ(x−mean)²/n): the
	// paper's error bars and the leaderboard's default "±". 0 when N < 2.
	PopStd float64
	// SampleStd is the sample standard deviation, sqrt(Σ(x−mean)²/(n−1)).
	// 0 when N < 2.
	SampleStd float64
	Min, Max  float64
	// Warnings are conditions a reader should see, such as a single round.
	Warnings []error
}

// ErrSingleValue is reported in Summary.Warnings when only one value exists,
// so no dispersion can be given.
var ErrSingleValue = errors.New("one round only: no standard deviation")

// Summarize returns the summary of values, which holds one entry per round
// and is not modified. With no values it returns the zero Summary; with one,
// both standard deviations are 0 and Warnings holds ErrSingleValue.
//
// Example: GPT-4o single-LLM runnable counts [23, 26, 18] of 49 give the
// percentages [46.94, 53.06, 36.73] and Summarize gives Mean 45.58,
// PopStd 6.73, SampleStd 8.25.
func Summarize(values []float64) Summary {
	n := len(values)
	if n == 0 {
		return Summary{}
	}
	s := Summary{N: n, Min: math.Inf(1), Max: math.Inf(-1)}
	sum := 0.0
	for _, v := range values {
		sum += v
		s.Min = math.Min(s.Min, v)
		s.Max = math.Max(s.Max, v)
	}
	s.Mean = sum / float64(n)
	if n == 1 {
		s.Warnings = []error{ErrSingleValue}
		return s
	}
	ss := 0.0
	for _, v := range values {
		d := v - s.Mean
		ss += d * d
	}
	s.PopStd = math.Sqrt(ss / float64(n))
	s.SampleStd = math.Sqrt(ss / float64(n-1))
	return s
}

// Percent returns 100·k/n, the percentage of k out of n; 0 when n is 0.
func Percent(k, n int) float64 {
	if n == 0 {
		return 0
	}
	return 100 * float64(k) / float64(n)
}
