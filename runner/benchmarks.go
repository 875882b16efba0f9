package runner

import (
	"fmt"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/results"
)

// loadBenchmark loads the questions of tool-usage benchmark b from the
// data root with the loader registered for it (datasets.RegisterLoader),
// in version version when the registry lists it as a corrected version of
// b's (plan tool_usage.benchmark_version, for MatTools' tool usage: a
// corrected version edits the loaded questions' verification,
// correctedVersion), and checks that their
// version is one the benchmark registry holds (results.RegisterBenchmark).
func loadBenchmark(b results.Benchmark, root, version string) (*datasets.Benchmark, error) {
	load, ok := datasets.LoaderOf(string(b))
	if !ok {
		return nil, fmt.Errorf("benchmark %s: no loader of its questions is registered", b)
	}
	bench, err := load(root)
	if err != nil {
		return nil, err
	}
	info, _ := results.LookupBenchmark(b)
	if v, ok := info.Version(version); ok && v.CorrectsVersion != "" { // a corrected version of b's (MatTools' tool usage has them)
		if bench, err = correctedVersion(bench, version); err != nil {
			return nil, err
		}
	}
	if bench.Version == "" && len(info.Versions) > 0 {
		bench.Version = info.Versions[0].ID
	}
	if _, ok := info.Version(bench.Version); !ok {
		return nil, fmt.Errorf("benchmark %s: its loader read version %q, which the benchmark registry does not list", b, bench.Version)
	}
	return bench, nil
}

// correctedVersion returns bench in the tool-usage benchmark version
// version: bench itself for "" or its own version, else a copy with the
// corrections of datasets/corrections.json applied.
func correctedVersion(bench *datasets.Benchmark, version string) (*datasets.Benchmark, error) {
	if version == "" || version == bench.Version || (bench.Version == "" && version == results.BenchmarkVersion2025_05) {
		return bench, nil
	}
	v, ok := datasets.LookupCorrectedVersion(version)
	if !ok {
		return nil, fmt.Errorf("tool-usage benchmark version %q: the questions loaded are version %q", version, bench.Version)
	}
	return v.Apply(bench)
}
