package stats

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// referenceCases are the fixed inputs both this package and SciPy/NumPy
// (scripts/stats-reference/reference.py) compute on. The per-round values are
// real published counts as percentages (docs/mattools.md §3.4).
func referenceCases() map[string]any {
	pct := func(n int, ks ...int) []float64 {
		out := make([]float64, len(ks))
		for i, k := range ks {
			out[i] = Percent(k, n)
		}
		return out
	}
	rounds := [][]float64{
		pct(138, 25, 26, 25), // GPT-4o single LLM, task success
		pct(49, 23, 26, 18),  // GPT-4o single LLM, function runnable
		pct(138, 54, 57, 53), // GPT-4o LLM-RAG source 4, task success
		pct(138, 70, 84, 75), // self-reflection gpt-4o source 4, task success
		pct(138, 6, 3, 6),    // GPT-3.5 single LLM, task success
		pct(138, 26, 48, 48), // Gemini-2.0-flash-thinking source 2: a wide one
		{1, 2},               // n = 2: t(0.975; 1) = 12.706
		{2, 4, 4, 4, 5, 5, 7, 9},
	}
	var intervals []map[string]any
	for _, c := range []float64{0.95, 0.9, 0.99} {
		for _, r := range rounds {
			intervals = append(intervals, map[string]any{"values": r, "confidence": c})
		}
	}
	return map[string]any{
		"summaries": rounds,
		"intervals": intervals,
		"t_ppf": [][2]float64{{0.975, 1}, {0.975, 2}, {0.975, 3}, {0.975, 4}, {0.975, 10}, {0.975, 30}, {0.975, 1000},
			{0.95, 2}, {0.995, 2}, {0.5, 2}, {0.025, 2}, {0.001, 5}, {0.9999, 2}, {0.6, 0.5}},
		"t_cdf":     [][2]float64{{0, 2}, {1, 1}, {4.302652729911275, 2}, {-2.5, 3}, {10, 2}, {-30, 7}, {0.1, 100}},
		"betainc":   [][3]float64{{1, 0.5, 0.5}, {0.5, 0.5, 0.2}, {2, 3, 0.4}, {10, 0.5, 0.9}, {50, 50, 0.5}, {0.1, 20, 0.001}},
		"sign":      [][2]int{{1, 0}, {5, 0}, {7, 2}, {2, 7}, {10, 10}, {3, 11}, {20, 5}, {0, 30}, {60, 40}, {150, 120}, {1, 1}},
		"clustered": clusteredCases(),
		"paired":    pairedAsJSON(pairedCases()),
	}
}

func pairedAsJSON(ps [][2]clusterCase) []map[string]clusterCase {
	out := make([]map[string]clusterCase, len(ps))
	for i, p := range ps {
		out[i] = map[string]clusterCase{"a": p[0], "b": p[1]}
	}
	return out
}

type clusteredValues struct {
	Mean, SE, Lo, Hi float64
	Bootstrap        [2]float64
}

type referenceValues struct {
	Versions  map[string]string `json:"versions"`
	Summaries []struct {
		Mean      float64 `json:"mean"`
		PopStd    float64 `json:"pop_std"`
		SampleStd float64 `json:"sample_std"`
	} `json:"summaries"`
	Intervals [][2]float64      `json:"intervals"`
	TPPF      []float64         `json:"t_ppf"`
	TCDF      []float64         `json:"t_cdf"`
	BetaInc   []float64         `json:"betainc"`
	Sign      []float64         `json:"sign"`
	Clustered []clusteredValues `json:"clustered"`
	Paired    []clusteredValues `json:"paired"`
}

