package content

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/internal/words"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/results/stats"
	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
	"github.com/mattools-leaderboard/leaderboard/site/paperonly"
	"github.com/mattools-leaderboard/leaderboard/site/plots"
)

// RunnableNote is said wherever a function runnable rate is shown: what the
// metric counts (docs/mattools.md §2).
const RunnableNote = "Function runnable rate counts every question whose generated function ran and returned a dict, even a dict whose values are all None; " +
	"task success rate counts the properties whose values verification accepts, so it is the headline metric."

type badgeView struct {
	Text  string `json:"text"`
	Class string `json:"class"` // CSS class: badge-published, badge-re-executed, …
	Title string `json:"title"` // what the badge means
	Href  string `json:"href"`  // edition-relative link (a submission's entry), "" for none
}

var badgeTitles = map[aggregate.Badge]string{
	aggregate.BadgePublished:  "MatTools' own totals, imported as published; per-question outcomes were never published",
	aggregate.BadgeReexecuted: "stored generated code (MatTools' published code, or an earlier runner run's) re-executed by this project in its sandbox",
	aggregate.BadgeRunner:     "answers obtained and scored by this project's runner",
	aggregate.BadgeSubmitted:  "submitted by their authors, scored by the harness their results files name (the authors' own, or this project's runner on their machine); not yet re-executed by this project (its pull request's check re-executes it; verified once the maintainers record the verdicts)",
	aggregate.BadgeVerified:   "submitted code re-executed by this project in its sandbox (validate-submission -reexecute), every verdict as submitted; these are the project's recorded verdicts",
}

func newBadge(b aggregate.Badge) badgeView {
	return badgeView{Text: string(b), Class: "badge-" + strings.ReplaceAll(string(b), " ", "-"), Title: badgeTitles[b]}
}

type rankedColumnView struct {
	Title    string `json:"title"`
	Metric   string `json:"metric"`
	Protocol string `json:"protocol"`
	Headline bool   `json:"headline"`
	// Extra: a column of another protocol than the headline's, hidden
	// until the reader asks for the other protocols (layouts/_partials/ranked.html).
	Extra bool   `json:"extra"`
	Help  string `json:"help"`
}

type rankedRowView struct {
	Rank     string `json:"rank"` // "1", or "" when unranked
	RankSort int    `json:"rank_sort"`
	// Band is the rank band of the headline column's 95 % intervals, "1–4"
	// ("3" when it is one rank), shown in the # column instead of the bare
	// rank; "" when unranked. Tied: the row is in the leader's tie group.
	Band string `json:"band"`
	Tied bool   `json:"tied"`
	// QBand is the rank band from paired differences over questions and
	// rounds (aggregate.RankedRow.QBand), "" when the row has none (totals
	// only); QTied: not significantly below the leader; QSort sorts it.
	QBand string `json:"qband"`
	QTied bool   `json:"qtied"`
	QSort int    `json:"qsort"`
	// Group is the model group id and Provenance the row's badges joined
	// by "|": the values the table filters match (static/assets/filters.js).
	Group      string       `json:"group"`
	Weights    string       `json:"weights"` // the model's weights: open, closed or "" (results.ModelFacts)
	Provenance string       `json:"provenance"`
	Model      string       `json:"model"`
	ModelID    string       `json:"model_id"`
	ModelHref  string       `json:"model_href"`
	System     string       `json:"system"`
	SystemID   string       `json:"system_id"`
	SystemHref string       `json:"system_href"`
	Source     string       `json:"source"`
	SourceN    int          `json:"source_n"`
	Badges     []badgeView  `json:"badges"`
	Configs    []string     `json:"configs"`
	Cells      []*cellView  `json:"cells"`
	Paper      []*paperCell `json:"paper"`
	PaperOnly  bool         `json:"paper_only"`
	Notes      []string     `json:"notes"`    // ids of paper footnotes
	Why        []string     `json:"why"`      // why the same configuration appears in other rows of the table, one note per other row
	WhyRefs    []string     `json:"why_refs"` // anchors of the Why notes
	// Appears is how often the row's configuration (model, system,
	// retrieval source) appears in the table, as the Why notes' label
	// says it: "twice", "3 times" (1 + the notes: aggregate's annotate
	// writes one per other row of the table); "" without notes.
	Appears string `json:"appears"`
	// Reference: an LLM-RAG row repeated beside the advanced systems
	// (aggregate.RankedRow.Reference); shown as "ref", never ranked.
	Reference bool `json:"reference,omitempty"`
	// BelowFloor: the row's headline task success rate is below the
	// every-property-True baseline's (markBelowFloor); marked in the page.
	BelowFloor bool `json:"below_floor,omitempty"`
}

