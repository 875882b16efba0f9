package main

// Tests of the run-benchmark command: crash (SIGKILL) and resume,
// Ctrl-C, the API key kept out of files, logs and child processes, usage
// errors, --dry-run. The command runs as a child process: the test binary
// re-executes itself with RUN_BENCHMARK_MAIN=1.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/llm/llmtest"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/runner"
	"github.com/mattools-leaderboard/leaderboard/runner/plan"
)

func TestMain(m *testing.M) {
	if os.Getenv("RUN_BENCHMARK_MAIN") == "1" {
		ctx, cancel := context.WithCancelCause(context.Background())
		sigs := make(chan os.Signal, 4)
		signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
		go stopOnSignals(sigs, cancel, func() { os.Exit(exitInterrupted) })
		code := run(ctx, os.Args[1:], os.Stdout, os.Stderr, environ{os.Getenv, os.Unsetenv})
		signal.Stop(sigs)
		// Stand-in for a sandbox started after the run: a child process
		// inherits this process's environment at this point.
		if dump := os.Getenv("RUN_BENCHMARK_ENV_DUMP"); dump != "" {
			out, _ := exec.Command("/usr/bin/env").Output()
			os.WriteFile(dump, out, 0o644)
		}
		os.Exit(code)
	}
	os.Exit(m.Run())
}

const (
	keyVar = "RB_TEST_API_KEY"
	key    = "sk-rb-test-NEVER-IN-ANY-OUTPUT-7f3a"
)

var questionRE = regexp.MustCompile(`Question (\d+) \((\w+)\)`)

func answer(r llmtest.Request) llmtest.Reply {
	m := questionRE.FindStringSubmatch(r.Prompt())
	i, _ := strconv.Atoi(m[1])
	return llmtest.Reply{Content: fmt.Sprintf("<answer><code>```python\ndef f_%s():\n    return {'i': %d}\n```</code><name>f_%s</name></answer>", m[2], i, m[2]),
		PromptTokens: 500 + i, CompletionTokens: 50 + i}
}

func writePlan(t *testing.T, baseURL string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "plan.toml")
	err := os.WriteFile(p, []byte(fmt.Sprintf(`rounds = 1
concurrency = 4
[[models]]
name = "fake-model"
base_url = %q
api_key_env = %q
timeout = "5s"
`, baseURL, keyVar)), 0o644) // 5 s: a loopback answer beats it on a loaded machine
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// child starts the command as a child process with the API key set.
func child(t *testing.T, envDump string, args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	return childEnv(t, []string{"RUN_BENCHMARK_ENV_DUMP=" + envDump}, args...)
}

// childEnv starts the command as a child process with the API key and the
// variables env set.
func childEnv(t *testing.T, env []string, args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), "RUN_BENCHMARK_MAIN=1", keyVar+"="+key), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &stdout, &stderr
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return -int(ws.Signal())
		}
		return ee.ExitCode()
	}
	if err != nil {
		return -1000
	}
	return 0
}

