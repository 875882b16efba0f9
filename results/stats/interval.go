package stats

import (
	"errors"
	"math"
)

// Interval is a two-sided confidence interval for the mean of per-round
// values, in the values' unit (for the leaderboard: percent, 0–100).
type Interval struct {
	// Lo and Hi are the interval's bounds, Lo ≤ Mean ≤ Hi. Both equal Mean
	// when N < 2 (no interval can be given; Warnings says so).
	Lo, Hi float64
	Mean   float64
	// N is the number of values the interval is built from: rounds
	// (TInterval) or clusters, i.e. questions (ClusteredRatio).
	N int
	// SE is the standard error the half-width is built from: s/√n
	// (TInterval) or the clustered standard error (ClusteredRatio).
	SE float64
	// Confidence is the requested coverage in (0, 1), e.g. 0.95.
	Confidence float64
	// Warnings are conditions a reader should see: a single round, or
	// rounds that all agree (a zero-width interval that says nothing about
	// the round-to-round noise a fourth round could show).
	Warnings []error
}

// ErrZeroWidth is reported in Interval.Warnings when every value is equal:
// the t-interval then has zero width.
var ErrZeroWidth = errors.New("every round has the same value: the interval has zero width")

// TInterval returns the Student t confidence interval for the mean of
// values at the given confidence (in (0, 1), e.g. 0.95):
//
//	mean ± t(1−(1−confidence)/2; n−1) · s/√n
//
// where s is the sample standard deviation (divisor n − 1, as the
// t-interval is defined; the leaderboard's "±" remains the population
// std). It equals scipy.stats.t.interval(confidence, n−1, loc=mean,
// scale=s/√n). values holds one entry per round and is not modified. With
// fewer than two values Lo = Hi = Mean and Warnings holds ErrSingleValue;
// a confidence outside (0, 1) panics.
//
// Example: GPT-4o single-LLM task success [25, 26, 25] of 138 properties
// → [18.12, 18.84, 18.12] %, mean 18.357, s = 0.41837, t(0.975; 2) =
// 4.30265 → [17.318, 19.397].
func TInterval(values []float64, confidence float64) Interval {
	if !(confidence > 0 && confidence < 1) {
		panic("stats: confidence must be in (0, 1)")
	}
	s := Summarize(values)
	iv := Interval{Lo: s.Mean, Hi: s.Mean, Mean: s.Mean, N: s.N, Confidence: confidence}
	if s.N < 2 {
		if s.N == 1 {
			iv.Warnings = []error{ErrSingleValue}
		}
		return iv
	}
	iv.SE = s.SampleStd / math.Sqrt(float64(s.N))
	half := StudentTQuantile(1-(1-confidence)/2, float64(s.N-1)) * iv.SE
	iv.Lo, iv.Hi = s.Mean-half, s.Mean+half
	if s.SampleStd == 0 {
		iv.Warnings = []error{ErrZeroWidth}
	}
	return iv
}

// Clamp returns iv with its bounds limited to [lo, hi] (for percentages:
// [0, 100], which a t-interval can exceed).
func (iv Interval) Clamp(lo, hi float64) Interval {
	iv.Lo = math.Max(lo, math.Min(hi, iv.Lo))
	iv.Hi = math.Max(lo, math.Min(hi, iv.Hi))
	return iv
}

// Overlaps reports whether two intervals share at least one point.
func (iv Interval) Overlaps(o Interval) bool { return iv.Lo <= o.Hi && o.Lo <= iv.Hi }

// StudentTCDF returns P(T ≤ t) for Student's t distribution with df > 0
// degrees of freedom (scipy.stats.t.cdf), through the regularized
// incomplete beta function: for t ≥ 0, 1 − I_{df/(df+t²)}(df/2, 1/2)/2.
func StudentTCDF(t, df float64) float64 {
	if math.IsNaN(t) || !(df > 0) {
		return math.NaN()
	}
	if math.IsInf(t, 1) {
		return 1
	}
	if math.IsInf(t, -1) {
		return 0
	}
	tail := 0.5 * RegIncBeta(df/2, 0.5, df/(df+t*t)) // P(T > |t|)
	if t >= 0 {
		return 1 - tail
	}
	return tail
}

// StudentTQuantile returns the p-quantile of Student's t distribution with
// df > 0 degrees of freedom (scipy.stats.t.ppf), p in (0, 1): the t with
// StudentTCDF(t, df) = p, found by bisection to 1e-13 relative precision.
// It returns ±Inf at p = 1 and 0, NaN outside [0, 1].
func StudentTQuantile(p, df float64) float64 {
	switch {
	case math.IsNaN(p) || p < 0 || p > 1 || !(df > 0):
		return math.NaN()
	case p == 0:
		return math.Inf(-1)
	case p == 1:
		return math.Inf(1)
	case p == 0.5:
		return 0
	case p < 0.5:
		return -StudentTQuantile(1-p, df)
	}
	// p > 0.5: the quantile is positive; bracket it, then bisect.
	lo, hi := 0.0, 1.0
	for StudentTCDF(hi, df) < p {
		lo, hi = hi, hi*2
		if hi > 1e300 {
			return math.Inf(1)
		}
	}
	for i := 0; i < 400 && hi-lo > 1e-13*hi; i++ {
		mid := (lo + hi) / 2
		if StudentTCDF(mid, df) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// RegIncBeta returns the regularized incomplete beta function I_x(a, b)
// for a, b > 0 and x in [0, 1] (scipy.special.betainc), by the continued
// fraction of Numerical Recipes (betacf), evaluated with the modified Lentz
// method.
func RegIncBeta(a, b, x float64) float64 {
	switch {
	case !(a > 0) || !(b > 0) || math.IsNaN(x) || x < 0 || x > 1:
		return math.NaN()
	case x == 0:
		return 0
	case x == 1:
		return 1
	}
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	front := math.Exp(lab - la - lb + a*math.Log(x) + b*math.Log1p(-x))
	if x < (a+1)/(a+b+2) {
		return front * betaCF(a, b, x) / a
	}
	return 1 - front*betaCF(b, a, 1-x)/b
}

func betaCF(a, b, x float64) float64 {
	const tiny = 1e-300
	qab, qap, qam := a+b, a+1, a-1
	c, d := 1.0, 1-qab*x/qap
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	h := d
	for m := 1; m <= 10000; m++ {
		fm := float64(m)
		m2 := 2 * fm
		aa := fm * (b - fm) * x / ((qam + m2) * (a + m2))
		d = 1 + aa*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + aa/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		h *= d * c
		aa = -(a + fm) * (qab + fm) * x / ((a + m2) * (qap + m2))
		d = 1 + aa*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + aa/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		del := d * c
		h *= del
		if math.Abs(del-1) < 1e-16 {
			break
		}
	}
	return h
}
