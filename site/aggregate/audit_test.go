package aggregate_test

import (
	"testing"

	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
	"github.com/mattools-leaderboard/leaderboard/site/sitetest"
)

// TestAuditRowsMatchTheTablesQuestionSet: the fixture's runner runs
// (mattools-v1, question set tiny/3) relabelled as the audit's reference
// solution give the headline table of tiny/3 a reference row with the runs'
// values under mattools-v1 and none elsewhere; a run of another question set
// and a run that is not an audit run add nothing.
func TestAuditRowsMatchTheTablesQuestionSet(t *testing.T) {
	runs := sitetest.Runs()
	var audit []*results.File
	for _, f := range runs {
		if f.Run.Provenance.Kind == results.ProvenanceRunner && f.Run.Round == 1 {
			g := *f
			g.Run.System, g.Run.Model, g.Run.Provenance = results.SystemReferenceSolution, results.ModelNone, results.Provenance{Kind: results.ProvenanceAudit}
			other := g
			other.Run.System = results.SystemBaselineAllTrue
			other.Run.QuestionSet.Name = "another"
			audit = append(audit, &g, &other, f) // f: a runner run, not an audit run
		}
	}
	lb := aggregate.Build(runs, aggregate.DefaultCatalog())
	var table *aggregate.RankedTable
	for _, rt := range lb.Headline {
		if rt.QuestionSet == "tiny/3" {
			table = rt
		}
	}
	if table == nil {
		t.Fatal("no headline table of tiny/3")
	}
	rows := aggregate.AuditRows(table, audit)
	if len(rows) != 1 || rows[0].System != results.SystemReferenceSolution || len(rows[0].Runs) != 1 {
		t.Fatalf("audit rows %+v; want the reference solution's only", rows)
	}
	tot := audit[0].Run.Totals
	for i, c := range table.Columns {
		got := rows[0].Cells[i]
		switch {
		case c.Protocol != results.ProtocolMatToolsV1:
			if got != nil {
				t.Errorf("column %s: %+v from a run of mattools-v1", c.Title(), got)
			}
		case c.Metric == aggregate.TaskSuccessRate:
			if got == nil || got.Count != *tot.PropertiesPassed || got.Total != tot.Properties {
				t.Errorf("column %s: %+v, want %d/%d", c.Title(), got, *tot.PropertiesPassed, tot.Properties)
			}
		case c.Metric == aggregate.FunctionRunnableRate:
			if got == nil || got.Count != *tot.Runnable || got.Total != tot.Questions {
				t.Errorf("column %s: %+v, want %d/%d", c.Title(), got, *tot.Runnable, tot.Questions)
			}
		}
	}
	ref := aggregate.AuditReference(table, rows, results.ProtocolMatToolsV1)
	if ref == nil || ref.Count != 12 || ref.Total != 15 {
		t.Errorf("reference task success %+v, want 12/15", ref)
	}
	if aggregate.AuditReference(table, rows, results.ProtocolMatToolsOriginal) != nil {
		t.Error("a reference value as published, which the audit does not score")
	}
}
