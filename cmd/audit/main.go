// Command audit checks the tool-usage benchmark itself: it runs every
// question's reference solution (benchmarks/mattools-tool-usage/reference,
// one <question>.py each) in the sandbox under mattools-v1 and
// mattools-v1-strict, three negative controls per question that must fail
// every property (every value None; every value of a wrong type; every
// value True), and a static probe of every question's verification, data
// or not: the question's own expected values (from its new_unit_test.py)
// must pass, a different value of the same type and the type's zero must
// fail. It flags the checks that can never pass or that pass what they
// should not, records each reference's wall and CPU time, and prints a
// per-question table that ends with one line per protocol:
//
//	reference: P of N properties passed under PROTOCOL (Q of M questions executed)
//
// N counts the properties of the questions whose data files are present
// (the others are listed as data-missing and not executed). It writes
// -out/audit.json (the table, the flags and the times) and, in
// -out/results, results files (format v3, provenance audit) of the
// reference solution and the trivial baselines (all True, all None) under
// each protocol, so that the leaderboard can show them.
//
//	audit [flags]
//
// Every scored item is cached in -out/.cache, keyed on its code, the
// question's unit test, the scoring harness, the sandbox environment and
// the limits: a rerun (or a run interrupted and started again) executes
// only what changed; -force executes everything again. See
// docs/benchmark-audit.md.
package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/mattools-leaderboard/leaderboard/cmd/internal/cliflags"
	"github.com/mattools-leaderboard/leaderboard/cmd/internal/sandboxflags"
	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/internal/version"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/runner/scoring"
	"github.com/mattools-leaderboard/leaderboard/sandbox"
)

// Exit codes.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

// DefaultReference is the reference solutions' folder, relative to the
// repository root (make audit runs there).
const DefaultReference = "benchmarks/mattools-tool-usage/reference"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

type config struct {
	data, reference, diagnoses, out string
	sb                              sandboxflags.Sandbox
	only                            []string
	force, quiet                    bool
	publish                         string
	// version is the tool-usage benchmark version audited: "" for the
	// published 2025-05, or a corrected version (datasets/corrections.json).
	version string
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("audit", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c config
	var only string
	cliflags.DataVar(fs, &c.data, nil, "")
	fs.StringVar(&c.reference, "reference", DefaultReference, "folder of the reference solutions, one <question>.py each")
	fs.StringVar(&c.diagnoses, "diagnoses", "benchmarks/mattools-tool-usage/diagnoses.csv", "the diagnoses of the properties the reference fails (question,property,category,evidence); absent: none")
	fs.StringVar(&c.out, "out", "build/audit", "output folder: audit.json, results/, .cache/")
	fs.StringVar(&c.publish, "publish", "", "also copy the results files into this folder, replacing the results files there (the committed copy the site reads: benchmarks/mattools-tool-usage/audit)")
	fs.StringVar(&c.version, "benchmark-version", "", "the tool-usage benchmark version whose verification scores the references: 2025-05 (the default) or a corrected version (datasets/corrections.json); its results files are that version's")
	// Generous limits: the audit measures how long a correct solution takes.
	c.sb.Register(fs, nil, sandbox.Limits{Wall: 20 * time.Minute, CPU: 20 * time.Minute}, "generous: the audit measures the references' times",
		"run every execution in a fresh interpreter (CPU times are then not measured)")
	fs.StringVar(&only, "questions", "", "comma-separated question ids to audit (default: all 49)")
	fs.BoolVar(&c.force, "force", false, "execute every item again instead of reading the cache")
	fs.BoolVar(&c.quiet, "quiet", false, "no progress bar")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() != 0 {
		fmt.Fprintln(stderr, "usage: audit [flags]")
		fs.PrintDefaults()
		return exitUsage
	}
	if only != "" {
		for _, id := range strings.Split(only, ",") {
			c.only = append(c.only, strings.TrimSpace(id))
		}
	}
	if c.data == "" {
		_, err := datasets.RootFromEnv()
		fmt.Fprintln(stderr, "audit:", err)
		return exitUsage
	}
	if err := audit(ctx, c, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "audit:", err)
		return exitError
	}
	return exitOK
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

// item is one answer the audit scores: a reference solution, a probe or a
// control, for one question.
type item struct {
	q              *datasets.Question // with its data files, or none (probes and controls read no data)
	kind           string
	code, function string
	key            string // cache key (cacheKey)
	scored         *scoring.Scored
}

// topDef finds the function a reference file defines: its only top-level
// def.
var topDef = regexp.MustCompile(`(?m)^def\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(`)

// readReference reads the reference of question id from dir: its code and
// function name; ok is false when the file does not exist. A file that
// defines no top-level function, or several, is an error naming it.
func readReference(dir, id string) (code, function string, ok bool, err error) {
	path := filepath.Join(dir, id+".py")
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", "", false, nil
	}
	if err != nil {
		return "", "", false, err
	}
	defs := topDef.FindAllSubmatch(b, -1)
	if len(defs) != 1 {
		return "", "", false, fmt.Errorf("%s: defines %d top-level functions; a reference is exactly one", path, len(defs))
	}
	return string(b), string(defs[0][1]), true, nil
}

