package plots

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"image/color"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// IntervalPoint is one configuration of an interval figure: its task
// success rate, mean over rounds, and the 95 % Student t interval of that
// mean, percent (0–100).
type IntervalPoint struct {
	Label string // model · system · source, as the table's row
	Mean  float64
	// Lo and Hi bound the interval; equal to Mean when N < 2 (no interval:
	// the point is drawn without whiskers).
	Lo, Hi float64
	N      int
	// QLo and QHi bound the 95 % interval over questions and rounds
	// (clustered by question), percent; QN is its questions, 0 when none
	// exists (totals only: not drawn).
	QLo, QHi float64
	QN       int
	// Below marks a point whose mean is under the figure's floor (drawn in
	// floorColor).
	Below         bool
	Configuration string // the configuration key
}

// IntervalFigure is a ranked table's headline task success rates as points
// with their 95 % intervals, one line per configuration in the table's
// order (the first on top): the t-interval over rounds as a thin line and,
// where per-question outcomes exist, the wider interval over questions and
// rounds as a broad pale bar behind it, with the benchmark audit's ceiling (the
// reference solution) and floor (a trivial baseline) drawn as vertical
// lines across them.
type IntervalFigure struct {
	ID, Title, Caption string
	XLabel             string // e.g. "task success rate (%), mattools-v1"
	Points             []IntervalPoint
	// Ceiling and Floor are the audit's values, percent; CeilingLabel and
	// FloorLabel name them in the legend (e.g. "reference solution 84.95 %").
	Ceiling, Floor           float64
	CeilingLabel, FloorLabel string
}

// IntervalWidthInches is the width of an interval figure (shown
// DisplayWidthPx wide); its height grows with its points
// (IntervalRowInches each).
const (
	IntervalWidthInches = 8.0
	IntervalRowInches   = 0.2
)

var (
	pointColor   = color.RGBA{0x00, 0x72, 0xB2, 0xFF} // Okabe–Ito blue
	floorColor   = color.RGBA{0xD5, 0x5E, 0x00, 0xFF} // vermillion: below the floor, and the floor line
	ceilingColor = color.RGBA{0x00, 0x9E, 0x73, 0xFF} // bluish green
	// questionsColor is the interval over questions and rounds: Okabe–Ito
	// sky blue, pale, drawn broad behind the rounds' line.
	questionsColor = color.NRGBA{R: 0x56, G: 0xB4, B: 0xE9, A: 0x80}
)

