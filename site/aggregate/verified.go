package aggregate

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/results/stats"
)

// The verified question set (docs/benchmark-audit.md): the properties the
// benchmark audit's reference solution passes under mattools-v1-strict
// whose diagnosis is not "expected value wrong", a question set of its own,
// committed with the benchmark (benchmarks/mattools-tool-usage/
// verified-v1.json). Its table is scored from the stored per-property
// outcomes of each run (results format v3, SummaryRow.Outcomes), never
// re-executed and never mixed with the full set's tables: its rows are the
// configurations of the home page's ranked tables that were scored under
// mattools-v1-strict, each with its rank in the table it comes from.

// VerifiedSetProtocol is the scoring protocol the verified set is defined
// and scored under: the reference protocol of the default tool-usage
// benchmark (results.Benchmark.Reference; MatTools' tool usage, whose
// audit defines the set: mattools-v1-strict, the only one whose
// per-property outcomes exist for every executed question — mattools-v1
// credits a partial question with a count of error strings,
// docs/benchmark-audit.md).
var VerifiedSetProtocol = results.DefaultBenchmark(results.KindToolUsage).Reference()

// VerifiedSet is a named, versioned question set defined by properties.
type VerifiedSet struct {
	About            string              `json:"about"`
	ID               string              `json:"id"` // e.g. "verified-v1"
	Name             string              `json:"name"`
	Version          int                 `json:"version"`
	BenchmarkVersion string              `json:"benchmark_version"` // the benchmark version its runs must have
	DerivedFrom      map[string]string   `json:"derived_from"`
	Questions        int                 `json:"questions"`  // len(Set)
	Properties       int                 `json:"properties"` // the properties of Set
	Set              results.PropertySet `json:"set"`        // question id → property names
}

// ReadVerifiedSet reads a verified set file. "" or an absent file gives
// nil. Unknown fields, an empty id or set, and sizes that disagree with the
// set are errors naming the file and the field.
func ReadVerifiedSet(path string) (*VerifiedSet, error) {
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var vs VerifiedSet
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&vs); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for id, props := range vs.Set {
		seen := map[string]bool{}
		for _, name := range props {
			if name == "" || seen[name] {
				return nil, fmt.Errorf("%s: set.%s: property %q empty or listed twice", path, id, name)
			}
			seen[name] = true
		}
	}
	q, p := vs.Set.Size()
	switch {
	case vs.ID == "" || vs.Version < 1:
		return nil, fmt.Errorf("%s: id and version: required (got %q, %d)", path, vs.ID, vs.Version)
	case vs.BenchmarkVersion == "":
		return nil, fmt.Errorf("%s: benchmark_version: required", path)
	case p == 0:
		return nil, fmt.Errorf("%s: set: empty", path)
	case q != vs.Questions || p != vs.Properties:
		return nil, fmt.Errorf("%s: questions, properties: %d and %d, but set holds %d questions and %d properties", path, vs.Questions, vs.Properties, q, p)
	}
	return &vs, nil
}

// VerifiedTable is the verified set's ranked table.
type VerifiedTable struct {
	Set  *VerifiedSet
	Rows []*VerifiedRow // ranked rows by mean, then unscorable rows
	// Audit are the benchmark audit's systems scored on the set (reference
	// solution, every property True, every property None), unranked.
	Audit []*VerifiedAuditRow
	// NoStrict counts the full tables' rows that have no mattools-v1-strict
	// configuration (MatTools' published totals, mattools-v1 only): they
	// cannot be scored on the set and are not listed.
	NoStrict int
}

// VerifiedRow is one configuration scored on the verified set.
type VerifiedRow struct {
	Source   *RankedTable // the full-set table the row comes from
	Full     *RankedRow   // its row there
	FullRank int          // its rank there (0: unranked)
	Config   *Configuration
	// Summary is over the configuration's aggregated runs: the percentage of
	// the set's properties passed, N, mean and population std (÷ n).
	Summary stats.Summary
	// Passed and Total are summed over the runs (Total = runs × the set's
	// properties).
	Passed, Total int
	Rank          int // 1-based competition rank by Summary.Mean; 0 when unscorable
	// Questions are the set's properties passed per question of the set
	// (sorted ids), averaged over the runs, and each question's properties
	// in the set: the clusters of QInterval and of paired differences
	// (VerifiedPairedDifference). nil when unscorable.
	Questions *QuestionMeans
	// QInterval is the 95 % interval over questions and rounds of the
	// percentage (stats.ClusteredRatio, clamped to 0–100), and QBand the
	// rank band from paired differences over the set's questions between
	// every two ranked rows (stats.PairedRankBands; Tied: not significantly
	// below the leader). Computed by the running code, also in a frozen
	// edition, whose Rank and values stay as frozen; zero when unscorable.
	QInterval stats.Interval
	QBand     stats.Band
	// Unscorable says why the row has no value (a run whose rows lack
	// per-property outcomes for some question of the set); "" when scored.
	Unscorable string
}

// VerifiedAuditRow is one audit system scored on the set.
type VerifiedAuditRow struct {
	System        results.System
	Run           *results.File
	Passed, Total int
}

