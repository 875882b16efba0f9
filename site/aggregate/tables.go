package aggregate

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/results/stats"
)

// Table is one leaderboard table: configurations of one board that share the
// benchmark version, the scoring protocol and the question set, so that their
// rows are comparable. Each table states these three on the page.
type Table struct {
	ID               string // URL-safe, unique (used for the CSV download and anchors)
	Board            Board
	BenchmarkVersion string
	ScoringProtocol  string
	// QuestionSet is the question set name ("all" or a subset name); for
	// tool usage with its size ("all/49").
	QuestionSet string
	Columns     []Column
	Rows        []*Row
}

// Column is one metric of one benchmark.
type Column struct {
	Benchmark results.Benchmark
	Metric    Metric
}

// Title returns the column heading, e.g. "Code accuracy (%)": the metric,
// after the benchmark's column label (results.BenchmarkInfo.Column) when
// it has one.
func (c Column) Title() string {
	if info, ok := results.LookupBenchmark(c.Benchmark); ok && info.Column != "" {
		return info.Column + " " + strings.ToLower(c.Metric.Title()) + " (%)"
	}
	return c.Metric.Title() + " (%)"
}

// Row is one table row: one model × system × retrieval source × provenance.
// For QA it joins the code and the doc configuration of the model.
type Row struct {
	Model           Model
	System          results.System
	RetrievalSource int
	Provenance      string  // results.Configuration.Provenance, e.g. "imported" or "rescored:imported"
	Cells           []*Cell // aligned with the table's Columns; nil where no value exists
	// Configurations behind the row (one for tool usage; up to one per QA benchmark).
	Configurations []*Configuration
	// Reference marks a row of an advanced-systems table that repeats, for
	// comparison, an LLM-RAG configuration of retrieval source
	// ReferenceSource (board BoardLLMRAG, where it is listed) of a model
	// that has an advanced-system row in the table. Reference rows are
	// never ranked, and Leaderboard.Configurations and the headline tables
	// do not list their configurations a second time.
	Reference bool
}

// SystemLabel names the row's system for labels: ReferenceLabel for a
// reference row, else the configuration's SystemLabel (with its variant).
func (r *Row) SystemLabel() string {
	if r.Reference {
		return ReferenceLabel(r.System, r.RetrievalSource)
	}
	return r.Configurations[0].SystemLabel()
}

// Cell is one computed value: a metric of one configuration over its
// aggregated rounds.
type Cell struct {
	Configuration *Configuration
	Metric        Metric
	Summary       stats.Summary // Mean ± PopStd, N
	// Interval is the configuration's 95 % t-interval of the mean
	// (Configuration.Intervals), percent.
	Interval stats.Interval
	// QInterval is the configuration's 95 % interval over questions and
	// rounds (Configuration.QIntervals), percent; N = 0 when none exists,
	// and then NoQInterval says why.
	QInterval   stats.Interval
	NoQInterval string
	Rounds      []Value // per aggregated run, in round order
}

// newCell returns the cell of configuration c's metric m, summarised as s.
func newCell(c *Configuration, m Metric, s stats.Summary) *Cell {
	return &Cell{Configuration: c, Metric: m, Summary: s, Interval: c.Intervals[m], QInterval: c.QIntervals[m],
		NoQInterval: c.NoQInterval[m], Rounds: c.Rounds[m]}
}

// NewCell returns the cell of configuration c's metric m (nil when c has
// no summary of m).
func NewCell(c *Configuration, m Metric) *Cell {
	s, ok := c.Summaries[m]
	if !ok {
		return nil
	}
	return newCell(c, m, s)
}

// tableKey is what the configurations of one table share: the benchmark
// version, the scoring protocol and the question set, and, for a benchmark
// outside MatTools' suite, its suite (results.BenchmarkInfo.Suite), so
// that its tables are its own.
func tableKey(c *Configuration) string {
	qs := c.Key.QuestionSet
	if c.Key.Benchmark.Kind() == results.KindMultipleChoice {
		qs = c.QuestionSetName()
	}
	k := c.Key.BenchmarkVersion + "|" + c.Key.ScoringProtocol + "|" + qs
	if s := suiteOf(c.Key.Benchmark); s != results.SuiteMatTools {
		k = s + "|" + k
	}
	return k
}

