package main

// The kill -9 acceptance check of the batched journal: the
// command is killed with SIGKILL at an arbitrary moment of a run, while
// answers arrive faster than the journal syncs; every question it had
// reported done (logged "journaled") is in the journal, the restart asks
// none of them again, and the results files hold every question exactly
// once, equal to an uninterrupted run's.

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/llm/llmtest"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/runner"
)

var (
	roundRE     = regexp.MustCompile(`/r(\d+)/v1/chat/completions$`)
	journaledRE = regexp.MustCompile(`msg=journaled run=\S+__r(\d+) question=(\w+)`)
)

// slowAnswer is answer after 8 ms, so that a run of 3 × 49 questions at a
// concurrency of 4 takes about 300 ms: long enough to be killed in the
// middle, with several answers arriving within one journal sync interval.
func slowAnswer(r llmtest.Request) llmtest.Reply {
	time.Sleep(8 * time.Millisecond)
	return answer(r)
}

// key of a request or journal item: round and question id.
func requestKey(r llmtest.Request) string {
	return roundRE.FindStringSubmatch(r.URL)[1] + "/" + questionRE.FindStringSubmatch(r.Prompt())[2]
}

func TestKillNineUnderTheBatchedJournalLosesAndDuplicatesNothing(t *testing.T) {
	root := mattoolstest.NewRoot(t).Dir
	srv := llmtest.New(t, llmtest.Options{Responder: slowAnswer})
	planPath := filepath.Join(t.TempDir(), "plan.toml")
	os.WriteFile(planPath, []byte(fmt.Sprintf(`rounds = 3
concurrency = 4
[[models]]
name = "fake-model"
base_url = "%s/r{round}/v1"
api_key_env = %q
timeout = "5s"
`, srv.URL, keyVar)), 0o644)
	out := t.TempDir()
	// A sync interval of 60 ms: about 30 answers arrive per interval. The
	// command is killed once 60 questions are reported done: round 1 is
	// written, round 2 is in the middle.
	args := []string{"-plan", planPath, "-data", root, "-out", out, "-unscored", "-no-progress", "-journal-sync", "60ms"}

	c, reported, answeredAtKill := killAfterReported(t, append(args, "-v"), srv, 60)
	if code := exitCode(c.Wait()); code != -int(syscall.SIGKILL) {
		t.Fatalf("first run ended with %d, want killed by SIGKILL", code)
	}
	if len(reported) < 60 || len(reported) >= 2*49 {
		t.Fatalf("%d questions reported done before the kill; want 60 ≤ n < 98 (the kill must come in round 2)", len(reported))
	}

	// Every question reported done is in a journal, once.
	journaled := map[string]int{}
	journals, _ := filepath.Glob(filepath.Join(out, runner.JournalDir, "*.jsonl"))
	if len(journals) != 2 {
		t.Fatalf("journals %v, want 2: round 1 done, round 2 killed in the middle", journals)
	}
	itemRE := regexp.MustCompile(`(?m)^\{"kind":"item","index":\d+,"id":"(\w+)".*\}$`)
	for _, j := range journals {
		round := regexp.MustCompile(`__r(\d+)\.jsonl$`).FindStringSubmatch(j)[1]
		data, _ := os.ReadFile(j)
		for _, m := range itemRE.FindAllStringSubmatch(string(data), -1) {
			journaled[round+"/"+m[1]]++
		}
	}
	for k := range reported {
		if journaled[k] != 1 {
			t.Errorf("question %s was reported done before the kill but is journaled %d times", k, journaled[k])
		}
	}
	t.Logf("at the kill: %d answers received, %d journaled, %d reported done; lost in the crash window (asked again): %d",
		answeredAtKill, len(journaled), len(reported), answeredAtKill-len(journaled))

	// Round 2's results file was being written alongside its answers: the
	// kill leaves its temporary file, which the restart removes.
	temps, _ := filepath.Glob(filepath.Join(out, ".*__r2.parquet.tmp-*"))
	if len(temps) != 1 {
		t.Errorf("temporary files of round 2 after the kill: %v; want the one being written", temps)
	}

	before := len(srv.Requests())
	c, _, stderr2 := childEnv(t, nil, args...)
	if code := exitCode(c.Wait()); code != 0 {
		t.Fatalf("resumed run exit %d\n%s", code, stderr2)
	}
	again := 0
	for _, r := range srv.Requests()[before:] {
		if journaled[requestKey(r)] > 0 {
			again++
		}
	}
	if resumed := len(srv.Requests()) - before; again != 0 || resumed != 3*49-len(journaled) {
		t.Errorf("the restart asked %d questions, %d of them journaled before the kill; want %d and 0", resumed, again, 3*49-len(journaled))
	}
	if temps, _ := filepath.Glob(filepath.Join(out, ".*.tmp-*")); len(temps) != 0 {
		t.Errorf("temporary files after the restart: %v", temps)
	}
	// The journals now hold each question exactly once, and the results
	// files every question once, equal to an uninterrupted run's rows.
	journals, _ = filepath.Glob(filepath.Join(out, runner.JournalDir, "*.jsonl"))
	if len(journals) != 3 {
		t.Errorf("journals %v after the restart, want 3", journals)
	}
	for _, j := range journals {
		data, _ := os.ReadFile(j)
		seen := map[string]int{}
		for _, m := range itemRE.FindAllStringSubmatch(string(data), -1) {
			seen[m[1]]++
		}
		for id, n := range seen {
			if n != 1 {
				t.Errorf("%s: question %s journaled %d times", filepath.Base(j), id, n)
			}
		}
		if len(seen) != 49 {
			t.Errorf("%s: %d questions journaled, want 49", filepath.Base(j), len(seen))
		}
	}
	srv2 := llmtest.New(t, llmtest.Options{Responder: answer})
	out2 := t.TempDir()
	plan2 := filepath.Join(t.TempDir(), "plan.toml")
	os.WriteFile(plan2, []byte(strings.ReplaceAll(mustRead(t, planPath), srv.URL, srv2.URL)), 0o644)
	c, _, stderr3 := childEnv(t, nil, "-plan", plan2, "-data", root, "-out", out2, "-unscored", "-no-progress")
	if code := exitCode(c.Wait()); code != 0 {
		t.Fatalf("uninterrupted run exit %d\n%s", code, stderr3)
	}
	for r := 1; r <= 3; r++ {
		name := fmt.Sprintf("runner__tool-usage__single-llm__s0__fake-model__unscored__r%d.parquet", r)
		got, want := readResults(t, filepath.Join(out, name)), readResults(t, filepath.Join(out2, name))
		if len(got.Questions) != 49 {
			t.Errorf("%s: %d rows, want 49", name, len(got.Questions))
		}
		if a, b := rowsExceptLatency(got.Questions), rowsExceptLatency(want.Questions); a != b {
			t.Errorf("%s: rows of the killed and resumed run differ from the uninterrupted run's", name)
		}
	}
}

