package content

// The verified question set's ranked table on the home page
// (aggregate.BuildVerifiedTable; docs/benchmark-audit.md): after the full
// set's tables, never mixed with them, each row with its rank in the full
// set's table it comes from, the audit's bounds unranked below.

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/results"

	"github.com/mattools-leaderboard/leaderboard/results/stats"

	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
)

// verifiedView is the verified set's table as the home page shows it.
type verifiedView struct {
	ID      string `json:"id"`
	Heading string `json:"heading"`
	Caption string `json:"caption"`
	Note    string `json:"note"`
	// Differs says what sets the table apart from the verified table
	// before it (another set, another benchmark version) and how the ranks
	// move; "" for the first. Prev names that table's set ("verified-v1")
	// for the rank column; "" for the first.
	Differs string              `json:"differs"`
	Prev    string              `json:"prev"`
	Rows    []*verifiedRowView  `json:"rows"`
	Audit   []*verifiedAuditRow `json:"audit"`
	// CSV is the table's download (VerifiedCSV), relative to the edition.
	CSV string `json:"csv"`
	// data is the CSV's content, written by the edition's home page.
	data []byte
}

// VerifiedCSVHeader is the header of the verified set table's download.
var VerifiedCSVHeader = []string{"table", "rank", "model", "display_name", "system", "retrieval_source", "scoring_protocol", "metric",
	"n", "mean", "pop_std", "passed", "total", "full_rank", "configuration", "unscorable",
	"questions", "ci95q_lo", "ci95q_hi", "rank_best_q", "rank_worst_q", "tied_with_leader_q"}

// VerifiedCSV writes the verified set's table as CSV: per row (ranked, then
// unscorable), the percentage of the set's properties passed (metric
// verified_properties_passed; mean and population std over its runs, 4
// decimals; empty when unscorable), its competition rank (0: unscorable),
// the properties passed and scored summed over its runs, and its rank in
// its full-set table; then the benchmark audit's rows (rank 0, n 1,
// configuration "audit:<system>/<set id>"). A release's numbers manifest
// freezes them (site/release). Then, computed by the current code and
// never frozen (the manifest has no such fields), the set's questions, the
// 95 % interval over questions and rounds (aggregate.VerifiedRow.QInterval;
// empty, with questions 0, when unscorable) and the band over questions
// (QBand; 0 0 false when none).
func VerifiedCSV(vt *aggregate.VerifiedTable, id string) []byte {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write(VerifiedCSVHeader)
	f4 := func(x float64) string { return strconv.FormatFloat(x, 'f', 4, 64) }
	const metric = "verified_properties_passed"
	for _, r := range vt.Rows {
		k := r.Config.Key
		mean, std := "", ""
		if r.Unscorable == "" {
			mean, std = f4(r.Summary.Mean), f4(r.Summary.PopStd)
		}
		qn, qlo, qhi := 0, "", ""
		if r.QInterval.N > 1 {
			qn, qlo, qhi = r.QInterval.N, f4(r.QInterval.Lo), f4(r.QInterval.Hi)
		}
		w.Write([]string{id, strconv.Itoa(r.Rank), csvSafe(k.Model), csvSafe(r.Config.Model.DisplayName), string(k.System), strconv.Itoa(k.RetrievalSource),
			aggregate.VerifiedSetProtocol, metric, strconv.Itoa(r.Summary.N), mean, std, strconv.Itoa(r.Passed), strconv.Itoa(r.Total),
			strconv.Itoa(r.FullRank), csvSafe(k.String()), csvSafe(r.Unscorable),
			strconv.Itoa(qn), qlo, qhi, strconv.Itoa(r.QBand.Best), strconv.Itoa(r.QBand.Worst), strconv.FormatBool(r.QBand.Tied)})
	}
	for _, a := range vt.Audit {
		w.Write([]string{id, "0", "none", auditLabels[a.System], string(a.System), "0", aggregate.VerifiedSetProtocol, metric, "1",
			f4(stats.Percent(a.Passed, a.Total)), f4(0), strconv.Itoa(a.Passed), strconv.Itoa(a.Total), "0", "audit:" + string(a.System) + "/" + vt.Set.ID, "",
			"0", "", "", "0", "0", "false"})
	}
	w.Flush()
	return buf.Bytes()
}

