package main

// TestOnARealSlurmCluster runs cmd/slurm on a real single-node Slurm
// cluster (Debian 12's slurmctld and slurmd, started by
// scripts/slurm/cluster.sh; make setup-slurm installs them): a 4-shard plan
// whose tasks each start the project's fake OpenAI-compatible server
// (scripts/runner-bench/fakeserver) through -server-cmd, one task's server
// refusing to start (the merge never runs; status names the shard), one
// task requeued while its server holds a request (it resumes; no question
// asked twice), that index resubmitted alone (the merge waits for it), the
// merged results equal to an unsharded run's; then rescore as an array equal
// to the unsharded rescore; then validate-submission -reexecute as 2-task
// arrays on a submission make-submission made of the merged run
// (validateOnCluster): the merge job's report is the unsharded command's,
// every verdict agreeing and the same verified records written (-record,
// the merge's only) as it COMPLETED, and, with one verdict tampered with,
// naming that file, row and question as it FAILED with exit 1, as the
// unsharded command exits. It needs root; it skips naming why elsewhere,
// and fails under CI (CI set), which runs as root.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/results"
)

func TestSubmitDryRunPrintsTheScripts(t *testing.T) {
	bin := t.TempDir()
	for _, p := range []string{"slurm", "run-benchmark", "merge"} {
		os.WriteFile(filepath.Join(bin, p), nil, 0o755)
	}
	planPath := filepath.Join(t.TempDir(), "plan.toml")
	os.WriteFile(planPath, []byte("rounds = 3\n[[models]]\nname = \"Qwen/Qwen2.5-7B-Instruct\"\nbase_url = \"http://127.0.0.1:8000/v1\"\n"+
		"[[models]]\nname = \"meta-llama/Llama-3.1-8B-Instruct\"\nbase_url = \"http://127.0.0.1:8000/v1\"\n"), 0o644)
	var out, errb bytes.Buffer
	code := run([]string{"submit", "-plan", planPath, "-data", "/data/mattools", "-out", "/scratch/w", "-shards", "4", "-bin", bin,
		"-sbatch", "--partition=gpu --gres=gpu:1 --time=04:00:00", "-server-cmd", "vllm serve {model} --port {port}", "-dry-run"}, &out, &errb, func(string) string { return "" })
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	s := out.String()
	for _, want := range []string{
		"#SBATCH --partition=gpu", "#SBATCH --gres=gpu:1", "#SBATCH --requeue", "#SBATCH --output=/scratch/w/tasks/%a/task.log",
		"-models Qwen/Qwen2.5-7B-Instruct,meta-llama/Llama-3.1-8B-Instruct", "-shards 4", "-server-cmd 'vllm serve {model} --port {port}'",
		"sbatch --parsable --array=0-7 /scratch/w/slurm/array.sh", "--dependency=afterok:ARRAY_JOB_ID --kill-on-invalid-dep=yes",
		"/merge -plan " + planPath + " -data /data/mattools -out /scratch/w/results /scratch/w/tasks/0 ", "/scratch/w/tasks/7\n",
		"tasks 0-3: Qwen/Qwen2.5-7B-Instruct; tasks 4-7: meta-llama/Llama-3.1-8B-Instruct",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("dry run lacks %q:\n%s", want, s)
		}
	}
	// The merge job gets the partition and time, not the GPU.
	if _, merge, _ := strings.Cut(s, "merge.sh\n"); !strings.Contains(merge, "#SBATCH --partition=gpu") || strings.Contains(merge, "gres") {
		t.Errorf("merge script:\n%s", merge)
	}
	if _, err := os.Stat("/scratch/w"); err == nil {
		t.Error("the dry run wrote the work folder")
	}
}

// TestSubmitRefusesOneRunBenchmarkShard: run-benchmark -shard 0/1 writes
// results files and no shard journal, so a merge of one shard would fail
// after the whole array ran; rescore's single shard is journaled and passes.
func TestSubmitRefusesOneRunBenchmarkShard(t *testing.T) {
	bin := t.TempDir()
	for _, p := range []string{"slurm", "run-benchmark", "merge"} {
		os.WriteFile(filepath.Join(bin, p), nil, 0o755)
	}
	planPath := filepath.Join(t.TempDir(), "plan.toml")
	os.WriteFile(planPath, []byte("rounds = 1\n[[models]]\nname = \"m\"\nbase_url = \"http://127.0.0.1:8000/v1\"\n"), 0o644)
	noEnv := func(string) string { return "" }
	var out, errb bytes.Buffer
	if code := run([]string{"submit", "-plan", planPath, "-data", "/data", "-out", "/scratch/w", "-shards", "1", "-bin", bin, "-dry-run"}, &out, &errb, noEnv); code != exitUsage ||
		!strings.Contains(errb.String(), "-shards 1: run-benchmark's single shard is an unsharded run") {
		t.Errorf("run-benchmark -shards 1: exit %d, stderr %s", code, errb.String())
	}
	errb.Reset()
	if code := run([]string{"submit", "-command", "rescore", "-out", "/scratch/w", "-shards", "1", "-bin", bin, "-dry-run", "--", "in.parquet"}, &out, &errb, noEnv); code != exitOK {
		t.Errorf("rescore -shards 1: exit %d, stderr %s", code, errb.String())
	}
}