type linkView struct {
	Text string `json:"text"`
	Href string `json:"href"`
}

type rankedView struct {
	ID      string `json:"id"`
	Heading string `json:"heading"`
	Caption string `json:"caption"`
	Ranking string `json:"ranking"` // how the rows are ranked, in words
	Differs string `json:"differs"` // what differs from the other tables of the page
	// Collapsed: the page shows the table's heading, header row, notes and
	// CSV and audit rows but none of its ranked rows, which are on a page of
	// their own (Cut links it): an older corrected benchmark version's table
	// (supersededBy).
	Collapsed bool `json:"collapsed,omitempty"`
	// References says which reference rows the table has and what they are
	// (advanced-systems tables; "" elsewhere).
	References string             `json:"references,omitempty"`
	Columns    []rankedColumnView `json:"columns"`
	// Extra names the other protocols' columns (Columns' Extra), "" when
	// the table has only the headline protocol's.
	Extra string `json:"extra"`
	NCols int    `json:"ncols"`
	// QBands: some row has a band over questions (the "Band over
	// questions" column is shown); QNote says what the intervals and
	// bands of the table are.
	QBands     bool             `json:"qbands"`
	QNote      string           `json:"qnote"`
	ShowSystem bool             `json:"show_system"`
	ShowSource bool             `json:"show_source"`
	Rows       []*rankedRowView `json:"rows"`
	CSV        string           `json:"csv"`
	Parts      []linkView       `json:"parts"` // per-protocol CSV downloads
	Figures    []*figureView    `json:"figures"`
	Footnotes  []*paperCell     `json:"footnotes"`
	Shared     []string         `json:"shared"`
	Twice      []twiceNote      `json:"twice"` // rows that appear twice, numbered
	// Cut says which rows the page leaves out (boundRanked); nil when none.
	Cut *cutView `json:"cut,omitempty"`
	// Audit are the benchmark audit's unranked rows (auditRows) and
	// AuditNote what they are; empty when the edition has no audit run of
	// the table's question set.
	Audit     []*auditRowView `json:"audit,omitempty"`
	AuditNote string          `json:"audit_note,omitempty"`
	// Below says how many rows score below the every-property-True
	// baseline and FloorTitle what that is (markBelowFloor); "" when the
	// audit has no such baseline for the table.
	Below      string `json:"below,omitempty"`
	FloorTitle string `json:"floor_title,omitempty"`
	// Set on a home page only (homeTables): Kicker labels the table's
	// provenance ("Re-executed by this project", "As published"); Lead
	// marks the table the page leads with, Intro says why and how it is
	// ranked, and Interval is its figure of task success rates with their
	// 95 % intervals, ceiling and floor (FigRoot-relative paths).
	Kicker   string      `json:"kicker,omitempty"`
	Lead     bool        `json:"lead,omitempty"`
	Intro    string      `json:"intro,omitempty"`
	Interval *figureView `json:"interval,omitempty"`
}

type twiceNote struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

// rankedCSVPath is the download of a ranked table.
func rankedCSVPath(t *aggregate.RankedTable) string { return "downloads/tables/" + t.ID + ".csv" }

