package aggregate

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/results/stats"
)

// RankedTable is a tool-usage leaderboard table of one benchmark version
// and one question set, with the scoring protocols side by side:
// one row per configuration identity (Configuration.Identity), columns for
// task success rate and function runnable rate under each scoring protocol
// present, ranked by the headline column (HeadlineProtocol's task success
// rate). It joins the per-protocol Tables of that question set (Parts),
// whose rows and cells it reuses.
type RankedTable struct {
	ID    string // URL-safe, unique
	Board Board  // BoardToolUsage for the all-systems table of the landing page
	// Benchmark is the table's benchmark (its suite's tables are never
	// joined with another suite's: a folder benchmark's version and
	// question set may read like MatTools').
	Benchmark        results.Benchmark
	BenchmarkVersion string
	// QuestionSet is the question set name and size, e.g. "all/49" or
	// "executable-85659656/28".
	QuestionSet string
	// Questions and Properties are the question set's size; Total* the
	// benchmark's (49 and 138 for MatTools 2025-05), counted from the rows
	// of a run (which has one per question, also outside its question set).
	Questions, Properties, TotalQuestions, TotalProperties int
	// Columns in display order: per scoring protocol (the headline's, then
	// the registry's display order, results.ProtocolRank), task success rate then function runnable rate.
	Columns []RankedColumn
	// HeadlineProtocol is the protocol the rows are ranked by: the one of
	// the display order under which most rows have a task success rate (ties:
	// the first; else the first column's). Its columns come first.
	HeadlineProtocol string
	Rows             []*RankedRow
	Parts            []*Table // the per-protocol tables joined, in display order (results.ProtocolRank)
	// Shared says, one sentence per other table of the page, how many of
	// this table's configurations appear there too.
	Shared []string
}

// BoardToolUsage is the pseudo-board of the landing page's headline
// tables: every tool-usage system together.
const BoardToolUsage Board = "tool-usage"

// RankedColumn is one metric under one scoring protocol.
type RankedColumn struct {
	Protocol string
	Metric   Metric
}

// ProtocolTitle names a scoring protocol in a column heading: its title in
// the registry (results.ProtocolTitle).
func ProtocolTitle(p string) string { return results.ProtocolTitle(p) }

// AsPublished reports whether protocol p's numbers are imported as
// published, not scored by this project (a registered protocol that is not
// Scored: mattools-original).
func AsPublished(p string) bool {
	sp, ok := results.LookupScoringProtocol(p)
	return ok && !sp.Scored
}

// Title returns the column heading, e.g. "Task success rate (%), mattools-v1".
func (c RankedColumn) Title() string {
	return c.Metric.Title() + " (%), " + ProtocolTitle(c.Protocol)
}

// RankedRow is one configuration identity in a RankedTable.
type RankedRow struct {
	Identity        string
	Model           Model
	System          results.System
	RetrievalSource int
	Variant         string
	Family          string  // Family of the configurations' provenance
	Badges          []Badge // one per distinct badge of the configurations, in display order of their protocols
	Cells           []*Cell // aligned with the table's Columns; nil where no value exists
	// Rank is the 1-based competition rank ("1, 2, 2, 4") by the headline
	// column; 0 for rows without a headline value (listed after the ranked).
	Rank int
	// Band is the rank band the headline column's 95 % intervals give
	// (stats.RankBands over the ranked rows; a row of one round counts as
	// the whole scale, 0–100 %, see bandInterval): the best and worst rank
	// the row can hold, and whether its interval overlaps the leader's (the
	// leader's tie group). Zero for unranked and reference rows.
	Band stats.Band
	// QBand is the rank band from paired differences over questions and
	// rounds (stats.PairedRankBands of the headline column's
	// PairedDifference between every two ranked rows): Best is 1 + the rows
	// significantly above this one, Worst the ranked rows less those
	// significantly below it, and Tied that the leader is not significantly
	// above it ("≈"). A row without per-question outcomes has none (zero
	// Band) and, being comparable with no row, widens every other band.
	// It is computed by the running code, also in a frozen edition, whose
	// Band and Rank stay as frozen.
	QBand stats.Band
	// Configurations behind the row, in display order of their protocols.
	Configurations []*Configuration
	// Notes say why the same model, system and retrieval source appear in
	// another row of this table.
	Notes []string
	// Reference marks a reference row of an advanced-systems table
	// (Row.Reference): shown among the rows by its values, never ranked
	// (Rank 0). The headline tables have none.
	Reference bool
}

