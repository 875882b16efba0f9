package plots

import (
	"bytes"
	"strings"
	"testing"
)

func TestIntervalFigure(t *testing.T) {
	f := &IntervalFigure{ID: "x-intervals", XLabel: "task success rate (%)", Ceiling: 84.946237, CeilingLabel: "reference solution 84.95 %",
		Floor: 21.505376, FloorLabel: "every property True 21.51 %",
		Points: []IntervalPoint{
			{Label: "GPT-4o · LLM-RAG · source 4", Mean: 45.878136, Lo: 40.32, Hi: 51.44, N: 3, QLo: 20.1, QHi: 72.37, QN: 28, Configuration: "k1"},
			{Label: "GPT-4o mini · Agentic RAG", Mean: 35.48, Lo: 35.48, Hi: 35.48, N: 1, Configuration: "k2"},
			{Label: "▼ GPT-3.5 · Single LLM", Mean: 4.3, Lo: -2.5, Hi: 11.1, N: 3, Below: true, Configuration: "=k3"},
		}}
	want := "label,configuration,n,mean,ci95_lo,ci95_hi,below_floor,questions,ci95q_lo,ci95q_hi\n" +
		"GPT-4o · LLM-RAG · source 4,k1,3,45.8781,40.3200,51.4400,false,28,20.1000,72.3700\n" +
		"GPT-4o mini · Agentic RAG,k2,1,35.4800,,,false,0,,\n" +
		"▼ GPT-3.5 · Single LLM,'=k3,3,4.3000,-2.5000,11.1000,true,0,,\n" +
		"ceiling: reference solution 84.95 %,,1,84.9462,,,false,0,,\n" +
		"floor: every property True 21.51 %,,1,21.5054,,,false,0,,\n"
	if got := string(f.CSV()); got != want {
		t.Errorf("CSV =\n%s\nwant\n%s", got, want)
	}
	svg, err := f.SVG()
	if err != nil {
		t.Fatal(err)
	}
	again, _ := f.SVG()
	if !bytes.Equal(svg, again) {
		t.Error("the same figure gives different SVG bytes")
	}
	for _, s := range []string{"GPT-4o · LLM-RAG · source 4", "▼ GPT-3.5 · Single LLM", "ceiling: reference solution 84.95 %", "floor: every property True 21.51 %", "below the floor",
		"95 % t-interval over rounds", "95 % interval over questions and rounds (clustered by question)"} {
		if !strings.Contains(string(svg), s) {
			t.Errorf("the SVG lacks %q", s)
		}
	}
	// Without any interval over questions, the figure has no such legend entry.
	noQ := *f
	noQ.Points = append([]IntervalPoint(nil), f.Points...)
	noQ.Points[0].QN = 0
	if svg, err := noQ.SVG(); err != nil || strings.Contains(string(svg), "over questions") {
		t.Errorf("a figure without intervals over questions: legend names them (err %v)", err)
	}
	if _, err := (&IntervalFigure{ID: "empty"}).SVG(); err == nil {
		t.Error("a figure without points rendered")
	}
}