// TestValidateSubmissionArrayArgs: -record after -- goes to the merge only
// (validate-submission refuses -shard with -record, so every task failed
// with exit 2 and the merge never ran: found on the real cluster), in
// either form; -shard, -merge and -out after --, which the array sets for
// its tasks and merge, are refused before anything is submitted.
func TestValidateSubmissionArrayArgs(t *testing.T) {
	bin := t.TempDir()
	for _, p := range []string{"slurm", "run-benchmark", "merge"} {
		os.WriteFile(filepath.Join(bin, p), nil, 0o755)
	}
	// The task's validate-submission: it writes its arguments, one a line.
	os.WriteFile(filepath.Join(bin, "validate-submission"), []byte("#!/bin/sh\nprintf '%s\\n' \"$@\" > \"$ARGS_FILE\"\n"), 0o755)
	noEnv := func(string) string { return "" }
	var out, errb bytes.Buffer
	if code := run([]string{"submit", "-command", "validate-submission", "-out", "/scratch/w", "-shards", "2", "-bin", bin, "-dry-run", "--",
		"-data", "/data", "-record", "/verified", "/subs/f"}, &out, &errb, noEnv); code != exitOK ||
		!strings.Contains(out.String(), "/validate-submission -reexecute -merge /scratch/w/tasks/0,/scratch/w/tasks/1 -data /data -record /verified /subs/f\n") ||
		!strings.Contains(out.String(), "-- -data /data -record /verified /subs/f\n") {
		t.Errorf("dry run: exit %d:\n%s%s", code, out.String(), errb.String())
	}
	for _, rec := range [][]string{{"-record", "/verified"}, {"--record=/verified"}} {
		work := t.TempDir()
		argsFile := filepath.Join(work, "args")
		t.Setenv("ARGS_FILE", argsFile)
		sigs := make(chan os.Signal)
		a := append(append([]string{"-command", "validate-submission", "-bin", bin, "-out", work, "-shards", "2", "-index", "1", "--", "-data", "/data"}, rec...), "/subs/f")
		errb.Reset()
		code := task(t.Context(), a, &out, &errb, noEnv, sigs)
		close(sigs)
		got, _ := os.ReadFile(argsFile)
		if want := "-reexecute\n-shard\n1/2\n-out\n" + filepath.Join(work, "tasks", "1") + "\n-quiet\n-data\n/data\n/subs/f\n"; code != exitOK || string(got) != want {
			t.Errorf("task with %v: exit %d, validate-submission got:\n%swant:\n%s%s", rec, code, got, want, errb.String())
		}
	}
	for _, cmd := range []string{"validate-submission", "rescore"} {
		for _, bad := range []string{"-out", "--shard=0/2", "-merge"} {
			errb.Reset()
			if code := run([]string{"submit", "-command", cmd, "-out", "/scratch/w", "-shards", "2", "-bin", bin, "-dry-run", "--", bad, "x", "/subs/f"}, &out, &errb, noEnv); code != exitUsage ||
				!strings.Contains(errb.String(), bad+" after --: the array sets") {
				t.Errorf("%s with %s after --: exit %d, stderr %s", cmd, bad, code, errb.String())
			}
		}
	}
}

func TestExpandTasks(t *testing.T) {
	if got := fmt.Sprint(expandTasks("0,2-4%2")); got != "[0 2 3 4]" {
		t.Errorf("expandTasks = %s", got)
	}
}

// slurmOrSkip returns why this machine cannot run the real-Slurm test, or "".
func slurmOrSkip(t *testing.T) {
	why := ""
	switch {
	case os.Geteuid() != 0:
		why = "not root: slurmd runs jobs as their users and the test starts its own cluster as root"
	default:
		for _, p := range []string{"sbatch", "slurmctld", "slurmd", "bwrap"} {
			if _, err := exec.LookPath(p); err != nil {
				why = p + " is not installed (make setup-slurm, make setup)"
			}
		}
	}
	if why == "" {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("the real-Slurm test cannot run under CI: %s", why)
	}
	t.Skip(why)
}