// SystemLabel names the row's system for labels: ReferenceLabel for a
// reference row, else the system with its variant (Configuration.SystemLabel).
func (r *RankedRow) SystemLabel() string {
	if r.Reference {
		return ReferenceLabel(r.System, r.RetrievalSource)
	}
	return r.Configurations[0].SystemLabel()
}

// ReferenceRows returns the table's reference rows, in table order.
func (t *RankedTable) ReferenceRows() []*RankedRow {
	var out []*RankedRow
	for _, r := range t.Rows {
		if r.Reference {
			out = append(out, r)
		}
	}
	return out
}

// Cell returns the row's cell of a protocol and metric, or nil.
func (r *RankedRow) Cell(t *RankedTable, protocol string, m Metric) *Cell {
	for i, c := range t.Columns {
		if c.Protocol == protocol && c.Metric == m {
			return r.Cells[i]
		}
	}
	return nil
}

// Canonical reports whether the table is of the whole benchmark.
func (t *RankedTable) Canonical() bool {
	name, _, _ := strings.Cut(t.QuestionSet, "/")
	return name == results.QuestionSetAll
}

// Title names the table's question set in words, e.g. "All 49 questions
// (138 properties)" or "28 of 49 questions (93 of 138 properties): those
// whose data files the machine that ran them had".
func (t *RankedTable) Title() string {
	if t.OtherSuite() {
		// Another benchmark's table says whose questions it holds.
		return t.Benchmark.Title() + ": " + strings.ToLower(t.questionsTitle()[:1]) + t.questionsTitle()[1:]
	}
	if t.Corrected() {
		return "Corrected version " + t.BenchmarkVersion + ": " + strings.ToLower(t.questionsTitle()[:1]) + t.questionsTitle()[1:]
	}
	return t.questionsTitle()
}

// Corrected reports whether the table's benchmark version is a corrected
// version of another (datasets/corrections.json): its runs are the same
// answers scored with some verifications corrected, shown apart.
func (t *RankedTable) Corrected() bool { return CorrectsVersion(t.BenchmarkVersion) != "" }

// OtherSuite reports whether the table's benchmark is outside MatTools'
// suite (a folder benchmark's): its tables are titled with the benchmark
// and shown apart from MatTools'.
func (t *RankedTable) OtherSuite() bool { return suiteOf(t.Benchmark) != results.SuiteMatTools }

func (t *RankedTable) questionsTitle() string {
	if t.Canonical() {
		return fmt.Sprintf("All %d questions (%d properties)", t.Questions, t.Properties)
	}
	if t.Executable() {
		return fmt.Sprintf("%d of %d questions (%d of %d properties): those whose data files the machine that ran them had",
			t.Questions, t.TotalQuestions, t.Properties, t.TotalProperties)
	}
	if t.TotalQuestions > t.Questions {
		return fmt.Sprintf("%d of %d questions (%d of %d properties), question set %s", t.Questions, t.TotalQuestions, t.Properties, t.TotalProperties, t.QuestionSet)
	}
	return fmt.Sprintf("%d questions (%d properties), question set %s", t.Questions, t.Properties, t.QuestionSet)
}

// Executable reports whether the table's question set is the executable
// subset of a data root that lacks some questions' data files
// (results.ExecutableQuestionSet names it "executable-…").
func (t *RankedTable) Executable() bool {
	name, _, _ := strings.Cut(t.QuestionSet, "/")
	return strings.HasPrefix(name, "executable-") && t.TotalQuestions > t.Questions
}

// buildRanked joins the per-protocol tables of a board (or of several: the
// landing page's all-systems tables) into RankedTables, one per benchmark
// version and question set, canonical set first.
func buildRanked(b Board, tables []*Table) []*RankedTable {
	type key struct{ suite, version, qs string }
	byKey := map[key]*RankedTable{}
	var out []*RankedTable
	for _, t := range tables {
		if t.Board == BoardQA {
			continue
		}
		bench := t.Rows[0].Configurations[0].Key.Benchmark
		suite := suiteOf(bench)
		k := key{suite, t.BenchmarkVersion, t.QuestionSet}
		rt := byKey[k]
		if rt == nil {
			id := string(b) + "-" + t.BenchmarkVersion + "-" + t.QuestionSet
			if suite != results.SuiteMatTools {
				id = string(b) + "-" + suite + "-" + t.BenchmarkVersion + "-" + t.QuestionSet
			}
			rt = &RankedTable{ID: Slug(id), Board: b, Benchmark: bench,
				BenchmarkVersion: t.BenchmarkVersion, QuestionSet: t.QuestionSet}
			byKey[k] = rt
			out = append(out, rt)
		}
		rt.Parts = append(rt.Parts, t)
	}
	for _, rt := range out {
		rt.join()
	}
	slices.SortStableFunc(out, func(x, y *RankedTable) int {
		return cmp.Or(
			cmp.Compare(x.Benchmark.Order(), y.Benchmark.Order()), // MatTools' (registered first) before a folder benchmark's
			compareVersions(x.BenchmarkVersion, y.BenchmarkVersion),
			cmp.Compare(questionSetOrder(x.QuestionSet), questionSetOrder(y.QuestionSet)),
			cmp.Compare(y.Questions, x.Questions),
			strings.Compare(x.QuestionSet, y.QuestionSet),
		)
	})
	return out
}

