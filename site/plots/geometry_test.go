package plots_test

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"

	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
	"github.com/mattools-leaderboard/leaderboard/site/paperonly"
	"github.com/mattools-leaderboard/leaderboard/site/plots"
	"github.com/mattools-leaderboard/leaderboard/site/sitetest"
)

var (
	svgSize  = regexp.MustCompile(`viewBox="0 0 ([0-9.]+) ([0-9.]+)"`)
	svgText  = regexp.MustCompile(`(<g transform="rotate\([^)]*\)">\n)?<text x="([-0-9.e]+)" y="([-0-9.e]+)" transform="scale\(1, -1\)"\n\tstyle="[^"]*font-size:([0-9.]+)px">([^<]*)</text>`)
	svgWhite = regexp.MustCompile(`<path d="M[-0-9.]+,([-0-9.]+)L[-0-9.]+,([-0-9.]+)L[-0-9.]+,([-0-9.]+)L[-0-9.]+,([-0-9.]+)Z" style="fill:#FFFFFF" />`)
)

type svgLabel struct {
	x, y, size float64 // y upwards from the bottom (gonum's canvas), points
	rotated    bool
	text       string
}

func svgLabels(t *testing.T, svg []byte) (w, h float64, labels []svgLabel) {
	t.Helper()
	m := svgSize.FindSubmatch(svg)
	if m == nil {
		t.Fatal("SVG has no viewBox")
	}
	w, _ = strconv.ParseFloat(string(m[1]), 64)
	h, _ = strconv.ParseFloat(string(m[2]), 64)
	for _, m := range svgText.FindAllSubmatch(svg, -1) {
		x, _ := strconv.ParseFloat(string(m[2]), 64)
		y, _ := strconv.ParseFloat(string(m[3]), 64)
		s, _ := strconv.ParseFloat(string(m[4]), 64)
		labels = append(labels, svgLabel{x: x, y: -y, size: s, rotated: len(m[1]) > 0, text: string(m[5])})
	}
	return w, h, labels
}

// TestBarFiguresFitAndKeepTheLegendOutside reads the rendered SVG of every
// fixture bar figure: every unrotated text (titles, legend, ticks, values)
// lies inside the canvas; the legend's labels are at least
// plots.LegendPx CSS pixels tall at the figure's display width and sit
// above every panel's plot area (its white background); the y axis's top
// tick is the next multiple of 10 (of 20 above 50) at least 6 above the
// highest bar plus its error bar (from the figure's CSV), not a fixed 100 %.
func TestBarFiguresFitAndKeepTheLegendOutside(t *testing.T) {
	lb := aggregate.Build(sitetest.Runs(), aggregate.DefaultCatalog())
	figs := plots.All(lb, paperonly.Values())
	if len(figs) == 0 {
		t.Fatal("no figure")
	}
	for _, f := range figs {
		svg, err := f.SVG()
		if err != nil {
			t.Fatal(err)
		}
		w, h, labels := svgLabels(t, svg)
		if len(labels) < 5 {
			t.Fatalf("%s: %d texts read from the SVG", f.ID, len(labels))
		}
		panelTop := 0.0
		for _, m := range svgWhite.FindAllSubmatch(svg, -1) {
			for _, g := range m[1:] {
				y, _ := strconv.ParseFloat(string(g), 64)
				panelTop = math.Max(panelTop, y)
			}
		}
		if panelTop == 0 {
			t.Fatalf("%s: no panel background found", f.ID)
		}
		series := map[string]bool{}
		for _, pn := range f.Panels {
			for _, s := range pn.Series {
				series[s] = true
			}
		}
		legend, topTick := 0, 0.0
		for _, l := range labels {
			if l.rotated {
				continue
			}
			if l.x < 0 || l.x > w || l.y-l.size/4 < 0 || l.y+l.size > h {
				t.Errorf("%s: text %q at (%.1f, %.1f), %.1f pt, outside the %g × %g canvas", f.ID, l.text, l.x, l.y, l.size, w, h)
			}
			if series[l.text] {
				legend++
				if px := l.size * plots.DisplayWidthPx / w; px < plots.LegendPx-0.01 {
					t.Errorf("%s: legend label %q is %.1f px at display size, want ≥ %d", f.ID, l.text, px, plots.LegendPx)
				}
				if l.y-l.size/2 < panelTop {
					t.Errorf("%s: legend label %q (baseline %.1f) overlaps the plot area (top %.1f)", f.ID, l.text, l.y, panelTop)
				}
			}
			if v, err := strconv.Atoi(l.text); err == nil && l.y < panelTop {
				topTick = math.Max(topTick, float64(v))
			}
		}
		if legend != len(series) {
			t.Errorf("%s: %d legend labels found, want one per series (%d)", f.ID, legend, len(series))
		}
		recs, err := csv.NewReader(bytes.NewReader(f.CSV())).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		high := 0.0
		for _, r := range recs[1:] {
			m, _ := strconv.ParseFloat(r[4], 64)
			s, _ := strconv.ParseFloat(r[5], 64)
			high = math.Max(high, m+s)
		}
		want := math.Max(10, math.Ceil((high+6)/10)*10)
		if want > 50 {
			want = math.Ceil((high+6)/20) * 20
		}
		if topTick != want {
			t.Errorf("%s: top y tick %g for bars reaching %.2f %%, want %g", f.ID, topTick, high, want)
		}
	}
}

