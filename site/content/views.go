package content

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/results/stats"
	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
	"github.com/mattools-leaderboard/leaderboard/site/apicheck"
	"github.com/mattools-leaderboard/leaderboard/site/paperonly"
	"github.com/mattools-leaderboard/leaderboard/site/plots"
)

// StdConvention is stated on every page that shows a "±".
const StdConvention = "± is the population standard deviation (divisor n) over rounds, as in the MatTools paper's error bars. " +
	"A value's tooltip gives n (the number of rounds averaged), its 95 % Student t interval and each round; a ranked table's checkbox shows n and " +
	"the interval under each value, and the CSV downloads have them too."

type views struct {
	e *Edition
	// newestCorrected is, per benchmark version corrected, the newest
	// corrected version of it the edition has (supersededBy).
	newestCorrected map[string]string
	lb              *aggregate.Leaderboard
	modelSlug       map[string]string
	figure          map[string]*plots.Figure // table id → figure
	// referenceIn lists, per configuration shown as a reference row
	// (aggregate.Row.Reference), the boards whose tables show it so.
	referenceIn map[*aggregate.Configuration][]aggregate.Board
	// apiStore is the committed hallucinated-API store (set by writeFailures).
	apiStore *apicheck.Store
	// groups and groupOf cache identityGroups; pageOf caches questionPages.
	groups  []*identityGroup
	groupOf map[*aggregate.Configuration]*identityGroup
	pageOf  map[string]map[*identityGroup]int
	// landing (set with pageOf): per question, the corrected-version
	// groups whose anchors are on another group's section, to that group.
	landing map[string]map[*identityGroup]*identityGroup
	// systemMatrices are the systems' full-matrix CSV downloads (Text: the
	// system), set by writeSystems for writeDownloads.
	systemMatrices []linkView
}

func newViews(e *Edition) *views {
	v := &views{e: e, lb: e.Leaderboard, modelSlug: map[string]string{}, figure: map[string]*plots.Figure{},
		referenceIn: map[*aggregate.Configuration][]aggregate.Board{}}
	for _, c := range v.lb.Configurations {
		v.modelSlug[c.Key.Model] = aggregate.Slug(c.Key.Model)
	}
	for _, b := range aggregate.Boards {
		for _, t := range v.lb.Tables[b] {
			for _, r := range t.Rows {
				for _, c := range r.Configurations {
					if r.Reference && !slices.Contains(v.referenceIn[c], b) {
						v.referenceIn[c] = append(v.referenceIn[c], b)
					}
				}
			}
		}
	}
	for _, f := range e.Figures {
		v.figure[f.TableID] = f
	}
	return v
}

func confHref(c *aggregate.Configuration) string { return href("configurations", c.Slug) }
func (v *views) modelHref(id string) string      { return href("models", v.modelSlug[id]) }
func systemHref(s results.System) string         { return href("systems", string(s)) }
func questionHref(id string) string              { return href("questions", id) }

// fmtPct formats a percentage as the paper does: 2 decimals.
func fmtPct(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }

// cellView is one computed cell: mean ± population std and n over the
// aggregated rounds; the per-round values are in Rounds and on the
// configuration page (Href).
type cellView struct {
	Mean   string `json:"mean"`
	Std    string `json:"std"` // "" when n = 1 (no ± shown)
	N      int    `json:"n"`
	Sort   string `json:"sort"`
	Rounds string `json:"rounds"`
	Href   string `json:"href"`
	// CI is the 95 % t-interval of the mean over rounds, "[lo, hi]"
	// (percent, 2 decimals); "" when n = 1.
	CI string `json:"ci"`
	// QCI is the 95 % interval over questions and rounds (clustered by
	// question; aggregate.Configuration.QIntervals), "[lo, hi]", and QNone
	// why none exists ("" when QCI is set).
	QCI   string `json:"qci"`
	QNone string `json:"qnone"`
	// QUnit names the clusters of QCI: "questions" (tool usage) or
	// "items" (QA: a question, or a source item of several questions of
	// MatTools' published CSVs); QOver says what QCI is over, for its
	// tooltip.
	QUnit string `json:"qunit"`
	QOver string `json:"qover"`
	// OfRef is a task success rate as a share of the reference solution's
	// under the same protocol on the same question set, "69.51 % of what a
	// correct solution reaches" (auditRows); "" without an audit run.
	OfRef string `json:"of_ref,omitempty"`
}

