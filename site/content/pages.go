package content

import (
	"cmp"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
	"github.com/mattools-leaderboard/leaderboard/site/paperonly"
	"github.com/mattools-leaderboard/leaderboard/site/plots"
)

func sortStrings(s []string) { slices.Sort(s) }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

var boardIntro = map[aggregate.Board]string{
	aggregate.BoardQA: "Accuracy on MatTools' two multiple-choice QA sets about pymatgen (code and documentation), " +
		"grouped as in the paper's Table 1. A cell with n = 1 comes from a single run and shows no ±.",
	aggregate.BoardSingleLLM: "Function runnable rate (questions whose generated function ran and returned a dict, even one of all None values, out of the question set) " +
		"and task success rate (properties passed out of all properties of the question set) for one LLM call per question.",
	aggregate.BoardLLMRAG: "The same metrics for retrieval-augmented generation, per model and retrieval source " +
		"(1 pymatgen code, 2 official docs, 3 LLM-written docs chunked, 4 LLM-written docs per object).",
	aggregate.BoardAdvanced: "Agentic RAG, GraphRAG (LightRAG) and the self-reflection LLM-doc RAG loop. " +
		"Beside each model's advanced systems, its LLM-RAG configuration on retrieval source 4 (LLM-written docs per object, the source agentic RAG " +
		"and the self-reflection loop retrieve from by default) is repeated from the LLM-RAG table as an unranked reference row, " +
		"labelled “LLM-RAG, source 4 (reference)”, with the same benchmark version, question set and scoring protocol. " +
		"What differs from it is the system around the model: LLM-RAG retrieves the top 5 chunks for the question text once and calls the model once; " +
		"agentic RAG extracts keywords, writes queries, reranks the retrieved chunks and looks up the pymatgen objects it names before its final call; " +
		"the self-reflection loop executes the generated code and, until it returns a complete dict, lets a critic steer another retrieval and generation (up to 5 iterations). " +
		"A self-reflection row names its variant when the run records one: “as published” is the loop as MatTools' code runs it (the critique changes only the next retrieval query), " +
		"“feedback” the loop as the paper describes it (the generator also sees its previous answer, the runtime output and the critique).",
}

func (w *writer) writeBoards(v *views) {
	for _, f := range w.e.Figures {
		svg, err := f.SVG()
		if err != nil {
			w.err = err
			return
		}
		w.static("figures/"+f.ID+".svg", svg)
		w.static("figures/"+f.ID+".csv", f.CSV())
	}
	for _, b := range aggregate.Boards {
		var tables []*tableView
		for _, t := range v.lb.Tables[b] {
			if b == aggregate.BoardQA {
				tables = append(tables, v.table(t))
			}
			w.static("downloads/tables/"+t.ID+".csv", TableCSV(t))
			if b := BaselinesCSV(t); b != nil {
				w.static("downloads/tables/"+t.ID+"-baselines.csv", b)
			}
		}
		if tables == nil {
			tables = []*tableView{}
		}
		ranked := []*rankedView{}
		for _, t := range v.lb.Ranked[b] {
			ranked = append(ranked, w.boundRanked(v.ranked(t, v.lb.Ranked[b]), linkView{Text: "Back to " + b.Title(), Href: href(string(b))}))
			w.static(rankedCSVPath(t), RankedCSV(t, w.e.Audit...))
		}
		type other struct {
			configView
			Runs []runView `json:"run_list"`
		}
		others := []other{}
		for _, c := range v.lb.NotAggregated[b] {
			o := other{configView: v.config(c)}
			for _, r := range c.Runs {
				o.Runs = append(o.Runs, v.run(c, r))
			}
			others = append(others, o)
		}
		var paper []*paperCell
		for _, p := range w.e.Paper {
			if boardHas(b, p) {
				paper = append(paper, newPaperCell(p, paperLabel(w.e.Catalog, p)))
			}
		}
		others, othersCut := boundList(w, others, ListRows, string(b)+"/not-averaged", b.Title()+": runs not in the tables",
			fmt.Sprintf("Every configuration of this leaderboard whose runs are not averaged (unscored, or outside any round), %d to a page.", ListRows),
			"otherruns.html", "the first", "configurations", "", linkView{Text: "Back to " + b.Title(), Href: href(string(b))},
			func(rows []other) map[string]any { return map[string]any{"items": rows} })
		data := map[string]any{
			"board": string(b), "intro": boardIntro[b], "tables": tables, "ranked": ranked, "others": others, "std": StdConvention,
			"runnable_note": RunnableNote,
			"paper":         paper, "paper_mark": paperonly.Mark,
		}
		if othersCut != nil {
			data["others_cut"] = othersCut
		}
		w.page(string(b), b.Title(), "board", data)
	}
}