// SVG renders the figure; equal figures give equal bytes. The x axis runs
// from 0 to 100 %, the labels are the points' (escaped by gonum's SVG
// writer), the legend sits in a strip above the plot.
func (f *IntervalFigure) SVG() ([]byte, error) {
	if len(f.Points) == 0 {
		return nil, fmt.Errorf("figure %s: no point", f.ID)
	}
	n := len(f.Points)
	wIn, hIn := float64(IntervalWidthInches), 1.3+IntervalRowInches*float64(n)
	canvas := vgsvg.New(vg.Length(wIn)*vg.Inch, vg.Length(hIn)*vg.Inch)
	full := draw.New(canvas)
	px := pxScale(wIn)

	p := plot.New()
	p.X.Label.Text = f.XLabel
	p.X.Label.TextStyle.Font.Size = pt(LabelPx, px)
	p.X.Tick.Label.Font.Size = pt(TickPx, px)
	p.Y.Tick.Label.Font.Size = pt(TickPx, px)
	labels := make([]string, n)
	for i, pt := range f.Points {
		labels[n-1-i] = pt.Label // the first point on top
	}
	p.NominalY(labels...)
	p.Y.Min, p.Y.Max = -0.7, float64(n)-0.3
	p.X.Min, p.X.Max = 0, 100
	p.X.Padding, p.Y.Padding = 0, 0
	p.X.Tick.Marker = plot.ConstantTicks(percentTicks(100))
	grid := plotter.NewGrid()
	grid.Horizontal.Width = 0
	p.Add(grid)

	vline := func(x float64, c color.Color) (*plotter.Line, error) {
		l, err := plotter.NewLine(plotter.XYs{{X: x, Y: p.Y.Min}, {X: x, Y: p.Y.Max}})
		if err != nil {
			return nil, err
		}
		l.LineStyle.Color, l.LineStyle.Width, l.LineStyle.Dashes = c, vg.Points(1.5), []vg.Length{vg.Points(5), vg.Points(3)}
		return l, nil
	}
	ceil, err := vline(f.Ceiling, ceilingColor)
	if err != nil {
		return nil, err
	}
	floor, err := vline(f.Floor, floorColor)
	if err != nil {
		return nil, err
	}
	p.Add(ceil, floor)

	// The intervals over questions and rounds first, under everything else.
	var qbar *plotter.Line
	for i, q := range f.Points {
		if q.QN < 2 || !(q.QHi > q.QLo) {
			continue
		}
		y := float64(n - 1 - i)
		b, err := plotter.NewLine(plotter.XYs{{X: max(q.QLo, p.X.Min), Y: y}, {X: min(q.QHi, p.X.Max), Y: y}})
		if err != nil {
			return nil, err
		}
		b.LineStyle.Color, b.LineStyle.Width = questionsColor, vg.Points(7)
		p.Add(b)
		qbar = b
	}
	var above, below plotter.XYs
	for i, q := range f.Points {
		y := float64(n - 1 - i)
		c := pointColor
		if q.Below {
			c = floorColor
			below = append(below, plotter.XY{X: q.Mean, Y: y})
		} else {
			above = append(above, plotter.XY{X: q.Mean, Y: y})
		}
		if q.N >= 2 && q.Hi > q.Lo {
			// drawn within the axis (0–100 %); the CSV keeps the interval as computed
			w, err := plotter.NewLine(plotter.XYs{{X: max(q.Lo, p.X.Min), Y: y}, {X: min(q.Hi, p.X.Max), Y: y}})
			if err != nil {
				return nil, err
			}
			w.LineStyle.Color, w.LineStyle.Width = c, vg.Points(1.2)
			p.Add(w)
		}
	}
	var entries []legendEntry
	for _, s := range []struct {
		xys   plotter.XYs
		c     color.Color
		label string
	}{{above, pointColor, "mean and 95 % t-interval over rounds"}, {below, floorColor, "below the floor"}} {
		if len(s.xys) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(s.xys)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle.Color, sc.GlyphStyle.Shape, sc.GlyphStyle.Radius = s.c, draw.CircleGlyph{}, vg.Points(3)
		p.Add(sc)
		entries = append(entries, legendEntry{s.label, sc})
	}
	if qbar != nil {
		entries = append(entries, legendEntry{"95 % interval over questions and rounds (clustered by question)", qbar})
	}
	entries = append(entries, legendEntry{"ceiling: " + f.CeilingLabel, ceil}, legendEntry{"floor: " + f.FloorLabel, floor})

	legendH := drawLegend(full, entries, px)
	dc := draw.Crop(full, vg.Millimeter*2, -vg.Millimeter*4, vg.Millimeter*2, -legendH)
	p.Draw(dc)
	var buf bytes.Buffer
	if _, err := canvas.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// CSV is the data behind the figure: one line per point in the figure's
// order (label, configuration, n, mean, ci95_lo, ci95_hi, below_floor;
// percent, 4 decimals; the interval empty when n < 2; then questions,
// ci95q_lo, ci95q_hi: the interval over questions and rounds, empty with
// questions 0 when none), then the ceiling and the floor (label and mean
// only).
func (f *IntervalFigure) CSV() []byte {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write([]string{"label", "configuration", "n", "mean", "ci95_lo", "ci95_hi", "below_floor", "questions", "ci95q_lo", "ci95q_hi"})
	f4 := func(x float64) string { return strconv.FormatFloat(x, 'f', 4, 64) }
	for _, q := range f.Points {
		lo, hi := "", ""
		if q.N >= 2 {
			lo, hi = f4(q.Lo), f4(q.Hi)
		}
		qn, qlo, qhi := 0, "", ""
		if q.QN >= 2 {
			qn, qlo, qhi = q.QN, f4(q.QLo), f4(q.QHi)
		}
		w.Write([]string{csvSafe(q.Label), csvSafe(q.Configuration), strconv.Itoa(q.N), f4(q.Mean), lo, hi, strconv.FormatBool(q.Below), strconv.Itoa(qn), qlo, qhi})
	}
	w.Write([]string{csvSafe("ceiling: " + f.CeilingLabel), "", "1", f4(f.Ceiling), "", "", "false", "0", "", ""})
	w.Write([]string{csvSafe("floor: " + f.FloorLabel), "", "1", f4(f.Floor), "", "", "false", "0", "", ""})
	w.Flush()
	return buf.Bytes()
}
