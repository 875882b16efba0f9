package results_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/results"
)

// TestBenchmarkRegistry: MatTools' three benchmarks are registered in
// display order with their kinds and the 2025-05 sizes of
// docs/mattools.md §1, §4; an unknown benchmark or version has no size.
func TestBenchmarkRegistry(t *testing.T) {
	if got := results.BenchmarkNames()[:3]; !slices.Equal(got, []results.Benchmark{"tool-usage", "qa-code", "qa-doc"}) {
		t.Errorf("first benchmarks %q; want tool-usage, qa-code, qa-doc", got)
	}
	for _, c := range []struct {
		b        results.Benchmark
		kind     results.BenchmarkKind
		q, p     int
		title    string
		headline string
	}{
		{results.BenchmarkToolUsage, results.KindToolUsage, 49, 138, "Tool usage", "task_success_rate"},
		{results.BenchmarkQACode, results.KindMultipleChoice, 34621, 0, "Code QA", "accuracy"},
		{results.BenchmarkQADoc, results.KindMultipleChoice, 34604, 0, "Doc QA", "accuracy"},
	} {
		info, ok := results.LookupBenchmark(c.b)
		if !ok || info.Kind != c.kind || c.b.Kind() != c.kind || info.Title != c.title || c.b.Title() != c.title || info.Headline != c.headline || info.SuiteName() != results.SuiteMatTools {
			t.Errorf("%s: %+v, %v; want kind %s, title %q, headline %s, suite mattools", c.b, info, ok, c.kind, c.title, c.headline)
		}
		if q, p, ok := results.FullQuestionSet(c.b, "2025-05"); !ok || q != c.q || p != c.p {
			t.Errorf("%s 2025-05: %d / %d, %v; want %d / %d", c.b, q, p, ok, c.q, c.p)
		}
		if _, _, ok := results.FullQuestionSet(c.b, "2024-01"); ok {
			t.Errorf("%s 2024-01: found; want no such version", c.b)
		}
	}
	if got := results.BenchmarksOf(results.SuiteMatTools, results.KindMultipleChoice); !slices.Equal(got, []results.Benchmark{"qa-code", "qa-doc"}) {
		t.Errorf("MatTools multiple-choice benchmarks %q; want qa-code, qa-doc", got)
	}
	if _, ok := results.LookupBenchmark("no-such-benchmark"); ok || results.Benchmark("no-such-benchmark").Kind() != "" {
		t.Error("no-such-benchmark is registered; want not")
	}
	if _, _, ok := results.FullQuestionSet("no-such-benchmark", "2025-05"); ok {
		t.Error("no-such-benchmark has a size; want none")
	}
}

// TestDefaultBenchmarkAndReference: MatTools' tool usage is the default
// tool-usage benchmark, judged under mattools-v1-strict; multiple choice
// has no default and no reference protocol; a tool-usage benchmark
// registered without a reference (a folder benchmark) takes the default's.
func TestDefaultBenchmarkAndReference(t *testing.T) {
	if got := results.DefaultBenchmark(results.KindToolUsage); got != "tool-usage" {
		t.Errorf("default tool-usage benchmark %q; want tool-usage", got)
	}
	if got := results.DefaultBenchmark(results.KindMultipleChoice); got != "" {
		t.Errorf("default multiple-choice benchmark %q; want none", got)
	}
	for b, want := range map[results.Benchmark]string{"tool-usage": "mattools-v1-strict", "qa-code": "", "no-such-benchmark": ""} {
		if got := b.Reference(); got != want {
			t.Errorf("%s: reference %q; want %q", b, got, want)
		}
	}
	v := []results.BenchmarkVersion{{ID: "1", Questions: 2, Properties: 3}}
	if err := results.RegisterBenchmark(results.BenchmarkInfo{Name: "reference-inherited", Kind: results.KindToolUsage, Versions: v,
		Protocols: []string{results.ProtocolMatToolsV1, results.ProtocolMatToolsV1Strict}}); err != nil {
		t.Fatal(err)
	}
	if got := results.Benchmark("reference-inherited").Reference(); got != "mattools-v1-strict" {
		t.Errorf("a tool-usage benchmark without a reference: %q; want the default's, mattools-v1-strict", got)
	}
	if err := results.RegisterBenchmark(results.BenchmarkInfo{Name: "reference-own", Kind: results.KindToolUsage, Versions: v,
		Protocols: []string{results.ProtocolMatToolsV1, results.ProtocolMatToolsV1Strict}, Reference: results.ProtocolMatToolsV1}); err != nil {
		t.Fatal(err)
	}
	if got := results.Benchmark("reference-own").Reference(); got != "mattools-v1" {
		t.Errorf("a benchmark with its own reference: %q; want mattools-v1", got)
	}
}