func newCell(c *aggregate.Cell) *cellView {
	if c == nil {
		return nil
	}
	cv := &cellView{Mean: fmtPct(c.Summary.Mean), N: c.Summary.N, Sort: strconv.FormatFloat(c.Summary.Mean, 'f', 6, 64),
		Href: confHref(c.Configuration)}
	if c.Summary.N > 1 {
		cv.Std = fmtPct(c.Summary.PopStd)
		cv.CI = "[" + fmtPct(c.Interval.Lo) + ", " + fmtPct(c.Interval.Hi) + "]"
	}
	cv.QUnit, cv.QOver = "questions", "questions and rounds (clustered by question)"
	if c.Configuration.Key.Benchmark.Kind() == results.KindMultipleChoice {
		cv.QUnit, cv.QOver = "items", "items and rounds (clustered by item)"
	}
	if c.QInterval.N > 1 {
		cv.QCI = "[" + fmtPct(c.QInterval.Lo) + ", " + fmtPct(c.QInterval.Hi) + "]"
	} else {
		cv.QNone = c.NoQInterval
		if cv.QNone == "" {
			cv.QNone = "fewer than two " + cv.QUnit + ": no interval over " + cv.QUnit
		}
	}
	var parts []string
	runs := c.Configuration.RunsWith(aggregate.StatusAggregated)
	for i, r := range c.Rounds {
		parts = append(parts, fmt.Sprintf("round %d: %s (%d/%d)", runs[i].Round(), fmtPct(r.Percent), r.Count, r.Total))
	}
	cv.Rounds = strings.Join(parts, "; ")
	return cv
}

// paperCell is a value reported only in the paper, shown with the mark.
type paperCell struct {
	ID       string `json:"id"`
	Text     string `json:"text"`
	ErrorBar string `json:"error_bar"`
	Mark     string `json:"mark"`
	Note     string `json:"note"`
	Citation string `json:"citation"`
	Given    string `json:"given"` // what the published files give
	Label    string `json:"label"` // what the value is of, e.g. "GPT-4o · Task success rate"
}

// paperBadge is the badge of a row of paper-only values (no raw data).
var paperBadge = badgeView{Text: "paper only", Class: "badge-paper", Title: paperonly.Mark}

func newPaperCell(p paperonly.Value, label string) *paperCell {
	return &paperCell{ID: p.ID, Text: p.Text, ErrorBar: p.ErrorBar, Mark: paperonly.Mark, Note: p.Note, Citation: p.Citation,
		Given: p.RawFilesGive, Label: label}
}

type rowView struct {
	Model      string       `json:"model"`
	ModelID    string       `json:"model_id"`
	ModelHref  string       `json:"model_href"`
	Group      string       `json:"group"`
	Weights    string       `json:"weights"` // the model's weights: open, closed or "" (results.ModelFacts)
	System     string       `json:"system"`
	SystemHref string       `json:"system_href"`
	Source     string       `json:"source"`
	SourceN    int          `json:"source_n"`
	Configs    []string     `json:"configs"` // configuration keys behind the row
	Cells      []*cellView  `json:"cells"`
	Paper      []*paperCell `json:"paper"` // paper-only row: one per column (nil where none)
	PaperOnly  bool         `json:"paper_only"`
	Notes      []string     `json:"notes"` // ids of paper footnotes about this row
	// SystemID and Badge are the values the table filters match
	// (static/assets/filters.js): the system id and the provenance badge.
	SystemID string `json:"system_id"`
	Badge    string `json:"badge"`
	// BadgeView is the provenance as the row shows it: its badge, never
	// the raw provenance ("rescored:imported"), which only the CSV has.
	BadgeView badgeView `json:"badge_view"`
	systemID  results.System
}

type groupView struct {
	Title string     `json:"title"`
	Rows  []*rowView `json:"rows"`
}

// figureView is a figure as layouts/_partials/figure.html shows it: its SVG
// and CSV (paths relative to the page's root or, for an interval figure,
// its FigRoot), its title (the img's alt text) and caption, the CSS width
// its text sizes are chosen for (Width, one of the plots package's display
// widths) and the narrowest it is shown at (MinWidth,
// plots.MinDisplayWidthPx: its smallest text plots.ReadableTextPx tall);
// a narrower screen scrolls it sideways.
type figureView struct {
	SVG      string `json:"svg"`
	CSV      string `json:"csv"`
	Title    string `json:"title"`
	Caption  string `json:"caption"`
	Width    int    `json:"width"`
	MinWidth int    `json:"min_width"`
}