// Report is audit.json.
type Report struct {
	GeneratorVersion string              `json:"generator_version"`
	DataRoot         string              `json:"data_root"`
	DataCommit       string              `json:"data_commit"`
	BenchmarkVersion string              `json:"benchmark_version"`
	Reference        string              `json:"reference"`
	Environment      scoring.Environment `json:"environment"`
	Limits           ReportLimits        `json:"limits"`
	Questions        []*QuestionReport   `json:"questions"`
	Totals           []Total             `json:"totals"`
	Flags            []Flag              `json:"flags"`
	// Slowest is the reference that took the most CPU time (wall time when
	// CPU time was not measured).
	Slowest *Timing `json:"slowest,omitempty"`
	// Verified is the verified question set: the properties the reference
	// passes under mattools-v1-strict whose diagnosis is not "expected
	// value wrong", by question (questions whose data files are present).
	Verified results.PropertySet `json:"verified_properties"`
	// VerifiedScores are the audit's own results files scored on Verified
	// from their stored per-property outcomes (results.TallyProperties), by
	// system, under mattools-v1-strict.
	VerifiedScores map[string][2]int `json:"verified_scores"`
}

// ReportLimits are the limits the audit's executions ran under.
type ReportLimits struct {
	WallSeconds float64 `json:"wall_seconds"`
	CPUSeconds  float64 `json:"cpu_seconds"` // per process
}

// Timing is one reference's run: wall and CPU time of the function's
// execution (not the parse and the verification), seconds.
type Timing struct {
	Question    string  `json:"question"`
	WallSeconds float64 `json:"wall_seconds"`
	CPUSeconds  float64 `json:"cpu_seconds"`
}

// QuestionReport is one question's audit.
type QuestionReport struct {
	ID         string `json:"question"`
	Index      int    `json:"question_index"`
	Properties int    `json:"properties"`
	DataFiles  bool   `json:"data_files_present"`
	Reference  string `json:"reference"` // "executed", "data-missing" (present, not executed) or "absent"
	// Outcomes are the reference's outcomes by protocol (executed only).
	Outcomes map[string]*Outcome `json:"outcomes,omitempty"`
	Timing   *Timing             `json:"timing,omitempty"`
	// Controls are the properties each control passed, by kind and protocol
	// (each must be 0).
	Controls map[string]map[string]int `json:"controls"`
	// Probe holds the strict per-property outcomes of each probe kind.
	Probe map[string][]results.PropertyOutcome `json:"probe"`
	// Stated is what the question's text states about each property's
	// value (its line, format phrase, and what it names), the judgments
	// the equivalent forms follow.
	Stated map[string]statedFormat `json:"stated"`
	// Equivalents are the equivalent-form probes' answers: every property
	// a form applied to, with its outcome under mattools-v1-strict.
	Equivalents []Equivalent `json:"equivalents"`
	// QuestionText is the question-text audit of question.txt.
	QuestionText *TextAudit `json:"question_text"`
	Flags        []Flag     `json:"flags,omitempty"`
}

