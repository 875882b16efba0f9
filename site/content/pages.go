package content

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
	"github.com/mattools-leaderboard/leaderboard/site/paperonly"
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
	aggregate.BoardSingleLLM: "Function runnable rate (questions whose generated function ran and returned a dict that verification could check, out of the question set) " +
		"and task success rate (properties passed out of all properties of the question set) for one LLM call per question.",
	aggregate.BoardLLMRAG: "The same metrics for retrieval-augmented generation, per model and retrieval source " +
		"(1 pymatgen code, 2 official docs, 3 LLM-written docs chunked, 4 LLM-written docs per object).",
	aggregate.BoardAdvanced: "Agentic RAG, GraphRAG (LightRAG) and the self-reflection LLM-doc RAG loop.",
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
			tables = append(tables, v.table(t))
			w.static("downloads/tables/"+t.ID+".csv", TableCSV(t))
		}
		if tables == nil {
			tables = []*tableView{}
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
		w.page(string(b), b.Title(), "board", map[string]any{
			"board": string(b), "intro": boardIntro[b], "tables": tables, "others": others, "std": StdConvention,
			"paper": paper, "paper_mark": paperonly.Mark,
		})
	}
}

// outcomeView is one run's outcome on one question.
type outcomeView struct {
	Run      string `json:"run"`
	Round    int    `json:"round"`
	Verdict  string `json:"verdict"`
	Symbol   string `json:"symbol"`
	Text     string `json:"text"`
	Passed   string `json:"passed"` // "2/4", or "" when unknown
	Cause    string `json:"cause"`
	Code     string `json:"code"`
	Function string `json:"function"`
	Error    string `json:"error"`
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
	Status   string `json:"status"`
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

func verdictText(q *results.QuestionRow, run *results.Run) string {
	switch results.Verdict(q.Verdict) {
	case results.VerdictCorrect:
		return "correct: all properties passed"
	case results.VerdictPartial:
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
		Text: verdictText(q, &r.File.Run), Cause: q.VerdictCause, Code: q.Code, Function: q.FunctionName,
		Error: str(q.ErrorExcerpt), Stdout: str(q.StdoutExcerpt), Stderr: str(q.StderrExcerpt), Status: string(r.Status)}
	if q.PropertiesPassed != nil {
		o.Passed = fmt.Sprintf("%d/%d", *q.PropertiesPassed, q.PropertyCount)
	}
	return o
}

// toolConfigs returns the tool-usage configurations in display order.
func (v *views) toolConfigs() []*aggregate.Configuration {
	var out []*aggregate.Configuration
	for _, c := range v.lb.Configurations {
		if c.Key.Benchmark == results.BenchmarkToolUsage {
			out = append(out, c)
		}
	}
	return out
}

// rowsByQuestion indexes each run's question rows by question id.
func rowsByQuestion(r *aggregate.Run) map[string]*results.QuestionRow {
	m := map[string]*results.QuestionRow{}
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

// matrix is a question × configuration grid of per-round outcome symbols.
type matrixView struct {
	Configs []configView `json:"configs"`
	Rows    []matrixRow  `json:"rows"`
}

type matrixRow struct {
	Question questionRef  `json:"question"`
	Cells    []matrixCell `json:"cells"`
}

type matrixCell struct {
	Symbols string `json:"symbols"` // one symbol per run, in round order
	Title   string `json:"title"`
	Href    string `json:"href"`
}

func (v *views) matrix(confs []*aggregate.Configuration) *matrixView {
	if len(confs) == 0 {
		return nil
	}
	mv := &matrixView{}
	idx := make([][]map[string]*results.QuestionRow, len(confs))
	for i, c := range confs {
		mv.Configs = append(mv.Configs, v.config(c))
		for _, r := range c.Runs {
			idx[i] = append(idx[i], rowsByQuestion(r))
		}
	}
	for _, q := range v.questionRefs() {
		row := matrixRow{Question: q}
		for i, c := range confs {
			var sym, title []string
			for ri, r := range c.Runs {
				if qr := idx[i][ri][q.ID]; qr != nil {
					sym = append(sym, verdictSymbol(results.Verdict(qr.Verdict)))
					title = append(title, fmt.Sprintf("round %d: %s", r.Round(), qr.Verdict))
				}
			}
			row.Cells = append(row.Cells, matrixCell{Symbols: strings.Join(sym, ""), Title: strings.Join(title, "; "),
				Href: questionHref(q.ID) + "#" + c.Slug})
		}
		mv.Rows = append(mv.Rows, row)
	}
	return mv
}

// questionRefs lists the benchmark's questions, or else those the runs name.
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
		if c.Key.Benchmark == results.BenchmarkToolUsage {
			if m := v.matrix([]*aggregate.Configuration{c}); m != nil {
				data["matrix"] = m
			}
		}
		w.page(href("configurations", c.Slug), c.Model.DisplayName+" · "+aggregate.SystemTitle(c.Key.System)+" · "+c.Key.ScoringProtocol,
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
		items = append(items, modelItem{ID: id, Name: m.DisplayName, Href: v.modelHref(id), Group: aggregate.GroupTitle(m.Group), Configs: len(confs)})
		var cvs []configView
		var tool []*aggregate.Configuration
		for _, c := range confs {
			cvs = append(cvs, v.config(c))
			if c.Key.Benchmark == results.BenchmarkToolUsage {
				tool = append(tool, c)
			}
		}
		data := map[string]any{"model_id": id, "name": m.DisplayName, "group": aggregate.GroupTitle(m.Group), "configs": cvs, "std": StdConvention}
		if mx := v.matrix(tool); mx != nil {
			data["matrix"] = mx
		}
		var paper []*paperCell
		for _, p := range w.e.Paper {
			if p.Model == id {
				paper = append(paper, newPaperCell(p, paperLabel(w.e.Catalog, p)))
			}
		}
		data["paper"] = paper
		w.page(href("models", v.modelSlug[id]), m.DisplayName, "model", data)
	}
	slices.SortStableFunc(items, func(a, b modelItem) int { return strings.Compare(a.Name, b.Name) })
	w.page("models", "Models", "models", map[string]any{"models": items})
}

func (w *writer) writeSystems(v *views) {
	type systemItem struct {
		ID      string `json:"id"`
		Name    string `json:"name"`
		Href    string `json:"href"`
		Configs int    `json:"configs"`
	}
	items := []systemItem{}
	for _, s := range results.Systems {
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
			if p.System == s && p.Benchmark == results.BenchmarkToolUsage {
				paper = append(paper, newPaperCell(p, paperLabel(w.e.Catalog, p)))
			}
		}
		items = append(items, systemItem{ID: string(s), Name: aggregate.SystemTitle(s), Href: systemHref(s), Configs: len(confs)})
		var tool []*aggregate.Configuration
		for _, c := range confs {
			if c.Key.Benchmark == results.BenchmarkToolUsage {
				tool = append(tool, c)
			}
		}
		data := map[string]any{"system": string(s), "name": aggregate.SystemTitle(s), "configs": cvs, "paper": paper,
			"description": systemDescription[s], "std": StdConvention}
		if mx := v.matrix(tool); mx != nil {
			data["matrix"] = mx
		}
		w.page(systemHref(s), aggregate.SystemTitle(s), "system", data)
	}
	w.page("systems", "Systems", "systems", map[string]any{"systems": items})
}

