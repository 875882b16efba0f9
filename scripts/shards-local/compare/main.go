// Command compare checks that two directories hold the same results files
// (scripts/shards-local.sh: a merged sharded run and an unsharded run): the
// same file names, and in each pair the same run record and rows except the
// timings, which differ between two runs of the same answers: the run's
// start and finish times, the rows' model latency and sandbox execution
// time. It prints one line per file and
// exits 1 on any difference.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/mattools-leaderboard/leaderboard/results"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: compare DIR-A DIR-B")
		os.Exit(2)
	}
	a, b := names(os.Args[1]), names(os.Args[2])
	if !slices.Equal(a, b) || len(a) == 0 {
		fmt.Printf("different files:\n  %s: %v\n  %s: %v\n", os.Args[1], a, os.Args[2], b)
		os.Exit(1)
	}
	bad := 0
	for _, n := range a {
		x, y := comparable(filepath.Join(os.Args[1], n)), comparable(filepath.Join(os.Args[2], n))
		if x != y {
			bad++
			fmt.Println("DIFFERENT", n)
			continue
		}
		fmt.Println("equal    ", n)
	}
	fmt.Printf("%d of %d results files equal (times, latencies and execution times aside)\n", len(a)-bad, len(a))
	if bad > 0 {
		os.Exit(1)
	}
}

func names(dir string) []string {
	paths, _ := filepath.Glob(filepath.Join(dir, "*"+results.Extension))
	var out []string
	for _, p := range paths {
		out = append(out, filepath.Base(p))
	}
	slices.Sort(out)
	return out
}

func comparable(path string) string {
	f, err := results.Read(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "compare:", err)
		os.Exit(1)
	}
	f.Run.StartedAt, f.Run.FinishedAt, f.Path = nil, nil, ""
	for i := range f.Questions {
		f.Questions[i].LatencyMS, f.Questions[i].ExecMS = nil, nil
	}
	for i := range f.QAItems {
		f.QAItems[i].LatencyMS = nil
	}
	b, err := json.Marshal(f)
	if err != nil {
		fmt.Fprintln(os.Stderr, "compare:", err)
		os.Exit(1)
	}
	return string(b)
}
