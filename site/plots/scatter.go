package plots

import (
	"bytes"
	"cmp"
	"encoding/csv"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// CostPoint is one configuration in an accuracy-vs-cost figure.
type CostPoint struct {
	Label string  // model · system · source
	Cost  float64 // x: the figure's cost unit (XLabel), lower is better
	// Accuracy is the task success rate, mean over rounds, percent 0–100.
	Accuracy float64
	// Frontier marks a point of the Pareto frontier (no other point is
	// cheaper and at least as accurate, or as cheap and more accurate).
	Frontier      bool
	Configuration string // the configuration key
}

// CostFigure is an accuracy-vs-cost scatter plot with its Pareto frontier
// drawn as a step line through the frontier points.
type CostFigure struct {
	ID, Title, Caption string
	XLabel             string // e.g. "tokens per question (prompt + completion)"
	Points             []CostPoint
}

var frontierColor = color.RGBA{0xD5, 0x5E, 0x00, 0xFF}

// CostDisplayWidthPx is the width, in CSS pixels, at which the cost page
// shows a cost figure (its img width, set by site/content from this
// constant); CostWidthInches and CostHeightInches size its SVG.
const (
	CostDisplayWidthPx = 672
	CostWidthInches    = 7
	CostHeightInches   = 4.5
)

// SVG renders the figure (CostWidthInches × CostHeightInches); equal
// figures give equal bytes. The title is shrunk until it fits the width, the
// legend sits in a strip above the plot, the axes span the points (with a
// margin), and each point's label goes right, left, above or below it,
// wherever it overlaps no other label, point or the plot's edge; a label
// that fits nowhere is left out (every point is in the table beside the
// figure and in its CSV).
func (f *CostFigure) SVG() ([]byte, error) {
	px := float64(CostDisplayWidthPx) / (CostWidthInches * 72)
	p := plot.New()
	p.Title.Text = f.Title
	p.Title.TextStyle.Font.Size = pt(TitlePx, px)
	w, h := vg.Length(CostWidthInches)*vg.Inch, vg.Length(CostHeightInches)*vg.Inch
	pad := vg.Millimeter * 2
	for p.Title.TextStyle.Width(f.Title) > w-2*pad && p.Title.TextStyle.Font.Size > vg.Points(6) {
		p.Title.TextStyle.Font.Size *= 0.95
	}
	p.X.Label.Text = f.XLabel
	p.Y.Label.Text = "Task success rate (%)"
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font.Size = pt(LabelPx, px)
		a.Tick.Label.Font.Size = pt(TickPx, px)
	}
	var all, front plotter.XYs
	for _, pt := range f.Points {
		all = append(all, plotter.XY{X: pt.Cost, Y: pt.Accuracy})
		if pt.Frontier {
			front = append(front, plotter.XY{X: pt.Cost, Y: pt.Accuracy})
		}
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("figure %s: no point", f.ID)
	}
	slices.SortFunc(front, func(a, b plotter.XY) int {
		switch {
		case a.X < b.X:
			return -1
		case a.X > b.X:
			return 1
		}
		return 0
	})
	sc, err := plotter.NewScatter(all)
	if err != nil {
		return nil, err
	}
	sc.GlyphStyle.Color = seriesColors[0]
	sc.GlyphStyle.Radius = vg.Points(3)
	sc.GlyphStyle.Shape = draw.CircleGlyph{}
	var entries []legendEntry
	if len(front) > 0 {
		// The frontier as a staircase: accuracy holds until the next frontier point.
		var steps plotter.XYs
		for i, pt := range front {
			if i > 0 {
				steps = append(steps, plotter.XY{X: pt.X, Y: front[i-1].Y})
			}
			steps = append(steps, pt)
		}
		ln, err := plotter.NewLine(steps)
		if err != nil {
			return nil, err
		}
		ln.LineStyle.Color = frontierColor
		ln.LineStyle.Width = vg.Points(1.2)
		ln.LineStyle.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
		p.Add(ln)
		entries = append(entries, legendEntry{"Pareto frontier", ln})
	}
	p.Add(sc)
	entries = append(entries, legendEntry{"configuration", sc})
	p.Add(&placedLabels{xys: all, labels: pointLabels(f.Points), size: pt(ValuePx, px), radius: sc.GlyphStyle.Radius})
	p.X.Min, p.X.Max = fitRange(all, func(q plotter.XY) float64 { return q.X }, 0)
	p.Y.Min, p.Y.Max = fitRange(all, func(q plotter.XY) float64 { return q.Y }, 100)
	canvas := vgsvg.New(w, h)
	full := draw.Crop(draw.New(canvas), pad, -pad, pad, -pad)
	legendH := drawLegend(full, entries, px)
	p.Draw(draw.Crop(full, 0, 0, 0, -legendH))
	var buf bytes.Buffer
	if _, err := canvas.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// fitRange returns an axis range around the values of xys: their span
// widened by 15 % on each side (5 % of the value, or 1, when they are all
// equal), not below 0 and, when top > 0, not above top.
func fitRange(xys plotter.XYs, v func(plotter.XY) float64, top float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, q := range xys {
		lo, hi = math.Min(lo, v(q)), math.Max(hi, v(q))
	}
	m := 0.15 * (hi - lo)
	if m == 0 {
		m = math.Max(0.05*math.Abs(hi), 1)
	}
	lo, hi = math.Max(0, lo-m), hi+m
	if top > 0 {
		hi = math.Min(top, hi)
	}
	return lo, hi
}

// placedLabels draws one label per point where it overlaps nothing
// already placed (labels, points, the data area's edges): to the right of
// the point, else left, above, below; a label with no free place is not
// drawn. Points are labelled from the top of the plot down.
type placedLabels struct {
	xys    plotter.XYs
	labels []string
	size   vg.Length
	radius vg.Length // of the points' glyphs
}

func (l *placedLabels) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	st := text.Style{Color: color.Black, Font: font.From(plot.DefaultFont, l.size), Handler: plot.DefaultTextHandler}
	var taken []vg.Rectangle
	for _, q := range l.xys {
		x, y := trX(q.X), trY(q.Y)
		r := l.radius
		taken = append(taken, vg.Rectangle{Min: vg.Point{X: x - r, Y: y - r}, Max: vg.Point{X: x + r, Y: y + r}})
	}
	order := make([]int, len(l.xys))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(l.xys[b].Y, l.xys[a].Y) })
	for _, i := range order {
		x, y := trX(l.xys[i].X), trY(l.xys[i].Y)
		wd, ht := st.Width(l.labels[i]), st.FontExtents().Height
		gap := l.radius + vg.Points(2)
		for _, min := range []vg.Point{
			{X: x + gap, Y: y - ht/2}, {X: x - gap - wd, Y: y - ht/2}, {X: x - wd/2, Y: y + gap}, {X: x - wd/2, Y: y - gap - ht},
		} {
			box := vg.Rectangle{Min: min, Max: vg.Point{X: min.X + wd, Y: min.Y + ht}}
			if box.Min.X < c.Min.X || box.Max.X > c.Max.X || box.Min.Y < c.Min.Y || box.Max.Y > c.Max.Y ||
				slices.ContainsFunc(taken, func(t vg.Rectangle) bool { return overlaps(t, box) }) {
				continue
			}
			taken = append(taken, box)
			c.FillText(st, box.Min, l.labels[i])
			break
		}
	}
}

// overlaps reports whether two rectangles share any area.
func overlaps(a, b vg.Rectangle) bool {
	return a.Min.X < b.Max.X && b.Min.X < a.Max.X && a.Min.Y < b.Max.Y && b.Min.Y < a.Max.Y
}

func pointLabels(ps []CostPoint) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Label
	}
	return out
}

// CSV writes the points: label, cost, accuracy (percent), frontier
// ("true"/"false") and configuration key, 4 decimals.
func (f *CostFigure) CSV() []byte {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write([]string{"label", "cost", "cost_unit", "task_success_rate", "pareto_frontier", "configuration"})
	for _, p := range f.Points {
		w.Write([]string{csvSafe(p.Label), strconv.FormatFloat(p.Cost, 'f', 4, 64), f.XLabel, strconv.FormatFloat(p.Accuracy, 'f', 4, 64),
			strconv.FormatBool(p.Frontier), csvSafe(p.Configuration)})
	}
	w.Flush()
	return buf.Bytes()
}
