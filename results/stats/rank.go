package stats

import "math"

// Band is the range of ranks a configuration can hold given the confidence
// intervals of all configurations ranked together: 1-based, Best ≤ Worst.
type Band struct {
	// Best is 1 + the number of others whose interval lies wholly above
	// this one's (their Lo > this Hi): Chatbot Arena's rank rule.
	Best int
	// Worst is the number of configurations (this one included) whose
	// interval is not wholly below this one's (their Hi ≥ this Lo).
	Worst int
	// Tied reports whether the interval overlaps the leader's (the
	// configuration of the highest mean; the first of equal means): the
	// leader's tie group, which the leader belongs to.
	Tied bool
}

// RankBands returns the rank band of each interval (see Band), aligned with
// ivs, which is not modified. Intervals that merely touch (one's Lo equals
// the other's Hi) count as overlapping. With no intervals it returns nil.
//
// Example: intervals [10, 20], [15, 25], [30, 40] give bands 2–3, 2–3 and
// 1–1; only the third is in the leader's tie group.
func RankBands(ivs []Interval) []Band {
	if len(ivs) == 0 {
		return nil
	}
	leader := 0
	for i, iv := range ivs {
		if iv.Mean > ivs[leader].Mean {
			leader = i
		}
	}
	out := make([]Band, len(ivs))
	for i, a := range ivs {
		b := Band{Best: 1, Tied: a.Overlaps(ivs[leader])}
		for j, o := range ivs {
			if j != i && o.Lo > a.Hi {
				b.Best++
			}
			if o.Hi >= a.Lo {
				b.Worst++
			}
		}
		out[i] = b
	}
	return out
}

// SignTest returns the two-sided p-value of the exact sign test of wins
// against losses (ties left out beforehand): under the null hypothesis of
// no difference, wins ~ Binomial(wins + losses, 1/2), and
//
//	p = min(1, 2 · P(X ≤ min(wins, losses)))
//
// which equals scipy.stats.binomtest(wins, wins+losses, 0.5).pvalue and the
// exact McNemar test on the discordant pairs. It returns 1 when wins +
// losses = 0 (no evidence either way); negative counts panic.
func SignTest(wins, losses int) float64 {
	if wins < 0 || losses < 0 {
		panic("stats: negative count")
	}
	n := wins + losses
	if n == 0 {
		return 1
	}
	k := min(wins, losses)
	// Σ_{i ≤ k} C(n, i) / 2^n, summed in log space from the largest term down.
	terms := make([]float64, k+1)
	for i := 0; i <= k; i++ {
		terms[i] = logChoose(n, i) - float64(n)*math.Ln2
	}
	m := terms[k]
	sum := 0.0
	for _, t := range terms {
		sum += math.Exp(t - m)
	}
	p := 2 * math.Exp(m) * sum
	return math.Min(1, p)
}

func logChoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}