// Equivalent is one equivalent-form probe of one property: the form, the
// answer's description, and whether the property's check passed it.
type Equivalent struct {
	Property string `json:"property"`
	Form     string `json:"form"`
	Answer   string `json:"answer"`
	Passed   bool   `json:"passed"`
	Message  string `json:"message,omitempty"`
}

// Outcome is the reference's outcome under one protocol.
type Outcome struct {
	Verdict    string                    `json:"verdict"`
	Cause      string                    `json:"cause,omitempty"`
	Passed     int                       `json:"properties_passed"`
	Properties []results.PropertyOutcome `json:"property_outcomes,omitempty"`
}

// Total is one protocol's last line.
type Total struct {
	Protocol   string `json:"protocol"`
	Passed     int    `json:"properties_passed"`
	Properties int    `json:"properties"` // of the questions whose data files are present
	Executed   int    `json:"questions_executed"`
	Questions  int    `json:"questions"`
}

// Flag is a check of a question's verification that misbehaves: a
// property that its own expected value fails ("never-passes"; when the
// reference passes it nonetheless, "expected-fails"), that passes
// a probe or control that must fail ("passes-wrong", "passes-zero",
// "passes-none", "passes-wrong-type", "passes-true"), that refuses a form
// of its expected value the question allows ("refuses-equivalent"), or a
// probe the verification could not score property by property
// ("unscorable"); or a defect of the question's text ("question-defect").
type Flag struct {
	Question string `json:"question"`
	Property string `json:"property,omitempty"`
	Check    string `json:"check"`
	Detail   string `json:"detail,omitempty"`
	// Line is the line of question.txt a question-defect or
	// refuses-equivalent flag cites (1-based; 0: none).
	Line int `json:"line,omitempty"`
}