var systemDescription = map[results.System]string{
	results.SystemSingleLLM: "One chat call per question: the question text plus MatTools' answer format; no retrieval.",
	results.SystemLLMRAG:    "Retrieve the top 5 documents for the question from one retrieval source, then one generation call.",
	results.SystemAgenticRAG: "Keyword extraction, query generation, retrieval, LLM reranking, named-entity lookup of pymatgen objects, " +
		"then a final generation call (at least 9 LLM calls per question).",
	results.SystemGraphRAG: "LightRAG-style graph retrieval followed by one generation call. MatTools published no LightRAG results; " +
		"only the paper's figure values exist.",
	results.SystemSelfReflectionRAG: "Up to 5 iterations of retrieve → generate → format check → execute; it stops at the first " +
		"run returning a dict with no None values, else a critic steers the next retrieval.",
}

func (w *writer) writeQuestions(v *views) {
	b := w.e.Benchmark
	if b == nil {
		w.page("questions", "Questions", "questions", map[string]any{"questions": []any{}})
		return
	}
	confs := v.toolConfigs()
	type runIndex struct {
		c    *aggregate.Configuration
		rows []map[string]*results.QuestionRow
	}
	var idx []runIndex
	for _, c := range confs {
		ri := runIndex{c: c}
		for _, r := range c.Runs {
			ri.rows = append(ri.rows, rowsByQuestion(r))
		}
		idx = append(idx, ri)
	}
	type questionItem struct {
		questionRef
		Properties int    `json:"properties"`
		Executable bool   `json:"executable"`
		Runs       int    `json:"runs"`
		Known      string `json:"known"` // "k correct of m runs with known outcomes"
	}
	items := []questionItem{}
	for _, q := range b.Questions {
		type configRuns struct {
			configView
			Anchor string        `json:"anchor"`
			Runs   []outcomeView `json:"run_list"`
		}
		var groups []configRuns
		nRuns, known, correct := 0, 0, 0
		for _, ri := range idx {
			cr := configRuns{configView: v.config(ri.c), Anchor: ri.c.Slug}
			for i, r := range ri.c.Runs {
				if qr := ri.rows[i][q.ID]; qr != nil {
					o := outcome(r, qr)
					cr.Runs = append(cr.Runs, o)
					nRuns++
					switch results.Verdict(qr.Verdict) {
					case results.VerdictUnknown, results.VerdictDataMissing:
					case results.VerdictCorrect:
						known++
						correct++
					default:
						known++
					}
				}
			}
			if len(cr.Runs) > 0 {
				groups = append(groups, cr)
			}
		}
		type prop struct {
			Name        string `json:"name"`
			Description string `json:"description"`
			Format      string `json:"format"`
			Value       string `json:"value"`
		}
		type dataFile struct {
			Path    string `json:"path"`
			Present bool   `json:"present"`
			Bytes   int64  `json:"bytes"`
		}
		var props []prop
		for _, p := range q.Properties {
			props = append(props, prop{Name: p.Name, Description: p.Description, Format: p.Format, Value: p.ValueText()})
		}
		files := []dataFile{}
		for _, f := range q.DataFiles {
			files = append(files, dataFile{Path: f.Path, Present: f.Present, Bytes: f.Bytes})
		}
		if groups == nil {
			groups = []configRuns{}
		}
		ref := questionRef{ID: q.ID, Index: q.Index, Href: questionHref(q.ID)}
		knownText := "no per-question outcomes known"
		if known > 0 {
			knownText = fmt.Sprintf("%d of %d runs with known outcomes fully correct", correct, known)
		}
		items = append(items, questionItem{questionRef: ref, Properties: len(q.Properties), Executable: q.Executable(), Runs: nRuns, Known: knownText})
		w.page(questionHref(q.ID), q.ID, "question", map[string]any{
			"id": q.ID, "index": q.Index, "number": q.Index + 1, "statement": q.Text, "properties": props, "data_files": files,
			"executable": q.Executable(), "configs": groups, "runs": nRuns, "known": knownText,
		})
	}
	w.page("questions", "Questions", "questions", map[string]any{"questions": items, "benchmark_commit": b.Commit})
}

