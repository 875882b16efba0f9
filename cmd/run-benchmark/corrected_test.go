package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/llm/llmtest"
	"github.com/mattools-leaderboard/leaderboard/results"
)

// TestCorrectedVersionIsScoredApart: the same answers run under the
// published version and under tool_usage.benchmark_version =
// "2025-05-corrected-1" are scored by each version's own verification
// (MatTools' real new_unit_test.py of the three corrected questions, the
// corrected one with datasets/corrections.json applied), into runs of
// their own: the answers a correct solution gives pass 6 properties more
// under the corrected version (test_defect_finder 4, test_interstitial
// 1, test_antisite_generator 1), and the runs' ids and benchmark versions
// differ.
func TestCorrectedVersionIsScoredApart(t *testing.T) {
	data := os.Getenv(datasets.EnvVar)
	if data == "" {
		t.Skipf("%s is not set: set it to a MatTools checkout (CI sets it) to score the corrected questions", datasets.EnvVar)
	}
	python := envOr(os.Getenv, "MATTOOLS_SANDBOX_PYTHON", "/opt/mattools-sandbox")
	if _, err := os.Stat(filepath.Join(python, "pyvenv.cfg")); err != nil && os.Getenv("CI") == "" {
		t.Skipf("the sandbox's Python environment is not installed (make setup): %v", err)
	}
	root := sandboxReadableRoot(t)
	// The three corrected questions as MatTools publishes them, with
	// placeholders for their data files (the answers read none).
	corrected := map[string]string{
		// What the reference solutions compute (benchmarks/mattools-tool-usage/diagnoses.csv).
		"test_defect_finder": `return {"vacancy_defect_distance": 0.2084517782817527, "interstitial_defect_distance": 0.2084517782817527,
        "anti_site_initial_distance": 1.9660085572639696, "anti_site_defect_distance": 4.182649782080716e-09}`,
		"test_interstitial": `from pymatgen.core import Element
    return {"element_changes": {Element("N"): 1}}`,
		"test_antisite_generator": `return {"antisite_defect_names": ["N_Ga", "Ga_N"]}`,
	}
	for _, e := range datasets.Manifest() {
		if _, ok := corrected[e.ID]; !ok {
			continue
		}
		for _, name := range []string{"question.txt", "properties.json", "new_unit_test.py"} {
			b, err := os.ReadFile(filepath.Join(data, datasets.QuestionsDir, e.ID, name))
			if err != nil {
				t.Fatal(err)
			}
			text := string(b)
			if name == "question.txt" {
				text = "[" + e.ID + "]\n" + text // the fake model's cue
			}
			root.Write(filepath.Join(datasets.QuestionsDir, e.ID, name), []byte(text))
		}
		for _, f := range e.DataFiles {
			root.Write(filepath.Join("src", f), []byte("placeholder\n"))
		}
	}
	srv := llmtest.New(t, llmtest.Options{Responder: func(r llmtest.Request) llmtest.Reply {
		body := "return {}"
		for id, b := range corrected {
			if strings.Contains(r.Prompt(), "["+id+"]") {
				body = b
			}
		}
		return llmtest.Reply{Content: "<answer><code>```python\ndef f():\n    " + body + "\n```</code><name>f</name></answer>"}
	}})
	passed := map[string]map[string]int32{} // version → question → properties passed (mattools-v1-strict)
	ids := map[string]string{}
	for _, version := range []string{"", results.BenchmarkVersion2025_05Corrected1} {
		plan := writePlan(t, srv.URL)
		if version != "" {
			b, _ := os.ReadFile(plan)
			if err := os.WriteFile(plan, append(b, fmt.Sprintf("[tool_usage]\nbenchmark_version = %q\n", version)...), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		out := t.TempDir()
		cmd, _, stderr := child(t, "", "-plan", plan, "-data", root.Dir, "-out", out, "-no-progress")
		if code := exitCode(cmd.Wait()); code != 0 {
			t.Fatalf("version %q: exit %d\n%s", version, code, stderr)
		}
		files, _ := filepath.Glob(filepath.Join(out, "*mattools-v1-strict*.parquet"))
		if len(files) != 1 {
			t.Fatalf("version %q: results files %q; want one mattools-v1-strict run", version, files)
		}
		f, err := results.Read(files[0])
		if err != nil {
			t.Fatal(err)
		}
		want := results.BenchmarkVersion2025_05
		if version != "" {
			want = version
		}
		if f.Run.BenchmarkVersion != want {
			t.Errorf("run %s: benchmark version %q, want %q", f.Run.RunID, f.Run.BenchmarkVersion, want)
		}
		ids[want] = f.Run.RunID
		passed[want] = map[string]int32{}
		for _, q := range f.Questions {
			if _, ok := corrected[q.QuestionID]; ok && q.PropertiesPassed != nil {
				passed[want][q.QuestionID] = *q.PropertiesPassed
			}
		}
	}
	pub, cor := passed[results.BenchmarkVersion2025_05], passed[results.BenchmarkVersion2025_05Corrected1]
	for id, want := range map[string][2]int32{"test_defect_finder": {0, 4}, "test_interstitial": {0, 1}, "test_antisite_generator": {0, 1}} {
		if pub[id] != want[0] || cor[id] != want[1] {
			t.Errorf("%s: properties passed %d published, %d corrected; want %d and %d", id, pub[id], cor[id], want[0], want[1])
		}
	}
	if a, b := ids[results.BenchmarkVersion2025_05], ids[results.BenchmarkVersion2025_05Corrected1]; a == b || !strings.Contains(b, "__b-2025-05-corrected-1__") || strings.Contains(a, "__b-") {
		t.Errorf("run ids %s and %s: want the corrected version's id to name it and the published one's not", a, b)
	}
}

// TestFolderBenchmarkReadsTheDataRoot: a folder benchmark whose manifest
// gives data_dir and env (datasets/testdata/folder-benchmark-data, as a
// synthesised pymatgen-core benchmark does) is scored with the data root's
// src/tool_source_code mounted and PMG_TEST_FILES_DIR set: an answer that
// reads cif/Co8.cif there passes both properties, one that reads a file
// the data root lacks is not runnable.
func TestFolderBenchmarkReadsTheDataRoot(t *testing.T) {
	data := os.Getenv(datasets.EnvVar)
	if data == "" {
		t.Skipf("%s is not set: set it to a MatTools checkout (CI sets it); the question reads pymatgen's tests/files there", datasets.EnvVar)
	}
	python := envOr(os.Getenv, "MATTOOLS_SANDBOX_PYTHON", "/opt/mattools-sandbox")
	if _, err := os.Stat(filepath.Join(python, "pyvenv.cfg")); err != nil && os.Getenv("CI") == "" {
		t.Skipf("the sandbox's Python environment is not installed (make setup): %v", err)
	}
	folder, err := filepath.Abs(filepath.Join("..", "..", "datasets", "testdata", "folder-benchmark-data"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		file    string
		passed  int32
		verdict results.Verdict
	}{{"Co8.cif", 2, results.VerdictCorrect}, {"absent.cif", 0, results.VerdictNotRunnable}} {
		srv := llmtest.New(t, llmtest.Options{Responder: func(r llmtest.Request) llmtest.Reply {
			code := fmt.Sprintf(`def f():
    import os
    from pymatgen.core import Structure
    s = Structure.from_file(os.path.join(os.environ["PMG_TEST_FILES_DIR"], "cif", %q))
    return {"number_of_sites": len(s), "reduced_formula": s.composition.reduced_formula}`, c.file)
			return llmtest.Reply{Content: "<answer><code>```python\n" + code + "\n```</code><name>f</name></answer>"}
		}})
		plan := writePlan(t, srv.URL)
		b, _ := os.ReadFile(plan)
		text := "benchmarks = [\"toy-test-files\"]\n" + string(b) + fmt.Sprintf("[folder_benchmarks.toy-test-files]\npath = %q\n[tool_usage]\nscoring_protocols = [\"mattools-v1-strict\"]\n", folder)
		if err := os.WriteFile(plan, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		out := t.TempDir()
		cmd, _, stderr := child(t, "", "-plan", plan, "-data", data, "-out", out, "-no-progress")
		if code := exitCode(cmd.Wait()); code != 0 {
			t.Fatalf("%s: exit %d\n%s", c.file, code, stderr)
		}
		q, passed := onlyQuestion(t, out)
		if results.Verdict(q.Verdict) != c.verdict || passed != c.passed {
			t.Errorf("reading %s: verdict %s, %d properties passed (cause %q); want %s, %d", c.file, q.Verdict, passed, q.VerdictCause, c.verdict, c.passed)
		}
	}
}

// onlyQuestion reads the one results file in out and returns its one
// question's row, with its properties passed (-1: none recorded).
func onlyQuestion(t *testing.T, out string) (results.QuestionRow, int32) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(out, "*.parquet"))
	if len(files) != 1 {
		t.Fatalf("results files %q; want one", files)
	}
	f, err := results.Read(files[0])
	if err != nil {
		t.Fatal(err)
	}
	q := f.Questions[0]
	passed := int32(-1)
	if q.PropertiesPassed != nil {
		passed = *q.PropertiesPassed
	}
	return q, passed
}
