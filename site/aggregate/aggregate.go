// Package aggregate turns runs (results files) into the leaderboard's
// configurations and tables: the runs of one configuration are its rounds,
// summarised per metric as mean ± population std (results/stats) with n and
// the per-round values kept. It sits between the results files and the site's
// pages and figures (site/content, site/plots) and does no I/O.
//
// Rules: runs are averaged only within one configuration, which
// includes the scoring protocol, the question set and the provenance kind
// (results.Configuration) and, here, the benchmark version; unscored runs
// and runs outside any round (round 0) are kept and shown but never
// aggregated.
package aggregate

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/internal/words"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/results/stats"
)

// Metric names a leaderboard metric. Every metric value is a percentage, 0–100.
type Metric string

// The metrics, as MatTools scores them (docs/mattools.md §2, §4).
const (
	// FunctionRunnableRate: runnable questions / questions in the set × 100.
	FunctionRunnableRate Metric = "function_runnable_rate"
	// TaskSuccessRate: properties passed / properties in the set × 100.
	TaskSuccessRate Metric = "task_success_rate"
	// Accuracy: QA questions answered correctly under MatTools' strict
	// extraction / questions × 100.
	Accuracy Metric = "accuracy"
	// AccuracyLenient: QA accuracy under the project's lenient extraction.
	AccuracyLenient Metric = "accuracy_lenient"
)

// Title returns the metric's display name.
func (m Metric) Title() string {
	switch m {
	case FunctionRunnableRate:
		return "Function runnable rate"
	case TaskSuccessRate:
		return "Task success rate"
	case Accuracy:
		return "Accuracy"
	case AccuracyLenient:
		return "Accuracy (lenient extraction)"
	}
	return string(m)
}

// metricsOf returns the metrics of a benchmark in display order.
func metricsOf(b results.Benchmark) []Metric {
	if b.Kind() == results.KindMultipleChoice {
		return []Metric{Accuracy, AccuracyLenient}
	}
	return []Metric{FunctionRunnableRate, TaskSuccessRate}
}

// Value is one run's value of one metric: Count out of Total, and the
// percentage 100·Count/Total.
type Value struct {
	Count, Total int
	Percent      float64
}

// value returns a run's value of m; ok is false when the run has none
// (unscored, or a count that was not published).
func value(t results.Totals, m Metric) (Value, bool) {
	var k *int
	n := t.Questions
	switch m {
	case FunctionRunnableRate:
		k = t.Runnable
	case TaskSuccessRate:
		k, n = t.PropertiesPassed, t.Properties
	case Accuracy:
		k = t.Correct
	case AccuracyLenient:
		k = t.CorrectLenient
	}
	if k == nil || n == 0 || !t.Scored {
		return Value{}, false
	}
	return Value{Count: *k, Total: n, Percent: stats.Percent(*k, n)}, true
}

// IntervalConfidence is the coverage of the leaderboard's intervals: 95 %
// Student t intervals of the mean over rounds (methodology page).
const IntervalConfidence = 0.95

// RunStatus says how a run enters its configuration.
type RunStatus string

// Run statuses.
const (
	// StatusAggregated: a scored run of round ≥ 1; its values enter the mean.
	StatusAggregated RunStatus = "aggregated"
	// StatusUnscored: the run has code but no outcomes (Totals.Scored false).
	StatusUnscored RunStatus = "unscored"
	// StatusOutsideRounds: a run of round 0 (e.g. a MatTools run folder
	// outside roundN); shown, not aggregated.
	StatusOutsideRounds RunStatus = "outside-rounds"
)

// Run is one results file as the leaderboard uses it.
type Run struct {
	File *results.File
	// Questions are the file's tool-usage rows with their summary columns
	// (results.SummaryRow), in row order: the ones BuildRows was given, else
	// those of File.Questions.
	Questions []results.SummaryRow
	Status    RunStatus
	Values    map[Metric]Value // the run's own values (also for runs that are not aggregated)
}

// ID returns the run id.
func (r *Run) ID() string { return r.File.Run.RunID }

// Round returns the run's round (0 = outside rounds).
func (r *Run) Round() int { return r.File.Run.Round }

// Key identifies a configuration: results.Configuration, which includes the
// benchmark version, scoring protocol, question set, provenance and
// settings, so that runs that differ in any of them are never averaged.
type Key struct {
	results.Configuration
}

