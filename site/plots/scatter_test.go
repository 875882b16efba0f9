package plots

import (
	"encoding/xml"
	"strings"
	"testing"
	"time"
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

// TestReleaseFigure renders a three-model score-over-release-date figure:
// the SVG is well-formed, names every model and both weights in its legend
// (only closed and open points here: no "not known" entry), its x ticks are
// quarter starts within the dates' range, equal figures give equal bytes,
// and the CSV has one line per model with its cited date and rate.
func TestReleaseFigure(t *testing.T) {
	day := func(s string) time.Time { d, _ := time.Parse("2006-01-02", s); return d }
	f := &ReleaseFigure{ID: "release-x", Title: "Task success over release date", QuestionSet: "all/49", Protocol: "mattools-v1", Points: []ReleasePoint{
		{ModelID: "gpt-4o-2024-08-06", Label: "GPT-4o", ReleaseDate: "2024-08-06", Released: day("2024-08-06"), Weights: "closed", Provider: "OpenAI",
			Success: 18.3575, Configuration: "a", Source: "https://openai.com/x"},
		{ModelID: "q", Label: "Qwen <7B>", ReleaseDate: "2024-09", Released: day("2024-09-01"), Weights: "open", Provider: "Qwen team, Alibaba Cloud",
			Parameters: "7.61B", Success: 4, Configuration: "b", Source: "https://hf.example/q"},
		{ModelID: "g", Label: "Gemini-2.0-Flash", ReleaseDate: "2025-02-05", Released: day("2025-02-05"), Weights: "closed", Provider: "Google",
			Success: 12.5, Configuration: "c", Source: "https://blog.google/x"},
	}}
	svg, err := f.SVG()
	if err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal(svg, new(struct{})); err != nil {
		t.Errorf("SVG is not well-formed XML: %v", err)
	}
	for _, want := range []string{"GPT-4o", "Qwen &lt;7B&gt;", "Gemini-2.0-Flash", "open weights", "closed weights", "Release date", "2024-10", "2025-01"} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	for _, not := range []string{"weights not known", "2024-06", "2025-07"} {
		if strings.Contains(string(svg), not) {
			t.Errorf("SVG has %q", not)
		}
	}
	again, _ := f.SVG()
	if string(again) != string(svg) {
		t.Error("two renders differ")
	}
	want := "model_id,model,release_date,weights,provider,parameters,task_success_rate,configuration,question_set,scoring_protocol,source\n" +
		"gpt-4o-2024-08-06,GPT-4o,2024-08-06,closed,OpenAI,,18.3575,a,all/49,mattools-v1,https://openai.com/x\n" +
		"q,Qwen <7B>,2024-09,open,\"Qwen team, Alibaba Cloud\",7.61B,4.0000,b,all/49,mattools-v1,https://hf.example/q\n" +
		"g,Gemini-2.0-Flash,2025-02-05,closed,Google,,12.5000,c,all/49,mattools-v1,https://blog.google/x\n"
	if got := string(f.CSV()); got != want {
		t.Errorf("CSV:\n%s\nwant\n%s", got, want)
	}
	if _, err := (&ReleaseFigure{ID: "empty"}).SVG(); err == nil {
		t.Error("a figure without points renders")
	}
}