func TestOnARealSlurmCluster(t *testing.T) {
	slurmOrSkip(t)
	repo, _ := filepath.Abs("../..")
	w := t.TempDir()
	bin := filepath.Join(w, "bin")
	build := exec.Command("go", "build", "-o", bin+"/", "./cmd/slurm", "./cmd/run-benchmark", "./cmd/merge", "./cmd/rescore", "./cmd/make-submission", "./cmd/validate-submission",
		"./scripts/runner-bench/fakeserver")
	build.Dir = repo
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	root := mattoolstest.NewRoot(t).Dir
	// The sandbox mounts the data root's tool sources (none here: the fake
	// root's verifications read no file).
	if err := os.MkdirAll(filepath.Join(root, "src", "tool_source_code"), 0o755); err != nil {
		t.Fatal(err)
	}
	// The sandbox's uid must reach the data: the test's folders (0700) opened.
	for _, d := range []string{filepath.Dir(root), root} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}

	// The cluster, on ports of its own: another cluster on this machine
	// (Slurm's default 6817, a parallel make test) is never the one asked,
	// nor cancelled by this one's stop. Its stop is registered before its
	// start, so that daemons a failed start left are stopped too.
	cl := filepath.Join(w, "cluster")
	if err := os.MkdirAll(cl, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if b, err := exec.Command(filepath.Join(repo, "scripts/slurm/cluster.sh"), "stop", cl).CombinedOutput(); err != nil {
			t.Errorf("stopping the cluster: %v\n%s", err, b)
		}
	})
	port := freePortPair(t)
	t0 := time.Now()
	start := exec.Command(filepath.Join(repo, "scripts/slurm/cluster.sh"), "start", cl)
	start.Env = append(os.Environ(), fmt.Sprintf("SLURM_TEST_PORT=%d", port))
	if b, err := start.CombinedOutput(); err != nil {
		t.Fatalf("starting the cluster: %v\n%s", err, b)
	}
	t.Logf("cluster started in %.1f s (slurmctld on port %d, slurmd, node idle)", time.Since(t0).Seconds(), port)
	t.Setenv("SLURM_CONF", filepath.Join(cl, "slurm.conf"))
	sh := func(name string, args ...string) string {
		t.Helper()
		b, err := exec.Command(name, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, b)
		}
		return string(b)
	}

	// The plan: its base URL answers nothing, so every question must go to a task's own server.
	planPath := filepath.Join(w, "plan.toml")
	os.WriteFile(planPath, []byte("rounds = 1\nconcurrency = 2\nbenchmarks = [\"tool-usage\"]\n[sandbox]\nslots = 1\n"+
		"[[models]]\nname = \"fake-model\"\nbase_url = \"http://127.0.0.1:9/v1\"\ntemperature = 0\ntimeout = \"60s\"\nmax_retries = 0\n"), 0o644)

	// The unsharded run, against the same fake server.
	ref := exec.Command(filepath.Join(bin, "fakeserver"), "-code", "-model", "fake-model")
	refOut, _ := ref.StdoutPipe()
	if err := ref.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ref.Process.Kill(); ref.Wait() })
	// Its first line is its base URL (one Read may return part of it).
	refLine, err := bufio.NewReader(refOut).ReadString('\n')
	if err != nil {
		t.Fatalf("the reference fakeserver printed no base URL: %v", err)
	}
	refURL := strings.TrimSpace(refLine)
	unsharded := filepath.Join(w, "unsharded")
	t0 = time.Now()
	sh(filepath.Join(bin, "run-benchmark"), "-plan", planPath, "-data", root, "-out", unsharded, "-no-progress", "-base-url", refURL)
	t.Logf("unsharded run: %.1f s", time.Since(t0).Seconds())

	// The array: task 2's server refuses to start; task 1's holds its 6th request.
	work := filepath.Join(w, "work")
	serverCmd := fmt.Sprintf(`if [ -e %[1]s/fail-$SLURM_ARRAY_TASK_ID ]; then echo "refusing to start: the test's flag" >&2; exit 3; fi; `+
		`hold=; [ "$SLURM_ARRAY_TASK_ID" = 1 ] && hold="-block-after 5 -hold-mark %[1]s/held"; `+
		`exec %[2]s/fakeserver -code -model {model} -addr 127.0.0.1:{port} -log %[1]s/requests-$SLURM_ARRAY_TASK_ID-${SLURM_RESTART_COUNT:-0}.log $hold`, w, bin)
	os.WriteFile(filepath.Join(w, "fail-2"), nil, 0o644)
	t0 = time.Now()
	subOut := sh(filepath.Join(bin, "slurm"), "submit", "-plan", planPath, "-data", root, "-out", work, "-shards", "4", "-sbatch", "--cpus-per-task=1",
		"-server-cmd", serverCmd, "-server-timeout", "2m")
	t.Logf("slurm submit:\n%s", subOut)
	r, err := loadRecord(work)
	if err != nil {
		t.Fatal(err)
	}
	arr, merge1 := r.ArrayJobs[0], r.MergeJobs[0]
	logs := func() string {
		var b strings.Builder
		for _, p := range []string{"tasks/0/task.log", "tasks/1/task.log", "tasks/2/task.log", "tasks/3/task.log", "tasks/1/server.log", "merge.log"} {
			d, _ := os.ReadFile(filepath.Join(work, p))
			fmt.Fprintf(&b, "--- %s\n%s", p, d)
		}
		// The cluster's own account: job completions and the daemons' last lines.
		for _, p := range []string{"log/jobcomp.txt", "log/slurmctld.log", "log/slurmd.log"} {
			d, _ := os.ReadFile(filepath.Join(cl, p))
			if len(d) > 6000 {
				d = d[len(d)-6000:]
			}
			fmt.Fprintf(&b, "--- cluster %s (end)\n%s", p, d)
		}
		return b.String()
	}
	// waitFor polls Slurm (an event: a state change), up to a generous bound.
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Minute); !cond(); time.Sleep(200 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("waiting for %s: not after 5 min\n%s\n%s", what, sh("scontrol", "show", "job"), logs())
			}
		}
	}
	taskState := func(job string, task int) string {
		recs, _ := showJob(job)
		for _, x := range recs {
			if slices.Contains(expandTasks(x.Task), task) {
				return x.State
			}
		}
		return ""
	}
	jobState := func(job string) string {
		recs, _ := showJob(job)
		if len(recs) == 0 {
			return ""
		}
		return recs[0].State
	}
	final := func(s string) bool {
		return slices.Contains([]string{"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY"}, s)
	}

	// Task 1 is killed at a fixed point: its server holds the 6th request.
	waitFor("task 1's server to hold a request", func() bool { _, err := os.Stat(filepath.Join(w, "held")); return err == nil })
	sh("scontrol", "requeue", arr+"_1")
	waitFor("task 1 requeued", func() bool { return taskState(arr, 1) == "PENDING" })
	journal1, _ := filepath.Glob(filepath.Join(work, "tasks/1/.journal/*.jsonl"))
	if len(journal1) != 1 {
		t.Fatalf("task 1's journals: %v", journal1)
	}
	before := itemIndexes(t, journal1[0])
	// A requeued job waits 2 minutes (its begin time); start it now, but in a later second than the requeue's end:
	// slurmd refuses a launch credential issued in the second it revoked the job's last one (slurm_cred.c,
	// ctime <= revoked), and the task would end FAILED, exit 1, without running. PENDING (not COMPLETING) means
	// slurmd has killed the first run and revoked its credential by now.
	time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second + 100*time.Millisecond)))
	sh("scontrol", "update", "jobid="+arr+"_1", "starttime=now")
	waitFor("every task and the merge", func() bool {
		for i := range 4 {
			if !final(taskState(arr, i)) {
				return false
			}
		}
		return final(jobState(merge1))
	})
	arrayWall := time.Since(t0)
	if s := taskState(arr, 1); s != "COMPLETED" {
		t.Fatalf("task 1 is %s after its requeue, want COMPLETED (resumed)\n%s\n%s", s, sh("scontrol", "show", "job", arr+"_1"), logs())
	}

	// The failed shard: the merge never ran, and status names the shard and its log.
	if s := taskState(arr, 2); s != "FAILED" {
		t.Errorf("task 2 is %s, want FAILED\n%s", s, logs())
	}
	if s := jobState(merge1); s != "CANCELLED" {
		t.Errorf("the merge is %s, want CANCELLED (a shard failed)\n%s", s, logs())
	}
	if _, err := os.Stat(r.resultsDir()); err == nil {
		t.Errorf("the merge wrote %s although shard 2 failed", r.resultsDir())
	}
	var st, stErr bytes.Buffer
	if code := run([]string{"status", "-out", work}, &st, &stErr, os.Getenv); code != exitFailed ||
		!strings.Contains(st.String(), "task 2 (model fake-model, shard 2/4) FAILED") || !strings.Contains(st.String(), "refusing to start: the test's flag") ||
		!strings.Contains(st.String(), "resubmit -out "+work+" -tasks 2") {
		t.Errorf("status exit %d:\n%s%s", code, st.String(), stErr.String())
	}
	t.Logf("slurm status after the failed shard:\n%s", st.String())

	// The requeued task resumed: no question journaled twice, none asked again.
	after := itemIndexes(t, journal1[0])
	second := lines(t, filepath.Join(w, "requests-1-1.log"))
	total := len(after)
	if dup := total - len(distinct(after)); dup != 0 || len(before) == 0 || len(before) >= total {
		t.Errorf("task 1: %d questions journaled before the requeue, %d lines after (%d twice)", len(before), total, dup)
	}
	if second != total-len(before) {
		t.Errorf("task 1 after its requeue asked %d questions; want the %d not journaled before", second, total-len(before))
	}
	t.Logf("requeue: task 1 had %d of %d questions journaled when requeued; its second run asked %d; %d journal lines, none twice",
		len(before), total, second, total)

	// Index 2 again, alone: it runs shard 2/4, and a new merge waits for it.
	os.Remove(filepath.Join(w, "fail-2"))
	var rs bytes.Buffer
	if code := run([]string{"resubmit", "-out", work, "-tasks", "2"}, &rs, &stErr, os.Getenv); code != 0 {
		t.Fatalf("resubmit: %d %s", code, stErr.String())
	}
	t.Logf("slurm resubmit -tasks 2:\n%s", rs.String())
	r, _ = loadRecord(work)
	arr2, merge2 := r.ArrayJobs[1], r.MergeJobs[1]
	waitFor("the resubmitted task and the merge", func() bool { return final(taskState(arr2, 2)) && final(jobState(merge2)) })
	if a, b := taskState(arr2, 2), jobState(merge2); a != "COMPLETED" || b != "COMPLETED" {
		t.Fatalf("resubmitted task %s, merge %s\n%s", a, b, logs())
	}
	if b, _ := os.ReadFile(filepath.Join(work, "tasks/2/task.log")); !strings.Contains(string(b), "task 2: shard 2/4 of model fake-model done") {
		t.Errorf("task 2's log:\n%s", b)
	}
	equalDirs(t, unsharded, r.resultsDir())
	t.Logf("4-shard array (with the failed shard and the requeue) %.1f s to its end; merged results equal the unsharded run's", arrayWall.Seconds())

	// rescore as an array equals the unsharded rescore.
	inputs, _ := filepath.Glob(filepath.Join(unsharded, "*mattools-v1-strict*"+results.Extension))
	if len(inputs) != 1 {
		t.Fatalf("inputs %v", inputs)
	}
	plain := filepath.Join(w, "rescored")
	sh(filepath.Join(bin, "rescore"), "-data", root, "-out", plain, "-quiet", "-slots", "1", inputs[0])
	rwork := filepath.Join(w, "rescore-work")
	sh(filepath.Join(bin, "slurm"), "submit", "-command", "rescore", "-out", rwork, "-shards", "2", "-sbatch", "--cpus-per-task=1", "--", "-data", root, inputs[0])
	rr, _ := loadRecord(rwork)
	waitFor("the rescore array and its merge", func() bool { return final(jobState(rr.MergeJobs[0])) })
	if s := jobState(rr.MergeJobs[0]); s != "COMPLETED" {
		b, _ := os.ReadFile(filepath.Join(rwork, "tasks/0/task.log"))
		m, _ := os.ReadFile(filepath.Join(rwork, "merge.log"))
		t.Fatalf("rescore merge %s\n%s\n%s", s, b, m)
	}
	equalDirs(t, plain, rr.resultsDir())

	// validate-submission as an array: the merged run made a submission, re-executed as 2 tasks, its merged report equal
	// to the unsharded one's, once as submitted (all agree) and once with a verdict tampered with (the disagreement named).
	validateOnCluster(t, w, bin, root, r.resultsDir(), sh, waitFor, jobState)
}