// suiteOf returns the suite of benchmark b (its own name when unregistered).
func suiteOf(b results.Benchmark) string {
	info, ok := results.LookupBenchmark(b)
	if !ok {
		return string(b)
	}
	return info.SuiteName()
}

func buildTables(b Board, confs []*Configuration) []*Table {
	byKey := map[string]*Table{}
	var tables []*Table
	rows := map[*Table]map[string]*Row{}
	for _, c := range confs {
		if c.Board != b || len(c.RunsWith(StatusAggregated)) == 0 {
			continue
		}
		tk := tableKey(c)
		t := byKey[tk]
		if t == nil {
			qs := c.Key.QuestionSet
			if b == BoardQA {
				qs = c.QuestionSetName()
			}
			t = &Table{ID: Slug(string(b) + "-" + tk), Board: b, BenchmarkVersion: c.Key.BenchmarkVersion,
				ScoringProtocol: c.Key.ScoringProtocol, QuestionSet: qs}
			byKey[tk] = t
			tables = append(tables, t)
			rows[t] = map[string]*Row{}
		}
		rk := strings.Join([]string{c.Key.Model, c.Key.Variant, c.Key.Settings, c.Key.SystemParams, string(c.Key.System), strconv.Itoa(c.Key.RetrievalSource), c.Key.Provenance}, "|")
		row := rows[t][rk]
		if row == nil {
			row = &Row{Model: c.Model, System: c.Key.System, RetrievalSource: c.Key.RetrievalSource, Provenance: c.Key.Provenance}
			rows[t][rk] = row
			t.Rows = append(t.Rows, row)
		}
		row.Configurations = append(row.Configurations, c)
	}
	if b == BoardAdvanced {
		addReferences(tables, confs)
	}
	for _, t := range tables {
		t.Columns = columnsOf(b, t.Rows, t.Rows[0].Configurations[0].Key.Benchmark)
		for _, row := range t.Rows {
			slices.SortFunc(row.Configurations, func(x, y *Configuration) int {
				return cmp.Compare(x.Key.Benchmark.Order(), y.Key.Benchmark.Order())
			})
			row.Cells = make([]*Cell, len(t.Columns))
			for i, col := range t.Columns {
				for _, c := range row.Configurations {
					if s, ok := c.Summaries[col.Metric]; ok && c.Key.Benchmark == col.Benchmark {
						row.Cells[i] = newCell(c, col.Metric, s)
					}
				}
			}
		}
		slices.SortFunc(t.Rows, func(x, y *Row) int {
			if b == BoardAdvanced {
				// Model by model, so that each model's reference row (LLM-RAG
				// comes first in system order) stands beside its advanced systems.
				if c := cmp.Or(cmp.Compare(x.Model.order(b), y.Model.order(b)), strings.Compare(x.Model.ID, y.Model.ID)); c != 0 {
					return c
				}
			}
			return compareConfigurations(b, x.Configurations[0], y.Configurations[0])
		})
	}
	slices.SortFunc(tables, func(x, y *Table) int {
		return cmp.Or(
			cmp.Compare(protocolOrder(x.ScoringProtocol), protocolOrder(y.ScoringProtocol)),
			strings.Compare(x.ScoringProtocol, y.ScoringProtocol),
			cmp.Compare(questionSetOrder(x.QuestionSet), questionSetOrder(y.QuestionSet)),
			strings.Compare(x.QuestionSet, y.QuestionSet),
			compareVersions(x.BenchmarkVersion, y.BenchmarkVersion),
		)
	})
	return tables
}

