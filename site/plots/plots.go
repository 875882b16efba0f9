// Package plots draws the leaderboard's figures as SVG with gonum/plot: bar
// charts of mean ± population std over rounds, laid out as the MatTools
// paper's Figures 4 (single LLM), 5 (LLM-RAG, two panels) and 6 (advanced
// systems), from whatever configurations a table holds. Each figure also
// gives the data behind it as CSV. It reads aggregated tables
// (site/aggregate) and the paper-only values (site/paperonly); it does no I/O.
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
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/mattools-leaderboard/leaderboard/site/paperonly"
)

func init() {
	// The default is Liberation Serif; the site's text is sans-serif.
	plot.DefaultFont = font.Font{Typeface: "Liberation", Variant: "Sans"}
}

// Bar is one bar: the mean of a metric over a configuration's rounds with
// its population std (the error bar) and n, in percent (0–100).
type Bar struct {
	Category string // the x-axis group (model or system)
	Series   string // the legend entry (metric or retrieval source)
	Mean     float64
	Std      float64 // population std (divisor n); 0 when N == 1
	N        int
	// Configuration is the aggregated configuration's key ("" for a paper-only bar).
	Configuration string
	// PaperOnly marks a value from site/paperonly: drawn hatched-grey with
	// the paper-only mark in the legend, and Std is the paper's error bar
	// when it states one.
	PaperOnly bool
}

// Panel is one chart of a figure: categories along x, one bar per series in each.
type Panel struct {
	Title      string
	YLabel     string
	Categories []string // in display order
	Series     []string // in legend order
	Bars       []Bar
}

// Figure is one figure: one or more panels side by side.
type Figure struct {
	ID      string // file base name, URL-safe
	TableID string // the aggregate.Table the figure draws
	Title   string
	Caption string // what the figure shows, with the std convention
	Panels  []Panel
	// WidthInches and HeightInches size the SVG.
	WidthInches, HeightInches float64
}

// seriesColors are the bar colours, in series order (colour-blind safe, Okabe–Ito).
var seriesColors = []color.RGBA{
	{0x00, 0x72, 0xB2, 0xFF}, {0xE6, 0x9F, 0x00, 0xFF}, {0x00, 0x9E, 0x73, 0xFF},
	{0xCC, 0x79, 0xA7, 0xFF}, {0x56, 0xB4, 0xE9, 0xFF}, {0xD5, 0x5E, 0x00, 0xFF},
}

var paperOnlyColor = color.RGBA{0xDD, 0xDD, 0xDD, 0xFF}

