package aggregate

import (
	"strconv"

	"github.com/mattools-leaderboard/leaderboard/results"
)

// The benchmark audit's bounds on a ranked table: what this project's
// reference solution (the ceiling) and the trivial baselines (the floor:
// every property True; every property None) reach on the table's question
// set, under each of its scoring protocols (cmd/audit, provenance audit;
// docs/benchmark-audit.md). They are never configurations (BuildRows skips
// audit runs): an AuditRow is shown beside the ranked rows and takes no rank.

// AuditRow is one audit system's values in a RankedTable.
type AuditRow struct {
	System results.System // one of results.AuditSystems
	// Cells are aligned with the table's Columns: the audit run's value of
	// the column's metric under its protocol (one run: no rounds, no ±);
	// nil where the audit has no run of that protocol (e.g. "as published").
	Cells []*Value
	// Runs are the audit runs behind the cells, in column order, each once.
	Runs []*results.File
}

// AuditRows returns the table's audit rows, in results.AuditSystems order
// (reference solution, all True, all None): for each audit system with at
// least one run among audit whose benchmark (tool usage), benchmark
// version and question set (name and size, as Configuration.QuestionSet
// writes it, e.g. "executable-85659656/28") are the table's, the values of
// the table's columns. A run of another question set adds nothing, so a
// table whose set the audit did not score gets no rows. Files that are not
// audit runs are ignored; of two audit runs of one system and protocol the
// first is used.
func AuditRows(t *RankedTable, audit []*results.File) []*AuditRow {
	var out []*AuditRow
	for _, sys := range results.AuditSystems {
		byProtocol := map[string]*results.File{}
		for _, f := range audit {
			r := &f.Run
			// The committed audit is of MatTools' tool usage (benchmarks/mattools-tool-usage/audit).
			if r.Provenance.Kind != results.ProvenanceAudit || r.System != sys || r.Benchmark != results.BenchmarkToolUsage ||
				r.BenchmarkVersion != t.BenchmarkVersion || r.QuestionSet.Name+"/"+strconv.Itoa(r.QuestionSet.Questions) != t.QuestionSet {
				continue
			}
			if byProtocol[r.ScoringProtocol] == nil {
				byProtocol[r.ScoringProtocol] = f
			}
		}
		if len(byProtocol) == 0 {
			continue
		}
		row := &AuditRow{System: sys, Cells: make([]*Value, len(t.Columns))}
		any := false
		seen := map[*results.File]bool{}
		for i, c := range t.Columns {
			f := byProtocol[c.Protocol]
			if f == nil {
				continue
			}
			if v, ok := value(f.Run.Totals, c.Metric); ok {
				row.Cells[i], any = &v, true
				if !seen[f] {
					seen[f] = true
					row.Runs = append(row.Runs, f)
				}
			}
		}
		if any {
			out = append(out, row)
		}
	}
	return out
}

// AuditReference returns, among rows (AuditRows), the reference solution's
// value of the table's task success rate under protocol, or nil.
func AuditReference(t *RankedTable, rows []*AuditRow, protocol string) *Value {
	for _, r := range rows {
		if r.System != results.SystemReferenceSolution {
			continue
		}
		for i, c := range t.Columns {
			if c.Protocol == protocol && c.Metric == TaskSuccessRate {
				return r.Cells[i]
			}
		}
	}
	return nil
}
