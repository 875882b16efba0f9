// Command slurm runs a plan, a rescoring or a submission's re-execution on
// a Slurm cluster as a job array whose tasks are shards (runner.Shard), and
// merges them in a job that starts only when every task succeeded
// (docs/cluster.md).
//
//	slurm submit -plan P -out DIR -shards N [-sbatch "OPTS"] [-server-cmd CMD] [-submission META] [-dry-run] [-- RUN-BENCHMARK-FLAGS]
//	slurm submit -command rescore|validate-submission -out DIR -shards N [-sbatch "OPTS"] [-dry-run] -- ARGS...
//	slurm resubmit -out DIR -tasks 2[,5…]   # those array indexes again, and a merge that waits for them
//	slurm status -out DIR                    # Slurm's state of each task and its journaled questions
//	slurm task …                             # what an array task runs (written by submit)
//
// A plan runs as models × shards tasks (task t runs model t / N, shard
// t mod N; a plan's items are dealt over every model, so a task that serves
// one model runs that model's part of its shard: run-benchmark -model), each
// into DIR/tasks/<t>, its Slurm log DIR/tasks/<t>/task.log. With -server-cmd
// each task starts its model's server on its node first ({model} and {port}
// replaced; run by /bin/sh in a process group of its own, its log
// DIR/tasks/<t>/server.log), waits until that process, alive and listening on
// that port, lists the model at GET /v1/models, asks it (run-benchmark
// -base-url), and stops it at the end, on SIGTERM (Slurm's pre-emption,
// scancel, a time limit's --signal) too. The merge job runs cmd/merge into
// DIR/results and, with -submission, cmd/make-submission into
// DIR/submission. rescore and validate-submission arrays pass the ARGS
// after -- to every task and to the merge (rescore -merge into
// DIR/results; validate-submission -reexecute -merge, whose report is
// DIR/merge.log and whose failure fails the job), but validate-submission's
// -record to the merge only; -shard, -merge and -out there, which the
// array sets, are refused. The programs are those of -bin (default: this program's
// folder; build them with `go build -o build/bin/ ./cmd/...`).
//
// A task's shard comes from $SLURM_ARRAY_TASK_ID, the shard count from the
// script, so `slurm resubmit` (or sbatch --array=K DIR/slurm/array.sh) runs
// the right shard; a requeued or resubmitted task resumes from its journal.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// Exit codes.
const (
	exitOK          = 0
	exitFailed      = 1
	exitUsage       = 2
	exitInterrupted = 130
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, os.Getenv))
}

func run(args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: slurm submit|resubmit|status|task … (slurm CMD -h for its flags)")
		return exitUsage
	}
	switch args[0] {
	case "submit":
		return submit(args[1:], stdout, stderr, getenv)
	case "resubmit":
		return resubmit(args[1:], stdout, stderr)
	case "status":
		return status(args[1:], stdout, stderr, getenv)
	case "task":
		sigs := make(chan os.Signal, 4)
		signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
		return task(context.Background(), args[1:], stdout, stderr, getenv, sigs)
	}
	fmt.Fprintf(stderr, "slurm: unknown command %q: want submit, resubmit, status or task\n", args[0])
	return exitUsage
}
