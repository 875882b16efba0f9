package results

import (
	"fmt"
	"slices"
	"strings"
)

// ScoringProtocol is one entry of the scoring-protocol registry: a
// protocol's id (the runs' scoring_protocol), the kind of benchmark whose
// runs it scores, whether this project scores with it or only imports
// numbers scored by it, and how the site names it. Which benchmarks a
// protocol scores is each benchmark's BenchmarkInfo.Protocols; how a
// scored tool-usage protocol decides a verdict is its behaviour in
// runner/scoring (one file per protocol, scoring.Protocol).
type ScoringProtocol struct {
	ID   string
	Kind BenchmarkKind
	// Scored is true when this project's runner, rescore and
	// validate-submission score runs with the protocol; false for a
	// protocol whose numbers are only imported as published.
	Scored bool
	// Title names the protocol in a column heading ("mattools-v1", "as
	// published"); "" names it by its id (ProtocolTitle).
	Title string
	// Description says in one sentence what the protocol scores and how.
	Description string
}

// scoringProtocols is the registry, in display order: the order of the
// protocols' columns in the site's ranked tables and of their
// configurations on the per-question pages (ProtocolRank). Plan
// validation, the runner, the re-execution commands, the validator of
// re-executed verdicts and the site read it; a protocol not in it is an
// error wherever one is named.
var scoringProtocols = []ScoringProtocol{
	{ID: ProtocolMatToolsV1, Kind: KindToolUsage, Scored: true, Title: "mattools-v1",
		Description: "MatTools' scorer reimplemented, quirks included: the function's printed dict checked by the question's unit test as a whole (docs/mattools.md §2.4)."},
	{ID: ProtocolMatToolsV1Strict, Kind: KindToolUsage, Scored: true, Title: "mattools-v1-strict",
		Description: "mattools-v1 with the quirks fixed: the function's returned dict checked property by property."},
	{ID: ProtocolMatToolsOriginal, Kind: KindToolUsage, Title: "as published",
		Description: "MatTools' own totals as the paper publishes them, imported, not re-executed."},
	{ID: ProtocolQAV1, Kind: KindMultipleChoice, Scored: true, Title: "mattools-qa-v1",
		Description: "MatTools' exact extraction of a multiple-choice answer: the stripped answer, <answer> tags removed, equals the correct letter."},
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

// ScoringProtocols returns the registry in display order (a copy).
func ScoringProtocols() []ScoringProtocol {
	benchmarkMu.RLock()
	defer benchmarkMu.RUnlock()
	return slices.Clone(scoringProtocols)
}

// ProtocolRank returns protocol id's place in the registry's display order
// (0 first: mattools-v1, mattools-v1-strict, mattools-original,
// mattools-qa-v1, then protocols registered later, in registration order);
// an id the registry does not hold ranks after every registered one.
func ProtocolRank(id string) int {
	benchmarkMu.RLock()
	defer benchmarkMu.RUnlock()
	if i := slices.IndexFunc(scoringProtocols, func(p ScoringProtocol) bool { return p.ID == id }); i >= 0 {
		return i
	}
	return len(scoringProtocols)
}

// ProtocolTitle names protocol id in a column heading: its registered
// Title ("as published" for mattools-original), else the id itself.
func ProtocolTitle(id string) string {
	if p, ok := LookupScoringProtocol(id); ok && p.Title != "" {
		return p.Title
	}
	return id
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