func (rt *RankedTable) join() {
	slices.SortStableFunc(rt.Parts, func(x, y *Table) int {
		return cmp.Or(cmp.Compare(results.ProtocolRank(x.ScoringProtocol), results.ProtocolRank(y.ScoringProtocol)), strings.Compare(x.ScoringProtocol, y.ScoringProtocol))
	})
	for _, t := range rt.Parts {
		if !slices.ContainsFunc(rt.Columns, func(c RankedColumn) bool { return c.Protocol == t.ScoringProtocol }) {
			rt.Columns = append(rt.Columns, RankedColumn{Protocol: t.ScoringProtocol, Metric: TaskSuccessRate},
				RankedColumn{Protocol: t.ScoringProtocol, Metric: FunctionRunnableRate})
		}
	}
	rows := map[string]*RankedRow{}
	for _, t := range rt.Parts {
		for _, r := range t.Rows {
			if r.Reference && rt.Board == BoardToolUsage {
				continue // listed once, as the row of its own board's table
			}
			for _, c := range r.Configurations {
				if rt.TotalQuestions == 0 {
					qs := c.QuestionSet()
					rt.Questions, rt.Properties = qs.Questions, qs.Properties
					// The benchmark's size: a tool-usage run has a row per
					// question, those outside its question set included.
					for _, q := range c.Runs[0].Questions {
						rt.TotalQuestions++
						rt.TotalProperties += int(q.PropertyCount)
					}
				}
				id := c.Identity()
				if r.Reference {
					id = "reference|" + id
				}
				row := rows[id]
				if row != nil && slices.ContainsFunc(row.Configurations, func(o *Configuration) bool { return o.Key.ScoringProtocol == c.Key.ScoringProtocol }) {
					// Two configurations of one identity and protocol (e.g. a
					// submitted run and its verification): each keeps a row,
					// told apart by its badge, rather than one hiding the other.
					id += "|" + string(BadgeOf(c.Key.Provenance))
					row = rows[id]
				}
				if row == nil {
					row = &RankedRow{Identity: id, Model: c.Model, System: c.Key.System, RetrievalSource: c.Key.RetrievalSource,
						Variant: c.Key.Variant, Family: Family(c.Key.Provenance), Reference: r.Reference}
					rows[id] = row
					rt.Rows = append(rt.Rows, row)
				}
				row.Configurations = append(row.Configurations, c)
				if b := BadgeOf(c.Key.Provenance); !slices.Contains(row.Badges, b) {
					row.Badges = append(row.Badges, b)
				}
			}
		}
	}
	rt.fillCells()
	// The headline protocol: the one most rows have a task success rate
	// under, ties broken by the registry's display order, so that a few rows scored under
	// another protocol (a submission scored under mattools-v1 on all 49
	// questions, beside MatTools' published totals) never unrank the rest.
	// Reference rows are not ranked and do not count.
	best := 0
	for _, sp := range results.ScoringProtocols() {
		p, n := sp.ID, 0
		for _, row := range rt.Rows {
			if !row.Reference && row.Cell(rt, p, TaskSuccessRate) != nil {
				n++
			}
		}
		if n > best {
			best, rt.HeadlineProtocol = n, p
		}
	}
	if rt.HeadlineProtocol == "" && len(rt.Columns) > 0 {
		rt.HeadlineProtocol = rt.Columns[0].Protocol // protocols outside the registry only
	}
	// The headline's columns come first.
	slices.SortStableFunc(rt.Columns, func(x, y RankedColumn) int {
		return cmp.Compare(boolRank(x.Protocol != rt.HeadlineProtocol), boolRank(y.Protocol != rt.HeadlineProtocol))
	})
	rt.fillCells()
	rt.rank()
}

