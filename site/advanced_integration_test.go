package site_test

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/site"
	"github.com/mattools-leaderboard/leaderboard/site/release"
	"github.com/mattools-leaderboard/leaderboard/site/sitetest"
)

// TestAdvancedSiteShowsReferenceRowsAndTraces builds the preview of
// sitetest.AdvancedRuns with Hugo: the advanced board has the LLM-RAG
// source-4 reference row of GPT-4o (marked "ref", labelled, no rank) beside
// the variants of the self-reflection loop; the landing page's headline
// lists that configuration once; each question's code pages show each traced
// answer's stage trace, collapsed, one table row per stage.
func TestAdvancedSiteShowsReferenceRowsAndTraces(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a site with Hugo; skipped with -short")
	}
	base := t.TempDir()
	resultsDir := filepath.Join(base, "results")
	for _, f := range sitetest.AdvancedRuns() {
		if err := results.Write(filepath.Join(resultsDir, f.Run.RunID+results.Extension), f); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(base, "public")
	if _, err := site.Build(context.Background(), site.Options{ResultsDir: resultsDir, Benchmark: sitetest.Benchmark(),
		RepoRoot: repoRoot(t), OutDir: out, WorkDir: filepath.Join(base, "work"), Releases: []release.Release{}}); err != nil {
		t.Fatal(err)
	}
	preview := filepath.Join(out, site.PreviewPath)

	board := readFile(t, filepath.Join(preview, "advanced", "index.html"))
	refRow := regexp.MustCompile(`(?s)<tr class="computed-row reference-row"[^>]*data-system="llm-rag"[^>]*>\s*<td class="num rank"[^>]*><abbr[^>]*>ref</abbr></td>.*?</tr>`)
	rows := refRow.FindAllString(board, -1)
	if len(rows) != 1 || !strings.Contains(rows[0], "LLM-RAG, source 4 (reference)") || !strings.Contains(rows[0], ">GPT-4o<") {
		t.Errorf("advanced board: %d reference rows, want GPT-4o's one labelled “LLM-RAG, source 4 (reference)”: %q", len(rows), rows)
	}
	for _, w := range []string{"Self-reflection LLM-doc RAG (as published variant)", "Self-reflection LLM-doc RAG (feedback variant)", "Rows marked “ref”"} {
		if !strings.Contains(board, w) {
			t.Errorf("advanced board lacks %q", w)
		}
	}
	if strings.Contains(board, "GPT-3.5") {
		t.Error("advanced board names GPT-3.5, which has no advanced system")
	}

	home := readFile(t, filepath.Join(preview, "index.html"))
	rag4 := regexp.MustCompile(`data-configs="tool-usage@2025-05/llm-rag/source-4/gpt-4o-2024-08-06/mattools-v1/tiny/3/[^"]*"`)
	if n := len(rag4.FindAllString(home, -1)); n != 1 {
		t.Errorf("landing page lists GPT-4o's LLM-RAG source-4 configuration %d times, want once", n)
	}

	// The question's code pages, one per configuration, hold the traces.
	codes, err := filepath.Glob(filepath.Join(preview, "questions", sitetest.Questions[0].ID, "code", "*", "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	var q string
	for _, f := range codes {
		q += readFile(t, f)
	}
	// 3 traced configurations × 3 rounds.
	if n := strings.Count(q, `<details class="trace"><summary>Stage trace: `); n != 9 {
		t.Errorf("the question's %d code pages have %d stage traces, want 9", len(codes), n)
	}
	for _, w := range []string{"Stage trace: 7 stages, 1 iteration", "Stage trace: 9 stages, 2 iterations",
		`<td class="num">1</td><td>keywords</td><td class="num">1000</td><td class="num">50</td><td class="num">100</td><td>–</td><td>–</td><td>–</td>`,
		`<td>2: <code>` + sitetest.Questions[0].ID + `#5</code>, <code>` + sitetest.Questions[0].ID + `#6</code></td>`,
		`<td>execute</td>`, `<td>complete-dict</td>`} {
		if !strings.Contains(q, w) {
			t.Errorf("the question's code pages lack %q", w)
		}
	}
}
