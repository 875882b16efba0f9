package plots_test

import (
	"bytes"
	"encoding/csv"
	"encoding/xml"
	"io"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
	"github.com/mattools-leaderboard/leaderboard/site/paperonly"
	"github.com/mattools-leaderboard/leaderboard/site/plots"
	"github.com/mattools-leaderboard/leaderboard/site/sitetest"
)

func wellFormed(t *testing.T, svg []byte) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(svg))
	for {
		_, err := d.Token()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
	}
}

// TestSingleLLMFigureDataAndSVG checks the data behind Figure 4's layout on
// the fixture and that the SVG is deterministic and escapes model names.
func TestSingleLLMFigureDataAndSVG(t *testing.T) {
	lb := aggregate.Build(sitetest.Runs(), aggregate.DefaultCatalog())
	figs := plots.All(lb, paperonly.Values())
	// single LLM: mattools-original and mattools-v1 tables; LLM-RAG: one; advanced: none (no aggregated run).
	if len(figs) != 3 {
		t.Fatalf("%d figures, want 3", len(figs))
	}
	f := figs[0]
	recs, err := csv.NewReader(bytes.NewReader(f.CSV())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	// GPT-4o: runnable [2,3,1]/3 → 66.6667 ± 27.2166; success [5,9,3]/15 → 37.7778 ± 16.6296.
	want := [][]string{
		{"GPT-4o", "Function runnable rate", "66.6667", "27.2166", "3", "computed"},
		{"GPT-4o", "Task success rate", "37.7778", "16.6296", "3", "computed"},
		{sitetest.HostileDisplayName, "Function runnable rate", "33.3333", "0.0000", "3", "computed"},
		{sitetest.HostileDisplayName, "Task success rate", "20.0000", "0.0000", "3", "computed"},
	}
	if len(recs) != 1+len(want) {
		t.Fatalf("CSV has %d lines:\n%s", len(recs), f.CSV())
	}
	for i, w := range want {
		if got := recs[i+1][2:8]; strings.Join(got, "|") != strings.Join(w, "|") {
			t.Errorf("line %d = %v, want %v", i+1, got, w)
		}
	}
	svg, err := f.SVG()
	if err != nil {
		t.Fatal(err)
	}
	wellFormed(t, svg)
	if bytes.Contains(svg, []byte("<script")) || !bytes.Contains(svg, []byte("&lt;script&gt;")) {
		t.Error("the hostile model name is not escaped in the SVG")
	}
	again, _ := f.SVG()
	if !bytes.Equal(svg, again) {
		t.Error("SVG output differs between two renderings")
	}
}

// TestAdvancedFigureMarksPaperOnlyBars builds a paper-like advanced table
// (mattools-original, all/49) and checks the LightRAG bars are paper-only.
func TestAdvancedFigureMarksPaperOnlyBars(t *testing.T) {
	var runs []*results.File
	for _, f := range sitetest.Runs() {
		if f.Run.System == results.SystemSelfReflectionRAG {
			for round := 1; round <= 3; round++ {
				g := *f
				g.Run.Round = round
				g.Run.QuestionSet = results.QuestionSet{Name: results.QuestionSetAll, Questions: 3, Properties: 15}
				g.Run.RunID = results.MakeRunID(&g.Run)
				runs = append(runs, &g)
			}
		}
	}
	lb := aggregate.Build(runs, aggregate.DefaultCatalog())
	tables := lb.Tables[aggregate.BoardAdvanced]
	if len(tables) != 1 || !plots.PaperTable(tables[0]) {
		t.Fatalf("tables = %+v", tables)
	}
	f := plots.ForTable(tables[0], paperonly.Values())
	var paper, computed int
	for _, b := range f.Panels[0].Bars {
		if b.PaperOnly {
			paper++
			if b.Category != "GraphRAG (LightRAG) (paper)" || (b.Mean != 52.38 && b.Mean != 22.22) {
				t.Errorf("paper bar %+v", b)
			}
		} else {
			computed++
		}
	}
	if paper != 2 || computed != 2 {
		t.Errorf("%d paper-only and %d computed bars, want 2 and 2", paper, computed)
	}
	svg, err := f.SVG()
	if err != nil {
		t.Fatal(err)
	}
	wellFormed(t, svg)
	if !bytes.Contains(svg, []byte(paperonly.Mark)) || !bytes.Contains(svg, []byte("52.38 (paper only)")) {
		t.Error("the SVG does not mark the paper-only bars")
	}
	if !strings.Contains(string(f.CSV()), ",paper-only,") {
		t.Error("the CSV does not mark the paper-only bars")
	}
}

// TestAdvancedFigurePlacesReferenceBesideSystems: the advanced figure has
// GPT-4o's LLM-RAG source-4 bars, labelled as the reference, first among
// its systems, and tells the two self-reflection variants apart.
func TestAdvancedFigurePlacesReferenceBesideSystems(t *testing.T) {
	lb := aggregate.Build(sitetest.AdvancedRuns(), aggregate.DefaultCatalog())
	tables := lb.Tables[aggregate.BoardAdvanced]
	if len(tables) != 1 {
		t.Fatalf("%d advanced tables, want 1", len(tables))
	}
	f := plots.ForTable(tables[0], paperonly.Values())
	want := []string{
		"LLM-RAG, source 4 (reference; GPT-4o)",
		"Agentic RAG (GPT-4o, source 4)",
		"Self-reflection LLM-doc RAG (as published variant; GPT-4o, source 4)",
		"Self-reflection LLM-doc RAG (feedback variant; GPT-4o, source 4)",
	}
	if got := f.Panels[0].Categories; strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("categories:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The reference bars: 9/15 properties → 60%, the LLM-RAG configuration's.
	for _, b := range f.Panels[0].Bars {
		if b.Category == want[0] && b.Series == aggregate.TaskSuccessRate.Title() &&
			(b.Mean < 59.99 || b.Mean > 60.01 || !strings.Contains(b.Configuration, "/llm-rag/source-4/")) {
			t.Errorf("reference bar %+v", b)
		}
	}
	if !strings.Contains(f.Caption, "reference") {
		t.Errorf("caption does not explain the reference bars: %s", f.Caption)
	}
	svg, err := f.SVG()
	if err != nil {
		t.Fatal(err)
	}
	wellFormed(t, svg)
}
