package content

// The QA board's validity rows: the baselines a question set gives without
// a model and the format diagnostics of each QA configuration, both read
// from what the runner records on a QA run (results.Run.Extensions, keys
// qaaudit.ExtensionBaselines and qaaudit.ExtensionFormat; datasets/qaaudit,
// docs/qa-validity.md). Runs without them (imported, older) add nothing.

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/datasets/qaaudit"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/results/stats"
	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
)

// baselineView is one unranked baseline row of a QA table.
type baselineView struct {
	Label   string `json:"label"`
	Formula string `json:"formula"`
	// Cells are aligned with the table's columns: the baseline's accuracy
	// (%, two decimals) on the column's set, the same under the strict and
	// the lenient extraction (a baseline answers a bare letter); "" where
	// no run of the table records the set's baselines.
	Cells []string `json:"cells"`
}

// formatView is the format diagnostics of one QA configuration, summed
// over its aggregated runs.
type formatView struct {
	Model     string `json:"model"`
	ModelHref string `json:"model_href"`
	Benchmark string `json:"benchmark"` // "code" or "doc"
	Config    string `json:"config"`    // the configuration key
	Href      string `json:"href"`      // the configuration page
	Runs      int    `json:"runs"`
	Answers   int    `json:"answers"`
	// Rejected: answers MatTools' exact rule reads as no letter, "n (p %)";
	// LenientFound: of them, those the lenient rule reads as one letter.
	Rejected     string `json:"rejected"`
	LenientFound string `json:"lenient_found"`
	// ModelLetters and KeyLetters are the shares of the lenient letters
	// (with "none") and of the correct letters, e.g. "A 0.0 · B 0.0 · C 100.0 · D 0.0 · none 0.0".
	ModelLetters string `json:"model_letters"`
	KeyLetters   string `json:"key_letters"`
}

// runExtension decodes the extension key of run into v; false when the
// run has none or it does not decode.
func runExtension(r *results.Run, key string, v any) bool {
	raw, ok := r.Extensions[key]
	return ok && json.Unmarshal(raw, v) == nil
}

func setName(b results.Benchmark) string { return strings.TrimPrefix(string(b), "qa-") }

// qaBaselines returns a QA table's baseline rows (uniform guess, best
// constant letter, leak heuristic), from the baselines recorded by the
// first aggregated run of each benchmark in table order; nil when no run
// of the table records any.
func qaBaselines(t *aggregate.Table) []baselineView {
	sets, order := qaBaselineSets(t)
	if len(order) == 0 {
		return nil
	}
	per := func(f func(b *qaaudit.Baselines) string) string {
		var parts []string
		for _, bench := range []results.Benchmark{results.BenchmarkQACode, results.BenchmarkQADoc} {
			if b := sets[bench]; b != nil {
				parts = append(parts, setName(bench)+" "+f(b))
			}
		}
		return strings.Join(parts, ", ")
	}
	rows := []baselineView{
		{Label: "Uniform random guess",
			Formula: "expected accuracy of a uniformly random letter: 1/4 of the items, whatever the key",
			Cells:   cellsOf(t, sets, func(*qaaudit.Baselines) float64 { return 25 })},
		{Label: "Best constant letter (" + per(func(b *qaaudit.Baselines) string { return b.ConstantLetter }) + ")",
			Formula: "always the set's most frequent correct letter: its items / all items (" +
				per(func(b *qaaudit.Baselines) string {
					return fmt.Sprintf("%s %d/%d", b.ConstantLetter, b.ConstantCorrect, b.Questions)
				}) + ")",
			Cells: cellsOf(t, sets, func(b *qaaudit.Baselines) float64 { return stats.Percent(b.ConstantCorrect, b.Questions) })},
		{Label: "Leak heuristic",
			Formula: "the only choice whose text (3 characters or more) appears in the question as a whole word outside [MASK], " +
				"else the best constant letter: items so answered correctly / all items (" +
				per(func(b *qaaudit.Baselines) string { return fmt.Sprintf("%d/%d", b.LeakCorrect, b.Questions) }) + ")",
			Cells: cellsOf(t, sets, func(b *qaaudit.Baselines) float64 { return stats.Percent(b.LeakCorrect, b.Questions) })},
	}
	return rows
}

// qaBaselineSets returns the baselines of a QA table's sets, by benchmark,
// from the first aggregated run of each benchmark in table order that
// records them, and the benchmarks found in that order.
func qaBaselineSets(t *aggregate.Table) (map[results.Benchmark]*qaaudit.Baselines, []results.Benchmark) {
	sets := map[results.Benchmark]*qaaudit.Baselines{}
	var order []results.Benchmark
	for _, row := range t.Rows {
		for _, c := range row.Configurations {
			if sets[c.Key.Benchmark] != nil {
				continue
			}
			for _, r := range c.RunsWith(aggregate.StatusAggregated) {
				var b qaaudit.Baselines
				if runExtension(&r.File.Run, qaaudit.ExtensionBaselines, &b) && b.Questions > 0 {
					sets[c.Key.Benchmark] = &b
					order = append(order, c.Key.Benchmark)
					break
				}
			}
		}
	}
	return sets, order
}

