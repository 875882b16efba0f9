// Command audit checks the tool-usage benchmark itself: it runs every
// question's reference solution (benchmarks/mattools-tool-usage/reference,
// one <question>.py each) in the sandbox under mattools-v1 and
// mattools-v1-strict, three negative controls per question that must fail
// every property (every value None; every value of a wrong type; every
// value True), and a static probe of every question's verification, data
// or not: the question's own expected values (from its new_unit_test.py)
// must pass, a different value of the same type and the type's zero must
// fail. It flags the checks that can never pass or that pass what they
// should not, records each reference's wall and CPU time, and prints a
// per-question table that ends with one line per protocol:
//
//	reference: P of N properties passed under PROTOCOL (Q of M questions executed)
//
// N counts the properties of the questions whose data files are present
// (the others are listed as data-missing and not executed). It writes
// -out/audit.json (the table, the flags and the times) and, in
// -out/results, results files (format v3, provenance audit) of the
// reference solution and the trivial baselines (all True, all None) under
// each protocol, so that the leaderboard can show them.
//
//	audit [flags]
//
// Every scored item is cached in -out/.cache, keyed on its code, the
// question's unit test, the scoring harness, the sandbox environment and
// the limits: a rerun (or a run interrupted and started again) executes
// only what changed; -force executes everything again. The audit itself
// is package runner/audit; see docs/benchmark-audit.md.
//
// Any registered tool-usage benchmark is audited the same way: MatTools'
// own by default, a folder benchmark with -benchmark-folder DIR
// (docs/runner.md, "Folder benchmarks"), whose reference solutions and
// diagnoses are then DIR/reference and DIR/diagnoses.csv unless -reference
// and -diagnoses say otherwise (absent: none), and whose questions are read
// from the folder (the data root still gives the sandbox its data files).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/mattools-leaderboard/leaderboard/cmd/internal/cliflags"
	"github.com/mattools-leaderboard/leaderboard/cmd/internal/sandboxflags"
	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/runner/audit"
	"github.com/mattools-leaderboard/leaderboard/runner/plan"
	"github.com/mattools-leaderboard/leaderboard/sandbox"
)

// Exit codes.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

// DefaultReference is the reference solutions' folder, relative to the
// repository root (make audit runs there).
const DefaultReference = "benchmarks/mattools-tool-usage/reference"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("audit", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c audit.Config
	var sb sandboxflags.Sandbox
	var only string
	cliflags.DataVar(fs, &c.Data, nil, "")
	fs.StringVar(&c.Reference, "reference", DefaultReference, "folder of the reference solutions, one <question>.py each")
	fs.StringVar(&c.Diagnoses, "diagnoses", "benchmarks/mattools-tool-usage/diagnoses.csv", "the diagnoses of the properties the reference fails (question,property,category,evidence); absent: none")
	fs.StringVar(&c.Out, "out", "build/audit", "output folder: audit.json, results/, .cache/")
	fs.StringVar(&c.Publish, "publish", "", "also copy the results files into this folder, replacing the audit's earlier results files there of the same benchmark and version (the committed copy the site reads: benchmarks/mattools-tool-usage/audit)")
	fs.StringVar(&c.Version, "benchmark-version", "", "the tool-usage benchmark version whose verification scores the references: 2025-05 (the default) or a corrected version (datasets/corrections.json); its results files are that version's")
	// Generous limits: the audit measures how long a correct solution takes.
	sb.Register(fs, nil, sandbox.Limits{Wall: 20 * time.Minute, CPU: 20 * time.Minute}, "generous: the audit measures the references' times",
		"run every execution in a fresh interpreter (CPU times are then not measured)")
	fs.StringVar(&only, "questions", "", "comma-separated question ids to audit (default: all 49)")
	fs.BoolVar(&c.Force, "force", false, "execute every item again instead of reading the cache")
	fs.BoolVar(&c.Quiet, "quiet", false, "no progress bar")
	folder := fs.String("benchmark-folder", "", "audit the folder benchmark in `DIR` (benchmark.json; docs/runner.md#folder-benchmarks) instead of MatTools' tool-usage benchmark")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if *folder != "" {
		info, err := plan.RegisterFolder(*folder)
		if err != nil {
			fmt.Fprintln(stderr, "audit: -benchmark-folder:", err)
			return exitUsage
		}
		c.Benchmark = info.Name
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		if !set["reference"] {
			c.Reference = filepath.Join(*folder, "reference")
		}
		if !set["diagnoses"] {
			c.Diagnoses = filepath.Join(*folder, "diagnoses.csv")
		}
	}
	if fs.NArg() != 0 {
		fmt.Fprintln(stderr, "usage: audit [flags]")
		fs.PrintDefaults()
		return exitUsage
	}
	if only != "" {
		for _, id := range strings.Split(only, ",") {
			c.Only = append(c.Only, strings.TrimSpace(id))
		}
	}
	if c.Data == "" {
		_, err := datasets.RootFromEnv()
		fmt.Fprintln(stderr, "audit:", err)
		return exitUsage
	}
	c.Open, c.Limits, c.Cold = sb.Open, sb.Limits, sb.Cold
	if err := audit.Run(ctx, c, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "audit:", err)
		return exitError
	}
	return exitOK
}
