package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/e2e/fakerunner"
	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/llm/llmtest"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/site"
	"github.com/mattools-leaderboard/leaderboard/site/release"
)

// secondQuestions are the MatTools questions the second tool-usage
// benchmark holds: three that read no data file (datasets/manifest.csv),
// 1 + 1 + 2 properties.
var secondQuestions = []string{"test_pchip_eval", "test_boltzmann", "test_lower_envelope"}

// boltzmannValues are test_boltzmann's expected values in MatTools'
// new_unit_test.py; the folder's copy expects folderBoltzmannValues
// instead, and the fake model's one correct answer returns those: correct
// only where the folder's verification is the one executed, so a command
// that re-executed with MatTools' questions would disagree with the runner.
const (
	boltzmannValues       = "[0.9791034813819097, 0.020459854127734073, 0.00042753972270360594, 8.934091775449048e-06, 1.8669141512139823e-07, 3.901200631921917e-09]"
	folderBoltzmannValues = "[0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625]"
)

// TestSecondToolUsageBenchmarkEverywhere: a second tool-usage benchmark,
// a folder (benchmark.json) holding three of MatTools' questions, is run by
// run-benchmark (single-llm, 3 rounds, both protocols, scored in the
// sandbox) against the fake model server, which answers test_boltzmann
// with the folder's expected values (correct there, wrong under MatTools'
// own test) and the others with a dict of None
// (runnable, no property passed). rescore -benchmark-folder re-executes the
// 3 rounds' code under both protocols and finds every runner verdict (verdict, runnable, properties
// passed); make-submission and validate-submission -reexecute
// -benchmark-folder find them too; and the site shows the benchmark, by its
// title, on the failures page, in compare.json and on its configurations'
// pages, whose matrix has its three questions. It needs the sandbox and
// MATTOOLS_DATA.
func TestSecondToolUsageBenchmarkEverywhere(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a benchmark through the sandbox; skipped with -short")
	}
	root := mattoolstest.DataRoot(t, "to build a second benchmark from MatTools' questions")
	python := sandboxPython(t)
	base := readableTempDir(t, "e2e-second-")

	// The benchmark's folder: MatTools' question files under its own name.
	const name, title = "mattools-mini", "MatTools mini"
	folder := filepath.Join(base, name)
	for _, q := range secondQuestions {
		dst := filepath.Join(folder, "src", "question_segments", name, q)
		if err := os.CopyFS(dst, os.DirFS(filepath.Join(root, datasets.QuestionsDir, q))); err != nil {
			t.Fatal(err)
		}
	}
	unitTest := filepath.Join(folder, "src", "question_segments", name, "test_boltzmann", "new_unit_test.py")
	src, err := os.ReadFile(unitTest)
	if err != nil || !bytes.Contains(src, []byte(boltzmannValues)) {
		t.Fatalf("%s: %v; want MatTools' expected values in it", unitTest, err)
	}
	if err := os.WriteFile(unitTest, bytes.Replace(src, []byte(boltzmannValues), []byte(folderBoltzmannValues), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	manifest, _ := json.Marshal(map[string]any{"name": name, "version": "0.1", "title": title,
		"description": "Three of MatTools' tool-usage questions, as a benchmark of its own.", "questions": secondQuestions})
	if err := os.WriteFile(filepath.Join(folder, datasets.FolderManifestFile), manifest, 0o644); err != nil {
		t.Fatal(err)
	}
	bench, _, err := datasets.LoadFolder(folder)
	if err != nil {
		t.Fatal(err)
	}
	answers, err := fakerunner.Answers(bench)
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.New(t, llmtest.Options{Responder: func(r llmtest.Request) llmtest.Reply {
		if strings.Contains(r.Prompt(), "Boltzmann_Filling_Distribution") {
			return llmtest.Reply{Content: "<answer>\n<code>\n```python\ndef boltzmann():\n    return {\"Boltzmann_Filling_Distribution\": " + folderBoltzmannValues +
				"}\n```\n</code>\n<name>boltzmann</name>\n</answer>", PromptTokens: 1200, CompletionTokens: 90}
		}
		if a, ok := answers.For(r.Prompt()); ok {
			return llmtest.Reply{Content: a, PromptTokens: 1500, CompletionTokens: 120}
		}
		return llmtest.Reply{Content: "no question recognised", PromptTokens: 10, CompletionTokens: 3}
	}})

	cmd := commands(t, base, root, "./cmd/run-benchmark", "./cmd/rescore", "./cmd/make-submission", "./cmd/validate-submission")

	const model = "local/fake-mini-coder"
	planPath := filepath.Join(base, "plan.toml")
	if err := os.WriteFile(planPath, []byte(fmt.Sprintf(`rounds = 3
concurrency = 3
benchmarks = [%q]
systems = ["single-llm"]

[tool_usage]
scoring_protocols = ["mattools-v1", "mattools-v1-strict"]

[sandbox]
backend = "auto"

[folder_benchmarks.%s]
path = %q

[[models]]
name = %q
display_name = "Fake mini coder"
base_url = %q
timeout = "60s"
`, name, name, folder, model, srv.URL)), 0o644); err != nil {
		t.Fatal(err)
	}
	runs := filepath.Join(base, "runs")
	if _, err := cmd("run-benchmark", "-plan", planPath, "-out", runs, "-sandbox-python", python, "-prompts-cache", filepath.Join(base, "prompts"), "-no-progress"); err != nil {
		t.Fatalf("run-benchmark: %v", err)
	}
	files, err := results.ReadDir(runs)
	if err != nil || len(files) != 6 {
		t.Fatalf("run-benchmark wrote %d results files (%v); want 3 rounds × 2 protocols", len(files), err)
	}
	// The runner's verdicts, by protocol, round and question.
	want := map[verdictKey]string{}
	var inputs []string
	for _, f := range files {
		if f.Run.Benchmark != name || f.Run.BenchmarkVersion != "0.1" || len(f.Questions) != 3 {
			t.Fatalf("%s: benchmark %s %s, %d rows; want %s 0.1, 3 rows", f.Path, f.Run.Benchmark, f.Run.BenchmarkVersion, len(f.Questions), name)
		}
		for _, q := range f.Questions {
			want[verdictKey{f.Run.ScoringProtocol, f.Run.Round, q.QuestionID}] = rowVerdict(q)
		}
		if f.Run.ScoringProtocol == results.ProtocolMatToolsV1 { // a round's code, once: rescore scores it under both protocols
			inputs = append(inputs, f.Path)
		}
	}
	// Real values: test_boltzmann correct, the dict of None runnable and passing nothing.
	for _, p := range []string{results.ProtocolMatToolsV1, results.ProtocolMatToolsV1Strict} {
		if got := want[verdictKey{p, 2, "test_boltzmann"}]; got != "correct runnable=true passed=1" {
			t.Errorf("runner, %s round 2, test_boltzmann: %q; want correct, 1 property passed", p, got)
		}
		if got := want[verdictKey{p, 3, "test_lower_envelope"}]; !strings.HasSuffix(got, "runnable=true passed=0") {
			t.Errorf("runner, %s round 3, test_lower_envelope: %q; want runnable, 0 properties passed", p, got)
		}
	}

	// rescore: without the folder it says how to give it; with it, the runner's verdicts.
	if out, err := cmd("rescore", "-data", root, "-python", python, "-quiet", "-out", filepath.Join(base, "refused"), inputs[0]); err == nil ||
		!strings.Contains(out, "give its folder with -benchmark-folder") {
		t.Errorf("rescore without -benchmark-folder: %v; want it to ask for the folder", err)
	}
	// MatTools' corrected versions are not versions of this benchmark.
	if out, err := cmd("rescore", "-data", root, "-python", python, "-quiet", "-out", filepath.Join(base, "refused"),
		"-benchmark-folder", folder, "-benchmark-version", results.BenchmarkVersion2025_05Corrected2, inputs[0]); err == nil ||
		!strings.Contains(out, "-benchmark-version 2025-05-corrected-2: not a corrected version of benchmark "+name) {
		t.Errorf("rescore -benchmark-version of MatTools' corrections on %s: %v; want it refused", name, err)
	}
	rescored := filepath.Join(base, "rescored")
	args := append([]string{"-data", root, "-python", python, "-quiet", "-out", rescored, "-benchmark-folder", folder}, inputs...)
	if _, err := cmd("rescore", args...); err != nil {
		t.Fatalf("rescore: %v", err)
	}
	refiles, err := results.ReadDir(rescored)
	if err != nil || len(refiles) != 6 {
		t.Fatalf("rescore wrote %d results files (%v); want 3 rounds × 2 protocols", len(refiles), err)
	}
	compared := 0
	for _, f := range refiles {
		if f.Run.Benchmark != name || f.Run.BenchmarkVersion != "0.1" || f.Run.Provenance.Kind != results.ProvenanceRescored {
			t.Errorf("%s: %s %s, provenance %s; want a rescored run of %s 0.1", f.Path, f.Run.Benchmark, f.Run.BenchmarkVersion, f.Run.Provenance.Kind, name)
		}
		for _, q := range f.Questions {
			k := verdictKey{f.Run.ScoringProtocol, f.Run.Round, q.QuestionID}
			if got := rowVerdict(q); got != want[k] {
				t.Errorf("rescore, %v: %q; the runner's %q", k, got, want[k])
			}
			compared++
		}
	}
	if compared != 18 {
		t.Errorf("compared %d rescored verdicts; want 6 files × 3 questions", compared)
	}

	// make-submission, then validate-submission -reexecute with the folder.
	meta := filepath.Join(base, "author.toml")
	if err := os.WriteFile(meta, []byte(authorTOML), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := cmd("make-submission", "-metadata", meta, "-out", filepath.Join(base, "submissions"), runs)
	if err != nil {
		t.Fatalf("make-submission: %v", err)
	}
	m := regexp.MustCompile(`wrote (\S+): submission.toml and 6 results files`).FindStringSubmatch(out)
	if m == nil || !strings.Contains(out, "-reexecute -benchmark-folder <the benchmark's folder> "+m[1]) {
		t.Fatalf("make-submission printed %q; want the folder written with 6 results files and the check with -benchmark-folder", out)
	}
	out, err = cmd("validate-submission", "-reexecute", "-quiet", "-data", root, "-python", python, "-benchmark-folder", folder, m[1])
	if err != nil || !strings.Contains(out, "re-executed: 9 answers (3 distinct) in the sandbox under mattools-v1 and mattools-v1-strict: 18 verdicts compared, all agree") {
		t.Errorf("validate-submission -reexecute: %v; want 18 verdicts compared, all agreeing", err)
	}

	// The site: the benchmark by its title on the failures page, in the comparison data and on its configurations' pages.
	siteOut := filepath.Join(base, "public")
	if _, err := site.Build(context.Background(), site.Options{ResultsDir: runs, RepoRoot: repoRoot(t), OutDir: siteOut,
		WorkDir: filepath.Join(base, "work"), Releases: []release.Release{}, BenchmarkFolders: []string{folder}}); err != nil {
		t.Fatal(err)
	}
	preview := filepath.Join(siteOut, site.PreviewPath)
	read := func(rel string) string {
		data, err := os.ReadFile(filepath.Join(preview, rel))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	failures := read("failures/index.html")
	for _, p := range []string{results.ProtocolMatToolsV1, results.ProtocolMatToolsV1Strict} {
		if h := title + ": All 3 questions (4 properties), " + p; !strings.Contains(failures, h) {
			t.Errorf("the failures page has no table %q", h)
		}
	}
	if !strings.Contains(failures, "Fake mini coder") {
		t.Errorf("the failures page has no row of the model")
	}
	var cmpData struct {
		Groups []struct {
			Title          string
			Questions      []struct{ ID string }
			Configurations []struct {
				Passed [][]*int
			}
		}
	}
	if err := json.Unmarshal([]byte(read("downloads/compare.json")), &cmpData); err != nil {
		t.Fatal(err)
	}
	if len(cmpData.Groups) != 2 || cmpData.Groups[0].Title != title+": All 3 questions (4 properties), mattools-v1" ||
		len(cmpData.Groups[0].Questions) != 3 || cmpData.Groups[0].Questions[1].ID != "test_boltzmann" || len(cmpData.Groups[0].Configurations) != 1 {
		t.Fatalf("compare.json: %+v; want a group per protocol titled %q…, of the 3 questions and the one configuration", cmpData.Groups, title)
	}
	if p := cmpData.Groups[0].Configurations[0].Passed[1]; len(p) != 3 || p[0] == nil || *p[0] != 1 || *p[2] != 1 {
		t.Errorf("compare.json: test_boltzmann's properties passed per round %v; want 1 in each of the 3 rounds", p)
	}
	confPages, _ := filepath.Glob(filepath.Join(preview, "configurations", "*", "index.html"))
	matrices := 0
	for _, path := range confPages {
		page, _ := os.ReadFile(path)
		if !strings.Contains(string(page), `class="matrix"`) {
			continue
		}
		matrices++
		row := regexp.MustCompile(`(?s)<tr><td class="num">\d+</td><th scope="row"><a href="[^"]*benchmarks/` + name + `/">test_boltzmann</a></th>(.*?)</tr>`).FindStringSubmatch(string(page))
		if row == nil || !strings.Contains(row[1], "✓✓✓") || !strings.Contains(row[1], "3/3") {
			t.Errorf("%s: the matrix has no row of test_boltzmann correct in 3 of 3 rounds", path)
		}
	}
	if matrices != 2 {
		t.Errorf("%d configuration pages with a matrix; want the benchmark's 2 (one per protocol)", matrices)
	}
	modelPages, _ := filepath.Glob(filepath.Join(preview, "models", "local-fake-mini-coder-*", "index.html"))
	if len(modelPages) != 1 {
		t.Fatalf("model pages %q; want the fake model's", modelPages)
	}
	if page, _ := os.ReadFile(modelPages[0]); !strings.Contains(string(page), title+" 0.1 · ") {
		t.Errorf("the model's page has no configuration table titled %q", title+" 0.1 · …")
	}
}
