// Command validate-submission checks submission folders (SUBMITTING.md;
// package results/submission) and, with -reexecute, re-executes every
// generated function in the sandbox under mattools-v1 and
// mattools-v1-strict and compares the verdicts with the submitted ones,
// question by question. Any disagreement fails and lists the questions.
// Submissions of any tool-usage benchmark are re-executed: MatTools' own
// with the questions of the data root (-data), a folder benchmark's with
// those of its folder, given with -benchmark-folder DIR (the folder the
// runs were made with: its benchmark.json must describe the benchmark as
// the runs record it).
// Questions whose data files are absent on this machine are reported as not
// re-executed, never as agreeing.
//
//	validate-submission [flags] FOLDER...
//
// With -record DIR (maintainers, after review; needs -reexecute), the
// re-executed verdicts of an agreeing submission are written as results
// files (provenance rescored, origin submitted, generator
// validate-submission) into DIR/<folder>/: the verified records the site
// shows as "verified". DIR must be outside the submissions root.
//
// With -reexecute -shard i/n it re-executes only shard i of n of each
// folder's distinct answers (answer k belongs to shard k mod n) into an
// outcome journal under -out, comparing nothing; -reexecute -merge DIR,…
// (the shards' -out directories) then compares (and, with -record, records)
// from the shards' journals as the unsharded command does, refusing shards
// of other files, generator version or sandbox environment
// (docs/runner.md, "Sharded re-execution").
//
// Exit status: 0 valid, 1 invalid (one failure per line: "file:row N:
// field: message"), 2 usage.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/mattools-leaderboard/leaderboard/cmd/internal/cliflags"
	"github.com/mattools-leaderboard/leaderboard/cmd/internal/sandboxflags"
	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/internal/version"
	"github.com/mattools-leaderboard/leaderboard/internal/words"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/results/submission"
	"github.com/mattools-leaderboard/leaderboard/runner/journal"
	"github.com/mattools-leaderboard/leaderboard/runner/plan"
	"github.com/mattools-leaderboard/leaderboard/runner/scoring"
)

