// Command make-submission turns the results files of run-benchmark (one
// configuration: rounds 1–3 under each scoring protocol it scored) and the
// author's metadata into a submission folder that validate-submission
// accepts (SUBMITTING.md, "From a run-benchmark run to a submission";
// results/submission.FromRuns).
//
//	make-submission -metadata author.toml [-out submissions] RUNS...
//
// RUNS are results files or directories (run-benchmark's -out; only their
// *.parquet files are read, journals and locks are left alone). The metadata
// file has the fields of submission.toml (results/submission.Metadata); the
// fields the runs already say may be left out and are taken from them:
// model, benchmark, system, retrieval_source, system_params, and date
// (default: today, UTC). Fields that are given also select the runs, so a
// run-benchmark output directory of several configurations can be narrowed
// to one (e.g. model = "qwen2.5-coder-7b"); a given field that no run has is
// an error.
//
// The command writes OUT/<date>_<org>_<model>_<system>/: the complete
// submission.toml, then every run again with provenance "submitted" (the
// folder and the SHA-256 of submission.toml) and its run id in the
// submission's namespace ("submitted__<folder>__…", results.MakeRunID); the
// rows, verdicts and totals are the runner's, unchanged. It builds the
// folder in a temporary directory under OUT, checks it as validate-submission
// does without -reexecute (results/submission.Load), and only then renames
// it into place, so OUT never holds a partial or invalid folder. An existing
// folder is never replaced.
//
// Exit status: 0 written, 1 invalid input (one problem per line: "file:row
// N: field: message"), 2 usage.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/results/submission"
)

const (
	exitOK      = 0
	exitInvalid = 1
	exitUsage   = 2
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, time.Now))
}

func run(args []string, stdout, stderr io.Writer, now func() time.Time) int {
	fs := flag.NewFlagSet("make-submission", flag.ContinueOnError)
	fs.SetOutput(stderr)
	metaPath := fs.String("metadata", "", "the author's metadata: a TOML file with the fields of submission.toml (SUBMITTING.md §2); fields the runs say may be left out")
	out := fs.String("out", "submissions", "the submissions root: the folder is written as OUT/<date>_<org>_<model>_<system>")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: make-submission -metadata author.toml [-out submissions] RUNS...\n\nRUNS are run-benchmark results files or output directories.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if *metaPath == "" || fs.NArg() == 0 {
		fs.Usage()
		return exitUsage
	}
	runs, err := readRuns(fs.Args())
	if err != nil {
		fmt.Fprintln(stderr, "make-submission:", err)
		return exitInvalid
	}
	folder, n, err := submission.FromRuns(*metaPath, runs, *out, now().UTC())
	if err != nil {
		fmt.Fprintln(stderr, "make-submission:", err)
		return exitInvalid
	}
	dir := filepath.Join(*out, folder)
	fmt.Fprintf(stdout, "wrote %s: %s and %d results files (provenance submitted, run ids %s…)\n", dir, submission.MetadataFile, n, submission.Namespace(folder))
	folderFlag := ""
	if info, ok := results.LookupBenchmark(runs[0].Run.Benchmark); ok && info.Recorded {
		// A folder benchmark's questions are re-executed from its folder.
		folderFlag = "-benchmark-folder <the benchmark's folder> "
	}
	fmt.Fprintf(stdout, "check it, re-executing every answer in the sandbox:\n  go run ./cmd/validate-submission -reexecute %s%s\n", folderFlag, dir)
	return exitOK
}

// readRuns reads the results files named, and those directly in the
// directories named.
func readRuns(inputs []string) ([]*results.File, error) {
	var paths []string
	for _, in := range inputs {
		info, err := os.Stat(in)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			paths = append(paths, in)
			continue
		}
		ps, err := filepath.Glob(filepath.Join(in, "*"+results.Extension))
		if err != nil {
			return nil, err
		}
		if len(ps) == 0 {
			return nil, fmt.Errorf("%s: no results files (*%s); give run-benchmark's -out directory or its files", in, results.Extension)
		}
		paths = append(paths, ps...)
	}
	var files []*results.File
	for _, p := range paths {
		f, err := results.Read(p)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}