func onlyRun(t *testing.T, out string) *results.File {
	t.Helper()
	fs, err := filepath.Glob(filepath.Join(out, "*.parquet"))
	if err != nil || len(fs) != 1 {
		t.Fatalf("results files %v, %v", fs, err)
	}
	f, err := results.Read(fs[0])
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// rowsExceptLatency renders every column but latency, sorted.
func rowsExceptLatency(rows []results.QuestionRow) string {
	var out []string
	for _, r := range rows {
		pt, ct := *r.PromptTokens, *r.CompletionTokens
		if r.Runnable != nil || r.PropertiesPassed != nil || r.ErrorExcerpt != nil || r.StdoutExcerpt != nil || r.StderrExcerpt != nil ||
			r.ExecMS != nil || r.VerificationOutput != nil {
			return "unexpected scored columns in an unscored run"
		}
		resp, fin, att := *r.Response, *r.FinishReason, *r.Attempts
		r.LatencyMS, r.PromptTokens, r.CompletionTokens, r.Response, r.FinishReason, r.Attempts = nil, nil, nil, nil, nil, nil
		// JSON, not %+v: pointer columns (the v2 byte lengths among them)
		// compare by value, not by address.
		js, err := json.Marshal(r)
		if err != nil {
			return err.Error()
		}
		out = append(out, fmt.Sprintf("%s|%d|%d|%q|%s|%d", js, pt, ct, resp, fin, att))
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// TestCrashAndResume is the crash acceptance check: the fake
// server blocks after 17 answers, the command is killed with SIGKILL,
// restarted, and finishes; its rows equal an uninterrupted run's on every
// column except latency, and no finished question is asked again.
func TestCrashAndResume(t *testing.T) {
	root := mattoolstest.NewRoot(t).Dir
	srv := llmtest.New(t, llmtest.Options{Responder: answer, BlockAfter: 17})
	planPath := writePlan(t, srv.URL)
	out := t.TempDir()
	envDump := filepath.Join(t.TempDir(), "env.txt")
	args := []string{"-plan", planPath, "-data", root, "-out", out, "-unscored"}

	cmd, _, stderr1 := child(t, envDump, args...)
	waitFor(t, "17 answers and 4 blocked workers", func() bool { return srv.Answered() == 17 && srv.Blocked() == 4 })
	journalPath := filepath.Join(out, runner.JournalDir, "runner__tool-usage__single-llm__s0__fake-model__unscored__r1.jsonl")
	waitFor(t, "17 journaled questions", func() bool { n := countItems(journalPath); return n == 17 })
	if err := cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	if code := exitCode(cmd.Wait()); code != -int(syscall.SIGKILL) {
		t.Fatalf("first run ended with %d, want killed by SIGKILL", code)
	}
	finished := journaledIDs(t, journalPath)
	if len(finished) != 17 {
		t.Fatalf("%d questions journaled before the kill, want 17", len(finished))
	}
	before := len(srv.Requests())

	srv.Unblock()
	cmd, stdout2, stderr2 := child(t, envDump, append(args, "-no-progress")...)
	if code := exitCode(cmd.Wait()); code != 0 {
		t.Fatalf("resumed run exit %d\n%s", code, stderr2)
	}
	again := 0
	for _, r := range srv.Requests()[before:] {
		if finished[questionRE.FindStringSubmatch(r.Prompt())[2]] {
			again++
		}
	}
	resumed := len(srv.Requests()) - before
	t.Logf("killed after %d journaled answers; the restart asked %d questions, %d of them already finished", len(finished), resumed, again)
	if again != 0 || resumed != 49-17 {
		t.Errorf("restart asked %d questions (%d finished ones), want 32 and 0", resumed, again)
	}
	if !strings.Contains(stdout2.String(), "written  49/49") {
		t.Errorf("stdout:\n%s", stdout2)
	}
	got := onlyRun(t, out)
	if len(got.Questions) != 49 || len(got.Run.Warnings) != 2 {
		t.Errorf("%d rows, warnings %q", len(got.Questions), got.Run.Warnings)
	}

	// An uninterrupted run of the same plan.
	srv2 := llmtest.New(t, llmtest.Options{Responder: answer})
	out2 := t.TempDir()
	cmd, _, stderr3 := child(t, "", "-plan", writePlan(t, srv2.URL), "-data", root, "-out", out2, "-no-progress", "-unscored")
	if code := exitCode(cmd.Wait()); code != 0 {
		t.Fatalf("uninterrupted run exit %d\n%s", code, stderr3)
	}
	if a, b := rowsExceptLatency(got.Questions), rowsExceptLatency(onlyRun(t, out2).Questions); a != b {
		t.Errorf("rows of the resumed run differ from the uninterrupted run's:\n%s\n---\n%s", a, b)
	}

	// The key: sent to the server, but in no file, log line or child process.
	for _, r := range srv.Requests() {
		if r.Header.Get("Authorization") != "Bearer "+key {
			t.Fatal("the key was not sent")
		}
	}
	assertNoKey(t, out, stderr1.String()+stderr2.String()+stdout2.String())
	dump, err := os.ReadFile(envDump)
	if err != nil || !strings.Contains(string(dump), "RUN_BENCHMARK_MAIN=1") {
		t.Fatalf("child environment not captured: %v", err)
	}
	if strings.Contains(string(dump), key) || strings.Contains(string(dump), keyVar+"=") {
		t.Errorf("a process started by run-benchmark inherits the API key")
	}
}

func countItems(path string) int {
	data, _ := os.ReadFile(path)
	return strings.Count(string(data), `"kind":"item"`)
}

func journaledIDs(t *testing.T, path string) map[string]bool {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, m := range regexp.MustCompile(`"kind":"item","index":\d+,"id":"(\w+)"`).FindAllStringSubmatch(string(data), -1) {
		ids[m[1]] = true
	}
	return ids
}

func assertNoKey(t *testing.T, dir, text string) {
	t.Helper()
	n := 0
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
			if data, _ := os.ReadFile(p); bytes.Contains(data, []byte(key)) {
				t.Errorf("the API key appears in %s", p)
			}
		}
		return err
	})
	if n < 2 {
		t.Errorf("only %d output files checked", n)
	}
	if strings.Contains(text, key) {
		t.Error("the API key appears in the command's output")
	}
}