// TestAgainstSciPy computes every statistic of the package on fixed inputs
// and compares it with SciPy 1.15.2 / NumPy 1.26.4 (and the clustered
// intervals with statsmodels 0.14.4) on the same inputs
// (scripts/stats-reference/reference.py, run in the pinned test-only venv
// build/stats-reference-venv that scripts/setup.sh makes;
// MATTOOLS_STATS_REFERENCE_VENV overrides its location). It skips, naming
// the venv, when the venv is missing outside CI, and fails under CI.
func TestAgainstSciPy(t *testing.T) {
	repo, _ := filepath.Abs("../..")
	venv := os.Getenv("MATTOOLS_STATS_REFERENCE_VENV")
	if venv == "" {
		venv = filepath.Join(repo, "build", "stats-reference-venv")
	}
	py := filepath.Join(venv, "bin", "python")
	if _, err := os.Stat(py); err != nil {
		msg := "statistics reference: no venv at " + venv + " (scripts/setup.sh makes it from scripts/stats-reference/requirements.txt): " + err.Error()
		if ci := os.Getenv("CI"); ci != "" && ci != "0" && ci != "false" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	cases := referenceCases()
	in, _ := json.Marshal(cases)
	cmd := exec.Command(py, filepath.Join(repo, "scripts", "stats-reference", "reference.py"))
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("reference.py: %v\n%s", err, stderr.String())
	}
	var ref referenceValues
	if err := json.Unmarshal(out, &ref); err != nil {
		t.Fatalf("reference.py output: %v\n%s", err, out)
	}
	t.Logf("reference: %v", ref.Versions)
	close := func(what string, got, want, tol float64) {
		t.Helper()
		if math.IsNaN(got) || math.Abs(got-want) > tol*math.Max(1, math.Abs(want)) {
			t.Errorf("%s = %.15g, SciPy/NumPy %.15g", what, got, want)
		}
	}
	rounds := cases["summaries"].([][]float64)
	for i, r := range rounds {
		s := Summarize(r)
		close("mean", s.Mean, ref.Summaries[i].Mean, 1e-12)
		close("population std (np.std ddof=0)", s.PopStd, ref.Summaries[i].PopStd, 1e-12)
		close("sample std (np.std ddof=1)", s.SampleStd, ref.Summaries[i].SampleStd, 1e-12)
	}
	for i, c := range cases["intervals"].([]map[string]any) {
		iv := TInterval(c["values"].([]float64), c["confidence"].(float64))
		close("t-interval lo", iv.Lo, ref.Intervals[i][0], 1e-10)
		close("t-interval hi", iv.Hi, ref.Intervals[i][1], 1e-10)
	}
	for i, c := range cases["t_ppf"].([][2]float64) {
		close("t.ppf", StudentTQuantile(c[0], c[1]), ref.TPPF[i], 1e-10)
	}
	for i, c := range cases["t_cdf"].([][2]float64) {
		close("t.cdf", StudentTCDF(c[0], c[1]), ref.TCDF[i], 1e-12)
	}
	for i, c := range cases["betainc"].([][3]float64) {
		close("betainc", RegIncBeta(c[0], c[1], c[2]), ref.BetaInc[i], 1e-12)
	}
	for i, c := range cases["sign"].([][2]int) {
		close("binomtest p", SignTest(c[0], c[1]), ref.Sign[i], 1e-12)
	}
	// Clustered standard errors and paired differences against statsmodels
	// (OLS on every property outcome of every round, cluster-robust by
	// question): the largest absolute difference is logged.
	worst := 0.0
	check := func(what string, got Interval, want clusteredValues) {
		t.Helper()
		for _, f := range [][3]any{{"mean", got.Mean, want.Mean}, {"SE", got.SE, want.SE}, {"lo", got.Lo, want.Lo}, {"hi", got.Hi, want.Hi}} {
			g, w := f[1].(float64), f[2].(float64)
			worst = math.Max(worst, math.Abs(g-w))
			close(what+" "+f[0].(string), g, w, 1e-10)
		}
	}
	for i, c := range clusteredCases() {
		iv := ClusteredRatio(c.means(), c.Weights, c.Confidence)
		check(fmt.Sprintf("clustered case %d", i), iv, ref.Clustered[i])
		b := ref.Clustered[i].Bootstrap
		t.Logf("clustered case %d: %.4f, clustered SE t-interval [%.4f, %.4f], percentile bootstrap over questions and rounds [%.4f, %.4f]",
			i, iv.Mean, iv.Lo, iv.Hi, b[0], b[1])
	}
	for i, p := range pairedCases() {
		check(fmt.Sprintf("paired case %d", i), ClusteredDifference(p[0].means(), p[1].means(), p[0].Weights, p[0].Confidence), ref.Paired[i])
	}
	t.Logf("clustered and paired: largest absolute difference from statsmodels %.3g (fractions)", worst)
}