const (
	exitOK      = 0
	exitInvalid = 1
	exitUsage   = 2
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

type config struct {
	data, record      string
	sb                sandboxflags.Sandbox
	reexecute, github bool
	quiet             bool
	only              []string
	limits            submission.Limits
	// shard is this invocation's part of a sharded re-execution (-shard
	// i/n; the zero Shard: unsharded), journaled into out; merge lists the
	// shards' output directories to merge (-merge).
	shard journal.Shard
	out   string
	merge []string
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("validate-submission", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c config
	var only string
	c.limits = submission.DefaultLimits
	fs.BoolVar(&c.reexecute, "reexecute", false, "re-execute every generated function in the sandbox and compare the verdicts")
	fs.StringVar(&c.record, "record", "", "with -reexecute: write the verified records into `DIR`/<folder>/ (maintainers; outside the submissions root)")
	cliflags.DataVar(fs, &c.data, nil, ", for -reexecute")
	c.sb.Register(fs, nil, scoring.DefaultLimits, "the wall clock a safety net, the CPU time decides",
		"re-execute in a fresh interpreter per execution (the reference mode) instead of the sandbox's warm workers")
	fs.Func("benchmark-folder", "with -reexecute: a folder benchmark's folder (benchmark.json; docs/runner.md#folder-benchmarks), whose questions and verification its submissions are re-executed with (repeatable)", func(dir string) error {
		_, err := plan.RegisterFolder(dir)
		return err
	})
	fs.StringVar(&only, "questions", "", "comma-separated question ids to re-execute (the others are reported as not re-executed; for tests)")
	shardFlag := fs.String("shard", "", "with -reexecute: re-execute only shard `i/n` of the answers (0 ≤ i < n), journaled into -out/.journal, and compare nothing; merge the shards with -merge")
	fs.StringVar(&c.out, "out", "build/validate-submission", "with -shard: the shard's output directory")
	merge := fs.String("merge", "", "with -reexecute: take the re-executed verdicts from the journals of the shards' output directories `DIR,DIR,…`, executing nothing")
	fs.BoolVar(&c.github, "github", false, "also print each failure as a GitHub workflow annotation (::error file=…::…)")
	fs.BoolVar(&c.quiet, "quiet", false, "no progress bar")
	fs.Int64Var(&c.limits.MaxFileBytes, "max-file-bytes", c.limits.MaxFileBytes, "size cap of one results file")
	fs.Int64Var(&c.limits.MaxTotalBytes, "max-total-bytes", c.limits.MaxTotalBytes, "size cap of a submission folder")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: validate-submission [flags] [-reexecute [-shard i/n -out DIR | -merge DIR,...]] FOLDER...\n\nFOLDER is a submission folder, e.g. submissions/2026-12-01_acme_my-model_single-llm (SUBMITTING.md).\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() == 0 || (c.record != "" && !c.reexecute) || ((*shardFlag != "" || *merge != "") && !c.reexecute) ||
		(*shardFlag != "" && (*merge != "" || c.record != "")) {
		fs.Usage()
		return exitUsage
	}
	if *shardFlag != "" {
		var err error
		if c.shard, err = journal.ParseShard(*shardFlag); err != nil {
			fmt.Fprintln(stderr, "validate-submission: -shard:", err)
			return exitUsage
		}
	}
	if *merge != "" {
		c.merge = strings.Split(*merge, ",")
	}
	if only != "" {
		for _, id := range strings.Split(only, ",") {
			c.only = append(c.only, strings.TrimSpace(id))
		}
	}
	var root string
	benches := benchmarks{}
	if c.reexecute {
		if c.data == "" {
			_, err := datasets.RootFromEnv()
			fmt.Fprintln(stderr, "validate-submission: -reexecute:", err)
			return exitUsage
		}
		var err error
		// Every tool-usage benchmark this command can load (MatTools' own
		// from the data root, each -benchmark-folder's from its folder) is
		// loaded before any submission is read: a data root or a -questions
		// list that does not load is this side's error (exit 2), never the
		// submission's.
		if root, err = filepath.Abs(c.data); err == nil {
			for _, b := range results.BenchmarksOf("", results.KindToolUsage) {
				if _, ok := datasets.LoaderOf(string(b)); ok {
					if _, err = benches.load(c, root, b); err != nil {
						break
					}
				}
			}
		}
		if err != nil {
			fmt.Fprintln(stderr, "validate-submission:", err)
			return exitUsage
		}
	}
	code := exitOK
	for _, dir := range fs.Args() {
		ok, err := validate(ctx, c, dir, root, benches, stdout, stderr)
		if err != nil {
			fmt.Fprintf(stderr, "validate-submission: %s: %v\n", dir, err)
			return exitInvalid
		}
		if !ok {
			code = exitInvalid
		}
	}
	return code
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

// benchmarks holds the questions loaded for re-execution, by benchmark.
type benchmarks map[results.Benchmark]*datasets.Benchmark

// load returns the questions of tool-usage benchmark name, loaded once
// from the data root with the loader registered for it (MatTools' own from
// the data root; a folder benchmark's from the folder -benchmark-folder
// gave, plan.RegisterFolder), restricted to -questions when given.
func (bs benchmarks) load(c config, root string, name results.Benchmark) (*datasets.Benchmark, error) {
	if b, ok := bs[name]; ok {
		return b, nil
	}
	load, ok := datasets.LoaderOf(string(name))
	if !ok {
		return nil, fmt.Errorf("benchmark %s: its questions are not loaded: give its folder with -benchmark-folder DIR", name)
	}
	b, err := load(root)
	if err == nil && c.only != nil {
		err = scoring.Restrict(b, c.only)
	}
	if err != nil {
		return nil, err
	}
	bs[name] = b
	return b, nil
}

// validate checks one folder, printing its failures and summary; ok is
// false when the submission is invalid. err is a failure of the validation
// itself (sandbox, writing records).
func validate(ctx context.Context, c config, dir, root string, benches benchmarks, stdout, stderr io.Writer) (ok bool, err error) {
	start := time.Now()
	sub, ps := submission.Load(dir, c.limits)
	if len(ps) > 0 {
		report(c, ps, stdout)
		fmt.Fprintf(stdout, "submission %s: INVALID: %s\n", filepath.Base(dir), words.Count(len(ps), "problem", "problems"))
		if c.reexecute {
			fmt.Fprintln(stdout, "  not re-executed: the submission must first be valid without -reexecute")
		}
		return false, nil
	}
	fmt.Fprintf(stdout, "submission %s: valid: %s (%.1f s)\n", sub.Folder, describe(sub), time.Since(start).Seconds())
	if !c.reexecute {
		return true, nil
	}
	if b := sub.Files[0].Run.Benchmark; b.Kind() != results.KindToolUsage {
		fmt.Fprintf(stdout, "  not re-executed: %s runs hold answers, no code\n", b)
		return true, nil
	}
	bench, err := benches.load(c, root, sub.Files[0].Run.Benchmark)
	if err != nil {
		return false, err
	}
	start = time.Now()
	rx, err := reexecute(ctx, c, sub, root, bench, stderr)
	if err != nil {
		return false, err
	}
	if c.shard.Count > 0 {
		fmt.Fprintf(stdout, "  shard %s: %d of %s re-executed now, journal %s; compared nothing: merge the shards with -merge\n",
			c.shard, rx.shardDone, words.Count(rx.executions, "distinct answer", "distinct answers"), rx.journal)
		return true, nil
	}
	if len(rx.problems) > 0 {
		report(c, rx.problems, stdout)
		var ids []string
		for id := range rx.disagree {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		fmt.Fprintf(stdout, "submission %s: INVALID: re-execution contradicts %s, in %s: %s\n",
			sub.Folder, words.Count(len(rx.problems), "submitted verdict", "submitted verdicts"), words.Count(len(ids), "question", "questions"), strings.Join(ids, ", "))
		return false, nil
	}
	if rx.compared == 0 {
		fmt.Fprintf(stdout, "submission %s: INVALID: nothing to re-execute: none of its scored questions has its data files on this machine "+
			"(a submission verifies only by re-executing its code)\n", sub.Folder)
		return false, nil
	}
	fmt.Fprintf(stdout, "  re-executed: %s (%d distinct) in the sandbox under %s: %s compared, all agree (%.1f s)\n",
		words.Count(rx.answers, "answer", "answers"), rx.executions, strings.Join(scoring.Protocols, " and "), words.Count(rx.compared, "verdict", "verdicts"),
		time.Since(start).Seconds())
	if len(rx.notRun) > 0 {
		fmt.Fprintf(stdout, "  not re-executed (never counted as agreeing): %s whose data files are absent on this machine: %s\n",
			words.Count(len(rx.notRun), "question", "questions"), strings.Join(rx.notRun, ", "))
	}
	if len(rx.left) > 0 {
		fmt.Fprintf(stdout, "  left out by the submission (data-missing in its rows, although this machine has their data files): %s: %s\n",
			words.Count(len(rx.left), "question", "questions"), strings.Join(rx.left, ", "))
	}
	if c.record != "" && len(rx.left) > 0 {
		fmt.Fprintf(stdout, "submission %s: not recorded: a verified record covers every question this machine can re-execute, and the submission "+
			"leaves %d of them out; submit them (scored) to be verified\n", sub.Folder, len(rx.left))
		return false, nil
	}
	if c.record != "" {
		dir, n, err := record(c, sub, rx)
		if err != nil {
			return false, err
		}
		fmt.Fprintf(stdout, "  recorded: %s in %s\n", words.Count(n, "verified record", "verified records"), dir)
	}
	return true, nil
}

func describe(s *submission.Submission) string {
	r := s.Files[0].Run
	protocols := map[string]bool{}
	rounds := map[int]bool{}
	for _, f := range s.Files {
		protocols[f.Run.ScoringProtocol] = true
		rounds[f.Run.Round] = true
	}
	ps := make([]string, 0, len(protocols))
	for p := range protocols {
		ps = append(ps, p)
	}
	sort.Strings(ps)
	return fmt.Sprintf("%s of %s, %s, retrieval source %d, model %s, question set %s (%s); %s %s; %s",
		words.Count(len(s.Files), "run", "runs"), r.Benchmark, r.System, r.RetrievalSource, r.Model, r.QuestionSet.Name,
		words.Count(r.QuestionSet.Questions, "question", "questions"), words.Noun(len(ps), "protocol", "protocols"), strings.Join(ps, ", "),
		words.Count(len(rounds), "round", "rounds"))
}

// report prints problems, one per line, and as GitHub annotations with -github.
func report(c config, ps submission.Problems, w io.Writer) {
	for _, p := range ps {
		fmt.Fprintln(w, p.Error())
		if c.github {
			title := "submission"
			if p.Field != "" {
				title = p.Field
			}
			msg := p.Msg
			if p.Row > 0 {
				msg = fmt.Sprintf("row %d: %s", p.Row, msg)
			}
			fmt.Fprintf(w, "::error file=%s,title=%s::%s\n", escapeProperty(p.File), escapeProperty(title), escapeData(msg))
		}
	}
}

// escapeData and escapeProperty escape GitHub workflow command values.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// reexecution is what re-executing a submission found.
type reexecution struct {
	problems   submission.Problems
	disagree   map[string]bool // question ids with a contradicted verdict
	notRun     []string        // question ids not re-executed (data absent)
	left       []string        // question ids executable here that the submission leaves out (data-missing in its rows)
	answers    int             // answers (question × round) re-executed
	executions int             // distinct answers executed
	compared   int             // verdicts compared
	scored     map[string]*scoring.Scored
	env        scoring.Environment
	bench      *datasets.Benchmark
	// With -shard: the answers this invocation re-executed and its journal.
	shardDone int
	journal   string
}

func answerKey(q *results.QuestionRow) string {
	return q.QuestionID + "\x00" + q.FunctionName + "\x00" + q.Code
}

func reexecute(ctx context.Context, c config, sub *submission.Submission, root string, bench *datasets.Benchmark, stderr io.Writer) (*reexecution, error) {
	byID := map[string]*datasets.Question{}
	for i := range bench.Questions {
		byID[bench.Questions[i].ID] = &bench.Questions[i]
	}
	// One execution per distinct answer: a round's answers are the same
	// under both protocols (submission.Load checks that), and identical
	// code in different rounds gives the same verdicts.
	type job struct {
		key string
		q   *datasets.Question
		sub scoring.Submission
	}
	var jobs []job
	seen := map[string]bool{}
	rounds := map[int]bool{}
	rx := &reexecution{disagree: map[string]bool{}, scored: map[string]*scoring.Scored{}, bench: bench}
	for _, f := range sub.Files {
		first := !rounds[f.Run.Round]
		rounds[f.Run.Round] = true
		for i := range f.Questions {
			row := &f.Questions[i]
			q := byID[row.QuestionID]
			if q == nil || row.Verdict == string(results.VerdictDataMissing) || !q.Executable() {
				continue
			}
			if first {
				rx.answers++
			}
			if k := answerKey(row); !seen[k] {
				seen[k] = true
				jobs = append(jobs, job{key: k, q: q, sub: scoring.Submission{Code: row.Code, FunctionName: row.FunctionName}})
			}
		}
	}
	rx.executions = len(jobs)

	// Sharded, the items are the distinct answers in this order.
	parts := []string{"submission", sub.Folder}
	for _, f := range sub.Files {
		parts = append(parts, f.Run.RunID+" "+sub.FileSHA256[f.Run.RunID])
	}
	parts = append(parts, journal.QuestionParts(bench)...)
	ids := make([]string, len(jobs))
	for k, j := range jobs {
		ids[k] = fmt.Sprintf("%s#%d", j.q.ID, k)
	}
	if c.merge != nil {
		out, err := journal.MergeOutcomes(c.merge, "validate-submission", parts, ids, nil)
		if err != nil {
			return nil, err
		}
		rx.env = out.Environment
		for k, j := range jobs {
			rx.scored[j.key] = out.Get(k)
		}
	} else {
		scorer, err := c.sb.Open(ctx, root)
		if err != nil {
			return nil, err
		}
		defer scorer.Close()
		rx.env = scorer.Environment()
		var progress io.Writer
		if !c.quiet {
			progress = stderr
		}
		answer := func(i int) (*datasets.Question, scoring.Submission) { return jobs[i].q, jobs[i].sub }
		if c.shard.Count > 0 {
			rx.shardDone, rx.journal, err = journal.ScoreShard(ctx, scorer, c.out, "validate-submission", parts, c.shard, len(jobs), nil, answer,
				func(k int) string { return ids[k] }, progress)
			return rx, err
		}
		err = scorer.ScoreEach(ctx, len(jobs), answer, func(i int, sc *scoring.Scored) { rx.scored[jobs[i].key] = sc },
			func(i int) string { return jobs[i].q.ID }, progress)
		if err != nil {
			return nil, err
		}
	}

	// Compare, question by question, under each file's protocol.
	notRun := map[string]bool{}
	left := map[string]bool{}
	for _, f := range sub.Files {
		for i := range f.Questions {
			row := &f.Questions[i]
			if row.Verdict == string(results.VerdictDataMissing) {
				if q := byID[row.QuestionID]; q != nil && q.Executable() {
					left[row.QuestionID] = true
				}
				continue
			}
			s := rx.scored[answerKey(row)]
			if s == nil {
				notRun[row.QuestionID] = true
				continue
			}
			got := results.QuestionRow{PropertyCount: row.PropertyCount}
			if err := s.FillRow(&got, f.Run.ScoringProtocol); err != nil {
				return nil, fmt.Errorf("%s: %w", f.Path, err)
			}
			rx.compared++
			if got.Verdict != row.Verdict || !eqBool(got.Runnable, row.Runnable) || !eqInt(got.PropertiesPassed, row.PropertiesPassed) {
				rx.disagree[row.QuestionID] = true
				rx.problems = append(rx.problems, submission.Problem{File: f.Path, Row: i + 1, Field: "verdict",
					Msg: fmt.Sprintf("%s under %s: submitted %s; re-executed %s", row.QuestionID, f.Run.ScoringProtocol, outcome(row), outcome(&got))})
			}
		}
	}
	for id := range notRun {
		rx.notRun = append(rx.notRun, id)
	}
	for id := range left {
		rx.left = append(rx.left, id)
	}
	for _, ids := range [][]string{rx.notRun, rx.left} {
		sort.Slice(ids, func(i, j int) bool { return byID[ids[i]].Index < byID[ids[j]].Index })
	}
	return rx, nil
}

func outcome(q *results.QuestionRow) string {
	s := q.Verdict
	if q.VerdictCause != "" {
		s += " (" + q.VerdictCause + ")"
	}
	if q.Runnable != nil && q.PropertiesPassed != nil {
		s += fmt.Sprintf(", runnable %t, %d of %d properties passed", *q.Runnable, *q.PropertiesPassed, q.PropertyCount)
	}
	return s
}

func eqBool(a, b *bool) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func eqInt(a, b *int32) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// record writes one verified record per submitted run into
// c.record/<folder>/ and returns that folder and the number of files.
func record(c config, sub *submission.Submission, rx *reexecution) (string, int, error) {
	recRoot, err := filepath.Abs(c.record)
	if err != nil {
		return "", 0, err
	}
	subsRoot, err := filepath.Abs(filepath.Dir(sub.Dir))
	if err != nil {
		return "", 0, err
	}
	if rel, err := filepath.Rel(subsRoot, recRoot); err == nil && !strings.HasPrefix(rel, "..") {
		return "", 0, fmt.Errorf("-record %s is inside the submissions root %s: verified records live outside it (e.g. verified/)", c.record, subsRoot)
	}
	dir := filepath.Join(recRoot, sub.Folder)
	// Records of an earlier verification of this submission are replaced.
	old, _ := filepath.Glob(filepath.Join(dir, "*"+results.Extension))
	se := rx.env
	env := results.Environment{Generator: submission.VerifiedGenerator, GeneratorVersion: version.String(), GoVersion: runtime.Version(),
		Libraries: se.Libraries, Sandbox: &se.Sandbox}
	var written []string
	for _, f := range sub.Files {
		vf, err := verifiedFile(f, sub, rx, env)
		if err != nil {
			return "", 0, err
		}
		path := filepath.Join(dir, vf.Run.RunID+results.Extension)
		if err := results.Write(path, vf); err != nil {
			return "", 0, err
		}
		written = append(written, path)
	}
	for _, p := range old {
		if !slices.Contains(written, p) {
			if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
				return "", 0, err
			}
		}
	}
	return dir, len(written), nil
}

// verifiedFile is the rescoring of submitted run f by re-execution: the
// same configuration and answers, the re-executed outcome of every
// question (data-missing where its data is absent here), provenance
// rescored from the submitted file.
func verifiedFile(f *results.File, sub *submission.Submission, rx *reexecution, env results.Environment) (*results.File, error) {
	run := f.Run
	run.FormatVersion = results.FormatVersion // a record is written in the current format, whatever version the submitted file has
	run.Generation = f.Run.Generation.Rescored()
	run.Provenance = results.Provenance{Kind: results.ProvenanceRescored, Origin: results.ProvenanceSubmitted, DerivedFrom: f.Run.RunID,
		Source:     []results.SourceFile{{Path: filepath.ToSlash(filepath.Join(sub.Folder, filepath.Base(f.Path))), SHA256: sub.FileSHA256[f.Run.RunID]}},
		Submission: f.Run.Provenance.Submission}
	run.Environment = env
	run.Usage = nil
	run.StartedAt = nil
	now := time.Now().UTC().Truncate(time.Second)
	run.FinishedAt = &now
	run.Warnings = nil
	run.PromptSHA256, run.PlanSHA256 = "", ""
	vf := &results.File{}
	var ids []string
	props := 0
	byID := map[string]*results.QuestionRow{}
	for i := range f.Questions {
		byID[f.Questions[i].QuestionID] = &f.Questions[i]
	}
	for _, q := range rx.bench.Questions {
		src := byID[q.ID]
		row := results.QuestionRow{QuestionIndex: int32(q.Index), QuestionID: q.ID, PropertyCount: int32(len(q.Properties)),
			Code: src.Code, FunctionName: src.FunctionName, Response: src.Response, ResponseBytes: src.ResponseBytes,
			FinishReason: src.FinishReason, Attempts: src.Attempts, PromptTokens: src.PromptTokens, CompletionTokens: src.CompletionTokens,
			LatencyMS: src.LatencyMS, Retrieved: src.Retrieved, Trace: src.Trace}
		if s := rx.scored[answerKey(src)]; s != nil && src.Verdict != string(results.VerdictDataMissing) {
			if err := s.FillRow(&row, run.ScoringProtocol); err != nil {
				return nil, fmt.Errorf("%s: %w", f.Path, err)
			}
			ids = append(ids, q.ID)
			props += len(q.Properties)
		} else {
			row.Verdict = string(results.VerdictDataMissing)
		}
		vf.Questions = append(vf.Questions, row)
	}
	// The question set: the questions re-executed here (all, or the
	// executable subset as scoring.QuestionSet names it).
	run.QuestionSet = results.ExecutableQuestionSet(ids, props, len(rx.bench.Questions))
	run.RunID = results.MakeRunID(&run)
	vf.Run = run
	var missing []string
	vf.Run.Totals, missing = scoring.Tally(vf.Questions, run.QuestionSet)
	vf.Run.Warnings = scoring.Warnings(env.Sandbox, rx.bench, run.QuestionSet, missing)
	return vf, nil
}