// TestCtrlCStopsResumably sends SIGINT while the server holds requests.
func TestCtrlCStopsResumably(t *testing.T) {
	root := mattoolstest.NewRoot(t).Dir
	srv := llmtest.New(t, llmtest.Options{Responder: answer, BlockAfter: 9})
	out := t.TempDir()
	args := []string{"-plan", writePlan(t, srv.URL), "-data", root, "-out", out, "-unscored"}
	cmd, _, stderr := child(t, "", args...)
	waitFor(t, "blocked workers", func() bool { return srv.Blocked() == 4 })
	cmd.Process.Signal(os.Interrupt)
	if code := exitCode(cmd.Wait()); code != exitInterrupted || !strings.Contains(stderr.String(), "run the same command again to resume") {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	srv.Unblock()
	cmd, _, stderr = child(t, "", append(args, "-no-progress")...)
	if code := exitCode(cmd.Wait()); code != 0 {
		t.Fatalf("resume exit %d\n%s", code, stderr)
	}
	if n := len(onlyRun(t, out).Questions); n != 49 {
		t.Errorf("%d rows", n)
	}
}

// TestTermTwiceStopsOnceResumably sends SIGTERM twice, as Slurm's
// scancel --full and a wrapper forwarding it do, while the server holds
// requests: the runner stops once, cleanly (exit 130, the signal named),
// every journal line whole, and a second start asks only what is missing.
func TestTermTwiceStopsOnceResumably(t *testing.T) {
	root := mattoolstest.NewRoot(t).Dir
	srv := llmtest.New(t, llmtest.Options{Responder: answer, BlockAfter: 9})
	out := t.TempDir()
	args := []string{"-plan", writePlan(t, srv.URL), "-data", root, "-out", out, "-unscored", "-no-progress"}
	cmd, _, stderr := child(t, "", args...)
	waitFor(t, "blocked workers", func() bool { return srv.Blocked() == 4 })
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Process.Signal(syscall.SIGTERM)
	if code := exitCode(cmd.Wait()); code != exitInterrupted || !strings.Contains(stderr.String(), "interrupted (received terminated)") {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	js, _ := filepath.Glob(filepath.Join(out, runner.JournalDir, "*.jsonl"))
	if len(js) != 1 {
		t.Fatalf("journals %v", js)
	}
	before := journaledIDs(t, js[0])
	if len(before) != 9 || countItems(js[0]) != 9 {
		t.Fatalf("%d questions journaled (%d lines) before the stop; want the 9 answered", len(before), countItems(js[0]))
	}
	srv.Unblock()
	asked := len(srv.Requests())
	cmd, _, stderr = child(t, "", args...)
	if code := exitCode(cmd.Wait()); code != 0 {
		t.Fatalf("resume exit %d\n%s", code, stderr)
	}
	if n := len(srv.Requests()) - asked; n != 49-9 {
		t.Errorf("the resumed run asked %d questions; want the 40 not journaled", n)
	}
	if n := countItems(js[0]); n != 49 {
		t.Errorf("%d item lines after the resume; want 49, none twice", n)
	}
}

func TestUsageAndPlanErrors(t *testing.T) {
	env := environ{func(string) string { return "" }, func(string) error { return nil }}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), nil, &stdout, &stderr, env); code != exitUsage || !strings.Contains(stderr.String(), "usage: run-benchmark -plan") {
		t.Errorf("no args: exit %d, stderr %q", code, stderr.String())
	}
	stderr.Reset()
	if code := run(context.Background(), []string{"-plan", "x.toml"}, &stdout, &stderr, env); code != exitUsage || !strings.Contains(stderr.String(), datasets.EnvVar) {
		t.Errorf("no data root: exit %d, stderr %q", code, stderr.String())
	}
	bad := filepath.Join(t.TempDir(), "bad.toml")
	os.WriteFile(bad, []byte("rounds = 0\n[[models]]\nname = \"m\"\nbase_url = \"http://127.0.0.1:1/v1\"\n"), 0o644)
	stderr.Reset()
	if code := run(context.Background(), []string{"-plan", bad, "-data", t.TempDir()}, &stdout, &stderr, env); code != exitFailed ||
		!strings.Contains(stderr.String(), bad+": rounds: is 0") {
		t.Errorf("bad plan: exit %d, stderr %q", code, stderr.String())
	}
}