// rankingText says in words how a table's rows are ranked.
func rankingText(t *aggregate.RankedTable) string {
	if t.HeadlineProtocol == "" {
		return "No scored row."
	}
	// The text of the published pages names MatTools' own scoring, mattools-v1.
	s := "Ranked by task success rate under mattools-v1 (the benchmark's own scoring, as this project reproduces it), mean over rounds"
	if t.HeadlineProtocol != results.ProtocolMatToolsV1 {
		v1, rows := 0, 0
		for _, r := range t.Rows {
			if !r.Reference {
				rows++
				if r.Cell(t, results.ProtocolMatToolsV1, aggregate.TaskSuccessRate) != nil {
					v1++
				}
			}
		}
		s = fmt.Sprintf("Ranked by task success rate %s, mean over rounds: no run of this question set was scored under mattools-v1 here", protocolPhrase(t.HeadlineProtocol))
		if v1 > 0 {
			s = fmt.Sprintf("Ranked by task success rate %s, mean over rounds, the protocol most of its rows have (only %d of its %d rows %s scored under mattools-v1 here; ranking by it would leave the others unranked)",
				protocolPhrase(t.HeadlineProtocol), v1, rows, words.Noun(v1, "was", "were"))
		}
	}
	s += ". The # column shows each row's rank band, not a bare rank: the best and worst rank its 95 % interval of the mean over rounds " +
		"(Student t, see the methodology page) allows against the other rows' intervals; rows marked ≈ have an interval that overlaps the leader's " +
		"and so share its tie group. Rows with equal counts share a position (used to sort). " + QuestionsNote
	unranked := 0
	for _, r := range t.Rows {
		if r.Rank == 0 && !r.Reference {
			unranked++
		}
	}
	if unranked > 0 {
		s += fmt.Sprintf(" %s without a value %s %s unranked (–) and %s, ordered by the other protocols' task success rate.",
			count(unranked, "row", "rows"), protocolPhrase(t.HeadlineProtocol), noun(unranked, "is", "are"), noun(unranked, "follows", "follow"))
	}
	return s
}

// QuestionsNote says what the interval and band over questions are, wherever
// they are shown beside the rounds' (the methodology page, #uncertainty).
const QuestionsNote = "The “Band over questions” column and each value's interval over questions and rounds count what the rounds cannot: " +
	"which questions the benchmark happens to hold. The interval is 95 %, the clustered standard error with the questions as clusters " +
	"(a question's properties are not independent), each question averaged over its rounds first so that the rounds are nested within it, " +
	"and Student t with (questions − 1) degrees of freedom (Miller 2024, “Adding Error Bars to Evals”, arXiv 2411.00640). " +
	"The band is built from paired differences over the same questions: a row is placed below another only when their paired 95 % " +
	"interval of the difference lies wholly below zero, and ≈ marks the rows the leader is not significantly above. " +
	"Both are computed by the current code, also on a frozen release, whose values, ranks and # column stay as frozen. " +
	"Rows with totals only (MatTools' published totals) have no per-question outcomes, so no interval or band over questions exists for them."

// qNote says, under a ranked table, which intervals its values have: the
// rounds' (the ± and the # column) and, where per-question outcomes exist,
// the one over questions and rounds (computed by the current code).
func qNote(bands bool) string {
	if !bands {
		return "± is the population standard deviation of the rounds; the # column's band comes from the 95 % t-intervals over rounds. " +
			"No row of this table has per-question outcomes (totals only), so no interval over questions and rounds exists for it: " +
			"the rounds' spread says nothing of how much of a score other questions would keep."
	}
	return "± is the population standard deviation of the rounds and # the rank band of the 95 % t-intervals over rounds (as frozen, in a release). " +
		"“Band over questions” and each value's “questions” interval (shown with the intervals) are 95 % and count question sampling too: " +
		"clustered by question, rounds nested within questions, paired differences for the band; computed by the current code. " +
		"Rows marked – there have totals only: no interval over questions exists for them."
}