// newFigureView is the view of the figure whose files are svg and csv,
// designed to be shown widthPx CSS pixels wide.
func newFigureView(svg, csv, title, caption string, widthPx int) *figureView {
	return &figureView{SVG: svg, CSV: csv, Title: title, Caption: caption, Width: widthPx, MinWidth: plots.MinDisplayWidthPx(widthPx)}
}

type tableView struct {
	ID               string       `json:"id"`
	Board            string       `json:"board"`
	Heading          string       `json:"heading"`
	Caption          string       `json:"caption"`
	BenchmarkVersion string       `json:"benchmark_version"`
	Protocol         string       `json:"protocol"`
	QuestionSet      string       `json:"question_set"`
	Columns          []string     `json:"columns"`
	NCols            int          `json:"ncols"` // all columns of the HTML table
	ShowSystem       bool         `json:"show_system"`
	ShowSource       bool         `json:"show_source"`
	ShowGroup        bool         `json:"show_group"`
	Groups           []groupView  `json:"groups"`
	CSV              string       `json:"csv"`
	Figure           *figureView  `json:"figure"`
	Footnotes        []*paperCell `json:"footnotes"` // paper labels that differ from the computed cells
	// Baselines are a QA table's unranked baseline rows and Formats its
	// configurations' format diagnostics (qavalidity.go); empty when no run
	// of the table records them.
	Baselines    []baselineView `json:"baselines,omitempty"`
	BaselinesCSV string         `json:"baselines_csv,omitempty"` // their download (BaselinesCSV)
	Formats      []formatView   `json:"formats,omitempty"`
	// QAVariant says what a variant table is (qaVariantCaption) and QANote
	// why a QA table has no baselines (qaNoBaselinesNote); each links to
	// the methodology's QA validity section. QANote is shown on the
	// preview, or on a release whose QA board has a table with baselines,
	// so that the releases cut before stay as they were.
	QAVariant string `json:"qa_variant,omitempty"`
	QANote    string `json:"qa_note,omitempty"`
}

func questionSetText(t *aggregate.Table) string {
	if t.Board == aggregate.BoardQA {
		// The code and doc sets differ in size: name each.
		var parts []string
		seen := map[results.Benchmark]bool{}
		for _, r := range t.Rows {
			for _, c := range r.Configurations {
				if !seen[c.Key.Benchmark] {
					seen[c.Key.Benchmark] = true
					parts = append(parts, strings.TrimPrefix(string(c.Key.Benchmark), "qa-")+" "+count(c.QuestionSet().Questions, "question", "questions"))
				}
			}
		}
		slices.Sort(parts)
		return fmt.Sprintf("%s (%s)", t.QuestionSet, strings.Join(parts, ", "))
	}
	name, size, _ := strings.Cut(t.QuestionSet, "/")
	if len(t.Rows) > 0 {
		qs := t.Rows[0].Configurations[0].QuestionSet()
		n, _ := strconv.Atoi(size)
		return fmt.Sprintf("%s (%s %s, %s)", name, size, noun(n, "question", "questions"), count(qs.Properties, "property", "properties"))
	}
	return name
}

// paperLabel names what a paper-only value is of: system, model display
// name, retrieval source, metric.
func paperLabel(cat *aggregate.Catalog, p paperonly.Value) string {
	name := p.Model
	if m, ok := cat.Lookup(p.Model); ok {
		name = m.DisplayName
	}
	l := aggregate.SystemTitle(p.System) + " · " + name
	if p.Benchmark.Kind() == results.KindMultipleChoice {
		l = p.Benchmark.Title() + " · " + name
	}
	if p.RetrievalSource > 0 {
		l += fmt.Sprintf(" · source %d", p.RetrievalSource)
	}
	return l + " · " + aggregate.Metric(p.Metric).Title()
}

// tableHasQInterval reports whether some cell of t has an interval over
// questions (or items) and rounds.
func tableHasQInterval(t *aggregate.Table) bool {
	for _, r := range t.Rows {
		for _, c := range r.Cells {
			if c != nil && c.QInterval.N > 1 {
				return true
			}
		}
	}
	return false
}