func audit(ctx context.Context, c config, stdout, stderr io.Writer) error {
	root, err := filepath.Abs(c.data)
	if err != nil {
		return err
	}
	bench, err := datasets.LoadVersion(root, c.version)
	if err != nil {
		return err
	}
	if c.only != nil {
		if err := scoring.Restrict(bench, c.only); err != nil {
			return fmt.Errorf("-questions: %w", err)
		}
	}
	scorer, err := c.sb.Open(ctx, root)
	if err != nil {
		return err
	}
	defer scorer.Close()
	env := scorer.Environment()

	var items []*item
	refs := map[string]*item{}
	byQuestion := map[string]map[string]*item{}
	add := func(it *item) {
		it.key = cacheKey(it, env, c)
		items = append(items, it)
		if byQuestion[it.q.ID] == nil {
			byQuestion[it.q.ID] = map[string]*item{}
		}
		byQuestion[it.q.ID][it.kind] = it
	}
	var audited []*datasets.Question
	for i := range bench.Questions {
		q := &bench.Questions[i]
		if c.only != nil && !contains(c.only, q.ID) {
			continue
		}
		audited = append(audited, q)
		code, fn, ok, err := readReference(c.reference, q.ID)
		if err != nil {
			return err
		}
		if ok {
			refs[q.ID] = &item{q: q, kind: kindReference, code: code, function: fn}
			if q.Executable() {
				add(refs[q.ID])
			}
		}
		noData := *q
		noData.DataFiles = nil // the probes and controls read no data files
		for _, k := range append(append([]string{}, probeKinds...), controlKinds...) {
			code, fn := generatedCode(q, k)
			add(&item{q: &noData, kind: k, code: code, function: fn})
		}
		stated := statedFormats(q)
		for _, f := range equivForms {
			add(&item{q: &noData, kind: equivKind(f), code: equivCode(q, f, stated), function: probeFunction})
		}
		// The question text's code may read the data files: executed only
		// when they are present.
		textQ := q
		if !q.Executable() {
			textQ = &noData // the scorer does not run a question whose data files are absent
		}
		add(&item{q: textQ, kind: kindQuestionText, code: questionTextCode(q, q.Executable()), function: questionTextFunction})
	}

	// Scored items come from the cache; the rest are executed.
	cache := filepath.Join(c.out, ".cache")
	var todo []*item
	for _, it := range items {
		if !c.force {
			if sc, err := readCache(cache, it.key); err == nil {
				it.scored = sc
				continue
			}
		}
		todo = append(todo, it)
	}
	fmt.Fprintf(stderr, "audit: %d questions, %d items (%d references); %d cached, %d to execute\n",
		len(audited), len(items), len(refs), len(items)-len(todo), len(todo))
	// The slowest first, so that the estimate does not end on them.
	sort.SliceStable(todo, func(i, j int) bool { return todo[i].kind == kindReference && todo[j].kind != kindReference })
	var progress io.Writer
	if !c.quiet {
		progress = stderr
	}
	var cacheErr error
	err = scorer.ScoreEach(ctx, len(todo), func(i int) (*datasets.Question, scoring.Submission) {
		return todo[i].q, scoring.Submission{Code: todo[i].code, FunctionName: todo[i].function}
	}, func(i int, sc *scoring.Scored) {
		todo[i].scored = sc
		if err := writeCache(cache, todo[i].key, sc); err != nil && cacheErr == nil {
			cacheErr = err
		}
	}, func(i int) string { return todo[i].q.ID + " " + todo[i].kind }, progress)
	if err != nil {
		return err
	}
	if cacheErr != nil {
		return cacheErr
	}

	diagnoses, err := readDiagnoses(c.diagnoses, bench.Version)
	if err != nil {
		return err
	}
	rep := &Report{GeneratorVersion: version.String(), DataRoot: root, DataCommit: bench.Commit, BenchmarkVersion: bench.Version, Reference: c.reference,
		Environment: env, Limits: ReportLimits{WallSeconds: c.sb.Limits.Wall.Seconds(), CPUSeconds: c.sb.Limits.CPU.Seconds()}}
	totals := map[string]*Total{}
	for _, p := range scoring.Protocols {
		totals[p] = &Total{Protocol: p, Questions: len(audited)}
	}
	for _, q := range audited {
		qr := buildQuestion(q, refs[q.ID], byQuestion[q.ID])
		rep.Questions = append(rep.Questions, qr)
		rep.Flags = append(rep.Flags, qr.Flags...)
		if q.Executable() {
			for _, p := range scoring.Protocols {
				t := totals[p]
				t.Properties += qr.Properties
				if o := qr.Outcomes[p]; o != nil {
					t.Passed += o.Passed
					t.Executed++
				}
			}
		}
		if t := qr.Timing; t != nil && (rep.Slowest == nil || t.CPUSeconds > rep.Slowest.CPUSeconds ||
			(t.CPUSeconds == rep.Slowest.CPUSeconds && t.WallSeconds > rep.Slowest.WallSeconds)) {
			rep.Slowest = t
		}
	}
	for _, p := range scoring.Protocols {
		rep.Totals = append(rep.Totals, *totals[p])
	}
	rep.Verified = verifiedSet(rep.Questions, diagnoses)

	written, err := writeResults(c.out, bench, audited, refs, byQuestion, env, c.reference)
	if err != nil {
		return err
	}
	if c.publish != "" {
		if err := publishResults(written, c.publish, bench.Version); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "audit: copied %d results files into %s\n", len(written), c.publish)
	}
	if rep.VerifiedScores, err = scoreVerified(written, rep.Verified); err != nil {
		return err
	}
	data, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	if err := results.WriteFileAtomic(filepath.Join(c.out, "audit.json"), append(data, '\n'), 0o644); err != nil {
		return err
	}
	for _, w := range written {
		fmt.Fprintf(stderr, "audit: wrote %s\n", w)
	}
	fmt.Fprintf(stderr, "audit: wrote %s\n", filepath.Join(c.out, "audit.json"))
	printReport(stdout, rep, diagnoses)
	return nil
}