// authorTOML is a model author's metadata for make-submission: the fields
// the runs do not say (SUBMITTING.md §2).
const authorTOML = `organization = "Example Lab"
provider = "a local OpenAI-compatible server"
authors = ["A. Author"]
contact = "author@example.org"
link = "https://example.org/fake-model"
model_release_date = "unknown"
open_model = true
open_system = true
outputs_license = "CC-BY-4.0"
`

// submissionOf makes the submission of the merged run in runsDir with
// make-submission (into w/submissions) and returns its folder and the
// number of questions it scored (not data-missing). The merged run is one
// round under each protocol; rounds 2 and 3 are its copies under their own
// run ids, as the fake server answers every round alike.
func submissionOf(t *testing.T, w, bin, runsDir string, sh func(string, ...string) string) (folder string, executable int) {
	t.Helper()
	runs := filepath.Join(w, "runs-3-rounds")
	merged, _ := filepath.Glob(filepath.Join(runsDir, "*"+results.Extension))
	for _, p := range merged {
		f, err := results.Read(p)
		if err != nil {
			t.Fatal(err)
		}
		if f.Run.Round != 1 || f.Run.Provenance.Kind != results.ProvenanceRunner {
			t.Fatalf("%s: round %d, provenance %s; want the runner's round 1", p, f.Run.Round, f.Run.Provenance.Kind)
		}
		if f.Run.ScoringProtocol == results.ProtocolMatToolsV1 {
			for _, q := range f.Questions {
				if q.Verdict != string(results.VerdictDataMissing) {
					executable++
				}
			}
		}
		for round := 1; round <= 3; round++ {
			f.Run.Round = round
			f.Run.RunID = results.MakeRunID(&f.Run)
			if err := results.Write(filepath.Join(runs, f.Run.RunID+results.Extension), f); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(merged) != 2 || executable == 0 {
		t.Fatalf("merged run: %d files, %d executable questions; want 2 protocols and some", len(merged), executable)
	}
	meta := filepath.Join(w, "author.toml")
	os.WriteFile(meta, []byte(authorTOML), 0o644)
	out := sh(filepath.Join(bin, "make-submission"), "-metadata", meta, "-out", filepath.Join(w, "submissions"), runs)
	m := regexp.MustCompile(`wrote (\S+): submission.toml and 6 results files`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("make-submission printed %q; want a folder of 6 results files", out)
	}
	return m[1], executable
}

// validateOnCluster makes a submission of the merged run in runsDir
// (submissionOf), and a copy of it with one verdict tampered with
// (consistent totals: valid without -reexecute); it submits both to
// validate-submission as 2-task arrays (-record on the one as submitted),
// runs the unsharded validate-submission -reexecute on each meanwhile, and
// checks that each merge job's report (merge.log) is the unsharded one's,
// times and the records' folder aside, and its state the unsharded exit
// status: COMPLETED and exit 0 with every verdict agreeing and the verified
// records written, FAILED (exit 1) naming the tampered row and question.
func validateOnCluster(t *testing.T, w, bin, root, runsDir string, sh func(string, ...string) string, waitFor func(string, func() bool), jobState func(string) string) {
	t0 := time.Now()
	clean, executable := submissionOf(t, w, bin, runsDir, sh)
	// The tampered copy: same folder name, another submissions root.
	tampered := filepath.Join(w, "tampered", filepath.Base(clean))
	if err := os.CopyFS(tampered, os.DirFS(clean)); err != nil {
		t.Fatal(err)
	}
	target, row, qid := tamperVerdict(t, tampered)

	// Both arrays first (the cluster runs them while this process runs the unsharded re-executions).
	type check struct {
		name, folder, work, records string
		want                        int // the unsharded exit status
		report                      string
	}
	checks := []*check{
		{name: "as submitted", folder: clean, work: filepath.Join(w, "validate-work"), records: filepath.Join(w, "verified-array")},
		{name: "tampered", folder: tampered, work: filepath.Join(w, "validate-tampered-work")},
	}
	for _, c := range checks {
		args := []string{"submit", "-command", "validate-submission", "-out", c.work, "-shards", "2", "-sbatch", "--cpus-per-task=1", "--", "-data", root, "-quiet"}
		if c.records != "" {
			args = append(args, "-record", c.records)
		}
		sh(filepath.Join(bin, "slurm"), append(args, c.folder)...)
	}
	for _, c := range checks {
		args := []string{"-reexecute", "-data", root, "-quiet", "-slots", "1"}
		if c.records != "" {
			args = append(args, "-record", filepath.Join(w, "verified-unsharded"))
		}
		cmd := exec.Command(filepath.Join(bin, "validate-submission"), append(args, c.folder)...)
		b, err := cmd.CombinedOutput()
		c.want, c.report = cmd.ProcessState.ExitCode(), string(b)
		if c.want < 0 {
			t.Fatalf("validate-submission %s: %v\n%s", c.folder, err, b)
		}
	}
	times := regexp.MustCompile(`\(\d+\.\d s\)`)
	for _, c := range checks {
		rec, err := loadRecord(c.work)
		if err != nil {
			t.Fatal(err)
		}
		merge := rec.MergeJobs[0]
		waitFor("the validate-submission array ("+c.name+") and its merge", func() bool { return finalState(jobState(merge)) })
		log, _ := os.ReadFile(filepath.Join(c.work, "merge.log"))
		got := times.ReplaceAllString(strings.ReplaceAll(string(log), filepath.Join(w, "verified-array"), "RECORDS"), "(… s)")
		want := times.ReplaceAllString(strings.ReplaceAll(c.report, filepath.Join(w, "verified-unsharded"), "RECORDS"), "(… s)")
		state, wantState := jobState(merge), map[int]string{exitOK: "COMPLETED", exitFailed: "FAILED"}[c.want]
		recs, _ := showJob(merge)
		if state != wantState || recs[0].ExitCode != fmt.Sprintf("%d:0", c.want) || got != want {
			b0, _ := os.ReadFile(filepath.Join(c.work, "tasks/0/task.log"))
			b1, _ := os.ReadFile(filepath.Join(c.work, "tasks/1/task.log"))
			t.Errorf("validate-submission %s: the merge job %s, exit %s (the unsharded command exited %d); its report:\n%s\nunsharded:\n%s\ntask 0:\n%s\ntask 1:\n%s",
				c.name, state, recs[0].ExitCode, c.want, log, c.report, b0, b1)
		}
		t.Logf("validate-submission %s: unsharded exit %d, the array's merge job %s (exit %s), the same report:\n%s", c.name, c.want, state, recs[0].ExitCode, log)
		// status says where the report is (validate-submission writes no results folder).
		var st, stErr bytes.Buffer
		// Its exit status is the merge's: 0 when it completed, 1 when it failed (an invalid submission).
		code := run([]string{"status", "-out", c.work}, &st, &stErr, os.Getenv)
		if w := fmt.Sprintf("merge job %s: %s", merge, state); code != c.want || !strings.Contains(st.String(), w) || !strings.Contains(st.String(), "its report in "+filepath.Join(c.work, "merge.log")) {
			t.Errorf("slurm status -out %s: exit %d, want %d; lacks %q or where the report is:\n%s%s", c.work, code, c.want, w, st.String(), stErr.String())
		}
	}

	// The reports say what they should: every verdict agreeing and recorded; the tampered one named.
	agree := fmt.Sprintf("re-executed: %d answers (%d distinct) in the sandbox under mattools-v1 and mattools-v1-strict: %d verdicts compared, all agree",
		3*executable, executable, 6*executable)
	if c := checks[0]; c.want != exitOK || !strings.Contains(c.report, agree) || !strings.Contains(c.report, "recorded: 6 verified records in ") {
		t.Errorf("as submitted: exit %d; want 0 and %q, 6 records:\n%s", c.want, agree, c.report)
	}
	// The verified records too: the same 6 files, equal but for the finish time and sandbox times.
	if ps, _ := filepath.Glob(filepath.Join(w, "verified-array", filepath.Base(clean), "*"+results.Extension)); len(ps) != 6 {
		t.Errorf("the array's merge wrote %d verified records, want 6", len(ps))
	}
	equalDirs(t, filepath.Join(w, "verified-unsharded", filepath.Base(clean)), filepath.Join(w, "verified-array", filepath.Base(clean)))
	named := fmt.Sprintf("%s:row %d: verdict: %s under mattools-v1-strict: submitted ", filepath.Base(target), row, qid)
	contradicts := "INVALID: re-execution contradicts 1 submitted verdict, in 1 question: " + qid + "\n"
	if c := checks[1]; c.want != exitFailed || !strings.Contains(c.report, named) || !strings.Contains(c.report, contradicts) || strings.Contains(c.report, "all agree") {
		t.Errorf("tampered: exit %d; want 1, %q and %q:\n%s", c.want, named, contradicts, c.report)
	}
	t.Logf("validate-submission on the cluster (submission, 2 arrays of 2 tasks, 2 unsharded re-executions): %.1f s", time.Since(t0).Seconds())
}

// tamperVerdict changes one verdict of the mattools-v1-strict round-2 file
// of the submission folder dir, consistently (its property outcomes and the
// run's totals follow, so the folder stays valid without -reexecute): a
// correct question becomes partial (its last property failed), another
// scored one (the fake server's answers are not runnable) correct. It returns the file, the 1-based row and the
// question id.
func tamperVerdict(t *testing.T, dir string) (path string, row int, qid string) {
	t.Helper()
	all, _ := filepath.Glob(filepath.Join(dir, "*"+results.Extension))
	var f *results.File
	for _, p := range all {
		g, err := results.Read(p)
		if err != nil {
			t.Fatal(err)
		}
		if g.Run.ScoringProtocol == results.ProtocolMatToolsV1Strict && g.Run.Round == 2 {
			f = g
		}
	}
	if f == nil {
		t.Fatalf("%s: no mattools-v1-strict round 2 file among %v", dir, all)
	}
	for i := range f.Questions {
		q := &f.Questions[i]
		if q.Runnable == nil || q.PropertyCount == 0 {
			continue
		}
		pass := q.Verdict != string(results.VerdictCorrect)
		q.Verdict, q.VerdictCause, q.FailedProperties, *q.Runnable = string(results.VerdictCorrect), "", nil, true
		for k := range q.PropertyOutcomes {
			q.PropertyOutcomes[k].Passed, q.PropertyOutcomes[k].Message = true, ""
		}
		n := q.PropertyCount
		if !pass {
			q.Verdict = string(results.VerdictPartial)
			if len(q.PropertyOutcomes) > 0 {
				last := &q.PropertyOutcomes[n-1]
				last.Passed, last.Message = false, "tampered"
				q.FailedProperties = []string{last.Property}
			}
			n--
		}
		t.Logf("tampered with %s row %d (%s): now %s, %d of %d properties passed, %d outcomes", filepath.Base(f.Path), i+1, q.QuestionID, q.Verdict, n, q.PropertyCount, len(q.PropertyOutcomes))
		q.PropertiesPassed = &n
		tot, _ := results.Tally(f.Questions, f.Run.QuestionSet)
		f.Run.Totals.Runnable, f.Run.Totals.QuestionsCorrect, f.Run.Totals.QuestionsPartial, f.Run.Totals.PropertiesPassed =
			tot.Runnable, tot.QuestionsCorrect, tot.QuestionsPartial, tot.PropertiesPassed
		if err := results.Write(f.Path, f); err != nil {
			t.Fatal(err)
		}
		return f.Path, i + 1, q.QuestionID
	}
	t.Fatalf("%s: no runnable row with property outcomes to tamper with", f.Path)
	return "", 0, ""
}

// freePortPair returns a port p such that p and p+1 (slurmctld's and
// slurmd's) were free on every interface a moment ago, chosen at random
// below the kernel's ephemeral range (32768 and up), so that no outgoing
// connection takes it meanwhile.
func freePortPair(t *testing.T) int {
	t.Helper()
	for range 200 {
		p := 20000 + rand.IntN(12000)
		a, err := net.Listen("tcp", fmt.Sprintf(":%d", p))
		if err != nil {
			continue
		}
		b, err := net.Listen("tcp", fmt.Sprintf(":%d", p+1))
		a.Close()
		if err != nil {
			continue
		}
		b.Close()
		return p
	}
	t.Fatal("no two consecutive free ports in 20000-32000")
	return 0
}

// itemIndexes returns the index of every item line of a journal, in order.
func itemIndexes(t *testing.T, path string) []int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, l := range strings.Split(string(b), "\n") {
		var x struct {
			Kind  string `json:"kind"`
			Index int    `json:"index"`
		}
		if json.Unmarshal([]byte(l), &x) == nil && x.Kind == "item" {
			out = append(out, x.Index)
		}
	}
	return out
}

func distinct(xs []int) map[int]bool {
	m := map[int]bool{}
	for _, x := range xs {
		m[x] = true
	}
	return m
}

func lines(t *testing.T, path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

// equalDirs checks that two folders hold the same results files, equal but
// for the timings (start and finish, latencies, execution times) and the
// "resumed" warning of a run whose shard was requeued.
func equalDirs(t *testing.T, a, b string) {
	t.Helper()
	names := func(d string) []string {
		ps, _ := filepath.Glob(filepath.Join(d, "*"+results.Extension))
		for i := range ps {
			ps[i] = filepath.Base(ps[i])
		}
		return ps
	}
	na, nb := names(a), names(b)
	if len(na) == 0 || !slices.Equal(na, nb) {
		t.Fatalf("results files: %s %v, %s %v", a, na, b, nb)
	}
	equal := 0
	for _, n := range na {
		x, y := comparable(t, filepath.Join(a, n)), comparable(t, filepath.Join(b, n))
		if x != y {
			i := 0
			for i < min(len(x), len(y)) && x[i] == y[i] {
				i++
			}
			t.Errorf("%s differs between %s and %s at byte %d: %.200q, %.200q", n, a, b, i, x[max(i-80, 0):], y[max(i-80, 0):])
			continue
		}
		equal++
	}
	t.Logf("%d of %d results files equal (%s, %s; rows and verdicts, timings aside)", len(na), len(na), a, b)
}

func comparable(t *testing.T, path string) string {
	f, err := results.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	f.Run.StartedAt, f.Run.FinishedAt, f.Path = nil, nil, ""
	// A shard resumed after its requeue makes the merged run say so.
	f.Run.Warnings = slices.DeleteFunc(f.Run.Warnings, func(w string) bool { return strings.HasPrefix(w, "resumed:") })
	for i := range f.Questions {
		f.Questions[i].LatencyMS, f.Questions[i].ExecMS = nil, nil
	}
	for i := range f.QAItems {
		f.QAItems[i].LatencyMS = nil
	}
	b, _ := json.Marshal(f)
	return string(b)
}