// String returns a stable key (results.Configuration.String).
func (k Key) String() string { return k.Configuration.String() }

// Configuration is one leaderboard configuration and its runs.
type Configuration struct {
	Key   Key
	Slug  string // URL-safe, unique id (see Slug)
	Model Model
	Board Board
	// Runs holds every run of the configuration by round, then run id.
	Runs []*Run
	// Summaries are over the aggregated runs only, per metric that they all
	// have: N, Mean, PopStd (the leaderboard's "±") and SampleStd, in percent.
	Summaries map[Metric]stats.Summary
	// Rounds holds, per metric, the aggregated runs' values in Runs order.
	Rounds map[Metric][]Value
	// Intervals are, per metric with a summary, the IntervalConfidence
	// Student t interval of the mean over the aggregated rounds
	// (stats.TInterval), clamped to [0, 100] percent.
	Intervals map[Metric]stats.Interval
	// Questions holds, per metric, the aggregated rounds' outcomes per
	// question (QuestionMeans); absent for a metric without per-question
	// outcomes (NoQInterval says why).
	Questions map[Metric]*QuestionMeans
	// QIntervals are, per metric with Questions, the IntervalConfidence
	// interval of the mean that counts which questions the benchmark happens
	// to hold as well as the rounds: stats.ClusteredRatio with the questions
	// as clusters, each averaged over the rounds (the rounds nested within
	// the questions), in percent, clamped to [0, 100].
	QIntervals map[Metric]stats.Interval
	// NoQInterval says, per metric with a summary but no QInterval, why
	// none exists (e.g. NoQuestionsPublished).
	NoQInterval map[Metric]string
	// Warnings are conditions a reader must see (duplicate rounds, runs
	// missing a metric, run warnings).
	Warnings []string
}

// Metrics returns the configuration's metrics that have a summary, in display order.
func (c *Configuration) Metrics() []Metric {
	var out []Metric
	for _, m := range metricsOf(c.Key.Benchmark) {
		if _, ok := c.Summaries[m]; ok {
			out = append(out, m)
		}
	}
	return out
}

// RunsWith returns the runs of the given status.
func (c *Configuration) RunsWith(s RunStatus) []*Run {
	var out []*Run
	for _, r := range c.Runs {
		if r.Status == s {
			out = append(out, r)
		}
	}
	return out
}

// QuestionSetName returns the question set's name ("all", or a subset name).
func (c *Configuration) QuestionSetName() string {
	name, _, _ := strings.Cut(c.Key.QuestionSet, "/")
	return name
}

// QuestionSet returns the question set of the configuration's first run.
func (c *Configuration) QuestionSet() results.QuestionSet { return c.Runs[0].File.Run.QuestionSet }

// Board names a leaderboard page.
type Board string

// The leaderboard pages.
const (
	BoardQA        Board = "qa"                   // QA benchmarks: code and doc accuracy
	BoardSingleLLM Board = results.BoardSingleLLM // tool usage, the single LLM's board (results.SystemInfo.Board)
	BoardLLMRAG    Board = results.BoardLLMRAG    // tool usage, LLM-RAG's board (model × retrieval source)
	BoardAdvanced  Board = results.BoardAdvanced  // tool usage, every other system (agentic, graph, self-reflection RAG)
)

// Boards lists the leaderboard pages in display order.
var Boards = []Board{BoardQA, BoardSingleLLM, BoardLLMRAG, BoardAdvanced}

// Title returns the board's page title.
func (b Board) Title() string {
	switch b {
	case BoardQA:
		return "QA benchmark"
	case BoardSingleLLM:
		return "Tool usage: single LLM"
	case BoardLLMRAG:
		return "Tool usage: LLM-RAG"
	case BoardAdvanced:
		return "Tool usage: advanced systems"
	}
	return string(b)
}

// ReferenceSource is the LLM-RAG retrieval source an advanced-systems table
// shows beside each of its models (Row.Reference): source 4, the LLM-written
// docs per object, the source agentic RAG and the self-reflection loop
// retrieve from by default.
const ReferenceSource = 4

func boardOf(k Key) Board {
	switch {
	case k.Benchmark.Kind() == results.KindMultipleChoice:
		return BoardQA
	}
	return BoardOfSystem(k.System)
}

