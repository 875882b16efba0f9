// Command gen writes the synthetic results files of scripts/site-scale: N
// tool-usage runs and N/10 QA runs, each a copy of one of the imported
// MatTools runs (make import: build/results/imported) under a renamed model
// ("<model>-x<k>" for copy k = 1, 2, …), so that every
// copy is a configuration of its own. Copies keep their rows, totals and
// rounds; run ids, the rows' identity columns and a rescored run's
// derived_from follow the new model. Every file is written by results.Write
// (validated, atomic) and passes results/check.
//
//	gen -from build/results/imported -n 1000 -out build/site-scale/n1000
package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/results/check"
)

func main() {
	from := flag.String("from", "build/results/imported", "imported results files (make import)")
	n := flag.Int("n", 100, "tool-usage runs to write (plus n/10 QA runs)")
	out := flag.String("out", "", "output directory (must not exist)")
	flag.Parse()
	if err := run(*from, *n, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(from string, n int, out string) error {
	if out == "" {
		return errors.New("-out is required")
	}
	if _, err := os.Stat(out); err == nil {
		return fmt.Errorf("%s exists; remove it first", out)
	}
	files, err := results.ReadDir(from)
	if err != nil {
		return err
	}
	var tool, qa []*results.File
	for _, f := range files {
		if f.Run.Benchmark.Kind() == results.KindMultipleChoice {
			qa = append(qa, f)
		} else {
			tool = append(tool, f)
		}
	}
	if len(tool) == 0 || len(qa) == 0 {
		return fmt.Errorf("%s holds %d tool-usage and %d QA runs; run make import first", from, len(tool), len(qa))
	}
	// A run and its re-executions stay together: order by the model, system,
	// source and round they share, then the provenance.
	order := func(fs []*results.File) {
		slices.SortFunc(fs, func(a, b *results.File) int {
			x, y := &a.Run, &b.Run
			return cmp.Or(cmp.Compare(x.Model, y.Model), cmp.Compare(x.System, y.System), cmp.Compare(x.RetrievalSource, y.RetrievalSource),
				cmp.Compare(x.Round, y.Round), cmp.Compare(x.RunID, y.RunID))
		})
	}
	order(tool)
	order(qa)
	written := 0
	for _, set := range []struct {
		base []*results.File
		n    int
	}{{tool, n}, {qa, n / 10}} {
		for i := 0; i < set.n; i++ {
			base, k := set.base[i%len(set.base)], i/len(set.base)
			if err := writeCopy(base, k, out); err != nil {
				return err
			}
			written++
		}
	}
	fmt.Printf("wrote %d results files (%d tool-usage, %d QA) to %s\n", written, n, n/10, out)
	return nil
}

// rename returns the model id of copy k (0-based): no copy shares a run id
// with the imported runs, which the committed releases list.
func rename(model string, k int) string { return fmt.Sprintf("%s-x%d", model, k+1) }

// writeCopy writes copy k of base into out. base is not modified.
func writeCopy(base *results.File, k int, out string) error {
	f := &results.File{Run: base.Run, Questions: base.Questions, QAItems: base.QAItems}
	r := &f.Run
	r.Model = rename(r.Model, k)
	if r.ModelDisplayName == "" {
		r.ModelDisplayName = r.Model
	}
	r.RunID = results.MakeRunID(r)
	if d := r.Provenance.DerivedFrom; d != "" {
		// The re-executed run's id names the same model (run ids hold the model as a part of their own).
		part := "__" + base.Run.Model + "__"
		if !strings.Contains(d, part) {
			return fmt.Errorf("%s: derived_from %s does not name model %s as a part", base.Path, d, base.Run.Model)
		}
		r.Provenance.DerivedFrom = strings.Replace(d, part, "__"+r.Model+"__", 1)
	}
	f.Questions = slices.Clone(f.Questions)
	f.QAItems = slices.Clone(f.QAItems)
	if err := check.AgainstManifest(f); err != nil {
		return fmt.Errorf("%s: %w", base.Path, err)
	}
	return results.Write(filepath.Join(out, r.RunID+results.Extension), f)
}
