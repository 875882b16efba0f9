package runner

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/mattools-leaderboard/leaderboard/datasets/qaaudit"
	"github.com/mattools-leaderboard/leaderboard/llm"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/runner/journal"
	"github.com/mattools-leaderboard/leaderboard/runner/scoring"
)

// writeOuts assembles from src and writes every results file of p not yet
// on disk, marking it written in res with done questions, and logs msg for
// each (a run's own journal, or the merged journals of its shards).
func (e *engine) writeOuts(p *prepared, src *lineSource, senv *scoring.Environment, res []RunResult, done int, msg string) error {
	for i, out := range p.outs {
		if out.exists {
			continue
		}
		r, err := e.writeOut(p, out, src, senv)
		if err != nil {
			return err
		}
		res[i].Status, res[i].Done, res[i].Usage, res[i].Run = StatusWritten, done, *r.Usage, r
		e.log.Info(msg, "model", p.pr.Model.Label(), "run", out.run.RunID, "file", out.path, "prompt_tokens", res[i].Usage.PromptTokens,
			"completion_tokens", res[i].Usage.CompletionTokens)
	}
	return nil
}

// lineSource is where assemble reads a run's journal lines: one journal,
// or the shards' journals (Merge).
type lineSource struct {
	desc string // "journal <path>", for errors
	read func(it item) (journal.Line, bool, error)
	// sessions are the session lines; resumed is the number of sessions
	// that continued an interrupted one (len(sessions)−1 for one journal;
	// for shards, the sum over the shards).
	sessions   []journal.Line
	resumed    int
	generator  string          // the shards' generator (Merge)
	graphIndex json.RawMessage // the shards' graph index record, of a graph-rag run (Merge)
}

// writeOut writes the results file of run out, complete, from the journal
// lines of src, streaming its rows to the results writer one journal line
// at a time (a run's memory does not grow with its rows; the
// tool-usage rows' outcomes, at most a benchmark's questions, are kept for
// the totals); senv is the scorer's environment for a scored run. It
// returns the run as written (its usage set).
func (e *engine) writeOut(p *prepared, out *output, src *lineSource, senv *scoring.Environment) (*results.Run, error) {
	run := out.run
	r := &run
	e.setEnvironment(r, senv)
	w, err := results.NewStreamWriter(out.path, r)
	if err != nil {
		return nil, err
	}
	defer w.Abort() // after Close, nothing
	t := &rowTally{}
	if err := t.writeRows(p, src, senv, r, w); err != nil {
		return nil, err
	}
	if err := t.setTotals(p, senv, r); err != nil {
		return nil, err
	}
	t.warn(p, r)
	usage := &t.usage
	if price := p.pr.Model.Price; price != nil && t.unknownRows == 0 {
		usage.CostUSD = ptr(price.Cost(usage.PromptTokens, usage.CompletionTokens))
	}
	r.Usage = usage
	for _, sl := range src.sessions {
		if sl.StartedAt != nil && (r.StartedAt == nil || sl.StartedAt.Before(*r.StartedAt)) {
			r.StartedAt = sl.StartedAt
		}
	}
	if n := src.resumed + 1; n > 1 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("resumed: the run was interrupted and written over %d sessions", n))
	}
	fin := e.o.Now().UTC()
	r.FinishedAt = &fin
	if err := w.Close(r); err != nil {
		return nil, err
	}
	return r, nil
}

// setEnvironment records on r the program that writes it (generator, Go
// and library versions) and, for a scored run, the scorer's sandbox and
// libraries (senv).
func (e *engine) setEnvironment(r *results.Run, senv *scoring.Environment) {
	r.Environment = results.Environment{Generator: e.o.Generator, GeneratorVersion: generatorVersion(), GoVersion: runtime.Version(),
		Libraries: libraryVersions()}
	if senv != nil {
		sb := senv.Sandbox
		r.Environment.Sandbox = &sb
		for k, v := range senv.Libraries {
			r.Environment.Libraries[k] = v
		}
	}
}

