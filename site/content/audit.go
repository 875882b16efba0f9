package content

// The benchmark audit's rows of a ranked tool-usage table: the reference
// solution (what a correct solution reaches) and the trivial baselines
// (every property True; every property None), read from the audit's results
// files (Edition.Audit; cmd/audit, docs/benchmark-audit.md), unranked and
// each with its own badge, and beside every task success rate of the table
// the share of the reference's under the same protocol ("x % of what a
// correct solution reaches").

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
)

// auditLabels name the audit's systems in a table's Model column, and
// auditBadges give each its own badge.
var (
	auditLabels = map[results.System]string{
		results.SystemReferenceSolution: "Reference solution",
		results.SystemBaselineAllTrue:   "Baseline: every property True",
		results.SystemBaselineAllNone:   "Baseline: every property None",
	}
	auditBadges = map[results.System]badgeView{
		results.SystemReferenceSolution: {Text: "reference solution", Class: "badge-reference-solution",
			Title: "this project's reference solution per question (benchmarks/mattools-tool-usage/reference), scored in the sandbox by make audit: what a correct solution reaches"},
		results.SystemBaselineAllTrue: {Text: "baseline: all True", Class: "badge-baseline-all-true",
			Title: "a function returning True for every property of the question, scored in the sandbox by make audit: a trivial floor"},
		results.SystemBaselineAllNone: {Text: "baseline: all None", Class: "badge-baseline-all-none",
			Title: "a function returning None for every property of the question, scored in the sandbox by make audit: it runs, so it counts as runnable, and passes nothing"},
	}
)

// auditRowView is one audit row of a ranked table (aggregate.AuditRow).
type auditRowView struct {
	Label    string           `json:"label"`
	SystemID string           `json:"system_id"`
	Badge    badgeView        `json:"badge"`
	Cells    []*auditCellView `json:"cells"` // aligned with the table's columns; nil where none
	// Runs names the audit runs behind the row (their run ids), for the title.
	Runs string `json:"runs"`
}

// auditCellView is one value of an audit row: one run, so no ± and no
// interval; Count is "passed/total" (or "runnable/questions").
type auditCellView struct {
	Mean  string `json:"mean"`
	Sort  string `json:"sort"`
	Count string `json:"count"`
}

// OfReferencePhrase follows the share of the reference solution's task
// success rate beside a row's rate.
const OfReferencePhrase = "of what a correct solution reaches"

// ofReference is a row's task success rate as a share of the reference's,
// percent: 100 · mean / reference, e.g. 55.31 / 79.57 → 69.51.
func ofReference(mean float64, ref *aggregate.Value) float64 { return 100 * mean / ref.Percent }

// auditRows adds to a ranked table's view its audit rows and, on every
// computed cell of a task success rate whose protocol the reference solution
// has a value under, the share of that value (cellView.OfRef); it returns
// the sentence the ranking note gains ("" when the table has no audit rows).
func (v *views) auditRows(t *aggregate.RankedTable, tv *rankedView) string {
	rows := aggregate.AuditRows(t, v.e.Audit)
	if len(rows) == 0 {
		return ""
	}
	for _, r := range rows {
		av := &auditRowView{Label: auditLabels[r.System], SystemID: string(r.System), Badge: auditBadges[r.System]}
		for _, c := range r.Cells {
			if c == nil {
				av.Cells = append(av.Cells, nil)
				continue
			}
			av.Cells = append(av.Cells, &auditCellView{Mean: fmtPct(c.Percent), Sort: strconv.FormatFloat(c.Percent, 'f', 6, 64),
				Count: fmt.Sprintf("%d/%d", c.Count, c.Total)})
		}
		var ids []string
		for _, f := range r.Runs {
			ids = append(ids, f.Run.RunID)
		}
		av.Runs = strings.Join(ids, ", ")
		tv.Audit = append(tv.Audit, av)
	}
	v.markBelowFloor(t, tv, rows)
	var refs []string
	for ci, col := range t.Columns {
		if col.Metric != aggregate.TaskSuccessRate {
			continue
		}
		ref := aggregate.AuditReference(t, rows, col.Protocol)
		if ref == nil || ref.Count == 0 {
			continue
		}
		refs = append(refs, fmt.Sprintf("%s %% (%d/%d) %s", fmtPct(ref.Percent), ref.Count, ref.Total, protocolPhrase(col.Protocol)))
		for ri, r := range t.Rows {
			if c := r.Cells[ci]; c != nil && tv.Rows[ri].Cells[ci] != nil {
				tv.Rows[ri].Cells[ci].OfRef = fmtPct(ofReference(c.Summary.Mean, ref)) + " % " + OfReferencePhrase
			}
		}
	}
	s := "The last rows are the benchmark audit's bounds on this question set (make audit), never ranked: the reference solution, this project's correct function per question, " +
		"and the trivial baselines returning True, or None, for every property."
	if len(refs) > 0 {
		s += " The reference solution reaches " + strings.Join(refs, ", ") + "; under each task success rate, once the table's checkbox is ticked, “x % " + OfReferencePhrase +
			"” is that rate divided by the reference solution's under the same protocol."
	}
	return s
}

// BelowFloorMark marks a row whose headline task success rate is below the
// every-property-True baseline's (markBelowFloor).
const BelowFloorMark = "▼"

// headlineTaskColumn is the index of a ranked table's task success rate
// under its headline protocol, -1 when it has none.
func headlineTaskColumn(t *aggregate.RankedTable) int {
	for i, c := range t.Columns {
		if c.Protocol == t.HeadlineProtocol && c.Metric == aggregate.TaskSuccessRate {
			return i
		}
	}
	return -1
}

// auditValue is the audit row of sys's value in column ci, nil when none.
func auditValue(rows []*aggregate.AuditRow, sys results.System, ci int) *aggregate.Value {
	for _, r := range rows {
		if r.System == sys && ci >= 0 && ci < len(r.Cells) {
			return r.Cells[ci]
		}
	}
	return nil
}

// markBelowFloor marks the rows of tv whose mean task success rate under the
// table's headline protocol is below the every-property-True baseline's
// under the same protocol (rankedRowView.BelowFloor), and says how many in
// tv.Below, e.g. "12 of 31 configurations score below the
// every-property-True baseline (21.51 %): marked ▼.", and what that
// baseline is in tv.FloorTitle (its count and protocol: the mark's tooltip).
// Nothing when the audit has no such baseline value.
func (v *views) markBelowFloor(t *aggregate.RankedTable, tv *rankedView, rows []*aggregate.AuditRow) {
	hc := headlineTaskColumn(t)
	floor := auditValue(rows, results.SystemBaselineAllTrue, hc)
	if floor == nil {
		return
	}
	below, scored := 0, 0
	for ri, r := range t.Rows {
		c := r.Cells[hc]
		if c == nil || r.Reference {
			continue
		}
		scored++
		if c.Summary.Mean < floor.Percent {
			below++
			tv.Rows[ri].BelowFloor = true
		}
	}
	tv.FloorTitle = fmt.Sprintf("below the baseline that returns True for every property (%s %%, %d/%d, %s)",
		fmtPct(floor.Percent), floor.Count, floor.Total, protocolPhrase(t.HeadlineProtocol))
	tv.Below = fmt.Sprintf("%d of %s score below the every-property-True baseline (%s %%): marked %s.", below, count(scored, "configuration", "configurations"),
		fmtPct(floor.Percent), BelowFloorMark)
}