func (v *views) table(t *aggregate.Table) *tableView {
	tv := &tableView{ID: t.ID, Board: string(t.Board), BenchmarkVersion: t.BenchmarkVersion, Protocol: t.ScoringProtocol,
		QuestionSet: questionSetText(t), CSV: "downloads/tables/" + t.ID + ".csv",
		ShowSystem: t.Board == aggregate.BoardAdvanced, ShowSource: t.Board == aggregate.BoardLLMRAG || t.Board == aggregate.BoardAdvanced,
		ShowGroup: t.Board == aggregate.BoardQA}
	tv.Caption = fmt.Sprintf("Benchmark version %s · scoring protocol %s · question set %s", t.BenchmarkVersion, t.ScoringProtocol, tv.QuestionSet)
	if t.Board == aggregate.BoardQA && tableHasQInterval(t) {
		tv.Caption += " · each value's tooltip and the CSV give its 95 % interval over items and rounds, computed by the current code: the items " +
			"(a question, or in MatTools' published CSVs a source item of several questions) as clusters, each averaged over its rounds " +
			"(methodology: uncertainty)"
	}
	tv.Heading = "Scoring protocol " + t.ScoringProtocol
	if t.QuestionSet != results.QuestionSetAll && !strings.HasPrefix(t.QuestionSet, results.QuestionSetAll+"/") {
		tv.Heading += ", question set " + t.QuestionSet
	}
	for _, c := range t.Columns {
		tv.Columns = append(tv.Columns, c.Title())
	}
	tv.NCols = 2 + len(tv.Columns)
	for _, show := range []bool{tv.ShowGroup, tv.ShowSystem, tv.ShowSource} {
		if show {
			tv.NCols++
		}
	}
	if f := v.figure[t.ID]; f != nil {
		tv.Figure = newFigureView("figures/"+f.ID+".svg", "figures/"+f.ID+".csv", f.Title, f.Caption, plots.DisplayWidthPx)
	}
	paperHere := plots.PaperTable(t)
	for _, g := range t.Groups() {
		gv := groupView{Title: ""}
		if t.Board == aggregate.BoardQA {
			gv.Title = aggregate.GroupTitle(g.Group)
		}
		for _, r := range g.Rows {
			rv := v.row(r)
			for ci, c := range r.Cells {
				rv.Cells = append(rv.Cells, newCell(c))
				if paperHere && c != nil {
					for _, p := range v.e.Paper {
						if !p.NoRawData() && matches(p, r, t.Columns[ci]) {
							fn := newPaperCell(p, r.Model.DisplayName+" · "+t.Columns[ci].Title())
							tv.Footnotes = append(tv.Footnotes, fn)
							rv.Notes = append(rv.Notes, p.ID)
						}
					}
				}
			}
			gv.Rows = append(gv.Rows, rv)
		}
		tv.Groups = append(tv.Groups, gv)
	}
	if paperHere {
		v.insertPaperRows(t, tv)
	}
	if t.Board == aggregate.BoardQA {
		recs, warnings := qaTableSets(t)
		v.e.Warnings = append(v.e.Warnings, warnings...)
		if tv.Baselines = qaBaselines(t, recs); tv.Baselines != nil {
			tv.BaselinesCSV = "downloads/tables/" + t.ID + "-baselines.csv"
		} else if !v.e.Frozen || v.qaBoardHasBaselines() {
			tv.QANote = qaNoBaselinesNote(t)
		}
		tv.QAVariant = qaVariantCaption(recs)
		tv.Formats = v.qaFormats(tableConfigurations(t))
	}
	return tv
}

func (v *views) row(r *aggregate.Row) *rowView {
	rv := &rowView{Model: r.Model.DisplayName, ModelID: r.Model.ID, ModelHref: v.modelHref(r.Model.ID), Group: r.Model.Group, Weights: r.Model.Facts.Weights,
		System: r.SystemLabel(), SystemHref: systemHref(r.System), Source: aggregate.SourceTitle(r.RetrievalSource),
		SourceN: r.RetrievalSource, BadgeView: newBadge(aggregate.BadgeOf(r.Provenance)), Notes: []string{}, systemID: r.System,
		SystemID: string(r.System), Badge: string(aggregate.BadgeOf(r.Provenance))}
	for _, c := range r.Configurations {
		rv.Configs = append(rv.Configs, c.Key.String())
	}
	if v := r.Configurations[0].Key.Variant; v != "" {
		rv.Model += " (" + v + ")"
	}
	return rv
}

