package aggregate_test

import (
	"math"
	"slices"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
)

func TestParetoFront(t *testing.T) {
	check := func(name string, xs, ys []float64, want []int) {
		t.Helper()
		if got := aggregate.ParetoFront(xs, ys); !slices.Equal(got, want) {
			t.Errorf("%s: front %v, want %v", name, got, want)
		}
	}
	// (1,10) and (3,30) are on the front; (2,5) is beaten by (1,10); (4,30) by (3,30).
	check("mixed", []float64{3, 1, 2, 4}, []float64{30, 10, 5, 30}, []int{1, 0})
	check("equal points both kept", []float64{1, 1}, []float64{5, 5}, []int{0, 1})
	check("one point", []float64{7}, []float64{0}, []int{0})
	check("none", nil, nil, nil)
}

// TestCostOfThePublishedGPTRuns: MatTools' single-LLM GPT-4o
// batches record their usage; the configuration's cost is the mean per
// round of the runs' own usage (prompt 41,629 every round; completion
// 30,006, 30,086 and 29,434 → 29,842), 49 calls, no latency, no price; the
// configurations without usage (LLM-RAG) are not Known.
func TestCostOfThePublishedGPTRuns(t *testing.T) {
	files, lb := realLeaderboard(t)
	var gpt4o *aggregate.Configuration
	for _, c := range lb.Configurations {
		switch {
		case c.Key.System == results.SystemSingleLLM && c.Key.Model == "gpt-4o-2024-08-06" && c.Key.ScoringProtocol == results.ProtocolMatToolsOriginal:
			gpt4o = c
		case c.Key.System == results.SystemLLMRAG && c.Key.ScoringProtocol == results.ProtocolMatToolsOriginal:
			if c.Cost().Known() {
				t.Errorf("%s: cost known, but MatTools' RAG runs record no usage", c.Key)
			}
		}
	}
	if gpt4o == nil {
		t.Fatal("no published GPT-4o single-LLM configuration")
	}
	var prompt, completion float64
	n := 0
	for _, f := range files {
		r := &f.Run
		if r.System == results.SystemSingleLLM && r.Model == "gpt-4o-2024-08-06" && r.ScoringProtocol == results.ProtocolMatToolsOriginal && r.Round > 0 && r.Usage != nil {
			prompt += float64(r.Usage.PromptTokens)
			completion += float64(r.Usage.CompletionTokens)
			n++
		}
	}
	co := gpt4o.Cost()
	if n != 3 || co.TokenRounds != 3 || co.PromptTokens != prompt/3 || co.CompletionTokens != completion/3 || co.CallRounds != 3 || co.Calls != 49 ||
		co.LatencyRounds != 0 || co.CostRounds != 0 || co.Questions != 49 {
		t.Errorf("GPT-4o cost %+v; from the runs' usage: %d rounds, prompt %.1f, completion %.1f per round", co, n, prompt/float64(n), completion/float64(n))
	}
	if math.Abs(co.CompletionTokens-29842) > 0.01 || co.PromptTokens != 41629 {
		t.Errorf("GPT-4o tokens per round: prompt %.1f completion %.1f, want 41629 and 29842", co.PromptTokens, co.CompletionTokens)
	}
	if q, ok := co.TokensPerQuestion(); !ok || math.Abs(q-(41629+29842)/49.0) > 1e-9 {
		t.Errorf("tokens per question %v %v", q, ok)
	}
}