// verifiedSet is the verified question set of the executed questions: the
// properties the reference passes under mattools-v1-strict, less those
// whose diagnosis is "expected value wrong".
func verifiedSet(qs []*QuestionReport, diagnoses datasets.Diagnoses) results.PropertySet {
	set := results.PropertySet{}
	for _, q := range qs {
		if q.Outcomes == nil {
			continue
		}
		for _, po := range q.Outcomes[results.ProtocolMatToolsV1Strict].Properties {
			if po.Passed && !strings.EqualFold(diagnoses[q.ID+"/"+po.Property].Category, "expected value wrong") {
				set[q.ID] = append(set[q.ID], po.Property)
			}
		}
	}
	return set
}

// scoreVerified scores the strict results files among paths on set from
// their stored rows: system → [passed, properties].
func scoreVerified(paths []string, set results.PropertySet) (map[string][2]int, error) {
	out := map[string][2]int{}
	for _, path := range paths {
		f, err := results.Read(path)
		if err != nil {
			return nil, err
		}
		if f.Run.ScoringProtocol != results.ProtocolMatToolsV1Strict {
			continue
		}
		passed, total, err := results.TallyProperties(f.Questions, set)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out[string(f.Run.System)] = [2]int{passed, total}
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// buildQuestion is q's report from its items (ref nil: no reference file).
func buildQuestion(q *datasets.Question, ref *item, its map[string]*item) *QuestionReport {
	qr := &QuestionReport{ID: q.ID, Index: q.Index, Properties: len(q.Properties), DataFiles: q.Executable(),
		Controls: map[string]map[string]int{}, Probe: map[string][]results.PropertyOutcome{}}
	switch {
	case ref == nil:
		qr.Reference = "absent"
	case !q.Executable():
		qr.Reference = "data-missing"
	default:
		qr.Reference = "executed"
		qr.Outcomes = map[string]*Outcome{}
		for _, p := range scoring.Protocols {
			o, err := ref.scored.Outcome(p) // p is one of the scorer's own protocols: err is nil
			if err != nil {
				qr.Flags = append(qr.Flags, Flag{Question: q.ID, Check: "unscorable", Detail: err.Error()})
				continue
			}
			qr.Outcomes[p] = &Outcome{Verdict: string(o.Verdict), Cause: o.Cause, Passed: o.PropertiesPassed, Properties: o.Properties}
		}
		qr.Timing = &Timing{Question: q.ID, WallSeconds: ref.scored.RunDuration.Seconds(), CPUSeconds: ref.scored.RunCPU.Seconds()}
	}
	flag := func(prop, check, detail string) {
		qr.Flags = append(qr.Flags, Flag{Question: q.ID, Property: prop, Check: check, Detail: detail})
	}
	// A property passes its own expected value when the value as written
	// or as parsed passes (some tests store numbers as text).
	expectedPassed := map[string]bool{}
	expectedMsg := map[string]string{}
	scorable := true
	for _, k := range probeKinds {
		st := its[k].scored.Outcomes[results.ProtocolMatToolsV1Strict]
		qr.Probe[k] = st.Properties
		if st.Verdict != results.VerdictCorrect && st.Verdict != results.VerdictPartial {
			flag("", "unscorable", fmt.Sprintf("the %s probe is %s (%s) under %s: %s", k, st.Verdict, st.Cause,
				results.ProtocolMatToolsV1Strict, firstLine(st.Detail)))
			if k == kindExpected || k == kindParsed {
				scorable = false
			}
			continue
		}
		for _, po := range st.Properties {
			switch {
			case k == kindExpected || k == kindParsed:
				expectedPassed[po.Property] = expectedPassed[po.Property] || po.Passed
				if k == kindExpected {
					expectedMsg[po.Property] = po.Message
				}
			case po.Passed:
				flag(po.Property, "passes-"+k, fmt.Sprintf("the %s probe passes", k))
			}
		}
	}
	if scorable {
		refPassed := map[string]bool{}
		if o := qr.Outcomes[results.ProtocolMatToolsV1Strict]; o != nil {
			for _, po := range o.Properties {
				refPassed[po.Property] = po.Passed
			}
		}
		for _, po := range its[kindExpected].scored.Outcomes[results.ProtocolMatToolsV1Strict].Properties {
			switch {
			case expectedPassed[po.Property]:
			case refPassed[po.Property]:
				// Passable (the reference passes it), but not with the value
				// the benchmark states.
				flag(po.Property, "expected-fails", "its own expected value fails, as written and as parsed, but the reference passes it: "+firstLine(expectedMsg[po.Property]))
			default:
				flag(po.Property, "never-passes", "its own expected value fails, as written and as parsed: "+firstLine(expectedMsg[po.Property]))
			}
		}
	}
	qr.Stated = statedFormats(q)
	for _, f := range equivForms {
		it := its[equivKind(f)]
		changed, err := parseEquivalents(it.scored.Stdout)
		if err != nil {
			flag("", "unscorable", fmt.Sprintf("the %s probe: %v (%s)", it.kind, err, firstLine(it.scored.RunError)))
			continue
		}
		for _, po := range it.scored.Outcomes[results.ProtocolMatToolsV1Strict].Properties {
			answer, ok := changed[po.Property]
			if !ok {
				continue
			}
			qr.Equivalents = append(qr.Equivalents, Equivalent{Property: po.Property, Form: f, Answer: answer, Passed: po.Passed, Message: firstLine(po.Message)})
			if !po.Passed && expectedPassed[po.Property] {
				st := qr.Stated[po.Property]
				phrase := st.Phrase
				if phrase == "" {
					phrase = "no format"
				}
				qr.Flags = append(qr.Flags, Flag{Question: q.ID, Property: po.Property, Check: "refuses-equivalent", Line: st.Line,
					Detail: fmt.Sprintf("%s: %s, which the question allows (question.txt l.%d states %q): %s", f, answer, st.Line, phrase, firstLine(po.Message))})
			}
		}
	}
	if it := its[kindQuestionText]; it != nil {
		ta, err := parseTextAudit(it.scored.Stdout)
		if err != nil {
			flag("", "unscorable", fmt.Sprintf("the question-text audit: %v (%s)", err, firstLine(it.scored.RunError)))
		} else {
			qr.QuestionText = ta
			for _, f := range ta.Findings {
				if questionDefectKinds[f.Kind] {
					qr.Flags = append(qr.Flags, Flag{Question: q.ID, Check: "question-defect", Line: f.Line,
						Detail: fmt.Sprintf("question.txt l.%d: %s: %s", f.Line, f.Kind, f.Detail)})
				}
			}
		}
	}
	for _, k := range controlKinds {
		sc := its[k].scored
		qr.Controls[k] = map[string]int{}
		for _, p := range scoring.Protocols {
			o, err := sc.Outcome(p) // p is one of the scorer's own protocols: err is nil
			if err != nil {
				flag("", "unscorable", err.Error())
				continue
			}
			qr.Controls[k][p] = o.PropertiesPassed
		}
		for _, po := range sc.Outcomes[results.ProtocolMatToolsV1Strict].Properties {
			if po.Passed {
				flag(po.Property, "passes-"+k, fmt.Sprintf("the %s control passes under %s", k, results.ProtocolMatToolsV1Strict))
			}
		}
		if v1 := sc.Outcomes[results.ProtocolMatToolsV1]; v1.PropertiesPassed > 0 {
			flag("", "passes-"+k, fmt.Sprintf("the %s control gets %d of %d properties under %s (%s)", k, v1.PropertiesPassed, len(q.Properties),
				results.ProtocolMatToolsV1, v1.Verdict))
		}
	}
	return qr
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}

// readDiagnoses reads the diagnoses file path; for a corrected benchmark
// version (datasets/corrections.json) the diagnoses of the properties it
// corrects are dropped and those of the file beside path named
// "<name>-<version>.csv" (if any) added: a corrected check fails for its
// own reasons.
func readDiagnoses(path, version string) (datasets.Diagnoses, error) {
	d, err := datasets.ReadDiagnoses(path)
	if err != nil {
		return nil, err
	}
	v, ok := datasets.LookupCorrectedVersion(version)
	if !ok || path == "" {
		return d, nil
	}
	for _, c := range v.Corrections {
		for _, p := range c.Properties {
			delete(d, c.Question+"/"+p)
		}
	}
	own, err := datasets.ReadDiagnoses(strings.TrimSuffix(path, ".csv") + "-" + version + ".csv")
	if err != nil {
		return nil, err
	}
	maps.Copy(d, own)
	return d, nil
}

// cacheKey is the SHA-256 (hex) of what decides an item's outcome: its
// kind, question, code, function name, data files and unit test, the
// scoring harness, the sandbox environment and the limits.
func cacheKey(it *item, env scoring.Environment, c config) string {
	var files []string
	for _, f := range it.q.DataFiles {
		files = append(files, fmt.Sprintf("%s %t %d", f.Path, f.Present, f.Bytes))
	}
	envJSON, _ := json.Marshal(env)
	h := sha256.New()
	for _, part := range []string{"audit-item v1", it.kind, it.q.ID, it.function, it.code, it.q.UnitTest, strings.Join(files, "\n"),
		scoring.HarnessSHA256(), string(envJSON), c.sb.Limits.Wall.String(), c.sb.Limits.CPU.String(), fmt.Sprint(c.sb.Cold)} {
		fmt.Fprintf(h, "%d\n%s\n", len(part), part)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func readCache(dir, key string) (*scoring.Scored, error) {
	b, err := os.ReadFile(filepath.Join(dir, key+".json"))
	if err != nil {
		return nil, err
	}
	var sc scoring.Scored
	if err := json.Unmarshal(b, &sc); err != nil {
		return nil, err
	}
	return &sc, nil
}

func writeCache(dir, key string, sc *scoring.Scored) error {
	b, err := json.Marshal(sc)
	if err != nil {
		return err
	}
	return results.WriteFileAtomic(filepath.Join(dir, key+".json"), b, 0o644)
}

// printReport prints the per-question table, the static probe's flags,
// the reference's failed properties with their diagnoses, and the totals.
func printReport(w io.Writer, rep *Report, diagnoses datasets.Diagnoses) {
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "question\tdata\treference\tv1\tstrict\twall s\tCPU s\tcontrols v1\tcontrols strict\tflags")
	for _, q := range rep.Questions {
		v1, st, wall, cpu := "-", "-", "-", "-"
		if q.Outcomes != nil {
			v1 = fmt.Sprintf("%d/%d", q.Outcomes[results.ProtocolMatToolsV1].Passed, q.Properties)
			st = fmt.Sprintf("%d/%d", q.Outcomes[results.ProtocolMatToolsV1Strict].Passed, q.Properties)
			wall, cpu = fmt.Sprintf("%.1f", q.Timing.WallSeconds), fmt.Sprintf("%.1f", q.Timing.CPUSeconds)
		}
		data := "yes"
		if !q.DataFiles {
			data = "missing"
		}
		ctl := func(p string) string {
			var parts []string
			for _, k := range controlKinds {
				parts = append(parts, fmt.Sprint(q.Controls[k][p]))
			}
			return strings.Join(parts, " ")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\n", q.ID, data, q.Reference, v1, st, wall, cpu,
			ctl(results.ProtocolMatToolsV1), ctl(results.ProtocolMatToolsV1Strict), len(q.Flags))
	}
	tw.Flush()
	fmt.Fprintf(w, "\ncontrols: properties passed by the None, wrong-type and True controls (each must be 0)\n")
	fmt.Fprintf(w, "\nflags of the static probe and the controls (%d):\n", len(rep.Flags))
	for _, f := range rep.Flags {
		prop := f.Property
		if prop == "" {
			prop = "(question)"
		}
		fmt.Fprintf(w, "  %s %s: %s: %s\n", f.Question, prop, f.Check, f.Detail)
	}
	counts := map[string]int{}
	for _, f := range rep.Flags {
		counts[f.Check]++
	}
	probed, refused := map[string]int{}, map[string]int{}
	for _, q := range rep.Questions {
		for _, e := range q.Equivalents {
			probed[e.Form]++
			if !e.Passed {
				refused[e.Form]++
			}
		}
	}
	fmt.Fprintf(w, "\nequivalent forms (properties probed, of them failed):")
	for _, f := range equivForms {
		fmt.Fprintf(w, " %s %d/%d", f, refused[f], probed[f])
	}
	fmt.Fprintf(w, "\nrefuses-equivalent: %d flags; question-defect: %d flags\n", counts["refuses-equivalent"], counts["question-defect"])
	fmt.Fprintf(w, "\nproperties the reference fails:\n")
	for _, q := range rep.Questions {
		if q.Outcomes == nil {
			continue
		}
		failed := map[string][]string{}
		var order []string
		for _, p := range scoring.Protocols {
			o := q.Outcomes[p]
			if o.Verdict == string(results.VerdictCorrect) {
				continue
			}
			if len(o.Properties) == 0 { // mattools-v1 partial: its credit is not attributable
				fmt.Fprintf(w, "  %s (%s: %d of %d, not attributable to properties)\n", q.ID, p, o.Passed, q.Properties)
				continue
			}
			for _, po := range o.Properties {
				if !po.Passed {
					if failed[po.Property] == nil {
						order = append(order, po.Property)
					}
					failed[po.Property] = append(failed[po.Property], p)
				}
			}
		}
		for _, prop := range order {
			protos := failed[prop]
			if protos == nil {
				continue
			}
			failed[prop] = nil
			d := diagnoses[q.ID+"/"+prop].Category
			if d == "" {
				d = "undiagnosed"
			}
			fmt.Fprintf(w, "  %s %s (%s): %s\n", q.ID, prop, strings.Join(protos, ", "), d)
		}
	}
	if s := rep.Slowest; s != nil {
		fmt.Fprintf(w, "\nslowest reference: %s, %.1f s wall, %.1f s CPU (the audit's limits: wall %.0f s, CPU %.0f s per process)\n", s.Question, s.WallSeconds, s.CPUSeconds,
			rep.Limits.WallSeconds, rep.Limits.CPUSeconds)
		def := scoring.DefaultLimits
		fmt.Fprintf(w, "default limits of tool-usage scoring: CPU %s per process, wall %s per execution", def.CPU, def.Wall)
		if s.CPUSeconds > 0 {
			fmt.Fprintf(w, " (%.1f times the slowest reference's CPU time)", def.CPU.Seconds()/s.CPUSeconds)
		}
		fmt.Fprintln(w)
		for _, q := range rep.Questions {
			if t := q.Timing; t != nil && t.CPUSeconds > def.CPU.Seconds()/3 {
				fmt.Fprintf(w, "  %s: %.1f s of CPU time, more than a third of the default limit\n", q.ID, t.CPUSeconds)
			}
		}
	}
	vq, vp := rep.Verified.Size()
	fmt.Fprintf(w, "\nverified question set: %d properties of %d questions (the reference passes them under %s; no diagnosis says expected value wrong)\n",
		vp, vq, results.ProtocolMatToolsV1Strict)
	for _, sys := range results.AuditSystems {
		if s, ok := rep.VerifiedScores[string(sys)]; ok {
			fmt.Fprintf(w, "  %s: %d of %d, scored from its stored per-property outcomes\n", sys, s[0], s[1])
		}
	}
	fmt.Fprintln(w)
	for _, t := range rep.Totals {
		fmt.Fprintf(w, "reference: %d of %d properties passed under %s (%d of %d questions executed)\n", t.Passed, t.Properties, t.Protocol, t.Executed, t.Questions)
	}
}