// BoardOfSystem is the board of a system's tool-usage configurations, as
// its registration says (results.SystemInfo.Board): BoardAdvanced for a
// system this process has no registration for.
func BoardOfSystem(s results.System) Board {
	return Board(results.SystemBoard(s))
}

// Leaderboard is every configuration of a set of runs, and the tables they form.
type Leaderboard struct {
	// Configurations in display order: board, table, then row order.
	Configurations []*Configuration
	// Tables per board, in display order.
	Tables map[Board][]*Table
	// NotAggregated per board: configurations with no aggregated run (only
	// unscored runs or runs outside rounds), listed as such on the board.
	NotAggregated map[Board][]*Configuration
	// Ranked per tool-usage board: its Tables joined per question set, the
	// scoring protocols side by side, rows ranked by task success rate.
	Ranked map[Board][]*RankedTable
	// Headline: every tool-usage configuration, all systems together, one
	// RankedTable per question set (the canonical set first); reference
	// rows (Row.Reference) are not repeated in it.
	Headline []*RankedTable
}

// Build groups files into configurations and tables. files is not modified;
// the result refers to its elements. Display names and orders come from cat.
func Build(files []*results.File, cat *Catalog) *Leaderboard { return BuildRows(files, nil, cat) }

// BuildRows is Build with the tool-usage rows of the files that rows (run
// id → rows in row order) holds given in their compact form
// (results.SummaryOptions.Compact; such files have no Questions); the rows
// of the other files are their Questions' summary columns
// (results.SummaryRows).
func BuildRows(files []*results.File, rows map[string][]results.SummaryRow, cat *Catalog) *Leaderboard {
	byKey := map[Key]*Configuration{}
	var confs []*Configuration
	for _, f := range files {
		if f.Run.Provenance.Kind == results.ProvenanceAudit {
			// The benchmark audit's bounds (reference solution, trivial
			// baselines; cmd/audit) are never configurations: ranked, they
			// would stand among the systems under test. The ranked tables
			// show them as unranked rows instead (AuditRows,
			// docs/benchmark-audit.md).
			continue
		}
		k := Key{Configuration: f.Run.Configuration()}
		c := byKey[k]
		if c == nil {
			c = &Configuration{Key: k, Slug: Slug(k.String()), Model: cat.Model(&f.Run), Board: boardOf(k)}
			byKey[k] = c
			confs = append(confs, c)
		}
		r := &Run{File: f, Values: map[Metric]Value{}}
		if qs, ok := rows[f.Run.RunID]; ok {
			r.Questions = qs
		} else {
			r.Questions = results.SummaryRows(f.Questions)
		}
		for _, m := range metricsOf(k.Benchmark) {
			if v, ok := value(f.Run.Totals, m); ok {
				r.Values[m] = v
			}
		}
		switch {
		case !f.Run.Totals.Scored:
			r.Status = StatusUnscored
		case f.Run.Round == 0:
			r.Status = StatusOutsideRounds
		default:
			r.Status = StatusAggregated
		}
		c.Runs = append(c.Runs, r)
	}
	for _, c := range confs {
		c.summarize()
	}
	lb := &Leaderboard{Tables: map[Board][]*Table{}, NotAggregated: map[Board][]*Configuration{}, Ranked: map[Board][]*RankedTable{}}
	for _, c := range confs {
		if len(c.RunsWith(StatusAggregated)) == 0 {
			lb.NotAggregated[c.Board] = append(lb.NotAggregated[c.Board], c)
		}
	}
	for _, b := range Boards {
		lb.Tables[b] = buildTables(b, confs)
		for _, t := range lb.Tables[b] {
			for _, row := range t.Rows {
				if !row.Reference { // listed under its own board
					lb.Configurations = append(lb.Configurations, row.Configurations...)
				}
			}
		}
		na := lb.NotAggregated[b]
		slices.SortFunc(na, func(x, y *Configuration) int { return compareConfigurations(b, x, y) })
		lb.Configurations = append(lb.Configurations, na...)
	}
	var tool []*Table
	for _, b := range Boards {
		if b == BoardQA {
			continue
		}
		lb.Ranked[b] = buildRanked(b, lb.Tables[b])
		annotate(lb.Ranked[b])
		tool = append(tool, lb.Tables[b]...)
	}
	lb.Headline = buildRanked(BoardToolUsage, tool)
	annotate(lb.Headline)
	return lb
}