// referencesText says, for an advanced-systems table, which models have a
// reference row (LLM-RAG on retrieval source aggregate.ReferenceSource, from
// the LLM-RAG table of the same benchmark version, question set and scoring
// protocols) and which have none, and what differs from those rows.
func referencesText(t *aggregate.RankedTable) string {
	if t.Board != aggregate.BoardAdvanced {
		return ""
	}
	var with, without []string
	has := map[string]bool{}
	for _, r := range t.ReferenceRows() {
		has[r.Model.ID] = true
	}
	seen := map[string]bool{}
	for _, r := range t.Rows {
		if seen[r.Model.ID] {
			continue
		}
		seen[r.Model.ID] = true
		if has[r.Model.ID] {
			with = append(with, r.Model.DisplayName)
		} else {
			without = append(without, r.Model.DisplayName)
		}
	}
	var s string
	if len(with) > 0 {
		s = fmt.Sprintf("Rows marked “ref” repeat the LLM-RAG rows on retrieval source %d (LLM-written docs per object) of %s from the LLM-RAG table of this question set: "+
			"the same model with one retrieval and one generation call, for comparison. They stand where their values place them and take no rank.",
			aggregate.ReferenceSource, strings.Join(with, ", "))
	}
	if len(without) > 0 {
		if s != "" {
			s += " "
		}
		s += fmt.Sprintf("%s: no LLM-RAG run on retrieval source %d with this question set and these scoring protocols, so no reference row.",
			strings.Join(without, ", "), aggregate.ReferenceSource)
	}
	return s
}

// correctedRankMoves says how the ranks of corrected table t move against
// the table of the version it corrects with the same board, question set
// and headline protocol, and against each such table of another corrected
// version of it listed before t (rows matched by configuration apart from
// the benchmark version); "" when the page has none of them.
func correctedRankMoves(t *aggregate.RankedTable, all []*aggregate.RankedTable) string {
	base := aggregate.CorrectsVersion(t.BenchmarkVersion)
	var out []string
	for _, o := range all {
		if o == t {
			break
		}
		if o.Board != t.Board || o.Benchmark != t.Benchmark || o.QuestionSet != t.QuestionSet || o.HeadlineProtocol != t.HeadlineProtocol ||
			(o.BenchmarkVersion != base && aggregate.CorrectsVersion(o.BenchmarkVersion) != base) {
			continue
		}
		was := map[string]int{}
		for _, r := range o.Rows {
			if r.Rank > 0 && !r.Reference {
				was[versionlessRow(r)] = r.Rank
			}
		}
		var moves []rankMove
		for _, r := range t.Rows {
			if r.Rank > 0 && !r.Reference {
				name := r.Model.DisplayName
				if r.Variant != "" {
					name += " (" + r.Variant + ")"
				}
				moves = append(moves, rankMove{name + ", " + r.SystemLabel() + ", " + aggregate.RetrievalTitle(&r.Configurations[0].Runs[0].File.Run), was[versionlessRow(r)], r.Rank})
			}
		}
		out = append(out, rankMoves("the version "+o.BenchmarkVersion+" table", moves))
	}
	return strings.Join(out, " ")
}

// lowerFirst returns s with its first letter in lower case ("The
// published version …" → "the published version …").
func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToLower(r)) + s[n:]
}

// versionlessRow is a ranked row's identity without its benchmark version.
func versionlessRow(r *aggregate.RankedRow) string { return versionless(r.Configurations[0]) }