// SVG renders the figure. The output depends only on the figure's contents
// (no timestamps), so equal figures give equal bytes. Text (model names) is
// escaped by gonum's SVG writer.
func (f *Figure) SVG() ([]byte, error) {
	w, h := vg.Length(f.WidthInches)*vg.Inch, vg.Length(f.HeightInches)*vg.Inch
	canvas := vgsvg.New(w, h)
	full := draw.New(canvas)
	px := pxScale(f.WidthInches)
	plots := make([]*plot.Plot, len(f.Panels))
	var entries []legendEntry
	for i := range f.Panels {
		p, es, err := f.Panels[i].plot(px)
		if err != nil {
			return nil, fmt.Errorf("figure %s: %w", f.ID, err)
		}
		plots[i] = p
		for _, e := range es {
			if !slices.ContainsFunc(entries, func(x legendEntry) bool { return x.label == e.label }) {
				entries = append(entries, e)
			}
		}
	}
	// One legend for the figure, at body-text size, in a strip above the
	// panels (never over the bars).
	legendH := drawLegend(full, entries, px)
	dc := draw.Crop(full, 0, 0, 0, -legendH)
	tiles := draw.Tiles{Rows: 1, Cols: len(plots), PadX: vg.Millimeter * 4, PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2,
		PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	canvases := plot.Align([][]*plot.Plot{plots}, tiles, dc)
	// Rotated category labels hang to the left of their bars; widen the
	// left margin until the first panel's first label fits in the figure.
	for range 3 {
		over := leftOverhang(plots[0], canvases[0][0])
		if over <= 0 {
			break
		}
		tiles.PadLeft += over
		canvases = plot.Align([][]*plot.Plot{plots}, tiles, dc)
	}
	for i, p := range plots {
		p.Draw(canvases[0][i])
	}
	var buf bytes.Buffer
	if _, err := canvas.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// leftOverhang returns how far the first x tick label of p, drawn in c,
// reaches left of the figure's left edge (x = 0) plus a millimetre; ≤ 0
// when it fits or the labels are not rotated.
func leftOverhang(p *plot.Plot, c draw.Canvas) vg.Length {
	rot := p.X.Tick.Label.Rotation
	if rot == 0 {
		return 0
	}
	da := p.DataCanvas(c)
	for _, t := range p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max) {
		if t.Label == "" {
			continue
		}
		x := da.X(p.X.Norm(t.Value))
		reach := p.X.Tick.Label.Width(t.Label)*vg.Length(math.Cos(rot)) + p.X.Tick.Label.Height(t.Label)*vg.Length(math.Sin(rot))
		return reach + vg.Millimeter - x
	}
	return 0
}

func (pn *Panel) plot(px float64) (*plot.Plot, []legendEntry, error) {
	p := plot.New()
	p.Title.Text = pn.Title
	p.Title.TextStyle.Font.Size = pt(TitlePx, px)
	p.Y.Label.Text = pn.YLabel
	p.Y.Label.TextStyle.Font.Size = pt(LabelPx, px)
	p.Y.Tick.Label.Font.Size = pt(TickPx, px)
	p.X.Tick.Label.Font.Size = pt(TickPx, px)
	p.NominalX(pn.Categories...)
	p.X.Min, p.X.Max = -0.6, float64(len(pn.Categories))-0.4
	if len(pn.Categories) > 3 {
		p.X.Tick.Label.Rotation = math.Pi / 8
		p.X.Tick.Label.XAlign = text.XRight
	}
	p.X.Padding, p.Y.Padding = 0, 0
	grid := plotter.NewGrid()
	grid.Vertical.Width = 0
	p.Add(grid)
	catIndex := map[string]int{}
	for i, c := range pn.Categories {
		catIndex[c] = i
	}
	nSeries := len(pn.Series)
	width := 0.8 / float64(max(nSeries, 1))
	ymax := 0.0
	paperLegend := false
	var entries []legendEntry
	for si, s := range pn.Series {
		b := &bars{width: width, color: seriesColors[si%len(seriesColors)], labels: nSeries <= 2, labelSize: pt(ValuePx, px)}
		for _, bar := range pn.Bars {
			if bar.Series != s {
				continue
			}
			ci, ok := catIndex[bar.Category]
			if !ok {
				return nil, nil, fmt.Errorf("bar category %q is not among the panel's categories", bar.Category)
			}
			b.items = append(b.items, barItem{x: float64(ci) + (float64(si)-float64(nSeries-1)/2)*width, bar: bar})
			ymax = math.Max(ymax, bar.Mean+bar.Std)
			paperLegend = paperLegend || bar.PaperOnly
		}
		p.Add(b)
		entries = append(entries, legendEntry{s, b})
	}
	if paperLegend {
		entries = append(entries, legendEntry{paperonly.Mark, &bars{paperOnly: true}})
	}
	// The y axis fits the data: from 0 to the next multiple of 10 above
	// the highest bar and its error bar, with room for the value labels.
	p.Y.Min, p.Y.Max = 0, yTop(ymax)
	p.Y.Tick.Marker = plot.ConstantTicks(percentTicks(p.Y.Max))
	return p, entries, nil
}

// yTop is the top of a bar panel's y axis for bars reaching ymax percent:
// the next multiple of 10 at least 6 points above it (the value labels),
// at least 10; above 50 the next multiple of 20 (percentTicks labels
// every 20 there, so the top tick is labelled).
func yTop(ymax float64) float64 {
	top := math.Max(10, math.Ceil((ymax+6)/10)*10)
	if top > 50 {
		top = math.Ceil((ymax+6)/20) * 20
	}
	return top
}

// DisplayWidthPx is the width, in CSS pixels, at which the pages show a
// bar or interval figure (its img width, set by site/content from this
// constant; layouts/_partials/figure.html); font sizes are chosen for that
// width.
const DisplayWidthPx = 768

// The text sizes of a figure at its display width, CSS pixels: the legend
// at body-text size (site.css: 16 px body, tables .92rem). ValuePx is the
// smallest (bar values and point labels); a title too long for its figure
// (cost, release date) is shrunk below TitlePx until it fits.
const (
	LegendPx = 14
	TitlePx  = 15
	LabelPx  = 13
	TickPx   = 12
	ValuePx  = 11
)

// ReadableTextPx is the smallest text, in CSS pixels, a figure is shown
// with: on a screen narrower than its display width a page shrinks the
// figure down to MinDisplayWidthPx, then keeps that width and scrolls it
// sideways in its frame (layouts/_partials/figure.html, site.css).
const ReadableTextPx = 10

// MinDisplayWidthPx is the narrowest width, CSS pixels, at which a figure
// whose text sizes are chosen for displayWidthPx still shows its smallest
// text (ValuePx) ReadableTextPx tall: displayWidthPx × ReadableTextPx /
// ValuePx, rounded up (699 for DisplayWidthPx, 611 for 672).
func MinDisplayWidthPx(displayWidthPx int) int {
	return (displayWidthPx*ReadableTextPx + ValuePx - 1) / ValuePx
}

// pxScale is how many CSS pixels one point of a figure widthInches wide
// covers when shown DisplayWidthPx wide.
func pxScale(widthInches float64) float64 { return DisplayWidthPx / (widthInches * 72) }

// pt converts a size in display pixels to points of a figure of scale px.
func pt(sizePx, px float64) vg.Length { return vg.Points(sizePx / px) }

// legendEntry is one swatch and its label in a figure's legend.
type legendEntry struct {
	label string
	thumb plot.Thumbnailer
}

// drawLegend draws the entries left to right along the top of c, wrapping
// onto further lines as needed, at LegendPx display pixels; it returns the
// height the legend takes (0 without entries).
func drawLegend(c draw.Canvas, entries []legendEntry, px float64) vg.Length {
	if len(entries) == 0 {
		return 0
	}
	st := text.Style{Color: color.Black, Font: font.From(plot.DefaultFont, pt(LegendPx, px)), XAlign: text.XLeft, YAlign: text.YCenter,
		Handler: plot.DefaultTextHandler}
	lineH := st.FontExtents().Height * 1.3
	sw := st.Font.Size * 1.1
	gap, pad := st.Font.Size*1.2, vg.Millimeter*2
	x, y := c.Min.X+pad, c.Max.Y-pad-lineH/2
	for _, e := range entries {
		wd := sw + st.Font.Size*0.4 + st.Width(e.label)
		if x > c.Min.X+pad && x+wd > c.Max.X-pad {
			x, y = c.Min.X+pad, y-lineH
		}
		box := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{Min: vg.Point{X: x, Y: y - sw/2}, Max: vg.Point{X: x + sw, Y: y + sw/2}}}
		e.thumb.Thumbnail(&box)
		c.FillText(st, vg.Point{X: x + sw + st.Font.Size*0.4, Y: y}, e.label)
		x += wd + gap
	}
	return c.Max.Y - (y - lineH/2) + pad/2
}