// outcomeView is one run's outcome on one question.
type outcomeView struct {
	Run     string `json:"run"`
	Round   int    `json:"round"`
	Verdict string `json:"verdict"`
	Symbol  string `json:"symbol"`
	// Label names the verdict for readers (verdictLabel): the recorded
	// verdict, except "wrong values" for a partial one with no property
	// passed, as the failures page names it.
	Label  string `json:"label"`
	Text   string `json:"text"`
	Passed string `json:"passed"` // "2/4", or "" when unknown
	// PassedText says it in words: "2 of 4 properties passed", "1 of 1
	// property passed"; "" when unknown.
	PassedText string `json:"passed_text"`
	Cause      string `json:"cause"`
	// No code: the page shows each round's code once (codeView); a copy
	// per verdict doubled the question pages' size.
	Error  string `json:"error"`
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
	Status string `json:"status"`
	// PassedProps and FailedProps name the properties the answer passed and
	// failed, from the row's per-property outcomes (results format v3,
	// property_outcomes); both empty when the row has none.
	PassedProps []string     `json:"passed_props,omitempty"`
	FailedProps []failedProp `json:"failed_props,omitempty"`
}

// failedProp is one failed property and what the verification said about
// it (its message, capped at failMessageBytes).
type failedProp struct {
	Name    string `json:"name"`
	Message string `json:"message,omitempty"`
	// Category and Evidence are the property's diagnosis
	// (datasets.Diagnosis), for the reference solution's failures only.
	Category string `json:"category,omitempty"`
	Evidence string `json:"evidence,omitempty"`
}

// failMessageBytes caps a failed property's message on a question page;
// the whole message is in the results file.
const failMessageBytes = 300

// capMessage cuts msg to failMessageBytes at a rune boundary, marked " …".
func capMessage(msg string) string {
	if len(msg) <= failMessageBytes {
		return msg
	}
	cut := failMessageBytes
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return msg[:cut] + " …"
}

func verdictSymbol(v results.Verdict) string {
	switch v {
	case results.VerdictCorrect:
		return "✓"
	case results.VerdictPartial:
		return "◐"
	case results.VerdictNotRunnable:
		return "✗"
	case results.VerdictVerificationCrash:
		return "!"
	case results.VerdictDataMissing:
		return "–"
	}
	return "?"
}

// verdictLabel names a recorded verdict for readers. The scoring protocols
// record one verdict, partial, for every runnable answer that fails a
// property, whether some or none of its properties passed; the failure
// taxonomy (aggregate.Classify) tells the two apart and calls the second
// "wrong values". A question page names it so too; the results files and
// the pages' data attributes keep the verdict as recorded.
func verdictLabel(verdict string, passed *int32) string {
	if results.Verdict(verdict) == results.VerdictPartial && passed != nil && *passed == 0 {
		return strings.ToLower(aggregate.OutcomeWrongValues.Title())
	}
	return verdict
}