func (c *Configuration) summarize() {
	slices.SortStableFunc(c.Runs, func(a, b *Run) int {
		return cmp.Or(cmp.Compare(a.Round(), b.Round()), strings.Compare(a.ID(), b.ID()))
	})
	c.Summaries, c.Rounds, c.Intervals = map[Metric]stats.Summary{}, map[Metric][]Value{}, map[Metric]stats.Interval{}
	agg := c.RunsWith(StatusAggregated)
	seen := map[int][]string{}
	for _, r := range agg {
		seen[r.Round()] = append(seen[r.Round()], r.ID())
	}
	for _, r := range agg {
		if ids := seen[r.Round()]; len(ids) > 1 && ids[0] == r.ID() {
			c.Warnings = append(c.Warnings, fmt.Sprintf("round %d has %d runs (%s); all of them are averaged", r.Round(), len(ids), strings.Join(ids, ", ")))
		}
	}
	for _, m := range metricsOf(c.Key.Benchmark) {
		var vals []Value
		var missing []string
		for _, r := range agg {
			if v, ok := r.Values[m]; ok {
				vals = append(vals, v)
			} else {
				missing = append(missing, r.ID())
			}
		}
		if len(vals) == 0 {
			continue
		}
		if len(missing) > 0 {
			// Never average a metric over a subset of the rounds silently.
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s is not known for %s %s; it is not shown", m.Title(), words.Noun(len(missing), "run", "runs"), strings.Join(missing, ", ")))
			continue
		}
		pct := make([]float64, len(vals))
		for i, v := range vals {
			pct[i] = v.Percent
		}
		c.Summaries[m], c.Rounds[m] = stats.Summarize(pct), vals
		c.Intervals[m] = stats.TInterval(pct, IntervalConfidence).Clamp(0, 100)
	}
	c.summarizeQuestions(agg)
	for _, r := range c.Runs {
		for _, w := range r.File.Run.Warnings {
			c.Warnings = append(c.Warnings, r.ID()+": "+w)
		}
	}
}

var slugUnsafe = regexp.MustCompile(`[^a-z0-9._-]+`)

// Slug returns a URL path segment for an arbitrary key: the key lowercased,
// with every run of characters outside [a-z0-9._-] replaced by "-", cut to 80
// bytes, and followed by 8 hex digits of the key's SHA-256 so that distinct
// keys never share a slug. Model names are untrusted text: the slug is the
// only form of them used in paths.
func Slug(key string) string {
	s := strings.Trim(slugUnsafe.ReplaceAllString(strings.ToLower(key), "-"), "-.")
	if len(s) > 80 {
		s = strings.TrimRight(s[:80], "-.")
	}
	sum := sha256.Sum256([]byte(key))
	if s == "" {
		return hex.EncodeToString(sum[:4])
	}
	return s + "-" + hex.EncodeToString(sum[:4])
}

// SourceTitle names a retrieval source as the paper does.
// RetrievalTitle names how a run retrieved, for labels: the retrieval
// source (SourceTitle) and, when recorded, the method: "1: pymatgen code,
// BM25", "2: official docs, dense (text-embedding-3-large)", and a graph's
// corpus when it is a folder below pymatgen ("…, corpus
// pymatgen/analysis/defects"). Imported runs
// record no method (the paper's Chroma store, dense).
func RetrievalTitle(r *results.Run) string {
	s := SourceTitle(r.RetrievalSource)
	switch r.RetrievalMethod {
	case "bm25":
		s += ", BM25"
	case "embedding":
		s += ", dense (" + r.EmbeddingModel + ")"
	case "":
	default:
		s += ", " + r.RetrievalMethod
	}
	if r.TopK > 0 && r.TopK != 5 {
		s += fmt.Sprintf(", top-%d", r.TopK)
	}
	// A graph built from part of the pymatgen source says which part.
	if c := r.SystemParams["corpus"]; c != "" && c != "pymatgen" {
		s += ", corpus " + c
	}
	var origin string
	if raw, ok := r.Extensions["corpus_origin"]; ok && json.Unmarshal(raw, &origin) == nil && origin != "" {
		s += " — " + shortHashes.ReplaceAllString(origin, "$1")
	}
	return s
}

