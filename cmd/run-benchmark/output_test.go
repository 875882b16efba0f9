package main

// Tests of what the command prints: the models named by their display
// names, one line (no retry warnings) for an endpoint where nothing
// listens, and the scores and question sets of the table of runs.

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/llm/llmtest"
	"github.com/mattools-leaderboard/leaderboard/results"
)

const displayName = "Fake Model 7B (display)"

// writeDisplayPlan writes a plan of the tool-usage benchmark against
// baseURL whose model has display name displayName.
func writeDisplayPlan(t *testing.T, baseURL string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "plan.toml")
	err := os.WriteFile(p, []byte(fmt.Sprintf(`rounds = 1
concurrency = 4
[[models]]
name = "fake-model"
display_name = %q
base_url = %q
timeout = "5s"
`, displayName, baseURL)), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// table splits the command's table of runs into rows of cells (separated
// by two spaces or more).
func table(out string) [][]string {
	var rows [][]string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		rows = append(rows, regexp.MustCompile(`\s{2,}`).Split(strings.TrimSpace(l), -1))
	}
	return rows
}

var noEnv = environ{func(string) string { return "" }, func(string) error { return nil }}

func TestOutputNamesTheDisplayName(t *testing.T) {
	root := mattoolstest.NewRoot(t).Dir
	srv := llmtest.New(t, llmtest.Options{Responder: answer})
	planPath := writeDisplayPlan(t, srv.URL)

	// With -no-progress: the log lines of the run and the table.
	var stdout, stderr bytes.Buffer
	out := t.TempDir()
	if code := run(context.Background(), []string{"-plan", planPath, "-data", root, "-out", out, "-unscored", "-no-progress"}, &stdout, &stderr, noEnv); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	for _, msg := range []string{`msg="run started"`, `msg="run written"`} {
		re := regexp.MustCompile(regexp.QuoteMeta(msg) + ` model="([^"]*)"`)
		if m := re.FindStringSubmatch(stderr.String()); m == nil || m[1] != displayName {
			t.Errorf("log line %s names model %q, want %q:\n%s", msg, m, displayName, stderr.String())
		}
	}
	// The table: a header and one row per run (one per scoring protocol), the
	// model column holding the display name.
	rows := table(stdout.String())
	if len(rows) != 2 || strings.Join(rows[0][:4], "|") != "status|done|model|run" {
		t.Fatalf("table:\n%s", stdout.String())
	}
	if row := strings.Join(rows[1][:4], "|"); row != "written|49/49|"+displayName+"|runner__tool-usage__single-llm__s0__fake-model__unscored__r1" {
		t.Errorf("row %q, want the display name in the model column", row)
	}
	if f := onlyRun(t, out); f.Run.Model != "fake-model" || f.Run.ModelDisplayName != displayName {
		t.Errorf("results file: model %q, display name %q", f.Run.Model, f.Run.ModelDisplayName)
	}

	// With the progress bar: it is described by the display name.
	stdout.Reset()
	stderr.Reset()
	if code := run(context.Background(), []string{"-plan", planPath, "-data", root, "-out", t.TempDir(), "-unscored"}, &stdout, &stderr, noEnv); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	if !regexp.MustCompile(regexp.QuoteMeta(displayName) + ` +100% \|.*\| \(49/49\)`).MatchString(stderr.String()) {
		t.Errorf("no progress bar described by %q:\n%q", displayName, stderr.String())
	}
}

// TestNothingListensOneLine: the command against a base URL where nothing
// listens prints no retry warning: the failed run's log line and the
// command's closing error name the base URL, once each.
func TestNothingListensOneLine(t *testing.T) {
	root := mattoolstest.NewRoot(t).Dir
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String() + "/v1"
	ln.Close()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"-plan", writeDisplayPlan(t, base), "-data", root, "-out", t.TempDir(), "-unscored"}, &stdout, &stderr, noEnv)
	if code != exitFailed {
		t.Fatalf("exit %d, want %d\n%s", code, exitFailed, stderr.String())
	}
	want := "nothing answers at " + base + " (connection refused): is the server running?"
	var logged, closing, retrying int
	for _, l := range strings.Split(stderr.String(), "\n") {
		switch {
		case strings.Contains(l, "retrying"):
			retrying++
		case strings.HasPrefix(l, "time=") && strings.Contains(l, "level=ERROR") && strings.Contains(l, want) && strings.Contains(l, `model="`+displayName+`"`):
			logged++
		case strings.HasPrefix(l, "run-benchmark: run ") && strings.HasSuffix(l, want):
			closing++
		case strings.Contains(l, base):
			t.Errorf("another line names the base URL: %q", l)
		}
	}
	if logged != 1 || closing != 1 || retrying != 0 {
		t.Errorf("%d log lines and %d closing lines name the base URL, %d retry warnings; want 1, 1, 0:\n%s", logged, closing, retrying, stderr.String())
	}
	if rows := table(stdout.String()); len(rows) != 2 || strings.Join(rows[1][:3], "|") != "failed|0/49|"+displayName {
		t.Errorf("table:\n%s", stdout.String())
	}
}