func TestMissingKeyAndKeyRemovalInProcess(t *testing.T) {
	root := mattoolstest.NewRoot(t).Dir
	srv := llmtest.New(t, llmtest.Options{Responder: answer})
	planPath := writePlan(t, srv.URL)
	var stdout, stderr bytes.Buffer
	env := environ{func(string) string { return "" }, func(string) error { return nil }}
	if code := run(context.Background(), []string{"-plan", planPath, "-data", root, "-out", t.TempDir()}, &stdout, &stderr, env); code != exitFailed ||
		!strings.Contains(stderr.String(), keyVar+" (its api_key_env) is not set") {
		t.Errorf("missing key: exit %d, stderr %q", code, stderr.String())
	}
	var unset []string
	env = environ{func(n string) string {
		if n == keyVar {
			return key
		}
		return ""
	}, func(n string) error { unset = append(unset, n); return nil }}
	stderr.Reset()
	if code := run(context.Background(), []string{"-plan", planPath, "-data", root, "-out", t.TempDir(), "-no-progress", "-unscored"}, &stdout, &stderr, env); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if len(unset) != 1 || unset[0] != keyVar {
		t.Errorf("unset %v, want [%s]", unset, keyVar)
	}
}

// TestModelNeedsOnlyItsOwnKey: a task of one model (-model, as cmd/slurm's
// tasks run) reads that model's key only; another model's unset key stops
// nothing, and every key variable of the plan is still unset.
func TestModelNeedsOnlyItsOwnKey(t *testing.T) {
	root := mattoolstest.NewRoot(t).Dir
	srv := llmtest.New(t, llmtest.Options{Responder: answer})
	planPath := filepath.Join(t.TempDir(), "plan.toml")
	model := func(name, keyEnv string) string {
		return fmt.Sprintf("[[models]]\nname = %q\nbase_url = %q\napi_key_env = %q\ntimeout = \"5s\"\n", name, srv.URL, keyEnv)
	}
	if err := os.WriteFile(planPath, []byte("rounds = 1\nconcurrency = 4\n"+model("fake-model", keyVar)+model("api-model", "OTHER_MODEL_KEY")), 0o644); err != nil {
		t.Fatal(err)
	}
	var unset []string
	env := environ{func(n string) string {
		if n == keyVar {
			return key
		}
		return ""
	}, func(n string) error { unset = append(unset, n); return nil }}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"-plan", planPath, "-data", root, "-out", t.TempDir(), "-no-progress", "-unscored", "-model", "fake-model"},
		&stdout, &stderr, env); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if n := len(srv.Requests()); n != 49 {
		t.Errorf("%d requests, want fake-model's 49", n)
	}
	for _, r := range srv.Requests() {
		if r.Model != "fake-model" {
			t.Errorf("asked %s", r.Model)
		}
	}
	if strings.Join(unset, " ") != keyVar+" OTHER_MODEL_KEY" {
		t.Errorf("unset %v, want both key variables", unset)
	}
	// Without -model every model's key is needed.
	stderr.Reset()
	if code := run(context.Background(), []string{"-plan", planPath, "-data", root, "-out", t.TempDir(), "-no-progress", "-unscored"}, &stdout, &stderr, env); code != exitFailed ||
		!strings.Contains(stderr.String(), "OTHER_MODEL_KEY (its api_key_env) is not set") {
		t.Errorf("without -model: exit %d, stderr %q", code, stderr.String())
	}
}

