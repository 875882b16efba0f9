package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/runner/audit"
)

// TestAuditThreeQuestions audits three real questions with references made
// here (not the benchmark's): test_pchip_eval answered with its expected
// number as a literal (a runnable answer that passes its one property),
// test_vacancy without a reference (not executed; not runnable in the
// results files) and test_defect_band_raises, whose data files are absent
// (data-missing; its verification is still probed). It checks the table's
// totals, the controls, the probe's flags (test_defect_band_raises' type
// check is inverted: its own expected strings fail; test_pchip_eval's
// expected value is text its check converts, so only the parsed value
// passes), the results files, the verified set scored from their stored
// rows, and that a second run, with a diagnosis that takes the property out
// of the verified set, executes nothing (the cache).
func TestAuditThreeQuestions(t *testing.T) {
	root := mattoolstest.DataRoot(t, "to audit real questions")
	python := envOr("MATTOOLS_SANDBOX_PYTHON", "/opt/mattools-sandbox")
	if _, err := os.Stat(filepath.Join(python, "pyvenv.cfg")); err != nil && os.Getenv("CI") == "" {
		t.Skipf("the sandbox's Python environment is not installed (make sandbox-env): %v", err)
	}
	ref, out := t.TempDir(), t.TempDir()
	write := func(name, code string) {
		if err := os.WriteFile(filepath.Join(ref, name), []byte(code), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("test_pchip_eval.py", "def my_answer():\n    return {\"pchip_interpolation_integral\": 8.2277}\n")
	write("test_defect_band_raises.py", "def my_answer():\n    return {}\n")
	diag := filepath.Join(ref, "diagnoses.csv")
	write("diagnoses.csv", "question,property,category,evidence\n")
	// -publish replaces the audit's earlier results files of the same
	// benchmark and version in the folder it copies into (the committed
	// audit of MatTools' published version, under another question set's
	// name), and keeps the rest: another version's audit, a run that is no
	// audit, other files.
	pub := filepath.Join(t.TempDir(), "published")
	os.MkdirAll(pub, 0o755)
	committed := filepath.Join("..", "..", "benchmarks", "mattools-tool-usage", "audit")
	stale := "audit__tool-usage__reference-solution__s0__none__mattools-v1-strict__set-executable-85659656__r1" + results.Extension
	otherVersion := "audit__tool-usage__b-2025-05-corrected-2__reference-solution__s0__none__mattools-v1-strict__set-executable-85659656__r1" + results.Extension
	copyFile(t, filepath.Join(committed, stale), filepath.Join(pub, stale))
	copyFile(t, filepath.Join(committed, otherVersion), filepath.Join(pub, otherVersion))
	copyFile(t, filepath.Join("..", "..", "results", "testdata", "v2", "tool-usage"+results.Extension), filepath.Join(pub, "not-an-audit"+results.Extension))
	os.WriteFile(filepath.Join(pub, "README.md"), []byte("kept"), 0o644)
	args := []string{"-quiet", "-slots", "2", "-python", python, "-data", root, "-reference", ref, "-diagnoses", diag, "-out", out,
		"-questions", "test_pchip_eval,test_vacancy,test_defect_band_raises,test_boltzmann", "-publish", pub}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), args, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	got := stdout.String()
	for _, want := range []string{
		"reference: 1 of 12 properties passed under mattools-v1 (1 of 4 questions executed)\nreference: 1 of 12 properties passed under mattools-v1-strict (1 of 4 questions executed)\n",
		"test_defect_band_raises defect_band_index_mismatch: never-passes: its own expected value fails",
		// The question says "Format: dict." and "Format: list.": string keys
		// and another order are answers it allows; the checks refuse them.
		"test_vacancy vacancy_element_changes: refuses-equivalent: keys: string keys {'Ga': -1}, which the question allows (question.txt l.11 states \"dict\")",
		"test_vacancy vacancy_charge_states: refuses-equivalent: order: reversed order [1, 0, -1, -2, -3, -4], which the question allows (question.txt l.6 states \"list\")",
		// results = [MASK](…) then result.flatten().
		"test_boltzmann (question): question-defect: question.txt l.11: misspelt-name: result is not defined; the text defines results",
		"refuses-equivalent: 2 flags; question-defect: 1 flags",
		"verified question set: 1 properties of 1 questions",
		"  reference-solution: 1 of 1, scored from its stored per-property outcomes\n  baseline-all-true: 0 of 1,",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if !strings.HasSuffix(strings.TrimSpace(got), "executed)") {
		t.Errorf("the output does not end with the totals:\n%s", got)
	}
	var rep audit.Report
	data, err := os.ReadFile(filepath.Join(out, "audit.json"))
	if err != nil || json.Unmarshal(data, &rep) != nil {
		t.Fatalf("audit.json: %v", err)
	}
	status := map[string]string{}
	for _, q := range rep.Questions {
		status[q.ID] = q.Reference
		for kind, byProto := range q.Controls { // kind "true": the all-True control
			for p, n := range byProto {
				if n != 0 && !(kind == "true" && q.ID == "test_vacancy") {
					t.Errorf("%s: the %s control passes %d properties under %s", q.ID, kind, n, p)
				}
			}
		}
	}
	if status["test_pchip_eval"] != "executed" || status["test_vacancy"] != "absent" || status["test_defect_band_raises"] != "data-missing" || status["test_boltzmann"] != "absent" {
		t.Errorf("reference statuses %v", status)
	}
	for _, f := range rep.Flags {
		if f.Question == "test_pchip_eval" && f.Check == "never-passes" {
			t.Errorf("test_pchip_eval flagged never-passes, but its parsed expected value passes: %+v", f)
		}
	}
	if rep.Slowest == nil || rep.Slowest.Question != "test_pchip_eval" || rep.Slowest.WallSeconds <= 0 {
		t.Errorf("slowest %+v", rep.Slowest)
	}
	files, err := results.ReadDir(filepath.Join(out, "results"))
	if err != nil || len(files) != 6 {
		t.Fatalf("%d results files (%v); want 3 systems × 2 protocols", len(files), err)
	}
	published, _ := filepath.Glob(filepath.Join(pub, "*"))
	if len(published) != 9 {
		t.Errorf("-publish folder holds %v; want the 6 results files, README.md, the other version's audit run and the run that is no audit", published)
	}
	if _, err := os.Stat(filepath.Join(pub, stale)); err == nil {
		t.Errorf("-publish kept %s, an earlier audit run of the same benchmark and version", stale)
	}
	for _, kept := range []string{otherVersion, "not-an-audit" + results.Extension, "README.md"} {
		if _, err := os.Stat(filepath.Join(pub, kept)); err != nil {
			t.Errorf("-publish removed %s: %v", kept, err)
		}
	}
	for _, f := range files {
		if a, b := readOrEmpty(f.Path), readOrEmpty(filepath.Join(pub, filepath.Base(f.Path))); a == "" || a != b {
			t.Errorf("-publish: %s not copied as written", filepath.Base(f.Path))
		}
	}
	for _, f := range files {
		if f.Run.Provenance.Kind != results.ProvenanceAudit || f.Run.QuestionSet.Questions != 3 || f.Run.QuestionSet.Properties != 12 {
			t.Errorf("%s: provenance %s, question set %+v", f.Run.RunID, f.Run.Provenance.Kind, f.Run.QuestionSet)
		}
		if f.Run.System == results.SystemBaselineAllTrue && f.Run.ScoringProtocol == results.ProtocolMatToolsV1Strict {
			// test_vacancy's two boolean properties expect True.
			if *f.Run.Totals.PropertiesPassed != 2 {
				t.Errorf("all-True baseline, strict: %d properties passed, want 2", *f.Run.Totals.PropertiesPassed)
			}
		}
		for _, q := range f.Questions {
			if q.QuestionID == "test_pchip_eval" && f.Run.ScoringProtocol == results.ProtocolMatToolsV1Strict && len(q.PropertyOutcomes) != 1 {
				t.Errorf("%s: test_pchip_eval has %d property outcomes", f.Run.RunID, len(q.PropertyOutcomes))
			}
		}
	}
	write("diagnoses.csv", "question,property,category,evidence\ntest_pchip_eval,pchip_interpolation_integral,expected value wrong,a test\n")
	stdout.Reset()
	stderr.Reset()
	if code := run(context.Background(), args, &stdout, &stderr); code != exitOK || !strings.Contains(stderr.String(), ", 0 to execute") ||
		!strings.Contains(stdout.String(), "verified question set: 0 properties of 0 questions") {
		t.Errorf("second run: exit %d, %s\n%s", code, stderr.String(), stdout.String())
	}
}

func readOrEmpty(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

var auditFolderRuns atomic.Int32

// TestAuditFolderBenchmark: a folder benchmark (two of MatTools' questions
// under a name of its own, one reference solution in its reference/
// folder) is audited like MatTools' own: its reference scored under every
// protocol, its checks probed, and its results files recorded as runs of
// the folder benchmark (its registry entry on each).
func TestAuditFolderBenchmark(t *testing.T) {
	root := mattoolstest.DataRoot(t, "to build a folder benchmark from real questions")
	python := envOr("MATTOOLS_SANDBOX_PYTHON", "/opt/mattools-sandbox")
	if _, err := os.Stat(filepath.Join(python, "pyvenv.cfg")); err != nil && os.Getenv("CI") == "" {
		t.Skipf("the sandbox's Python environment is not installed (make sandbox-env): %v", err)
	}
	// A name of its own per run: a benchmark is registered once per
	// process, from one folder (go test -count=N runs this again).
	name := fmt.Sprintf("audit-mini-%d", auditFolderRuns.Add(1))
	folder, out := t.TempDir(), t.TempDir()
	questions := []string{"test_pchip_eval", "test_boltzmann"}
	for _, q := range questions {
		if err := os.CopyFS(filepath.Join(folder, "src", "question_segments", name, q), os.DirFS(filepath.Join(root, datasets.QuestionsDir, q))); err != nil {
			t.Fatal(err)
		}
	}
	manifest, _ := json.Marshal(map[string]any{"name": name, "version": "0.1", "title": "Audit mini", "questions": questions})
	if err := os.WriteFile(filepath.Join(folder, datasets.FolderManifestFile), manifest, 0o644); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(folder, "reference"), 0o755)
	if err := os.WriteFile(filepath.Join(folder, "reference", "test_pchip_eval.py"), []byte("def my_answer():\n    return {\"pchip_interpolation_integral\": 8.2277}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	args := []string{"-quiet", "-slots", "2", "-python", python, "-data", root, "-benchmark-folder", folder, "-out", out}
	if code := run(context.Background(), args, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	got := stdout.String()
	for _, want := range []string{
		"reference: 1 of 2 properties passed under mattools-v1 (1 of 2 questions executed)\n",
		"reference: 1 of 2 properties passed under mattools-v1-strict (1 of 2 questions executed)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	files, err := results.ReadDir(filepath.Join(out, "results"))
	if err != nil || len(files) != 6 {
		t.Fatalf("%d results files (%v); want 3 systems × 2 protocols", len(files), err)
	}
	for _, f := range files {
		if string(f.Run.Benchmark) != name || f.Run.BenchmarkVersion != "0.1" || len(f.Run.Extensions[results.ExtensionBenchmark]) == 0 {
			t.Errorf("%s: benchmark %s %s, extension %s; want %s 0.1 with its registry entry", f.Path, f.Run.Benchmark, f.Run.BenchmarkVersion, f.Run.Extensions[results.ExtensionBenchmark], name)
		}
	}
}

// copyFile copies the file at from to to.
func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