// rank sorts the rows by task success rate under each protocol in
// display order (results.ProtocolRank; the headline first; a row without a value follows every
// row with one), then by function runnable rate under the headline
// protocol, then in board order, and gives the rows with a headline value
// their competition rank. Reference rows take their place by value too, but
// no rank, and the ranks of the other rows do not count them.
func (rt *RankedTable) rank() {
	var protos []string
	for _, c := range rt.Columns {
		if !slices.Contains(protos, c.Protocol) {
			protos = append(protos, c.Protocol)
		}
	}
	desc := func(x, y *Cell) int {
		switch {
		case x == nil && y == nil:
			return 0
		case x == nil:
			return 1
		case y == nil:
			return -1
		}
		return cmp.Compare(rounded(y.Summary.Mean), rounded(x.Summary.Mean))
	}
	slices.SortStableFunc(rt.Rows, func(x, y *RankedRow) int {
		for _, p := range protos {
			if c := desc(x.Cell(rt, p, TaskSuccessRate), y.Cell(rt, p, TaskSuccessRate)); c != 0 {
				return c
			}
		}
		if c := desc(x.Cell(rt, rt.HeadlineProtocol, FunctionRunnableRate), y.Cell(rt, rt.HeadlineProtocol, FunctionRunnableRate)); c != 0 {
			return c
		}
		return compareConfigurations(BoardLLMRAG, x.Configurations[0], y.Configurations[0])
	})
	var prev *RankedRow // the previous ranked row
	n := 0              // rows ranked so far
	for _, row := range rt.Rows {
		c := row.Cell(rt, rt.HeadlineProtocol, TaskSuccessRate)
		switch {
		case c == nil || row.Reference:
			row.Rank = 0
			continue
		case prev != nil && rounded(prev.Cell(rt, rt.HeadlineProtocol, TaskSuccessRate).Summary.Mean) == rounded(c.Summary.Mean):
			row.Rank = prev.Rank
		default:
			row.Rank = n + 1
		}
		n++
		prev = row
	}
	var ranked []*RankedRow
	var ivs []stats.Interval
	for _, row := range rt.Rows {
		if row.Rank > 0 {
			ranked = append(ranked, row)
			ivs = append(ivs, bandInterval(row.Cell(rt, rt.HeadlineProtocol, TaskSuccessRate).Interval))
		}
	}
	for i, b := range stats.RankBands(ivs) {
		ranked[i].Band = b
	}
	rt.pairedBands(ranked)
}

// pairedBands gives the ranked rows their QBand, when some of them have
// per-question outcomes under the headline protocol.
func (rt *RankedTable) pairedBands(ranked []*RankedRow) {
	confs := make([]*Configuration, len(ranked))
	means := make([]float64, len(ranked))
	has := false
	for i, row := range ranked {
		c := row.Cell(rt, rt.HeadlineProtocol, TaskSuccessRate)
		confs[i], means[i] = c.Configuration, rounded(c.Summary.Mean)
		has = has || c.Configuration.Questions[TaskSuccessRate] != nil
	}
	if !has {
		return
	}
	bands := stats.PairedRankBands(means, func(i, j int) (stats.Interval, bool) {
		return PairedDifference(confs[i], confs[j], TaskSuccessRate)
	})
	for i, b := range bands {
		if confs[i].Questions[TaskSuccessRate] != nil {
			ranked[i].QBand = b
		}
	}
}

// bandInterval is the interval a row's rank band is computed from: the
// cell's 95 % interval, or, when it has fewer than two rounds (no interval
// exists: stats.TInterval gives a point), the whole scale, 0–100 %. A single
// round says nothing of the round-to-round noise, so such a row may hold any
// rank, and every other row's worst rank counts it.
func bandInterval(iv stats.Interval) stats.Interval {
	if iv.N < 2 {
		iv.Lo, iv.Hi = 0, 100
	}
	return iv
}

// rounded is a mean rounded to 1e-9 percent, so that equal counts summed in
// another order (70 of 279 properties as 30+21+19 or 23+25+22) rank as ties.
func rounded(mean float64) float64 { return math.Round(mean*1e9) / 1e9 }

// sameAnswersKey identifies what a reader sees of a row: model, system (with
// its variant, which the row's label names) and retrieval source.
func sameAnswersKey(r *RankedRow) string {
	k := r.Configurations[0].Key
	return strings.Join([]string{string(k.System), r.Configurations[0].SystemVariant(), fmt.Sprint(k.RetrievalSource), k.Model}, "|")
}

// settingsText names the settings, system parameters and variant of a row,
// "" when it has none.
func settingsText(r *RankedRow) string {
	k := r.Configurations[0].Key
	var parts []string
	for _, p := range []string{k.Variant, k.Settings, strings.ReplaceAll(k.SystemParams, "\n", ",")} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, ", ")
}