func TestDryRunNeedsNoKeyAndMakesNoRequest(t *testing.T) {
	root := mattoolstest.NewRoot(t).Dir
	srv := llmtest.New(t, llmtest.Options{Responder: answer})
	var stdout, stderr bytes.Buffer
	env := environ{func(string) string { return "" }, func(string) error { return nil }}
	code := run(context.Background(), []string{"-plan", writePlan(t, srv.URL), "-data", root, "-out", t.TempDir(), "-dry-run"}, &stdout, &stderr, env)
	// One configuration × round: 49 model calls, one run per scoring protocol.
	if code != 0 || len(srv.Requests()) != 0 || !strings.Contains(stdout.String(), "2 runs (results files), 49 model calls to make") ||
		!strings.Contains(stdout.String(), "mattools-v1+mattools-v1-strict") {
		t.Errorf("exit %d, %d requests, stdout:\n%s\nstderr:\n%s", code, len(srv.Requests()), stdout.String(), stderr.String())
	}
	// The example plan of the paper parses and estimates with the fake data too.
	p, err := plan.Load("../../plans/paper.toml")
	if err != nil || len(p.Runs()) != 15 {
		t.Fatalf("paper plan: %v", err)
	}
}

// sandboxReadableRoot returns a fake MatTools root the sandbox uid can read
// (t.TempDir's parent is private to root).
func sandboxReadableRoot(t *testing.T) *mattoolstest.Root {
	t.Helper()
	r := mattoolstest.NewRoot(t)
	for d := r.Dir; d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	r.Write("src/tool_source_code/README", []byte("fake\n"))
	return r
}

// envAnswer answers every question with code that prints what a sandboxed
// program can see of environments: its own and every /proc/*/environ.
func envAnswer(r llmtest.Request) llmtest.Reply {
	m := questionRE.FindStringSubmatch(r.Prompt())
	code := fmt.Sprintf(`def f_%s():
    import glob, os
    print("ENV-DUMP", sorted(os.environ.items()))
    for p in glob.glob("/proc/*/environ"):
        try:
            print(p, open(p, "rb").read())
        except OSError as e:
            print(p, e)
    return {"p0": 0}`, m[2])
	return llmtest.Reply{Content: "<answer><code>```python\n" + code + "\n```</code><name>f_" + m[2] + "</name></answer>"}
}

// TestScoredRunKeepsTheKeyOutOfTheSandbox runs the command with scoring in
// the real sandbox: the generated code dumps every environment it
// can see; the API key is in none of them, nor in any output file or log,
// and the scored runs record the sandbox.
func TestScoredRunKeepsTheKeyOutOfTheSandbox(t *testing.T) {
	python := envOr(os.Getenv, "MATTOOLS_SANDBOX_PYTHON", "/opt/mattools-sandbox")
	if _, err := os.Stat(filepath.Join(python, "pyvenv.cfg")); err != nil && os.Getenv("CI") == "" {
		t.Skipf("the sandbox's Python environment is not installed (make setup): %v", err)
	}
	root := sandboxReadableRoot(t)
	srv := llmtest.New(t, llmtest.Options{Responder: envAnswer})
	out := t.TempDir()
	cmd, stdout, stderr := child(t, "", "-plan", writePlan(t, srv.URL), "-data", root.Dir, "-out", out, "-no-progress", "-v")
	if code := exitCode(cmd.Wait()); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	files, _ := filepath.Glob(filepath.Join(out, "*.parquet"))
	if len(files) != 2 {
		t.Fatalf("results files %q; want one per protocol", files)
	}
	dumps := 0
	for _, path := range files {
		f, err := results.Read(path)
		if err != nil {
			t.Fatal(err)
		}
		r := f.Run
		if !r.Totals.Scored || r.Environment.Sandbox == nil || r.Environment.Sandbox.Backend != "local" || r.Environment.Libraries["pymatgen"] != "2024.8.9" {
			t.Errorf("%s: totals %+v, environment %+v", r.RunID, r.Totals, r.Environment)
		}
		// The fake root's 7 questions without data files ran; their code
		// printed the sandbox's environments, which mattools-v1 then fails
		// to parse as the function's value (MatTools parses all of stdout);
		// strict reads the returned value itself.
		want := map[string]int{results.ProtocolMatToolsV1: 0, results.ProtocolMatToolsV1Strict: 7}[r.ScoringProtocol]
		if r.QuestionSet.Questions != 7 || *r.Totals.Runnable != want {
			t.Errorf("%s: question set %+v, runnable %d; want the 7 questions without data files, %d runnable", r.RunID, r.QuestionSet, *r.Totals.Runnable, want)
		}
		for _, q := range f.Questions {
			if q.StdoutExcerpt != nil && strings.Contains(*q.StdoutExcerpt, "ENV-DUMP") && strings.Contains(*q.StdoutExcerpt, "/proc/1/environ") {
				dumps++
				if strings.Contains(*q.StdoutExcerpt, keyVar) {
					t.Errorf("%s %s: the sandbox sees the variable %s", r.RunID, q.QuestionID, keyVar)
				}
			}
		}
	}
	if dumps != 14 {
		t.Errorf("%d rows hold the environment dump; want 7 questions × 2 protocols", dumps)
	}
	assertNoKey(t, out, stdout.String()+stderr.String())
	if !strings.Contains(stderr.String(), "sandbox opened") {
		t.Errorf("log does not name the sandbox:\n%s", stderr)
	}
}

