package stats

import (
	"errors"
	"fmt"
	"math"
	"testing"
)

func TestSummarize(t *testing.T) {
	check := func(name string, values []float64, n int, mean, pop, samp float64) {
		t.Helper()
		s := Summarize(values)
		if s.N != n || !near(s.Mean, mean) || !near(s.PopStd, pop) || !near(s.SampleStd, samp) {
			t.Errorf("%s: Summarize(%v) = n %d mean %.4f pop %.4f samp %.4f; want n %d mean %.4f pop %.4f samp %.4f",
				name, values, s.N, s.Mean, s.PopStd, s.SampleStd, n, mean, pop, samp)
		}
	}
	pct := func(n int, ks ...int) []float64 {
		out := make([]float64, len(ks))
		for i, k := range ks {
			out[i] = Percent(k, n)
		}
		return out
	}
	check("empty", nil, 0, 0, 0, 0)
	check("one", []float64{42}, 1, 42, 0, 0)
	// [2, 4, 4, 4, 5, 5, 7, 9]: mean 5, Σd² = 32, pop sqrt(32/8) = 2, sample sqrt(32/7).
	check("textbook", []float64{2, 4, 4, 4, 5, 5, 7, 9}, 8, 5, 2, math.Sqrt(32.0/7))
	// GPT-4o single LLM runnable [23, 26, 18]/49: mean 67/147 = 45.578; the paper shows 45.58 ± 6.73 (population std).
	check("gpt-4o runnable", pct(49, 23, 26, 18), 3, 45.57823, 6.73435, 8.24786)
	// GPT-4o single LLM success [25, 26, 25]/138: mean 76/414 = 18.357; paper 18.36 ± 0.34.
	check("gpt-4o success", pct(138, 25, 26, 25), 3, 18.35749, 0.34160, 0.41837)
	// Agentic RAG gpt-4o source 4 success [37, 55, 47]/138 = 33.57 ± 5.34 (docs/mattools.md §3.4).
	check("agentic success", pct(138, 37, 55, 47), 3, 33.57488, 5.33592, 6.53514)
	check("constant", []float64{3, 3, 3}, 3, 3, 0, 0)
	check("negative", []float64{-1, 1}, 2, 0, 1, math.Sqrt2)
	if got := fmt.Sprintf("%.2f ± %.2f", Summarize(pct(49, 23, 26, 18)).Mean, Summarize(pct(49, 23, 26, 18)).PopStd); got != "45.58 ± 6.73" {
		t.Errorf("formatted = %q, want the paper's label 45.58 ± 6.73", got)
	}
}

func TestSummarizeWarnsOnSingleRound(t *testing.T) {
	s := Summarize([]float64{10})
	if len(s.Warnings) != 1 || !errors.Is(s.Warnings[0], ErrSingleValue) {
		t.Errorf("Warnings = %v, want [ErrSingleValue]", s.Warnings)
	}
	if s := Summarize([]float64{1, 2}); len(s.Warnings) != 0 {
		t.Errorf("two values: Warnings = %v, want none", s.Warnings)
	}
}

func TestSummarizeDoesNotModifyInput(t *testing.T) {
	in := []float64{3, 1, 2}
	Summarize(in)
	if in[0] != 3 || in[1] != 1 || in[2] != 2 {
		t.Errorf("input modified: %v", in)
	}
}

func TestPercent(t *testing.T) {
	if got := Percent(67, 147); !near(got, 45.578231) {
		t.Errorf("Percent(67,147) = %v", got)
	}
	if got := Percent(1, 0); got != 0 {
		t.Errorf("Percent(1,0) = %v, want 0", got)
	}
}

func ExampleSummarize() {
	// Single-LLM GPT-4o, function runnable counts per round, out of 49 questions.
	var pct []float64
	for _, k := range []int{23, 26, 18} {
		pct = append(pct, Percent(k, 49))
	}
	s := Summarize(pct)
	fmt.Printf("%.2f ± %.2f (population std, n = %d); sample std %.2f\n", s.Mean, s.PopStd, s.N, s.SampleStd)
	// Output: 45.58 ± 6.73 (population std, n = 3); sample std 8.25
}

func near(a, b float64) bool { return math.Abs(a-b) < 5e-5 }