// differsText says what sets a table apart from the other question set's.
func differsText(t *aggregate.RankedTable, all []*aggregate.RankedTable) string {
	if len(all) < 2 {
		return ""
	}
	if v, ok := datasets.LookupCorrectedVersion(t.BenchmarkVersion); ok && t.Corrected() {
		var ids []string
		followsTests := true
		for _, c := range v.Corrections {
			ids = append(ids, c.Question)
			followsTests = followsTests && c.Test != ""
		}
		var s string
		if followsTests {
			s = fmt.Sprintf("This table scores the same answers as the version %s table with the same question set, with the verification of %s corrected as the original unit tests check them (%s; datasets/corrections.json, each change cited to the test's line; see the methodology page). "+
				"A correct answer to those questions passes here where the published verification fails it; every other question is scored as published. "+
				"Its numbers are not comparable with version %s's, and its runs are never mixed with them.",
				v.Base, count(len(ids), "question", "questions"), strings.Join(ids, ", "), v.Base)
		} else {
			vq := v.VerificationQuestions()
			s = fmt.Sprintf("This table scores the same answers as the version %s table with the same question set, in benchmark version %s, %s "+
				"Its verification differs in %s (%s), each change cited to the question's line and the audit's flag or the original test's line (datasets/corrections.json; see the methodology page); "+
				"its other corrections fix question texts, which change no verdict of the same answers. Every other question is scored as published. "+
				"Its numbers are not comparable with version %s's nor with another corrected version's, and its runs are never mixed with them.",
				v.Base, v.ID, lowerFirst(v.Description), count(len(vq), "question", "questions"), strings.Join(vq, ", "), v.Base)
		}
		if moves := correctedRankMoves(t, all); moves != "" {
			s += " " + moves
		}
		return s
	}
	switch {
	case t.Canonical():
		return fmt.Sprintf("This table scores the whole benchmark (%d questions, %d properties). The table below scores a subset; its numbers are not comparable with these.",
			t.Questions, t.Properties)
	case t.Executable():
		name, _, _ := strings.Cut(t.QuestionSet, "/")
		return fmt.Sprintf("This table scores only %d of the %d questions (%d of %d properties): the other %d questions' data files were absent on the machine that ran them, "+
			"so they are left out, not failed. Its numbers are not comparable with the whole-benchmark table. Its question set is named %s "+
			"(8 hex digits of the SHA-256 of its question ids), so runs on another subset never share its table.",
			t.Questions, t.TotalQuestions, t.Properties, t.TotalProperties, t.TotalQuestions-t.Questions, name)
	}
	return fmt.Sprintf("This table scores the question set %s (%d questions, %d properties); its numbers are not comparable with other question sets'.",
		t.QuestionSet, t.Questions, t.Properties)
}