// TestFiguresOrderBarsByTaskSuccess: a figure of a table that is not the
// paper's (mattools-v1) orders its models by task success rate, best first,
// and says so; a paper table's figure keeps the table's order and says it is
// the paper's.
func TestFiguresOrderBarsByTaskSuccess(t *testing.T) {
	lb := aggregate.Build(sitetest.Runs(), aggregate.DefaultCatalog())
	checked := 0
	for _, b := range []aggregate.Board{aggregate.BoardSingleLLM, aggregate.BoardLLMRAG} {
		for _, tab := range lb.Tables[b] {
			f := plots.ForTable(tab, paperonly.Values())
			if f == nil {
				continue
			}
			paper := plots.PaperTable(tab)
			if paper != regexp.MustCompile(`the paper's order`).MatchString(f.Caption) {
				t.Errorf("%s: paper table %v, caption %q", f.ID, paper, f.Caption)
			}
			if paper {
				continue
			}
			head := aggregate.TaskSuccessRate.Title()
			for _, pn := range f.Panels {
				sum, n := map[string]float64{}, map[string]float64{}
				for _, bar := range f.Panels[len(f.Panels)-1].Bars {
					if bar.Series == head || f.Panels[len(f.Panels)-1].Title == head {
						sum[bar.Category] += bar.Mean
						n[bar.Category]++
					}
				}
				for i := 1; i < len(pn.Categories); i++ {
					a, c := pn.Categories[i-1], pn.Categories[i]
					if sum[a]/n[a] < sum[c]/n[c] {
						t.Errorf("%s: %q (%.2f) before %q (%.2f)", f.ID, a, sum[a]/n[a], c, sum[c]/n[c])
					}
				}
				checked++
			}
		}
	}
	if checked == 0 {
		t.Fatal("no figure of a non-paper table in the fixture")
	}
}

