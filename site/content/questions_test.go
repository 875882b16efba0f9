package content

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

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
		// Question 1 of the runner fixture (the hostile model's): partial; its code, error
		// excerpt and trace from the file, on the section's code page, which its rounds link.
		code := filepath.Join(qdir, q, "code", first["anchor"].(string)+".md")
		if want := "questions/" + q + "/code/" + first["anchor"].(string) + "/#entry-1"; !strings.Contains(string(text), `"passed":"2/4"`) ||
			!strings.Contains(string(text), `"href":"`+want+`"`) || strings.Contains(string(text), "prop_1: expected") || strings.Contains(string(text), `"code":`) {
			t.Errorf("%s: the first section does not say 2/4 passed and link %s, or holds the code or the excerpt: %s", tt.file, want, text)
		}
		cp, _ := json.Marshal(readParams(t, code)["section"])
		for _, want := range []string{`"code":"def f():\n    return {'a': `, `alert(\"code\")`, "prop_1: expected", `"passed":"2/4"`, `"prompt_tokens":"120"`, `"id":"entry-1"`} {
			if !strings.Contains(string(cp), want) {
				t.Errorf("%s: the code page lacks %q: %s", code, want, cp)
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

// TestQuestionPageNamesPassedAndFailedProperties: a runner run whose
// partial answer (question 1: 2 of 4 properties) carries per-property
// outcomes (results format v3), read back from its results file, shows on
// the question's code page which properties passed and which failed with
// the verification's message; its round's verdict line is said once (no
// repeated sentence per protocol).
func TestQuestionPageNamesPassedAndFailedProperties(t *testing.T) {
	dir := t.TempDir()
	var f *results.File
	for _, g := range sitetest.Runs() {
		if g.Run.Provenance.Kind == results.ProvenanceRunner && f == nil {
			f = g
		}
	}
	f.Questions[1].PropertyOutcomes = []results.PropertyOutcome{{Property: "prop_0", Passed: true}, {Property: "prop_1", Passed: false, Message: "expected <1> but got 2"},
		{Property: "prop_2", Passed: true}, {Property: "prop_3", Passed: false, Message: strings.Repeat("é", 400)}}
	path := filepath.Join(dir, "runs", f.Run.RunID+results.Extension)
	if err := results.Write(path, f); err != nil {
		t.Fatal(err)
	}
	sums, invalid, err := results.ScanDir(filepath.Join(dir, "runs"), results.SummaryOptions{CodeKey: CodeKey})
	if err != nil || len(invalid) > 0 || len(sums) != 1 {
		t.Fatalf("ScanDir: %d files, invalid %v, %v", len(sums), invalid, err)
	}
	e := &Edition{Path: "preview", Version: "preview", Benchmark: sitetest.Benchmark(), ResultsPaths: map[string]string{}, CodeKeys: map[string][]string{}}
	for _, s := range sums {
		e.Files = append(e.Files, s.File)
		e.ResultsPaths[s.File.Run.RunID] = s.File.Path
		e.CodeKeys[s.File.Run.RunID] = s.CodeKeys
	}
	e.Leaderboard = aggregate.Build(e.Files, aggregate.DefaultCatalog())
	dirs := Dirs{Content: filepath.Join(dir, "content"), Static: filepath.Join(dir, "static")}
	if err := Write(dirs, e); err != nil {
		t.Fatal(err)
	}
	p := readParams(t, filepath.Join(dirs.Content, "preview", "questions", sitetest.Questions[1].ID+".md"))
	secs, _ := p["sections"].([]any)
	if len(secs) != 1 {
		t.Fatalf("%d sections, want 1", len(secs))
	}
	// The properties are named on the section's code page.
	anchor := secs[0].(map[string]any)["anchor"].(string)
	cp := readParams(t, filepath.Join(dirs.Content, "preview", "questions", sitetest.Questions[1].ID, "code", anchor+".md"))
	entries := cp["section"].(map[string]any)["entries"].([]any)
	v := entries[0].(map[string]any)["verdicts"].([]any)[0].(map[string]any)
	passed, _ := json.Marshal(v["passed_props"])
	if string(passed) != `["prop_0","prop_2"]` {
		t.Errorf("passed properties %s, want prop_0 and prop_2", passed)
	}
	failed := v["failed_props"].([]any)
	if len(failed) != 2 {
		t.Fatalf("failed properties %v, want prop_1 and prop_3", failed)
	}
	f1, f3 := failed[0].(map[string]any), failed[1].(map[string]any)
	if f1["name"] != "prop_1" || f1["message"] != "expected <1> but got 2" {
		t.Errorf("first failed property %v", f1)
	}
	// 400 × "é" is 800 bytes: cut at a rune boundary within failMessageBytes, marked.
	if m, _ := f3["message"].(string); f3["name"] != "prop_3" || !strings.HasSuffix(m, " …") || len(m) > failMessageBytes+len(" …") || !utf8.ValidString(m) {
		t.Errorf("second failed property %v: want prop_3 with its message cut to %d bytes", f3["name"], failMessageBytes)
	}
}