func matches(p paperonly.Value, r *aggregate.Row, col aggregate.Column) bool {
	return p.System == r.System && p.Model == r.Model.ID && p.RetrievalSource == r.RetrievalSource &&
		p.Benchmark == col.Benchmark && string(col.Metric) == p.Metric
}

// insertPaperRows adds rows for paper-only values with no raw data (ChemLLM
// in Table 1, GraphRAG (LightRAG) in Figure 6) to a paper-comparable table:
// their cells are paper cells with the mark, never computed cells.
func (v *views) insertPaperRows(t *aggregate.Table, tv *tableView) {
	cat := v.e.Catalog
	type key struct {
		model  string
		system results.System
		source int
	}
	rows := map[key]*rowView{}
	var order []key
	for _, p := range v.e.Paper {
		if !p.NoRawData() || !boardHas(t.Board, p) {
			continue
		}
		k := key{p.Model, p.System, p.RetrievalSource}
		rv := rows[k]
		if rv == nil {
			m, ok := cat.Lookup(p.Model)
			if !ok {
				m = aggregate.Model{ID: p.Model, DisplayName: p.Model}
			}
			rv = &rowView{Model: m.DisplayName, ModelID: p.Model, Group: m.Group, Weights: m.Facts.Weights, System: aggregate.SystemTitle(p.System),
				SystemHref: systemHref(p.System), Source: aggregate.SourceTitle(p.RetrievalSource), SourceN: p.RetrievalSource,
				BadgeView: paperBadge, Badge: paperBadge.Text, PaperOnly: true, Paper: make([]*paperCell, len(t.Columns)), Notes: []string{}, Configs: []string{}, systemID: p.System}
			if _, has := v.modelSlug[p.Model]; has {
				rv.ModelHref = v.modelHref(p.Model)
			}
			rows[k] = rv
			order = append(order, k)
		}
		for ci, col := range t.Columns {
			if col.Benchmark == p.Benchmark && string(col.Metric) == p.Metric {
				rv.Paper[ci] = newPaperCell(p, rv.Model+" · "+col.Title())
			}
		}
	}
	for _, k := range order {
		rv := rows[k]
		m, _ := cat.Lookup(k.model)
		// Find the group and the position by Table 1 order (QA) or system order (tool usage).
		gi := len(tv.Groups) - 1
		if t.Board == aggregate.BoardQA {
			gi = -1
			for i, g := range tv.Groups {
				if g.Title == aggregate.GroupTitle(m.Group) {
					gi = i
				}
			}
			if gi < 0 {
				tv.Groups = append(tv.Groups, groupView{Title: aggregate.GroupTitle(m.Group)})
				gi = len(tv.Groups) - 1
			}
		}
		g := &tv.Groups[gi]
		pos := len(g.Rows)
		for i, r := range g.Rows {
			if t.Board == aggregate.BoardQA {
				if om, ok := cat.Lookup(r.ModelID); ok && om.QAOrder > m.QAOrder {
					pos = i
					break
				}
			} else if systemIndex(r.systemID) > systemIndex(k.system) {
				pos = i
				break
			}
		}
		g.Rows = slices.Insert(g.Rows, pos, rv)
	}
}

func boardHas(b aggregate.Board, p paperonly.Value) bool {
	switch b {
	case aggregate.BoardQA:
		return p.Benchmark.Kind() == results.KindMultipleChoice
	case aggregate.BoardToolUsage: // the paper's tool-usage values are of MatTools' own tool usage
		return p.Benchmark == results.BenchmarkToolUsage
	}
	return p.Benchmark == results.BenchmarkToolUsage && aggregate.BoardOfSystem(p.System) == b
}

func systemIndex(s results.System) int {
	if i := slices.Index(results.Systems, s); i >= 0 {
		return i
	}
	return len(results.Systems)
}

