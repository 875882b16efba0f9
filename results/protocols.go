package results

import (
	"fmt"
	"slices"
	"strings"
)

// ScoringProtocol is one entry of the scoring-protocol registry: a
// protocol's id (the runs' scoring_protocol), the benchmarks whose runs it
// scores, and whether this project scores with it or only imports numbers
// scored by it.
type ScoringProtocol struct {
	ID         string
	Benchmarks []Benchmark
	// Scored is true when this project's runner, rescore and
	// validate-submission score runs with the protocol; false for a
	// protocol whose numbers are only imported as published.
	Scored bool
}

// scoringProtocols is the registry, in display order. Plan validation, the
// runner, the re-execution commands and the validator of re-executed
// verdicts read it; a protocol not in it is an error wherever one is named.
var scoringProtocols = []ScoringProtocol{
	{ID: ProtocolMatToolsV1, Benchmarks: []Benchmark{BenchmarkToolUsage}, Scored: true},
	{ID: ProtocolMatToolsV1Strict, Benchmarks: []Benchmark{BenchmarkToolUsage}, Scored: true},
	{ID: ProtocolMatToolsOriginal, Benchmarks: []Benchmark{BenchmarkToolUsage}},
	{ID: ProtocolQAV1, Benchmarks: []Benchmark{BenchmarkQACode, BenchmarkQADoc}, Scored: true},
}

// LookupScoringProtocol returns the registered protocol id; ok is false
// for an id the registry does not hold.
func LookupScoringProtocol(id string) (p ScoringProtocol, ok bool) {
	i := slices.IndexFunc(scoringProtocols, func(p ScoringProtocol) bool { return p.ID == id })
	if i < 0 {
		return ScoringProtocol{}, false
	}
	return scoringProtocols[i], true
}

// ScoredProtocols returns the ids of the protocols this project scores
// benchmark b's runs with, in display order (tool usage: mattools-v1 and
// mattools-v1-strict; QA: mattools-qa-v1).
func ScoredProtocols(b Benchmark) []string {
	var ids []string
	for _, p := range scoringProtocols {
		if p.Scored && slices.Contains(p.Benchmarks, b) {
			ids = append(ids, p.ID)
		}
	}
	return ids
}

// CheckScoredProtocol returns nil when id is a protocol this project scores
// benchmark b's runs with, else an error that lists the ones it does
// ("is "x"; want mattools-v1 or mattools-v1-strict").
func CheckScoredProtocol(b Benchmark, id string) error {
	ids := ScoredProtocols(b)
	if slices.Contains(ids, id) {
		return nil
	}
	return fmt.Errorf("is %q; want %s", id, orList(ids))
}

// orList joins words as "a", "a or b", "a, b or c".
func orList(words []string) string {
	switch len(words) {
	case 0:
		return "none"
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}
