package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/cmd/internal/cliflags"
	"github.com/mattools-leaderboard/leaderboard/internal/atomicfile"
	"github.com/mattools-leaderboard/leaderboard/runner/plan"
)

// The commands an array can run.
const (
	cmdRun      = "run-benchmark"
	cmdRescore  = "rescore"
	cmdValidate = "validate-submission"
)

// record is DIR/slurm/submission.json: what submit wrote and submitted,
// read by resubmit and status.
type record struct {
	Command     string   `json:"command"`
	Plan        string   `json:"plan,omitempty"`
	Data        string   `json:"data,omitempty"`
	Bin         string   `json:"bin"`
	Out         string   `json:"out"`
	Shards      int      `json:"shards"`
	Models      []string `json:"models,omitempty"` // one task group per model; none: every model in each task
	Args        []string `json:"args,omitempty"`
	ArraySbatch []string `json:"array_sbatch,omitempty"`
	MergeSbatch []string `json:"merge_sbatch,omitempty"`
	ArrayJobs   []string `json:"array_jobs"` // the first submission, then each resubmission
	MergeJobs   []string `json:"merge_jobs"`
}

// tasks returns the number of array tasks.
func (r *record) tasks() int { return max(len(r.Models), 1) * r.Shards }

// taskDir returns task t's output directory.
func (r *record) taskDir(t int) string { return filepath.Join(r.Out, "tasks", strconv.Itoa(t)) }

// taskOf returns task t's model ("" when tasks run every model) and shard.
func (r *record) taskOf(t int) (model string, shard int) {
	if len(r.Models) > 0 {
		model = r.Models[t/r.Shards]
	}
	return model, t % r.Shards
}

func (r *record) path() string { return filepath.Join(r.Out, "slurm", "submission.json") }

func (r *record) save() error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(r.path(), append(b, '\n'), 0o644)
}

func loadRecord(out string) (*record, error) {
	p := filepath.Join(out, "slurm", "submission.json")
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("%w (was the array submitted with slurm submit -out %s?)", err, out)
	}
	var r record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return &r, nil
}

