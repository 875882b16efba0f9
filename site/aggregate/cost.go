package aggregate

import "slices"

// Cost is what a configuration's aggregated rounds spent, as the runs
// recorded it: means per round over the rounds that recorded
// each quantity. A quantity no round recorded has N 0.
type Cost struct {
	// Rounds is the number of aggregated rounds.
	Rounds int
	// Questions is the number of questions per round the means divide by
	// for per-question figures (the run's rows with code or an answer: all
	// questions asked, whatever the question set scored).
	Questions int
	// Tokens: mean prompt and completion tokens per round, from the run's
	// usage (results.Usage) or else the sum of its rows' token columns;
	// TokenRounds the rounds that recorded them.
	PromptTokens, CompletionTokens float64
	TokenRounds                    int
	// Calls is the mean number of model calls per round (results.Usage.Calls);
	// CallRounds the rounds that recorded it.
	Calls      float64
	CallRounds int
	// LatencySeconds is the mean per round of the rows' model latency
	// summed over the questions, seconds; LatencyRounds the rounds with
	// any recorded latency.
	LatencySeconds float64
	LatencyRounds  int
	// CostUSD is the mean cost per round in US dollars where the run
	// recorded it (prices given to the runner); CostRounds those rounds.
	CostUSD    float64
	CostRounds int
}

// TokensPerQuestion returns the mean prompt + completion tokens per
// question and round; ok is false when no round recorded tokens.
func (c *Cost) TokensPerQuestion() (float64, bool) {
	if c.TokenRounds == 0 || c.Questions == 0 {
		return 0, false
	}
	return (c.PromptTokens + c.CompletionTokens) / float64(c.Questions), true
}

// Known reports whether any round recorded tokens, calls, latency or cost.
func (c *Cost) Known() bool {
	return c.TokenRounds+c.CallRounds+c.LatencyRounds+c.CostRounds > 0
}

// Cost returns the configuration's cost over its aggregated runs (all
// quantities zero, Known false, when none recorded any).
func (c *Configuration) Cost() *Cost {
	out := &Cost{}
	var tok, cmp, calls, lat, usd float64
	for _, r := range c.RunsWith(StatusAggregated) {
		out.Rounds++
		f := r.File
		out.Questions = max(out.Questions, len(r.Questions))
		var rowP, rowC, rowL int64
		var hasTok, hasLat bool
		for _, q := range r.Questions {
			if q.PromptTokens != nil {
				rowP += *q.PromptTokens
				hasTok = true
			}
			if q.CompletionTokens != nil {
				rowC += *q.CompletionTokens
				hasTok = true
			}
			if q.LatencyMS != nil {
				rowL += *q.LatencyMS
				hasLat = true
			}
		}
		if u := f.Run.Usage; u != nil && (u.PromptTokens > 0 || u.CompletionTokens > 0) {
			tok += float64(u.PromptTokens)
			cmp += float64(u.CompletionTokens)
			out.TokenRounds++
		} else if hasTok {
			tok += float64(rowP)
			cmp += float64(rowC)
			out.TokenRounds++
		}
		if u := f.Run.Usage; u != nil && u.Calls > 0 {
			calls += float64(u.Calls)
			out.CallRounds++
		}
		if u := f.Run.Usage; u != nil && u.CostUSD != nil {
			usd += *u.CostUSD
			out.CostRounds++
		}
		if hasLat {
			lat += float64(rowL) / 1000
			out.LatencyRounds++
		}
	}
	div := func(x float64, n int) float64 {
		if n == 0 {
			return 0
		}
		return x / float64(n)
	}
	out.PromptTokens, out.CompletionTokens = div(tok, out.TokenRounds), div(cmp, out.TokenRounds)
	out.Calls, out.LatencySeconds, out.CostUSD = div(calls, out.CallRounds), div(lat, out.LatencyRounds), div(usd, out.CostRounds)
	return out
}

// ParetoFront returns the indices of the points (x = cost, lower is better;
// y = accuracy, higher is better) that no other point dominates (another
// point with x ≤ and y ≥, one of them strictly), in increasing x. Equal
// points are all kept. points is not modified.
func ParetoFront(xs, ys []float64) []int {
	var out []int
	for i := range xs {
		dominated := false
		for j := range xs {
			if j != i && xs[j] <= xs[i] && ys[j] >= ys[i] && (xs[j] < xs[i] || ys[j] > ys[i]) {
				dominated = true
				break
			}
		}
		if !dominated {
			out = append(out, i)
		}
	}
	slices.SortStableFunc(out, func(a, b int) int {
		switch {
		case xs[a] < xs[b]:
			return -1
		case xs[a] > xs[b]:
			return 1
		}
		return 0
	})
	return out
}
