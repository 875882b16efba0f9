package content

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
	"github.com/mattools-leaderboard/leaderboard/site/sitetest"
)

func TestPagerLinks(t *testing.T) {
	for _, tt := range []struct {
		pages, current int
		want           string // numbers, "*" current, "…" a gap
	}{
		{1, 1, "*1"},
		{3, 2, "1 *2 3"},
		{13, 0, "1 2 3 4 5 6 7 8 9 10 11 12 13"}, // 2·5 + 3 pages: all
		{30, 15, "1 … 10 11 12 13 14 *15 16 17 18 19 20 … 30"}, // the window of 5 either side
		{30, 0, "1 2 3 4 5 … 30"},                              // a cut note's links (no current page)
		{30, 29, "1 … 24 25 26 27 28 *29 30"},
	} {
		var got []string
		for _, l := range pagerLinks("x", tt.pages, tt.current) {
			s := fmt.Sprint(l.Number)
			if l.Current {
				s = "*" + s
			}
			if l.Gap {
				got = append(got, "…")
			}
			got = append(got, s)
		}
		if g := strings.Join(got, " "); g != tt.want {
			t.Errorf("pagerLinks(%d, %d) = %s, want %s", tt.pages, tt.current, g, tt.want)
		}
	}
	if got := pagedRel("systems/llm-rag/matrix", 1); got != "systems/llm-rag/matrix/" {
		t.Errorf("page 1 at %s", got)
	}
	if got := pagedRel("systems/llm-rag/matrix", 3); got != "systems/llm-rag/matrix/page/3/" {
		t.Errorf("page 3 at %s", got)
	}
	if got := thousands(1667); got != "1,667" {
		t.Errorf("thousands(1667) = %s", got)
	}
}

// manyModels is an edition of n single-LLM runner configurations (one
// round each, model-000 …), model k passing k mod 11 of question 1's 10
// properties (+ 2 of question 2's 4): task success rates from 2/15 to 12/15,
// so that the headline table ranks them in an order other than by name.
func manyModels(t *testing.T, n int) (*Edition, Dirs) {
	t.Helper()
	var base *results.File
	for _, f := range sitetest.Runs() {
		if f.Run.Provenance.Kind == results.ProvenanceRunner && f.Run.Round == 1 {
			base = f
		}
	}
	e := &Edition{Path: "preview", Version: "preview", Benchmark: sitetest.Benchmark(), ResultsPaths: map[string]string{}, CodeKeys: map[string][]string{}}
	for k := range n {
		f := &results.File{Run: base.Run, Questions: append([]results.QuestionRow(nil), base.Questions...)}
		f.Run.Model = fmt.Sprintf("model-%03d", k)
		f.Run.ModelDisplayName = f.Run.Model
		p := k % 11
		q0 := f.Questions[0]
		q0.PropertiesPassed = ptrTo(int32(p))
		q0.Verdict = string(results.VerdictPartial)
		correct := 0
		if p == 10 {
			q0.Verdict, correct = string(results.VerdictCorrect), 1
		}
		f.Questions[0] = q0
		f.Run.Totals.PropertiesPassed = ptrTo(p + 2)
		f.Run.Totals.QuestionsCorrect = ptrTo(correct)
		f.Run.RunID = results.MakeRunID(&f.Run)
		e.Files = append(e.Files, f)
	}
	e.Leaderboard = aggregate.Build(e.Files, aggregate.DefaultCatalog())
	dir := t.TempDir()
	dirs := Dirs{Content: filepath.Join(dir, "content"), Static: filepath.Join(dir, "static")}
	if err := Write(dirs, e); err != nil {
		t.Fatal(err)
	}
	return e, dirs
}

// successOf returns the task success rate (percent) of each model of the
// edition's single-LLM configurations, from the configurations' summaries.
func successOf(e *Edition) map[string]float64 {
	out := map[string]float64{}
	for _, c := range e.Leaderboard.Configurations {
		out[c.Key.Model] = c.Summaries[aggregate.TaskSuccessRate].Mean
	}
	return out
}

