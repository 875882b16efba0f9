// Command loadagg is the project's side of scripts/site-scale: it loads
// every results file under -results as build-site does and aggregates them
// (site/aggregate.BuildRows, with site.LoadResults' compact rows), then
// prints one CSV line per configuration and metric: benchmark, system,
// retrieval source, model, scoring protocol, question set, provenance,
// metric, n, mean and population std (percent, 17 significant digits),
// sorted, for comparison with DuckDB's (duckdb.py).
//
//	loadagg -results DIR [-reader site|full] > project.csv
//
// -reader full reads every file whole (results.ReadDirReport: every column
// and row decoded and kept), as build-site once did; site (the
// default) is build-site's reader (site.LoadResults).
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/results/check"
	"github.com/mattools-leaderboard/leaderboard/site"
	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
)

func main() {
	dir := flag.String("results", "", "results directory")
	reader := flag.String("reader", "site", "site (build-site's reader) or full (every column and row, as build-site once read them)")
	profile := flag.String("cpuprofile", "", "write a CPU profile to `file`")
	memprofile := flag.String("memprofile", "", "write a heap profile to `file` after aggregating (all loaded data still live)")
	flag.Parse()
	if *profile != "" {
		f, err := os.Create(*profile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "loadagg:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	if err := run(*dir, *reader, *memprofile); err != nil {
		fmt.Fprintln(os.Stderr, "loadagg:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

func run(dir, reader, memprofile string) error {
	var files []*results.File
	var rows map[string][]results.SummaryRow // nil: the files' own rows
	switch reader {
	case "full":
		all, invalid, err := results.ReadDirReport(dir)
		if err != nil {
			return err
		}
		if len(invalid) > 0 {
			return invalid[0].Err
		}
		for _, f := range all {
			if err := check.AgainstManifest(f); err != nil {
				return fmt.Errorf("%s: %w", f.Path, err)
			}
		}
		files = all
	case "site":
		loaded, err := site.LoadResults(dir)
		if err != nil {
			return err
		}
		if len(loaded.Invalid) > 0 {
			return loaded.Invalid[0].Err
		}
		files, rows = loaded.Files, loaded.Rows
	default:
		return fmt.Errorf("-reader %q: want site or full", reader)
	}
	lb := aggregate.BuildRows(files, rows, aggregate.DefaultCatalog())
	var lines []string
	for _, c := range lb.Configurations {
		k := c.Key
		for _, m := range c.Metrics() {
			s := c.Summaries[m]
			lines = append(lines, strings.Join([]string{string(k.Benchmark), string(k.System), strconv.Itoa(k.RetrievalSource), k.Model,
				k.ScoringProtocol, k.QuestionSet, k.Provenance, string(m), strconv.Itoa(s.N),
				strconv.FormatFloat(s.Mean, 'g', 17, 64), strconv.FormatFloat(s.PopStd, 'g', 17, 64)}, ","))
		}
	}
	slices.Sort(lines)
	fmt.Println("benchmark,system,retrieval_source,model,scoring_protocol,question_set,provenance,metric,n,mean,pop_std")
	for _, l := range lines {
		fmt.Println(l)
	}
	if memprofile != "" {
		f, err := os.Create(memprofile)
		if err != nil {
			return err
		}
		runtime.GC()
		err = pprof.WriteHeapProfile(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	runtime.KeepAlive(files)
	runtime.KeepAlive(rows)
	fmt.Fprintf(os.Stderr, "loadagg: %d runs, %d configurations\n", len(files), len(lb.Configurations))
	return nil
}