// killAfterReported starts the command with args, reads its log, and kills
// it with SIGKILL 30 ms after n questions are reported done. It returns the
// command (to Wait for), the round/question keys reported done before the
// kill, and the number of answers the server had sent at the kill.
func killAfterReported(t *testing.T, args []string, srv *llmtest.Server, n int) (*exec.Cmd, map[string]bool, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "RUN_BENCHMARK_MAIN=1", keyVar+"="+key)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	reported := map[string]bool{}
	answered := -1
	sc := bufio.NewScanner(pipe)
	for sc.Scan() {
		if m := journaledRE.FindStringSubmatch(sc.Text()); m != nil {
			reported[m[1]+"/"+m[2]] = true
			if len(reported) >= n && answered < 0 {
				// Half a sync interval after a batch: the answers of the
				// last 30 ms are queued, not yet written.
				time.Sleep(30 * time.Millisecond)
				if err := cmd.Process.Kill(); err != nil { // SIGKILL
					t.Fatal(err)
				}
				answered = srv.Answered()
			}
		}
	}
	if answered < 0 {
		t.Fatalf("the command ended after reporting %d questions done, before the kill", len(reported))
	}
	return cmd, reported, answered
}

func readResults(t *testing.T, path string) *results.File {
	t.Helper()
	f, err := results.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
