package plots

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"image/color"
	"strconv"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// ReleasePoint is one model in a score-over-release-date figure.
type ReleasePoint struct {
	ModelID string // the model id runs record
	Label   string // the model's display name
	// ReleaseDate is the cited date as written ("2024-08-06" or "2024-08")
	// and Released its time (the first of the month for a month).
	ReleaseDate string
	Released    time.Time
	Weights     string // "open", "closed" or "" (not known)
	Provider    string
	Parameters  string // as cited, e.g. "7.61B"; "" where not public
	// Success is the model's best task success rate, mean over rounds,
	// percent 0–100, and Configuration the configuration key it comes from.
	Success       float64
	Configuration string
	Source        string // the URL citing the release date
}

// ReleaseFigure plots each model's best task success rate against its
// release date, one point per model; the marker says whether its weights
// are open or closed.
type ReleaseFigure struct {
	ID, Title, Caption string
	// QuestionSet and Protocol are the headline table's, which the points'
	// rates all come from.
	QuestionSet, Protocol string
	Points                []ReleasePoint
}

// ReleaseDisplayWidthPx is the width, in CSS pixels, at which the models
// page shows the figure (its img width, set by site/content from this
// constant); ReleaseWidthInches and ReleaseHeightInches size its SVG.
const (
	ReleaseDisplayWidthPx = 672
	ReleaseWidthInches    = 7
	ReleaseHeightInches   = 4.5
)

// The markers of the weights: open weights a filled circle, closed a
// filled triangle, not known a ring (colour-blind safe colours, and the
// shapes differ too).
var weightsStyles = []struct {
	weights, label string
	glyph          draw.GlyphDrawer
	color          color.RGBA
}{
	{"open", "open weights", draw.CircleGlyph{}, seriesColors[2]},
	{"closed", "closed weights", draw.PyramidGlyph{}, seriesColors[0]},
	{"", "weights not known", draw.RingGlyph{}, color.RGBA{0x66, 0x66, 0x66, 0xFF}},
}

// SVG renders the figure (ReleaseWidthInches × ReleaseHeightInches); equal
// figures give equal bytes. The x axis is the release date (ticks at the
// first of a quarter, or of a year when the dates span over four years),
// the y axis the task success rate in percent; the legend above the plot
// shows the open and closed markers (and the unknown one when a point has
// it); each point is labelled with its model where the label overlaps
// nothing (as in CostFigure; every point is in the CSV). Error: no point.
func (f *ReleaseFigure) SVG() ([]byte, error) {
	if len(f.Points) == 0 {
		return nil, fmt.Errorf("figure %s: no point", f.ID)
	}
	px := float64(ReleaseDisplayWidthPx) / (ReleaseWidthInches * 72)
	p := plot.New()
	p.Title.Text = f.Title
	p.Title.TextStyle.Font.Size = pt(TitlePx, px)
	w, h := vg.Length(ReleaseWidthInches)*vg.Inch, vg.Length(ReleaseHeightInches)*vg.Inch
	pad := vg.Millimeter * 2
	for p.Title.TextStyle.Width(f.Title) > w-2*pad && p.Title.TextStyle.Font.Size > vg.Points(6) {
		p.Title.TextStyle.Font.Size *= 0.95
	}
	p.X.Label.Text = "Release date"
	p.Y.Label.Text = "Task success rate (%)"
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font.Size = pt(LabelPx, px)
		a.Tick.Label.Font.Size = pt(TickPx, px)
	}
	var all plotter.XYs
	var labels []string
	for _, q := range f.Points {
		all = append(all, plotter.XY{X: float64(q.Released.Unix()), Y: q.Success})
		labels = append(labels, q.Label)
	}
	var entries []legendEntry
	radius := vg.Points(3.5)
	for _, st := range weightsStyles {
		var xys plotter.XYs
		for i, q := range f.Points {
			if q.Weights == st.weights {
				xys = append(xys, all[i])
			}
		}
		if len(xys) == 0 && st.weights == "" {
			continue
		}
		if len(xys) == 0 {
			// A legend-only series: the reader sees both markers even when
			// every model here has the same weights.
			sc := &plotter.Scatter{GlyphStyle: draw.GlyphStyle{Color: st.color, Radius: radius, Shape: st.glyph}}
			entries = append(entries, legendEntry{st.label, sc})
			continue
		}
		sc, err := plotter.NewScatter(xys)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: st.color, Radius: radius, Shape: st.glyph}
		p.Add(sc)
		entries = append(entries, legendEntry{st.label, sc})
	}
	p.Add(&placedLabels{xys: all, labels: labels, size: pt(ValuePx, px), radius: radius})
	lo, hi := dateRange(f.Points)
	p.X.Min, p.X.Max = float64(lo.Unix()), float64(hi.Unix())
	p.X.Tick.Marker = dateTicks{}
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

// dateRange returns the x range of the points: their dates widened by 15 %
// of their span on each side, and by at least 45 days.
func dateRange(ps []ReleasePoint) (lo, hi time.Time) {
	lo, hi = ps[0].Released, ps[0].Released
	for _, q := range ps[1:] {
		if q.Released.Before(lo) {
			lo = q.Released
		}
		if q.Released.After(hi) {
			hi = q.Released
		}
	}
	m := max(hi.Sub(lo)*15/100, 45*24*time.Hour)
	return lo.Add(-m), hi.Add(m)
}

// dateTicks puts a tick, labelled "2024-04", on the first day of every
// quarter within the range (of every year when the range spans over four
// years), and unlabelled ticks on the first of the other months when the
// range is under two years.
type dateTicks struct{}

func (dateTicks) Ticks(min, max float64) []plot.Tick {
	lo, hi := time.Unix(int64(min), 0).UTC(), time.Unix(int64(max), 0).UTC()
	span := hi.Sub(lo)
	every := 3
	if span > 4*365*24*time.Hour {
		every = 12
	}
	var ts []plot.Tick
	for d := time.Date(lo.Year(), lo.Month(), 1, 0, 0, 0, 0, time.UTC); !d.After(hi); d = d.AddDate(0, 1, 0) {
		if d.Before(lo) {
			continue
		}
		v := float64(d.Unix())
		switch {
		case (int(d.Month())-1)%every == 0:
			ts = append(ts, plot.Tick{Value: v, Label: d.Format("2006-01")})
		case span < 2*365*24*time.Hour:
			ts = append(ts, plot.Tick{Value: v})
		}
	}
	return ts
}

// CSV returns the data behind the figure, one line per point: model_id,
// model, release_date (as cited), weights, provider, parameters,
// task_success_rate (percent, 4 decimals), configuration, question_set,
// scoring_protocol and source (the URL citing the facts).
func (f *ReleaseFigure) CSV() []byte {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write([]string{"model_id", "model", "release_date", "weights", "provider", "parameters", "task_success_rate", "configuration",
		"question_set", "scoring_protocol", "source"})
	for _, q := range f.Points {
		w.Write([]string{csvSafe(q.ModelID), csvSafe(q.Label), q.ReleaseDate, q.Weights, csvSafe(q.Provider), q.Parameters,
			strconv.FormatFloat(q.Success, 'f', 4, 64), csvSafe(q.Configuration), csvSafe(f.QuestionSet), csvSafe(f.Protocol), q.Source})
	}
	w.Flush()
	return buf.Bytes()
}