func columnModels(t *testing.T, m any) []string {
	t.Helper()
	mx, _ := m.(map[string]any)
	cols, _ := mx["columns"].([]any)
	var out []string
	for _, c := range cols {
		out = append(out, c.(map[string]any)["model_id"].(string))
	}
	return out
}

// TestMatrixShowsTopColumnsAndPaginates: a system with more
// configuration identities than MatrixColumns shows the top MatrixColumns
// by task success rate, in the headline table's order, says so, and has
// the full matrix MatrixColumns columns to a page at systems/<s>/matrix/
// and as CSV; its list of configurations and the headline table are cut at
// ListRows the same way.
func TestMatrixShowsTopColumnsAndPaginates(t *testing.T) {
	const n = ListRows + 5 // 105 configurations: matrix pages of MatrixColumns (16), the last of 9
	pages := pagesOf(n, MatrixColumns)
	e, dirs := manyModels(t, n)
	success := successOf(e)
	// The headline table's order, by its rows (computed by site/aggregate).
	var ranked []string
	for _, r := range e.Leaderboard.Headline[0].Rows {
		ranked = append(ranked, r.Model.ID)
	}
	if len(ranked) != n || len(e.Leaderboard.Headline) != 1 {
		t.Fatalf("%d headline tables, %d rows; want 1, %d", len(e.Leaderboard.Headline), len(ranked), n)
	}
	for i := 1; i < n; i++ {
		if success[ranked[i]] > success[ranked[i-1]] {
			t.Fatalf("headline row %d (%s, %.2f) above row %d (%.2f)", i, ranked[i], success[ranked[i]], i-1, success[ranked[i-1]])
		}
	}
	if slices.IsSorted(ranked) {
		t.Fatal("the fixture's ranking is the name order: it tests nothing")
	}
	edition := filepath.Join(dirs.Content, "preview")
	sys := readParams(t, filepath.Join(edition, "systems", "single-llm.md"))
	shown := columnModels(t, sys["matrix"])
	if !slices.Equal(shown, ranked[:MatrixColumns]) {
		t.Errorf("system page columns %v, want the top %d %v", shown, MatrixColumns, ranked[:MatrixColumns])
	}
	// Every column shown has at least the task success rate of every column left out.
	for _, s := range shown {
		for _, o := range ranked[MatrixColumns:] {
			if success[s] < success[o] {
				t.Errorf("%s (%.2f) shown, %s (%.2f) not", s, success[s], o, success[o])
			}
		}
	}
	cut, _ := sys["matrix_cut"].(map[string]any)
	if want := "Showing the top 16 of 105 configurations by task success rate (as the headline tables rank them); all 105 are on the pages below and in the CSV download."; cut["text"] != want {
		t.Errorf("matrix cut note %q, want %q", cut["text"], want)
	}
	if cut["csv"] != "downloads/matrices/systems-single-llm.csv" || len(cut["pages"].([]any)) != pages {
		t.Errorf("matrix cut note links %v and %d pages", cut["csv"], len(cut["pages"].([]any)))
	}
	// The matrix pages: MatrixColumns columns each in rank order, all 105 once.
	var all []string
	for k := 1; k <= pages; k++ {
		file := filepath.Join(edition, "systems", "single-llm", "matrix.md")
		if k > 1 {
			file = filepath.Join(edition, "systems", "single-llm", "matrix", "page", fmt.Sprint(k)+".md")
		}
		p := readParams(t, file)
		args, _ := p["args"].(map[string]any)
		cols := columnModels(t, args["matrix"])
		if want := min(MatrixColumns, n-(k-1)*MatrixColumns); len(cols) != want {
			t.Errorf("matrix page %d: %d columns, want %d", k, len(cols), want)
		}
		rows, _ := args["matrix"].(map[string]any)["rows"].([]any)
		if len(rows) != len(sitetest.Questions) || len(rows[0].(map[string]any)["cells"].([]any)) != len(cols) {
			t.Errorf("matrix page %d: %d rows of %d cells", k, len(rows), len(rows[0].(map[string]any)["cells"].([]any)))
		}
		all = append(all, cols...)
	}
	if !slices.Equal(all, ranked) {
		t.Errorf("the matrix pages' columns %v, want the headline order %v", all, ranked)
	}
	if _, err := os.Stat(filepath.Join(edition, "systems", "single-llm", "matrix", "page", fmt.Sprint(pages+1)+".md")); err == nil {
		t.Errorf("a matrix page %d exists", pages+1)
	}
	// The CSV: one line per question and configuration, question 1 of model k
	// with its k mod 11 of 10 properties: "◐" (partial) or "✓" (all 10).
	f, err := os.Open(filepath.Join(dirs.Static, "preview", "downloads", "matrices", "systems-single-llm.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lines, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 1+n*len(sitetest.Questions) {
		t.Fatalf("%d CSV lines, want %d", len(lines), 1+n*len(sitetest.Questions))
	}
	for _, l := range lines[1:] {
		if l[0] != "1" {
			continue
		}
		var k int
		fmt.Sscanf(l[3], "model-%d", &k)
		want := "◐"
		if k%11 == 10 {
			want = "✓"
		}
		if l[9] != want {
			t.Errorf("CSV %v: symbols %q, want %q", l, l[9], want)
		}
	}
	// The list of configurations and the headline table: the first ListRows, then pages.
	if cfgs, _ := sys["configs"].([]any); len(cfgs) != ListRows {
		t.Errorf("system page lists %d configurations, want %d", len(cfgs), ListRows)
	}
	if c, _ := sys["configs_cut"].(map[string]any); c["text"] != "Showing the first 100 of 105 configurations; all 105 are on the pages below." {
		t.Errorf("configurations cut note %v", c["text"])
	}
	p2 := readParams(t, filepath.Join(edition, "systems", "single-llm", "configurations", "page", "2.md"))
	if cfgs, _ := p2["args"].(map[string]any)["configs"].([]any); len(cfgs) != 5 {
		t.Errorf("configurations page 2 lists %d, want 5", len(cfgs))
	}
	home := readParams(t, filepath.Join(edition, "_index.md"))
	h := home["headline"].([]any)[0].(map[string]any)
	rows, _ := h["rows"].([]any)
	if len(rows) != ListRows || rows[0].(map[string]any)["model_id"] != ranked[0] || rows[ListRows-1].(map[string]any)["model_id"] != ranked[ListRows-1] {
		t.Errorf("home headline table: %d rows, first %v; want the top %d from %s", len(rows), rows[0].(map[string]any)["model_id"], ListRows, ranked[0])
	}
	id := h["id"].(string)
	t2 := readParams(t, filepath.Join(edition, "tables", id, "page", "2.md"))
	rows2, _ := t2["args"].(map[string]any)["table"].(map[string]any)["rows"].([]any)
	var last []string
	for _, r := range rows2 {
		last = append(last, r.(map[string]any)["model_id"].(string))
	}
	if !slices.Equal(last, ranked[ListRows:]) {
		t.Errorf("headline table page 2: %v, want %v", last, ranked[ListRows:])
	}
}

// TestFewColumnsKeepTheirOrder: at or under the bounds nothing is cut and
// the matrix keeps the identity order (the real data's pages are unchanged).
func TestFewColumnsKeepTheirOrder(t *testing.T) {
	e, dirs := manyModels(t, MatrixColumns)
	sys := readParams(t, filepath.Join(dirs.Content, "preview", "systems", "single-llm.md"))
	var want []string
	for _, c := range e.Leaderboard.Configurations {
		want = append(want, c.Key.Model)
	}
	if got := columnModels(t, sys["matrix"]); !slices.Equal(got, want) {
		t.Errorf("columns %v, want %v", got, want)
	}
	for _, k := range []string{"matrix_cut", "configs_cut"} {
		if _, ok := sys[k]; ok {
			t.Errorf("%s present at the bound", k)
		}
	}
	if _, err := os.Stat(filepath.Join(dirs.Content, "preview", "systems", "single-llm", "matrix.md")); err == nil {
		t.Error("matrix pages written at the bound")
	}
}

func ptrTo[T any](v T) *T { return &v }
