package stats

import (
	"errors"
	"math"
	"sync"
)

// ErrOneCluster is reported in Interval.Warnings when fewer than two
// clusters (questions) exist: no clustered standard error can be given.
var ErrOneCluster = errors.New("fewer than two questions: no interval over questions")

// ClusteredRatio returns the estimate of a ratio of totals, R = Σy / Σm,
// over G clusters and its confidence interval from the clustered (cluster-
// robust) standard error, at the given confidence in (0, 1):
//
//	SE² = G/(G−1) · Σ_g (y_g − R·m_g)² / (Σ_g m_g)²
//	R ± t(1−(1−confidence)/2; G−1) · SE
//
// For a leaderboard score the clusters are the questions: m_g is question
// g's weight (its property count for the task success rate, 1 for the
// function runnable rate or a QA item's question count) and y_g what it
// scored, averaged over the rounds (properties passed, runnable 0/1,
// correct answers). Properties within a question are not independent, so
// the question, not the property, is the unit that is resampled (Miller
// 2024, "Adding Error Bars to Evals", arXiv 2411.00640: clustered standard
// errors). Averaging each question over the rounds first nests the rounds
// within the questions: the spread of the question means across questions
// holds the round-to-round noise too (divided by the rounds), so the one
// between-question variance estimates both (the "ultimate cluster"
// variance estimator of two-stage sampling). The same formula is the
// cluster-robust sandwich of an OLS regression of every property outcome
// on a constant with groups = questions (statsmodels OLS
// cov_type="cluster", its default small-sample factor G/(G−1); with one
// regressor its (N−1)/(N−K) factor is 1), and the interval uses Student t
// with G−1 degrees of freedom, as statsmodels does with use_t (a few dozen
// questions make the normal quantile too narrow); TestAgainstSciPy checks
// both against statsmodels.
//
// y and m are aligned and not modified. Mean, Lo and Hi are in the unit of
// y/m (a fraction; Scale gives percent); N is G; SE is the standard error.
// With Σm = 0 the result is zero; with G < 2, Lo = Hi = Mean and Warnings
// holds ErrOneCluster; when every question's y_g = R·m_g the interval has
// zero width and Warnings holds ErrZeroWidth. Unequal lengths, or a
// confidence outside (0, 1), panic.
//
// Example: questions weighing m = [1, 2, 1] that scored y = [1, 1, 0]
// give R = 2/4 = 0.5, residuals [0.5, 0, −0.5], SE² = 3/2 · 0.5/16 =
// 0.046875, SE = 0.2165, t(0.975; 2) = 4.3027 → [−0.432, 1.432].
func ClusteredRatio(y, m []float64, confidence float64) Interval {
	if len(y) != len(m) {
		panic("stats: y and m must have the same length")
	}
	if !(confidence > 0 && confidence < 1) {
		panic("stats: confidence must be in (0, 1)")
	}
	g := len(y)
	iv := Interval{N: g, Confidence: confidence}
	sy, sm := 0.0, 0.0
	for i := range y {
		sy += y[i]
		sm += m[i]
	}
	if sm == 0 {
		return iv
	}
	iv.Mean = sy / sm
	iv.Lo, iv.Hi = iv.Mean, iv.Mean
	if g < 2 {
		if g == 1 {
			iv.Warnings = []error{ErrOneCluster}
		}
		return iv
	}
	ss := 0.0
	for i := range y {
		e := y[i] - iv.Mean*m[i]
		ss += e * e
	}
	iv.SE = math.Sqrt(float64(g)/float64(g-1)*ss) / sm
	half := tQuantile(1-(1-confidence)/2, float64(g-1)) * iv.SE
	iv.Lo, iv.Hi = iv.Mean-half, iv.Mean+half
	if ss == 0 {
		iv.Warnings = []error{ErrZeroWidth}
	}
	return iv
}

// ClusteredDifference returns the paired difference of two ratio estimates
// over the same clusters, Σya/Σm − Σyb/Σm, and its interval: ClusteredRatio
// of the per-cluster differences ya_g − yb_g. Pairing by question removes
// the questions' shared difficulty from the comparison, so the difference
// of two configurations is far better determined than either score (Miller
// 2024, paired differences). The interval may extend below zero; it is
// never clamped. ya, yb and m are aligned; unequal lengths panic.
func ClusteredDifference(ya, yb, m []float64, confidence float64) Interval {
	if len(ya) != len(yb) {
		panic("stats: ya and yb must have the same length")
	}
	d := make([]float64, len(ya))
	for i := range ya {
		d[i] = ya[i] - yb[i]
	}
	return ClusteredRatio(d, m, confidence)
}

// Scale returns iv with Mean, Lo, Hi and SE multiplied by k (k = 100:
// a fraction as percent).
func (iv Interval) Scale(k float64) Interval {
	iv.Mean, iv.Lo, iv.Hi, iv.SE = iv.Mean*k, iv.Lo*k, iv.Hi*k, iv.SE*k
	return iv
}

// Excludes0 reports whether the interval lies wholly above or wholly
// below zero (a paired difference that is significant at its confidence).
func (iv Interval) Excludes0() bool { return iv.Lo > 0 || iv.Hi < 0 }

// PairedRankBands returns rank bands (see Band) from paired comparisons of
// n configurations: diff(i, j) gives the interval of configuration i's
// score minus j's (ClusteredDifference) and ok false when the two cannot be
// compared (one of them has no per-question outcomes). Configuration i's
// best rank is 1 + the number of others significantly above it (the
// interval of their difference lies wholly above 0) and its worst rank n
// minus the number significantly below it; an incomparable pair counts as
// not significant, so it widens both bands. The leader is the
// configuration of the highest mean (the first of equal means); Tied marks
// the leader and every configuration not significantly below it (the
// leader's tie group, "≈"). means is aligned with the configurations; with
// none it returns nil.
//
// Example: means [50, 48, 20] where only the third differs significantly
// from the others give bands 1–2, 1–2 and 3–3, the first two tied.
func PairedRankBands(means []float64, diff func(i, j int) (Interval, bool)) []Band {
	n := len(means)
	if n == 0 {
		return nil
	}
	leader := 0
	for i, m := range means {
		if m > means[leader] {
			leader = i
		}
	}
	out := make([]Band, n)
	for i := range out {
		out[i] = Band{Best: 1, Worst: n, Tied: i == leader}
	}
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			d, ok := diff(i, j) // i − j
			if !ok {
				continue
			}
			switch {
			case d.Lo > 0: // i above j
				out[j].Best++
				out[i].Worst--
			case d.Hi < 0: // j above i
				out[i].Best++
				out[j].Worst--
			}
			if i == leader && !(d.Lo > 0) {
				out[j].Tied = true
			}
			if j == leader && !(d.Hi < 0) {
				out[i].Tied = true
			}
		}
	}
	for i := range out {
		if _, ok := diff(leader, i); i != leader && !ok {
			out[i].Tied = true // not comparable with the leader: cannot be told apart
		}
	}
	return out
}

// tQuantiles memoizes StudentTQuantile: a table's paired differences ask for
// the same few quantiles thousands of times.
var tQuantiles sync.Map // [2]float64{p, df} → float64

func tQuantile(p, df float64) float64 {
	k := [2]float64{p, df}
	if q, ok := tQuantiles.Load(k); ok {
		return q.(float64)
	}
	q := StudentTQuantile(p, df)
	tQuantiles.Store(k, q)
	return q
}