// addReferences adds to each advanced-systems table, for every model with a
// row in it, that model's LLM-RAG configurations of retrieval source
// ReferenceSource with the table's benchmark version, scoring protocol and
// question set (one reference row each; Row.Reference).
func addReferences(tables []*Table, confs []*Configuration) {
	for _, t := range tables {
		models := map[string]bool{}
		for _, row := range t.Rows {
			models[row.Model.ID] = true
		}
		for _, c := range confs {
			if BoardOfSystem(c.Key.System) != BoardLLMRAG || c.Key.RetrievalSource != ReferenceSource || !models[c.Key.Model] ||
				len(c.RunsWith(StatusAggregated)) == 0 || tableKey(c) != t.BenchmarkVersion+"|"+t.ScoringProtocol+"|"+t.QuestionSet {
				continue
			}
			t.Rows = append(t.Rows, &Row{Model: c.Model, System: c.Key.System, RetrievalSource: c.Key.RetrievalSource,
				Provenance: c.Key.Provenance, Configurations: []*Configuration{c}, Reference: true})
		}
	}
}

// columnsOf returns the columns of a table of board b whose first row's
// benchmark is first: on the QA board, the accuracy of each multiple-choice
// benchmark of first's suite (strict always, lenient where a row has it);
// elsewhere first's metrics.
func columnsOf(b Board, rows []*Row, first results.Benchmark) []Column {
	has := map[Column]bool{}
	for _, row := range rows {
		for _, c := range row.Configurations {
			for m := range c.Summaries {
				has[Column{c.Key.Benchmark, m}] = true
			}
		}
	}
	var cols []Column
	if b == BoardQA {
		for _, m := range []Metric{Accuracy, AccuracyLenient} {
			for _, bench := range results.BenchmarksOf(suiteOf(first), results.KindMultipleChoice) {
				// Strict accuracy columns are always shown (Table 1's layout).
				if m == Accuracy || has[Column{bench, m}] {
					cols = append(cols, Column{bench, m})
				}
			}
		}
		return cols
	}
	for _, m := range metricsOf(first) {
		cols = append(cols, Column{first, m})
	}
	return cols
}

// protocolOrder orders a board's tables by scoring protocol: those of a
// protocol whose numbers are imported as published first (MatTools' own
// totals), then each scored protocol by its place among the scored
// protocols of its kind in the registry's display order (mattools-v1 and
// mattools-qa-v1, then mattools-v1-strict, then protocols registered
// later), then protocols the registry does not hold.
func protocolOrder(id string) int {
	p, ok := results.LookupScoringProtocol(id)
	if !ok {
		return len(results.ScoringProtocols()) + 1
	}
	if !p.Scored {
		return 0
	}
	n := 1
	for _, q := range results.ScoringProtocols() {
		if q.ID == id {
			return n
		}
		if q.Scored && q.Kind == p.Kind {
			n++
		}
	}
	return n
}

// compareVersions orders benchmark versions newest first, a corrected
// version (results.BenchmarkVersion.CorrectsVersion) right after the
// version it corrects: the published questions' tables before their
// corrected version's.
func compareVersions(x, y string) int {
	base := func(v string) (string, int) {
		if c := CorrectsVersion(v); c != "" {
			return c, 1
		}
		return v, 0
	}
	bx, cx := base(x)
	by, cy := base(y)
	return cmp.Or(strings.Compare(by, bx), cmp.Compare(cx, cy), strings.Compare(x, y))
}

// CorrectsVersion returns the version that benchmark version v corrects
// ("" when v is not a corrected version of a registered benchmark).
func CorrectsVersion(v string) string {
	for _, b := range results.RegisteredBenchmarks() {
		if bv, ok := b.Version(v); ok && bv.CorrectsVersion != "" {
			return bv.CorrectsVersion
		}
	}
	return ""
}

func questionSetOrder(qs string) int {
	if qs == results.QuestionSetAll || strings.HasPrefix(qs, results.QuestionSetAll+"/") {
		return 0
	}
	return 1
}

// Groups returns the table's rows grouped by model group, in Table 1's group
// order (QA tables), or all rows as one group with an empty name.
func (t *Table) Groups() []RowGroup {
	if t.Board != BoardQA {
		return []RowGroup{{Rows: t.Rows}}
	}
	var out []RowGroup
	for _, row := range t.Rows {
		if len(out) == 0 || out[len(out)-1].Group != row.Model.Group {
			out = append(out, RowGroup{Group: row.Model.Group})
		}
		out[len(out)-1].Rows = append(out[len(out)-1].Rows, row)
	}
	return out
}

// RowGroup is a run of rows of one model group.
type RowGroup struct {
	Group string
	Rows  []*Row
}