// TestNoSandboxNoRun: when no sandbox backend works the command stops with an
// error saying so, before any model call, and writes nothing: it never runs
// code unsandboxed.
func TestNoSandboxNoRun(t *testing.T) {
	root := sandboxReadableRoot(t)
	srv := llmtest.New(t, llmtest.Options{Responder: answer})
	out := t.TempDir()
	// local: no Python environment there; docker: no engine behind the socket.
	cmd, _, stderr := childEnv(t, []string{"DOCKER_HOST=unix:///nonexistent/docker.sock"},
		"-plan", writePlan(t, srv.URL), "-data", root.Dir, "-out", out, "-no-progress", "-sandbox-python", "/nonexistent/python")
	if code := exitCode(cmd.Wait()); code != exitFailed || !strings.Contains(stderr.String(), "refusing to run code unsandboxed") ||
		!strings.Contains(stderr.String(), "-unscored") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d model requests before the sandbox was refused", n)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("output written: %v", entries)
	}
}

// TestDryRunOnAnUpstreamCheckout runs the paper's plan with -dry-run on a
// copy of the data root without prompts/ (an upstream checkout's layout,
// symbolic links to the real data): it works without -prompts, extracting
// the prompt texts from the upstream Python sources, and prints the same
// estimates (built from every prompt) as with the data root's prompts.
func TestDryRunOnAnUpstreamCheckout(t *testing.T) {
	root := mattoolstest.DataRoot(t, "to dry-run the paper's plan on an upstream layout")
	upstream := mattoolstest.WithoutPrompts(t, root)
	env := environ{func(string) string { return "" }, func(string) error { return nil }}
	dryRun := func(data string, extra ...string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		args := append([]string{"-plan", "../../plans/paper.toml", "-data", data, "-out", t.TempDir(), "-dry-run"}, extra...)
		if code := run(context.Background(), args, &stdout, &stderr, env); code != 0 {
			t.Fatalf("run-benchmark %s: exit %d: %s", strings.Join(args, " "), code, stderr.String())
		}
		return stdout.String()
	}
	cache := t.TempDir()
	got := dryRun(upstream, "-prompts-cache", cache)
	if !strings.Contains(got, "30 runs (results files), 735 model calls to make") {
		t.Errorf("dry run on the upstream layout:\n%s\nwant 5 models × 3 rounds × 2 protocols = 30 runs, 15 × 49 = 735 calls", got)
	}
	if entries, _ := os.ReadDir(cache); len(entries) != 1 {
		t.Errorf("prompt cache %s holds %d entries, want one extraction", cache, len(entries))
	}
	published := filepath.Join(root, "prompts")
	if _, err := os.Stat(published); err != nil {
		t.Skipf("%s: the data root is itself an upstream checkout; nothing to compare with", published)
	}
	if want := dryRun(root); got != want {
		t.Errorf("dry run without prompts/:\n%s\nwith %s:\n%s", got, published, want)
	}
	if want := dryRun(upstream, "-prompts", published); got != want {
		t.Errorf("dry run without prompts/:\n%s\nwith -prompts %s:\n%s", got, published, want)
	}
}