func submit(args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	fs := flag.NewFlagSet("slurm submit", flag.ContinueOnError)
	fs.SetOutput(stderr)
	command := fs.String("command", cmdRun, "what each task runs: run-benchmark (a plan), rescore or validate-submission (-reexecute; the arguments after --)")
	planPath := fs.String("plan", "", "the run plan (TOML), for run-benchmark")
	data := cliflags.Data(fs, getenv, "")
	out := fs.String("out", "", "the work folder: tasks/<t> (each task's output and logs), results (the merge's), slurm (scripts, job ids)")
	shards := fs.Int("shards", 0, "shards per model (run-benchmark) or in all (rescore, validate-submission)")
	perModel := fs.Bool("per-model", true, "run-benchmark: one task group per model of the plan (a server each); false: every task asks every model")
	sbatchOpts := fs.String("sbatch", "", "sbatch options of every array task, space-separated (e.g. \"--partition=gpu --gres=gpu:1 --cpus-per-task=8 --time=04:00:00 --account=ACC\")")
	mergeOpts := fs.String("merge-sbatch", "", "sbatch options of the merge job (default: -sbatch's --partition, --account and --time)")
	serverCmd := fs.String("server-cmd", "", "run-benchmark: the model server each task starts on its node, {model} and {port} replaced (e.g. \"vllm serve {model} --host 127.0.0.1 --port {port}\")")
	serverTimeout := fs.String("server-timeout", "30m", "how long a task waits for its server to list the model")
	submission := fs.String("submission", "", "run-benchmark: the author's metadata (TOML): the merge job also runs make-submission into OUT/submission")
	bin := fs.String("bin", "", "the folder holding slurm, run-benchmark, merge, rescore, validate-submission and make-submission (default: this program's folder)")
	dry := fs.Bool("dry-run", false, "print the scripts and the sbatch commands, write and submit nothing")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	extra := fs.Args()
	r := &record{Command: *command, Shards: *shards, Args: extra}
	var errs []error
	if *out == "" {
		errs = append(errs, errors.New("-out: the work folder is required"))
	}
	if *shards < 1 {
		errs = append(errs, fmt.Errorf("-shards %d: want at least 1", *shards))
	}
	var err error
	if r.Out, err = filepath.Abs(*out); err != nil {
		errs = append(errs, err)
	}
	if r.Bin, err = binDir(*bin); err != nil {
		errs = append(errs, err)
	}
	switch *command {
	case cmdRun:
		if *planPath == "" || *data == "" {
			errs = append(errs, errors.New("-plan and -data (or $MATTOOLS_DATA) are required for run-benchmark"))
			break
		}
		p, err := plan.Load(*planPath)
		if err != nil {
			errs = append(errs, err)
			break
		}
		if *shards == 1 {
			// run-benchmark -shard 0/1 is an unsharded run: it writes results
			// files, no shard journal, and the merge job would find nothing.
			errs = append(errs, errors.New("-shards 1: run-benchmark's single shard is an unsharded run, which the merge cannot read; want at least 2 shards per model"))
		}
		r.Plan, _ = filepath.Abs(*planPath)
		r.Data, _ = filepath.Abs(*data)
		if *perModel {
			for _, m := range p.Models {
				r.Models = append(r.Models, m.Name)
			}
		} else if *serverCmd != "" && len(p.Models) > 1 {
			errs = append(errs, errors.New("-server-cmd with -per-model=false: a task serves one model; the plan has several"))
		}
	case cmdRescore, cmdValidate:
		if *serverCmd != "" || *submission != "" || *planPath != "" {
			errs = append(errs, fmt.Errorf("-command %s: -plan, -server-cmd and -submission are run-benchmark's", *command))
		}
		if len(extra) == 0 {
			errs = append(errs, fmt.Errorf("-command %s: give its inputs after --", *command))
		}
		// The array sets these for each task and the merge; given after --
		// they would override them (every shard into one folder, the merge
		// finding none) after the whole array ran.
		for _, a := range flagsOf(extra) {
			if n, _ := flagName(a); n == "shard" || n == "merge" || n == "out" {
				errs = append(errs, fmt.Errorf("-command %s: %s after --: the array sets -shard and -out for each task (OUT/tasks/<t>) and -merge for the merge; leave them out", *command, a))
			}
		}
	default:
		errs = append(errs, fmt.Errorf("-command %q: want run-benchmark, rescore or validate-submission", *command))
	}
	if err := errors.Join(errs...); err != nil {
		fmt.Fprintln(stderr, "slurm submit:", err)
		return exitUsage
	}
	r.ArraySbatch = strings.Fields(*sbatchOpts)
	r.MergeSbatch = strings.Fields(*mergeOpts)
	if *mergeOpts == "" {
		for _, o := range r.ArraySbatch {
			for _, k := range []string{"--partition", "-p", "--account", "-A", "--time", "-t", "--qos"} {
				if o == k || strings.HasPrefix(o, k+"=") {
					r.MergeSbatch = append(r.MergeSbatch, o)
				}
			}
		}
	}
	array := r.arrayScript(*serverCmd, *serverTimeout)
	merge := r.mergeScript(*submission)
	arrayArgs := []string{"--parsable", fmt.Sprintf("--array=0-%d", r.tasks()-1), filepath.Join(r.Out, "slurm", "array.sh")}
	mergeArgs := []string{"--parsable", "--dependency=afterok:ARRAY_JOB_ID", "--kill-on-invalid-dep=yes", filepath.Join(r.Out, "slurm", "merge.sh")}
	if *dry {
		fmt.Fprintf(stdout, "# %d tasks: %s\n", r.tasks(), r.describeTasks())
		fmt.Fprintf(stdout, "# %s\n%s\n# %s\n%s\n", filepath.Join(r.Out, "slurm", "array.sh"), array, filepath.Join(r.Out, "slurm", "merge.sh"), merge)
		fmt.Fprintf(stdout, "sbatch %s\nsbatch %s\n", strings.Join(arrayArgs, " "), strings.Join(mergeArgs, " "))
		return exitOK
	}
	if _, err := os.Stat(r.path()); err == nil {
		fmt.Fprintf(stderr, "slurm submit: %s exists: this folder holds a submission (slurm status -out %s; slurm resubmit to run tasks again; another -out for another)\n", r.path(), r.Out)
		return exitFailed
	}
	for t := range r.tasks() {
		if err := os.MkdirAll(r.taskDir(t), 0o755); err != nil {
			fmt.Fprintln(stderr, "slurm submit:", err)
			return exitFailed
		}
	}
	if err := os.MkdirAll(filepath.Join(r.Out, "slurm"), 0o755); err != nil {
		fmt.Fprintln(stderr, "slurm submit:", err)
		return exitFailed
	}
	for name, text := range map[string]string{"array.sh": array, "merge.sh": merge} {
		if err := atomicfile.WriteFile(filepath.Join(r.Out, "slurm", name), []byte(text), 0o755); err != nil {
			fmt.Fprintln(stderr, "slurm submit:", err)
			return exitFailed
		}
	}
	id, err := sbatch(arrayArgs)
	if err != nil {
		fmt.Fprintln(stderr, "slurm submit:", err)
		return exitFailed
	}
	r.ArrayJobs = []string{id}
	mergeArgs[1] = "--dependency=afterok:" + id
	mid, err := sbatch(mergeArgs)
	if err != nil {
		r.save()
		fmt.Fprintf(stderr, "slurm submit: the array is job %s, but the merge job was refused: %v\n", id, err)
		return exitFailed
	}
	r.MergeJobs = []string{mid}
	if err := r.save(); err != nil {
		fmt.Fprintln(stderr, "slurm submit:", err)
		return exitFailed
	}
	fmt.Fprintf(stdout, "array job %s: %d tasks (%s)\n", id, r.tasks(), r.describeTasks())
	fmt.Fprintf(stdout, "merge job %s: runs when every task succeeded; %s\n", mid, r.mergeOutput())
	fmt.Fprintf(stdout, "task outputs and logs: %s/tasks/<t>/ (task.log, server.log); merge log: %s\n", r.Out, filepath.Join(r.Out, "merge.log"))
	fmt.Fprintf(stdout, "progress: %s status -out %s\n", filepath.Join(r.Bin, "slurm"), r.Out)
	return exitOK
}

