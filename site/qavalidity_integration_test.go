package site_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/llm/llmtest"
	"github.com/mattools-leaderboard/leaderboard/runner"
	"github.com/mattools-leaderboard/leaderboard/runner/plan"
	"github.com/mattools-leaderboard/leaderboard/site"
	"github.com/mattools-leaderboard/leaderboard/site/release"
	"github.com/mattools-leaderboard/leaderboard/site/sitetest"
)

// TestQABoardShowsBaselinesAndFormatDiagnostics runs a fake model answering
// "Answer: C" on the balanced variant of the runner's 20-question set (5
// items per letter) and builds the site: the QA board's table of
// "sample-20-balanced" has the three baseline rows and the format
// diagnostics (every answer rejected by the exact rule, read as C by the
// lenient one), and the model page repeats the diagnostics.
func TestQABoardShowsBaselinesAndFormatDiagnostics(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a site with Hugo; skipped with -short")
	}
	base := t.TempDir()
	srv := llmtest.New(t, llmtest.Options{Responder: func(llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Content: "Answer: C", PromptTokens: 100, CompletionTokens: 3}
	}})
	set, _ := filepath.Abs(filepath.Join("..", "runner", "testdata", "qa20.json"))
	planFile := filepath.Join(base, "plan.toml")
	os.WriteFile(planFile, []byte(fmt.Sprintf(`rounds = 1
benchmarks = ["qa-code"]
[qa_sets.qa-code]
path = %q
name = "sample-20"
variant = "balanced"
[[models]]
name = "answers-c"
display_name = "Answers C"
base_url = %q
temperature = 0
`, set, srv.URL)), 0o644)
	p, err := plan.Load(planFile)
	if err != nil {
		t.Fatal(err)
	}
	resultsDir := filepath.Join(base, "results")
	if _, err := runner.Run(context.Background(), runner.Options{Plan: p, DataRoot: mattoolstest.NewRoot(t).Dir, OutDir: resultsDir}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(base, "public")
	if _, err := site.Build(context.Background(), site.Options{ResultsDir: resultsDir, Benchmark: sitetest.Benchmark(),
		RepoRoot: repoRoot(t), OutDir: out, WorkDir: filepath.Join(base, "work"), Releases: []release.Release{}}); err != nil {
		t.Fatal(err)
	}
	preview := filepath.Join(out, site.PreviewPath)
	board := readFile(t, filepath.Join(preview, "qa", "index.html"))
	if !strings.Contains(board, "question set sample-20-balanced") {
		t.Fatalf("QA board lacks the balanced table")
	}
	// The table says what it is, from the runs' variant marker, and links to the methodology.
	if !strings.Contains(board, `<p class="table-caption qa-variant">A balanced variant of question set sample-20 (derivation 1): each item&#39;s four choice texts were permuted, deterministically, so that each letter is correct for a quarter of the items (code: A 5, B 5, C 5, D 5 of 20)`) ||
		!strings.Contains(board, `nor averaged with them. <a href="../methodology/#qa-validity">QA validity</a>.</p>`) {
		t.Errorf("QA board lacks the variant caption: %q", regexp.MustCompile(`<p class="table-caption qa-variant">.*</p>`).FindString(board))
	}
	cells := func(row string) string {
		var out []string
		for _, m := range regexp.MustCompile(`(?s)<td class="num">([^<]*)</td>`).FindAllStringSubmatch(row, -1) {
			out = append(out, m[1])
		}
		return strings.Join(out, " ")
	}
	rows := regexp.MustCompile(`(?s)<tr class="baseline-row".*?</tr>`).FindAllString(board, -1)
	// Columns: code, doc (empty: no doc runs), code lenient. The set's own
	// leak heuristic gives 4 of 20 (runner/qavariant_test.go).
	want := []struct{ label, cells string }{
		{"Uniform random guess", "25.00  25.00"},
		{"Best constant letter (code A/B/C/D)", "25.00  25.00"},
		{"Leak heuristic", "20.00  20.00"},
	}
	if len(rows) != len(want) {
		t.Fatalf("%d baseline rows: %q", len(rows), rows)
	}
	for i, w := range want {
		if !strings.Contains(rows[i], "<th scope=\"row\">"+w.label+"</th>") || cells(rows[i]) != w.cells {
			t.Errorf("baseline row %d: %q, want %s with cells %s", i, rows[i], w.label, w.cells)
		}
	}
	link := regexp.MustCompile(`href="\.\./(downloads/tables/[^"]*-baselines\.csv)"`).FindStringSubmatch(board)
	if link == nil {
		t.Fatal("QA board has no baselines download")
	}
	if csv := readFile(t, filepath.Join(preview, link[1])); !strings.Contains(csv, ",qa-code,2025-05,sample-20-balanced,leak-heuristic,,4,20,20.0000\n") {
		t.Errorf("%s:\n%s", link[1], csv)
	}
	format := regexp.MustCompile(`(?s)<tr data-config="[^"]*">.*?</tr>`)
	fr := format.FindString(board)
	for _, w := range []string{">code<", `<td class="num">20 (100.0 %)</td><td class="num">20 (100.0 %)</td>`,
		"A 0.0 · B 0.0 · C 100.0 · D 0.0 · none 0.0", "A 25.0 · B 25.0 · C 25.0 · D 25.0"} {
		if !strings.Contains(fr, w) {
			t.Errorf("format row %q lacks %q", fr, w)
		}
	}
	pages, _ := filepath.Glob(filepath.Join(preview, "models", "*answers-c*", "index.html"))
	if len(pages) != 1 {
		t.Fatalf("model pages %v", pages)
	}
	model := readFile(t, pages[0])
	noHref := regexp.MustCompile(`href="[^"]*"`) // relative to each page
	if !strings.Contains(model, "QA answer format diagnostics") || noHref.ReplaceAllString(format.FindString(model), "") != noHref.ReplaceAllString(fr, "") {
		t.Errorf("model page lacks the format row %q", fr)
	}
}
