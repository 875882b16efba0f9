package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"

	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/results/submission"
)

// repoRoot is the repository root, from this package's folder.
var repoRoot, _ = filepath.Abs("../..")

// SubmitPython is the Python of the example script's pinned environment
// (scripts/setup.sh: build/submit-venv, docs/submitting/requirements.txt).
func submitPython(t *testing.T) string {
	t.Helper()
	py := filepath.Join(repoRoot, "build", "submit-venv", "bin", "python")
	if _, err := os.Stat(py); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s: %v (make setup installs it)", py, err)
		}
		t.Skipf("the example script's Python environment is not installed (make setup): %v", err)
	}
	return py
}

func sandboxPython(t *testing.T) string {
	t.Helper()
	python := envOr("MATTOOLS_SANDBOX_PYTHON", "/opt/mattools-sandbox")
	if _, err := os.Stat(filepath.Join(python, "pyvenv.cfg")); err != nil && os.Getenv("CI") == "" {
		t.Skipf("the sandbox's Python environment is not installed (make setup): %v", err)
	}
	return python
}

var (
	exampleOnce sync.Once
	exampleDir  string
	exampleErr  string
	exampleTook time.Duration
)

// exampleSubmission writes the example submission with SUBMITTING.md's
// script, once per test binary, and returns a fresh copy of its folder
// (name unchanged) under a new submissions root.
func exampleSubmission(t *testing.T) string {
	t.Helper()
	root := mattoolstest.DataRoot(t, "to write the example submission (question ids and property names)")
	py := submitPython(t)
	exampleOnce.Do(func() {
		out, err := os.MkdirTemp("", "example-submission-")
		if err != nil {
			exampleErr = err.Error()
			return
		}
		start := time.Now()
		cmd := exec.Command(py, filepath.Join(repoRoot, "docs", "submitting", "write_submission.py"), "--data", root, "--out", out, "--date", "2026-12-01")
		var buf bytes.Buffer
		cmd.Stdout, cmd.Stderr = &buf, &buf
		if err := cmd.Run(); err != nil {
			exampleErr = err.Error() + ": " + buf.String()
			return
		}
		exampleTook = time.Since(start)
		exampleDir = filepath.Join(out, exampleFolder)
	})
	if exampleErr != "" {
		t.Fatalf("write_submission.py: %s", exampleErr)
	}
	dst := filepath.Join(t.TempDir(), exampleFolder)
	copyDir(t, exampleDir, dst)
	return dst
}

const exampleFolder = "2026-12-01_example_none-dict-baseline_single-llm"

func TestMain(m *testing.M) {
	code := m.Run()
	if exampleDir != "" {
		os.RemoveAll(filepath.Dir(exampleDir))
	}
	os.Exit(code)
}

func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func validateArgs(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), append([]string{"-quiet"}, args...), &stdout, &stderr)
	return code, stdout.String() + stderr.String()
}

// runFiles returns the example folder's results files, sorted.
func runFiles(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.parquet"))
	if err != nil || len(files) != 6 {
		t.Fatalf("%s: results files %v (%v); want 3 rounds × 2 protocols", dir, files, err)
	}
	return files
}