type verifiedRowView struct {
	Rank       string      `json:"rank"` // "" when unscorable
	RankSort   int         `json:"rank_sort"`
	Model      string      `json:"model"`
	ModelHref  string      `json:"model_href"`
	System     string      `json:"system"`
	Source     string      `json:"source"`
	Mean       string      `json:"mean"` // "" when unscorable
	Std        string      `json:"std"`  // "" when n = 1
	N          int         `json:"n"`
	Count      string      `json:"count"` // properties passed / properties, summed over the runs
	Sort       string      `json:"sort"`
	FullRank   string      `json:"full_rank"` // "–" when unranked there
	FullSet    string      `json:"full_set"`
	PrevRank   string      `json:"prev_rank"` // its rank in the verified table before this one; "–" when unranked or absent there
	ConfigHref string      `json:"config_href"`
	Badges     []badgeView `json:"badges"`
	Unscorable string      `json:"unscorable"`
	// QCI is the 95 % interval over questions and rounds, "[lo, hi]"
	// ("" when none); QBand the band over questions ("" when none), QTied
	// not significantly below the leader, QSort sorts it.
	QCI   string `json:"qci"`
	QBand string `json:"qband"`
	QTied bool   `json:"qtied"`
	QSort int    `json:"qsort"`
}

type verifiedAuditRow struct {
	Label string    `json:"label"`
	Badge badgeView `json:"badge"`
	Mean  string    `json:"mean"`
	Count string    `json:"count"`
	Run   string    `json:"run"`
}

// verified returns the home page's verified-set tables: the edition's
// VerifiedSet's, then each of MoreVerifiedSets', those with something to
// score; none when the edition has no verified set (v1.0-v1.2, and a
// release that records none).
func (v *views) verified() []*verifiedView {
	var out []*verifiedView
	var prev *aggregate.VerifiedTable
	for _, set := range append([]*aggregate.VerifiedSet{v.e.VerifiedSet}, v.e.MoreVerifiedSets...) {
		vt := aggregate.BuildVerifiedTable(set, v.lb.Headline, v.e.Audit, v.e.AuditRows)
		if vt == nil || (len(vt.Rows) == 0 && len(vt.Audit) == 0) {
			continue
		}
		out = append(out, v.verifiedTable(vt, prev))
		prev = vt
	}
	return out
}