// resultsDir is where the merge writes.
func (r *record) resultsDir() string { return filepath.Join(r.Out, "results") }

// mergeOutput says where the merge's output is: the results folder, or
// validate-submission's report, which writes none.
func (r *record) mergeOutput() string {
	if r.Command == cmdValidate {
		return "its report in " + filepath.Join(r.Out, "merge.log") + " (the job fails when the submission is invalid)"
	}
	return "results in " + r.resultsDir()
}

// describeTasks says how task indexes map to models and shards.
func (r *record) describeTasks() string {
	if len(r.Models) == 0 {
		return fmt.Sprintf("task t runs shard t/%d of %s", r.Shards, r.Command)
	}
	var parts []string
	for i, m := range r.Models {
		parts = append(parts, fmt.Sprintf("tasks %d-%d: %s", i*r.Shards, (i+1)*r.Shards-1, m))
	}
	return fmt.Sprintf("task t runs shard t mod %d of its model; %s", r.Shards, strings.Join(parts, "; "))
}

// arrayScript renders DIR/slurm/array.sh.
func (r *record) arrayScript(serverCmd, serverTimeout string) string {
	var b strings.Builder
	b.WriteString("#!/bin/bash\n")
	fmt.Fprintf(&b, "#SBATCH --job-name=mattools-%s\n", r.Command)
	fmt.Fprintf(&b, "#SBATCH --output=%s\n", filepath.Join(r.Out, "tasks", "%a", "task.log"))
	b.WriteString("#SBATCH --open-mode=append\n#SBATCH --requeue\n#SBATCH --signal=B:TERM@120\n")
	for _, o := range r.ArraySbatch {
		fmt.Fprintf(&b, "#SBATCH %s\n", o)
	}
	b.WriteString("# Written by slurm submit (cmd/slurm). Task $SLURM_ARRAY_TASK_ID's shard and model come from its index;\n")
	b.WriteString("# sbatch --array=K this script (or slurm resubmit) runs task K again, resuming from its journal.\n")
	a := []string{filepath.Join(r.Bin, "slurm"), "task", "-command", r.Command, "-bin", r.Bin, "-out", r.Out, "-shards", strconv.Itoa(r.Shards)}
	if r.Command == cmdRun {
		a = append(a, "-plan", r.Plan, "-data", r.Data)
		if len(r.Models) > 0 {
			a = append(a, "-models", strings.Join(r.Models, ","))
		}
		if serverCmd != "" {
			a = append(a, "-server-cmd", serverCmd, "-server-timeout", serverTimeout)
		}
	}
	if len(r.Args) > 0 {
		a = append(a, "--")
		a = append(a, r.Args...)
	}
	b.WriteString("exec " + shellJoin(a) + "\n")
	return b.String()
}

