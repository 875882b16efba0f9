package content

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
	"github.com/mattools-leaderboard/leaderboard/site/plots"
)

// factsView is a model's cited facts (results/model-facts.csv) as the model
// pages and the models index show them; "" where the source states nothing.
type factsView struct {
	Released    string     `json:"released"` // "2024-08-06" or "2024-08"
	Provider    string     `json:"provider"`
	Weights     string     `json:"weights"`      // "open", "closed" or ""
	WeightsText string     `json:"weights_text"` // "open weights", "closed weights", "not known"
	Parameters  string     `json:"parameters"`   // "7.61B", or "not public"
	ParametersN float64    `json:"parameters_n"` // the count as a number, for sorting; 0 when not public
	Sources     []linkView `json:"sources"`      // the URLs citing the values, each with its host as text
	Note        string     `json:"note"`
}

// newFactsView returns the view of a model's facts; nil when the model has
// no facts row (a model outside results/models.csv).
func newFactsView(m aggregate.Model) *factsView {
	f := m.Facts
	if f.Model == "" {
		return nil
	}
	fv := &factsView{Released: f.ReleaseDate, Provider: f.Provider, Weights: f.Weights, WeightsText: weightsText(f.Weights),
		Parameters: f.Parameters, Note: f.Note, Sources: []linkView{}}
	if n, ok := f.ParameterCount(); ok {
		fv.ParametersN = n
	} else {
		fv.Parameters = "not public"
	}
	for _, s := range f.Sources {
		fv.Sources = append(fv.Sources, linkView{Text: sourceHost(s), Href: s})
	}
	return fv
}

func weightsText(w string) string {
	switch w {
	case results.WeightsOpen:
		return "open weights"
	case results.WeightsClosed:
		return "closed weights"
	}
	return "not known"
}

// sourceHost is a source URL's host without "www.", e.g. "huggingface.co".
func sourceHost(u string) string {
	h := strings.TrimPrefix(strings.TrimPrefix(u, "https://"), "http://")
	h, _, _ = strings.Cut(h, "/")
	return strings.TrimPrefix(h, "www.")
}

// ReleaseFigureID is the file base name of the score-over-release-date
// figure (figures/<id>.svg and .csv of an edition).
const ReleaseFigureID = "release-date"

// releaseFigure returns the score-over-release-date figure: for every model
// of the first MatTools headline table (the whole benchmark's question set,
// under the table's headline protocol) that has a cited release date, its
// best task success rate over the table's rows (any system and retrieval
// source; reference rows aside), with its weights. It also returns the
// display names of the table's models left out for want of a date. nil when
// the edition has no such table or no model with a date.
func (v *views) releaseFigure() (*plots.ReleaseFigure, []string) {
	var t *aggregate.RankedTable
	for _, h := range v.lb.Headline {
		if !h.OtherSuite() {
			t = h
			break
		}
	}
	if t == nil {
		return nil, nil
	}
	col := slices.IndexFunc(t.Columns, func(c aggregate.RankedColumn) bool {
		return c.Protocol == t.HeadlineProtocol && c.Metric == aggregate.TaskSuccessRate
	})
	if col < 0 {
		return nil, nil
	}
	f := &plots.ReleaseFigure{ID: ReleaseFigureID, QuestionSet: t.QuestionSet, Protocol: t.HeadlineProtocol,
		Title: fmt.Sprintf("Best task success rate over release date (%d questions, %s)", t.Questions, aggregate.ProtocolTitle(t.HeadlineProtocol))}
	best := map[string]int{} // model id → index in f.Points
	var undated []string
	seen := map[string]bool{}
	for _, r := range t.Rows {
		c := r.Cells[col]
		if r.Reference || c == nil {
			continue
		}
		id := r.Model.ID
		released, ok := r.Model.Facts.Released()
		if !ok {
			if !seen[id] {
				undated = append(undated, r.Model.DisplayName)
			}
			seen[id] = true
			continue
		}
		seen[id] = true
		p := plots.ReleasePoint{ModelID: id, Label: r.Model.DisplayName, ReleaseDate: r.Model.Facts.ReleaseDate, Released: released,
			Weights: r.Model.Facts.Weights, Provider: r.Model.Facts.Provider, Parameters: r.Model.Facts.Parameters,
			Success: c.Summary.Mean, Configuration: c.Configuration.Key.String()}
		if len(r.Model.Facts.Sources) > 0 {
			p.Source = r.Model.Facts.Sources[0]
		}
		if i, ok := best[id]; !ok {
			best[id] = len(f.Points)
			f.Points = append(f.Points, p)
		} else if p.Success > f.Points[i].Success {
			f.Points[i] = p
		}
	}
	if len(f.Points) == 0 {
		return nil, undated
	}
	slices.SortStableFunc(f.Points, func(a, b plots.ReleasePoint) int {
		return cmp.Or(a.Released.Compare(b.Released), strings.Compare(a.Label, b.Label))
	})
	f.Caption = fmt.Sprintf("Each model's best task success rate (mean over rounds, any system and retrieval source) in the headline table of question set %s "+
		"under %s, against its release date (for a dated snapshot, the snapshot's date). Circles: open weights; triangles: closed weights. "+
		"Dates and weights are cited per model (results/model-facts.csv; each model's page links its source).", t.QuestionSet, aggregate.ProtocolTitle(t.HeadlineProtocol))
	if len(undated) > 0 {
		f.Caption += " Not shown, for want of a cited release date: " + strings.Join(undated, ", ") + "."
	}
	if !slices.ContainsFunc(f.Points, func(p plots.ReleasePoint) bool { return p.Weights == "open" }) {
		f.Caption += " No open-weights model has a run in this table, so the figure shows closed-weights models only; the QA board ranks open models."
	}
	return f, undated
}
