package plots

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
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

// SVG renders the figure (7 × 4.5 inches); equal figures give equal bytes.
func (f *CostFigure) SVG() ([]byte, error) {
	p := plot.New()
	p.Title.Text = f.Title
	p.X.Label.Text = f.XLabel
	p.Y.Label.Text = "Task success rate (%)"
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
	p.Add(sc)
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
		p.Legend.Add("Pareto frontier", ln)
	}
	p.Legend.Add("configuration", sc)
	p.Legend.Top = true
	labels, err := plotter.NewLabels(plotter.XYLabels{XYs: all, Labels: pointLabels(f.Points)})
	if err != nil {
		return nil, err
	}
	labels.Offset = vg.Point{X: vg.Points(4), Y: vg.Points(2)}
	for i := range labels.TextStyle {
		labels.TextStyle[i].Font = plot.DefaultFont
		labels.TextStyle[i].Font.Size = vg.Points(7)
	}
	p.Add(labels)
	xmax, ymax := 0.0, 0.0
	for _, pt := range all {
		xmax, ymax = max(xmax, pt.X), max(ymax, pt.Y)
	}
	// y from 0 to the next multiple of 10 above the best point, plus headroom for the legend.
	p.Y.Min, p.Y.Max = 0, math.Min(100, math.Ceil(ymax*1.3/10)*10+10)
	p.X.Min, p.X.Max = 0, xmax*1.35+1e-9 // room for the labels
	w, h := 7*vg.Inch, 4.5*vg.Inch
	canvas := vgsvg.New(w, h)
	p.Draw(draw.New(canvas))
	var buf bytes.Buffer
	if _, err := canvas.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
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