// TestCostFigureLabelsNeverOverlap renders a cost figure of 30 points
// packed close together and one far from them, with a title
// longer than the figure is wide: in the SVG the title lies inside the
// canvas, no two point labels' boxes (their width measured with the font
// the SVG names) overlap, some labels are thinned out, and the x axis's
// ticks stay within the points' span widened by 15 % a side, not from 0.
func TestCostFigureLabelsNeverOverlap(t *testing.T) {
	f := &plots.CostFigure{ID: "cost-dense", Title: "Task success vs cost: " + strings.Repeat("a long question set name ", 6), XLabel: "tokens per question"}
	names := map[string]bool{}
	for i := range 30 {
		p := plots.CostPoint{Label: fmt.Sprintf("Model %d · Single LLM", i), Cost: 1268 + float64(i%5)*6, Accuracy: 10 + float64(i/5)*0.3}
		f.Points = append(f.Points, p)
		names[p.Label] = true
	}
	// One far point squeezes the other 30 into a corner.
	f.Points = append(f.Points, plots.CostPoint{Label: "Far · LLM-RAG", Cost: 3000, Accuracy: 40})
	names["Far · LLM-RAG"] = true
	svg, err := f.SVG()
	if err != nil {
		t.Fatal(err)
	}
	w, h, labels := svgLabels(t, svg)
	type box struct{ x0, y0, x1, y1 float64 }
	var boxes []box
	var texts []string
	var ticks []float64
	for _, l := range labels {
		if l.rotated {
			continue
		}
		st := text.Style{Font: font.From(plot.DefaultFont, vg.Length(l.size)), Handler: plot.DefaultTextHandler}
		wd := float64(st.Width(l.text))
		switch {
		case strings.HasPrefix(l.text, "Task success vs cost"):
			if l.x < 0 || l.x+wd > w+0.5 || l.y+l.size > h || l.y < 0 {
				t.Errorf("title at (%.1f, %.1f), %.1f pt wide, outside the %g × %g canvas", l.x, l.y, wd, w, h)
			}
		case names[l.text]:
			b := box{l.x, l.y, l.x + wd, l.y + l.size*0.9}
			for i, o := range boxes {
				if b.x0 < o.x1 && o.x0 < b.x1 && b.y0 < o.y1 && o.y0 < b.y1 {
					t.Errorf("labels %q and %q overlap: %v, %v", texts[i], l.text, o, b)
				}
			}
			boxes, texts = append(boxes, b), append(texts, l.text)
		default:
			if v, err := strconv.ParseFloat(l.text, 64); err == nil && v >= 1000 {
				ticks = append(ticks, v)
			}
		}
	}
	if len(boxes) == 0 || len(boxes) == len(f.Points) {
		t.Errorf("%d of %d points labelled: want some labelled and, packed this close, some thinned", len(boxes), len(f.Points))
	}
	lo, hi := 1268.0, 3000.0
	for _, v := range ticks {
		if v < lo-0.15*(hi-lo)-1e-9 || v > hi+0.15*(hi-lo)+1e-9 {
			t.Errorf("x tick %g outside the points' span [%g, %g] widened by 15 %%", v, lo, hi)
		}
	}
	if len(ticks) == 0 {
		t.Error("no x tick label found")
	}
}

