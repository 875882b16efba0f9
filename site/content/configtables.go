package content

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"

	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
)

// configTableView is one table of a model's or a system's page
// (layouts/_partials/configtable.html): its configurations of one
// benchmark, question set and scoring protocol, ranked by the headline
// metric (task success rate for tool usage, accuracy for QA), as the home
// page's ranked tables are.
type configTableView struct {
	ID      string `json:"id"`
	Heading string `json:"heading"`
	// Name is the heading of the row-name column: "System" on a model's
	// page, "Model" on a system's.
	Name       string             `json:"name"`
	ShowSource bool               `json:"show_source"`
	Columns    []configColumnView `json:"columns"` // the headline metric first
	Rows       []configRowView    `json:"rows"`
	// Cut says which rows the page leaves out (more than ListRows);
	// every configuration is on the list's pages (configs_cut).
	Cut *cutView `json:"cut,omitempty"`
}

type configColumnView struct {
	Title    string `json:"title"`
	Metric   string `json:"metric"`
	Headline bool   `json:"headline"`
}

type configRowView struct {
	// Rank is the position by the headline mean, best first, equal means
	// sharing a rank (1, 2, 2, 4); "" for a row without a headline value.
	Rank     string      `json:"rank"`
	RankSort int         `json:"rank_sort"`
	Name     string      `json:"name"`
	Href     string      `json:"href"` // the configuration's page
	Status   string      `json:"status"`
	Source   string      `json:"source"`
	SourceN  int         `json:"source_n"`
	Cells    []*cellView `json:"cells"` // per Columns; nil: no value
	N        int         `json:"n"`     // rounds aggregated into the headline value
	Runs     int         `json:"runs"`
	Badge    badgeView   `json:"badge"`
	headline float64
}

// headlineMetric is the metric a configuration table is ranked by.
func headlineMetric(b results.Benchmark) aggregate.Metric {
	if b.Kind() == results.KindMultipleChoice {
		return aggregate.Accuracy
	}
	return aggregate.TaskSuccessRate
}

// tableMetrics returns the metrics of a benchmark's configuration table,
// the headline first, then the others in the display order.
func tableMetrics(b results.Benchmark) []aggregate.Metric {
	h := headlineMetric(b)
	out := []aggregate.Metric{h}
	if b.Kind() == results.KindMultipleChoice {
		return append(out, aggregate.AccuracyLenient)
	}
	return append(out, aggregate.FunctionRunnableRate)
}

// questionSetWords names a configuration's question set in a table heading:
// "all 49 questions" or "28 questions (executable-…)".
func questionSetWords(c *aggregate.Configuration) string {
	qs := c.QuestionSet()
	if qs.Name == results.QuestionSetAll {
		return fmt.Sprintf("all %s questions", thousands(qs.Questions))
	}
	return fmt.Sprintf("%s questions (%s)", thousands(qs.Questions), qs.Name)
}

// configTables groups confs by benchmark, benchmark version, question set
// and scoring protocol into ranked tables (the full question
// set first, then by protocol; tool usage before QA); byModel names the rows by system (a model's
// page) instead of by model (a system's page). Each table keeps its first
// ListRows rows; cut, when not nil, is the note pointing at the full list.
func (v *views) configTables(confs []*aggregate.Configuration, byModel bool, idPrefix string, cut *cutView) []*configTableView {
	type key struct {
		bench             results.Benchmark
		version, qs, prot string
	}
	groups := map[key][]*aggregate.Configuration{}
	var keys []key
	for _, c := range confs {
		if v.supersededBy(c.Key.BenchmarkVersion) != "" {
			continue // on its configuration page; the newer corrected version's table stands in its place
		}
		k := key{c.Key.Benchmark, c.Key.BenchmarkVersion, c.Key.QuestionSet, c.Key.ScoringProtocol}
		if groups[k] == nil {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], c)
	}
	slices.SortStableFunc(keys, func(a, b key) int {
		return cmp.Or(cmp.Compare(a.bench.Order(), b.bench.Order()), cmp.Compare(a.bench, b.bench),
			cmp.Compare(a.version, b.version), cmp.Compare(questionSetRank(a.qs), questionSetRank(b.qs)), cmp.Compare(a.qs, b.qs),
			cmp.Compare(results.ProtocolRank(a.prot), results.ProtocolRank(b.prot)), cmp.Compare(a.prot, b.prot))
	})
	var out []*configTableView
	for i, k := range keys {
		cs := groups[k]
		metrics := tableMetrics(k.bench)
		t := &configTableView{ID: fmt.Sprintf("%s-%d", idPrefix, i+1), Name: "Model"}
		if byModel {
			t.Name = "System"
		}
		// A tool-usage benchmark's tables are titled from the registry
		// (BenchmarkInfo.Title); a QA set's by its id, as they always were.
		bench := string(k.bench)
		if info, _ := results.LookupBenchmark(k.bench); info.Kind == results.KindToolUsage && info.Title != "" {
			bench = info.Title
		}
		t.Heading = fmt.Sprintf("%s %s · %s · protocol %s", bench, k.version, questionSetWords(cs[0]), aggregate.ProtocolTitle(k.prot))
		for j, m := range metrics {
			t.Columns = append(t.Columns, configColumnView{Title: m.Title() + " (%)", Metric: string(m), Headline: j == 0})
		}
		for _, c := range cs {
			cv := v.config(c)
			r := configRowView{Name: c.Model.DisplayName, Href: confHref(c), Status: cv.Status, Source: cv.Source, SourceN: c.Key.RetrievalSource,
				Runs: len(c.Runs), Badge: cv.BadgeView, headline: -1}
			if byModel {
				r.Name = c.SystemLabel()
			}
			if c.Key.RetrievalSource != 0 {
				t.ShowSource = true
			}
			for _, m := range metrics {
				s, ok := c.Summaries[m]
				if !ok {
					r.Cells = append(r.Cells, nil)
					continue
				}
				r.Cells = append(r.Cells, newCell(&aggregate.Cell{Configuration: c, Metric: m, Summary: s, Interval: c.Intervals[m], Rounds: c.Rounds[m]}))
			}
			if s, ok := c.Summaries[metrics[0]]; ok {
				r.headline, r.N = s.Mean, s.N
			}
			t.Rows = append(t.Rows, r)
		}
		slices.SortStableFunc(t.Rows, func(a, b configRowView) int {
			return cmp.Or(cmp.Compare(b.headline, a.headline), cmp.Compare(a.Name, b.Name), cmp.Compare(a.SourceN, b.SourceN))
		})
		for j := range t.Rows {
			r := &t.Rows[j]
			r.RankSort = j + 1
			if r.headline < 0 {
				r.RankSort = len(t.Rows) + 1
				continue
			}
			rank := j + 1
			if j > 0 && t.Rows[j-1].headline == r.headline {
				rank, _ = strconv.Atoi(t.Rows[j-1].Rank)
			}
			r.Rank, r.RankSort = strconv.Itoa(rank), rank
		}
		if len(t.Rows) > ListRows {
			t.Rows, t.Cut = t.Rows[:ListRows], cut
		}
		out = append(out, t)
	}
	return out
}
