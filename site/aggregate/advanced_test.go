package aggregate_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
	"github.com/mattools-leaderboard/leaderboard/site/sitetest"
)

// rowLabel is how a test names a table row: model, system label, source.
func rowLabel(model, system string, source int) string {
	return model + " · " + system + " · " + strconv.Itoa(source)
}

// TestAdvancedTableShowsLLMRAGSource4Reference: the advanced-systems table
// repeats the LLM-RAG source-4 configuration of the model that has advanced
// systems (GPT-4o) as a reference row beside them, and not that of GPT-3.5,
// which has none; not LLM-RAG source 1, nor a protocol no advanced system
// was scored under. The configuration stays on the LLM-RAG board and is
// listed once in Configurations and in the headline table.
func TestAdvancedTableShowsLLMRAGSource4Reference(t *testing.T) {
	lb := aggregate.Build(sitetest.AdvancedRuns(), aggregate.DefaultCatalog())
	tables := lb.Tables[aggregate.BoardAdvanced]
	if len(tables) != 1 || tables[0].ScoringProtocol != results.ProtocolMatToolsV1 {
		t.Fatalf("advanced tables: %d, want 1 of mattools-v1", len(tables))
	}
	var got []string
	var ref *aggregate.Row
	for _, r := range tables[0].Rows {
		got = append(got, rowLabel(r.Model.DisplayName, r.SystemLabel(), r.RetrievalSource))
		if r.Reference {
			ref = r
		}
	}
	// Model by model (one here), the reference first (LLM-RAG precedes the
	// advanced systems in system order), then the systems and variants.
	want := []string{
		rowLabel("GPT-4o", "LLM-RAG, source 4 (reference)", 4),
		rowLabel("GPT-4o", "Agentic RAG", 4),
		rowLabel("GPT-4o", "Self-reflection LLM-doc RAG (as published variant)", 4),
		rowLabel("GPT-4o", "Self-reflection LLM-doc RAG (feedback variant)", 4),
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("advanced rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if ref == nil {
		t.Fatal("no reference row")
	}
	rc := ref.Configurations[0]
	if rc.Board != aggregate.BoardLLMRAG || rc.Key.System != results.SystemLLMRAG || rc.Key.ScoringProtocol != results.ProtocolMatToolsV1 {
		t.Errorf("reference configuration %s on board %s", rc.Key, rc.Board)
	}
	// 9 of 15 properties each round → 60%.
	if c := ref.Cells[1]; c == nil || c.Metric != aggregate.TaskSuccessRate || c.Summary.N != 3 || !near(c.Summary.Mean, 60) {
		t.Errorf("reference task success cell = %+v", c)
	}

	// The LLM-RAG board keeps the configuration; Configurations lists it once.
	onLLMRAG := false
	for _, tb := range lb.Tables[aggregate.BoardLLMRAG] {
		for _, r := range tb.Rows {
			onLLMRAG = onLLMRAG || (slices.Contains(r.Configurations, rc) && !r.Reference)
		}
	}
	if !onLLMRAG {
		t.Error("the reference configuration is not on the LLM-RAG board")
	}
	seen := map[*aggregate.Configuration]int{}
	for _, c := range lb.Configurations {
		seen[c]++
	}
	for c, n := range seen {
		if n != 1 {
			t.Errorf("Configurations lists %s %d times", c.Key, n)
		}
	}
	if len(seen) != 7 {
		t.Errorf("%d configurations, want 7", len(seen))
	}
	for _, h := range lb.Headline {
		inRows := map[*aggregate.Configuration]int{}
		for _, r := range h.Rows {
			if r.Reference {
				t.Errorf("headline %s has a reference row %s", h.ID, r.Identity)
			}
			for _, c := range r.Configurations {
				inRows[c]++
			}
		}
		if inRows[rc] != 1 {
			t.Errorf("headline %s lists the LLM-RAG source-4 configuration %d times, want once", h.ID, inRows[rc])
		}
	}
}

// TestAdvancedRankedTableLeavesReferenceUnranked: in the ranked
// advanced-systems table the reference row takes its place by value but no
// rank, and the other ranks do not count it: feedback 86.67% (1), agentic
// 80% (2), LLM-RAG source 4 60% (reference), as published 40% (3).
func TestAdvancedRankedTableLeavesReferenceUnranked(t *testing.T) {
	lb := aggregate.Build(sitetest.AdvancedRuns(), aggregate.DefaultCatalog())
	ranked := lb.Ranked[aggregate.BoardAdvanced]
	if len(ranked) != 1 {
		t.Fatalf("%d ranked advanced tables, want 1", len(ranked))
	}
	rt := ranked[0]
	type row struct {
		label string
		rank  int
		ref   bool
	}
	var got []row
	for _, r := range rt.Rows {
		got = append(got, row{r.SystemLabel(), r.Rank, r.Reference})
	}
	want := []row{
		{"Self-reflection LLM-doc RAG (feedback variant)", 1, false},
		{"Agentic RAG", 2, false},
		{"LLM-RAG, source 4 (reference)", 0, true},
		{"Self-reflection LLM-doc RAG (as published variant)", 3, false},
	}
	if !slices.Equal(got, want) {
		t.Errorf("ranked rows = %+v, want %+v", got, want)
	}
	// Only mattools-v1 has an advanced table, so the reference row shows
	// no mattools-v1-strict value (the LLM-RAG board does).
	for _, c := range rt.Columns {
		if c.Protocol != results.ProtocolMatToolsV1 {
			t.Errorf("column %s: want mattools-v1 only", c.Title())
		}
	}
	if refs := rt.ReferenceRows(); len(refs) != 1 || refs[0].Model.ID != sitetest.GPT4o {
		t.Errorf("reference rows = %+v", refs)
	}
	// The two variants are told apart by their labels, not by notes.
	for _, r := range rt.Rows {
		if len(r.Notes) > 0 {
			t.Errorf("row %s has notes %q", r.SystemLabel(), r.Notes)
		}
	}
	// The LLM-RAG board's ranked table has both source-4 rows (GPT-4o and
	// GPT-3.5) and ranks them with the rest.
	var llm []string
	for _, r := range lb.Ranked[aggregate.BoardLLMRAG][0].Rows {
		if r.Reference || r.Rank == 0 {
			t.Errorf("LLM-RAG row %s: reference %v, rank %d", r.Identity, r.Reference, r.Rank)
		}
		llm = append(llm, rowLabel(r.Model.DisplayName, r.SystemLabel(), r.RetrievalSource))
	}
	if len(llm) != 3 {
		t.Errorf("LLM-RAG ranked rows = %q, want GPT-3.5 source 4, GPT-4o sources 4 and 1", llm)
	}
}

// TestSystemLabelNamesTheVariant: only a configuration with a variant
// system parameter names it.
func TestSystemLabelNamesTheVariant(t *testing.T) {
	lb := aggregate.Build(sitetest.AdvancedRuns(), aggregate.DefaultCatalog())
	labels := map[string]bool{}
	for _, c := range lb.Configurations {
		l := c.SystemLabel()
		labels[l] = true
		if c.SystemVariant() == "" && l != aggregate.SystemTitle(c.Key.System) {
			t.Errorf("%s: label %q, want the system title", c.Key, l)
		}
	}
	for _, l := range []string{"Self-reflection LLM-doc RAG (as published variant)", "Self-reflection LLM-doc RAG (feedback variant)", "Agentic RAG", "LLM-RAG"} {
		if !labels[l] {
			t.Errorf("no configuration labelled %q (labels %v)", l, labels)
		}
	}
}