// TestFigureTextReadableAtTheNarrowestWidth reads every text of the
// fixture's bar figures and of an interval, a cost and a release-date figure
// (titles as long as the real site's): at its display width each is at
// least plots.ValuePx CSS pixels tall, so that at
// plots.MinDisplayWidthPx(display width), the narrowest the pages show a
// figure, none is under plots.ReadableTextPx; and MinDisplayWidthPx is the
// narrowest such width.
func TestFigureTextReadableAtTheNarrowestWidth(t *testing.T) {
	type svgAt struct {
		id      string
		widthPx int
		svg     func() ([]byte, error)
	}
	var figs []svgAt
	lb := aggregate.Build(sitetest.Runs(), aggregate.DefaultCatalog())
	for _, f := range plots.All(lb, paperonly.Values()) {
		figs = append(figs, svgAt{f.ID, plots.DisplayWidthPx, f.SVG})
	}
	iv := &plots.IntervalFigure{ID: "intervals", XLabel: "task success rate (%), mattools-v1, 28 questions", Ceiling: 84.95, CeilingLabel: "reference solution 84.95 %",
		Floor: 21.51, FloorLabel: "every property True 21.51 %", Points: []plots.IntervalPoint{
			{Label: "Gemini-2.0-Flash-Thinking · LLM-RAG · source 4", Mean: 45.9, Lo: 40.3, Hi: 51.4, N: 3, QLo: 20.1, QHi: 72.4, QN: 28, Configuration: "a"},
			{Label: "▼ GPT-3.5 · Single LLM", Mean: 4.3, Lo: -2.5, Hi: 11.1, N: 3, Below: true, Configuration: "b"}}}
	figs = append(figs, svgAt{iv.ID, plots.DisplayWidthPx, iv.SVG})
	cost := &plots.CostFigure{ID: "cost", XLabel: "tokens per question (prompt + completion, mean per round)",
		Title: "Task success vs cost: 28 questions (93 properties), question set executable-85659656/28, mattools-v1-strict", Points: []plots.CostPoint{
			{Label: "GPT-3.5 · Single LLM", Cost: 1268, Accuracy: 3.62, Frontier: true, Configuration: "a"},
			{Label: "GPT-4o · Single LLM", Cost: 1459, Accuracy: 18.36, Frontier: true, Configuration: "b"}}}
	figs = append(figs, svgAt{cost.ID, plots.CostDisplayWidthPx, cost.SVG})
	day := func(s string) time.Time { d, _ := time.Parse("2006-01-02", s); return d }
	rel := &plots.ReleaseFigure{ID: "release", Title: "Best task success rate over release date (49 questions, as published)", Points: []plots.ReleasePoint{
		{ModelID: "gpt-4o-2024-08-06", Label: "GPT-4o", ReleaseDate: "2024-08-06", Released: day("2024-08-06"), Weights: "closed", Success: 18.36, Configuration: "a"},
		{ModelID: "q", Label: "Qwen2.5-7B", ReleaseDate: "2024-09", Released: day("2024-09-01"), Weights: "open", Success: 4, Configuration: "b"}}}
	figs = append(figs, svgAt{rel.ID, plots.ReleaseDisplayWidthPx, rel.SVG})
	if len(figs) < 5 {
		t.Fatalf("%d figures, want the fixture's bar figures and three more", len(figs))
	}
	for _, f := range figs {
		svg, err := f.svg()
		if err != nil {
			t.Fatal(err)
		}
		w, _, labels := svgLabels(t, svg)
		if len(labels) < 5 {
			t.Fatalf("%s: %d texts read from the SVG", f.id, len(labels))
		}
		smallest := math.Inf(1)
		for _, l := range labels {
			px := l.size * float64(f.widthPx) / w
			smallest = math.Min(smallest, px)
			if px < plots.ValuePx-0.01 {
				t.Errorf("%s: text %q is %.2f CSS px at the %d px display width, want ≥ %d", f.id, l.text, px, f.widthPx, plots.ValuePx)
			}
		}
		narrow := plots.MinDisplayWidthPx(f.widthPx)
		if at := smallest * float64(narrow) / float64(f.widthPx); at < plots.ReadableTextPx-0.01 {
			t.Errorf("%s: at %d px its smallest text is %.2f px, want ≥ %d", f.id, narrow, at, plots.ReadableTextPx)
		}
	}
	for _, w := range []int{plots.DisplayWidthPx, plots.CostDisplayWidthPx, plots.ReleaseDisplayWidthPx} {
		n := plots.MinDisplayWidthPx(w)
		at := func(x int) float64 { return plots.ValuePx * float64(x) / float64(w) }
		if at(n) < plots.ReadableTextPx || at(n-1) >= plots.ReadableTextPx || n >= w {
			t.Errorf("MinDisplayWidthPx(%d) = %d: values %.3f px there, %.3f px at one pixel less; want the narrowest width with ≥ %d px, under %d",
				w, n, at(n), at(n-1), plots.ReadableTextPx, w)
		}
	}
}
