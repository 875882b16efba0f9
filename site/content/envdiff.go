package content

// The published answers whose verdicts differ between the two re-execution
// environments (results.EnvironmentComparison, written by cmd/import-mattools:
// the pinned environment every verdict of the leaderboard uses, and the tasks
// environment with ASE and dscribe; docs/sandbox.md, "Two environments"), as
// the methodology page shows them: one row per question, protocol and pair
// of outcomes, with how many answers and which configurations; both sides
// side by side, never averaged.

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
)

// envDiffView is the methodology page's section.
type envDiffView struct {
	Label     string           `json:"label"`
	Main      string           `json:"main"`  // its libraries, e.g. "pymatgen 2024.8.9, …"
	Other     string           `json:"other"` // the libraries the other environment adds or changes
	Compared  int              `json:"compared"`
	Differing int              `json:"differing"`
	Rows      []envDiffRowView `json:"rows"`
}

// envDiffRowView is one question × protocol × (main outcome → other outcome).
type envDiffRowView struct {
	Question string `json:"question"`
	Href     string `json:"href"` // the question's page, "" when the edition has none
	Protocol string `json:"protocol"`
	Main     string `json:"main"`  // e.g. "◐ partial, 0/2"
	Other    string `json:"other"` // e.g. "✓ correct, 2/2"
	Answers  int    `json:"answers"`
	// Configurations names the answers' model · system · source, sorted.
	Configurations string `json:"configurations"`
}

// envDiff builds the section from the edition's comparison; nil when it
// has none.
func (w *writer) envDiff() *envDiffView {
	c := w.e.EnvironmentComparison
	if c == nil {
		return nil
	}
	runs := map[string]*results.Run{}
	for _, f := range w.e.Files {
		runs[f.Run.RunID] = &f.Run
	}
	questions := map[string]int{}
	if w.e.Benchmark != nil {
		for _, q := range w.e.Benchmark.Questions {
			questions[q.ID] = q.Index
		}
	}
	v := &envDiffView{Label: c.Label, Compared: c.Compared, Differing: len(c.Differences)}
	// The environments' libraries: the main side's, and what the other adds
	// or changes (named by the differences; none: both empty).
	var mainLibs, otherLibs map[string]string
	for _, d := range c.Differences {
		mainLibs, otherLibs = c.Environments[d.Main.Environment].Libraries, c.Environments[d.Other.Environment].Libraries
		break
	}
	var mainList, otherList []string
	for _, k := range slices.Sorted(maps.Keys(mainLibs)) {
		mainList = append(mainList, k+" "+mainLibs[k])
	}
	for _, k := range slices.Sorted(maps.Keys(otherLibs)) {
		if mainLibs[k] != otherLibs[k] {
			otherList = append(otherList, k+" "+otherLibs[k])
		}
	}
	v.Main, v.Other = strings.Join(mainList, ", "), strings.Join(otherList, ", ")
	outcome := func(o results.EnvironmentOutcome, props int) string {
		s := verdictSymbol(o.Verdict) + " " + string(o.Verdict)
		if props > 0 && o.Runnable { // a count of passed properties means nothing for code that did not run
			s += fmt.Sprintf(", %d/%d", o.PropertiesPassed, props)
		}
		return s
	}
	type key struct{ q, p, main, other string }
	rows := map[key]*envDiffRowView{}
	configs := map[key]map[string]bool{}
	for _, d := range c.Differences {
		props := 0
		if w.e.Benchmark != nil {
			if q, ok := w.e.Benchmark.Question(d.QuestionID); ok {
				props = len(q.Properties)
			}
		}
		k := key{d.QuestionID, d.Protocol, outcome(d.Main, props), outcome(d.Other, props)}
		r := rows[k]
		if r == nil {
			r = &envDiffRowView{Question: d.QuestionID, Protocol: d.Protocol, Main: k.main, Other: k.other}
			if _, ok := questions[d.QuestionID]; ok {
				r.Href = questionHref(d.QuestionID)
			}
			rows[k], configs[k] = r, map[string]bool{}
		}
		r.Answers++
		name := d.RunID
		if run := runs[d.RunID]; run != nil {
			name = w.e.Catalog.Model(run).DisplayName + " · " + aggregate.SystemTitle(run.System)
			if run.RetrievalSource > 0 {
				name += fmt.Sprintf(" · source %d", run.RetrievalSource)
			}
		}
		configs[k][name] = true
	}
	for k, r := range rows {
		r.Configurations = strings.Join(slices.Sorted(maps.Keys(configs[k])), "; ")
		v.Rows = append(v.Rows, *r)
	}
	slices.SortFunc(v.Rows, func(a, b envDiffRowView) int {
		return cmp.Or(cmp.Compare(questions[a.Question], questions[b.Question]), cmp.Compare(a.Question, b.Question),
			cmp.Compare(a.Protocol, b.Protocol), cmp.Compare(b.Answers, a.Answers), cmp.Compare(a.Main, b.Main), cmp.Compare(a.Other, b.Other))
	})
	return v
}