func (w *writer) writeMethodology(v *views) {
	var paper []*paperCell
	for _, p := range w.e.Paper {
		paper = append(paper, newPaperCell(p, paperLabel(w.e.Catalog, p)))
	}
	w.page("methodology", "Methodology", "methodology", map[string]any{
		"paper": paper, "paper_mark": paperonly.Mark, "paper_file": paperonly.File, "std": StdConvention,
		"protocols": w.ev.Protocols, "benchmark_versions": w.ev.BenchmarkVersions,
	})
}

func (w *writer) writeDownloads(v *views) {
	type dl struct {
		Name  string `json:"name"`
		Href  string `json:"href"`
		About string `json:"about"`
	}
	var runs, tables, figures []dl
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
			runs = append(runs, dl{Name: r.ID() + results.Extension, Href: "downloads/runs/" + r.ID() + results.Extension,
				About: c.Key.String() + fmt.Sprintf(" round %d", r.Round())})
		}
	}
	for _, b := range aggregate.Boards {
		for _, t := range v.lb.Tables[b] {
			tables = append(tables, dl{Name: t.ID + ".csv", Href: "downloads/tables/" + t.ID + ".csv",
				About: fmt.Sprintf("%s: benchmark version %s, scoring protocol %s, question set %s", b.Title(), t.BenchmarkVersion, t.ScoringProtocol, t.QuestionSet)})
		}
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
	w.page("downloads", "Downloads", "downloads", map[string]any{"runs": runs, "tables": tables, "figures": figures,
		"paper_csv": "downloads/paper-only-values.csv", "paper_mark": paperonly.Mark})
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
		rows := 0
		for _, t := range v.lb.Tables[b] {
			rows += len(t.Rows)
		}
		boards = append(boards, boardItem{Title: b.Title(), Href: href(string(b)), Tables: len(v.lb.Tables[b]), Rows: rows})
	}
	var figs []figureView
	for _, f := range w.e.Figures {
		figs = append(figs, figureView{SVG: "figures/" + f.ID + ".svg", CSV: "figures/" + f.ID + ".csv", Title: f.Title, Caption: f.Caption})
	}
	if figs == nil {
		figs = []figureView{}
	}
	title := "MatTools leaderboard " + w.e.Version
	w.page("", title, "edition", map[string]any{"boards": boards, "figures": figs, "configs": len(v.lb.Configurations), "std": StdConvention})
}