// sameSettings reports whether two rows differ only in family or badge.
func sameSettings(a, b *RankedRow) bool {
	x, y := a.Configurations[0].Key, b.Configurations[0].Key
	return x.Variant == y.Variant && x.Settings == y.Settings && x.SystemParams == y.SystemParams
}

// FamilyTitle names a provenance family in a sentence.
func FamilyTitle(f string) string {
	switch {
	case f == "published":
		return "MatTools' published answers"
	case f == string(results.ProvenanceRunner):
		return "answers obtained by this project's runner (a replay serves MatTools' recorded answers again)"
	case strings.HasPrefix(f, "submitted:"):
		return "the answers of submission " + strings.TrimPrefix(f, "submitted:")
	}
	return f
}

// annotate writes, on every row whose model, system and retrieval source
// appear in another row of the same table, one sentence saying why (Notes),
// and on every table whose configurations also appear in another of tables
// one sentence per such table (Shared).
func annotate(tables []*RankedTable) {
	type place struct {
		t   *RankedTable
		row *RankedRow
	}
	by := map[string][]place{}
	for _, t := range tables {
		for _, row := range t.Rows {
			k := sameAnswersKey(row)
			by[k] = append(by[k], place{t, row})
		}
	}
	for _, t := range tables {
		shared := map[*RankedTable]int{}
		for _, row := range t.Rows {
			seen := map[*RankedTable]bool{}
			for _, o := range by[sameAnswersKey(row)] {
				switch {
				case o.row == row:
				case o.t == t && !sameSettings(row, o.row):
					row.Notes = append(row.Notes, fmt.Sprintf("%s · %s also has %s (%s) with other settings: this row %s; that row %s.",
						row.Model.DisplayName, row.SystemLabel(), ordinal(t, o.row), joinBadges(o.row.Badges), orNone(settingsText(row)), orNone(settingsText(o.row))))
				case o.t == t && o.row.Family != row.Family:
					row.Notes = append(row.Notes, fmt.Sprintf("%s · %s also has %s (%s): this row scores %s; that row scores %s.",
						row.Model.DisplayName, row.SystemLabel(), ordinal(t, o.row), joinBadges(o.row.Badges), FamilyTitle(row.Family), FamilyTitle(o.row.Family)))
				case o.t == t:
					row.Notes = append(row.Notes, fmt.Sprintf("%s · %s also has %s (%s): the same answers, scored by another path; this row is %s.",
						row.Model.DisplayName, row.SystemLabel(), ordinal(t, o.row), joinBadges(o.row.Badges), joinBadges(row.Badges)))
				case !seen[o.t]:
					seen[o.t] = true
					shared[o.t]++
				}
			}
		}
		for _, o := range tables {
			if n := shared[o]; n > 0 {
				t.Shared = append(t.Shared, fmt.Sprintf("%d of its %d rows' configurations are also in the table “%s”, scored there on that question set.",
					n, len(t.Rows), o.Title()))
			}
		}
	}
}

func orNone(s string) string {
	if s == "" {
		return "has no settings recorded"
	}
	return "has " + s
}

// ordinal names another row of table t so that a reader can find it: by
// what its # column shows (its rank band) and its headline value, e.g. "the
// row of rank band 13–28 at 34.77 %".
func ordinal(t *RankedTable, row *RankedRow) string {
	at := ""
	if c := row.Cell(t, t.HeadlineProtocol, TaskSuccessRate); c != nil {
		at = fmt.Sprintf(" at %.2f %%", c.Summary.Mean)
	}
	switch {
	case row.Reference:
		return "a reference row" + at
	case row.Rank > 0 && row.Band.Best == row.Band.Worst:
		return fmt.Sprintf("the row of rank %d%s", row.Band.Best, at)
	case row.Rank > 0:
		return fmt.Sprintf("the row of rank band %d–%d%s", row.Band.Best, row.Band.Worst, at)
	}
	return "an unranked row" + at
}

func joinBadges(bs []Badge) string {
	s := make([]string, len(bs))
	for i, b := range bs {
		s[i] = string(b)
	}
	return strings.Join(s, " + ")
}

// fillCells gives every row one cell per column (nil where the row has no
// value).
func (rt *RankedTable) fillCells() {
	for _, row := range rt.Rows {
		row.Cells = make([]*Cell, len(rt.Columns))
		for i, col := range rt.Columns {
			for _, c := range row.Configurations {
				if s, ok := c.Summaries[col.Metric]; ok && c.Key.ScoringProtocol == col.Protocol {
					row.Cells[i] = newCell(c, col.Metric, s)
				}
			}
		}
	}
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}