func (v *views) ranked(t *aggregate.RankedTable, all []*aggregate.RankedTable) *rankedView {
	tv := &rankedView{ID: t.ID, Heading: t.Title(), Ranking: rankingText(t), Differs: differsText(t, all), References: referencesText(t), CSV: rankedCSVPath(t),
		ShowSystem: t.Board == aggregate.BoardAdvanced || t.Board == aggregate.BoardToolUsage,
		ShowSource: t.Board != aggregate.BoardSingleLLM, Footnotes: []*paperCell{}, Figures: []*figureView{}, Parts: []linkView{},
		Shared: t.Shared, Twice: []twiceNote{}}
	if tv.Shared == nil {
		tv.Shared = []string{}
	}
	var protos, extra []string
	for _, c := range t.Columns {
		other := c.Protocol != t.HeadlineProtocol
		tv.Columns = append(tv.Columns, rankedColumnView{Title: c.Title(), Metric: string(c.Metric), Protocol: c.Protocol,
			Headline: !other && c.Metric == aggregate.TaskSuccessRate, Extra: other, Help: metricHelp(c)})
		if p := aggregate.ProtocolTitle(c.Protocol); len(protos) == 0 || protos[len(protos)-1] != p {
			protos = append(protos, p)
			if other {
				extra = append(extra, p)
			}
		}
	}
	tv.Extra = strings.Join(extra, ", ")
	tv.Caption = fmt.Sprintf("Benchmark version %s · question set %s (%s, %s) · scoring protocols: %s",
		t.BenchmarkVersion, t.QuestionSet, count(t.Questions, "question", "questions"), count(t.Properties, "property", "properties"), strings.Join(protos, ", "))
	tv.NCols = 3 + len(tv.Columns)
	for _, show := range []bool{tv.ShowSystem, tv.ShowSource} {
		if show {
			tv.NCols++
		}
	}
	for _, p := range t.Parts {
		tv.Parts = append(tv.Parts, linkView{Text: aggregate.ProtocolTitle(p.ScoringProtocol) + " (" + p.Board.Title() + ")", Href: "downloads/tables/" + p.ID + ".csv"})
		if f := v.figure[p.ID]; f != nil && t.Board != aggregate.BoardToolUsage { // the landing page links the boards instead
			tv.Figures = append(tv.Figures, newFigureView("figures/"+f.ID+".svg", "figures/"+f.ID+".csv", f.Title, f.Caption, plots.DisplayWidthPx))
		}
	}
	paperHere := t.Canonical() && t.BenchmarkVersion == results.BenchmarkVersion2025_05
	for _, r := range t.Rows {
		rv := v.rankedRow(r)
		for ci, c := range r.Cells {
			rv.Cells = append(rv.Cells, newCell(c))
			col := t.Columns[ci]
			if !paperHere || c == nil || col.Protocol != results.ProtocolMatToolsOriginal { // the paper's values sit in the as-published column
				continue
			}
			// The paper's values are of MatTools' own tool usage (paperonly).
			for _, p := range v.e.Paper {
				if !p.NoRawData() && r.Variant == "" && p.System == r.System && p.Model == r.Model.ID && p.RetrievalSource == r.RetrievalSource &&
					p.Benchmark == results.BenchmarkToolUsage && p.Metric == string(col.Metric) {
					tv.Footnotes = append(tv.Footnotes, newPaperCell(p, r.Model.DisplayName+" · "+aggregate.SystemTitle(r.System)+" · "+col.Title()))
					rv.Notes = append(rv.Notes, p.ID)
				}
			}
		}
		for _, why := range rv.Why {
			ref := fmt.Sprintf("%s-twice-%d", t.ID, len(tv.Twice)+1)
			rv.WhyRefs = append(rv.WhyRefs, ref)
			tv.Twice = append(tv.Twice, twiceNote{ID: ref, Text: why})
		}
		tv.Rows = append(tv.Rows, rv)
	}
	for _, r := range tv.Rows {
		tv.QBands = tv.QBands || r.QBand != ""
	}
	if tv.QBands {
		tv.NCols++
	}
	tv.QNote = qNote(tv.QBands)
	tv.AuditNote = v.auditRows(t, tv)
	if paperHere {
		v.appendPaperRows(t, tv)
	}
	return tv
}

// bandText writes a rank band as "2–5", or "3" when it is one rank.
func bandText(b stats.Band) string {
	if b.Best == b.Worst {
		return strconv.Itoa(b.Best)
	}
	return strconv.Itoa(b.Best) + "–" + strconv.Itoa(b.Worst)
}

// protocolPhrase names a protocol inside a sentence by its title in the
// registry: "as published" or "under mattools-v1-strict".
func protocolPhrase(p string) string {
	if aggregate.AsPublished(p) {
		return aggregate.ProtocolTitle(p)
	}
	return "under " + aggregate.ProtocolTitle(p)
}

func metricHelp(c aggregate.RankedColumn) string {
	if c.Metric == aggregate.FunctionRunnableRate {
		return RunnableNote
	}
	return "Properties passed out of the question set's properties, " + protocolPhrase(c.Protocol) + "."
}

