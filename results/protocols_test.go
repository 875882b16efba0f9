package results_test

import (
	"slices"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/results"
)

// TestScoringProtocolRegistry: the registry scores tool usage under
// mattools-v1 then mattools-v1-strict and QA under mattools-qa-v1;
// mattools-original is known but only imported, and an id it does not hold
// is not found and not accepted for any benchmark.
func TestScoringProtocolRegistry(t *testing.T) {
	if got, want := results.ScoredProtocols(results.BenchmarkToolUsage), []string{"mattools-v1", "mattools-v1-strict"}; !slices.Equal(got, want) {
		t.Errorf("tool usage: %q; want %q", got, want)
	}
	for _, b := range []results.Benchmark{results.BenchmarkQACode, results.BenchmarkQADoc} {
		if got := results.ScoredProtocols(b); !slices.Equal(got, []string{"mattools-qa-v1"}) {
			t.Errorf("%s: %q; want [mattools-qa-v1]", b, got)
		}
	}
	if got := results.ScoredProtocols("no-such-benchmark"); got != nil {
		t.Errorf("unknown benchmark: %q; want none", got)
	}
	if p, ok := results.LookupScoringProtocol(results.ProtocolMatToolsOriginal); !ok || p.Scored || p.Kind != results.KindToolUsage {
		t.Errorf("mattools-original: %+v, %v; want a known, imported-only tool-usage protocol", p, ok)
	}
	if _, ok := results.LookupScoringProtocol("mattools-v2"); ok {
		t.Error("mattools-v2 is found; want not found")
	}
	for _, c := range []struct {
		b    results.Benchmark
		id   string
		want string // "" = accepted
	}{
		{results.BenchmarkToolUsage, "mattools-v1", ""},
		{results.BenchmarkToolUsage, "mattools-v1-strict", ""},
		{results.BenchmarkQADoc, "mattools-qa-v1", ""},
		{results.BenchmarkToolUsage, "mattools-original", `is "mattools-original"; want mattools-v1 or mattools-v1-strict`},
		{results.BenchmarkToolUsage, "mattools-qa-v1", `is "mattools-qa-v1"; want mattools-v1 or mattools-v1-strict`},
		{results.BenchmarkQACode, "mattools-v1", `is "mattools-v1"; want mattools-qa-v1`},
		{results.BenchmarkToolUsage, "", `is ""; want mattools-v1 or mattools-v1-strict`},
		{"no-such-benchmark", "mattools-v1", `is "mattools-v1"; want none`},
	} {
		err := results.CheckScoredProtocol(c.b, c.id)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s %q: %v; want accepted", c.b, c.id, err)
		case c.want != "" && (err == nil || err.Error() != c.want):
			t.Errorf("%s %q: %v; want %q", c.b, c.id, err, c.want)
		}
	}
}
