package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/mattools-leaderboard/leaderboard/runner"
	"github.com/mattools-leaderboard/leaderboard/runner/plan"
)

// jobRecord is one line of `scontrol show job -o`: a job, an array task or
// a pending range of array tasks.
type jobRecord struct {
	ID, ArrayJob, Task, State, Reason, ExitCode string
}

// showJob returns Slurm's records of job id (an array: one per task, or
// per pending range); none once Slurm has forgotten the job (MinJobAge).
func showJob(id string) ([]jobRecord, error) {
	out, err := exec.Command("scontrol", "show", "job", "-o", id).Output()
	if err != nil {
		return nil, fmt.Errorf("scontrol show job %s: %w", id, err)
	}
	var recs []jobRecord
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := map[string]string{}
		for _, kv := range strings.Fields(line) {
			k, v, _ := strings.Cut(kv, "=")
			if _, dup := f[k]; !dup {
				f[k] = v
			}
		}
		if f["JobId"] == "" {
			continue
		}
		recs = append(recs, jobRecord{ID: f["JobId"], ArrayJob: f["ArrayJobId"], Task: f["ArrayTaskId"], State: f["JobState"], Reason: f["Reason"], ExitCode: f["ExitCode"]})
	}
	return recs, nil
}

// failedStates are the final states of a task that did not succeed: each
// keeps an afterok merge from ever running (--kill-on-invalid-dep cancels
// it), so status names the task and resubmit runs it again. A cancelled
// task (scancel of one index, a pre-emption without requeue) is one too.
var failedStates = []string{"FAILED", "TIMEOUT", "OUT_OF_MEMORY", "NODE_FAIL", "CANCELLED", "PREEMPTED", "BOOT_FAIL", "DEADLINE"}

// finalState reports whether a job in state s will not run again by itself.
func finalState(s string) bool { return s == "COMPLETED" || slices.Contains(failedStates, s) }

// expandTasks expands an ArrayTaskId ("3", "1-3", "0,2-3%2") to indexes.
func expandTasks(s string) []int {
	s, _, _ = strings.Cut(s, "%")
	var out []int
	for _, part := range strings.Split(s, ",") {
		a, b, rng := strings.Cut(part, "-")
		i, err := strconv.Atoi(a)
		if err != nil {
			continue
		}
		j := i
		if rng {
			if j, err = strconv.Atoi(b); err != nil {
				continue
			}
		}
		for k := i; k <= j; k++ {
			out = append(out, k)
		}
	}
	return out
}

func status(args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	fs := flag.NewFlagSet("slurm status", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "the work folder of slurm submit")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	r, err := loadRecord(*out)
	if err != nil {
		fmt.Fprintln(stderr, "slurm status:", err)
		return exitFailed
	}
	// Each task's state: from the latest submission that holds it.
	state := map[int]jobRecord{}
	for _, j := range r.ArrayJobs {
		recs, err := showJob(j)
		if err != nil {
			fmt.Fprintln(stderr, "slurm status:", err)
		}
		for _, x := range recs {
			for _, t := range expandTasks(x.Task) {
				state[t] = x
			}
		}
	}
	var p *plan.Plan
	if r.Command == cmdRun {
		if p, err = plan.Load(r.Plan); err != nil {
			fmt.Fprintln(stderr, "slurm status:", err)
			return exitFailed
		}
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "task\tmodel\tshard\tjob\tstate\texit\tjournaled\tlog")
	var failed []string
	for t := range r.tasks() {
		model, shard := r.taskOf(t)
		x, ok := state[t]
		job, st, exit := "-", "unknown (Slurm forgot it: MinJobAge)", "-"
		if ok {
			job, st, exit = x.ArrayJob+"_"+strconv.Itoa(t), x.State, x.ExitCode
			if x.Reason != "" && x.Reason != "None" {
				st += " (" + x.Reason + ")"
			}
		}
		log := filepath.Join(r.taskDir(t), "task.log")
		if ok && slices.Contains(failedStates, x.State) {
			failed = append(failed, fmt.Sprintf("task %d (%sshard %d/%d) %s, exit %s: see %s:\n%s", t, modelPart(model), shard, r.Shards, x.State, x.ExitCode, log, tail(log, 3)))
		}
		fmt.Fprintf(tw, "%d\t%s\t%d/%d\t%s\t%s\t%s\t%s\t%s\n", t, envOr(model, "all"), shard, r.Shards, job, st, exit, journaled(r, p, t, getenv), log)
	}
	tw.Flush()
	lastMerge := ""
	for i, j := range r.MergeJobs {
		recs, _ := showJob(j)
		st := "unknown (Slurm forgot it: MinJobAge)"
		if len(recs) > 0 {
			st = recs[0].State
			if i == len(r.MergeJobs)-1 {
				lastMerge = recs[0].State
			}
			if recs[0].Reason != "" && recs[0].Reason != "None" {
				st += " (" + recs[0].Reason + ")"
			}
		}
		fmt.Fprintf(stdout, "merge job %s: %s", j, st)
		if i == len(r.MergeJobs)-1 {
			fmt.Fprintf(stdout, "; %s, log %s", r.mergeOutput(), filepath.Join(r.Out, "merge.log"))
		}
		fmt.Fprintln(stdout)
	}
	if len(failed) > 0 {
		fmt.Fprintf(stdout, "failed, so the merge never runs:\n  %s\n", strings.Join(failed, "\n  "))
		var idx []string
		for t := range r.tasks() {
			if x, ok := state[t]; ok && slices.Contains(failedStates, x.State) {
				idx = append(idx, strconv.Itoa(t))
			}
		}
		fmt.Fprintf(stdout, "when fixed: %s resubmit -out %s -tasks %s\n", filepath.Join(r.Bin, "slurm"), r.Out, strings.Join(idx, ","))
		return exitFailed
	}
	if slices.Contains(failedStates, lastMerge) {
		// Every task succeeded but the merge did not: a shard's results
		// that do not merge, or validate-submission's verdict (exit 1: the
		// submission is invalid), which its report gives.
		log := filepath.Join(r.Out, "merge.log")
		fmt.Fprintf(stdout, "the merge %s: see %s:\n%s\n", lastMerge, log, tail(log, 3))
		return exitFailed
	}
	return exitOK
}

func modelPart(model string) string {
	if model == "" {
		return ""
	}
	return "model " + model + ", "
}

// journaled returns "done/total" questions of task t from its journals
// (run-benchmark: the plan's counts for its shard and model, as a dry run
// computes them), or the number of items its journals hold.
func journaled(r *record, p *plan.Plan, t int, getenv func(string) string) string {
	model, shard := r.taskOf(t)
	if p != nil {
		o := runner.Options{Plan: p, DataRoot: r.Data, OutDir: r.taskDir(t), Shard: runner.Shard{Index: shard, Count: r.Shards}, Unscored: slices.Contains(r.Args, "-unscored")}
		if r.Shards == 1 {
			o.Shard = runner.Shard{}
		}
		if model != "" {
			o.Models = []string{model}
		}
		if ests, err := runner.EstimatePlan(o); err == nil {
			done, total := 0, 0
			for _, e := range ests {
				done += e.Done
				total += e.Questions
			}
			return fmt.Sprintf("%d/%d", done, total)
		}
	}
	js, _ := filepath.Glob(filepath.Join(r.taskDir(t), runner.JournalDir, "*.jsonl"))
	n := 0
	for _, j := range js {
		b, err := os.ReadFile(j)
		if err == nil {
			n += strings.Count(string(b), `"kind":"item"`)
		}
	}
	return strconv.Itoa(n)
}