func (v *views) rankedRow(r *aggregate.RankedRow) *rankedRowView {
	rv := &rankedRowView{RankSort: r.Rank, Model: r.Model.DisplayName, ModelID: r.Model.ID, ModelHref: v.modelHref(r.Model.ID),
		System: r.SystemLabel(), SystemID: string(r.System), SystemHref: systemHref(r.System),
		Source: aggregate.RetrievalTitle(&r.Configurations[0].Runs[0].File.Run), SourceN: r.RetrievalSource, Notes: []string{}, Why: r.Notes,
		Reference: r.Reference}
	switch {
	case r.Rank > 0:
		rv.Rank = strconv.Itoa(r.Rank)
		rv.Band, rv.Tied = bandText(r.Band), r.Band.Tied
		if r.QBand.Best > 0 {
			rv.QBand, rv.QTied, rv.QSort = bandText(r.QBand), r.QBand.Tied, r.QBand.Best
		}
	case r.Reference:
		rv.RankSort = 1 << 29 // after the ranked rows, before the unranked ones
	default:
		rv.RankSort = 1 << 30
	}
	if r.Variant != "" {
		rv.Model += " (" + r.Variant + ")"
	}
	if rv.QSort == 0 {
		rv.QSort = 1 << 30
	}
	if rv.Why == nil {
		rv.Why = []string{}
	}
	rv.WhyRefs = []string{}
	switch n := len(rv.Why) + 1; {
	case n == 2:
		rv.Appears = "twice"
	case n > 2:
		rv.Appears = fmt.Sprintf("%d times", n)
	}
	for _, b := range r.Badges {
		bv := newBadge(b)
		if folder, ok := strings.CutPrefix(r.Family, "submitted:"); ok {
			bv.Href = SubmissionsPath + "/#" + folder
		}
		rv.Badges = append(rv.Badges, bv)
	}
	for _, c := range r.Configurations {
		rv.Configs = append(rv.Configs, c.Key.String())
	}
	rv.Group = r.Model.Group
	rv.Weights = r.Model.Facts.Weights
	var bs []string
	for _, b := range r.Badges {
		bs = append(bs, string(b))
	}
	rv.Provenance = strings.Join(bs, "|")
	return rv
}

// appendPaperRows adds, after the ranked rows, a row for each configuration
// that has only paper values (no raw data: GraphRAG (LightRAG)), its values
// in the as-published columns with the mark, never ranked and never in a
// computed cell.
func (v *views) appendPaperRows(t *aggregate.RankedTable, tv *rankedView) {
	type key struct {
		model  string
		system results.System
		source int
	}
	rows := map[key]*rankedRowView{}
	var order []key
	for _, p := range v.e.Paper { // MatTools' paper: values of its own tool usage only
		if !p.NoRawData() || p.Benchmark != results.BenchmarkToolUsage || !boardHas(t.Board, p) {
			continue
		}
		k := key{p.Model, p.System, p.RetrievalSource}
		rv := rows[k]
		if rv == nil {
			m, ok := v.e.Catalog.Lookup(p.Model)
			if !ok {
				m = aggregate.Model{ID: p.Model, DisplayName: p.Model}
			}
			rv = &rankedRowView{Model: m.DisplayName, ModelID: p.Model, Weights: m.Facts.Weights, System: aggregate.SystemTitle(p.System), SystemID: string(p.System),
				SystemHref: systemHref(p.System), Source: aggregate.SourceTitle(p.RetrievalSource), SourceN: p.RetrievalSource,
				PaperOnly: true, RankSort: 1 << 30, Paper: make([]*paperCell, len(t.Columns)), Notes: []string{}, Configs: []string{},
				Badges: []badgeView{{Text: "paper only", Class: "badge-paper", Title: paperonly.Mark}}, Why: []string{}}
			if _, has := v.modelSlug[p.Model]; has {
				rv.ModelHref = v.modelHref(p.Model)
			}
			rows[k] = rv
			order = append(order, k)
		}
		for ci, col := range t.Columns {
			if col.Protocol == results.ProtocolMatToolsOriginal && string(col.Metric) == p.Metric {
				rv.Paper[ci] = newPaperCell(p, rv.Model+" · "+rv.System+" · "+col.Title())
			}
		}
	}
	for _, k := range order {
		tv.Rows = append(tv.Rows, rows[k])
	}
}

