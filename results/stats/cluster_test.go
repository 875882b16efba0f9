package stats

import (
	"errors"
	"math"
	"testing"
)

// realQuestions are re-executed published runs of MatTools 2025-05
// (make rescore-published, results/published/reexecuted.json) under
// mattools-v1-strict on the 28 questions whose data files exist
// (executable-85659656), in the published evaluation order: per question
// {properties, passed in round 1, round 2, round 3} for the task success
// rate, and {properties, runnable in round 1, 2, 3} (0 or 1) for the
// function runnable rate.
var realQuestions = map[string][][4]int{
	"gpt-4o single LLM, task success":                          {{10, 4, 5, 5}, {4, 0, 0, 0}, {1, 0, 0, 0}, {18, 0, 0, 0}, {3, 0, 0, 0}, {4, 0, 0, 0}, {1, 0, 0, 0}, {1, 0, 0, 0}, {3, 2, 2, 2}, {1, 1, 0, 1}, {2, 2, 1, 1}, {1, 0, 0, 0}, {2, 0, 0, 0}, {1, 1, 1, 1}, {9, 0, 0, 0}, {1, 1, 1, 1}, {3, 0, 0, 0}, {1, 1, 1, 1}, {1, 0, 0, 0}, {2, 0, 0, 0}, {11, 0, 0, 0}, {2, 0, 0, 0}, {2, 0, 2, 0}, {1, 1, 1, 1}, {1, 1, 1, 1}, {2, 0, 0, 0}, {3, 2, 1, 0}, {2, 2, 2, 2}},
	"gpt-4o single LLM, runnable":                              {{10, 1, 1, 1}, {4, 1, 1, 1}, {1, 0, 1, 0}, {18, 0, 0, 0}, {3, 1, 1, 1}, {4, 1, 1, 1}, {1, 0, 0, 0}, {1, 0, 0, 1}, {3, 1, 1, 1}, {1, 1, 0, 1}, {2, 1, 1, 1}, {1, 0, 0, 0}, {2, 1, 1, 1}, {1, 1, 1, 1}, {9, 1, 1, 0}, {1, 1, 1, 1}, {3, 0, 1, 0}, {1, 1, 1, 1}, {1, 1, 1, 1}, {2, 1, 1, 1}, {11, 1, 1, 1}, {2, 1, 1, 1}, {2, 1, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}, {2, 0, 0, 0}, {3, 1, 1, 1}, {2, 1, 1, 1}},
	"gemini-2.0-flash-thinking LLM-RAG source 4, task success": {{10, 5, 8, 9}, {4, 4, 3, 3}, {1, 0, 0, 0}, {18, 0, 0, 0}, {3, 3, 3, 3}, {4, 0, 0, 0}, {1, 1, 1, 1}, {1, 1, 1, 1}, {3, 1, 1, 3}, {1, 1, 1, 1}, {2, 1, 1, 1}, {1, 1, 1, 1}, {2, 0, 1, 0}, {1, 0, 1, 0}, {9, 9, 9, 9}, {1, 1, 1, 1}, {3, 3, 0, 3}, {1, 1, 1, 1}, {1, 0, 0, 0}, {2, 0, 0, 0}, {11, 0, 0, 0}, {2, 2, 1, 1}, {2, 2, 2, 2}, {1, 1, 1, 1}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 1, 3}, {2, 0, 1, 1}},
	"gpt-4o self-reflection source 4, task success":            {{10, 8, 8, 8}, {4, 4, 4, 4}, {1, 0, 1, 0}, {18, 0, 0, 0}, {3, 3, 3, 3}, {4, 0, 0, 0}, {1, 1, 1, 1}, {1, 1, 1, 1}, {3, 2, 2, 3}, {1, 1, 1, 1}, {2, 1, 2, 2}, {1, 1, 1, 1}, {2, 1, 0, 0}, {1, 1, 1, 1}, {9, 9, 6, 6}, {1, 1, 1, 1}, {3, 0, 0, 0}, {1, 1, 1, 1}, {1, 0, 0, 0}, {2, 0, 0, 0}, {11, 0, 0, 0}, {2, 1, 1, 1}, {2, 2, 2, 2}, {1, 1, 1, 1}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 2, 0, 1}, {2, 2, 1, 1}},
	"gpt-4o self-reflection source 4, runnable":                {{10, 1, 1, 1}, {4, 1, 1, 1}, {1, 1, 1, 0}, {18, 0, 0, 1}, {3, 1, 1, 1}, {4, 1, 1, 0}, {1, 1, 1, 1}, {1, 1, 1, 1}, {3, 1, 1, 1}, {1, 1, 1, 1}, {2, 1, 1, 1}, {1, 1, 1, 1}, {2, 1, 1, 1}, {1, 1, 1, 1}, {9, 1, 1, 1}, {1, 1, 1, 1}, {3, 1, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}, {2, 1, 1, 1}, {11, 1, 0, 0}, {2, 1, 1, 1}, {2, 1, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}, {2, 1, 1, 1}, {3, 1, 1, 1}, {2, 1, 1, 1}},
}

