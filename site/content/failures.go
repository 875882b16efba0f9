package content

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
	"github.com/mattools-leaderboard/leaderboard/site/apicheck"
)

// CodeKey returns the hallucinated-API store's key of code (apicheck.Key),
// or "" for code that is empty or all white space (which imports nothing
// and is never checked).
func CodeKey(code string) string {
	if strings.TrimSpace(code) == "" {
		return ""
	}
	return apicheck.Key(code)
}

// FailuresPath is the edition-relative path of the failure-taxonomy page.
const FailuresPath = "failures"

// exampleView is one question an outcome happened to, linked to its page.
type exampleView struct {
	ID     string `json:"id"`
	Href   string `json:"href"` // "" when the edition has no question pages
	Rounds string `json:"rounds"`
}

// outcomeView is one outcome of a configuration's taxonomy.
type outcomeItemView struct {
	ID       string        `json:"id"`
	Title    string        `json:"title"`
	Count    int           `json:"count"`
	Share    string        `json:"share"` // percent, 1 decimal
	Causes   string        `json:"causes"`
	Examples []exampleView `json:"examples"`
}

// hallucinationView is the hallucinated-API check of a set of answers.
type hallucinationView struct {
	Answers   int           `json:"answers"`    // answers (question × round) with code
	Checked   int           `json:"checked"`    // of them, in the store
	WithNames int           `json:"with_names"` // of those, with at least one missing name
	Names     []missingName `json:"names"`      // distinct missing names, most frequent first
	Text      string        `json:"text"`
}

type missingName struct {
	Name      string        `json:"name"`
	Answers   int           `json:"answers"`
	Questions []exampleView `json:"questions"`
}

// taxonomyView is a configuration's failure taxonomy as its page shows it.
type taxonomyView struct {
	Outcomes      int                `json:"outcomes"`
	Text          string             `json:"text"`
	Items         []outcomeItemView  `json:"items"`
	Hallucination *hallucinationView `json:"hallucination"`
}

// answerKey identifies one answer: what a configuration's runs share across
// scoring protocols (identity, round, question).
type answerKey struct {
	identity string
	round    int
	question string
}

func (v *views) exampleOf(b results.Benchmark, e aggregate.Example) exampleView {
	ev := exampleView{ID: e.QuestionID}
	if v.hasQuestionPages(b) {
		ev.Href = questionHref(e.QuestionID)
	}
	var rs []string
	for _, r := range e.Rounds {
		rs = append(rs, "r"+strconv.Itoa(r))
	}
	ev.Rounds = strings.Join(rs, ", ")
	return ev
}

// hallucinations checks the answers of confs' aggregated runs (each answer
// once, whatever the scoring protocols) against the store.
func (v *views) hallucinations(store *apicheck.Store, confs []*aggregate.Configuration) *hallucinationView {
	hv := &hallucinationView{Names: []missingName{}}
	seen := map[answerKey]bool{}
	type nameAcc struct {
		answers   int
		questions map[string][]int
		index     map[string]int
	}
	acc := map[string]*nameAcc{}
	for _, c := range confs {
		for _, r := range c.Runs {
			if r.Status == aggregate.StatusOutsideRounds {
				continue
			}
			keys := v.e.CodeKeys[r.ID()]
			for i := range r.Questions {
				q := &r.Questions[i]
				k := answerKey{c.Identity(), r.Round(), q.QuestionID}
				key := ""
				if i < len(keys) {
					key = keys[i]
				} else if i < len(r.File.Questions) {
					key = CodeKey(r.File.Questions[i].Code)
				}
				if seen[k] || key == "" {
					continue
				}
				seen[k] = true
				hv.Answers++
				res, ok := store.Codes[key]
				if !ok {
					continue
				}
				hv.Checked++
				if len(res.Missing) > 0 {
					hv.WithNames++
				}
				for _, n := range res.Missing {
					a := acc[n]
					if a == nil {
						a = &nameAcc{questions: map[string][]int{}, index: map[string]int{}}
						acc[n] = a
					}
					a.answers++
					a.questions[q.QuestionID] = append(a.questions[q.QuestionID], r.Round())
					a.index[q.QuestionID] = int(q.QuestionIndex)
				}
			}
		}
	}
	if hv.Answers == 0 {
		return nil
	}
	for n, a := range acc {
		mn := missingName{Name: n, Answers: a.answers}
		for qid, rounds := range a.questions {
			slices.Sort(rounds)
			rounds = slices.Compact(rounds)
			mn.Questions = append(mn.Questions, v.exampleOf(confs[0].Key.Benchmark, aggregate.Example{QuestionID: qid, QuestionIndex: a.index[qid], Rounds: rounds}))
		}
		slices.SortFunc(mn.Questions, func(x, y exampleView) int { return cmp.Compare(a.index[x.ID], a.index[y.ID]) })
		hv.Names = append(hv.Names, mn)
	}
	slices.SortFunc(hv.Names, func(x, y missingName) int {
		return cmp.Or(cmp.Compare(y.Answers, x.Answers), strings.Compare(x.Name, y.Name))
	})
	hv.Text = fmt.Sprintf("%d of %s (question × round) %s at least one pymatgen name that does not exist in the pinned libraries; %s.",
		hv.WithNames, count(hv.Checked, "answer", "answers"), noun(hv.WithNames, "imports or reads", "import or read"), count(len(hv.Names), "distinct name", "distinct names"))
	if n := hv.Answers - hv.Checked; n > 0 {
		hv.Text += fmt.Sprintf(" %s not checked (not in %s; go run ./cmd/check-api adds them).", count(n, "answer was", "answers were"), apicheck.StorePath)
	}
	return hv
}