// scoredPlan writes a plan of the tool-usage benchmark and, with qa, the
// 20-question QA sample (runner/testdata/qa20.json) against baseURL,
// without an API key.
func scoredPlan(t *testing.T, baseURL string, qa bool) string {
	t.Helper()
	text := ""
	if qa {
		abs, err := filepath.Abs(filepath.Join("..", "..", "runner", "testdata", "qa20.json"))
		if err != nil {
			t.Fatal(err)
		}
		text = fmt.Sprintf("benchmarks = [\"tool-usage\", \"qa-code\"]\n[qa_sets.qa-code]\npath = %q\nname = \"sample-20\"\n", abs)
	}
	p := filepath.Join(t.TempDir(), "plan.toml")
	text = "rounds = 1\nconcurrency = 4\n" + text + fmt.Sprintf("[[models]]\nname = \"fake-model\"\nbase_url = %q\ntimeout = \"5s\"\n", baseURL)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// tableRows returns the table's rows (after its header, up to the first
// line that is not a row) as maps from the header's column names to cells,
// and the lines after the table.
func tableRows(t *testing.T, out string) ([]map[string]string, []string) {
	t.Helper()
	lines := table(out)
	want := "status|done|model|run|runnable|task success|accuracy|prompt tok|completion tok|cost USD|file"
	if len(lines) == 0 || strings.Join(lines[0], "|") != want {
		t.Fatalf("table header %q, want %q:\n%s", lines[0], want, out)
	}
	var rows []map[string]string
	var after []string
	for i, l := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
		cells := lines[i+1]
		if len(cells) != len(lines[0]) || after != nil {
			after = append(after, l)
			continue
		}
		row := map[string]string{}
		for k, name := range lines[0] {
			row[name] = cells[k]
		}
		rows = append(rows, row)
	}
	return rows, after
}

