package plan

import (
	"fmt"
	"path/filepath"
	"sync"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/results"
)

// FolderBenchmark is one [folder_benchmarks.<name>] table of a plan.
type FolderBenchmark struct {
	// Path is the benchmark's folder: benchmark.json and
	// src/question_segments/<name>/<question>/ (question.txt,
	// properties.json, new_unit_test.py), as synth.WriteLayout writes it.
	// Environment variables are expanded; a relative path is relative to
	// the plan file.
	Path string `toml:"path"`
}

var (
	foldersMu sync.Mutex
	folders   = map[results.Benchmark]string{} // registered folder benchmarks → their folder
)

// RegisterFolder registers the benchmark in folder dir: in the benchmark
// registry (results.RegisterBenchmark) as a tool-usage benchmark of its own
// suite, its version the manifest's, its whole question set the folder's
// questions and properties, scored by the scored protocols of the default
// tool-usage benchmark (MatTools': mattools-v1, mattools-v1-strict) and
// judged under its reference protocol (results.Benchmark.Reference),
// recorded on its runs
// (results.ExtensionBenchmark); and its loader (datasets.RegisterLoader).
// Registering the same folder again is a no-op; another folder of the same
// name, a name already registered otherwise, or a folder that does not load
// is an error.
func RegisterFolder(dir string) (results.BenchmarkInfo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return results.BenchmarkInfo{}, err
	}
	b, m, err := datasets.LoadFolder(abs)
	if err != nil {
		return results.BenchmarkInfo{}, err
	}
	name := results.Benchmark(m.Name)
	title := m.Title
	if title == "" {
		title = m.Name
	}
	info := results.BenchmarkInfo{Name: name, Kind: results.KindToolUsage,
		Versions: []results.BenchmarkVersion{{ID: m.Version, Questions: len(b.Questions), Properties: b.Properties()}},
		// Scored as the default tool-usage benchmark is (not by every
		// protocol of the kind: a toy one a test registers stays its own).
		Protocols: results.ScoredProtocols(results.DefaultBenchmark(results.KindToolUsage)),
		Title:     title, Description: m.Description, Headline: "task_success_rate", Recorded: true}
	foldersMu.Lock()
	defer foldersMu.Unlock()
	if prev, ok := folders[name]; ok && prev != abs {
		return info, fmt.Errorf("benchmark %s is registered from %s already", name, prev)
	}
	if err := results.RegisterBenchmark(info); err != nil {
		return info, err
	}
	if _, ok := folders[name]; !ok {
		load := func(string) (*datasets.Benchmark, error) {
			b, _, err := datasets.LoadFolder(abs)
			return b, err
		}
		if err := datasets.RegisterLoader(string(name), load); err != nil {
			return info, err
		}
		folders[name] = abs
	}
	return info, nil
}