// percentTicks returns ticks every 10 % from 0 to top, labelled every 10
// up to 50 and every 20 above.
func percentTicks(top float64) []plot.Tick {
	var ts []plot.Tick
	step := 10
	if top > 50 {
		step = 20
	}
	for v := 0; v <= int(top); v += 10 {
		label := ""
		if v%step == 0 {
			label = strconv.Itoa(v)
		}
		ts = append(ts, plot.Tick{Value: float64(v), Label: label})
	}
	return ts
}

type barItem struct {
	x   float64
	bar Bar
}

// bars draws one series: filled bars centred at data x, with error bars
// (population std) and, when labels is set, the mean printed above each bar.
// Paper-only bars are drawn light grey with a dashed outline and hatching.
type bars struct {
	items     []barItem
	width     float64 // in data units
	color     color.Color
	labels    bool
	labelSize vg.Length // of the value labels
	paperOnly bool      // for the legend entry
}

func (b *bars) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax, ymin, ymax = math.Inf(1), math.Inf(-1), 0, 0
	for _, it := range b.items {
		xmin, xmax = math.Min(xmin, it.x-b.width/2), math.Max(xmax, it.x+b.width/2)
		ymax = math.Max(ymax, it.bar.Mean+it.bar.Std)
	}
	if len(b.items) == 0 {
		xmin, xmax = 0, 0
	}
	return
}

var (
	outline    = draw.LineStyle{Color: color.Black, Width: vg.Points(0.5)}
	dashed     = draw.LineStyle{Color: color.Black, Width: vg.Points(0.7), Dashes: []vg.Length{vg.Points(2), vg.Points(2)}}
	errorStyle = draw.LineStyle{Color: color.Black, Width: vg.Points(0.8)}
	hatchStyle = draw.LineStyle{Color: color.Gray{Y: 0x88}, Width: vg.Points(0.5)}
	labelStyle = text.Style{Color: color.Black, Font: font.From(font.Font{Typeface: "Liberation", Variant: "Sans"}, 6.5), XAlign: text.XCenter, YAlign: text.YBottom}
)