func TestTIntervalByHand(t *testing.T) {
	// GPT-4o single LLM task success [25, 26, 25]/138: mean 18.3575, s 0.41837,
	// s/√3 = 0.24155, t(0.975; 2) = 4.302653 → ±1.03931 → [17.3182, 19.3968].
	iv := TInterval([]float64{Percent(25, 138), Percent(26, 138), Percent(25, 138)}, 0.95)
	if !near(iv.Lo, 17.31818) || !near(iv.Hi, 19.39680) || iv.N != 3 || len(iv.Warnings) != 0 {
		t.Errorf("TInterval = %+v, want [17.3182, 19.3968], n 3, no warnings", iv)
	}
	one := TInterval([]float64{42}, 0.95)
	if one.Lo != 42 || one.Hi != 42 || len(one.Warnings) != 1 || !errors.Is(one.Warnings[0], ErrSingleValue) {
		t.Errorf("one value: %+v", one)
	}
	same := TInterval([]float64{3, 3, 3}, 0.95)
	if same.Lo != 3 || same.Hi != 3 || len(same.Warnings) != 1 || !errors.Is(same.Warnings[0], ErrZeroWidth) {
		t.Errorf("equal values: %+v", same)
	}
	if got := TInterval(nil, 0.95); got.N != 0 || got.Lo != 0 {
		t.Errorf("no values: %+v", got)
	}
	c := Interval{Lo: -3, Hi: 104}.Clamp(0, 100)
	if c.Lo != 0 || c.Hi != 100 {
		t.Errorf("Clamp = %+v", c)
	}
	if q := StudentTQuantile(0.975, 2); !near(q, 4.302653) {
		t.Errorf("t(0.975; 2) = %v", q)
	}
	if !math.IsInf(StudentTQuantile(1, 3), 1) || !math.IsNaN(StudentTQuantile(1.5, 3)) {
		t.Error("quantile edge cases")
	}
}

func TestRankBands(t *testing.T) {
	iv := func(lo, mean, hi float64) Interval { return Interval{Lo: lo, Mean: mean, Hi: hi} }
	check := func(name string, ivs []Interval, want []Band) {
		t.Helper()
		got := RankBands(ivs)
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%s: band %d = %+v, want %+v", name, i, got[i], want[i])
			}
		}
	}
	// [10,20] and [15,25] overlap each other, both lie below [30,40].
	check("doc example", []Interval{iv(10, 15, 20), iv(15, 20, 25), iv(30, 35, 40)},
		[]Band{{2, 3, false}, {2, 3, false}, {1, 1, true}})
	// Touching intervals overlap: [0,1] and [1,2] tie; [5,6] leads alone.
	check("touching", []Interval{iv(5, 5.5, 6), iv(1, 1.5, 2), iv(0, 0.5, 1)},
		[]Band{{1, 1, true}, {2, 3, false}, {2, 3, false}})
	// Zero-width intervals of equal means tie; the first is the leader.
	check("equal points", []Interval{iv(4, 4, 4), iv(4, 4, 4), iv(1, 1, 1)},
		[]Band{{1, 2, true}, {1, 2, true}, {3, 3, false}})
	// A wide interval spans every rank.
	check("wide", []Interval{iv(50, 60, 70), iv(0, 40, 80), iv(20, 25, 30)},
		[]Band{{1, 2, true}, {1, 3, true}, {2, 3, false}})
	if RankBands(nil) != nil {
		t.Error("no intervals: want nil")
	}
}

func TestSignTestByHand(t *testing.T) {
	check := func(w, l int, want float64) {
		t.Helper()
		if got := SignTest(w, l); math.Abs(got-want) > 1e-12 {
			t.Errorf("SignTest(%d, %d) = %.15g, want %.15g", w, l, got, want)
		}
	}
	check(0, 0, 1)
	check(1, 0, 1)         // 2 · 1/2
	check(5, 0, 2.0/32)    // 2 · (1/2)^5 = 0.0625
	check(7, 2, 2*46/512.) // 2 · (1 + 9 + 36)/512 = 0.1796875
	check(2, 7, 2*46/512.)
	check(3, 3, 1)
}

func ExampleTInterval() {
	// Single-LLM GPT-4o, task success per round, out of 138 properties.
	var pct []float64
	for _, k := range []int{25, 26, 25} {
		pct = append(pct, Percent(k, 138))
	}
	iv := TInterval(pct, 0.95)
	fmt.Printf("mean %.2f, 95%% t-interval [%.2f, %.2f] (n = %d)\n", iv.Mean, iv.Lo, iv.Hi, iv.N)
	// Output: mean 18.36, 95% t-interval [17.32, 19.40] (n = 3)
}