// rewrite reads the results file at path, lets edit change the file and its
// run record (as raw JSON, so that a test can add what the format does not
// know), and writes it back without validating, with the key-value
// metadata a writer gives it.
func rewrite(t *testing.T, path string, edit func(f *results.File, run map[string]any)) {
	t.Helper()
	f, err := results.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	var run map[string]any
	raw, _ := json.Marshal(&f.Run)
	json.Unmarshal(raw, &run)
	edit(f, run)
	if _, changed := run["run_id"]; changed {
		raw, _ = json.Marshal(run)
	}
	var rec results.Run
	json.Unmarshal(raw, &rec) // the edited record, for the repeated keys
	for i := range f.Questions {
		q := &f.Questions[i]
		q.RunID, q.Benchmark, q.System, q.RetrievalSource = f.Run.RunID, string(f.Run.Benchmark), string(f.Run.System), int32(f.Run.RetrievalSource)
		q.Model, q.Round, q.ScoringProtocol = f.Run.Model, int32(f.Run.Round), f.Run.ScoringProtocol
	}
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[results.QuestionRow](&buf, parquet.Compression(&zstd.Codec{}),
		parquet.KeyValueMetadata(results.MetaFormatVersion, strconv.Itoa(f.Run.FormatVersion)),
		parquet.KeyValueMetadata(results.MetaRowKind, "tool-usage-question"),
		parquet.KeyValueMetadata(results.MetaBenchmark, string(f.Run.Benchmark)),
		parquet.KeyValueMetadata(results.MetaBenchmarkVersion, f.Run.BenchmarkVersion),
		parquet.KeyValueMetadata(results.MetaScoringProtocol, f.Run.ScoringProtocol),
		parquet.KeyValueMetadata(results.MetaGenerator, f.Run.Environment.Generator),
		parquet.KeyValueMetadata(results.MetaGeneratorVersion, f.Run.Environment.GeneratorVersion),
		parquet.KeyValueMetadata(results.MetaRun, string(raw)))
	if _, err := w.Write(f.Questions); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestExampleSubmissionValidates: the submission SUBMITTING.md's script
// writes is valid without re-execution: 3 rounds × 2 protocols of one
// configuration, 49 questions each, in the submission's namespace.
func TestExampleSubmissionValidates(t *testing.T) {
	dir := exampleSubmission(t)
	t.Logf("write_submission.py took %.1f s", exampleTook.Seconds())
	start := time.Now()
	code, out := validateArgs(t, dir)
	if code != exitOK {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	t.Logf("validate-submission (no -reexecute) took %.2f s:\n%s", time.Since(start).Seconds(), out)
	want := "submission " + exampleFolder + ": valid: 6 runs of tool-usage, single-llm, retrieval source 0, model none-dict-baseline, " +
		"question set all (49 questions); protocols mattools-v1, mattools-v1-strict; 3 rounds"
	if !strings.Contains(out, want) {
		t.Errorf("output %q; want %q", out, want)
	}
	sub, ps := submission.Load(dir, submission.DefaultLimits)
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	for _, f := range sub.Files {
		tot := f.Run.Totals
		if tot.Questions != 49 || tot.Properties != 138 || *tot.Runnable != 49 || *tot.PropertiesPassed != 0 ||
			!strings.HasPrefix(f.Run.RunID, submission.Namespace(exampleFolder)) {
			t.Errorf("%s: totals %+v", f.Run.RunID, tot)
		}
	}
}

// TestBrokenSubmissionsFail: each broken variant of the example fails with
// an error naming the file and the field.
func TestBrokenSubmissionsFail(t *testing.T) {
	cases := []struct {
		name   string
		break_ func(t *testing.T, dir string, files []string)
		// want: substrings of the output (the file's base name and field)
		want []string
	}{
		{"tampered total", func(t *testing.T, dir string, files []string) {
			rewrite(t, files[0], func(f *results.File, run map[string]any) {
				run["totals"].(map[string]any)["properties_passed"] = 40
			})
		}, []string{"mattools-v1-strict__r1.parquet: totals.properties_passed: is 40 but the rows add up to 0"}},
		{"missing round", func(t *testing.T, dir string, files []string) {
			os.Remove(files[1])
		}, []string{exampleFolder + ": round: protocol mattools-v1", "want rounds 1, 2, 3"}},
		{"unknown question id", func(t *testing.T, dir string, files []string) {
			rewrite(t, files[0], func(f *results.File, run map[string]any) { f.Questions[3].QuestionID = "test_not_a_question" })
		}, []string{":row 4: question_id", "test_not_a_question"}},
		{"API key in a code cell", func(t *testing.T, dir string, files []string) {
			for _, p := range files[:1] {
				rewrite(t, p, func(f *results.File, run map[string]any) {
					f.Questions[0].Code = "import os\nos.environ['OPENAI_API_KEY'] = 'sk-proj-" + strings.Repeat("a1B2", 10) + "'\n" + f.Questions[0].Code
				})
			}
		}, []string{":row 1: code: holds a credential (OpenAI-style API key"}},
		{"oversized file", func(t *testing.T, dir string, files []string) {
			if err := os.Truncate(files[2], submission.DefaultLimits.MaxFileBytes+1); err != nil {
				t.Fatal(err)
			}
		}, []string{": size: 33554433 bytes exceeds the cap of 33554432 bytes per results file"}},
		{"unknown field in a run record", func(t *testing.T, dir string, files []string) {
			rewrite(t, files[0], func(f *results.File, run map[string]any) { run["temperature"] = 0.2 })
		}, []string{": mattools.run: invalid JSON: json: unknown field \"temperature\""}},
		{"unknown field in the metadata", func(t *testing.T, dir string, files []string) {
			appendFile(t, filepath.Join(dir, "submission.toml"), "\nlicence = \"MIT\"\n")
		}, []string{"submission.toml: licence: unknown field"}},
		{"metadata disagrees with the run records", func(t *testing.T, dir string, files []string) {
			// The model of every run record differs from submission.toml's
			// (which still names the folder's model); hashes kept consistent.
			for _, p := range files {
				rewrite(t, p, func(f *results.File, run map[string]any) {
					f.Run.Model = "none-dict-baseline-v2"
					run["model"] = "none-dict-baseline-v2"
				})
			}
		}, []string{": model: is \"none-dict-baseline-v2\"; submission.toml says \"none-dict-baseline\""}},
		{"run id outside the submission namespace", func(t *testing.T, dir string, files []string) {
			rewrite(t, files[0], func(f *results.File, run map[string]any) {
				id := strings.Replace(f.Run.RunID, "submitted__"+exampleFolder+"__", "runner__", 1)
				f.Run.RunID = id
				run["run_id"] = id
			})
		}, []string{": run_id: \"runner__tool-usage", "outside the submission's namespace"}},
		{"verified record inside the submission folder", func(t *testing.T, dir string, files []string) {
			rewrite(t, files[0], func(f *results.File, run map[string]any) {
				run["provenance"] = map[string]any{"kind": "rescored", "origin": "submitted", "derived_from": f.Run.RunID,
					"submission": run["provenance"].(map[string]any)["submission"]}
				id := strings.Replace(f.Run.RunID, "submitted__", "rescored-submitted__", 1)
				f.Run.RunID, run["run_id"] = id, id
			})
		}, []string{": provenance.kind: rescored: a verification record inside the submission"}},
		{"verified file inside the submission folder", func(t *testing.T, dir string, files []string) {
			os.WriteFile(filepath.Join(dir, "verified.json"), []byte("{}"), 0o644)
		}, []string{"verified.json: a verification record inside the submission"}},
		{"metadata changed after the results were written", func(t *testing.T, dir string, files []string) {
			appendFile(t, filepath.Join(dir, "submission.toml"), "\n# a late edit\n")
		}, []string{": provenance.submission.metadata_sha256: is "}},
		{"unknown column", func(t *testing.T, dir string, files []string) {
			pyarrow(t, `t = t.append_column("zz_extra", pa.array(["x"] * t.num_rows))`, files[0])
		}, []string{"mattools-v1-strict__r1.parquet: zz_extra: unknown column"}},
		{"unknown key-value metadata holding a key", func(t *testing.T, dir string, files []string) {
			pyarrow(t, `t = t.replace_schema_metadata({**t.schema.metadata, b"notes": b"sk-proj-`+strings.Repeat("Qw3r", 8)+`"})`, files[0])
		}, []string{"key-value metadata notes: unknown key", "key-value metadata notes: holds a credential (OpenAI-style"}},
		{"code that decompresses past the cap", func(t *testing.T, dir string, files []string) {
			rewrite(t, files[0], func(f *results.File, run map[string]any) {
				f.Questions[0].Code += "# " + strings.Repeat("x", int(submission.DefaultLimits.MaxDecodedBytes)) + "\n"
			})
		}, []string{": size: its columns decompress to ", "over the cap of 67108864 bytes per results file"}},
		{"folder name disagrees with the metadata", func(t *testing.T, dir string, files []string) {
			edit(t, filepath.Join(dir, "submission.toml"), `system = "single-llm"`, `system = "llm-rag"`)
		}, []string{"submission.toml: the folder is", "_llm-rag"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := exampleSubmission(t)
			files := runFiles(t, dir)
			c.break_(t, dir, files)
			code, out := validateArgs(t, dir)
			if code != exitInvalid {
				t.Fatalf("exit %d, want %d:\n%s", code, exitInvalid, out)
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			if !strings.Contains(out, dir) {
				t.Errorf("output names no file of %s:\n%s", dir, out)
			}
		})
	}
}

// pyarrow runs a pyarrow statement on the table t read from each path
// (pa and pq imported), then writes t back.
func pyarrow(t *testing.T, stmt string, paths ...string) {
	t.Helper()
	script := "import sys, pyarrow as pa, pyarrow.parquet as pq\nfor p in sys.argv[1:]:\n    t = pq.read_table(p)\n    " + stmt + "\n    pq.write_table(t, p)\n"
	if out, err := exec.Command(submitPython(t), append([]string{"-c", script}, paths...)...).CombinedOutput(); err != nil {
		t.Fatalf("pyarrow: %v\n%s", err, out)
	}
}

func appendFile(t *testing.T, path, s string) {
	t.Helper()
	fh, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fh.WriteString(s)
	fh.Close()
}

func edit(t *testing.T, path, old, new string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil || !bytes.Contains(data, []byte(old)) {
		t.Fatalf("%s: %v, or no %q", path, err, old)
	}
	os.WriteFile(path, bytes.Replace(data, []byte(old), []byte(new), 1), 0o644)
}

// TestListColumnsMayBeAbsent: FORMAT.md lets a writer leave out the list
// columns (failed_properties, retrieved, trace). A pyarrow file without
// them validates (results.Read once read each absent list as one empty
// element per row: "retrieved[0].chunk_id: required field missing").
func TestListColumnsMayBeAbsent(t *testing.T) {
	dir := exampleSubmission(t)
	py := submitPython(t)
	script := `import sys, pyarrow.parquet as pq
for p in sys.argv[1:]:
    t = pq.read_table(p)
    pq.write_table(t.drop_columns(["retrieved", "trace", "failed_properties"]).replace_schema_metadata(t.schema.metadata), p)
`
	cmd := exec.Command(py, append([]string{"-c", script}, runFiles(t, dir)...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("dropping the list columns: %v\n%s", err, out)
	}
	if code, out := validateArgs(t, dir); code != exitOK {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

// TestReexecuteExampleThenRecord: the example submission re-executes in the
// sandbox with every verdict agreeing (the questions whose data files are
// absent reported as not re-executed), and -record writes verified records
// that LoadVerified accepts; a record of a submission changed since is
// refused.
func TestReexecuteExampleThenRecord(t *testing.T) {
	data := mattoolstest.DataRoot(t, "to re-execute the example submission")
	python := sandboxPython(t)
	dir := exampleSubmission(t)
	verified := filepath.Join(t.TempDir(), "verified")
	start := time.Now()
	code, out := validateArgs(t, "-reexecute", "-data", data, "-python", python, "-record", verified, dir)
	took := time.Since(start)
	if code != exitOK {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	t.Logf("validate-submission -reexecute -record took %.1f s:\n%s", took.Seconds(), out)
	for _, w := range []string{"re-executed: 84 answers (28 distinct) in the sandbox under mattools-v1 and mattools-v1-strict: 168 verdicts compared, all agree",
		"not re-executed (never counted as agreeing): 21 questions whose data files are absent on this machine: ",
		"recorded: 6 verified records in " + filepath.Join(verified, exampleFolder)} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	sub, ps := submission.Load(dir, submission.DefaultLimits)
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	recs, ps := submission.LoadVerified(filepath.Join(verified, exampleFolder), sub)
	if len(ps) > 0 || len(recs) != 6 {
		t.Fatalf("%d verified records, problems: %v", len(recs), ps)
	}
	for _, f := range recs {
		r := f.Run
		tot := r.Totals
		if r.Provenance.Kind != results.ProvenanceRescored || r.Provenance.Origin != results.ProvenanceSubmitted ||
			r.QuestionSet.Questions != 28 || tot.Questions != 28 || *tot.Runnable != 28 || *tot.PropertiesPassed != 0 ||
			r.Environment.Libraries["pymatgen"] != "2024.8.9" || r.Environment.Sandbox == nil {
			t.Errorf("%s: provenance %+v, question set %+v, totals %+v, libraries %v", r.RunID, r.Provenance, r.QuestionSet, tot, r.Environment.Libraries)
		}
	}

	// The submitter edits a results file after verification: its record no longer holds.
	rewrite(t, runFiles(t, dir)[0], func(f *results.File, run map[string]any) { run["finished_at"] = "2026-12-02T00:00:00Z" })
	sub, ps = submission.Load(dir, submission.DefaultLimits)
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	recs, ps = submission.LoadVerified(filepath.Join(verified, exampleFolder), sub)
	if len(recs) != 5 || len(ps) != 1 || !strings.Contains(ps[0].Error(), "provenance.source: does not hash the file of run") {
		t.Errorf("after an edit: %d records kept, problems %v; want 5 and one stale record", len(recs), ps)
	}
}

// TestReexecuteContradictedVerdict: a submission that claims a verdict the
// sandbox contradicts (test_vacancy correct, while the dict of None passes
// none of its properties) validates without -reexecute and fails with it,
// naming the file, row and question; questions left out are reported as
// not re-executed, never as agreeing.
func TestReexecuteContradictedVerdict(t *testing.T) {
	data := mattoolstest.DataRoot(t, "to re-execute the example submission")
	python := sandboxPython(t)
	dir := exampleSubmission(t)
	var target string
	for _, p := range runFiles(t, dir) {
		if strings.HasSuffix(p, "__mattools-v1__r2.parquet") {
			target = p
		}
	}
	row := 0
	rewrite(t, target, func(f *results.File, run map[string]any) {
		for i := range f.Questions {
			q := &f.Questions[i]
			if q.QuestionID == "test_vacancy" {
				row = i + 1
				q.Verdict, q.FailedProperties = "correct", nil
				n := q.PropertyCount
				q.PropertiesPassed = &n
				tot := run["totals"].(map[string]any)
				tot["properties_passed"] = tot["properties_passed"].(float64) + float64(n)
				tot["questions_correct"] = tot["questions_correct"].(float64) + 1
				tot["questions_partial"] = tot["questions_partial"].(float64) - 1
			}
		}
	})
	if code, out := validateArgs(t, dir); code != exitOK {
		t.Fatalf("without -reexecute: exit %d, want a consistent (if false) claim to pass:\n%s", code, out)
	}
	code, out := validateArgs(t, "-reexecute", "-data", data, "-python", python, "-questions", "test_vacancy,test_boltzmann", dir)
	if code != exitInvalid {
		t.Fatalf("exit %d, want %d:\n%s", code, exitInvalid, out)
	}
	want := []string{
		filepath.Base(target) + ":row " + strconv.Itoa(row) + ": verdict: test_vacancy under mattools-v1: submitted correct, runnable true, 10 of 10 properties passed; " +
			"re-executed partial, runnable true, 0 of 10 properties passed",
		"INVALID: re-execution contradicts 1 submitted verdict, in 1 question: test_vacancy",
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	if strings.Contains(out, "all agree") {
		t.Errorf("a contradicted submission reported as agreeing:\n%s", out)
	}

	// Without the contradiction, the two questions agree and the other 47 are not re-executed.
	dir = exampleSubmission(t)
	code, out = validateArgs(t, "-reexecute", "-data", data, "-python", python, "-questions", "test_vacancy,test_boltzmann", dir)
	if code != exitOK || !strings.Contains(out, "re-executed: 6 answers (2 distinct)") || !strings.Contains(out, ": 47 questions whose data files are absent") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

// TestCheckSubmissionScriptOnExample runs the pull-request workflow's logic
// (scripts/check-submission.sh, which .github/workflows/submission.yml
// calls) on a repository whose head adds the example submission: it finds
// the folder from the diff, re-executes it and passes; with a tampered
// total it fails with a GitHub annotation naming the file.
func TestCheckSubmissionScriptOnExample(t *testing.T) {
	data := mattoolstest.DataRoot(t, "to re-execute the example submission")
	python := sandboxPython(t)
	repo := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@example.org"}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	os.WriteFile(filepath.Join(repo, "README.md"), []byte("base\n"), 0o644)
	git("add", ".")
	git("commit", "-q", "-m", "base")
	base := git("rev-parse", "HEAD")
	copyDir(t, exampleSubmission(t), filepath.Join(repo, "submissions", exampleFolder))
	git("add", ".")
	git("commit", "-q", "-m", "submission")

	script := func(env ...string) (int, string) {
		cmd := exec.Command(filepath.Join(repoRoot, "scripts", "check-submission.sh"), "--base", base)
		cmd.Env = append(os.Environ(), append([]string{"SUBMISSIONS_REPO=" + repo, "MATTOOLS_DATA=" + data,
			"MATTOOLS_SANDBOX_PYTHON=" + python}, env...)...)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		return cmd.ProcessState.ExitCode(), string(out)
	}
	start := time.Now()
	code, out := script()
	if code != 0 || !strings.Contains(out, "all agree") || !strings.Contains(out, "ok    submissions/"+exampleFolder) {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	t.Logf("check-submission.sh (with -reexecute) took %.1f s:\n%s", time.Since(start).Seconds(), out)

	p := filepath.Join(repo, "submissions", exampleFolder, filepath.Base(runFiles(t, filepath.Join(repo, "submissions", exampleFolder))[0]))
	rewrite(t, p, func(f *results.File, run map[string]any) { run["totals"].(map[string]any)["runnable"] = 48 })
	git("commit", "-q", "-am", "tampered")
	code, out = script("GITHUB_ACTIONS=true")
	want := "::error file=submissions/" + exampleFolder + "/" + filepath.Base(p) + ",title=totals.runnable::is 48 but 49 rows are runnable"
	if code != 1 || !strings.Contains(out, want) || !strings.Contains(out, "FAIL  submissions/"+exampleFolder) {
		t.Errorf("exit %d; want 1 and the annotation %q:\n%s", code, want, out)
	}
}

// leaveOut marks the questions ids of every results file in dir
// data-missing, as a submission scored on a subset does (question set
// "subset", totals from the rows).
func leaveOut(t *testing.T, dir string, ids ...string) {
	t.Helper()
	for _, p := range runFiles(t, dir) {
		rewrite(t, p, func(f *results.File, run map[string]any) {
			var keep []string
			props := 0
			for i := range f.Questions {
				q := &f.Questions[i]
				if slices.Contains(ids, q.QuestionID) {
					q.Verdict, q.VerdictCause, q.Runnable, q.PropertiesPassed, q.FailedProperties = string(results.VerdictDataMissing), "", nil, nil, nil
					continue
				}
				keep = append(keep, q.QuestionID)
				props += int(q.PropertyCount)
			}
			qs := results.QuestionSet{Name: "subset", Questions: len(keep), Properties: props, IDs: keep}
			tot, _ := results.Tally(f.Questions, qs)
			run["question_set"], run["totals"] = qs, tot
		})
	}
}

// TestReexecuteRefusesWhatItCannotVerify: a submission that leaves out
// (data-missing) every question the machine can re-execute has nothing to
// verify and fails with -reexecute, instead of "all agree" over nothing;
// one that leaves out some of them is reported, and -record refuses it, so
// that a verified record always covers every question the machine can run.
func TestReexecuteRefusesWhatItCannotVerify(t *testing.T) {
	data := mattoolstest.DataRoot(t, "to re-execute the example submission")
	python := sandboxPython(t)
	only := []string{"-reexecute", "-data", data, "-python", python, "-questions", "test_vacancy,test_boltzmann"}

	dir := exampleSubmission(t)
	leaveOut(t, dir, "test_vacancy", "test_boltzmann")
	if code, out := validateArgs(t, dir); code != exitOK {
		t.Fatalf("without -reexecute: exit %d:\n%s", code, out)
	}
	code, out := validateArgs(t, append(only, "-record", filepath.Join(t.TempDir(), "verified"), dir)...)
	if code != exitInvalid || !strings.Contains(out, "INVALID: nothing to re-execute") || strings.Contains(out, "all agree") {
		t.Errorf("every re-executable question left out: exit %d:\n%s", code, out)
	}

	dir = exampleSubmission(t)
	leaveOut(t, dir, "test_boltzmann")
	verified := filepath.Join(t.TempDir(), "verified")
	code, out = validateArgs(t, append(only, "-record", verified, dir)...)
	for _, w := range []string{"re-executed: 3 answers (1 distinct)", "left out by the submission (data-missing in its rows, although this machine has their data files): 1 question: test_boltzmann",
		"not recorded: a verified record covers every question this machine can re-execute"} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	if _, err := os.Stat(verified); code != exitInvalid || !os.IsNotExist(err) {
		t.Errorf("exit %d, verified root %v: want 1 and nothing recorded", code, err)
	}
}

// TestReexecuteBadDataRootIsAUsageError: a data root that does not load is
// the checking side's error, reported before any submission is read (exit
// 2), not the submission's (exit 1).
func TestReexecuteBadDataRootIsAUsageError(t *testing.T) {
	empty := t.TempDir()
	code, out := validateArgs(t, "-reexecute", "-data", empty, filepath.Join(empty, "no-such-submission"))
	if code != exitUsage {
		t.Fatalf("exit %d; want %d (usage):\n%s", code, exitUsage, out)
	}
	if !strings.HasPrefix(out, "validate-submission: ") || strings.Contains(out, "no-such-submission") {
		t.Errorf("output %q; want the data root's error, before any submission is named", out)
	}
}
