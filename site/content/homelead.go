package content

// The order of a home page's headline tables (the site root's and each
// edition's): the table this project re-executed, with the benchmark
// audit's ceiling and floor, leads, with a figure of its task success rates;
// MatTools' own totals as published follow, labelled so; then the rest.

import (
	"fmt"

	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
	"github.com/mattools-leaderboard/leaderboard/site/plots"
)

// Kickers label a home page's headline tables by where their numbers come from.
const (
	KickerReexecuted  = "Re-executed by this project"
	KickerAsPublished = "As published: MatTools' own totals, not re-executed"
)

// intervalFigurePath is the figure of a lead table, relative to the page's
// figure root (the edition's path, or the site root for /).
func intervalFigurePath(id, ext string) string { return "figures/" + id + "-intervals." + ext }

// homeTables orders a home page's headline tables, ts with their views tvs
// (same order, same length): the lead (leadTable) first, then the tables
// ranked by the as-published totals, then the others in their order. It
// labels each table (rankedView.Kicker), sets the lead's Heading, Intro and
// Interval, and returns the lead's figure (nil without a lead, or when the
// audit has no ceiling and floor for it) for the caller to write at
// intervalFigurePath.
func (v *views) homeTables(ts []*aggregate.RankedTable, tvs []*rankedView) ([]*rankedView, *plots.IntervalFigure) {
	lead := leadTable(ts, tvs)
	var first, published, rest []*rankedView
	for i, t := range ts {
		tv := tvs[i]
		switch {
		case i == lead:
			first = append(first, tv)
		case aggregate.AsPublished(t.HeadlineProtocol):
			published = append(published, tv)
		default:
			rest = append(rest, tv)
		}
		if aggregate.AsPublished(t.HeadlineProtocol) {
			tv.Kicker = KickerAsPublished
		} else if t.HeadlineProtocol != "" && !t.OtherSuite() {
			tv.Kicker = KickerReexecuted
		}
	}
	out := append(append(first, published...), rest...)
	if lead < 0 {
		return out, nil
	}
	t, tv := ts[lead], tvs[lead]
	tv.Lead = true
	tv.Caption = tv.Heading + ". " + tv.Caption
	tv.Heading = fmt.Sprintf("%d runnable questions (%d properties)", t.Questions, t.Properties)
	tv.Intro = fmt.Sprintf("This table leads because its numbers are computed by this project from per-question outcomes, each run's code executed in this project's sandbox "+
		"unless the row's provenance says otherwise, on the %d of %d questions whose data files are present (the other %d are left out, not failed). "+
		"It is ranked by task success rate %s, the benchmark's own scoring as this project reproduces it, so that its order stays comparable with the MatTools paper's; "+
		"mattools-v1-strict, which scores the same answers without the original scorer's quirks, is a tick away in the checkbox above the table. "+
		"Its last rows, unranked, are the benchmark audit's bounds: the reference solution (what a correct solution reaches, the ceiling) and the trivial baselines (the floor). "+
		"The figure below draws each row's rate with its 95 %% interval between them; MatTools' own totals, as published and not re-executed, follow in the next table.",
		t.Questions, t.TotalQuestions, t.TotalQuestions-t.Questions, protocolPhrase(t.HeadlineProtocol))
	f := v.intervalFigure(t, tv)
	if f != nil {
		tv.Interval = newFigureView(intervalFigurePath(t.ID, "svg"), intervalFigurePath(t.ID, "csv"), f.Title, f.Caption, plots.DisplayWidthPx)
	}
	return out, f
}

// leadTable is the index of the table a home page leads with: the first of
// MatTools' tables ranked under a protocol this project computed (not as
// published) that has the benchmark audit's rows, else the first such
// table; -1 when none.
func leadTable(ts []*aggregate.RankedTable, tvs []*rankedView) int {
	lead := -1
	for i, t := range ts {
		if t.OtherSuite() || t.HeadlineProtocol == "" || aggregate.AsPublished(t.HeadlineProtocol) || t.Corrected() {
			continue
		}
		if len(tvs[i].Audit) > 0 {
			return i
		}
		if lead < 0 {
			lead = i
		}
	}
	return lead
}

// intervalFigure draws t's task success rates under its headline protocol,
// one point per row with its 95 % t-interval, in the table's order, with the
// reference solution's rate (ceiling) and the every-property-True
// baseline's (floor) as lines; nil when the audit lacks either.
func (v *views) intervalFigure(t *aggregate.RankedTable, tv *rankedView) *plots.IntervalFigure {
	rows := aggregate.AuditRows(t, v.e.Audit)
	hc := headlineTaskColumn(t)
	ceil, floor := aggregate.AuditReference(t, rows, t.HeadlineProtocol), auditValue(rows, results.SystemBaselineAllTrue, hc)
	if ceil == nil || floor == nil {
		return nil
	}
	f := &plots.IntervalFigure{ID: t.ID + "-intervals", Title: "Task success rate " + protocolPhrase(t.HeadlineProtocol) + " with its 95 % interval, between ceiling and floor",
		XLabel:  "task success rate (%), " + aggregate.ProtocolTitle(t.HeadlineProtocol) + ", " + count(t.Questions, "question", "questions"),
		Ceiling: ceil.Percent, CeilingLabel: fmt.Sprintf("reference solution %s %%", fmtPct(ceil.Percent)),
		Floor: floor.Percent, FloorLabel: fmt.Sprintf("every property True %s %%", fmtPct(floor.Percent))}
	for ri, r := range t.Rows {
		c := r.Cells[hc]
		if c == nil || r.Reference {
			continue
		}
		label := r.Model.DisplayName
		if r.Variant != "" {
			label += " (" + r.Variant + ")"
		}
		label += " · " + r.SystemLabel()
		if r.RetrievalSource > 0 {
			label += fmt.Sprintf(" · source %d", r.RetrievalSource)
		}
		if tv.Rows[ri].BelowFloor {
			label = BelowFloorMark + " " + label
		}
		f.Points = append(f.Points, plots.IntervalPoint{Label: label, Mean: c.Summary.Mean, Lo: c.Interval.Lo, Hi: c.Interval.Hi, N: c.Interval.N,
			QLo: c.QInterval.Lo, QHi: c.QInterval.Hi, QN: c.QInterval.N, Below: tv.Rows[ri].BelowFloor, Configuration: c.Configuration.Key.String()})
	}
	if len(f.Points) == 0 {
		return nil
	}
	f.Caption = fmt.Sprintf("Each configuration of the table above, in its order: the mean task success rate over rounds %s (dot) and its 95 %% Student t interval over rounds (thin line; "+
		"none for a single round), as the table's checkbox shows them (the table's ± is the population std, a different quantity); behind it, where per-question outcomes exist, "+
		"the broad pale bar is the 95 %% interval over questions and rounds (clustered by question, computed by the current code), which also counts which questions the benchmark holds. "+
		"Dashed: the reference solution (ceiling, %s %%) and the baseline returning True for every property (floor, %s %%); points below the floor are drawn in orange and marked %s.",
		protocolPhrase(t.HeadlineProtocol), fmtPct(ceil.Percent), fmtPct(floor.Percent), BelowFloorMark)
	return f
}