func (b *bars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for _, it := range b.items {
		x0, x1 := trX(it.x-b.width/2), trX(it.x+b.width/2)
		y0, y1 := trY(0), trY(it.bar.Mean)
		pts := []vg.Point{{X: x0, Y: y0}, {X: x0, Y: y1}, {X: x1, Y: y1}, {X: x1, Y: y0}, {X: x0, Y: y0}}
		if it.bar.PaperOnly {
			c.FillPolygon(paperOnlyColor, pts)
			hatch(&c, x0, y0, x1, y1)
			c.StrokeLines(dashed, pts)
		} else {
			c.FillPolygon(b.color, pts)
			c.StrokeLines(outline, pts)
		}
		top := y1
		if it.bar.Std > 0 {
			lo, hi := trY(it.bar.Mean-it.bar.Std), trY(it.bar.Mean+it.bar.Std)
			xm, cap := (x0+x1)/2, (x1-x0)/4
			c.StrokeLines(errorStyle, []vg.Point{{X: xm, Y: lo}, {X: xm, Y: hi}},
				[]vg.Point{{X: xm - cap, Y: lo}, {X: xm + cap, Y: lo}}, []vg.Point{{X: xm - cap, Y: hi}, {X: xm + cap, Y: hi}})
			top = hi
		}
		label := ""
		if b.labels || it.bar.PaperOnly {
			label = strconv.FormatFloat(it.bar.Mean, 'f', 2, 64)
		}
		if it.bar.PaperOnly {
			label += " (paper only)"
		}
		if label != "" {
			st := labelStyle
			st.Handler = plot.DefaultTextHandler
			if b.labelSize > 0 {
				st.Font.Size = b.labelSize
			}
			c.FillText(st, vg.Point{X: (x0 + x1) / 2, Y: top + vg.Points(1.5)}, label)
		}
	}
}

// hatch draws diagonal lines inside the rectangle (x0,y0)–(x1,y1).
func hatch(c *draw.Canvas, x0, y0, x1, y1 vg.Length) {
	step := vg.Points(4)
	h := y1 - y0
	for d := vg.Length(0); d < (x1-x0)+h; d += step {
		// line x - x0 + (y - y0) = d, clipped to the rectangle
		ax, ay := x0+d, y0
		if ax > x1 {
			ay += ax - x1
			ax = x1
		}
		bx, by := x0+d-h, y1
		if bx < x0 {
			by -= x0 - bx
			bx = x0
		}
		if ay <= y1 && by >= y0 {
			c.StrokeLine2(hatchStyle, ax, ay, bx, by)
		}
	}
}

// Thumbnail draws the legend swatch.
func (b *bars) Thumbnail(c *draw.Canvas) {
	pts := []vg.Point{{X: c.Min.X, Y: c.Min.Y}, {X: c.Min.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Min.Y}, {X: c.Min.X, Y: c.Min.Y}}
	if b.paperOnly {
		c.FillPolygon(paperOnlyColor, pts)
		c.StrokeLines(dashed, pts)
		return
	}
	c.FillPolygon(b.color, pts)
	c.StrokeLines(outline, pts)
}

// CSV returns the data behind the figure, one line per bar:
// figure, panel, category, series, mean, pop_std, n, source, configuration.
// mean and pop_std are percent with 4 decimals; source is "computed" or
// "paper-only" (the paper's value, not computed from results files).
func (f *Figure) CSV() []byte {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write([]string{"figure", "panel", "category", "series", "mean_percent", "pop_std_percent", "n", "source", "configuration"})
	for _, pn := range f.Panels {
		for _, b := range pn.Bars {
			src, n := "computed", strconv.Itoa(b.N)
			if b.PaperOnly {
				src, n = "paper-only", ""
			}
			w.Write([]string{f.ID, pn.Title, csvSafe(b.Category), b.Series, strconv.FormatFloat(b.Mean, 'f', 4, 64),
				strconv.FormatFloat(b.Std, 'f', 4, 64), n, src, csvSafe(b.Configuration)})
		}
	}
	w.Flush()
	return buf.Bytes()
}

// csvSafe defuses text that a spreadsheet would run as a formula
// (untrusted model names): a leading = + - @ gets a leading apostrophe.
func csvSafe(s string) string {
	if s != "" && (s[0] == '=' || s[0] == '+' || s[0] == '-' || s[0] == '@' || s[0] == '\t' || s[0] == '\r') {
		return "'" + s
	}
	return s
}