// taxonomy returns the configuration's taxonomy view, or nil when it has
// no per-question outcome.
func (v *views) taxonomy(store *apicheck.Store, c *aggregate.Configuration) *taxonomyView {
	t := c.Taxonomy()
	if t == nil {
		return nil
	}
	tv := &taxonomyView{Outcomes: t.Outcomes, Items: []outcomeItemView{}}
	for _, o := range aggregate.Outcomes {
		n := t.Counts[o]
		if n == 0 {
			continue
		}
		it := outcomeItemView{ID: string(o), Title: o.Title(), Count: n, Share: fmt.Sprintf("%.1f", t.Share(o)), Examples: []exampleView{}}
		var causes []string
		for _, cause := range sortedKeys(t.Causes[o]) {
			if cause != "" {
				causes = append(causes, fmt.Sprintf("%s × %d", cause, t.Causes[o][cause]))
			}
		}
		it.Causes = strings.Join(causes, ", ")
		for _, e := range t.Examples[o] {
			it.Examples = append(it.Examples, v.exampleOf(c.Key.Benchmark, e))
		}
		tv.Items = append(tv.Items, it)
	}
	tv.Text = fmt.Sprintf("%s (question × round) over %s, under %s, classified by the verdict and the cause the sandbox recorded.",
		count(t.Outcomes, "question outcome", "question outcomes"), count(len(c.RunsWith(aggregate.StatusAggregated)), "round", "rounds"), c.Key.ScoringProtocol)
	tv.Hallucination = v.hallucinations(store, []*aggregate.Configuration{c})
	return tv
}

// failureRowView is one configuration in a failures table.
type failureRowView struct {
	configColumns             // Href: the configuration page's taxonomy
	Outcomes      int         `json:"outcomes"`
	Cells         []shareCell `json:"cells"` // aligned with the table's columns
	Halluc        string      `json:"halluc"`
	HallucSort    string      `json:"halluc_sort"`
}

type shareCell struct {
	Text  string `json:"text"`
	Sort  string `json:"sort"`
	Count int    `json:"count"`
}

type failureTableView struct {
	ID      string           `json:"id"`
	Heading string           `json:"heading"`
	Caption string           `json:"caption"`
	Columns []linkView       `json:"columns"` // outcome titles; Href holds the outcome id
	Rows    []failureRowView `json:"rows"`
	// Cut says which rows the page leaves out; nil when none.
	Cut *cutView `json:"cut,omitempty"`
}

