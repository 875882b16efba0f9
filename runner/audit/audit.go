// Package audit checks the tool-usage benchmark itself: it runs every
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
// (the others are listed as data-missing and not executed). Run writes
// Config.Out/audit.json (the table, the flags and the times) and, in
// Config.Out/results, results files (format v3, provenance audit) of the
// reference solution and the trivial baselines (all True, all None) under
// each protocol, so that the leaderboard can show them.
//
// Every scored item is cached in Config.Out/.cache, keyed on its code, the
// question's unit test, the scoring harness, the sandbox environment and
// the limits: a rerun (or a run interrupted and started again) executes
// only what changed; Config.Force executes everything again. cmd/audit is
// its command; see docs/benchmark-audit.md.
package audit

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/internal/version"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/runner/scoring"
	"github.com/mattools-leaderboard/leaderboard/sandbox"
)

// Config is what Run audits, how it executes and where it writes.
type Config struct {
	// Data is the MatTools data root (MATTOOLS_DATA); Reference the folder
	// of the reference solutions, one <question>.py each; Diagnoses the
	// diagnoses file of the properties the reference fails
	// (question,property,category,evidence; "" or absent: none).
	Data, Reference, Diagnoses string
	// Out receives audit.json, results/ and .cache/.
	Out string
	// Open opens the scorer (the sandbox) for the data root.
	Open func(ctx context.Context, root string) (*scoring.Scorer, error)
	// Limits are the sandbox's limits and Cold whether every execution
	// runs in a fresh interpreter, as Open applies them: recorded in the
	// report and part of every item's cache key.
	Limits sandbox.Limits
	Cold   bool
	// Only, when not nil, audits only these question IDs.
	Only []string
	// Force executes every item again instead of reading the cache; Quiet
	// shows no progress bar.
	Force, Quiet bool
	// Publish, when set, is a folder the results files are copied into,
	// replacing the audit's earlier results files there of the same
	// benchmark and version (publishResults).
	Publish string
	// Benchmark is the tool-usage benchmark audited, its questions read
	// from Data by its registered loader (datasets.LoaderOf): "" is the
	// default tool-usage benchmark (results.DefaultBenchmark: MatTools'
	// tool usage). The audit scores it under its scored protocols
	// (results.ScoredProtocols) and judges the reference, the probes, the
	// controls and the verified set under its reference protocol
	// (results.Benchmark.Reference: mattools-v1-strict).
	Benchmark results.Benchmark
	// Version is the tool-usage benchmark version audited: "" for the
	// version the loader reads (MatTools: the published 2025-05), or a
	// corrected version of it (datasets/corrections.json).
	Version string
}

// loadAudited returns the benchmark c audits (c.Benchmark, or the default
// tool-usage benchmark) and its questions in c.Version. Errors: a
// benchmark that is not a registered tool-usage benchmark with a loader
// and a reference protocol, or a version that is neither the loaded one
// nor one of datasets/corrections.json.
func loadAudited(root string, c Config) (results.Benchmark, *datasets.Benchmark, error) {
	b := c.Benchmark
	if b == "" {
		b = results.DefaultBenchmark(results.KindToolUsage)
	}
	load, ok := datasets.LoaderOf(string(b))
	if b.Kind() != results.KindToolUsage || !ok || b.Reference() == "" {
		return "", nil, fmt.Errorf("benchmark %q: not a registered tool-usage benchmark with a loader of its questions and a reference protocol", b)
	}
	bench, err := load(root)
	if err != nil || c.Version == "" || c.Version == bench.Version {
		return b, bench, err
	}
	v, ok := datasets.LookupCorrectedVersion(c.Version)
	if !ok {
		return "", nil, fmt.Errorf("tool-usage benchmark version %q: not %s nor one of datasets/corrections.json", c.Version, bench.Version)
	}
	bench, err = v.Apply(bench)
	return b, bench, err
}

// Run audits the benchmark under c: it scores every item (from the cache
// when it can), writes the results files and audit.json, prints the table
// to stdout and its progress to stderr.
func Run(ctx context.Context, c Config, stdout, stderr io.Writer) error {
	root, err := filepath.Abs(c.Data)
	if err != nil {
		return err
	}
	name, bench, err := loadAudited(root, c)
	if err != nil {
		return err
	}
	if c.Only != nil {
		if err := scoring.Restrict(bench, c.Only); err != nil {
			return fmt.Errorf("-questions: %w", err)
		}
	}
	scorer, err := c.Open(ctx, root)
	if err != nil {
		return err
	}
	defer scorer.Close()
	env := scorer.Environment()

	s, err := collect(bench, c, env)
	if err != nil {
		return err
	}
	if err := s.score(ctx, scorer, c, stderr); err != nil {
		return err
	}

	diagnoses, err := readDiagnoses(c.Diagnoses, bench.Version)
	if err != nil {
		return err
	}
	rep := s.report(root, name, bench, env, c, diagnoses)
	written, err := writeResults(c.Out, name, bench, s.audited, s.refs, s.byQuestion, env, c.Reference)
	if err != nil {
		return err
	}
	if c.Publish != "" {
		if err := publishResults(written, c.Publish, name, bench.Version); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "audit: copied %d results files into %s\n", len(written), c.Publish)
	}
	if rep.VerifiedScores, err = scoreVerified(written, rep.Verified, name.Reference()); err != nil {
		return err
	}
	data, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	if err := results.WriteFileAtomic(filepath.Join(c.Out, "audit.json"), append(data, '\n'), 0o644); err != nil {
		return err
	}
	for _, w := range written {
		fmt.Fprintf(stderr, "audit: wrote %s\n", w)
	}
	fmt.Fprintf(stderr, "audit: wrote %s\n", filepath.Join(c.Out, "audit.json"))
	printReport(stdout, rep, diagnoses)
	return nil
}

