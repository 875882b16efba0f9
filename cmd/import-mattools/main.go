// Command import-mattools converts the results MatTools published (a checkout
// or download of github.com/Grenzlinie/MatTools) into results files: one
// Parquet file per run, provenance "imported", scoring protocol
// "mattools-original".
//
// Usage:
//
//	import-mattools [-data DIR] [-out DIR] [-skip-unknown-families]
//
// -data defaults to $MATTOOLS_DATA; -out to build/results/imported. The
// output folder ends up holding exactly the runs of this import. Malformed
// input stops the import with an error naming the file and line or cell,
// before anything is written.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"text/tabwriter"
	"time"

	"github.com/mattools-leaderboard/leaderboard/cmd/internal/cliflags"
	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/results/published"
)

// Exit codes.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

func run(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("import-mattools", flag.ContinueOnError)
	fs.SetOutput(stderr)
	data := cliflags.Data(fs, nil, " (a MatTools checkout or download)")
	out := fs.String("out", "build/results/imported", "output folder for the results files")
	skip := fs.Bool("skip-unknown-families", false, "warn about run folders of unknown result families instead of failing")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if *data == "" {
		_, err := datasets.RootFromEnv()
		fmt.Fprintln(stderr, "import-mattools:", err)
		return exitUsage
	}
	start := time.Now()
	imp, err := published.Read(*data, published.Options{SkipUnknownFamilies: *skip})
	if err != nil {
		fmt.Fprintln(stderr, "import-mattools:", err)
		return exitError
	}
	if err := imp.WriteAll(*out); err != nil {
		fmt.Fprintln(stderr, "import-mattools:", err)
		return exitError
	}
	// The imported runs' answers whose verdicts differ between the main
	// environment and the tasks environment, for the site's methodology page.
	cmpPath := filepath.Join(*out, results.EnvironmentComparisonFile)
	if c := imp.Environments; c != nil {
		if err := c.Write(cmpPath); err != nil {
			fmt.Fprintln(stderr, "import-mattools:", err)
			return exitError
		}
		fmt.Fprintf(stdout, "wrote %s: %d of %d question × protocol verdicts differ in the %s environment\n", cmpPath, len(c.Differences), c.Compared, c.Label)
	} else if err := os.Remove(cmpPath); err != nil && !errors.Is(err, os.ErrNotExist) {
		fmt.Fprintln(stderr, "import-mattools:", err)
		return exitError
	}
	for _, w := range imp.Warnings {
		fmt.Fprintln(stderr, "warning:", w)
	}
	summarize(stdout, imp)
	fmt.Fprintf(stdout, "wrote %d results files to %s in %.1fs\n", len(imp.Files), *out, time.Since(start).Seconds())
	return exitOK
}

// summarize prints, per benchmark and system, how many runs were imported
// and how many of them are scored.
func summarize(w io.Writer, imp *published.Import) {
	type key struct {
		bench  results.Benchmark
		system results.System
	}
	runs, scored := map[key]int{}, map[key]int{}
	for _, f := range imp.Files {
		k := key{f.Run.Benchmark, f.Run.System}
		runs[k]++
		if f.Run.Totals.Scored {
			scored[k]++
		}
	}
	keys := make([]key, 0, len(runs))
	for k := range runs {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].bench != keys[j].bench {
			return keys[i].bench.Order() < keys[j].bench.Order()
		}
		return slices.Index(results.Systems, keys[i].system) < slices.Index(results.Systems, keys[j].system)
	})
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "benchmark\tsystem\truns\tscored\tunscored")
	for _, k := range keys {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\n", k.bench, k.system, runs[k], scored[k], runs[k]-scored[k])
	}
	tw.Flush()
	if len(imp.Duplicates) > 0 {
		fmt.Fprintf(w, "%d duplicate run folders skipped\n", len(imp.Duplicates))
	}
}