// rowTally is what writeOut counts of a run's rows as it streams them.
type rowTally struct {
	usage results.Usage
	// badRows held negative or implausible token counts; unknownRows were
	// answered without usage; refusedRows were refused as longer than the
	// model's context (tool usage: FinishContextLength).
	badRows, unknownRows, refusedRows int64
	qaCorrect, qaLenient              int
	qaFormat                          qaaudit.Format
	outcomes                          []results.QuestionRow // the tool-usage rows' outcomes only, for the totals
}

// satAdd returns a+b, saturating at math.MaxInt64.
func satAdd(a, b int64) int64 {
	if b > math.MaxInt64-a {
		return math.MaxInt64
	}
	return a + b
}

// addUsage adds a row's token counts (pt, ct; nil: unknown) from calls
// model calls. Usage from the server is not trusted (the client already
// replaces a call's negative or implausibly large count by 0 and counts
// the call): a journal row's negative count, or one above
// llm.MaxPlausibleTokens per call, is counted as unknown (0), and the sums
// saturate.
func (t *rowTally) addUsage(pt, ct *int64, calls int) {
	if pt == nil && ct == nil && calls > 0 {
		t.unknownRows++ // a call was answered without usage (answer)
	}
	bound := llm.MaxPlausibleTokens * int64(max(calls, 1))
	bad := false
	add := func(sum *int64, n int64) {
		if n < 0 || n > bound {
			bad = true
			return
		}
		*sum = satAdd(*sum, n)
	}
	add(&t.usage.PromptTokens, deref(pt))
	add(&t.usage.CompletionTokens, deref(ct))
	if bad {
		t.badRows++
	}
}

