package plots

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
	"github.com/mattools-leaderboard/leaderboard/site/paperonly"
)

// StdNote is the std convention, stated in every caption.
const StdNote = "Bars: mean over rounds; error bars: population standard deviation (divisor n), as in the MatTools paper."

// ForTable returns the figure of a leaderboard table: Figure 4's layout for a
// single-LLM table, Figure 5's for LLM-RAG, Figure 6's for advanced systems;
// nil for QA tables (Table 1 has no figure) and for tables without rows.
// paper holds the paper-only values; they are drawn (marked) only in a
// table of MatTools' original scoring protocol on the full question set.
func ForTable(t *aggregate.Table, paper []paperonly.Value) *Figure {
	if len(t.Rows) == 0 {
		return nil
	}
	var f *Figure
	switch t.Board {
	case aggregate.BoardSingleLLM:
		f = singleLLM(t)
	case aggregate.BoardLLMRAG:
		f = llmRAG(t)
	case aggregate.BoardAdvanced:
		f = advanced(t, paper)
	default:
		return nil
	}
	f.TableID = t.ID
	if PaperTable(t) {
		f.Caption += " Bars in the paper's order (" + paperFigure[t.Board] + "), as it shows them."
	} else if t.Board == aggregate.BoardAdvanced {
		f.Caption += " Bars in the table's order: each model's LLM-RAG reference beside its advanced systems."
	} else {
		orderByHeadline(f)
		f.Caption += " Bars ordered by task success rate (mean over rounds), best first."
	}
	return f
}

// paperFigure names the paper's figure a board's figures are laid out as.
var paperFigure = map[aggregate.Board]string{aggregate.BoardSingleLLM: "Figure 4", aggregate.BoardLLMRAG: "Figure 5", aggregate.BoardAdvanced: "Figure 6"}

// orderByHeadline sorts every panel's categories by the task success rate,
// best first: a category's score is the mean of its task success bars (the
// bars of series "Task success rate", or every bar of a panel of that
// title: LLM-RAG's, one per retrieval source). Categories without such a bar
// go last; ties keep their order. The bars themselves (and so the CSV) keep
// theirs.
func orderByHeadline(f *Figure) {
	head := aggregate.TaskSuccessRate.Title()
	sum, n := map[string]float64{}, map[string]int{}
	for _, pn := range f.Panels {
		for _, b := range pn.Bars {
			if b.Series == head || pn.Title == head {
				sum[b.Category] += b.Mean
				n[b.Category]++
			}
		}
	}
	score := func(c string) float64 {
		if n[c] == 0 {
			return -1
		}
		return sum[c] / float64(n[c])
	}
	for i := range f.Panels {
		slices.SortStableFunc(f.Panels[i].Categories, func(a, b string) int { return cmp.Compare(score(b), score(a)) })
	}
}

func caption(t *aggregate.Table, what string) string {
	return fmt.Sprintf("%s Benchmark version %s, scoring protocol %s, question set %s. %s",
		what, t.BenchmarkVersion, t.ScoringProtocol, t.QuestionSet, StdNote)
}

func bar(category, series string, c *aggregate.Cell) Bar {
	return Bar{Category: category, Series: series, Mean: c.Summary.Mean, Std: c.Summary.PopStd, N: c.Summary.N,
		Configuration: c.Configuration.Key.String()}
}

// rowLabels returns one x label per row: the model's display name, with
// whatever else is needed to tell rows apart (system and its variant,
// retrieval source, provenance). With the system, a label reads "Agentic
// RAG (GPT-4o, source 4)", "Self-reflection LLM-doc RAG (feedback variant;
// GPT-4o, source 4)" or, for a reference row, "LLM-RAG, source 4
// (reference; GPT-4o)".
func rowLabels(rows []*aggregate.Row, withSystem bool) []string {
	labels := make([]string, len(rows))
	count := map[string]int{}
	for i, r := range rows {
		l := r.Model.DisplayName
		if withSystem {
			inner := r.Model.DisplayName
			if r.RetrievalSource > 0 && !r.Reference { // a reference label names its source
				inner += fmt.Sprintf(", source %d", r.RetrievalSource)
			}
			sys := r.SystemLabel()
			if head, ok := strings.CutSuffix(sys, ")"); ok {
				l = head + "; " + inner + ")"
			} else {
				l = sys + " (" + inner + ")"
			}
		}
		labels[i] = l
		count[l]++
	}
	var provs []string
	for _, r := range rows {
		provs = append(provs, r.Provenance)
	}
	for i, r := range rows {
		if count[labels[i]] > 1 {
			labels[i] += " [" + provenanceWords(r.Provenance, provs) + "]"
		}
	}
	return labels
}