// shortHashes shortens "sha256:<64 hex>" to its first 8 digits in labels.
var shortHashes = regexp.MustCompile(`(sha256:[0-9a-f]{8})[0-9a-f]{56}`)

func SourceTitle(s int) string {
	switch s {
	case 0:
		return "none"
	case 1:
		return "1: pymatgen code"
	case 2:
		return "2: official docs"
	case 3:
		return "3: LLM docs (chunked)"
	case 4:
		return "4: LLM docs (per object)"
	}
	return strconv.Itoa(s)
}

// ParamVariant is the system parameter (results.Run.SystemParams) naming a
// variant of a system's algorithm, e.g. self-reflection-rag's
// "as-published" or "feedback"; labels show it (SystemLabel).
const ParamVariant = "variant"

// SystemVariant returns the configuration's system variant
// (SystemParams[ParamVariant]), "" when it has none. Every run of a
// configuration has the same system parameters.
func (c *Configuration) SystemVariant() string {
	return c.Runs[0].File.Run.SystemParams[ParamVariant]
}

// SystemLabel names the configuration's system for labels: SystemTitle,
// followed by its variant when it has one, e.g. "Self-reflection LLM-doc
// RAG (feedback variant)", so that two variants of one model are told apart
// in tables, figures and pages.
func (c *Configuration) SystemLabel() string {
	return systemLabel(c.Key.System, c.SystemVariant())
}

func systemLabel(s results.System, variant string) string {
	if variant == "" {
		return SystemTitle(s)
	}
	return SystemTitle(s) + " (" + strings.ReplaceAll(variant, "-", " ") + " variant)"
}

// ReferenceLabel names a reference row's system (Row.Reference), e.g.
// "LLM-RAG, source 4 (reference)".
func ReferenceLabel(s results.System, source int) string {
	return fmt.Sprintf("%s, source %d (reference)", SystemTitle(s), source)
}

// SystemTitle names a system as its registration does
// (results.SystemInfo.Title; the paper's names for its five systems), or
// by its id when this process has no registration for it.
func SystemTitle(s results.System) string { return results.SystemTitle(s) }

func systemOrder(s results.System) int {
	if i := slices.Index(results.Systems, s); i >= 0 {
		return i
	}
	return len(results.Systems)
}

// provenanceOrder orders configuration provenances (results.Configuration.Provenance:
// a kind, for rescored runs followed by ":" and the code's origin, for
// submitted runs by ":" and the submission folder).
func provenanceOrder(p string) int {
	kind, _, _ := strings.Cut(p, ":")
	switch results.ProvenanceKind(kind) {
	case results.ProvenanceImported:
		return 0
	case results.ProvenanceRescored:
		return 1
	case results.ProvenanceRunner:
		return 2
	case results.ProvenanceSubmitted:
		return 3
	}
	return 4
}

// compareConfigurations orders configurations within a board: system, model
// (board order, then id), retrieval source, provenance, variants (the run's,
// then the system's), settings, benchmark.
func compareConfigurations(b Board, x, y *Configuration) int {
	return cmp.Or(
		cmp.Compare(systemOrder(x.Key.System), systemOrder(y.Key.System)),
		cmp.Compare(groupOrderFor(b, x), groupOrderFor(b, y)),
		cmp.Compare(x.Model.order(b), y.Model.order(b)),
		strings.Compare(x.Key.Model, y.Key.Model),
		cmp.Compare(x.Key.RetrievalSource, y.Key.RetrievalSource),
		cmp.Compare(provenanceOrder(x.Key.Provenance), provenanceOrder(y.Key.Provenance)),
		strings.Compare(x.Key.Provenance, y.Key.Provenance),
		strings.Compare(x.Key.Variant, y.Key.Variant),
		strings.Compare(x.SystemVariant(), y.SystemVariant()),
		strings.Compare(x.Key.Settings, y.Key.Settings),
		strings.Compare(x.Key.SystemParams, y.Key.SystemParams),
		strings.Compare(x.Key.String(), y.Key.String()),
	)
}

func groupOrderFor(b Board, c *Configuration) int {
	if b != BoardQA {
		return 0
	}
	return groupOrder(c.Model.Group)
}
