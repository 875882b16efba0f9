package runner

import (
	"fmt"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/results"
)

// loadBenchmark loads the questions of tool-usage benchmark b from the
// data root with the loader registered for it (datasets.RegisterLoader),
// and checks that their version is one the benchmark registry holds
// (results.RegisterBenchmark).
func loadBenchmark(b results.Benchmark, root string) (*datasets.Benchmark, error) {
	load, ok := datasets.LoaderOf(string(b))
	if !ok {
		return nil, fmt.Errorf("benchmark %s: no loader of its questions is registered", b)
	}
	bench, err := load(root)
	if err != nil {
		return nil, err
	}
	info, _ := results.LookupBenchmark(b)
	if bench.Version == "" && len(info.Versions) > 0 {
		bench.Version = info.Versions[0].ID
	}
	if _, ok := info.Version(bench.Version); !ok {
		return nil, fmt.Errorf("benchmark %s: its loader read version %q, which the benchmark registry does not list", b, bench.Version)
	}
	return bench, nil
}
