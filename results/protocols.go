package results

import (
	"fmt"
	"slices"
	"strings"
)

// ScoringProtocol is one entry of the scoring-protocol registry: a
// protocol's id (the runs' scoring_protocol), the kind of benchmark whose
// runs it scores, and whether this project scores with it or only imports
// numbers scored by it. Which benchmarks a protocol scores is each
// benchmark's BenchmarkInfo.Protocols.
type ScoringProtocol struct {
	ID   string
	Kind BenchmarkKind
	// Scored is true when this project's runner, rescore and
	// validate-submission score runs with the protocol; false for a
	// protocol whose numbers are only imported as published.
	Scored bool
}

// scoringProtocols is the registry, in display order. Plan validation, the
// runner, the re-execution commands and the validator of re-executed
// verdicts read it; a protocol not in it is an error wherever one is named.
var scoringProtocols = []ScoringProtocol{
	{ID: ProtocolMatToolsV1, Kind: KindToolUsage, Scored: true},
	{ID: ProtocolMatToolsV1Strict, Kind: KindToolUsage, Scored: true},
	{ID: ProtocolMatToolsOriginal, Kind: KindToolUsage},
	{ID: ProtocolQAV1, Kind: KindMultipleChoice, Scored: true},
}

// RegisterScoringProtocol adds p to the registry, after the protocols
// already there. Errors: an empty id, one already registered, or an
// unknown kind.
func RegisterScoringProtocol(p ScoringProtocol) error {
	if p.ID == "" || (p.Kind != KindToolUsage && p.Kind != KindMultipleChoice) {
		return fmt.Errorf("scoring protocol %q of kind %q: want an id and kind %s or %s", p.ID, p.Kind, KindToolUsage, KindMultipleChoice)
	}
	benchmarkMu.Lock()
	defer benchmarkMu.Unlock()
	if slices.ContainsFunc(scoringProtocols, func(q ScoringProtocol) bool { return q.ID == p.ID }) {
		return fmt.Errorf("scoring protocol %s: already registered", p.ID)
	}
	scoringProtocols = append(scoringProtocols, p)
	return nil
}

// LookupScoringProtocol returns the registered protocol id; ok is false
// for an id the registry does not hold.
func LookupScoringProtocol(id string) (p ScoringProtocol, ok bool) {
	benchmarkMu.RLock()
	defer benchmarkMu.RUnlock()
	i := slices.IndexFunc(scoringProtocols, func(p ScoringProtocol) bool { return p.ID == id })
	if i < 0 {
		return ScoringProtocol{}, false
	}
	return scoringProtocols[i], true
}

// ScoredProtocols returns the ids of the protocols this project scores
// benchmark b's runs with, in b's display order (BenchmarkInfo.Protocols;
// tool usage: mattools-v1 and mattools-v1-strict; QA: mattools-qa-v1);
// nil for an unregistered benchmark.
func ScoredProtocols(b Benchmark) []string {
	info, _ := LookupBenchmark(b)
	var ids []string
	for _, id := range info.Protocols {
		if p, ok := LookupScoringProtocol(id); ok && p.Scored {
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
