package datasets

import (
	"fmt"
	"sync"
)

// A Loader reads the questions of one tool-usage benchmark (question
// text, properties, unit test, data files) from a data root: for MatTools'
// tool usage the MatTools checkout (MATTOOLS_DATA), read by Load.
type Loader func(root string) (*Benchmark, error)

var (
	loadersMu sync.RWMutex
	// loaders maps a benchmark's name (results.Benchmark) to its loader.
	loaders = map[string]Loader{"tool-usage": Load}
)

// RegisterLoader registers the loader of the tool-usage benchmark named
// name (its results.Benchmark; the registry of results/benchmarks.go holds
// the rest of its description). A name registered already is an error.
func RegisterLoader(name string, l Loader) error {
	loadersMu.Lock()
	defer loadersMu.Unlock()
	if _, ok := loaders[name]; ok {
		return fmt.Errorf("datasets: a loader of benchmark %s is registered already", name)
	}
	loaders[name] = l
	return nil
}

// LoaderOf returns the loader registered for benchmark name; ok is false
// when there is none.
func LoaderOf(name string) (l Loader, ok bool) {
	loadersMu.RLock()
	defer loadersMu.RUnlock()
	l, ok = loaders[name]
	return l, ok
}