func verdictText(q *results.QuestionRow, run *results.Run) string {
	switch results.Verdict(q.Verdict) {
	case results.VerdictCorrect:
		return "correct: all properties passed"
	case results.VerdictPartial:
		if verdictLabel(q.Verdict, q.PropertiesPassed) != q.Verdict {
			return verdictLabel(q.Verdict, q.PropertiesPassed) + ": runnable, no property passed (recorded verdict partial)"
		}
		return "partial: runnable, some properties failed"
	case results.VerdictNotRunnable:
		return "not runnable"
	case results.VerdictVerificationCrash:
		return "verification crashed"
	case results.VerdictDataMissing:
		return "not scored: the question's data files are missing (outside this run's question set)"
	}
	if !run.Totals.Scored {
		return "unknown: this run was never scored"
	}
	if run.Provenance.Kind == results.ProvenanceImported {
		return "unknown: the publishers released run totals only, no per-question outcome"
	}
	return "unknown"
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func outcome(r *aggregate.Run, q *results.QuestionRow) outcomeView {
	o := outcomeView{Run: r.ID(), Round: r.Round(), Verdict: q.Verdict, Symbol: verdictSymbol(results.Verdict(q.Verdict)),
		Label: verdictLabel(q.Verdict, q.PropertiesPassed), Text: verdictText(q, &r.File.Run), Cause: q.VerdictCause,
		Error: str(q.ErrorExcerpt), Stdout: str(q.StdoutExcerpt), Stderr: str(q.StderrExcerpt), Status: string(r.Status)}
	if q.PropertiesPassed != nil {
		o.Passed = fmt.Sprintf("%d/%d", *q.PropertiesPassed, q.PropertyCount)
		o.PassedText = fmt.Sprintf("%d of %s passed", *q.PropertiesPassed, count(q.PropertyCount, "property", "properties"))
	}
	o.PassedProps, o.FailedProps = propertyLists(q.PropertyOutcomes)
	return o
}

// propertyLists splits a row's per-property outcomes into the names passed
// and the failures with their messages (capMessage), in the row's order.
func propertyLists(pos []results.PropertyOutcome) (passed []string, failed []failedProp) {
	for _, po := range pos {
		if po.Passed {
			passed = append(passed, po.Property)
			continue
		}
		failed = append(failed, failedProp{Name: po.Property, Message: capMessage(po.Message)})
	}
	return passed, failed
}

// toolConfigs returns the configurations of MatTools' tool usage in
// display order: those of the question pages (questions/<id>/, MatTools'
// question ids) and of the model and system pages' matrices, whose rows
// are those questions (matToolsToolUsage).
func (v *views) toolConfigs() []*aggregate.Configuration {
	var out []*aggregate.Configuration
	for _, c := range v.lb.Configurations {
		if matToolsToolUsage(c.Key.Benchmark) {
			out = append(out, c)
		}
	}
	return out
}

// rowsByQuestion indexes a run's question rows (their summary columns) by
// question id.
func rowsByQuestion(r *aggregate.Run) map[string]*results.SummaryRow {
	m := make(map[string]*results.SummaryRow, len(r.Questions))
	for i := range r.Questions {
		m[r.Questions[i].QuestionID] = &r.Questions[i]
	}
	return m
}

// fullRowsByQuestion indexes a run's question rows by question id: those of
// its File, whole, when it has them, else its summary columns
// (results.SummaryRow.QuestionRow).
func fullRowsByQuestion(r *aggregate.Run) map[string]*results.QuestionRow {
	m := map[string]*results.QuestionRow{}
	if len(r.File.Questions) == 0 {
		rows := make([]results.QuestionRow, len(r.Questions))
		for i := range r.Questions {
			rows[i] = r.Questions[i].QuestionRow()
			m[rows[i].QuestionID] = &rows[i]
		}
		return m
	}
	for i := range r.File.Questions {
		m[r.File.Questions[i].QuestionID] = &r.File.Questions[i]
	}
	return m
}

type questionRef struct {
	ID    string `json:"id"`
	Index int    `json:"index"`
	Href  string `json:"href"`
}

// matrixView is a question × column grid of per-round outcome symbols, one
// column per configuration identity: the column shows its
// group's primary member (identityGroup.Primary), so MatTools' published
// runs show their verdicts re-executed by this project rather than "?".
type matrixView struct {
	Columns []matrixColumn `json:"columns"`
	Rows    []matrixRow    `json:"rows"`
	// CSV is the edition-relative path of the page's full matrix as CSV
	// (pageMatrix); "" for a configuration page's.
	CSV string `json:"csv"`
}

// matrixColumn is one configuration's verdicts; Others names the other
// configurations of its identity (as published, the other protocol).
type matrixColumn struct {
	memberView
	Others []memberView `json:"others"`
	conf   *aggregate.Configuration
}

type matrixRow struct {
	Question questionRef  `json:"question"`
	Cells    []matrixCell `json:"cells"`
}

type matrixCell struct {
	Symbols   string `json:"symbols"`   // one symbol per run, in round order
	Agreement string `json:"agreement"` // "k/n": rounds correct of rounds with a known verdict; "" when none is known
	Title     string `json:"title"`
	Href      string `json:"href"`
}

// identityColumns are the columns of confs' grid, one per identity: the
// primary member of each group that has a member among confs, in
// identityGroups order.
func (v *views) identityColumns(confs []*aggregate.Configuration) []matrixColumn {
	groups, groupOf := v.identityGroups()
	want := map[*identityGroup]bool{}
	for _, c := range confs {
		if g := groupOf[c]; g != nil {
			want[g] = true
		}
	}
	var cols []matrixColumn
	for _, g := range groups {
		if !want[g] {
			continue
		}
		col := matrixColumn{memberView: v.member(g.Primary, true), Others: []memberView{}, conf: g.Primary}
		for _, c := range g.Members {
			if c != g.Primary {
				col.Others = append(col.Others, v.member(c, false))
			}
		}
		cols = append(cols, col)
	}
	return cols
}

// pageMatrix puts the verdict matrix of confs on the page at rel (a system's
// or a model's; what names the page's configurations, e.g. "LLM-RAG"),
// bounded: with at most MatrixColumns identities, all of them in
// identityGroups order; with more, the top MatrixColumns in the order of the
// headline ranked tables (task success rate) and a cut note linking the full
// matrix, MatrixColumns columns to a page in that order, at rel/matrix/. The
// full matrix is always written as csvPath (static, one line per question
// and column).
func (w *writer) pageMatrix(v *views, data map[string]any, rel, title, csvPath string, confs []*aggregate.Configuration) bool {
	cols := v.identityColumns(confs)
	if len(cols) == 0 {
		return false
	}
	byGroup := map[*aggregate.Configuration]matrixColumn{}
	var groups []*identityGroup
	_, groupOf := v.identityGroups()
	for _, c := range cols {
		byGroup[c.conf] = c
		groups = append(groups, groupOf[c.conf])
	}
	var ranked []matrixColumn
	for _, g := range v.rankOrder(groups) {
		ranked = append(ranked, byGroup[g.Primary])
	}
	full := v.matrix(ranked)
	w.static(csvPath, matrixCSV(full))
	if len(cols) <= MatrixColumns {
		mv := v.matrix(cols)
		mv.CSV = csvPath
		data["matrix"] = mv
		return true
	}
	base := strings.TrimSuffix(rel, "/") + "/matrix"
	pages := pagesOf(len(ranked), MatrixColumns)
	slice := func(k int) *matrixView {
		lo, hi := window(len(ranked), MatrixColumns, k)
		mv := &matrixView{Columns: full.Columns[lo:hi], CSV: csvPath}
		for _, r := range full.Rows {
			mv.Rows = append(mv.Rows, matrixRow{Question: r.Question, Cells: r.Cells[lo:hi]})
		}
		return mv
	}
	data["matrix"] = slice(1)
	data["matrix_cut"] = newCut(MatrixColumns, len(ranked), MatrixColumns, "the top", "configurations by task success rate (as the headline tables rank them)", base, csvPath)
	w.morePages(base, "Questions × configurations: "+title,
		fmt.Sprintf("The per-question verdict matrix of %s's %s configurations, %d columns to a page, in the order of the headline tables (task success rate).",
			title, thousands(len(ranked)), MatrixColumns), "matrix.html", pages, linkView{Text: "Back to " + title, Href: href(rel)},
		func(k int) string {
			lo, hi := window(len(ranked), MatrixColumns, k)
			return fmt.Sprintf("Configurations %s–%s of %s (page %d of %d).", thousands(lo+1), thousands(hi), thousands(len(ranked)), k, pages)
		},
		func(k int) map[string]any { return map[string]any{"matrix": slice(k)} })
	return true
}

// pageConfigs puts the list of configurations cvs on the page at rel,
// bounded: the first ListRows, a cut note and the whole list,
// ListRows to a page, at rel/configurations/.
func (w *writer) pageConfigs(data map[string]any, rel, title string, cvs []configView) {
	if len(cvs) <= ListRows {
		data["configs"] = cvs
		return
	}
	base := strings.TrimSuffix(rel, "/") + "/configurations"
	pages := pagesOf(len(cvs), ListRows)
	data["configs"] = cvs[:ListRows]
	data["configs_cut"] = newCut(ListRows, len(cvs), ListRows, "the first", "configurations", base, "")
	w.morePages(base, "Configurations: "+title, fmt.Sprintf("Every configuration of %s, %d to a page.", title, ListRows),
		"configlist.html", pages, linkView{Text: "Back to " + title, Href: href(rel)},
		func(k int) string {
			lo, hi := window(len(cvs), ListRows, k)
			return fmt.Sprintf("Configurations %s–%s of %s (page %d of %d).", thousands(lo+1), thousands(hi), thousands(len(cvs)), k, pages)
		},
		func(k int) map[string]any {
			lo, hi := window(len(cvs), ListRows, k)
			return map[string]any{"configs": cvs[lo:hi]}
		})
}

// cutOf is the configurations' cut note pageConfigs put in data, nil when
// the page lists them all.
func cutOf(data map[string]any) *cutView {
	c, _ := data["configs_cut"].(*cutView)
	return c
}

// configMatrix is a configuration page's grid: its own column and, for a
// configuration as published, its re-executed counterparts beside it.
func (v *views) configMatrix(c *aggregate.Configuration) *matrixView {
	_, groupOf := v.identityGroups()
	cols := []matrixColumn{{memberView: v.member(c, true), Others: []memberView{}, conf: c}}
	if g := groupOf[c]; g != nil && aggregate.BadgeOf(c.Key.Provenance) == aggregate.BadgePublished {
		for _, m := range g.Members {
			if m != c && aggregate.BadgeOf(m.Key.Provenance) != aggregate.BadgePublished {
				cols = append(cols, matrixColumn{memberView: v.member(m, false), Others: []memberView{}, conf: m})
			}
		}
	}
	return v.matrix(cols)
}

func (v *views) matrix(cols []matrixColumn) *matrixView {
	if len(cols) == 0 {
		return nil
	}
	mv := &matrixView{Columns: cols}
	confs := make([]*aggregate.Configuration, len(cols))
	idx := make([][]map[string]*results.SummaryRow, len(cols))
	for i, col := range cols {
		confs[i] = col.conf
		for _, r := range confs[i].Runs {
			idx[i] = append(idx[i], rowsByQuestion(r))
		}
	}
	b := confs[0].Key.Benchmark
	for _, q := range v.questionRefsOf(b, confs) {
		row := matrixRow{Question: q}
		for i, c := range confs {
			var sym, title []string
			var verdicts []string
			for ri, r := range c.Runs {
				if qr := idx[i][ri][q.ID]; qr != nil {
					verdicts = append(verdicts, qr.Verdict)
					sym = append(sym, verdictSymbol(results.Verdict(qr.Verdict)))
					t := fmt.Sprintf("round %d: %s", r.Round(), verdictLabel(qr.Verdict, qr.PropertiesPassed))
					if qr.PropertiesPassed != nil {
						t += fmt.Sprintf(" (%d of %s)", *qr.PropertiesPassed, count(qr.PropertyCount, "property", "properties"))
					}
					title = append(title, t)
				}
			}
			cell := matrixCell{Symbols: strings.Join(sym, ""), Href: confHref(c)}
			if v.hasQuestionPages(b) {
				cell.Href = v.questionPageHref(q.ID, c)
			}
			if k, n := agreement(verdicts); n > 0 {
				cell.Agreement = fmt.Sprintf("%d/%d", k, n)
				title = append(title, fmt.Sprintf("%d of %s with a known verdict correct", k, count(n, "round", "rounds")))
			}
			cell.Title = c.Key.ScoringProtocol + ", " + badgeText(c) + ": " + strings.Join(title, "; ")
			row.Cells = append(row.Cells, cell)
		}
		mv.Rows = append(mv.Rows, row)
	}
	return mv
}

// questionRefsOf lists the questions of tool-usage benchmark b, the rows
// of a matrix of confs (configurations of b): MatTools' (questionRefs),
// else those of b's folder when the build has it
// (Edition.FolderBenchmarks), else those confs' runs name, in question
// index order; the latter two link b's own page.
func (v *views) questionRefsOf(b results.Benchmark, confs []*aggregate.Configuration) []questionRef {
	if benchmarkLabel(b) == "" {
		return v.questionRefs()
	}
	var out []questionRef
	if fb := v.e.FolderBenchmarks[b]; fb != nil {
		for _, q := range fb.Questions {
			out = append(out, questionRef{ID: q.ID, Index: q.Index, Href: BenchmarkPath(b)})
		}
		return out
	}
	seen := map[string]bool{}
	for _, c := range confs {
		for _, r := range c.Runs {
			for _, q := range r.Questions {
				if !seen[q.QuestionID] {
					seen[q.QuestionID] = true
					out = append(out, questionRef{ID: q.QuestionID, Index: int(q.QuestionIndex), Href: BenchmarkPath(b)})
				}
			}
		}
	}
	slices.SortStableFunc(out, func(x, y questionRef) int { return cmp.Compare(x.Index, y.Index) })
	return out
}

// questionRefs lists MatTools' tool-usage questions (Edition.Benchmark);
// none without it.
func (v *views) questionRefs() []questionRef {
	var out []questionRef
	if b := v.e.Benchmark; b != nil {
		for _, q := range b.Questions {
			out = append(out, questionRef{ID: q.ID, Index: q.Index, Href: questionHref(q.ID)})
		}
	}
	return out
}

func (w *writer) writeConfigurations(v *views) {
	for _, c := range v.lb.Configurations {
		var runs []runView
		for _, r := range c.Runs {
			runs = append(runs, v.run(c, r))
		}
		type roundRow struct {
			Round  int    `json:"round"`
			Run    string `json:"run"`
			Values string `json:"values"`
		}
		warnings := c.Warnings
		if warnings == nil {
			warnings = []string{}
		}
		data := map[string]any{"config": v.config(c), "runs": runs, "warnings": warnings, "std": StdConvention,
			"sample_std": sampleStds(c)}
		if c.Key.Benchmark.Kind() == results.KindToolUsage {
			if m := v.configMatrix(c); m != nil {
				data["matrix"] = m
			}
			if tx := v.taxonomyOf(c); tx != nil {
				data["failures"] = tx
			}
		}
		if boards := v.referenceIn[c]; len(boards) > 0 {
			var refs []linkView
			for _, b := range boards {
				refs = append(refs, linkView{Text: b.Title(), Href: href(string(b))})
			}
			data["reference_in"] = refs
		}
		w.page(href("configurations", c.Slug), c.Model.DisplayName+" · "+c.SystemLabel()+" · "+c.Key.ScoringProtocol,
			"configuration", data)
	}
}

func sampleStds(c *aggregate.Configuration) []string {
	out := []string{}
	for _, m := range c.Metrics() {
		s := c.Summaries[m]
		if s.N > 1 {
			out = append(out, fmt.Sprintf("%s: sample std (divisor n − 1) %s", m.Title(), fmtPct(s.SampleStd)))
		}
	}
	return out
}

func (w *writer) writeModels(v *views) {
	type modelItem struct {
		ID      string `json:"id"`
		Name    string `json:"name"`
		Href    string `json:"href"`
		Group   string `json:"group"`
		Configs int    `json:"configs"`
		// Facts are the model's cited release date, provider, weights and
		// parameter count; nil for a model without a facts row.
		Facts *factsView `json:"facts"`
	}
	byModel := map[string][]*aggregate.Configuration{}
	var ids []string
	for _, c := range v.lb.Configurations {
		if byModel[c.Key.Model] == nil {
			ids = append(ids, c.Key.Model)
		}
		byModel[c.Key.Model] = append(byModel[c.Key.Model], c)
	}
	items := []modelItem{}
	for _, id := range ids {
		confs := byModel[id]
		m := confs[0].Model
		items = append(items, modelItem{ID: id, Name: m.DisplayName, Href: v.modelHref(id), Group: aggregate.GroupTitle(m.Group), Configs: len(confs), Facts: newFactsView(m)})
		var cvs []configView
		var tool []*aggregate.Configuration
		for _, c := range confs {
			cvs = append(cvs, v.config(c))
			if matToolsToolUsage(c.Key.Benchmark) { // the matrix of MatTools' questions (toolConfigs)
				tool = append(tool, c)
			}
		}
		data := map[string]any{"model_id": id, "name": m.DisplayName, "group": aggregate.GroupTitle(m.Group), "std": StdConvention}
		if fv := newFactsView(m); fv != nil {
			data["facts"] = fv
		}
		rel := v.modelHref(id)
		w.pageConfigs(data, rel, m.DisplayName, cvs)
		data["config_tables"] = v.configTables(confs, true, "configs", cutOf(data))
		w.pageMatrix(v, data, rel, m.DisplayName, "downloads/matrices/models-"+v.modelSlug[id]+".csv", tool)
		var paper []*paperCell
		for _, p := range w.e.Paper {
			if p.Model == id {
				paper = append(paper, newPaperCell(p, paperLabel(w.e.Catalog, p)))
			}
		}
		data["paper"] = paper
		if f := v.qaFormats(confs); len(f) > 0 {
			data["qa_formats"] = f
		}
		w.page(href("models", v.modelSlug[id]), m.DisplayName, "model", data)
	}
	slices.SortStableFunc(items, func(a, b modelItem) int { return strings.Compare(a.Name, b.Name) })
	data := map[string]any{"models": items}
	if f, _ := v.releaseFigure(); f != nil {
		svg, err := f.SVG()
		if err != nil {
			w.err = err
			return
		}
		w.static("figures/"+f.ID+".svg", svg)
		w.static("figures/"+f.ID+".csv", f.CSV())
		data["figure"] = newFigureView("figures/"+f.ID+".svg", "figures/"+f.ID+".csv", f.Title, f.Caption, plots.ReleaseDisplayWidthPx)
	}
	w.page("models", "Models", "models", data)
}

func (w *writer) writeSystems(v *views) {
	type systemItem struct {
		ID      string `json:"id"`
		Name    string `json:"name"`
		Href    string `json:"href"`
		Configs int    `json:"configs"`
	}
	items := []systemItem{}
	// The paper's systems, then any other system under test registered in
	// this process (results.RegisterSystem), so that every row's system
	// link resolves.
	for _, s := range results.SystemsUnderTest() {
		var confs []*aggregate.Configuration
		var cvs []configView
		for _, c := range v.lb.Configurations {
			if c.Key.System == s {
				confs = append(confs, c)
				cvs = append(cvs, v.config(c))
			}
		}
		var paper []*paperCell
		for _, p := range w.e.Paper {
			if p.System == s && p.Benchmark == results.BenchmarkToolUsage { // the paper's values: MatTools' own benchmark

				paper = append(paper, newPaperCell(p, paperLabel(w.e.Catalog, p)))
			}
		}
		items = append(items, systemItem{ID: string(s), Name: aggregate.SystemTitle(s), Href: systemHref(s), Configs: len(confs)})
		var tool []*aggregate.Configuration
		for _, c := range confs {
			if matToolsToolUsage(c.Key.Benchmark) { // the matrix of MatTools' questions (toolConfigs)
				tool = append(tool, c)
			}
		}
		data := map[string]any{"system": string(s), "name": aggregate.SystemTitle(s), "paper": paper,
			"description": systemDescription(s), "std": StdConvention}
		w.pageConfigs(data, systemHref(s), aggregate.SystemTitle(s), cvs)
		data["config_tables"] = v.configTables(confs, false, "configs", cutOf(data))
		if csvPath := "downloads/matrices/systems-" + string(s) + ".csv"; w.pageMatrix(v, data, systemHref(s), aggregate.SystemTitle(s), csvPath, tool) {
			v.systemMatrices = append(v.systemMatrices, linkView{Text: aggregate.SystemTitle(s), Href: csvPath})
		}
		w.page(systemHref(s), aggregate.SystemTitle(s), "system", data)
	}
	w.page("systems", "Systems", "systems", map[string]any{"systems": items})
}

// systemDescription is what system s does per question, as its
// registration says (results.SystemInfo.Description; "" if none).
func systemDescription(s results.System) string {
	info, _ := results.LookupSystem(s)
	return info.Description
}

func (w *writer) writeMethodology(v *views) {
	var paper []*paperCell
	for _, p := range w.e.Paper {
		paper = append(paper, newPaperCell(p, paperLabel(w.e.Catalog, p)))
	}
	data := map[string]any{
		"paper": paper, "paper_mark": paperonly.Mark, "paper_file": paperonly.File, "std": StdConvention,
		"protocols": w.ev.Protocols, "benchmark_versions": w.ev.BenchmarkVersions,
	}
	if d := w.envDiff(); d != nil {
		data["environments"] = d
	}
	w.page("methodology", "Methodology", "methodology", data)
}

func (w *writer) writeDownloads(v *views) {
	type dl struct {
		Name  string `json:"name"`
		Href  string `json:"href"`
		About string `json:"about"`
		Size  string `json:"size"` // byteSize of the file, "" when unknown
	}
	var runs, tables, figures []dl
	var archived []archiveEntry
	for _, c := range v.lb.Configurations {
		for _, r := range c.Runs {
			p, ok := w.e.ResultsPaths[r.ID()]
			if !ok {
				continue
			}
			data, err := os.ReadFile(p)
			if err != nil {
				w.err = err
				return
			}
			w.static("downloads/runs/"+r.ID()+results.Extension, data)
			archived = append(archived, archiveEntry{name: r.ID() + results.Extension, src: p})
			runs = append(runs, dl{Name: r.ID() + results.Extension, Href: "downloads/runs/" + r.ID() + results.Extension,
				About: c.Key.String() + fmt.Sprintf(" round %d", r.Round()), Size: byteSize(len(data))})
		}
	}
	for _, b := range aggregate.Boards {
		for _, t := range v.lb.Tables[b] {
			tables = append(tables, dl{Name: t.ID + ".csv", Href: "downloads/tables/" + t.ID + ".csv",
				About: fmt.Sprintf("%s: benchmark version %s, scoring protocol %s, question set %s", b.Title(), t.BenchmarkVersion, t.ScoringProtocol, t.QuestionSet)})
		}
	}
	// The ranked tables (RankedCSV): the home page's headline tables, then
	// each tool-usage board's, protocols side by side.
	ranked := []dl{}
	addRanked := func(where string, ts []*aggregate.RankedTable) {
		for _, t := range ts {
			var protos []string
			for _, c := range t.Columns {
				if !slices.Contains(protos, c.Protocol) {
					protos = append(protos, c.Protocol)
				}
			}
			scoring := "scoring protocol " + strings.Join(protos, "")
			if len(protos) > 1 {
				scoring = "scoring protocols " + strings.Join(protos, ", ") + " side by side"
			}
			n, ok := w.sizes[rankedCSVPath(t)]
			if !ok { // the home page's, written after this page
				n = len(RankedCSV(t, w.e.Audit...))
			}
			ranked = append(ranked, dl{Name: path.Base(rankedCSVPath(t)), Href: rankedCSVPath(t),
				About: fmt.Sprintf("%s: benchmark version %s, question set %s, %s", where, t.BenchmarkVersion, t.QuestionSet, scoring), Size: byteSize(n)})
		}
	}
	addRanked("Home page (every tool-usage system)", v.lb.Headline)
	for _, b := range aggregate.Boards {
		addRanked(b.Title(), v.lb.Ranked[b])
	}
	for _, f := range w.e.Figures {
		figures = append(figures, dl{Name: f.ID + ".csv", Href: "figures/" + f.ID + ".csv", About: "data behind " + f.Title},
			dl{Name: f.ID + ".svg", Href: "figures/" + f.ID + ".svg", About: f.Title})
	}
	w.static("downloads/paper-only-values.csv", paperonly.CSV())
	for _, p := range []*[]dl{&runs, &tables, &figures} {
		if *p == nil {
			*p = []dl{}
		}
	}
	matrices := []dl{}
	for _, m := range v.systemMatrices {
		matrices = append(matrices, dl{Name: path.Base(m.Href), Href: m.Href, About: "per-question verdicts of every " + m.Text + " configuration (one line per question and configuration)"})
	}
	for _, list := range [][]dl{tables, figures, matrices} { // written by the pages before this one
		for i := range list {
			if n, ok := w.sizes[list[i].Href]; ok {
				list[i].Size = byteSize(n)
			}
		}
	}
	runs, runsCut := boundList(w, runs, RunsPerPage, "downloads/results", "Results files",
		fmt.Sprintf("Every results file of this edition, %d to a page, in the order of the configurations.", RunsPerPage), "dllist.html",
		"the first", "results files", "", linkView{Text: "Back to the downloads", Href: "downloads/"},
		func(rows []dl) map[string]any { return map[string]any{"items": rows} })
	data := map[string]any{"runs": runs, "tables": tables, "ranked": ranked, "figures": figures, "matrices": matrices,
		"table_columns": strings.Join(TableCSVHeader, ", "), "ranked_columns": strings.Join(RankedCSVHeader, ", "),
		"format_version": results.FormatVersion,
		"paper_csv":      "downloads/paper-only-values.csv", "paper_mark": paperonly.Mark,
		"paper_size": byteSize(w.sizes["downloads/paper-only-values.csv"])}
	if runsCut != nil {
		data["runs_cut"] = runsCut
	}
	if len(archived) > 0 && w.err == nil {
		rel := ResultsArchivePath(w.e.Path)
		n, err := writeResultsArchive(filepath.Join(w.dirs.Static, w.e.Path, filepath.FromSlash(rel)), w.e.Path, archived)
		if err != nil {
			w.err = err
			return
		}
		data["archive"] = dl{Name: path.Base(rel), Href: rel, Size: byteSize(int(n)),
			About: fmt.Sprintf("all %d results files of this edition in one zip archive (folder %s/)", len(archived), strings.TrimSuffix(path.Base(rel), ".zip"))}
	}
	w.page("downloads", "Downloads", "downloads", data)
}

func (w *writer) writeHome(v *views) {
	type boardItem struct {
		Title  string `json:"title"`
		Href   string `json:"href"`
		Tables int    `json:"tables"`
		Rows   int    `json:"rows"`
	}
	var boards []boardItem
	for _, b := range aggregate.Boards {
		rows, tables := 0, len(v.lb.Tables[b])
		for _, t := range v.lb.Tables[b] {
			rows += len(t.Rows)
		}
		if ranked, ok := v.lb.Ranked[b]; ok { // tool usage: the board shows its ranked tables
			rows, tables = 0, len(ranked)
			for _, t := range ranked {
				rows += len(t.Rows) - len(t.ReferenceRows()) // reference rows are counted on their own board
			}
		}
		boards = append(boards, boardItem{Title: b.Title(), Href: href(string(b)), Tables: tables, Rows: rows})
	}
	figs := []*figureView{}
	for _, f := range w.e.Figures {
		figs = append(figs, newFigureView("figures/"+f.ID+".svg", "figures/"+f.ID+".csv", f.Title, f.Caption, plots.DisplayWidthPx))
	}
	// MatTools' tables first, then the verified set's, then other
	// benchmarks' (a folder benchmark's: never mixed with MatTools').
	headline, others := []*rankedView{}, []*rankedView{}
	var hts []*aggregate.RankedTable // the tables of headline
	var order []results.Benchmark    // benchmarks outside MatTools' suite, each with a page of its own
	byBench := map[results.Benchmark][]*rankedView{}
	for _, t := range v.lb.Headline {
		back := linkView{Text: "Back to the home page", Href: ""}
		tv := v.ranked(t, v.lb.Headline)
		if by := v.supersededBy(t.BenchmarkVersion); by != "" {
			w.writeRankedPages(tv, back)
			tv = collapseRanked(tv, by)
		} else {
			tv = w.boundRanked(tv, back)
		}
		if t.OtherSuite() {
			others = append(others, tv)
			if byBench[t.Benchmark] == nil {
				order = append(order, t.Benchmark)
			}
			byBench[t.Benchmark] = append(byBench[t.Benchmark], tv)
		} else {
			headline, hts = append(headline, tv), append(hts, t)
		}
		w.static(rankedCSVPath(t), RankedCSV(t, w.e.Audit...))
	}
	headline, fig := v.homeTables(hts, headline)
	if fig != nil {
		svg, err := fig.SVG()
		if err != nil {
			w.err = err
			return
		}
		w.static(intervalFigurePath(strings.TrimSuffix(fig.ID, "-intervals"), "svg"), svg)
		w.static(intervalFigurePath(strings.TrimSuffix(fig.ID, "-intervals"), "csv"), fig.CSV())
	}
	title := "MatTools leaderboard " + w.e.Version
	vv := v.verified()
	for _, t := range vv {
		w.static(t.CSV, t.data)
	}
	w.page("", title, "edition", map[string]any{"qa": v.qaHome(), "boards": boards, "figures": figs, "configs": len(v.lb.Configurations), "std": StdConvention,
		"headline": headline, "other_benchmarks": others, "other_pages": w.writeBenchmarkPages(order, byBench), "runnable_note": RunnableNote, "paper_url": PaperURL, "upstream_url": UpstreamURL,
		"cite": citeText(w.e), "bibtex": bibtex(w.e), "new": newInEdition(v, w.e), "verified": vv})
}
