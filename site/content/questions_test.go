package content

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
	"github.com/mattools-leaderboard/leaderboard/site/sitetest"
)

// readParams returns the params of a generated page file.
func readParams(t *testing.T, file string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Params map[string]any `json:"params"`
	}
	if err := json.Unmarshal(data, &p); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return p.Params
}

// TestQuestionPagesPaginateAndReadTextsFromFiles: with more configuration
// identities than SectionsPerPage, a question's sections go SectionsPerPage
// to a page; the counts on every page are the question's; the
// code and error excerpts come from the results files (the edition holds
// only the summary columns), and matrix cells link the page holding their
// section.
func TestQuestionPagesPaginateAndReadTextsFromFiles(t *testing.T) {
	dir := t.TempDir()
	var base *results.File
	for _, f := range sitetest.Runs() {
		if f.Run.Provenance.Kind == results.ProvenanceRunner && f.Run.Round == 1 {
			base = f
		}
	}
	const models = 2*SectionsPerPage + 5 // 105 identities: pages of 50, 50 and 5
	for k := range models {
		f := &results.File{Run: base.Run, Questions: append([]results.QuestionRow(nil), base.Questions...)}
		f.Run.Model = fmt.Sprintf("model-%03d", k)
		f.Run.RunID = results.MakeRunID(&f.Run)
		if err := results.Write(filepath.Join(dir, "runs", f.Run.RunID+results.Extension), f); err != nil {
			t.Fatal(err)
		}
	}
	sums, invalid, err := results.ScanDir(filepath.Join(dir, "runs"), results.SummaryOptions{CodeKey: CodeKey})
	if err != nil || len(invalid) > 0 || len(sums) != models {
		t.Fatalf("ScanDir: %d files, invalid %v, %v", len(sums), invalid, err)
	}
	e := &Edition{Path: "preview", Version: "preview", Benchmark: sitetest.Benchmark(), ResultsPaths: map[string]string{}, CodeKeys: map[string][]string{}}
	for _, s := range sums {
		e.Files = append(e.Files, s.File)
		e.ResultsPaths[s.File.Run.RunID] = s.File.Path
		e.CodeKeys[s.File.Run.RunID] = s.CodeKeys
		if s.File.Questions[1].Code != "" || s.File.Questions[1].ErrorExcerpt != nil {
			t.Fatal("the summary holds the texts")
		}
	}
	e.Leaderboard = aggregate.Build(e.Files, aggregate.DefaultCatalog())
	dirs := Dirs{Content: filepath.Join(dir, "content"), Static: filepath.Join(dir, "static")}
	if err := Write(dirs, e); err != nil {
		t.Fatal(err)
	}
	q := sitetest.Questions[1].ID
	qdir := filepath.Join(dirs.Content, "preview", "questions")
	for _, tt := range []struct {
		file           string
		page, sections int
		firstModel     string
	}{
		{filepath.Join(qdir, q+".md"), 1, 50, "model-000"},
		{filepath.Join(qdir, q, "page", "2.md"), 2, 50, "model-050"},
		{filepath.Join(qdir, q, "page", "3.md"), 3, 5, "model-100"},
	} {
		p := readParams(t, tt.file)
		secs, _ := p["sections"].([]any)
		// Every page counts the question's 105 runs (one round each) and its 105 configurations.
		if len(secs) != tt.sections || p["page"] != float64(tt.page) || p["page_count"] != float64(3) ||
			p["configurations"] != float64(models) || p["runs"] != float64(models) {
			t.Errorf("%s: %d sections, page %v of %v, %v configurations, %v runs; want %d, page %d of 3, %d, %d",
				tt.file, len(secs), p["page"], p["page_count"], p["configurations"], p["runs"], tt.sections, tt.page, models, models)
			continue
		}
		first := secs[0].(map[string]any)
		if first["model_id"] != tt.firstModel {
			t.Errorf("%s: first section %v, want %s", tt.file, first["model_id"], tt.firstModel)
		}
		text, _ := json.Marshal(first)
		// Question 1 of the runner fixture (the hostile model's): partial, its code, error
		// excerpt and trace from the file.
		for _, want := range []string{`"code":"def f():\n    return {'a': `, `alert(\"code\")`, "prop_1: expected", `"passed":"2/4"`, `"prompt_tokens":"120"`} {
			if !strings.Contains(string(text), want) {
				t.Errorf("%s: the first section lacks %q: %s", tt.file, want, text)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(qdir, q, "page", "4.md")); err == nil {
		t.Error("a fourth page exists")
	}
	// The last model's page links its section on page 3 of the question.
	mp := readParams(t, filepath.Join(dirs.Content, "preview", "models", aggregate.Slug("model-104")+".md"))
	mx, _ := json.Marshal(mp["matrix"])
	if want := "questions/" + q + "/page/3/#"; !strings.Contains(string(mx), want) {
		t.Errorf("model-104's matrix does not link %s: %s", want, mx)
	}
}