// itemSet is what the audit scores: every item, in order, each question's
// items by kind, the reference items by question, and the questions
// audited.
type itemSet struct {
	items      []*item
	refs       map[string]*item
	byQuestion map[string]map[string]*item
	audited    []*datasets.Question
}

// collect builds the items of bench's questions (c.Only's, when set): each
// question's reference (executed only when its data files are present),
// its probes and controls, its equivalent forms and its question-text
// audit, each keyed for the cache.
func collect(bench *datasets.Benchmark, c Config, env scoring.Environment) (*itemSet, error) {
	s := &itemSet{refs: map[string]*item{}, byQuestion: map[string]map[string]*item{}}
	add := func(it *item) {
		it.key = cacheKey(it, env, c)
		s.items = append(s.items, it)
		if s.byQuestion[it.q.ID] == nil {
			s.byQuestion[it.q.ID] = map[string]*item{}
		}
		s.byQuestion[it.q.ID][it.kind] = it
	}
	for i := range bench.Questions {
		q := &bench.Questions[i]
		if c.Only != nil && !contains(c.Only, q.ID) {
			continue
		}
		s.audited = append(s.audited, q)
		code, fn, ok, err := readReference(c.Reference, q.ID)
		if err != nil {
			return nil, err
		}
		if ok {
			s.refs[q.ID] = &item{q: q, kind: kindReference, code: code, function: fn}
			if q.Executable() {
				add(s.refs[q.ID])
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
	return s, nil
}

// score scores s's items: those in the cache (c.Out/.cache, unless
// c.Force) are read from it, the rest executed by scorer, references
// first, and cached.
func (s *itemSet) score(ctx context.Context, scorer *scoring.Scorer, c Config, stderr io.Writer) error {
	// Scored items come from the cache; the rest are executed.
	cache := filepath.Join(c.Out, ".cache")
	var todo []*item
	for _, it := range s.items {
		if !c.Force {
			if sc, err := readCache(cache, it.key); err == nil {
				it.scored = sc
				continue
			}
		}
		todo = append(todo, it)
	}
	fmt.Fprintf(stderr, "audit: %d questions, %d items (%d references); %d cached, %d to execute\n",
		len(s.audited), len(s.items), len(s.refs), len(s.items)-len(todo), len(todo))
	// The slowest first, so that the estimate does not end on them.
	sort.SliceStable(todo, func(i, j int) bool { return todo[i].kind == kindReference && todo[j].kind != kindReference })
	var progress io.Writer
	if !c.Quiet {
		progress = stderr
	}
	var cacheErr error
	err := scorer.ScoreEach(ctx, len(todo), func(i int) (*datasets.Question, scoring.Submission) {
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
	return cacheErr
}

// report builds the audit's report from s's scored items: every
// question's report and flags, the totals by protocol, the slowest
// reference and the verified question set (not yet its scores).
func (s *itemSet) report(root string, name results.Benchmark, bench *datasets.Benchmark, env scoring.Environment, c Config, diagnoses datasets.Diagnoses) *Report {
	rep := &Report{GeneratorVersion: version.String(), DataRoot: root, DataCommit: bench.Commit, BenchmarkVersion: bench.Version, Reference: c.Reference,
		Environment: env, Limits: ReportLimits{WallSeconds: c.Limits.Wall.Seconds(), CPUSeconds: c.Limits.CPU.Seconds()}, benchmark: name}
	protocols := results.ScoredProtocols(name)
	totals := map[string]*Total{}
	for _, p := range protocols {
		totals[p] = &Total{Protocol: p, Questions: len(s.audited)}
	}
	for _, q := range s.audited {
		qr := buildQuestion(q, s.refs[q.ID], s.byQuestion[q.ID], protocols, name.Reference())
		rep.Questions = append(rep.Questions, qr)
		rep.Flags = append(rep.Flags, qr.Flags...)
		if q.Executable() {
			for _, p := range protocols {
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
	for _, p := range protocols {
		rep.Totals = append(rep.Totals, *totals[p])
	}
	rep.Verified = verifiedSet(rep.Questions, diagnoses, name.Reference())
	return rep
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

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
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
func cacheKey(it *item, env scoring.Environment, c Config) string {
	var files []string
	for _, f := range it.q.DataFiles {
		files = append(files, fmt.Sprintf("%s %t %d", f.Path, f.Present, f.Bytes))
	}
	envJSON, _ := json.Marshal(env)
	h := sha256.New()
	for _, part := range []string{"audit-item v1", it.kind, it.q.ID, it.function, it.code, it.q.UnitTest, strings.Join(files, "\n"),
		scoring.HarnessSHA256(), string(envJSON), c.Limits.Wall.String(), c.Limits.CPU.String(), fmt.Sprint(c.Cold)} {
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