// runView is one run as listed on pages.
type runView struct {
	ID          string               `json:"id"`
	Round       int                  `json:"round"`
	Status      string               `json:"status"`
	StatusText  string               `json:"status_text"`
	Values      []string             `json:"values"` // per metric, "45.58 (23/49)"
	Download    string               `json:"download"`
	Badge       badgeView            `json:"badge"` // the configuration's provenance badge
	Citation    string               `json:"citation"`
	DerivedFrom string               `json:"derived_from"`
	Sources     []results.SourceFile `json:"sources"`
	Generator   string               `json:"generator"`
	Generation  string               `json:"generation"`
	Sandbox     string               `json:"sandbox"`
	Libraries   string               `json:"libraries"`
	Usage       string               `json:"usage"`
	Warnings    []string             `json:"warnings"`
}

func statusText(s aggregate.RunStatus) string {
	switch s {
	case aggregate.StatusAggregated:
		return "scored; averaged"
	case aggregate.StatusUnscored:
		return "unscored (code only): not averaged"
	case aggregate.StatusOutsideRounds:
		return "outside rounds (round 0): shown, not averaged"
	}
	return string(s)
}

func runValues(c *aggregate.Configuration, r *aggregate.Run) []string {
	var out []string
	for _, m := range []aggregate.Metric{aggregate.FunctionRunnableRate, aggregate.TaskSuccessRate, aggregate.Accuracy, aggregate.AccuracyLenient} {
		if val, ok := r.Values[m]; ok {
			out = append(out, fmt.Sprintf("%s: %s (%d/%d)", m.Title(), fmtPct(val.Percent), val.Count, val.Total))
		}
	}
	if len(out) == 0 {
		out = append(out, "no scores")
	}
	return out
}

func (v *views) run(c *aggregate.Configuration, r *aggregate.Run) runView {
	run := &r.File.Run
	rv := runView{ID: r.ID(), Round: r.Round(), Status: string(r.Status), StatusText: statusText(r.Status),
		Values: runValues(c, r), Badge: newBadge(aggregate.BadgeOf(c.Key.Provenance)), Citation: run.Provenance.Citation,
		DerivedFrom: run.Provenance.DerivedFrom, Sources: run.Provenance.Source, Warnings: run.Warnings,
		Generator: strings.TrimSpace(run.Environment.Generator + " " + run.Environment.GeneratorVersion)}
	if rv.Sources == nil {
		rv.Sources = []results.SourceFile{}
	}
	if rv.Warnings == nil {
		rv.Warnings = []string{}
	}
	if _, ok := v.e.ResultsPaths[r.ID()]; ok {
		rv.Download = "downloads/runs/" + r.ID() + results.Extension
	}
	g := run.Generation
	var gp []string
	if g.Temperature != nil {
		gp = append(gp, "temperature "+strconv.FormatFloat(*g.Temperature, 'g', -1, 64))
	}
	if g.TopP != nil {
		gp = append(gp, "top_p "+strconv.FormatFloat(*g.TopP, 'g', -1, 64))
	}
	if g.MaxTokens != nil {
		gp = append(gp, "max_tokens "+strconv.Itoa(*g.MaxTokens))
	}
	if g.Seed != nil {
		gp = append(gp, "seed "+strconv.FormatInt(*g.Seed, 10))
	}
	for _, k := range sortedKeys(g.Extra) {
		gp = append(gp, k+" "+g.Extra[k])
	}
	if g.Source != "" {
		gp = append(gp, "(from "+g.Source+")")
	}
	rv.Generation = strings.Join(gp, ", ")
	if s := run.Environment.Sandbox; s != nil {
		rv.Sandbox = strings.TrimSpace(s.Backend + " " + s.Version)
		// The local backend's privilege mode: only a rootless run records it
		// (docs/sandbox.md, "Root and rootless").
		if strings.HasPrefix(s.Limits["privilege"], "rootless") {
			rv.Sandbox += ", rootless"
		}
		if s.TimeoutSeconds > 0 {
			rv.Sandbox += fmt.Sprintf(", timeout %gs", s.TimeoutSeconds)
		}
	}
	var libs []string
	for _, k := range sortedKeys(run.Environment.Libraries) {
		libs = append(libs, k+" "+run.Environment.Libraries[k])
	}
	rv.Libraries = strings.Join(libs, ", ")
	if u := run.Usage; u != nil {
		rv.Usage = fmt.Sprintf("%s, %d prompt + %s", count(u.Calls, "call", "calls"), u.PromptTokens, count(u.CompletionTokens, "completion token", "completion tokens"))
		if u.CostUSD != nil {
			rv.Usage += fmt.Sprintf(", $%.2f", *u.CostUSD)
		}
	}
	return rv
}

