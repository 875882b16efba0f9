package results

import (
	"fmt"
	"slices"
	"testing"
)

// TestMatToolsManifest: MatTools' benchmarks are declared by the embedded
// manifest, named by the Go constants the code uses, with vocab.go's
// versions and upstream commit; a manifest with an unknown field or an
// invalid entry is refused, naming the file and the entry.
func TestMatToolsManifest(t *testing.T) {
	got := mustDecodeBenchmarks("results/mattools.json", matToolsManifest)
	var names []Benchmark
	for _, b := range got {
		names = append(names, b.Name)
		if b.Suite != SuiteMatTools {
			t.Errorf("%s: suite %q; want %q", b.Name, b.Suite, SuiteMatTools)
		}
		for _, v := range b.Versions {
			if v.UpstreamCommit != UpstreamCommit {
				t.Errorf("%s %s: upstream commit %q; want %q", b.Name, v.ID, v.UpstreamCommit, UpstreamCommit)
			}
		}
	}
	if want := []Benchmark{BenchmarkToolUsage, BenchmarkQACode, BenchmarkQADoc}; !slices.Equal(names, want) {
		t.Fatalf("manifest benchmarks %v; want %v", names, want)
	}
	var ids []string
	for _, v := range got[0].Versions {
		ids = append(ids, v.ID)
	}
	if want := []string{BenchmarkVersion2025_05, BenchmarkVersion2025_05Corrected1, BenchmarkVersion2025_05Corrected2}; !slices.Equal(ids, want) {
		t.Errorf("tool-usage versions %v; want %v", ids, want)
	}
	if d := DefaultBenchmark(KindToolUsage); d != BenchmarkToolUsage || BenchmarkToolUsage.Reference() != ProtocolMatToolsV1Strict {
		t.Errorf("default tool-usage benchmark %s, reference %s; want %s, %s", d, BenchmarkToolUsage.Reference(), BenchmarkToolUsage, ProtocolMatToolsV1Strict)
	}
	if q, p, _ := FullQuestionSet(BenchmarkToolUsage, BenchmarkVersion2025_05); q != 49 || p != 138 {
		t.Errorf("tool usage 2025-05: %d questions, %d properties; want 49, 138", q, p)
	}
	for _, c := range []struct{ manifest, want string }{
		{`{"benchmarks":[{"name":"x","kind":"tool-usage","versions":[{"id":"1","questions":1}],"protocols":[],"title":"X","colour":"red"}]}`, `results/x.json: json: unknown field "colour"`},
		{`{"benchmarks":[{"name":"x","kind":"tool-usage","versions":[{"id":"1","questions":1}],"protocols":["mattools-qa-v1"],"title":"X"}]}`, `results/x.json: benchmarks[0]: benchmark x: protocol "mattools-qa-v1" is not a registered tool-usage protocol`},
		{`{"benchmarks":[{"name":"x","kind":"tool-usage","versions":[{"id":"1","questions":1}],"protocols":[],"title":"X","default":true},{"name":"y","kind":"tool-usage","versions":[{"id":"1","questions":1}],"protocols":[],"title":"Y","default":true}]}`, `results/x.json: benchmarks[1]: benchmark y: x is the default tool-usage benchmark already`},
	} {
		func() {
			defer func() {
				if r := recover(); fmt.Sprint(r) != c.want {
					t.Errorf("panic %v; want %q", r, c.want)
				}
			}()
			mustDecodeBenchmarks("results/x.json", []byte(c.manifest))
		}()
	}
}