// BaselinesCSV returns a QA table's baselines as CSV, nil when no run of
// the table records them: one line per set and baseline, with header
// table,benchmark,question_set,baseline,letter,correct,questions,percent.
// The uniform guess's correct is the expected count questions / 4;
// percentages have 4 decimals.
func BaselinesCSV(t *aggregate.Table) []byte {
	sets, _ := qaBaselineSets(t)
	if len(sets) == 0 {
		return nil
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write([]string{"table", "benchmark", "benchmark_version", "question_set", "baseline", "letter", "correct", "questions", "percent"})
	f4 := func(x float64) string { return strconv.FormatFloat(x, 'f', 4, 64) }
	for _, bench := range []results.Benchmark{results.BenchmarkQACode, results.BenchmarkQADoc} {
		b := sets[bench]
		if b == nil {
			continue
		}
		n := strconv.Itoa(b.Questions)
		row := func(name, letter, correct string, pct float64) {
			w.Write([]string{t.ID, string(bench), t.BenchmarkVersion, t.QuestionSet, name, letter, correct, n, f4(pct)})
		}
		row("uniform-guess", "", strconv.FormatFloat(float64(b.Questions)/4, 'f', -1, 64), 25)
		row("constant-letter", b.ConstantLetter, strconv.Itoa(b.ConstantCorrect), stats.Percent(b.ConstantCorrect, b.Questions))
		row("leak-heuristic", "", strconv.Itoa(b.LeakCorrect), stats.Percent(b.LeakCorrect, b.Questions))
	}
	w.Flush()
	return buf.Bytes()
}

func cellsOf(t *aggregate.Table, sets map[results.Benchmark]*qaaudit.Baselines, f func(*qaaudit.Baselines) float64) []string {
	cells := make([]string, len(t.Columns))
	for i, col := range t.Columns {
		if b := sets[col.Benchmark]; b != nil {
			cells[i] = fmtPct(f(b))
		}
	}
	return cells
}

// qaFormats returns the format diagnostics of the QA configurations among
// confs whose aggregated runs record them (summed over those runs), in
// the given order.
func (v *views) qaFormats(confs []*aggregate.Configuration) []formatView {
	var out []formatView
	for _, c := range confs {
		if !c.Key.Benchmark.IsQA() {
			continue
		}
		var sum qaaudit.Format
		runs := 0
		for _, r := range c.RunsWith(aggregate.StatusAggregated) {
			var f qaaudit.Format
			if !runExtension(&r.File.Run, qaaudit.ExtensionFormat, &f) {
				continue
			}
			runs++
			sum.Answers += f.Answers
			sum.StrictRejected += f.StrictRejected
			sum.LenientFound += f.LenientFound
			for i := range f.ModelLetters {
				sum.ModelLetters[i] += f.ModelLetters[i]
			}
			for i := range f.KeyLetters {
				sum.KeyLetters[i] += f.KeyLetters[i]
			}
		}
		if runs == 0 || sum.Answers == 0 {
			continue
		}
		share := func(k int) string { return fmt.Sprintf("%d (%.1f %%)", k, stats.Percent(k, sum.Answers)) }
		letters := func(counts []int, names []string) string {
			var parts []string
			for i, n := range counts {
				parts = append(parts, fmt.Sprintf("%s %.1f", names[i], stats.Percent(n, sum.Answers)))
			}
			return strings.Join(parts, " · ")
		}
		out = append(out, formatView{Model: c.Model.DisplayName, ModelHref: v.modelHref(c.Key.Model), Benchmark: setName(c.Key.Benchmark),
			Config: c.Key.String(), Href: confHref(c), Runs: runs, Answers: sum.Answers,
			Rejected: share(sum.StrictRejected), LenientFound: share(sum.LenientFound),
			ModelLetters: letters(sum.ModelLetters[:], []string{"A", "B", "C", "D", "none"}),
			KeyLetters:   letters(sum.KeyLetters[:], []string{"A", "B", "C", "D"})})
	}
	return out
}

// tableConfigurations returns the configurations of a table's rows, in row order.
func tableConfigurations(t *aggregate.Table) []*aggregate.Configuration {
	var out []*aggregate.Configuration
	for _, row := range t.Rows {
		if !row.Reference {
			out = append(out, row.Configurations...)
		}
	}
	return out
}