// provenanceWords names a configuration provenance as the boards do: its
// badge ("as published", "re-executed", …; aggregate.BadgeOf), never the raw
// value ("rescored:imported"). When another of the provenances all has the
// same badge (a re-executed runner run beside re-executed published
// answers), it adds whose answers they are.
func provenanceWords(p string, all []string) string {
	b := aggregate.BadgeOf(p)
	for _, q := range all {
		if q != p && aggregate.BadgeOf(q) == b {
			return string(b) + ", " + familyWords(aggregate.Family(p))
		}
	}
	return string(b)
}

// familyWords names a provenance family (aggregate.Family) briefly.
func familyWords(f string) string {
	switch {
	case f == "published":
		return "published answers"
	case f == string(results.ProvenanceRunner):
		return "runner answers"
	case strings.HasPrefix(f, "submitted:"):
		return "submission " + strings.TrimPrefix(f, "submitted:")
	}
	return f
}

func figureID(kind string, t *aggregate.Table) string { return kind + "-" + t.ID }

// singleLLM: Figure 4. Models along x (the table's order), function runnable
// rate and task success rate side by side.
func singleLLM(t *aggregate.Table) *Figure {
	labels := rowLabels(t.Rows, false)
	pn := Panel{Title: "Single LLM", YLabel: "%", Categories: labels}
	for _, col := range t.Columns {
		pn.Series = append(pn.Series, col.Metric.Title())
	}
	for i, r := range t.Rows {
		for ci, col := range t.Columns {
			if c := r.Cells[ci]; c != nil {
				pn.Bars = append(pn.Bars, bar(labels[i], col.Metric.Title(), c))
			}
		}
	}
	return &Figure{ID: figureID("single-llm", t), Title: "Single LLM (paper Figure 4 layout)",
		Caption: caption(t, "Function runnable rate and task success rate per model, single-LLM system."),
		Panels:  []Panel{pn}, WidthInches: 8, HeightInches: 4.5}
}

// llmRAG: Figure 5. Two panels (function runnable rate, task success rate);
// models along x, one bar per retrieval source.
func llmRAG(t *aggregate.Table) *Figure {
	var models []string
	modelOf := map[*aggregate.Row]string{}
	var sources []int
	var provs []string
	for _, r := range t.Rows {
		provs = append(provs, r.Provenance)
	}
	for _, r := range t.Rows {
		label := r.Model.DisplayName
		if aggregate.BadgeOf(r.Provenance) != aggregate.BadgePublished {
			label += " [" + provenanceWords(r.Provenance, provs) + "]"
		}
		modelOf[r] = label
		if !slices.Contains(models, label) {
			models = append(models, label)
		}
		if !slices.Contains(sources, r.RetrievalSource) {
			sources = append(sources, r.RetrievalSource)
		}
	}
	slices.Sort(sources)
	series := make([]string, len(sources))
	for i, s := range sources {
		series[i] = "Retrieval source " + aggregate.SourceTitle(s)
	}
	fig := &Figure{ID: figureID("llm-rag", t), Title: "LLM-RAG (paper Figure 5 layout)",
		Caption:     caption(t, "LLM-RAG per model and retrieval source (1 pymatgen code, 2 official docs, 3 LLM docs chunked, 4 LLM docs per object)."),
		WidthInches: 11, HeightInches: 4.5}
	for ci, col := range t.Columns {
		pn := Panel{Title: col.Metric.Title(), YLabel: "%", Categories: models, Series: series}
		for _, r := range t.Rows {
			if c := r.Cells[ci]; c != nil {
				pn.Bars = append(pn.Bars, bar(modelOf[r], "Retrieval source "+aggregate.SourceTitle(r.RetrievalSource), c))
			}
		}
		fig.Panels = append(fig.Panels, pn)
	}
	return fig
}