// verifiedTable returns vt as the home page shows it; prev is the verified
// table shown before it (nil: none), which it is compared with.
func (v *views) verifiedTable(vt, prev *aggregate.VerifiedTable) *verifiedView {
	set := vt.Set
	out := &verifiedView{ID: aggregate.Slug("tool-usage-" + set.ID), Heading: vt.Title(),
		Caption: fmt.Sprintf("Benchmark version %s · question set %s, version %d (%s, %s) · scoring protocol %s · a question set of its own: never mixed with the full set's tables above",
			set.BenchmarkVersion, set.ID, set.Version, count(set.Questions, "question", "questions"), count(set.Properties, "property", "properties"), aggregate.VerifiedSetProtocol),
		Rows: []*verifiedRowView{}, Audit: []*verifiedAuditRow{}}
	out.CSV = "downloads/tables/" + out.ID + ".csv"
	out.data = VerifiedCSV(vt, out.ID)
	out.Note = "The verified question set holds the properties whose verification this project's reference solution passes (make audit) and whose diagnosis is not “expected value wrong” " +
		"(docs/benchmark-audit.md). Each row is a mattools-v1-strict configuration of the tables above, scored on these properties from its runs' stored per-property outcomes " +
		"(results format v3; nothing re-executed): the percentage of the set's properties passed, mean ± population std (÷ n) over its runs, ranked by the mean (competition rank). " +
		"“Full-set rank” is the row's rank in the table it comes from (ranked there by its own headline protocol). " +
		"The interval over questions and rounds and the “Band over questions” count which questions the set happens to hold, not only the rounds: 95 %, " +
		"clustered by question (a question's properties are not independent), each question's properties of the set averaged over its rounds, and the band from " +
		"paired differences over the same questions (≈: not significantly below the leader); computed by the current code, also on a frozen release, whose values and ranks stay as frozen."
	if vt.NoStrict > 0 {
		out.Note += fmt.Sprintf(" %s of the tables above have no mattools-v1-strict runs (MatTools' published totals, mattools-v1 only) and cannot be scored on the set.", count(vt.NoStrict, "row", "rows"))
	}
	prevRanks := map[string]int{}
	if prev != nil {
		out.Prev = prev.Set.ID
		out.Differs = verifiedDiffers(vt, prev)
		for _, r := range prev.Rows {
			prevRanks[versionless(r.Config)] = r.Rank
		}
	}
	for _, r := range vt.Rows {
		c := r.Config
		rv := &verifiedRowView{RankSort: 1 << 30, Model: c.Model.DisplayName, ModelHref: v.modelHref(c.Model.ID), System: r.Full.SystemLabel(),
			Source: aggregate.RetrievalTitle(&c.Runs[0].File.Run), FullRank: "–", FullSet: r.FullSetName(), ConfigHref: confHref(c), Unscorable: r.Unscorable}
		if r.Full.Variant != "" {
			rv.Model += " (" + r.Full.Variant + ")"
		}
		if r.FullRank > 0 {
			rv.FullRank = strconv.Itoa(r.FullRank)
		}
		if n := prevRanks[versionless(c)]; n > 0 && prev != nil {
			rv.PrevRank = strconv.Itoa(n)
		} else if prev != nil {
			rv.PrevRank = "–"
		}
		rv.Badges = append(rv.Badges, newBadge(aggregate.BadgeOf(c.Key.Provenance)))
		rv.QSort = 1 << 30
		if r.QInterval.N > 1 {
			rv.QCI = "[" + fmtPct(r.QInterval.Lo) + ", " + fmtPct(r.QInterval.Hi) + "]"
		}
		if r.QBand.Best > 0 {
			rv.QBand, rv.QTied, rv.QSort = bandText(r.QBand), r.QBand.Tied, r.QBand.Best
		}
		if r.Unscorable == "" {
			rv.Rank, rv.RankSort = strconv.Itoa(r.Rank), r.Rank
			rv.Mean, rv.N, rv.Sort = fmtPct(r.Summary.Mean), r.Summary.N, strconv.FormatFloat(r.Summary.Mean, 'f', 6, 64)
			if r.Summary.N > 1 {
				rv.Std = fmtPct(r.Summary.PopStd)
			}
			rv.Count = fmt.Sprintf("%d/%d", r.Passed, r.Total)
		}
		out.Rows = append(out.Rows, rv)
	}
	for _, a := range vt.Audit {
		out.Audit = append(out.Audit, &verifiedAuditRow{Label: auditLabels[a.System], Badge: auditBadges[a.System],
			Mean: fmtPct(100 * float64(a.Passed) / float64(a.Total)), Count: fmt.Sprintf("%d/%d", a.Passed, a.Total), Run: a.Run.Run.RunID})
	}
	return out
}

// versionless is a configuration's identity without its benchmark version:
// the same answers scored in another version (a corrected one) share it.
func versionless(c *aggregate.Configuration) string {
	k := c.Key
	k.BenchmarkVersion = ""
	return (&aggregate.Configuration{Key: k}).Identity()
}

