// Package paperonly holds the values that exist only in the MatTools paper
// (arXiv:2505.10852): numbers with no raw data behind them in the published
// repository. values.csv, embedded here, is the project's one committed,
// cited file of such values and the only source of leaderboard numbers that
// were not computed from results files. The site shows each of them with the
// mark Mark and never inside a computed cell.
//
// It imports only the results vocabulary.
package paperonly

import (
	"bytes"
	_ "embed"
	"encoding/csv"
	"fmt"
	"strconv"

	"github.com/mattools-leaderboard/leaderboard/results"
)

// Mark is the text shown beside every paper-only value.
const Mark = "reported in the paper, no raw data"

// File is the path of the committed file, relative to the repository root.
const File = "site/paperonly/values.csv"

//go:embed values.csv
var valuesCSV []byte

// CSV returns the committed file's bytes (offered as a download).
func CSV() []byte { return bytes.Clone(valuesCSV) }

// Value is one value reported only in the paper.
type Value struct {
	ID              string
	Benchmark       results.Benchmark
	System          results.System
	Model           string // model id, as results files name it
	RetrievalSource int    // 0 = none
	Metric          string // "function_runnable_rate", "task_success_rate" or "accuracy"
	// Percent is the value as printed in the paper, percent 0–100, with the
	// paper's two decimals kept as text in Text.
	Percent  float64
	Text     string
	ErrorBar string // the paper's error bar, as text ("" when none)
	// RawFilesGive is what the published files give for the same cell
	// ("none" when no file exists).
	RawFilesGive string
	Citation     string
	Note         string
}

// NoRawData reports whether no published file exists for the value at all
// (as opposed to a figure label that differs from the published files).
func (v Value) NoRawData() bool { return v.RawFilesGive == "none" }

// Values returns every value of values.csv in file order. The embedded file is
// checked by the package's tests, so an error here means a broken build.
func Values() []Value {
	vs, err := parse(valuesCSV)
	if err != nil {
		panic(err)
	}
	return vs
}

func parse(data []byte) ([]Value, error) {
	r := csv.NewReader(bytes.NewReader(data))
	r.Comment = '#'
	recs, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", File, err)
	}
	want := []string{"id", "benchmark", "system", "model", "retrieval_source", "metric", "value_percent", "error_bar", "raw_files_give", "citation", "note"}
	if len(recs) == 0 || fmt.Sprint(recs[0]) != fmt.Sprint(want) {
		return nil, fmt.Errorf("%s: header must be %v", File, want)
	}
	var out []Value
	for i, rec := range recs[1:] {
		row := i + 2
		src, err := strconv.Atoi(rec[4])
		if err != nil {
			return nil, fmt.Errorf("%s: row %d: retrieval_source: %w", File, row, err)
		}
		pct, err := strconv.ParseFloat(rec[6], 64)
		if err != nil {
			return nil, fmt.Errorf("%s: row %d: value_percent: %w", File, row, err)
		}
		if rec[9] == "" {
			return nil, fmt.Errorf("%s: row %d: citation: is empty", File, row)
		}
		out = append(out, Value{ID: rec[0], Benchmark: results.Benchmark(rec[1]), System: results.System(rec[2]),
			Model: rec[3], RetrievalSource: src, Metric: rec[5], Percent: pct, Text: rec[6], ErrorBar: rec[7],
			RawFilesGive: rec[8], Citation: rec[9], Note: rec[10]})
	}
	return out, nil
}
