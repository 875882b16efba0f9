// Command merge writes the results files of a plan run in shards
// (run-benchmark -shard i/n) from the shards' output directories: the same
// files an unsharded run of the plan writes (their start and finish times
// and the rows' latencies aside), one per run and scoring protocol, into
// -out.
//
//	run-benchmark -plan P -shard 0/4 -out build/shards/0    # on each of four machines, i = 0…3
//	merge -plan P -out build/results/runner build/shards/0 build/shards/1 build/shards/2 build/shards/3
//
// It makes no model call, executes nothing and needs no API key: the
// answers and their scored outcomes come from the shards' journals. It
// refuses, writing nothing, when a shard is missing or has not journaled
// every question it owns, or when a shard ran another plan (the SHA-256 of
// the plan file), another build of the generator, other settings, or in
// another sandbox environment (backend, limits, lock hash, library
// versions) than shard 0. A results file that exists is kept.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"text/tabwriter"

	"github.com/mattools-leaderboard/leaderboard/cmd/internal/cliflags"
	"github.com/mattools-leaderboard/leaderboard/cmd/internal/sandboxflags"
	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/runner"
	"github.com/mattools-leaderboard/leaderboard/runner/plan"
	"github.com/mattools-leaderboard/leaderboard/runner/systems"
)

const (
	exitOK     = 0
	exitFailed = 1
	exitUsage  = 2
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr, os.Getenv))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	planPath := fs.String("plan", "", "the run plan the shards ran (TOML)")
	data := cliflags.Data(fs, getenv, " the shards ran on")
	prompts := fs.String("prompts", "", "the prompt texts, as given to the shards (default <data>/prompts, or extracted from an upstream checkout)")
	promptsCache := fs.String("prompts-cache", systems.DefaultPromptsCache, "where prompt texts extracted from an upstream checkout are cached")
	python := fs.String("sandbox-python", sandboxflags.FindPython(getenv),
		"the Python used to parse an upstream checkout's prompts (never executing them)")
	lightrag := fs.String("lightrag", getenv("LIGHTRAG_DATA"), "LightRAG 1.3.3's prompt texts, for graph-rag (default $LIGHTRAG_DATA)")
	out := fs.String("out", "build/results/runner", "output directory of the results files")
	unscored := fs.Bool("unscored", false, "the shards ran with -unscored")
	verbose := fs.Bool("v", false, "log each run")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: merge -plan FILE [-data DIR] [-prompts DIR] [-out DIR] [-unscored] [-v] SHARD-OUT-DIR...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if *planPath == "" || fs.NArg() == 0 {
		fs.Usage()
		return exitUsage
	}
	if *data == "" {
		fmt.Fprintf(stderr, "merge: no data root: set %s or -data to the MatTools data the shards ran on\n", datasets.EnvVar)
		return exitUsage
	}
	p, err := plan.Load(*planPath)
	if err != nil {
		fmt.Fprintln(stderr, "merge:", err)
		return exitFailed
	}
	sum, err := runner.PlanFileSHA256(*planPath)
	if err != nil {
		fmt.Fprintln(stderr, "merge:", err)
		return exitFailed
	}
	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelInfo
	}
	opts := runner.Options{Plan: p, DataRoot: *data, PromptsDir: *prompts, PromptsCache: *promptsCache, LightRAGDir: *lightrag,
		OutDir: *out, Unscored: *unscored, PlanSHA256: sum,
		Python:       []string{filepath.Join(*python, "bin", "python"), "python3"},
		CorpusPython: filepath.Join(*python, "bin", "python3"),
		Log:          slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))}
	runs, err := runner.Merge(ctx, opts, fs.Args())
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "status\tquestions\trun\tfile")
	for _, r := range runs {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\n", r.Status, r.Done, r.RunID, r.Path)
	}
	tw.Flush()
	if err != nil {
		fmt.Fprintln(stderr, "merge:", err)
		return exitFailed
	}
	return exitOK
}

func envOr(getenv func(string) string, k, def string) string {
	if v := getenv(k); v != "" {
		return v
	}
	return def
}
