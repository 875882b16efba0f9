package content

import (
	"fmt"
	"strconv"

	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
	"github.com/mattools-leaderboard/leaderboard/site/plots"
)

// CostPath is the edition-relative path of the cost page.
const CostPath = "cost"

type costRowView struct {
	configColumns
	Success    string `json:"success"` // task success rate, mean over rounds, percent
	Prompt     string `json:"prompt"`  // mean per round; "—" when unknown
	Completion string `json:"completion"`
	PerQ       string `json:"per_q"` // tokens per question and round
	Calls      string `json:"calls"`
	Latency    string `json:"latency"` // seconds per round
	USD        string `json:"usd"`     // dollars per round
	Frontier   bool   `json:"frontier"`
	Rounds     int    `json:"rounds"`
}

type costTableView struct {
	ID      string        `json:"id"`
	Heading string        `json:"heading"`
	Caption string        `json:"caption"`
	Rows    []costRowView `json:"rows"`
	Figure  *figureView   `json:"figure"`
	Unknown int           `json:"unknown"` // configurations of the group with nothing recorded
}

func orDash(ok bool, s string) string {
	if !ok {
		return "—"
	}
	return s
}

// costTables returns one table (and figure) per benchmark version, question
// set and scoring protocol of the tool-usage configurations with a task
// success rate, listing those whose runs recorded tokens, calls, latency or
// cost; figures are appended to figs.
func (v *views) costTables() (tables []costTableView, figs []*plots.CostFigure) {
	keys, byKey := v.toolUsageGroups(func(c *aggregate.Configuration) bool {
		_, ok := c.Summaries[aggregate.TaskSuccessRate]
		return ok
	})
	var groups []tableGroup
	for _, k := range keys {
		var confs []*aggregate.Configuration
		var costs []*aggregate.Cost
		unknown := 0
		for _, c := range byKey[k] {
			if co := c.Cost(); co.Known() {
				confs, costs = append(confs, c), append(costs, co)
			} else {
				unknown++
			}
		}
		if len(confs) == 0 {
			continue
		}
		qs := confs[0].QuestionSet()
		id := k.id("cost")
		tv := costTableView{ID: id, Heading: k.heading(qs), Unknown: unknown,
			Caption: fmt.Sprintf("Benchmark version %s · question set %s · scoring protocol %s. Tokens, calls, latency and cost are means per round over the rounds that recorded them; "+
				"tokens per question divide by the questions asked in a round. Task success rate: mean over rounds under this protocol.", k.version, k.qs, k.protocol)}
		// The figure's x: dollars per round where every point has a cost, else tokens per question.
		allUSD := true
		for _, co := range costs {
			allUSD = allUSD && co.CostRounds > 0
		}
		var xs, ys []float64
		var pts []int
		for i, c := range confs {
			co := costs[i]
			if x, ok := co.TokensPerQuestion(); ok || allUSD {
				if allUSD {
					x = co.CostUSD
				}
				xs, ys, pts = append(xs, x), append(ys, c.Summaries[aggregate.TaskSuccessRate].Mean), append(pts, i)
			}
		}
		front := map[int]bool{}
		for _, j := range aggregate.ParetoFront(xs, ys) {
			front[pts[j]] = true
		}
		for i, c := range confs {
			co := costs[i]
			perQ, okQ := co.TokensPerQuestion()
			tv.Rows = append(tv.Rows, costRowView{configColumns: v.configColumns(c, confHref(c)), Success: fmtPct(c.Summaries[aggregate.TaskSuccessRate].Mean),
				Prompt: orDash(co.TokenRounds > 0, strconv.FormatFloat(co.PromptTokens, 'f', 0, 64)), Completion: orDash(co.TokenRounds > 0, strconv.FormatFloat(co.CompletionTokens, 'f', 0, 64)),
				PerQ: orDash(okQ, strconv.FormatFloat(perQ, 'f', 0, 64)), Calls: orDash(co.CallRounds > 0, strconv.FormatFloat(co.Calls, 'f', 0, 64)),
				Latency: orDash(co.LatencyRounds > 0, strconv.FormatFloat(co.LatencySeconds, 'f', 1, 64)), USD: orDash(co.CostRounds > 0, strconv.FormatFloat(co.CostUSD, 'f', 4, 64)),
				Frontier: front[i], Rounds: co.Rounds})
		}
		if len(xs) >= 2 {
			f := &plots.CostFigure{ID: "cost-" + id, Title: "Task success vs cost: " + tv.Heading, XLabel: "tokens per question (prompt + completion, mean per round)"}
			if allUSD {
				f.XLabel = "US dollars per round (mean)"
			}
			for j, i := range pts {
				c := confs[i]
				f.Points = append(f.Points, plots.CostPoint{Label: c.Model.DisplayName + " · " + c.SystemLabel() + sourceSuffix(c.Key.RetrievalSource),
					Cost: xs[j], Accuracy: ys[j], Frontier: front[i], Configuration: c.Key.String()})
			}
			f.Caption = fmt.Sprintf("Each point is a configuration: task success rate (mean over rounds, %s) against %s. The dashed line is the Pareto frontier: "+
				"the configurations that no other is cheaper and at least as accurate as. Axes span the points; a label that would overlap another is left out (the table above lists every point).", k.protocol, f.XLabel)
			figs = append(figs, f)
			tv.Figure = newFigureView("figures/"+f.ID+".svg", "figures/"+f.ID+".csv", f.Title, f.Caption, plots.CostDisplayWidthPx)
		}
		tables = append(tables, tv)
		groups = append(groups, tableGroup{k.qs, k.protocol})
	}
	for i := range tables {
		tables[i].Caption += differsFromOthers(i, groups)
	}
	return tables, figs
}

func sourceSuffix(s int) string {
	if s == 0 {
		return ""
	}
	return " · source " + strconv.Itoa(s)
}

func (w *writer) writeCost(v *views) {
	tables, figs := v.costTables()
	for _, f := range figs {
		svg, err := f.SVG()
		if err != nil {
			w.err = err
			return
		}
		w.static("figures/"+f.ID+".svg", svg)
		w.static("figures/"+f.ID+".csv", f.CSV())
	}
	if tables == nil {
		tables = []costTableView{}
	}
	w.page(CostPath, "Cost", "cost", map[string]any{"tables": tables})
}
