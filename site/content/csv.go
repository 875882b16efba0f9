package content

import (
	"bytes"
	"encoding/csv"
	"strconv"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
)

// TableCSVHeader is the header of every leaderboard table download.
var TableCSVHeader = []string{"table", "benchmark", "benchmark_version", "scoring_protocol", "question_set", "provenance",
	"system", "retrieval_source", "model", "display_name", "metric", "n", "mean_percent", "pop_std_percent",
	"sample_std_percent", "rounds", "round_counts", "round_totals", "round_percents", "configuration", "reference",
	"clusters", "ci95q_lo", "ci95q_hi"}

// TableCSV returns a leaderboard table as CSV: one line per computed cell
// (row × metric), in the table's row order, with the per-round counts behind
// it. Percentages have 4 decimals; per-round lists are separated by ";";
// the sample std is empty for a cell of one round.
// Column reference is "true" for a reference row of an advanced-systems
// table (aggregate.Row.Reference: an LLM-RAG configuration shown for
// comparison), "false" otherwise.
// Then, computed by the current code (never frozen in a release's numbers
// manifest), the 95 % interval over questions and rounds (tool usage) or
// over items and rounds (QA) (aggregate.Configuration.QIntervals, percent,
// 4 decimals) and its clusters, the questions or items; empty, with
// clusters 0, where none exists (totals only).
// Paper-only values are never in it (they are in paper-only-values.csv).
// Untrusted text (model names) is defused against spreadsheet formulas.
func TableCSV(t *aggregate.Table) []byte {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write(TableCSVHeader)
	f4 := func(x float64) string { return strconv.FormatFloat(x, 'f', 4, 64) }
	for _, r := range t.Rows {
		for _, c := range r.Cells {
			if c == nil {
				continue
			}
			k := c.Configuration.Key
			var rounds, counts, totals, pcts []string
			for i, run := range c.Configuration.RunsWith(aggregate.StatusAggregated) {
				v := c.Rounds[i]
				rounds = append(rounds, strconv.Itoa(run.Round()))
				counts = append(counts, strconv.Itoa(v.Count))
				totals = append(totals, strconv.Itoa(v.Total))
				pcts = append(pcts, f4(v.Percent))
			}
			qn, qlo, qhi := "0", "", ""
			if c.QInterval.N > 1 {
				qn, qlo, qhi = strconv.Itoa(c.QInterval.N), f4(c.QInterval.Lo), f4(c.QInterval.Hi)
			}
			w.Write([]string{t.ID, string(k.Benchmark), k.BenchmarkVersion, k.ScoringProtocol, k.QuestionSet, string(k.Provenance),
				string(k.System), strconv.Itoa(k.RetrievalSource), csvSafe(k.Model), csvSafe(r.Model.DisplayName), string(c.Metric),
				strconv.Itoa(c.Summary.N), f4(c.Summary.Mean), f4(c.Summary.PopStd), sampleStd(c),
				strings.Join(rounds, ";"), strings.Join(counts, ";"), strings.Join(totals, ";"), strings.Join(pcts, ";"), csvSafe(k.String()), strconv.FormatBool(r.Reference),
				qn, qlo, qhi})
		}
	}
	w.Flush()
	return buf.Bytes()
}

// sampleStd is a cell's sample standard deviation (percent, 4 decimals),
// "" when it has one round (divisor n − 1 = 0: undefined, as NumPy's nan).
func sampleStd(c *aggregate.Cell) string {
	if c.Summary.N < 2 {
		return ""
	}
	return strconv.FormatFloat(c.Summary.SampleStd, 'f', 4, 64)
}

// csvSafe defuses text that a spreadsheet would run as a formula: a leading
// = + - @ tab or carriage return gets a leading apostrophe.
func csvSafe(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}