// writeRows streams p's rows, read from src in index order, to w, filling
// a scored run's rows with r's protocol's outcomes (senv set), and counts
// them.
func (t *rowTally) writeRows(p *prepared, src *lineSource, senv *scoring.Environment, r *results.Run, w *results.StreamWriter) error {
	// The rows in index order (the items are; a copy is sorted otherwise).
	items := p.items()
	byIndex := func(a, b item) int { return a.index - b.index }
	if !slices.IsSortedFunc(items, byIndex) {
		items = slices.SortedFunc(slices.Values(items), byIndex)
	}
	for _, it := range items {
		l, ok, err := src.read(it)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("%s: question %s is missing", src.desc, it.id)
		}
		if l.ID != it.id || (it.q != nil) != (l.Question != nil) || (it.q == nil && l.QA == nil) {
			return fmt.Errorf("%s: item %d is %q, but the run's question %d is %q", src.desc, it.index, l.ID, it.index, it.id)
		}
		t.usage.Calls = satAdd(t.usage.Calls, max(int64(l.Calls), 0))
		if it.q != nil {
			row := l.Question
			if senv != nil {
				if l.Scored == nil {
					return fmt.Errorf("%s: question %s has no scoring outcome; delete the journal to run it again", src.desc, it.id)
				}
				if err := l.Scored.FillRow(row, r.ScoringProtocol); err != nil {
					return fmt.Errorf("%s: question %s: %w", src.desc, it.id, err)
				}
			}
			t.addUsage(row.PromptTokens, row.CompletionTokens, l.Calls)
			if row.FinishReason != nil && *row.FinishReason == FinishContextLength {
				t.refusedRows++
			}
			t.outcomes = append(t.outcomes, results.QuestionRow{QuestionID: row.QuestionID, Verdict: row.Verdict, Runnable: row.Runnable,
				PropertiesPassed: row.PropertiesPassed})
			err = w.WriteQuestion(row)
		} else {
			row := l.QA
			t.addUsage(row.PromptTokens, row.CompletionTokens, l.Calls)
			t.qaCorrect += int(row.Correct)
			t.qaLenient += int(deref(row.CorrectLenient))
			t.qaFormat.Add(derefString(row.ExtractedStrict), derefString(row.ExtractedLenient), derefString(row.CorrectAnswer))
			err = w.WriteQAItem(row)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// setTotals sets r's totals from the counted rows: a QA run's correct
// answers (and its answers' format, as an extension), a scored tool-usage
// run's tally (scoring.Tally, with its warnings), or an unscored run's
// question and property counts.
func (t *rowTally) setTotals(p *prepared, senv *scoring.Environment, r *results.Run) error {
	switch {
	case r.Benchmark.Kind() == results.KindMultipleChoice:
		r.Totals = results.Totals{Scored: true, Questions: r.QuestionSet.Questions, Correct: &t.qaCorrect, CorrectLenient: &t.qaLenient}
		b, err := json.Marshal(t.qaFormat)
		if err != nil {
			return err
		}
		r.Extensions = maps.Clone(r.Extensions) // the skeleton's map is shared
		if r.Extensions == nil {
			r.Extensions = map[string]json.RawMessage{}
		}
		r.Extensions[qaaudit.ExtensionFormat] = b
	case senv != nil:
		var missing []string
		r.Totals, missing = scoring.Tally(t.outcomes, r.QuestionSet)
		r.Warnings = append(r.Warnings, scoring.Warnings(r.Environment.Sandbox, p.bench, r.QuestionSet, missing)...)
	default:
		r.Totals = results.Totals{Questions: r.QuestionSet.Questions, Properties: r.QuestionSet.Properties}
		r.Warnings = append(r.Warnings, fmt.Sprintf("not scored: generated code only (run with scoring off); the plan asks for %s",
			strings.Join(p.pr.ScoringProtocols, " and ")))
	}
	return nil
}

// warn adds to r's warnings what the counts of p's rows and calls call
// for: implausible or unknown usage, and questions refused as longer than
// the model's context.
func (t *rowTally) warn(p *prepared, r *results.Run) {
	var calls int64
	if v, ok := implausibleUsage.Load(p); ok {
		calls = v.(*atomic.Int64).Load()
	}
	if calls > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("usage: %d model call(s) reported implausible token counts (negative, or above %d per call); "+
			"they are counted as unknown (0), so the usage totals are lower bounds", calls, llm.MaxPlausibleTokens))
	}
	if t.badRows > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("usage: %d journal row(s) held negative or implausible token counts; "+
			"they are counted as unknown (0), so the usage totals are lower bounds", t.badRows))
	}
	refusedRows := t.refusedRows
	if v, ok := qaRefused.Load(p); ok {
		refusedRows += v.(*atomic.Int64).Load()
	}
	if refusedRows > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("context: the server refused %d question(s) as longer than the model's context window; "+
			"they are recorded unanswered (finish reason %s, cause %s)", refusedRows, FinishContextLength, scoring.CauseContextLength))
	}
	if t.unknownRows > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("usage: the server reported no token usage for %d question(s) (their tokens are null); "+
			"the usage totals are lower bounds and the cost is unknown", t.unknownRows))
	}
}

func derefString(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func deref[T int32 | int64](p *T) T {
	if p == nil {
		return 0
	}
	return *p
}

// recordedModules are the modules whose versions every run records.
var recordedModules = []string{"github.com/sashabaranov/go-openai", "github.com/parquet-go/parquet-go", "github.com/BurntSushi/toml"}

// libraryVersions returns the versions of recordedModules linked into this
// binary ("unknown" when the build carries no module information).
func libraryVersions() map[string]string {
	out := map[string]string{}
	for _, m := range recordedModules {
		out[m] = "unknown"
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if _, want := out[d.Path]; want {
				v := d.Version
				if d.Replace != nil {
					v = d.Replace.Version + " (replaces " + d.Version + ")"
				}
				out[d.Path] = v
			}
		}
	}
	return out
}