// RankedCSVHeader is the header of a ranked table's download: one line per
// row and column with a value.
var RankedCSVHeader = []string{"table", "rank", "model", "display_name", "system", "retrieval_source", "badge", "scoring_protocol", "metric",
	"n", "mean", "pop_std", "configuration", "reference", "ci95_lo", "ci95_hi", "rank_best", "rank_worst", "tied_with_leader",
	"questions", "ci95q_lo", "ci95q_hi", "rank_best_q", "rank_worst_q", "tied_with_leader_q"}

// RankedCSV writes a ranked table as CSV: per row (in rank order) and per
// column with a value, its mean and population std (percent, 4 decimals),
// n, the configuration key, whether the row is a reference row (rank 0;
// "true" or "false"), the column's 95 % t-interval (percent, 4 decimals)
// (empty for a cell of one round, which has none) and the row's rank band by
// the headline column (0 0 false when unranked); then, computed by the
// current code and never frozen in a release's numbers manifest (whose
// fields these names are not), the number of questions, the 95 % interval
// over questions and rounds (aggregate.Configuration.QIntervals; empty, with
// questions 0, when none exists) and the rank band from paired differences
// (aggregate.RankedRow.QBand; 0 0 false when none).
//
// The benchmark audit's unranked rows of the table (aggregate.AuditRows of
// audit: reference solution and trivial baselines, one run each) follow, with
// rank 0, n 1, population std 0, no interval, and as configuration
// "audit:<system>/<question set>", so that a release freezes their numbers
// too.
func RankedCSV(t *aggregate.RankedTable, audit ...*results.File) []byte {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write(RankedCSVHeader)
	f4 := func(x float64) string { return strconv.FormatFloat(x, 'f', 4, 64) }
	for _, r := range t.Rows {
		for i, c := range r.Cells {
			if c == nil {
				continue
			}
			k := c.Configuration.Key
			ci := f4
			if c.Interval.N < 2 {
				ci = func(float64) string { return "" } // one round: no interval
			}
			qn, qlo, qhi := 0, "", ""
			if c.QInterval.N > 1 {
				qn, qlo, qhi = c.QInterval.N, f4(c.QInterval.Lo), f4(c.QInterval.Hi)
			}
			w.Write([]string{t.ID, strconv.Itoa(r.Rank), csvSafe(k.Model), csvSafe(r.Model.DisplayName), string(k.System), strconv.Itoa(k.RetrievalSource),
				string(aggregate.BadgeOf(k.Provenance)), t.Columns[i].Protocol, string(t.Columns[i].Metric),
				strconv.Itoa(c.Summary.N), f4(c.Summary.Mean), f4(c.Summary.PopStd), csvSafe(k.String()), strconv.FormatBool(r.Reference),
				ci(c.Interval.Lo), ci(c.Interval.Hi), strconv.Itoa(r.Band.Best), strconv.Itoa(r.Band.Worst), strconv.FormatBool(r.Band.Tied),
				strconv.Itoa(qn), qlo, qhi, strconv.Itoa(r.QBand.Best), strconv.Itoa(r.QBand.Worst), strconv.FormatBool(r.QBand.Tied)})
		}
	}
	for _, r := range aggregate.AuditRows(t, audit) {
		for i, v := range r.Cells {
			if v == nil {
				continue
			}
			w.Write([]string{t.ID, "0", "none", auditLabels[r.System], string(r.System), "0", auditBadges[r.System].Text, t.Columns[i].Protocol,
				string(t.Columns[i].Metric), "1", f4(v.Percent), f4(0), "audit:" + string(r.System) + "/" + t.QuestionSet, "false", "", "", "0", "0", "false",
				"0", "", "", "0", "0", "false"})
		}
	}
	w.Flush()
	return buf.Bytes()
}