// clusterCase is a clustered case as reference.py reads it: per question
// the count of each round, and the question's weight.
type clusterCase struct {
	Passed     [][]int   `json:"passed"`
	Weights    []float64 `json:"weights"`
	Confidence float64   `json:"confidence"`
}

// realCase returns the named real runs as a case: weights are the property
// counts for a task success rate, 1 for a runnable rate; rounds keeps the
// first rounds only (1–3).
func realCase(name string, runnable bool, rounds int, confidence float64) clusterCase {
	var c clusterCase
	for _, q := range realQuestions[name] {
		w := float64(q[0])
		if runnable {
			w = 1
		}
		c.Weights = append(c.Weights, w)
		c.Passed = append(c.Passed, append([]int(nil), q[1:1+rounds]...))
	}
	c.Confidence = confidence
	return c
}

// means returns the case's question means over rounds (y of ClusteredRatio).
func (c clusterCase) means() []float64 {
	y := make([]float64, len(c.Passed))
	for i, ks := range c.Passed {
		for _, k := range ks {
			y[i] += float64(k)
		}
		y[i] /= float64(len(ks))
	}
	return y
}

func clusteredCases() []clusterCase {
	return []clusterCase{
		realCase("gpt-4o self-reflection source 4, task success", false, 3, 0.95),
		realCase("gpt-4o single LLM, task success", false, 3, 0.95),
		realCase("gemini-2.0-flash-thinking LLM-RAG source 4, task success", false, 3, 0.95),
		realCase("gpt-4o single LLM, runnable", true, 3, 0.95),
		realCase("gpt-4o self-reflection source 4, runnable", true, 3, 0.95),
		realCase("gpt-4o self-reflection source 4, task success", false, 1, 0.95), // one round: question sampling only
		realCase("gpt-4o single LLM, task success", false, 2, 0.9),
		{Passed: [][]int{{1}, {1}, {0}}, Weights: []float64{1, 2, 1}, Confidence: 0.95}, // the doc example
	}
}

func pairedCases() [][2]clusterCase {
	sr := "gpt-4o self-reflection source 4, task success"
	return [][2]clusterCase{
		{realCase(sr, false, 3, 0.95), realCase("gemini-2.0-flash-thinking LLM-RAG source 4, task success", false, 3, 0.95)},
		{realCase(sr, false, 3, 0.95), realCase("gpt-4o single LLM, task success", false, 3, 0.95)},
		{realCase("gpt-4o single LLM, runnable", true, 3, 0.95), realCase("gpt-4o self-reflection source 4, runnable", true, 3, 0.95)},
		{realCase(sr, false, 3, 0.95), realCase("gpt-4o single LLM, task success", false, 1, 0.95)}, // 3 rounds against 1
	}
}

