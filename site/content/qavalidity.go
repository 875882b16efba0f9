package content

// The QA board's validity rows: the baselines a question set gives without
// a model, the caption of a variant table and the format diagnostics of
// each QA configuration, read from what the runner records on a QA run
// (results.Run.Extensions, keys qaaudit.ExtensionBaselines,
// qaaudit.ExtensionVariant and qaaudit.ExtensionFormat; datasets/qaaudit,
// docs/qa-validity.md) and the importer on an imported run of a whole set
// when the data root holds the set (qaaudit.ExtensionBaselines only). Runs
// without them (imported without the sets, older) add nothing; a table
// without baselines gets a note saying why (qaNoBaselinesNote).

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/datasets"
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
// constant letter, leak heuristic) from the baselines of its sets
// (qaTableSets); nil when no set has any.
func qaBaselines(t *aggregate.Table, recs map[results.Benchmark]*qaSetRecord) []baselineView {
	if len(recs) == 0 {
		return nil
	}
	sets := map[results.Benchmark]*qaaudit.Baselines{}
	for bench, r := range recs {
		sets[bench] = &r.baselines
	}
	per := func(f func(b *qaaudit.Baselines) string) string {
		var parts []string
		for _, bench := range qaSets() {
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
		{Label: "Best constant letter (" + per(tiedLetters) + ")",
			Formula: "always the set's most frequent correct letter (letters joined by / tie: each scores the same): its items / all items (" +
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

// tiedLetters is the best constant letter of b, or the letters that tie
// for it joined by "/" (e.g. "A/B/C/D" on a balanced set).
func tiedLetters(b *qaaudit.Baselines) string {
	if !b.ConstantTied() {
		return b.ConstantLetter
	}
	var ls []string
	for i, n := range b.Letters {
		if n == b.ConstantCorrect {
			ls = append(ls, datasets.QALetters[i])
		}
	}
	return strings.Join(ls, "/")
}

// qaSetRecord is what the runner's runs of one set of a QA table record
// of the set: its baselines and, for a variant, its marker.
type qaSetRecord struct {
	baselines qaaudit.Baselines
	variant   *qaaudit.VariantInfo // nil: the set as published
	run       string               // the first run recording them
}

// runnerQARun reports whether a run was made by this project's runner
// (provenance runner, or a rescoring of a runner run), which derives its QA
// extensions from the very items it asked.
func runnerQARun(r *results.Run) bool {
	return r.Provenance.Kind == results.ProvenanceRunner ||
		r.Provenance.Kind == results.ProvenanceRescored && r.Provenance.Origin == results.ProvenanceRunner
}

// trustedQARun reports whether a run's QA extensions are taken as a
// description of its question set: a runner run (runnerQARun), or a run
// imported by import-mattools (provenance imported), which records the
// baselines of the set MatTools tested when the data root holds that set's
// file (results/published, docs/qa-validity.md). Submitted runs are never
// trusted.
func trustedQARun(r *results.Run) bool {
	return runnerQARun(r) || r.Provenance.Kind == results.ProvenanceImported
}

// qaTableSets returns, by benchmark, what the aggregated runs of a QA
// table's rows record of their set (qaaudit.ExtensionBaselines and
// qaaudit.ExtensionVariant), read only from trusted runs (trustedQARun)
// that record baselines; other runs add nothing. A set whose runs
// disagree (other baselines, another variant marker, or a marker on some
// and not on others) gets nothing, and one warning per such set names the
// table, the benchmark and two runs that differ.
func qaTableSets(t *aggregate.Table) (map[results.Benchmark]*qaSetRecord, []string) {
	recs := map[results.Benchmark]*qaSetRecord{}
	bad := map[results.Benchmark]bool{}
	var warnings []string
	for _, row := range t.Rows {
		if row.Reference {
			continue
		}
		for _, c := range row.Configurations {
			bench := c.Key.Benchmark
			for _, r := range c.RunsWith(aggregate.StatusAggregated) {
				run := &r.File.Run
				var rec qaSetRecord
				if bad[bench] || !trustedQARun(run) || !runExtension(run, qaaudit.ExtensionBaselines, &rec.baselines) || rec.baselines.Questions == 0 {
					continue
				}
				rec.run = run.RunID
				var vi qaaudit.VariantInfo
				if runExtension(run, qaaudit.ExtensionVariant, &vi) {
					rec.variant = &vi
				}
				first := recs[bench]
				if first == nil {
					recs[bench] = &rec
					continue
				}
				if first.baselines != rec.baselines || (first.variant == nil) != (rec.variant == nil) ||
					(first.variant != nil && *first.variant != *rec.variant) {
					bad[bench] = true
					delete(recs, bench)
					warnings = append(warnings, fmt.Sprintf("QA table %s: the runs of %s disagree on their question set's baselines or variant (runs %s and %s); the table shows neither",
						t.ID, bench, first.run, rec.run))
				}
			}
		}
	}
	return recs, warnings
}

// BaselinesCSV returns a QA table's baselines as CSV, nil when no run of
// the table records them: one line per set and baseline, with header
// table,benchmark,question_set,baseline,letter,correct,questions,percent.
// The uniform guess's correct is the expected count questions / 4;
// percentages have 4 decimals.
func BaselinesCSV(t *aggregate.Table) []byte {
	recs, _ := qaTableSets(t)
	if len(recs) == 0 {
		return nil
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write([]string{"table", "benchmark", "benchmark_version", "question_set", "baseline", "letter", "correct", "questions", "percent"})
	f4 := func(x float64) string { return strconv.FormatFloat(x, 'f', 4, 64) }
	for _, bench := range qaSets() {
		rec := recs[bench]
		if rec == nil {
			continue
		}
		b := &rec.baselines
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
		if c.Key.Benchmark.Kind() != results.KindMultipleChoice {
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

// qaVariantCaption says in words what a variant table is, from the
// variant markers its sets' runs record (qaTableSets; never from the
// question set's name): per variant, which set it derives from, by which
// derivation, and what changed, per benchmark. "" when no set of the table
// is a variant.
func qaVariantCaption(recs map[results.Benchmark]*qaSetRecord) string {
	type group struct {
		v       qaaudit.VariantInfo
		details []string
	}
	var groups []*group
	for _, bench := range qaSets() {
		rec := recs[bench]
		if rec == nil || rec.variant == nil {
			continue
		}
		v := *rec.variant
		var d string
		switch v.Variant {
		case qaaudit.VariantBalanced:
			var ls []string
			for i, n := range rec.baselines.Letters {
				ls = append(ls, fmt.Sprintf("%s %d", datasets.QALetters[i], n))
			}
			d = fmt.Sprintf("%s: %s of %d", setName(bench), strings.Join(ls, ", "), v.Questions)
		case qaaudit.VariantClean:
			d = fmt.Sprintf("%s: %d of %d items, %s and %s left out", setName(bench), v.Questions, v.OfQuestions,
				count(v.Malformed, "malformed item", "malformed items"), count(v.Leaked, "leaked item", "leaked items"))
		default:
			d = fmt.Sprintf("%s: %d of %d items", setName(bench), v.Questions, v.OfQuestions)
		}
		var g *group
		for _, x := range groups {
			if x.v.Variant == v.Variant && x.v.Of == v.Of && x.v.Algorithm == v.Algorithm {
				g = x
			}
		}
		if g == nil {
			g = &group{v: v}
			groups = append(groups, g)
		}
		g.details = append(g.details, d)
	}
	if len(groups) == 0 {
		return ""
	}
	var parts []string
	for _, g := range groups {
		head := fmt.Sprintf("A %s variant of question set %s (derivation %d)", g.v.Variant, g.v.Of, g.v.Algorithm)
		switch g.v.Variant {
		case qaaudit.VariantBalanced:
			parts = append(parts, head+": each item's four choice texts were permuted, deterministically, so that each letter is correct for a quarter of the items ("+
				strings.Join(g.details, "; ")+"); the questions, correct texts and distractors are unchanged")
		case qaaudit.VariantClean:
			parts = append(parts, head+": the set without its malformed and its leaked items ("+strings.Join(g.details, "; ")+")")
		default:
			parts = append(parts, head+" ("+strings.Join(g.details, "; ")+")")
		}
	}
	return strings.Join(parts, ". ") + ". Its scores are not comparable with those of the set as published, nor averaged with them."
}

// SampleConstantC is the accuracy (%, one decimal) of always answering C
// on the real 240-item sample of MatTools' QA sets (120 code items, 120 doc
// items, a third party's random sample), as cmd/audit-qa measures it
// (docs/qa-validity.md); TestSampleConstantC recomputes it from the sample
// ($MATTOOLS_QA_SAMPLE).
var SampleConstantC = map[results.Benchmark]float64{results.BenchmarkQACode: 48.3, results.BenchmarkQADoc: 49.2}

// qaHome returns the QA board's tables (Table 1's layout, with the chance,
// constant-letter and leak-heuristic rows where the runs record the set's
// baselines) for the home page, after the tool-usage tables; nil: none.
func (v *views) qaHome() []*tableView {
	var out []*tableView
	for _, t := range v.lb.Tables[aggregate.BoardQA] {
		out = append(out, v.table(t))
	}
	return out
}

// qaNoBaselinesNote says why a QA table has no baseline rows and what the
// keys' bias is, measured elsewhere: runs imported from MatTools' CSVs
// hold no questions, so their set's letters cannot be counted here unless
// the import read the question sets (then the table has baselines and no
// note).
func qaNoBaselinesNote(t *aggregate.Table) string {
	imported := true
	for _, c := range tableConfigurations(t) {
		for _, r := range c.RunsWith(aggregate.StatusAggregated) {
			if runnerQARun(&r.File.Run) {
				imported = false
			}
		}
	}
	why := "No baseline rows: no run of this table records its question set's baselines (only this project's runner records them)."
	if imported {
		why = "No baseline rows: runs imported from MatTools' CSVs hold no questions, so their set's correct letters cannot be counted here."
	}
	return fmt.Sprintf("%s The keys are far from uniform: measured by cmd/audit-qa on a 240-item sample of these sets (120 code, 120 doc items), "+
		"always answering C scores %.1f %% on code and %.1f %% on doc, against 25 %% for a random guess.",
		why, SampleConstantC[results.BenchmarkQACode], SampleConstantC[results.BenchmarkQADoc])
}

// qaBoardHasBaselines reports whether a table of the edition's QA board
// shows baselines.
func (v *views) qaBoardHasBaselines() bool {
	for _, t := range v.lb.Tables[aggregate.BoardQA] {
		if recs, _ := qaTableSets(t); len(recs) > 0 {
			return true
		}
	}
	return false
}

// qaSets returns the registered multiple-choice benchmarks in registry
// order (MatTools' qa-code and qa-doc, then any other): the order of the
// baselines' columns, CSV rows and variant notes.
func qaSets() []results.Benchmark {
	var out []results.Benchmark
	for _, b := range results.RegisteredBenchmarks() {
		if b.Kind == results.KindMultipleChoice {
			out = append(out, b.Name)
		}
	}
	return out
}