// failureTables returns one table per benchmark version, question set and
// scoring protocol of the tool-usage configurations with a taxonomy, in
// Leaderboard order.
func (v *views) failureTables(store *apicheck.Store) []failureTableView {
	keys, byKey := v.toolUsageGroups(func(c *aggregate.Configuration) bool { return c.Taxonomy() != nil })
	var out []failureTableView
	for _, k := range keys {
		confs := byKey[k]
		present := map[aggregate.Outcome]bool{}
		taxes := map[*aggregate.Configuration]*aggregate.Taxonomy{}
		for _, c := range confs {
			taxes[c] = c.Taxonomy()
			for o, n := range taxes[c].Counts {
				present[o] = present[o] || n > 0
			}
		}
		var cols []aggregate.Outcome
		for _, o := range aggregate.Outcomes {
			if present[o] {
				cols = append(cols, o)
			}
		}
		qs := confs[0].QuestionSet()
		tv := failureTableView{ID: k.id("failures"),
			Heading: k.heading(qs),
			Caption: fmt.Sprintf("Benchmark version %s · question set %s · scoring protocol %s. Each cell: the share of the configuration's question outcomes (question × round) with that outcome, percent, and their count. "+
				"The last column counts the answers whose code uses a pymatgen name that does not exist (static check).", k.version, k.qs, k.protocol)}
		for _, o := range cols {
			tv.Columns = append(tv.Columns, linkView{Text: o.Title(), Href: string(o)})
		}
		for _, c := range confs {
			t := taxes[c]
			rv := failureRowView{configColumns: v.configColumns(c, confHref(c)+"#failures"), Outcomes: t.Outcomes}
			for _, o := range cols {
				rv.Cells = append(rv.Cells, shareCell{Text: fmt.Sprintf("%.1f", t.Share(o)), Sort: strconv.FormatFloat(t.Share(o), 'f', 6, 64), Count: t.Counts[o]})
			}
			if h := v.hallucinations(store, []*aggregate.Configuration{c}); h != nil {
				rv.Halluc = fmt.Sprintf("%d of %d", h.WithNames, h.Checked)
				rv.HallucSort = strconv.Itoa(h.WithNames)
			}
			tv.Rows = append(tv.Rows, rv)
		}
		out = append(out, tv)
	}
	groups := tableGroups(keys)
	for i := range out {
		out[i].Caption += differsFromOthers(i, groups)
	}
	return out
}

// configColumns are the columns that name a configuration in the rows of the
// failures and cost tables (flattened into the row's JSON; the filters read
// group, system_id, source_n and the badge); href is where the row links.
type configColumns struct {
	Model     string    `json:"model"`
	ModelID   string    `json:"model_id"`
	ModelHref string    `json:"model_href"`
	Group     string    `json:"group"`
	Weights   string    `json:"weights"` // the model's weights: open, closed or "" (results.ModelFacts)
	System    string    `json:"system"`
	SystemID  string    `json:"system_id"`
	Source    string    `json:"source"`
	SourceN   int       `json:"source_n"`
	Badge     badgeView `json:"badge"`
	Href      string    `json:"href"`
}

func (v *views) configColumns(c *aggregate.Configuration, href string) configColumns {
	return configColumns{Model: c.Model.DisplayName, ModelID: c.Key.Model, ModelHref: v.modelHref(c.Key.Model), Group: c.Model.Group, Weights: c.Model.Facts.Weights,
		System: c.SystemLabel(), SystemID: string(c.Key.System), Source: aggregate.RetrievalTitle(&c.Runs[0].File.Run), SourceN: c.Key.RetrievalSource,
		Badge: newBadge(aggregate.BadgeOf(c.Key.Provenance)), Href: href}
}

// groupKey is one table of a per-question-set page: a tool-usage
// benchmark, its version, question set and scoring protocol.
type groupKey struct {
	bench                 results.Benchmark
	version, qs, protocol string
}

// id is the table's anchor on page prefix ("failures", "cost", "modules"):
// prefix-version-question set-protocol, with the benchmark after prefix
// for a benchmark outside MatTools' suite (benchmarkLabel).
func (k groupKey) id(prefix string) string {
	if benchmarkLabel(k.bench) != "" {
		prefix += "-" + string(k.bench)
	}
	return aggregate.Slug(prefix + "-" + k.version + "-" + k.qs + "-" + k.protocol)
}

// heading is the table's heading: its question set (qs, its
// configurations') and protocol, after the benchmark's title for a
// benchmark outside MatTools' suite.
func (k groupKey) heading(qs results.QuestionSet) string {
	h := fmt.Sprintf("%s, %s", questionSetHeading(qs.Questions, qs.Properties, k.qs), k.protocol)
	if l := benchmarkLabel(k.bench); l != "" {
		h = l + ": " + h
	}
	return h
}