func TestClusteredRatioByHand(t *testing.T) {
	// The doc example: m = [1, 2, 1], y = [1, 1, 0]: R = 0.5, residuals
	// [0.5, 0, −0.5], SE² = 3/2 · 0.5 / 16 = 0.046875, t(0.975; 2) = 4.302653.
	iv := ClusteredRatio([]float64{1, 1, 0}, []float64{1, 2, 1}, 0.95)
	se := math.Sqrt(0.046875)
	if !near(iv.Mean, 0.5) || !near(iv.SE, se) || !near(iv.Lo, 0.5-4.302653*se) || !near(iv.Hi, 0.5+4.302653*se) || iv.N != 3 || len(iv.Warnings) != 0 {
		t.Errorf("ClusteredRatio = %+v, want mean 0.5, SE %.6f, ±%.6f", iv, se, 4.302653*se)
	}
	// Real runs: GPT-4o self-reflection, source 4, mattools-v1-strict, 28
	// questions: 46.24 % (the rounds' mean) with SE 12.74 pp, against s/√n =
	// 1.64 pp over the three rounds.
	c := realCase("gpt-4o self-reflection source 4, task success", false, 3, 0.95)
	iv = ClusteredRatio(c.means(), c.Weights, 0.95).Scale(100)
	if math.Abs(iv.Mean-46.2366) > 1e-3 || math.Abs(iv.SE-12.736) > 1e-3 || math.Abs(iv.Lo-20.10) > 0.01 || math.Abs(iv.Hi-72.37) > 0.01 {
		t.Errorf("self-reflection: %+v, want 46.24, SE 12.736, [20.10, 72.37]", iv)
	}
	one := ClusteredRatio([]float64{3}, []float64{4}, 0.95)
	if one.Mean != 0.75 || one.Lo != 0.75 || one.Hi != 0.75 || len(one.Warnings) != 1 || !errors.Is(one.Warnings[0], ErrOneCluster) {
		t.Errorf("one question: %+v", one)
	}
	flat := ClusteredRatio([]float64{1, 2, 3}, []float64{2, 4, 6}, 0.95) // every question at 50 %
	if flat.Lo != 0.5 || flat.Hi != 0.5 || len(flat.Warnings) != 1 || !errors.Is(flat.Warnings[0], ErrZeroWidth) {
		t.Errorf("equal shares: %+v", flat)
	}
	if z := ClusteredRatio(nil, nil, 0.95); z.N != 0 || z.Mean != 0 {
		t.Errorf("no questions: %+v", z)
	}
	// A paired difference of a configuration with itself is exactly 0.
	if d := ClusteredDifference(c.means(), c.means(), c.Weights, 0.95); d.Mean != 0 || d.Lo != 0 || d.Hi != 0 || d.Excludes0() {
		t.Errorf("self difference: %+v", d)
	}
}

func TestPairedRankBands(t *testing.T) {
	// Differences given directly: 0 and 1 cannot be told apart, both are
	// significantly above 2; 3 has no per-question outcomes.
	sig := map[[2]int]Interval{
		{0, 1}: {Lo: -1, Hi: 5}, {0, 2}: {Lo: 10, Hi: 30}, {1, 2}: {Lo: 8, Hi: 28},
	}
	diff := func(i, j int) (Interval, bool) {
		if i == 3 || j == 3 {
			return Interval{}, false
		}
		if d, ok := sig[[2]int{i, j}]; ok {
			return d, true
		}
		d := sig[[2]int{j, i}]
		return Interval{Lo: -d.Hi, Hi: -d.Lo}, true
	}
	got := PairedRankBands([]float64{50, 48, 20, 10}, diff)
	want := []Band{{1, 3, true}, {1, 3, true}, {3, 4, false}, {1, 4, true}}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("band %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if PairedRankBands(nil, diff) != nil {
		t.Error("no configurations: want nil")
	}
}