// TestTableShowsScores runs a scored plan (tool usage in the real sandbox,
// and the 20-question QA sample) against the fake server on the fake root,
// whose 7 questions without data files are the only executable ones (42 of
// 49 have their data files absent), and checks the table's done, runnable,
// task success and accuracy columns against the results files' totals and
// hand counts, and the one warning line on the smaller question set; run
// again, the existing files show the same scores and tokens; on a root with every data
// file, the full set shows no warning.
//
// Hand counts: the fake unit tests return "ok" whatever the dict, so
// mattools-v1 (which reads the test's printed "ok") passes all 9 properties
// of the 7 questions; the answers' dict {'i': n} has none of the properties
// p0…, so mattools-v1-strict passes none; every function runs (7/7). The QA
// answer is always "A", strict-correct on the 7 questions of qa20.json whose
// correct answer is A (7/20 = 35.00 %).
func TestTableShowsScores(t *testing.T) {
	python := envOr(os.Getenv, "MATTOOLS_SANDBOX_PYTHON", "/opt/mattools-sandbox")
	if _, err := os.Stat(filepath.Join(python, "pyvenv.cfg")); err != nil && os.Getenv("CI") == "" {
		t.Skipf("the sandbox's Python environment is not installed (make setup): %v", err)
	}
	qa, err := datasets.LoadQA(filepath.Join("..", "..", "runner", "testdata", "qa20.json"))
	if err != nil {
		t.Fatal(err)
	}
	as := 0
	for _, q := range qa.Questions {
		if q.CorrectAnswer == "A" {
			as++
		}
	}
	if as != 7 || len(qa.Questions) != 20 {
		t.Fatalf("qa20.json: %d of %d questions answered A; the hand count says 7 of 20", as, len(qa.Questions))
	}
	srv := llmtest.New(t, llmtest.Options{Responder: func(r llmtest.Request) llmtest.Reply {
		if questionRE.MatchString(r.Prompt()) {
			return answer(r)
		}
		return llmtest.Reply{Content: "A", PromptTokens: 100, CompletionTokens: 1}
	}})
	root := sandboxReadableRoot(t)
	planPath := scoredPlan(t, srv.URL, true)
	out := t.TempDir()
	runIt := func(root string) (string, string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), []string{"-plan", planPath, "-data", root, "-out", out, "-no-progress"}, &stdout, &stderr, noEnv); code != 0 {
			t.Fatalf("exit %d\n%s", code, stderr.String())
		}
		return stdout.String(), stderr.String()
	}
	// want is the scores of the table's columns by protocol.
	type want struct{ done, runnable, success, accuracy string }
	check := func(stdout, status string, wants map[string]want) (set string) {
		t.Helper()
		rows, _ := tableRows(t, stdout)
		if len(rows) != len(wants) {
			t.Fatalf("%d rows, want %d:\n%s", len(rows), len(wants), stdout)
		}
		for _, row := range rows {
			f, err := results.Read(row["file"])
			if err != nil {
				t.Fatal(err)
			}
			r := f.Run
			w := wants[r.ScoringProtocol]
			got := want{row["done"], row["runnable"], row["task success"], row["accuracy"]}
			if row["status"] != status || got != w {
				t.Errorf("%s: %s %+v, want %s %+v", r.RunID, row["status"], got, status, w)
			}
			// The results file's totals, as the leaderboard reads them.
			if pct, ok := r.Totals.FunctionRunnableRate(); ok && w.runnable != fmt.Sprintf("%d/%d (%.2f %%)", *r.Totals.Runnable, r.QuestionSet.Questions, pct) {
				t.Errorf("%s: runnable %q, the file's totals %+v", r.RunID, w.runnable, r.Totals)
			}
			if pct, ok := r.Totals.TaskSuccessRate(); ok && w.success != fmt.Sprintf("%d/%d (%.2f %%)", *r.Totals.PropertiesPassed, r.QuestionSet.Properties, pct) {
				t.Errorf("%s: task success %q, the file's totals %+v", r.RunID, w.success, r.Totals)
			}
			if pct, ok := r.Totals.Accuracy(); ok && w.accuracy != fmt.Sprintf("%d/%d (%.2f %%)", *r.Totals.Correct, r.QuestionSet.Questions, pct) {
				t.Errorf("%s: accuracy %q, the file's totals %+v", r.RunID, w.accuracy, r.Totals)
			}
			if r.Benchmark == "tool-usage" {
				set = r.QuestionSet.Name
			}
		}
		return set
	}
	partial := map[string]want{
		results.ProtocolMatToolsV1:       {"49/49 (42 without data files)", "7/7 (100.00 %)", "9/9 (100.00 %)", "-"},
		results.ProtocolMatToolsV1Strict: {"49/49 (42 without data files)", "7/7 (100.00 %)", "0/9 (0.00 %)", "-"},
		results.ProtocolQAV1:             {"20/20", "-", "-", "7/20 (35.00 %)"},
	}
	// The warning line, once, with the facts of the run's own warning.
	warned := func(stdout, set string) {
		t.Helper()
		_, after := tableRows(t, stdout)
		line := "warning: 2 runs scored on 7 of 49 questions (9 properties; question set " + set + "): data files absent for 42 questions"
		if len(after) != 1 || !strings.HasPrefix(after[0], line) {
			t.Errorf("after the table %q, want one line starting %q", after, line)
		}
	}
	stdout, stderr := runIt(root.Dir)
	set := check(stdout, "written", partial)
	if !strings.HasPrefix(set, "executable-") {
		t.Errorf("question set %q, want a subset", set)
	}
	warned(stdout, set)
	for _, path := range must(filepath.Glob(filepath.Join(out, "*"+set+"*.parquet"))) {
		f, err := results.Read(path)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(f.Run.Warnings, func(w string) bool {
			return strings.HasPrefix(w, "scored on 7 of 49 questions (9 of 138 properties): data files absent for 42 questions")
		}) {
			t.Errorf("%s: warnings %q lack the sentence the table's warning repeats", path, f.Run.Warnings)
		}
	}
	// The log says what is asked and what is scored.
	if !strings.Contains(stderr, " asked=49 scored=7 without_data_files=42 todo=49") || !strings.Contains(stderr, " asked=20 todo=20") {
		t.Errorf("run started lines:\n%s", stderr)
	}

	// Again: nothing to ask; the existing files show the same scores and
	// tokens.
	tokens := func(stdout string) map[string]string {
		rows, _ := tableRows(t, stdout)
		m := map[string]string{}
		for _, r := range rows {
			m[r["run"]] = r["prompt tok"] + " " + r["completion tok"]
		}
		return m
	}
	written := tokens(stdout)
	before := len(srv.Requests())
	stdout, _ = runIt(root.Dir)
	check(stdout, "exists", partial)
	warned(stdout, set)
	if got := tokens(stdout); !maps.Equal(got, written) {
		t.Errorf("tokens of the existing runs %v, want those written %v", got, written)
	}
	if n := len(srv.Requests()) - before; n != 0 {
		t.Errorf("%d requests to make existing runs", n)
	}

	// Every data file present: the full set, no warning.
	full := sandboxReadableRoot(t)
	full.AddDataFiles()
	out = t.TempDir()
	stdout, _ = runIt(full.Dir)
	check(stdout, "written", map[string]want{
		results.ProtocolMatToolsV1:       {"49/49", "49/49 (100.00 %)", "138/138 (100.00 %)", "-"},
		results.ProtocolMatToolsV1Strict: {"49/49", "49/49 (100.00 %)", "0/138 (0.00 %)", "-"},
		results.ProtocolQAV1:             {"20/20", "-", "-", "7/20 (35.00 %)"},
	})
	if _, after := tableRows(t, stdout); len(after) != 0 {
		t.Errorf("after the full set's table: %q, want nothing", after)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