// hasQuestionPages says whether the edition has pages for the questions of
// benchmark b: those of Edition.Benchmark, MatTools' tool-usage questions
// (question ids are page paths; another tool-usage benchmark's questions,
// which may share MatTools' ids, are listed on its own page, benchmarks.go).
func (v *views) hasQuestionPages(b results.Benchmark) bool {
	return v.e.Benchmark != nil && matToolsToolUsage(b)
}

// matToolsToolUsage says whether b is a tool-usage benchmark of MatTools'
// suite: MatTools' own, whose questions have pages.
func matToolsToolUsage(b results.Benchmark) bool {
	return b.Kind() == results.KindToolUsage && benchmarkLabel(b) == ""
}

// benchmarkLabel names benchmark b in the tables of the pages that show
// every tool-usage benchmark (failures, cost, modules, compare): "" for a
// benchmark of MatTools' suite, whose tables are the pages' own and keep
// the headings they always had, else its registry title
// (BenchmarkInfo.Title; its name when it has none).
func benchmarkLabel(b results.Benchmark) string {
	info, ok := results.LookupBenchmark(b)
	switch {
	case ok && info.SuiteName() == results.SuiteMatTools:
		return ""
	case info.Title != "":
		return info.Title
	}
	return string(b)
}

// toolUsageGroups returns the tool-usage configurations that keep accepts,
// grouped by benchmark (any of kind tool usage), benchmark version, question
// set and scoring protocol, the groups in page order (benchmarks in registry
// order, newest version first, the whole benchmark before subsets,
// protocols in the registry's display order, results.ProtocolRank), each group's
// configurations in Leaderboard order: the tables of the failures, cost and
// modules pages.
func (v *views) toolUsageGroups(keep func(*aggregate.Configuration) bool) ([]groupKey, map[groupKey][]*aggregate.Configuration) {
	byKey := map[groupKey][]*aggregate.Configuration{}
	var keys []groupKey
	for _, c := range v.lb.Configurations {
		if c.Key.Benchmark.Kind() != results.KindToolUsage || !keep(c) || v.supersededBy(c.Key.BenchmarkVersion) != "" {
			continue
		}
		k := groupKey{c.Key.Benchmark, c.Key.BenchmarkVersion, c.Key.QuestionSet, c.Key.ScoringProtocol}
		if byKey[k] == nil {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], c)
	}
	slices.SortStableFunc(keys, func(a, b groupKey) int {
		return cmp.Or(cmp.Compare(a.bench.Order(), b.bench.Order()), strings.Compare(string(a.bench), string(b.bench)), strings.Compare(b.version, a.version), cmp.Compare(questionSetRank(a.qs), questionSetRank(b.qs)), strings.Compare(a.qs, b.qs),
			cmp.Compare(results.ProtocolRank(a.protocol), results.ProtocolRank(b.protocol)))
	})
	return keys, byKey
}

// tableGroups returns the question set and protocol of each table, for
// differsFromOthers.
func tableGroups(keys []groupKey) []tableGroup {
	var groups []tableGroup
	for _, k := range keys {
		groups = append(groups, tableGroup{k.qs, k.protocol})
	}
	return groups
}

func questionSetRank(qs string) int {
	if strings.HasPrefix(qs, results.QuestionSetAll+"/") {
		return 0
	}
	return 1
}

func questionSetHeading(questions, properties int, qs string) string {
	if strings.HasPrefix(qs, results.QuestionSetAll+"/") {
		return fmt.Sprintf("All %s (%s)", count(questions, "question", "questions"), count(properties, "property", "properties"))
	}
	return fmt.Sprintf("%s (%s), question set %s", count(questions, "question", "questions"), count(properties, "property", "properties"), qs)
}

// modelHallucinationView is one model's hallucinated-API count over every
// answer of its tool-usage configurations.
type modelHallucinationView struct {
	Model     string        `json:"model"`
	ModelID   string        `json:"model_id"`
	ModelHref string        `json:"model_href"`
	Group     string        `json:"group"`
	Weights   string        `json:"weights"`
	Checked   int           `json:"checked"`
	WithNames int           `json:"with_names"`
	Share     string        `json:"share"`
	Distinct  int           `json:"distinct"`
	Top       []missingName `json:"top"` // the most frequent names, at most 5
}