// mergeScript renders DIR/slurm/merge.sh.
func (r *record) mergeScript(metadata string) string {
	var b strings.Builder
	b.WriteString("#!/bin/bash\n")
	fmt.Fprintf(&b, "#SBATCH --job-name=mattools-%s-merge\n", r.Command)
	fmt.Fprintf(&b, "#SBATCH --output=%s\n#SBATCH --open-mode=append\n", filepath.Join(r.Out, "merge.log"))
	for _, o := range r.MergeSbatch {
		fmt.Fprintf(&b, "#SBATCH %s\n", o)
	}
	b.WriteString("# Written by slurm submit (cmd/slurm): runs once every array task succeeded.\nset -euo pipefail\n")
	dirs := make([]string, r.tasks())
	for t := range dirs {
		dirs[t] = r.taskDir(t)
	}
	var a []string
	switch r.Command {
	case cmdRun:
		a = append([]string{filepath.Join(r.Bin, "merge"), "-plan", r.Plan, "-data", r.Data, "-out", r.resultsDir()}, dirs...)
	case cmdRescore:
		a = append([]string{filepath.Join(r.Bin, "rescore"), "-merge", strings.Join(dirs, ","), "-out", r.resultsDir()}, r.Args...)
	case cmdValidate:
		a = append([]string{filepath.Join(r.Bin, "validate-submission"), "-reexecute", "-merge", strings.Join(dirs, ",")}, r.Args...)
	}
	b.WriteString(shellJoin(a) + "\n")
	if r.Command == cmdRun && metadata != "" {
		m, _ := filepath.Abs(metadata)
		b.WriteString(shellJoin([]string{filepath.Join(r.Bin, "make-submission"), "-metadata", m, "-out", filepath.Join(r.Out, "submission"), r.resultsDir()}) + "\n")
	}
	return b.String()
}

