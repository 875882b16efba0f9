package e2e_test

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
)

// TestFolderBenchmarkHasAPageOfItsOwn: the folder benchmark of
// datasets/testdata/folder-benchmark (3 questions, 5 properties), run by
// the toy system of toysystem_test.go and scored by its fake scorer (the
// even-indexed questions correct: test_cubic_lattice's 2 properties and
// test_iron_number's 1, so 3 of 5 properties and 2 of 3 functions
// runnable), gets on the site a page of its own: its title and
// description, its ranked table with that row, its questions with the
// properties each asks for, and a link to the folder's review.html, copied
// beside it; the home page links the page and ranks none of its rows
// beside MatTools'.
func TestFolderBenchmarkHasAPageOfItsOwn(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a site with Hugo; skipped with -short")
	}
	base := t.TempDir()
	folder := filepath.Join(base, "toy-pymatgen")
	if err := os.CopyFS(folder, os.DirFS(filepath.Join(repoRoot(t), "datasets", "testdata", "folder-benchmark"))); err != nil {
		t.Fatal(err)
	}
	review := "<!doctype html><title>Review of toy-pymatgen</title><p>three tasks, every check passed</p>\n"
	if err := os.WriteFile(filepath.Join(folder, "review.html"), []byte(review), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.New(t, llmtest.Options{Responder: func(r llmtest.Request) llmtest.Reply {
		id := strings.TrimPrefix(r.Prompt(), "name: ")
		return llmtest.Reply{Content: "f_" + id + "\ndef f_" + id + "(): return {}", PromptTokens: 10, CompletionTokens: 4}
	}})
	text := fmt.Sprintf(`systems = [%q]
benchmarks = ["toy-pymatgen"]
rounds = 2
[[models]]
name = "toy-model"
base_url = %q
timeout = "30s"
[folder_benchmarks.toy-pymatgen]
path = %q
`, toySystem, srv.URL, folder)
	p, err := plan.Parse([]byte(text), filepath.Join(base, "plan.toml"))
	if err != nil {
		t.Fatal(err)
	}
	resultsDir := filepath.Join(base, "results")
	res, err := runner.Run(context.Background(), runner.Options{Plan: p, DataRoot: mattoolstest.NewRoot(t).Dir, OutDir: resultsDir, Scorer: toyScorer{}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 4 {
		t.Fatalf("%d runs, want 2 rounds × 2 protocols", len(res))
	}
	out := filepath.Join(base, "public")
	if _, err := site.Build(context.Background(), site.Options{ResultsDir: resultsDir, DataHint: "hint", RepoRoot: repoRoot(t), OutDir: out,
		WorkDir: filepath.Join(base, "work"), Releases: []release.Release{}, Strict: true, BenchmarkFolders: []string{folder}}); err != nil {
		t.Fatal(err)
	}
	preview := filepath.Join(out, site.PreviewPath)
	page, err := os.ReadFile(filepath.Join(preview, "benchmarks", "toy-pymatgen", "index.html"))
	if err != nil {
		t.Fatalf("the benchmark's page: %v", err)
	}
	for _, w := range []string{"<h1>Toy pymatgen</h1>", "Three questions written for this project", "<code>0.1</code> (3 questions, 5 properties)",
		"<code>test_nacl_composition</code>", "num_atoms, reduced_formula", "Build a cubic lattice with a lattice constant of 3.0",
		`href="../../benchmarks/toy-pymatgen/review.html">Review page</a>`} {
		if !strings.Contains(string(page), w) {
			t.Errorf("the benchmark's page lacks %q", w)
		}
	}
	row := regexp.MustCompile(`(?s)<tr[^>]*data-system="`+string(toySystem)+`"[^>]*>.*?</tr>`).FindAllString(string(page), -1)
	if len(row) != 1 || !strings.Contains(row[0], "round 1: 60.00 (3/5); round 2: 60.00 (3/5)") || !strings.Contains(row[0], "round 1: 66.67 (2/3)") {
		t.Errorf("the benchmark's page has rows %q; want one of the toy, 3/5 properties and 2/3 runnable in each round", row)
	}
	got, err := os.ReadFile(filepath.Join(preview, "benchmarks", "toy-pymatgen", "review.html"))
	if err != nil || string(got) != review {
		t.Errorf("review.html beside the page: %q, %v", got, err)
	}
	home, err := os.ReadFile(filepath.Join(preview, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(home), `<a href="./benchmarks/toy-pymatgen/">Toy pymatgen</a>`) {
		t.Errorf("the home page does not link the benchmark's page")
	}

	// Without its folder, the page still shows the tables, and says why the questions are missing.
	out2 := filepath.Join(base, "public2")
	if _, err := site.Build(context.Background(), site.Options{ResultsDir: resultsDir, DataHint: "hint", RepoRoot: repoRoot(t), OutDir: out2,
		WorkDir: filepath.Join(base, "work2"), Releases: []release.Release{}, Strict: true}); err != nil {
		t.Fatal(err)
	}
	page, err = os.ReadFile(filepath.Join(out2, site.PreviewPath, "benchmarks", "toy-pymatgen", "index.html"))
	if err != nil || !strings.Contains(string(page), "was not given the benchmark's folder") || strings.Contains(string(page), "Review page") ||
		!strings.Contains(string(page), `data-system="`+string(toySystem)+`"`) {
		t.Errorf("the page without the folder: %v\n%s", err, page)
	}
	// A folder that does not load is an error naming it.
	bad := filepath.Join(base, "not-a-benchmark")
	os.MkdirAll(bad, 0o755)
	if _, err := site.Build(context.Background(), site.Options{ResultsDir: resultsDir, RepoRoot: repoRoot(t), OutDir: filepath.Join(base, "public3"),
		WorkDir: filepath.Join(base, "work3"), Releases: []release.Release{}, BenchmarkFolders: []string{bad}}); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("a folder without benchmark.json: err = %v, want one naming it", err)
	}
}