func (v *views) modelHallucinations(store *apicheck.Store) []modelHallucinationView {
	byModel := map[string][]*aggregate.Configuration{}
	var ids []string
	for _, c := range v.lb.Configurations {
		// MatTools' suite only: a model's names are counted over the
		// questions of one benchmark (its question ids are the pages').
		if !matToolsToolUsage(c.Key.Benchmark) {
			continue
		}
		if byModel[c.Key.Model] == nil {
			ids = append(ids, c.Key.Model)
		}
		byModel[c.Key.Model] = append(byModel[c.Key.Model], c)
	}
	out := []modelHallucinationView{}
	for _, id := range ids {
		h := v.hallucinations(store, byModel[id])
		if h == nil || h.Checked == 0 {
			continue
		}
		m := byModel[id][0].Model
		mv := modelHallucinationView{Model: m.DisplayName, ModelID: id, ModelHref: v.modelHref(id), Group: m.Group, Weights: m.Facts.Weights, Checked: h.Checked, WithNames: h.WithNames,
			Share: fmt.Sprintf("%.1f", 100*float64(h.WithNames)/float64(h.Checked)), Distinct: len(h.Names), Top: h.Names[:min(5, len(h.Names))]}
		out = append(out, mv)
	}
	slices.SortStableFunc(out, func(a, b modelHallucinationView) int { return strings.Compare(a.Model, b.Model) })
	return out
}

func (w *writer) writeFailures(v *views) {
	store, err := apicheck.Committed()
	if err != nil {
		w.err = err
		return
	}
	v.apiStore = store
	tables := v.failureTables(store)
	if tables == nil {
		tables = []failureTableView{}
	}
	back := linkView{Text: "Back to the failure taxonomy", Href: href(FailuresPath)}
	for i := range tables {
		t := &tables[i]
		full := *t
		t.Rows, t.Cut = boundList(w, t.Rows, ListRows, FailuresPath+"/"+t.ID, "Failure taxonomy: "+t.Heading,
			fmt.Sprintf("Every row of this failure table, %d to a page, in the order of the failure taxonomy page.", ListRows), "failuretable.html",
			"the first", "configurations", "", back,
			func(rows []failureRowView) map[string]any {
				s := full
				s.Rows = rows
				return map[string]any{"table": s}
			})
	}
	models := v.modelHallucinations(store)
	models, modelsCut := boundList(w, models, ListRows, FailuresPath+"/models", "Hallucinated APIs per model",
		fmt.Sprintf("Every model's hallucinated-API counts, %d to a page, by model name.", ListRows), "hallucmodels.html",
		"the first", "models", "", back,
		func(rows []modelHallucinationView) map[string]any { return map[string]any{"models": rows} })
	data := map[string]any{"tables": tables, "models": models, "environment": store.Environment, "store": apicheck.StorePath}
	if modelsCut != nil {
		data["models_cut"] = modelsCut
	}
	w.page(FailuresPath, "Failure taxonomy and hallucinated APIs", "failures", data)
}

// taxonomyOf returns the configuration page's taxonomy (nil without
// per-question outcomes, or before writeFailures loaded the store).
func (v *views) taxonomyOf(c *aggregate.Configuration) *taxonomyView {
	if v.apiStore == nil {
		return nil
	}
	return v.taxonomy(v.apiStore, c)
}

// tableGroup names the question set and scoring protocol of one table of
// a page that holds one table per question set and protocol.
type tableGroup struct{ qs, protocol string }

// differsFromOthers says in words how table i differs from the page's other
// tables: another scoring protocol of the same question set (the same
// answers, judged otherwise) or another question set (not comparable).
func differsFromOthers(i int, groups []tableGroup) string {
	if len(groups) < 2 {
		return ""
	}
	var sameSet, otherSet []string
	for j, g := range groups {
		switch {
		case j == i:
		case g.qs == groups[i].qs:
			sameSet = append(sameSet, g.protocol)
		default:
			otherSet = append(otherSet, g.qs+" ("+g.protocol+")")
		}
	}
	var parts []string
	if len(sameSet) > 0 {
		parts = append(parts, fmt.Sprintf("the same answers of this question set are judged under %s in the %s beside it", strings.Join(sameSet, ", "), noun(len(sameSet), "table", "tables")))
	}
	if len(otherSet) > 0 {
		parts = append(parts, fmt.Sprintf("the tables of %s %s score other questions, so their numbers are not comparable with these", noun(len(otherSet), "question set", "question sets"), strings.Join(otherSet, ", ")))
	}
	return " Beside it: " + strings.Join(parts, "; ") + "."
}