// TestRegisterBenchmarkRefuses: a registration that would make the
// registry ambiguous or a run unscorable is refused, naming why.
func TestRegisterBenchmarkRefuses(t *testing.T) {
	v := []results.BenchmarkVersion{{ID: "1", Questions: 2, Properties: 3}}
	for _, c := range []struct {
		info results.BenchmarkInfo
		want string
	}{
		{results.BenchmarkInfo{Name: "tool-usage", Kind: results.KindToolUsage, Versions: v}, "already registered"},
		{results.BenchmarkInfo{Name: "Bad_Name", Kind: results.KindToolUsage, Versions: v}, "lower-case"},
		{results.BenchmarkInfo{Name: "refused-kind", Kind: "essay", Versions: v}, `kind "essay"`},
		{results.BenchmarkInfo{Name: "refused-versions", Kind: results.KindToolUsage}, "no version"},
		{results.BenchmarkInfo{Name: "refused-empty", Kind: results.KindToolUsage, Versions: []results.BenchmarkVersion{{ID: "1"}}}, "0 questions"},
		{results.BenchmarkInfo{Name: "refused-protocol", Kind: results.KindToolUsage, Versions: v, Protocols: []string{results.ProtocolQAV1}}, `protocol "mattools-qa-v1" is not a registered tool-usage protocol`},
		{results.BenchmarkInfo{Name: "refused-protocol2", Kind: results.KindToolUsage, Versions: v, Protocols: []string{"mattools-v9"}}, `protocol "mattools-v9"`},
		{results.BenchmarkInfo{Name: "refused-reference", Kind: results.KindToolUsage, Versions: v, Protocols: []string{results.ProtocolMatToolsV1},
			Reference: results.ProtocolMatToolsV1Strict}, `reference protocol "mattools-v1-strict" is not one of its scored protocols`},
		{results.BenchmarkInfo{Name: "refused-reference2", Kind: results.KindToolUsage, Versions: v, Protocols: []string{results.ProtocolMatToolsOriginal},
			Reference: results.ProtocolMatToolsOriginal}, `reference protocol "mattools-original" is not one of its scored protocols`},
		{results.BenchmarkInfo{Name: "refused-default", Kind: results.KindToolUsage, Versions: v, Default: true}, "tool-usage is the default tool-usage benchmark already"},
	} {
		err := results.RegisterBenchmark(c.info)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want an error containing %q", c.info.Name, err, c.want)
		}
		if _, ok := results.LookupBenchmark(c.info.Name); ok && c.info.Name != results.BenchmarkToolUsage {
			t.Errorf("%s: registered after an error", c.info.Name)
		}
	}
	if err := results.RegisterScoringProtocol(results.ScoringProtocol{ID: results.ProtocolMatToolsV1, Kind: results.KindToolUsage}); err == nil {
		t.Error("mattools-v1 registered twice; want an error")
	}
}

// TestScoringProtocolsDisplayOrderAndTitles: the registry's order is the
// site's display order and its titles the column headings; an id it does
// not hold ranks last and is named by itself.
func TestScoringProtocolsDisplayOrderAndTitles(t *testing.T) {
	var got []string
	for _, p := range results.ScoringProtocols()[:4] {
		got = append(got, fmt.Sprintf("%d %s %q", results.ProtocolRank(p.ID), p.ID, results.ProtocolTitle(p.ID)))
	}
	want := []string{`0 mattools-v1 "mattools-v1"`, `1 mattools-v1-strict "mattools-v1-strict"`, `2 mattools-original "as published"`, `3 mattools-qa-v1 "mattools-qa-v1"`}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("registry %q; want %q", got, want)
	}
	if n := len(results.ScoringProtocols()); results.ProtocolRank("unscored") != n || results.ProtocolTitle("unscored") != "unscored" {
		t.Errorf("unregistered protocol: rank %d (want %d), title %q", results.ProtocolRank("unscored"), n, results.ProtocolTitle("unscored"))
	}
}
