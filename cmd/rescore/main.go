// Command rescore re-executes stored generated code and scores it under
// mattools-v1 and mattools-v1-strict, without calling any model. Inputs are
// MatTools run folders (holding function_generation_results.jsonl) or this
// project's results files (.parquet) of one tool-usage benchmark: MatTools'
// own, read from the data root, or a folder benchmark, whose questions and
// verification are read from the folder -benchmark-folder DIR gives (the
// folder its runs were made with: its benchmark.json must describe the
// benchmark as the runs record it). For each input and protocol
// it writes one results file with provenance "rescored" into -out. Questions
// whose data files are absent from MATTOOLS_DATA are data-missing, and the run
// then records the question subset it was scored on.
//
//	rescore [flags] INPUT...
//
// Concurrency equals the sandbox's slots (-slots). Existing outputs are kept
// (the command resumes) unless -force is given.
//
// With -shard i/n it re-executes only shard i of n of the items (each input
// run's questions in benchmark order, the inputs in the order given; with
// -all-published each published run's executable questions), item k
// belonging to shard k mod n, into an outcome journal under -out, and
// writes nothing else; -merge DIR,… (the shards' -out directories, with the
// same inputs) then writes what the unsharded command writes from the
// shards' journals, refusing shards of other inputs, generator version or
// sandbox environment (docs/runner.md, "Sharded re-execution").
package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mattools-leaderboard/leaderboard/cmd/internal/cliflags"
	"github.com/mattools-leaderboard/leaderboard/cmd/internal/sandboxflags"
	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/internal/atomicfile"
	"github.com/mattools-leaderboard/leaderboard/internal/version"
	"github.com/mattools-leaderboard/leaderboard/internal/words"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/results/published"
	"github.com/mattools-leaderboard/leaderboard/runner/journal"
	"github.com/mattools-leaderboard/leaderboard/runner/plan"
	"github.com/mattools-leaderboard/leaderboard/runner/scoring"
)

// Exit codes.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