// configView summarises a configuration for lists.
type configView struct {
	Key         string   `json:"key"`
	Href        string   `json:"href"`
	Model       string   `json:"model"`
	ModelHref   string   `json:"model_href"`
	Benchmark   string   `json:"benchmark"`
	System      string   `json:"system"`
	SystemHref  string   `json:"system_href"`
	Source      string   `json:"source"`
	Protocol    string   `json:"protocol"`
	QuestionSet string   `json:"question_set"`
	Version     string   `json:"version"`
	Board       string   `json:"board"`
	BoardHref   string   `json:"board_href"`
	Summary     []string `json:"summary"` // per metric "Function runnable rate: 45.58 ± 6.73 (n = 3)"
	Runs        int      `json:"runs"`
	Status      string   `json:"status"`
	// The values the table filters match (static/assets/filters.js).
	ModelID  string `json:"model_id"`
	Group    string `json:"group"`
	Weights  string `json:"weights"`
	SystemID string `json:"system_id"`
	SourceN  int    `json:"source_n"`
	Badge    string `json:"badge"`
	// BadgeView is the provenance as readers see it (its badge); the raw
	// provenance is in Key only.
	BadgeView badgeView `json:"badge_view"`
}

func summaryText(m aggregate.Metric, s stats.Summary) string {
	if s.N > 1 {
		return fmt.Sprintf("%s: %s ± %s (n = %d)", m.Title(), fmtPct(s.Mean), fmtPct(s.PopStd), s.N)
	}
	return fmt.Sprintf("%s: %s (n = %d)", m.Title(), fmtPct(s.Mean), s.N)
}

func (v *views) config(c *aggregate.Configuration) configView {
	cv := configView{Key: c.Key.String(), Href: confHref(c), Model: c.Model.DisplayName, ModelHref: v.modelHref(c.Key.Model),
		Benchmark: string(c.Key.Benchmark), System: c.SystemLabel(), SystemHref: systemHref(c.Key.System),
		Source: aggregate.RetrievalTitle(&c.Runs[0].File.Run), Protocol: c.Key.ScoringProtocol, QuestionSet: c.Key.QuestionSet,
		BadgeView: newBadge(aggregate.BadgeOf(c.Key.Provenance)), Version: c.Key.BenchmarkVersion, Board: c.Board.Title(), BoardHref: href(string(c.Board)),
		Runs: len(c.Runs), Summary: []string{}, ModelID: c.Key.Model, Group: c.Model.Group, Weights: c.Model.Facts.Weights, SystemID: string(c.Key.System),
		SourceN: c.Key.RetrievalSource, Badge: string(aggregate.BadgeOf(c.Key.Provenance))}
	for _, m := range c.Metrics() {
		s := summaryText(m, c.Summaries[m])
		if iv := c.Intervals[m]; iv.N > 1 {
			s += fmt.Sprintf("; 95 %% interval of the mean over rounds (Student t) [%s, %s]", fmtPct(iv.Lo), fmtPct(iv.Hi))
		}
		if iv := c.QIntervals[m]; iv.N > 1 && c.Key.Benchmark.Kind() == results.KindMultipleChoice {
			s += fmt.Sprintf("; 95 %% interval over items and rounds (%d items of %d questions, clustered by item) [%s, %s]", iv.N, c.Rounds[m][0].Total, fmtPct(iv.Lo), fmtPct(iv.Hi))
		} else if iv.N > 1 {
			s += fmt.Sprintf("; 95 %% interval over questions and rounds (%d questions, clustered by question) [%s, %s]", iv.N, fmtPct(iv.Lo), fmtPct(iv.Hi))
		} else if why := c.NoQInterval[m]; why != "" {
			s += "; " + why
		}
		cv.Summary = append(cv.Summary, s)
	}
	switch {
	case len(c.RunsWith(aggregate.StatusAggregated)) > 0:
		cv.Status = "scored"
	case len(c.RunsWith(aggregate.StatusUnscored)) > 0:
		cv.Status = "unscored"
	default:
		cv.Status = "outside rounds"
	}
	return cv
}
