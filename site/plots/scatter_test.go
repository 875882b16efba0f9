package plots

import (
	"encoding/xml"
	"strings"
	"testing"
)

// TestCostFigure renders a three-point accuracy-vs-cost figure: the SVG is
// well-formed and names every point, equal figures give equal bytes, and
// the CSV has one line per point with its frontier flag.
func TestCostFigure(t *testing.T) {
	f := &CostFigure{ID: "cost-x", Title: "Task success vs cost", XLabel: "tokens per question", Points: []CostPoint{
		{Label: "GPT-3.5 · Single LLM", Cost: 1268, Accuracy: 3.62, Frontier: true, Configuration: "a"},
		{Label: "GPT-4o · Single LLM", Cost: 1459, Accuracy: 18.36, Frontier: true, Configuration: "b"},
		{Label: "Dominated <model>", Cost: 1500, Accuracy: 10, Configuration: "c"},
	}}
	svg, err := f.SVG()
	if err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal(svg, new(struct{})); err != nil {
		t.Errorf("SVG is not well-formed XML: %v", err)
	}
	for _, want := range []string{"GPT-3.5 · Single LLM", "GPT-4o · Single LLM", "Dominated &lt;model&gt;", "Pareto frontier"} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	again, _ := f.SVG()
	if string(again) != string(svg) {
		t.Error("two renders differ")
	}
	csv := string(f.CSV())
	if lines := strings.Count(csv, "\n"); lines != 4 || !strings.Contains(csv, "GPT-4o · Single LLM,1459.0000,tokens per question,18.3600,true,b") ||
		!strings.Contains(csv, ",false,c") {
		t.Errorf("CSV:\n%s", csv)
	}
	if _, err := (&CostFigure{ID: "empty"}).SVG(); err == nil {
		t.Error("a figure without points renders")
	}
}