// verifiedDiffers says what sets vt apart from prev, the verified table
// before it: the set and benchmark version, the properties only one of
// them holds (by question), and how the ranks move from prev's to vt's
// (competition ranks; rows matched by configuration apart from the
// benchmark version).
func verifiedDiffers(vt, prev *aggregate.VerifiedTable) string {
	s, p := vt.Set, prev.Set
	var b strings.Builder
	fmt.Fprintf(&b, "This table scores question set %s (%s, %s) on the runs of benchmark version %s; the table before it scores %s (%s, %s) on version %s's.",
		s.ID, count(s.Questions, "question", "questions"), count(s.Properties, "property", "properties"), s.BenchmarkVersion,
		p.ID, count(p.Questions, "question", "questions"), count(p.Properties, "property", "properties"), p.BenchmarkVersion)
	if s.BenchmarkVersion != p.BenchmarkVersion {
		if cv, ok := datasets.LookupCorrectedVersion(s.BenchmarkVersion); ok {
			fmt.Fprintf(&b, " Version %s is %s", cv.ID, lowerFirst(cv.Description))
		}
	}
	only := func(x, y results.PropertySet) []string {
		var out []string
		for _, q := range slices.Sorted(maps.Keys(x)) {
			var props []string
			for _, name := range x[q] {
				if !slices.Contains(y[q], name) {
					props = append(props, name)
				}
			}
			if len(props) > 0 {
				out = append(out, q+" ("+strings.Join(props, ", ")+")")
			}
		}
		return out
	}
	added, removed := only(s.Set, p.Set), only(p.Set, s.Set)
	switch {
	case len(added) == 0 && len(removed) == 0:
		fmt.Fprintf(&b, " Both sets hold the same properties.")
	default:
		if len(added) > 0 {
			fmt.Fprintf(&b, " Properties only %s holds: %s.", s.ID, strings.Join(added, "; "))
		}
		if len(removed) > 0 {
			fmt.Fprintf(&b, " Properties only %s holds: %s.", p.ID, strings.Join(removed, "; "))
		}
	}
	prevRank := map[string]int{}
	for _, r := range prev.Rows {
		if r.Rank > 0 {
			prevRank[versionless(r.Config)] = r.Rank
		}
	}
	var moves []rankMove
	for _, r := range vt.Rows {
		if r.Rank > 0 {
			moves = append(moves, rankMove{verifiedRowName(r), prevRank[versionless(r.Config)], r.Rank})
		}
	}
	fmt.Fprintf(&b, " %s", rankMoves(p.ID, moves))
	return b.String()
}

// verifiedRowName names a verified row's configuration in words.
func verifiedRowName(r *aggregate.VerifiedRow) string {
	name := r.Config.Model.DisplayName
	if r.Full.Variant != "" {
		name += " (" + r.Full.Variant + ")"
	}
	return name + ", " + r.Full.SystemLabel() + ", " + aggregate.RetrievalTitle(&r.Config.Runs[0].File.Run)
}

// rankMove is a row's rank in another table (Was, 0: not ranked there)
// and in this one (Is).
type rankMove struct {
	Name    string
	Was, Is int
}

// rankMoves says in words how the ranks of rows (in this table's order)
// move against the table other: how many keep their rank, and each that
// moves ("name: was → is"); rows not ranked there are named apart.
func rankMoves(other string, rows []rankMove) string {
	var kept int
	var moved, fresh []string
	for _, r := range rows {
		switch {
		case r.Was == 0:
			fresh = append(fresh, fmt.Sprintf("%s (%d)", r.Name, r.Is))
		case r.Was == r.Is:
			kept++
		default:
			moved = append(moved, fmt.Sprintf("%s: %d → %d", r.Name, r.Was, r.Is))
		}
	}
	s := fmt.Sprintf("Ranks against %s: %d of these %d ranked rows keep their rank", other, kept, len(rows))
	if len(moved) == 0 {
		s += ", none moves"
	} else {
		s += fmt.Sprintf("; %d move: %s", len(moved), strings.Join(moved, "; "))
	}
	s += "."
	if len(fresh) > 0 {
		s += fmt.Sprintf(" Not ranked there: %s.", strings.Join(fresh, "; "))
	}
	return s
}