// BuildVerifiedTable scores set on the mattools-v1-strict configurations of
// tables (the home page's ranked tables, in order) whose benchmark version
// is the set's: each run's properties of the set passed, by its stored
// per-property outcomes (results.TallySummaryProperties), as a percentage,
// averaged over the configuration's aggregated runs. A configuration with a
// run that cannot be scored (a question of the set without a row or without
// outcomes) is listed, unranked, with the reason. audit's strict runs (the
// benchmark audit's) give the unranked bounds, scored on auditRows[run id]
// (their compact rows, as the site loads them) or, for a run without an
// entry, on their Questions. nil when set is nil.
func BuildVerifiedTable(set *VerifiedSet, tables []*RankedTable, audit []*results.File, auditRows map[string][]results.SummaryRow) *VerifiedTable {
	if set == nil {
		return nil
	}
	vt := &VerifiedTable{Set: set}
	seen := map[*Configuration]bool{}
	for _, t := range tables {
		if t.BenchmarkVersion != set.BenchmarkVersion {
			continue
		}
		for _, row := range t.Rows {
			var c *Configuration
			for _, cc := range row.Configurations {
				if cc.Key.ScoringProtocol == VerifiedSetProtocol {
					c = cc
				}
			}
			if c == nil {
				vt.NoStrict++
				continue
			}
			if seen[c] {
				continue
			}
			seen[c] = true
			vr := &VerifiedRow{Source: t, Full: row, FullRank: row.Rank, Config: c}
			var pcts []float64
			agg := c.RunsWith(StatusAggregated)
			qm := &QuestionMeans{Rounds: len(agg)}
			for _, r := range agg {
				ids, ps, ns, err := results.TallySummaryPropertiesByQuestion(r.Questions, set.Set)
				if err != nil {
					vr.Unscorable = fmt.Sprintf("run %s: %v", r.ID(), err)
					break
				}
				p, n := 0, 0
				if qm.IDs == nil {
					qm.IDs, qm.Y, qm.M = ids, make([]float64, len(ids)), make([]float64, len(ids))
				}
				for i := range ids {
					p, n = p+ps[i], n+ns[i]
					qm.Y[i] += float64(ps[i])
					qm.M[i] = float64(ns[i]) // the set's properties of the question: the same in every run
				}
				vr.Passed += p
				vr.Total += n
				pcts = append(pcts, 100*float64(p)/float64(n))
			}
			if vr.Unscorable == "" && len(pcts) == 0 {
				vr.Unscorable = "no aggregated run"
			}
			if vr.Unscorable == "" {
				vr.Summary = stats.Summarize(pcts)
				for i := range qm.Y {
					qm.Y[i] /= float64(len(agg))
				}
				vr.Questions, vr.QInterval = qm, qInterval(qm)
			}
			vt.Rows = append(vt.Rows, vr)
		}
	}
	slices.SortStableFunc(vt.Rows, func(x, y *VerifiedRow) int {
		if c := cmp.Compare(boolRank(x.Unscorable != ""), boolRank(y.Unscorable != "")); c != 0 {
			return c
		}
		return cmp.Compare(rounded(y.Summary.Mean), rounded(x.Summary.Mean))
	})
	var prev *VerifiedRow
	for i, r := range vt.Rows {
		switch {
		case r.Unscorable != "":
		case prev != nil && rounded(prev.Summary.Mean) == rounded(r.Summary.Mean):
			r.Rank = prev.Rank
		default:
			r.Rank = i + 1
		}
		if r.Unscorable == "" {
			prev = r
		}
	}
	vt.pairedBands()
	for _, sys := range results.AuditSystems {
		for _, f := range audit {
			if f.Run.Provenance.Kind != results.ProvenanceAudit || f.Run.System != sys || f.Run.ScoringProtocol != VerifiedSetProtocol ||
				f.Run.BenchmarkVersion != set.BenchmarkVersion {
				continue
			}
			rows, ok := auditRows[f.Run.RunID]
			if !ok {
				rows = results.SummaryRows(f.Questions)
			}
			p, n, err := results.TallySummaryProperties(rows, set.Set)
			if err != nil {
				continue // an audit of another question set
			}
			vt.Audit = append(vt.Audit, &VerifiedAuditRow{System: sys, Run: f, Passed: p, Total: n})
			break
		}
	}
	return vt
}

// pairedBands gives the ranked rows their QBand.
func (vt *VerifiedTable) pairedBands() {
	var ranked []*VerifiedRow
	var means []float64
	for _, r := range vt.Rows {
		if r.Rank > 0 {
			ranked = append(ranked, r)
			means = append(means, rounded(r.Summary.Mean))
		}
	}
	bands := stats.PairedRankBands(means, func(i, j int) (stats.Interval, bool) {
		return VerifiedPairedDifference(ranked[i], ranked[j])
	})
	for i, b := range bands {
		ranked[i].QBand = b
	}
}

// VerifiedPairedDifference returns the difference a − b of two rows'
// percentages of the set's properties passed, in percentage points, paired
// by question, with its IntervalConfidence interval (stats.
// ClusteredDifference); ok is false when either is unscorable.
func VerifiedPairedDifference(a, b *VerifiedRow) (stats.Interval, bool) {
	qa, qb := a.Questions, b.Questions
	if qa == nil || qb == nil || !slices.Equal(qa.IDs, qb.IDs) || !slices.Equal(qa.M, qb.M) {
		return stats.Interval{}, false
	}
	return stats.ClusteredDifference(qa.Y, qb.Y, qa.M, IntervalConfidence).Scale(100), true
}

// Title names the set in words, e.g. "Verified question set verified-v1:
// 79 properties of 25 questions".
func (vt *VerifiedTable) Title() string {
	return fmt.Sprintf("Verified question set %s: %d properties of %d questions", vt.Set.ID, vt.Set.Properties, vt.Set.Questions)
}

// FullSetName names the full-set table a row comes from, e.g. "all/49" or
// "executable-85659656/28".
func (r *VerifiedRow) FullSetName() string { return strings.TrimSpace(r.Source.QuestionSet) }
