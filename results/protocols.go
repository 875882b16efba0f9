package results

import (
	"encoding/json"
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
//
// A protocol registered at run time (RegisterScoringProtocol: Recorded) is
// recorded on the runs scored under it as the run extension
// ExtensionScoringProtocol (its JSON form, below), so that the site and the
// validators, which do not link the code that registered it, know it from
// its results files.
type ScoringProtocol struct {
	ID   string        `json:"id"`
	Kind BenchmarkKind `json:"kind"`
	// Scored is true when this project's runner, rescore and
	// validate-submission score runs with the protocol; false for a
	// protocol whose numbers are only imported as published.
	Scored bool `json:"scored"`
	// Title names the protocol in a column heading ("mattools-v1", "as
	// published"); "" names it by its id (ProtocolTitle).
	Title string `json:"title,omitempty"`
	// Description says in one sentence what the protocol scores and how.
	Description string `json:"description,omitempty"`
	// Recorded marks a protocol registered at run time (not one of the
	// registry's own four): its runs carry it (ProtocolRecord).
	Recorded bool `json:"-"`
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
// already there, marked Recorded. Errors: an empty id, one already
// registered, or an unknown kind.
func RegisterScoringProtocol(p ScoringProtocol) error {
	return registerScoringProtocol(p, false)
}

// registerScoringProtocol registers p (Recorded); again is true for an
// entry read from a run, which may repeat a run-time registration exactly.
func registerScoringProtocol(p ScoringProtocol, again bool) error {
	if p.ID == "" || (p.Kind != KindToolUsage && p.Kind != KindMultipleChoice) {
		return fmt.Errorf("scoring protocol %q of kind %q: want an id and kind %s or %s", p.ID, p.Kind, KindToolUsage, KindMultipleChoice)
	}
	p.Recorded = true
	benchmarkMu.Lock()
	defer benchmarkMu.Unlock()
	if i := slices.IndexFunc(scoringProtocols, func(q ScoringProtocol) bool { return q.ID == p.ID }); i >= 0 {
		if have := scoringProtocols[i]; again && have == p {
			return nil // the same entry again (a second run scored under it read)
		}
		return fmt.Errorf("scoring protocol %s: already registered", p.ID)
	}
	scoringProtocols = append(scoringProtocols, p)
	return nil
}

// ExtensionScoringProtocol is the run extension holding the registry entry
// (ScoringProtocol, as JSON: id, kind, scored, title, description) of the
// run's scoring protocol when it was registered at run time
// (ScoringProtocol.Recorded); runs scored under the registry's own
// protocols carry none.
const ExtensionScoringProtocol = "scoring_protocol"

// ProtocolRecord returns the extension ExtensionScoringProtocol for runs
// scored under protocol id: its registry entry as JSON; ok is false unless
// id is registered with Recorded set.
func ProtocolRecord(id string) (ext json.RawMessage, ok bool) {
	p, ok := LookupScoringProtocol(id)
	if !ok || !p.Recorded {
		return nil, false
	}
	ext, err := json.Marshal(p)
	return ext, err == nil
}

// checkProtocol registers the protocol the run's extension
// ExtensionScoringProtocol describes, if it has one (an entry that
// contradicts the registry is an error). It runs before checkBenchmark: a
// recorded benchmark may list the recorded protocol.
func checkProtocol(r *Run) error {
	raw, has := r.Extensions[ExtensionScoringProtocol]
	if !has {
		return nil
	}
	field := "extensions." + ExtensionScoringProtocol
	var p ScoringProtocol
	if err := json.Unmarshal(raw, &p); err != nil {
		return metaErr(field, "%v", err)
	}
	if p.ID != r.ScoringProtocol {
		return metaErr(field, "describes scoring protocol %q; the run's is %q", p.ID, r.ScoringProtocol)
	}
	if k := r.Benchmark.Kind(); k != "" && p.Kind != k {
		return metaErr(field, "is a %s protocol; the run's benchmark %s is %s", p.Kind, r.Benchmark, k)
	}
	if err := registerScoringProtocol(p, true); err != nil {
		return metaErr(field, "%v", err)
	}
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