// advanced: Figure 6. Systems along x, the two metrics side by side; the
// paper-only GraphRAG (LightRAG) bars, when drawn, are marked.
func advanced(t *aggregate.Table, paper []paperonly.Value) *Figure {
	labels := rowLabels(t.Rows, true)
	pn := Panel{Title: "Advanced systems", YLabel: "%"}
	for _, col := range t.Columns {
		pn.Series = append(pn.Series, col.Metric.Title())
	}
	var paperBars []Bar
	if PaperTable(t) {
		for _, v := range paper { // the paper's figure: MatTools' own tool usage
			if v.Benchmark != results.BenchmarkToolUsage || !v.NoRawData() || tableHas(t, v) {
				continue
			}
			cat := aggregate.SystemTitle(v.System) + " (paper)"
			if !slices.Contains(pn.Categories, cat) {
				pn.Categories = append(pn.Categories, cat)
			}
			paperBars = append(paperBars, Bar{Category: cat, Series: aggregate.Metric(v.Metric).Title(), Mean: v.Percent, PaperOnly: true})
		}
	}
	pn.Categories = append(pn.Categories, labels...)
	pn.Bars = append(pn.Bars, paperBars...)
	for i, r := range t.Rows {
		for ci, col := range t.Columns {
			if c := r.Cells[ci]; c != nil {
				pn.Bars = append(pn.Bars, bar(labels[i], col.Metric.Title(), c))
			}
		}
	}
	what := "Function runnable rate and task success rate per advanced system."
	if slices.ContainsFunc(t.Rows, func(r *aggregate.Row) bool { return r.Reference }) {
		what += fmt.Sprintf(" Bars labelled “reference”: the model's LLM-RAG configuration on retrieval source %d, from the LLM-RAG table, beside its advanced systems.",
			aggregate.ReferenceSource)
	}
	return &Figure{ID: figureID("advanced", t), Title: "Advanced systems (paper Figure 6 layout)",
		Caption: caption(t, what+" Grey hatched bars: "+paperonly.Mark+" (values from the paper; see the methodology page)."),
		// Wider as the systems along x grow beyond Figure 6's few.
		Panels: []Panel{pn}, WidthInches: max(8, 1.1*float64(len(pn.Categories))), HeightInches: 4.5}
}

// PaperTable reports whether t is comparable with the paper's own numbers:
// MatTools' original scoring protocol on the full question set of benchmark
// version 2025-05. Only such tables show paper-only values.
func PaperTable(t *aggregate.Table) bool {
	return t.ScoringProtocol == results.ProtocolMatToolsOriginal && t.BenchmarkVersion == results.BenchmarkVersion2025_05 &&
		(t.QuestionSet == results.QuestionSetAll || strings.HasPrefix(t.QuestionSet, results.QuestionSetAll+"/"))
}

// tableHas reports whether the table has a computed row for v's configuration
// (then the paper-only value is a label that differs, not a missing row).
func tableHas(t *aggregate.Table, v paperonly.Value) bool {
	for _, r := range t.Rows {
		if r.System == v.System && r.Model.ID == v.Model && r.RetrievalSource == v.RetrievalSource {
			return true
		}
	}
	return false
}

// All returns the figures of every table of lb, board by board.
func All(lb *aggregate.Leaderboard, paper []paperonly.Value) []*Figure {
	var out []*Figure
	for _, b := range aggregate.Boards {
		for _, t := range lb.Tables[b] {
			if f := ForTable(t, paper); f != nil {
				out = append(out, f)
			}
		}
	}
	return out
}