// binDir returns the folder of the programs: dir, or this program's.
func binDir(dir string) (string, error) {
	if dir == "" {
		exe, err := os.Executable()
		if err != nil {
			return "", err
		}
		dir = filepath.Dir(exe)
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	var missing []string
	for _, p := range []string{"slurm", cmdRun, "merge"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		return "", fmt.Errorf("-bin %s lacks %s: build the programs there (go build -o %s/ ./cmd/...), a folder every node reads", dir, strings.Join(missing, ", "), dir)
	}
	return dir, nil
}

// sbatch submits with args and returns the job id (--parsable's, without a cluster name).
func sbatch(args []string) (string, error) {
	cmd := exec.Command("sbatch", args...)
	var errb strings.Builder
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("sbatch %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	id, _, _ := strings.Cut(strings.TrimSpace(string(out)), ";")
	if _, err := strconv.Atoi(id); err != nil {
		return "", fmt.Errorf("sbatch %s: unexpected output %q", strings.Join(args, " "), out)
	}
	return id, nil
}

// flagName returns the name of flag argument a ("-n", "--n", "-n=v" or
// "--n=v", as package flag reads them) and whether its value is inline;
// "" when a is no flag ("-", "--", or not starting with "-").
func flagName(a string) (name string, inline bool) {
	if len(a) < 2 || a[0] != '-' || a == "--" {
		return "", false
	}
	name, _, inline = strings.Cut(strings.TrimPrefix(a[1:], "-"), "=")
	return name, inline
}

// flagsOf returns args up to a "--", where package flag stops reading flags.
func flagsOf(args []string) []string {
	if i := slices.Index(args, "--"); i >= 0 {
		return args[:i]
	}
	return args
}

// withoutFlag returns args without string flag name and its value ("-name
// V", "-name=V", or with "--"), before a "--".
func withoutFlag(args []string, name string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		if args[i] == "--" {
			return append(out, args[i:]...)
		}
		if n, inline := flagName(args[i]); n == name {
			if !inline {
				i++ // its value
			}
			continue
		}
		out = append(out, args[i])
	}
	return out
}

// shellJoin quotes args for /bin/sh.
func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if a != "" && !strings.ContainsFunc(a, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=,:@%+", r))
		}) {
			q[i] = a
			continue
		}
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}

func resubmit(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("slurm resubmit", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "the work folder of slurm submit")
	tasksFlag := fs.String("tasks", "", "the array indexes to run again, comma-separated (e.g. 2,5)")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	r, err := loadRecord(*out)
	if err != nil {
		fmt.Fprintln(stderr, "slurm resubmit:", err)
		return exitFailed
	}
	var idx []string
	for _, s := range strings.Split(*tasksFlag, ",") {
		t, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || t < 0 || t >= r.tasks() {
			fmt.Fprintf(stderr, "slurm resubmit: -tasks %q: want indexes 0…%d, comma-separated\n", *tasksFlag, r.tasks()-1)
			return exitUsage
		}
		idx = append(idx, strconv.Itoa(t))
	}
	// The tasks of earlier submissions not yet in a final state (pending,
	// running, requeued, suspended…): the new merge waits for them too, each
	// by its own id (a pending range "4-7%2" is one record of scontrol's,
	// not a job id a dependency takes).
	deps := []string{}
	for _, j := range r.ArrayJobs {
		recs, _ := showJob(j)
		for _, x := range recs {
			if finalState(x.State) {
				continue
			}
			for _, t := range expandTasks(x.Task) {
				deps = append(deps, j+"_"+strconv.Itoa(t))
			}
		}
	}
	id, err := sbatch([]string{"--parsable", "--array=" + strings.Join(idx, ","), filepath.Join(r.Out, "slurm", "array.sh")})
	if err != nil {
		fmt.Fprintln(stderr, "slurm resubmit:", err)
		return exitFailed
	}
	r.ArrayJobs = append(r.ArrayJobs, id)
	deps = append(deps, id)
	slices.Sort(deps)
	mid, err := sbatch([]string{"--parsable", "--dependency=afterok:" + strings.Join(deps, ":"), "--kill-on-invalid-dep=yes", filepath.Join(r.Out, "slurm", "merge.sh")})
	if err == nil {
		r.MergeJobs = append(r.MergeJobs, mid)
	}
	if serr := r.save(); serr != nil && err == nil {
		err = serr
	}
	if err != nil {
		fmt.Fprintln(stderr, "slurm resubmit:", err)
		return exitFailed
	}
	fmt.Fprintf(stdout, "array job %s: tasks %s again (they resume from their journals)\nmerge job %s: runs after %s\n", id, strings.Join(idx, ","), mid, strings.Join(deps, ", "))
	return exitOK
}