// TestScoresToolUsage: a plan of a folder benchmark (a registered
// tool-usage benchmark) is scored in the sandbox as MatTools' tool usage is;
// a QA-only plan opens no sandbox.
func TestScoresToolUsage(t *testing.T) {
	dir := t.TempDir()
	folder, err := filepath.Abs(filepath.Join("..", "..", "datasets", "testdata", "folder-benchmark"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		toml string
		want bool
	}{
		{"benchmarks = [\"toy-pymatgen\"]\n[folder_benchmarks.toy-pymatgen]\npath = \"" + folder + "\"\n", true},
		{"benchmarks = [\"tool-usage\"]\n", true},
		{"benchmarks = [\"qa-code\"]\n[qa_sets.qa-code]\npath = \"q.json\"\nname = \"s\"\n", false},
	} {
		path := filepath.Join(dir, "plan.toml")
		if err := os.WriteFile(path, []byte(c.toml+"[[models]]\nname = \"m\"\nbase_url = \"http://127.0.0.1:1/v1\"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		p, err := plan.Load(path)
		if err != nil {
			t.Fatalf("%s: %v", c.toml, err)
		}
		if got := scoresToolUsage(p); got != c.want {
			t.Errorf("%s: scoresToolUsage = %v, want %v", c.toml, got, c.want)
		}
	}
}

// TestFolderBenchmarkIsScoredInTheSandbox: a plan of a folder benchmark
// alone (datasets/testdata/folder-benchmark) opens the sandbox and scores
// every answer, as MatTools' tool usage is (such a plan once failed, "runs
// need a Scorer": the scorer opened only for the benchmark named tool-usage).
func TestFolderBenchmarkIsScoredInTheSandbox(t *testing.T) {
	python := envOr(os.Getenv, "MATTOOLS_SANDBOX_PYTHON", "/opt/mattools-sandbox")
	if _, err := os.Stat(filepath.Join(python, "pyvenv.cfg")); err != nil && os.Getenv("CI") == "" {
		t.Skipf("the sandbox's Python environment is not installed (make setup): %v", err)
	}
	root := sandboxReadableRoot(t)
	folder, err := filepath.Abs(filepath.Join("..", "..", "datasets", "testdata", "folder-benchmark"))
	if err != nil {
		t.Fatal(err)
	}
	// The iron question answered right, the others with a wrong value.
	srv := llmtest.New(t, llmtest.Options{Responder: func(r llmtest.Request) llmtest.Reply {
		body := "return {'atomic_number': 25}"
		if strings.Contains(r.Prompt(), "Look up iron") {
			body = "from pymatgen.core import Element\n    return {'atomic_number': int(Element('Fe').Z)}"
		}
		return llmtest.Reply{Content: "<answer><code>```python\ndef f():\n    " + body + "\n```</code><name>f</name></answer>"}
	}})
	plan := writePlan(t, srv.URL)
	data, err := os.ReadFile(plan)
	if err != nil {
		t.Fatal(err)
	}
	text := "benchmarks = [\"toy-pymatgen\"]\n" + string(data) + fmt.Sprintf("[folder_benchmarks.toy-pymatgen]\npath = %q\n", folder)
	if err := os.WriteFile(plan, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	cmd, _, stderr := child(t, "", "-plan", plan, "-data", root.Dir, "-out", out, "-no-progress")
	if code := exitCode(cmd.Wait()); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	files, _ := filepath.Glob(filepath.Join(out, "*.parquet"))
	if len(files) != 2 {
		t.Fatalf("results files %q; want one per protocol", files)
	}
	for _, path := range files {
		f, err := results.Read(path)
		if err != nil {
			t.Fatal(err)
		}
		r := f.Run
		if r.Benchmark != "toy-pymatgen" || !r.Totals.Scored || r.Environment.Sandbox == nil || r.Totals.PropertiesPassed == nil || *r.Totals.PropertiesPassed != 1 {
			t.Errorf("%s: benchmark %s, totals %+v, sandbox %+v; want scored in the sandbox with 1 property passed", r.RunID, r.Benchmark, r.Totals, r.Environment.Sandbox)
		}
		for _, q := range f.Questions {
			want := results.VerdictPartial
			if q.QuestionID == "test_iron_number" {
				want = results.VerdictCorrect
			}
			if results.Verdict(q.Verdict) != want {
				t.Errorf("%s %s: verdict %s, want %s", r.RunID, q.QuestionID, q.Verdict, want)
			}
		}
	}
}