type config struct {
	data, out, verdicts, published string
	sb                             sandboxflags.Sandbox
	force, quiet                   bool
	allPublished                   bool
	store, compare, runs           string
	// alongside labels the environment whose verdicts -all-published keeps
	// beside the store's main ones (published.AlongsideKey); "" for the main.
	alongside string
	// version is the tool-usage benchmark version the verdicts are made
	// in: "" for the published 2025-05, or a corrected version
	// (datasets/corrections.json), whose verdicts -all-published keeps
	// under published.VersionKey and makes for its corrected questions only.
	version string
	only    []string
	// shard is this invocation's part of a sharded rescoring (-shard i/n;
	// the zero Shard: unsharded); merge lists the shards' output
	// directories to merge (-merge).
	shard journal.Shard
	merge []string
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rescore", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c config
	var only string
	cliflags.DataVar(fs, &c.data, nil, "")
	fs.StringVar(&c.out, "out", "build/results/rescored", "directory for the results files")
	c.sb.Register(fs, nil, scoring.DefaultLimits, "the wall clock a safety net, the CPU time decides",
		"run every execution in a fresh interpreter (the reference mode) instead of the sandbox's warm workers")
	fs.BoolVar(&c.force, "force", false, "rescore runs whose results files exist")
	fs.BoolVar(&c.quiet, "quiet", false, "no progress bar")
	fs.StringVar(&c.verdicts, "verdicts", "", "also write every question's verdicts to this CSV file")
	fs.StringVar(&c.published, "published", "", "print each run next to its published totals from this paper-runs.csv")
	fs.BoolVar(&c.allPublished, "all-published", false, "re-execute every published tool-usage run of the data root, question by question, into -store (no INPUT; incremental)")
	fs.StringVar(&c.store, "store", "results/published/reexecuted.json", "with -all-published: the committed store of re-executed verdicts")
	fs.StringVar(&c.compare, "compare", "", "with -all-published: compare the verdicts, question by question, with this store (e.g. the committed one) and fail on any difference")
	fs.StringVar(&c.alongside, "alongside", "", "with -all-published: keep the verdicts beside the store's main ones, under run keys `<run id>@LABEL` (e.g. tasks: the environment of sandbox-env/requirements-tasks.lock; docs/sandbox.md), leaving the main verdicts alone")
	fs.StringVar(&c.version, "benchmark-version", "", "the tool-usage benchmark version whose verification scores the answers: 2025-05 (the default) or a corrected version (datasets/corrections.json); with -all-published its verdicts are kept under run keys `<run id>@VERSION`, for its corrected questions only")
	fs.StringVar(&c.runs, "runs", "", "with -all-published: re-execute only the published runs whose id matches this regular expression")
	shardFlag := fs.String("shard", "", "re-execute only shard `i/n` of the items (0 ≤ i < n), journaled into -out/.journal; merge the shards with -merge")
	merge := fs.String("merge", "", "write the outputs from the journals of the shards' output directories `DIR,DIR,…` (same inputs, data and -questions), executing nothing")
	fs.Func("benchmark-folder", "a folder benchmark's folder (benchmark.json; docs/runner.md#folder-benchmarks), whose questions and verification its runs are re-executed with (repeatable)", func(dir string) error {
		_, err := plan.RegisterFolder(dir)
		return err
	})
	fs.StringVar(&only, "questions", "", "comma-separated question ids to score (the others become data-missing; for tests)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: rescore [flags] [-shard i/n | -merge DIR,...] INPUT...\n       rescore [flags] [-shard i/n | -merge DIR,...] -all-published\n\nINPUT is a MatTools run folder (with function_generation_results.jsonl) or a .parquet results file of a tool-usage benchmark\n(MatTools' own, or a folder benchmark whose folder -benchmark-folder gives); the inputs are runs of one benchmark.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if (fs.NArg() == 0) != c.allPublished || (*shardFlag != "" && *merge != "") {
		fs.Usage()
		return exitUsage
	}
	if *shardFlag != "" {
		var err error
		if c.shard, err = journal.ParseShard(*shardFlag); err != nil {
			fmt.Fprintln(stderr, "rescore: -shard:", err)
			return exitUsage
		}
	}
	if *merge != "" {
		c.merge = strings.Split(*merge, ",")
	}
	if c.alongside != "" {
		if err := published.CheckAlongsideLabel(c.alongside); err != nil || !c.allPublished {
			if err == nil {
				err = fmt.Errorf("only with -all-published")
			}
			fmt.Fprintln(stderr, "rescore: -alongside:", err)
			return exitUsage
		}
	}
	if c.version == results.BenchmarkVersion2025_05 {
		c.version = ""
	}
	if c.version != "" {
		if _, ok := datasets.LookupCorrectedVersion(c.version); !ok || c.alongside != "" {
			err := fmt.Errorf("%q is not a corrected version of datasets/corrections.json", c.version)
			if ok {
				err = fmt.Errorf("not with -alongside (a corrected version is re-executed in the main environment)")
			}
			fmt.Fprintln(stderr, "rescore: -benchmark-version:", err)
			return exitUsage
		}
	}
	if only != "" {
		for _, id := range strings.Split(only, ",") {
			c.only = append(c.only, strings.TrimSpace(id))
		}
	}
	if c.data == "" {
		_, err := datasets.RootFromEnv()
		fmt.Fprintln(stderr, "rescore:", err)
		return exitUsage
	}
	do := func() error { return rescore(ctx, c, fs.Args(), stdout, stderr) }
	if c.allPublished {
		do = func() error { return rescorePublished(ctx, c, stdout, stderr) }
	}
	if err := do(); err != nil {
		fmt.Fprintln(stderr, "rescore:", err)
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

// root returns the data root of c as an absolute path.
func (c config) root() (string, error) { return filepath.Abs(c.data) }

// benchmark loads the questions of tool-usage benchmark name (any
// registered benchmark of kind tool-usage) from the data root with the
// loader registered for it: MatTools' own from the data root, a folder
// benchmark from the folder given with -benchmark-folder
// (plan.RegisterFolder). In version c.version (a corrected version of
// datasets/corrections.json) when given, restricted to -questions when
// given. A benchmark of another kind, or one whose loader is not
// registered, is an error.
func (c config) benchmark(root string, name results.Benchmark) (*datasets.Benchmark, error) {
	if name.Kind() != results.KindToolUsage {
		return nil, fmt.Errorf("a %s run has no generated code to rescore", name)
	}
	load, ok := datasets.LoaderOf(string(name))
	if !ok {
		return nil, fmt.Errorf("benchmark %s: its questions are not loaded: give its folder with -benchmark-folder DIR", name)
	}
	if c.version != "" {
		// A corrected version is one of the benchmark's registered
		// versions (results.BenchmarkVersion.CorrectsVersion): MatTools'
		// corrections apply to MatTools' questions only.
		info, _ := results.LookupBenchmark(name)
		if v, ok := info.Version(c.version); !ok || v.CorrectsVersion == "" {
			return nil, fmt.Errorf("-benchmark-version %s: not a corrected version of benchmark %s", c.version, name)
		}
	}
	bench, err := load(root)
	if err != nil {
		return nil, err
	}
	return c.inVersion(bench)
}

// inVersion returns bench in version c.version (its own when ""),
// restricted to -questions when given.
func (c config) inVersion(bench *datasets.Benchmark) (*datasets.Benchmark, error) {
	if c.version != "" {
		v, _ := datasets.LookupCorrectedVersion(c.version)
		var err error
		if bench, err = v.Apply(bench); err != nil {
			return nil, err
		}
	}
	if c.only != nil {
		if err := scoring.Restrict(bench, c.only); err != nil {
			return nil, fmt.Errorf("-questions: %w", err)
		}
	}
	return bench, nil
}

// openScorer opens the sandbox scorer with c's backend, slots, Python and limits.
func (c config) openScorer(ctx context.Context, root string) (*scoring.Scorer, error) {
	return c.sb.Open(ctx, root)
}

func rescore(ctx context.Context, c config, inputs []string, stdout, stderr io.Writer) error {
	root, err := c.root()
	if err != nil {
		return err
	}
	var runs []*storedRun
	for _, in := range inputs {
		var r *storedRun
		if strings.HasSuffix(in, results.Extension) {
			r, err = readParquetRun(in)
		} else {
			r, err = readMatToolsRun(in, root)
		}
		if err != nil {
			return err
		}
		if len(runs) > 0 && r.Benchmark != runs[0].Benchmark {
			return fmt.Errorf("%s: a run of benchmark %s; %s is of %s: rescore the runs of one benchmark at a time", r.Label, r.Benchmark, runs[0].Label, runs[0].Benchmark)
		}
		runs = append(runs, r)
	}
	bench, err := c.benchmark(root, runs[0].Benchmark)
	if err != nil {
		return err
	}
	for _, r := range runs {
		if err := r.answersEvery(bench); err != nil {
			return err
		}
	}

	// The items: every input run's questions, in benchmark order, the runs
	// in the order given; item k is run k/nq's question k%nq.
	nq := len(bench.Questions)
	parts := []string{"inputs"}
	ids := make([]string, 0, len(runs)*nq)
	for _, r := range runs {
		parts = append(parts, r.DerivedFrom+" "+r.Source.SHA256)
		for _, q := range bench.Questions {
			ids = append(ids, r.DerivedFrom+"/"+q.ID)
		}
	}
	parts = append(parts, journal.QuestionParts(bench)...)
	answer := func(k int) (*datasets.Question, scoring.Submission) {
		sub := runs[k/nq].Code[bench.Questions[k%nq].ID]
		return &bench.Questions[k%nq], scoring.Submission{Code: sub.Code, FunctionName: sub.FunctionName}
	}
	if c.shard.Count > 0 {
		scorer, err := c.openScorer(ctx, root)
		if err != nil {
			return err
		}
		defer scorer.Close()
		return c.scoreShard(ctx, scorer, parts, len(ids), nil, answer, func(k int) string { return ids[k] }, stderr)
	}

	// Skip runs whose outputs exist (resume), unless -force.
	var todo []*storedRun
	var todoIdx []int // todo[i] is runs[todoIdx[i]]
	for ri, r := range runs {
		done := !c.force
		for _, p := range scoring.Protocols {
			if _, err := os.Stat(outPath(c.out, r, p, bench)); err != nil {
				done = false
			}
		}
		if done {
			fmt.Fprintf(stderr, "rescore: %s: results exist, skipped (use -force to redo)\n", r.Label)
			continue
		}
		todo = append(todo, r)
		todoIdx = append(todoIdx, ri)
	}

	// One task per run × question, in order.
	scored := make([][]*scoring.Scored, len(todo))
	for i := range todo {
		scored[i] = make([]*scoring.Scored, nq)
	}
	var se scoring.Environment
	if c.merge != nil {
		out, err := journal.MergeOutcomes(c.merge, "rescore", parts, ids, nil)
		if err != nil {
			return err
		}
		se = out.Environment
		for i, ri := range todoIdx {
			for j := range nq {
				scored[i][j] = out.Get(ri*nq + j)
			}
		}
	} else {
		scorer, err := c.openScorer(ctx, root)
		if err != nil {
			return err
		}
		defer scorer.Close()
		var progress io.Writer
		if !c.quiet {
			progress = stderr
		}
		err = scorer.ScoreEach(ctx, len(todo)*nq, func(i int) (*datasets.Question, scoring.Submission) {
			return answer(todoIdx[i/nq]*nq + i%nq)
		}, func(i int, sc *scoring.Scored) { scored[i/nq][i%nq] = sc }, func(i int) string { return todo[i/nq].Label }, progress)
		if err != nil {
			return err
		}
		se = scorer.Environment()
	}

	env := results.Environment{Generator: results.GeneratorRescore, GeneratorVersion: version.String(), GoVersion: runtime.Version(), Libraries: se.Libraries,
		Sandbox: &se.Sandbox}
	var files []*results.File
	for i, r := range todo {
		for _, p := range scoring.Protocols {
			f, err := buildFile(r, p, bench, scored[i], env)
			if err != nil {
				return err
			}
			path := outPath(c.out, r, p, bench)
			if err := results.Write(path, f); err != nil {
				return err
			}
			files = append(files, f)
			fmt.Fprintf(stderr, "rescore: wrote %s\n", path)
		}
	}
	if c.verdicts != "" {
		seconds := map[string]float64{}
		for i, r := range todo {
			for j, q := range bench.Questions {
				seconds[r.DerivedFrom+"/"+q.ID] = scored[i][j].TotalDuration.Seconds()
			}
		}
		if err := writeVerdicts(c.verdicts, files, seconds); err != nil {
			return err
		}
	}
	return summarize(stdout, files, c.published)
}

// scoreShard re-executes with scorer shard c.shard of a work of n items
// (parts its fingerprint; want, when set, the items to execute) into its
// outcome journal under c.out, resuming it, and writes nothing else.
func (c config) scoreShard(ctx context.Context, scorer *scoring.Scorer, parts []string, n int, want func(k int) bool,
	answer func(k int) (*datasets.Question, scoring.Submission), itemID func(k int) string, stderr io.Writer) error {
	var progress io.Writer
	if !c.quiet {
		progress = stderr
	}
	done, journal, err := journal.ScoreShard(ctx, scorer, c.out, "rescore", parts, c.shard, n, want, answer, itemID, progress)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "rescore: shard %s: %s re-executed now (of %s in all), journal %s; merge the shards' -out directories with -merge\n",
		c.shard, words.Count(done, "item", "items"), words.Count(n, "item", "items"), journal)
	return nil
}

// baseRun is the rescored run of r under protocol, scored on b: its
// benchmark r's, its version b's (for a corrected version, as before, the
// version it corrects, whose questions it holds), its upstream commit b's
// or else the registry's for that version (MatTools': results.UpstreamCommit;
// a folder benchmark's: none).
func baseRun(r *storedRun, protocol string, b *datasets.Benchmark) results.Run {
	info, _ := results.LookupBenchmark(r.Benchmark)
	version := b.Version
	if version == "" && len(info.Versions) > 0 {
		version = info.Versions[0].ID
	}
	v, _ := info.Version(version)
	if v.CorrectsVersion != "" {
		version = v.CorrectsVersion
		v, _ = info.Version(version)
	}
	commit := b.Commit
	if commit == "" {
		commit = v.UpstreamCommit
	}
	run := results.Run{FormatVersion: results.FormatVersion, Benchmark: r.Benchmark,
		BenchmarkVersion: version, UpstreamCommit: commit, System: r.System,
		RetrievalSource: r.RetrievalSource, Model: r.Model, Round: r.Round, ScoringProtocol: protocol,
		Generation:  r.Identity.Generation.Rescored(),
		QuestionSet: scoring.QuestionSet(b),
		Provenance: results.Provenance{Kind: results.ProvenanceRescored, Origin: r.Origin, DerivedFrom: r.DerivedFrom,
			Source: []results.SourceFile{r.Source}, Submission: r.Identity.Provenance.Submission},
		Variant: r.Identity.Variant, TopK: r.Identity.TopK, RetrievalMethod: r.Identity.RetrievalMethod, CorpusID: r.Identity.CorpusID,
		EmbeddingModel: r.Identity.EmbeddingModel, SystemParams: r.Identity.SystemParams,
		ModelDisplayName: r.Identity.ModelDisplayName, ModelGroup: r.Identity.ModelGroup,
	}
	// A benchmark, system or protocol registered at run time describes
	// itself on the rescored run as on the runner's (the registry learnt
	// it from the input run or -benchmark-folder), so that readers that do
	// not link it accept the rescored run too; built-ins record nothing.
	for name, record := range map[string]func() (json.RawMessage, bool){
		results.ExtensionBenchmark:       func() (json.RawMessage, bool) { return results.BenchmarkRecord(r.Benchmark) },
		results.ExtensionSystem:          func() (json.RawMessage, bool) { return results.SystemRecord(r.System) },
		results.ExtensionScoringProtocol: func() (json.RawMessage, bool) { return results.ProtocolRecord(protocol) },
	} {
		if ext, ok := record(); ok {
			if run.Extensions == nil {
				run.Extensions = map[string]json.RawMessage{}
			}
			run.Extensions[name] = ext
		}
	}
	run.RunID = results.MakeRunID(&run)
	return run
}

func outPath(dir string, r *storedRun, protocol string, b *datasets.Benchmark) string {
	run := baseRun(r, protocol, b)
	return filepath.Join(dir, run.RunID+results.Extension)
}

func buildFile(r *storedRun, protocol string, b *datasets.Benchmark, scored []*scoring.Scored, env results.Environment) (*results.File, error) {
	run := baseRun(r, protocol, b)
	run.Environment = env
	now := time.Now().UTC().Truncate(time.Second)
	run.FinishedAt = &now
	f := &results.File{Run: run}
	for i, q := range b.Questions {
		sub := r.Code[q.ID]
		row := results.QuestionRow{QuestionIndex: int32(q.Index), QuestionID: q.ID, PropertyCount: int32(len(q.Properties)),
			Code: sub.Code, FunctionName: sub.FunctionName, Retrieved: sub.Retrieved, Trace: sub.Trace}
		if err := scored[i].FillRow(&row, protocol); err != nil {
			return nil, err
		}
		f.Questions = append(f.Questions, row)
	}
	var missing []string
	f.Run.Totals, missing = scoring.Tally(f.Questions, run.QuestionSet)
	f.Run.Warnings = append(f.Run.Warnings, scoring.Warnings(env.Sandbox, b, run.QuestionSet, missing)...)
	return f, nil
}

// writeVerdicts writes one line per run × question: the protocol, verdict,
// cause, runnable, properties passed and the seconds the question took to
// score (run, parse and verify, both protocols together).
func writeVerdicts(path string, files []*results.File, seconds map[string]float64) error {
	tmp, err := atomicfile.Create(path)
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // a no-op once committed
	w := csv.NewWriter(tmp)
	w.Write([]string{"derived_from", "protocol", "question_index", "question_id", "properties", "verdict", "cause", "runnable", "properties_passed", "seconds"})
	for _, f := range files {
		for _, q := range f.Questions {
			rn, pp := "", ""
			if q.Runnable != nil {
				rn, pp = strconv.FormatBool(*q.Runnable), strconv.Itoa(int(*q.PropertiesPassed))
			}
			w.Write([]string{f.Run.Provenance.DerivedFrom, f.Run.ScoringProtocol, strconv.Itoa(int(q.QuestionIndex)), q.QuestionID,
				strconv.Itoa(int(q.PropertyCount)), q.Verdict, q.VerdictCause, rn, pp,
				strconv.FormatFloat(seconds[f.Run.Provenance.DerivedFrom+"/"+q.QuestionID], 'f', 3, 64)})
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		tmp.Close()
		return err
	}
	return atomicfile.Commit(tmp, path, 0o644)
}

// summarize prints one line per run: runnable and properties passed on the
// scored subset, data-missing count and, with a paper-runs.csv, the
// published totals (out of 49 / 138) of the run it derives from.
func summarize(w io.Writer, files []*results.File, publishedCSV string) error {
	published := map[string][2]string{}
	if publishedCSV != "" {
		fh, err := os.Open(publishedCSV)
		if err != nil {
			return err
		}
		recs, err := csv.NewReader(fh).ReadAll()
		fh.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", publishedCSV, err)
		}
		for i, rec := range recs[1:] {
			if len(rec) < 9 {
				return fmt.Errorf("%s:%d: want 9 fields", publishedCSV, i+2)
			}
			// family,model,method,round,runnable,runnable_total,success,success_total,source
			src := strings.TrimSuffix(rec[8], "accuracy_summary.xlsx") + "function_generation_results.jsonl"
			published[src] = [2]string{rec[4], rec[6]}
		}
	}
	sort.SliceStable(files, func(i, j int) bool { return files[i].Run.RunID < files[j].Run.RunID })
	fmt.Fprintf(w, "%-70s %-18s %9s %9s %12s %14s\n", "run (derived from)", "protocol", "runnable", "passed", "data-missing", "published r/p")
	for _, f := range files {
		t := f.Run.Totals
		missing := 0
		for _, q := range f.Questions {
			if q.Verdict == string(results.VerdictDataMissing) {
				missing++
			}
		}
		pub := "-"
		if len(f.Run.Provenance.Source) > 0 {
			if p, ok := published[f.Run.Provenance.Source[0].Path]; ok {
				pub = p[0] + "/49 " + p[1] + "/138"
			}
		}
		fmt.Fprintf(w, "%-70s %-18s %5d/%-3d %5d/%-3d %12d %14s\n", f.Run.Provenance.DerivedFrom, f.Run.ScoringProtocol,
			*t.Runnable, t.Questions, *t.PropertiesPassed, t.Properties, missing, pub)
	}
	return nil
}
