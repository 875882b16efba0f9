package synth_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/llm"
	"github.com/mattools-leaderboard/leaderboard/llm/llmtest"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/runner"
	"github.com/mattools-leaderboard/leaderboard/runner/plan"
	"github.com/mattools-leaderboard/leaderboard/runner/scoring"
	"github.com/mattools-leaderboard/leaderboard/sandbox"
	"github.com/mattools-leaderboard/leaderboard/site"
	"github.com/mattools-leaderboard/leaderboard/site/release"
	"github.com/mattools-leaderboard/leaderboard/synth"
	"github.com/mattools-leaderboard/leaderboard/synth/synthtest"
)

func needPython(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat(synth.DefaultPython); err != nil {
		t.Skipf("no %s (scripts/setup.sh installs it): %v", synth.DefaultPython, err)
	}
	return synth.DefaultPython
}

func openSandbox(t *testing.T, dataDirs ...string) sandbox.Sandbox {
	t.Helper()
	sb, err := sandbox.Open(context.Background(), "auto", sandbox.Options{Slots: 2, Python: "/opt/mattools-sandbox", DataDirs: dataDirs})
	if err != nil {
		if os.Getenv("CI") == "" && errors.Is(err, sandbox.ErrUnavailable) {
			t.Skipf("no sandbox with the pinned Python environment (scripts/setup.sh): %v", err)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	return sb
}

// pipelineTests are three defects tests and four pymatgen tests (three
// of pymatgen's core: composition, periodic table, symmetry groups; one
// reading a test file) whose data the data root has.
var pipelineTests = []struct{ dir, id string }{
	{synth.DefectsTestsDir, "test_core.py::test_vacancy"},
	{synth.DefectsTestsDir, "test_core.py::test_adsorbate"},
	{synth.DefectsTestsDir, "test_utils.py::test_group_docs"},
	{"src/tool_source_code/pymatgen/tests", "core/test_composition.py::TestComposition::test_hill_formula"},
	{"src/tool_source_code/pymatgen/tests", "symmetry/test_groups.py::TestSpaceGroup::test_attr"},
	{"src/tool_source_code/pymatgen/tests", "core/test_periodic_table.py::TestElement::test_radii"},
	// reads tests/files/cif/Li2O.cif through TEST_FILES_DIR
	{"src/tool_source_code/pymatgen/tests", "analysis/test_energy_models.py::TestEwaldElectrostaticModel::test_get_energy"},
}

func runPipeline(t *testing.T, root string, tests []synth.Test, set *synthtest.AnswerSet) ([]synth.Triplet, []synth.TaskReview) {
	t.Helper()
	srv := llmtest.New(t, llmtest.Options{Responder: set.Respond})
	c, err := llm.New(llm.Config{BaseURL: srv.URL, Model: "scripted", MaxRetries: llm.NoRetries})
	if err != nil {
		t.Fatal(err)
	}
	res, err := synth.Generate(context.Background(), tests, set.Prompts, c, synth.Options{Journal: filepath.Join(t.TempDir(), "j.jsonl"), Concurrency: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Triplets) != len(tests) || res.Completions != 4*len(tests) {
		t.Fatalf("generated %+v", res)
	}
	sb := openSandbox(t, filepath.Join(root, "src", "tool_source_code"))
	revs, err := synth.RunChecks(context.Background(), sb, root, synth.DefaultPython, tests, res.Triplets, "scripted", set.Prompts.Files, 5*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range revs {
		if r.B == nil || r.B.Test.Status != "passed" {
			t.Errorf("%s: the test itself did not pass: %+v", tests[i].ID, r.B)
		}
	}
	return res.Triplets, revs
}

// TestPipelineScripted: a scripted model drives split → four calls →
// checks (a), (b), (c) for three defects tests and three pymatgen tests:
// every triplet passes; the folder synthesize -layout writes is dry-run
// and run by the runner as a benchmark of its own (the references, as a
// scripted solver's answers, pass every property in the sandbox) and has a
// page of its own on the site; a second answer set with a wrong expected
// value and a leaking question is caught, each by its named reason.
func TestPipelineScripted(t *testing.T) {
	py := needPython(t)
	root := mattoolstest.DataRoot(t, "to synthesise from real unit tests")
	p, err := synth.LoadPrompts(root)
	if err != nil {
		t.Fatal(err)
	}
	var tests []synth.Test
	for _, pt := range pipelineTests {
		file, _, _ := strings.Cut(pt.id, "::")
		files, err := synth.Split(filepath.Join(root, pt.dir), []string{file}, py)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, x := range files[0].Tests {
			if x.ID == pt.id {
				tests, found = append(tests, x), true
			}
		}
		if !found {
			t.Fatalf("no test %s", pt.id)
		}
	}
	ts, revs := runPipeline(t, root, tests, &synthtest.AnswerSet{Prompts: p, Tests: tests})
	for _, r := range revs {
		if !r.Passed() {
			t.Errorf("%s: %q", r.Test, r.Problems)
		}
	}
	// The layout: MatTools' three files, the reference and the review. A
	// folder that is not a synthesised benchmark is never replaced.
	other := t.TempDir()
	if err := synth.WriteLayout(other, synth.Manifest{Name: "scripted"}, tests, ts, revs); err == nil || !strings.Contains(err.Error(), "refusing to replace") {
		t.Errorf("writing over a folder without benchmark.json: %v", err)
	}
	dir := filepath.Join(t.TempDir(), "bench")
	if err := synth.WriteLayout(dir, synth.Manifest{Name: "scripted", Version: "0.1", Model: "scripted", Prompts: p.Files}, tests, ts, revs); err != nil {
		t.Fatal(err)
	}
	q := filepath.Join(dir, "src", "question_segments", "scripted", "test_hill_formula")
	for _, f := range []string{"question.txt", "properties.json", "new_unit_test.py", "reference_solution.py", "review.json"} {
		if _, err := os.Stat(filepath.Join(q, f)); err != nil {
			t.Error(err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(q, "new_unit_test.py")); !strings.HasPrefix(string(b), "def test_hill_formula(properties):") {
		t.Errorf("new_unit_test.py starts %.60q", b)
	}
	// The manifest the loader reads: name, version, format, where the
	// data comes from and how the tasks run.
	var m synth.Manifest
	if b, err := os.ReadFile(filepath.Join(dir, "benchmark.json")); err != nil || json.Unmarshal(b, &m) != nil || len(m.Questions) != 7 || len(m.Excluded) != 0 ||
		m.Format != synth.ManifestFormat || m.Name != "scripted" || m.Version != "0.1" || m.DataDir != "src/tool_source_code" ||
		len(m.Env) != 1 || m.Env[0] != "PMG_TEST_FILES_DIR=/app/tool_source_code/pymatgen/tests/files" {
		t.Errorf("manifest %+v (%v)", m, err)
	}
	for i, q := range m.Questions {
		if want := len(tests[i].AssertList); m.Properties[q] == 0 || m.Properties[q] > want {
			t.Errorf("%s: %d properties in the manifest, the test has %d asserts", q, m.Properties[q], want)
		}
	}
	// The scripted verifications import pytest, which the sandbox lacks:
	// the folder provides the stand-in, and the runner's own scorer then
	// scores every task in the sandbox: each reference solution passes
	// every property of its question under both protocols.
	if m.Modules["pytest"] != synth.PytestModule {
		t.Errorf("manifest modules %v; want pytest at %s", m.Modules, synth.PytestModule)
	}
	fb, _, err := datasets.LoadFolder(dir)
	if err != nil {
		t.Fatal(err)
	}
	sc := &scoring.Scorer{Sandbox: openSandbox(t, filepath.Join(root, "src", "tool_source_code")), Root: root}
	for i := range fb.Questions {
		q := &fb.Questions[i]
		ref, err := os.ReadFile(filepath.Join(dir, "src", "question_segments", "scripted", q.ID, "reference_solution.py"))
		if err != nil {
			t.Fatal(err)
		}
		got, err := sc.Score(context.Background(), q, scoring.Submission{Code: string(ref), FunctionName: synth.LastFunctionName(string(ref))})
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range []scoring.Outcome{got.Outcomes[results.ProtocolMatToolsV1], got.Outcomes[results.ProtocolMatToolsV1Strict]} {
			if o.PropertiesPassed != len(q.Properties) {
				t.Errorf("%s scored by the runner's scorer under %s: %d of %d properties passed (%s, %s: %.300s)", q.ID, o.Protocol, o.PropertiesPassed, len(q.Properties), o.Verdict, o.Cause, o.Detail)
			}
		}
	}

	// The runner dry-runs the folder as a benchmark of its own and runs it:
	// a scripted solver answering each question with its reference
	// solution, scored in the sandbox, passes every property of the 7
	// tasks; the site gives the benchmark its own page with its review page.
	solver := llmtest.New(t, llmtest.Options{Responder: func(r llmtest.Request) llmtest.Reply {
		for i := range fb.Questions {
			q := &fb.Questions[i]
			if strings.Contains(r.Prompt(), strings.TrimSpace(q.Text)) {
				ref, _ := os.ReadFile(filepath.Join(dir, "src", "question_segments", "scripted", q.ID, "reference_solution.py"))
				return llmtest.Reply{Content: "<answer><code>```python\n" + string(ref) + "```</code><name>" + synth.LastFunctionName(string(ref)) + "</name></answer>"}
			}
		}
		return llmtest.Reply{Content: "no such question"}
	}})
	pl, err := plan.Parse([]byte(fmt.Sprintf("systems = [\"single-llm\"]\nbenchmarks = [\"scripted\"]\nrounds = 1\nconcurrency = 2\n[[models]]\nname = \"scripted-solver\"\nbase_url = %q\ntimeout = \"60s\"\n[folder_benchmarks.scripted]\npath = %q\n", solver.URL, dir)), filepath.Join(t.TempDir(), "plan.toml"))
	if err != nil {
		t.Fatal(err)
	}
	resultsDir := t.TempDir()
	ro := runner.Options{Plan: pl, DataRoot: root, OutDir: resultsDir, Scorer: sc}
	ests, err := runner.EstimatePlan(ro)
	if err != nil || len(ests) != 1 || ests[0].Benchmark != "scripted" || ests[0].Questions != 7 || ests[0].Calls != 7 {
		t.Fatalf("dry run of the synthesised benchmark: %+v, %v; want one run of 7 questions, 7 calls", ests, err)
	}
	runs, err := runner.Run(context.Background(), ro)
	if err != nil {
		t.Fatal(err)
	}
	props := 0
	for _, q := range fb.Questions {
		props += len(q.Properties)
	}
	for _, r := range runs {
		f, err := results.Read(r.Path)
		if err != nil {
			t.Fatal(err)
		}
		tot := f.Run.Totals
		if f.Run.Benchmark != "scripted" || tot.PropertiesPassed == nil || *tot.PropertiesPassed != props || *tot.Runnable != 7 {
			t.Errorf("%s (%s): totals %+v; want all %d properties of the 7 tasks passed", f.Run.RunID, f.Run.ScoringProtocol, tot, props)
		}
	}
	if !testing.Short() { // a Hugo build
		repo, _ := filepath.Abs("..")
		out := t.TempDir()
		if _, err := site.Build(context.Background(), site.Options{ResultsDir: resultsDir, RepoRoot: repo, OutDir: out, WorkDir: t.TempDir(),
			Releases: []release.Release{}, Strict: true, BenchmarkFolders: []string{dir}}); err != nil {
			t.Fatal(err)
		}
		bpage, err := os.ReadFile(filepath.Join(out, site.PreviewPath, "benchmarks", "scripted", "index.html"))
		if err != nil || !strings.Contains(string(bpage), "<code>test_hill_formula</code>") || !strings.Contains(string(bpage), "Review page</a>") ||
			!strings.Contains(string(bpage), "scripted-solver") {
			t.Errorf("the synthesised benchmark's page: %v", err)
		}
		if b, err := os.ReadFile(filepath.Join(out, site.PreviewPath, "benchmarks", "scripted", "review.html")); err != nil || !strings.Contains(string(b), "test_hill_formula") {
			t.Errorf("its review page: %v", err)
		}
	}

	// The review page lists every task with its checks.
	page, err := os.ReadFile(filepath.Join(dir, synth.ReviewPageFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"7 passed every check", "0 excluded", "test_hill_formula", "core/test_composition.py::TestComposition::test_hill_formula",
		"the test itself</td><td>passed", synth.ReferencePromptSHA256} {
		if !strings.Contains(string(page), s) {
			t.Errorf("the review page lacks %q", s)
		}
	}

	// The spoilt answers: a defects test and a pymatgen core test.
	badTests := []synth.Test{tests[0], tests[3]}
	bts, bad := runPipeline(t, root, badTests, &synthtest.AnswerSet{Prompts: p, Tests: badTests, WrongValue: true, Leak: true})
	for _, r := range bad {
		all := strings.Join(r.Problems, "\n")
		for _, want := range []string{"property p0 (value \"a wrong value\") maps to no assert of the test", "the reference solution fails property p0", "the question contains `"} {
			if !strings.Contains(all, want) {
				t.Errorf("%s: the spoilt answers are not caught by %q:\n%s", r.Test, want, all)
			}
		}
	}
	if err := synth.WriteLayout(dir, synth.Manifest{Name: "scripted", Version: "0.2"}, badTests, bts, bad); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "benchmark.json")); err != nil || json.Unmarshal(b, &m) != nil || len(m.Questions) != 0 || len(m.Excluded) != 2 {
		t.Errorf("spoilt manifest %+v (%v)", m, err)
	}
	for _, f := range []string{"test_vacancy", "test_hill_formula"} {
		if _, err := os.Stat(filepath.Join(dir, "excluded", f, "review.json")); err != nil {
			t.Error(err)
		}
	}
	page, err = os.ReadFile(filepath.Join(dir, synth.ReviewPageFile))
	if err != nil || !strings.Contains(string(page), "0 passed every check") || !strings.Contains(string(page), "2 excluded") ||
		!strings.Contains(string(page), "maps to no assert of the test") {
		t.Errorf("the spoilt review page (%v)", err)
	}
}
