// Command run-benchmark executes a run plan: every configuration of the plan
// (benchmark × system × retrieval source × model) in every round, against
// OpenAI-compatible endpoints, into one results file per run (results format
// v3, results.FormatVersion; provenance "runner") in the output directory.
//
//	run-benchmark -plan plans/paper.toml -dry-run    # runs, model calls, estimated cost; no key needed
//	run-benchmark -plan plans/paper.toml             # run (resumes whatever an earlier start left unfinished)
//
// With -shard i/n it runs only shard i (0-based) of n of the plan's
// (configuration, round, question) items, into journals of its own, and
// writes no results file; cmd/merge writes them from every shard's output
// directory (see runner.Shard and docs/runner.md#sharded-runs).
//
// Tool-usage answers are scored in a sandbox (the plan's [sandbox] backend,
// or -sandbox: auto, local or docker; never unsandboxed: when no backend
// works the command stops with an error before any model call) under the
// plan's scoring protocols, one run each; -unscored writes them unscored
// instead (generated code only, for cmd/rescore elsewhere).
//
// The prompt texts come from <data>/prompts (this project's copy of the
// data) or -prompts; an upstream checkout has no such folder, so they are
// extracted from its Python sources (parsed with the sandbox's Python, or
// python3; never executed) and cached under -prompts-cache.
//
// API keys come from the environment variables the plan names (api_key_env);
// they are read once and removed from the process environment before any run
// starts and before the sandbox opens, so no child process (a sandbox)
// inherits them. Ctrl-C stops at once and resumably: run the same command
// again to continue.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"

	"github.com/mattools-leaderboard/leaderboard/cmd/internal/cliflags"
	"github.com/mattools-leaderboard/leaderboard/cmd/internal/sandboxflags"
	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/runner"
	"github.com/mattools-leaderboard/leaderboard/runner/plan"
	"github.com/mattools-leaderboard/leaderboard/runner/scoring"
	"github.com/mattools-leaderboard/leaderboard/runner/systems"
	"github.com/mattools-leaderboard/leaderboard/sandbox"
)

// Exit codes.
const (
	exitOK          = 0
	exitFailed      = 1 // a run failed, or the plan or data is invalid
	exitUsage       = 2
	exitInterrupted = 130 // Ctrl-C; run again to resume
)

// environ is the process environment, replaceable in tests.
type environ struct {
	getenv   func(string) string
	unsetenv func(string) error
}

func main() {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go stopOnSignals(sigs, cancel, func() { os.Exit(exitInterrupted) })
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr, environ{os.Getenv, os.Unsetenv}))
}

// errSignal is the cause of the run's context when a signal stopped it.
type errSignal struct{ sig os.Signal }

func (e errSignal) Error() string { return "received " + e.sig.String() }

// stopOnSignals cancels the run (resumably: the questions in flight are
// abandoned, the journals flushed) on the first SIGINT or SIGTERM from
// sigs. After it, a second Ctrl-C (SIGINT) calls kill, which ends the
// process at once; a SIGTERM again is ignored: a scheduler (Slurm's
// scancel --full, a pre-emption) signals every process of a job, and a
// wrapper may forward the same signal, so one stop may arrive twice, and
// exiting on the second would cut the journal's last write short.
func stopOnSignals(sigs <-chan os.Signal, cancel context.CancelCauseFunc, kill func()) {
	cancel(errSignal{<-sigs})
	for s := range sigs {
		if s == os.Interrupt {
			kill()
			return
		}
	}
}

// scoresToolUsage reports whether p runs a tool-usage benchmark (MatTools'
// or a registered one, such as a folder benchmark), whose answers are scored
// in the sandbox.
func scoresToolUsage(p *plan.Plan) bool {
	for _, b := range p.Benchmarks {
		if b.Kind() == results.KindToolUsage {
			return true
		}
	}
	return false
}

// openScorer opens the sandbox scorer for the plan's tool-usage runs:
// backend "" means the plan's sandbox.backend.
// noCgroup lets the local backend run with rlimits only (sandbox.Options
// AllowNoCgroup).
// cold runs every execution in a fresh interpreter (sandbox.Options.Cold;
// the default is the local backend's warm workers).
func openScorer(ctx context.Context, p *plan.Plan, data, backend, python string, noCgroup, cold bool) (*scoring.Scorer, error) {
	if backend == "" {
		backend = p.Sandbox.Backend
	}
	sc, err := scoring.Open(ctx, backend, data, sandbox.Options{Slots: p.Sandbox.Slots, Python: python,
		Limits: sandbox.Limits{Wall: p.Sandbox.Timeout.Duration}, AllowNoCgroup: noCgroup, Cold: cold})
	if err != nil {
		return nil, fmt.Errorf("opening the sandbox to score tool-usage answers: %w\n"+
			"(install the sandbox, bubblewrap and its Python environment, with `make setup` as root, choose a backend with -sandbox, or write the runs unscored with -unscored)", err)
	}
	return sc, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer, env environ) int {
	fs := flag.NewFlagSet("run-benchmark", flag.ContinueOnError)
	fs.SetOutput(stderr)
	planPath := fs.String("plan", "", "the run plan (TOML); see plans/paper.toml")
	data := cliflags.Data(fs, env.getenv, "")
	prompts := fs.String("prompts", "", "the prompt texts (default <data>/prompts, or extracted from an upstream checkout's Python sources)")
	promptsCache := fs.String("prompts-cache", systems.DefaultPromptsCache, "where prompt texts extracted from an upstream checkout are cached")
	out := fs.String("out", "build/results/runner", "output directory: one <run id>.parquet per run, journals in .journal/")
	dryRun := fs.Bool("dry-run", false, "print the runs with their model calls and estimated cost, and stop")
	noProgress := fs.Bool("no-progress", false, "do not show the progress bar")
	lightrag := fs.String("lightrag", env.getenv("LIGHTRAG_DATA"), "LightRAG 1.3.3's prompt texts, for graph-rag (default $LIGHTRAG_DATA)")
	graphCache := fs.String("graph-cache", runner.DefaultGraphCache, "where graph-rag's indexes are built and reused")
	verbose := fs.Bool("v", false, "log debug details")
	backend := fs.String("sandbox", "", "sandbox backend for scoring: auto, local or docker (default: the plan's sandbox.backend, auto)")
	python := fs.String("sandbox-python", sandboxflags.FindPython(env.getenv),
		"the sandbox's Python environment (make sandbox-env; default $MATTOOLS_SANDBOX_PYTHON, else /opt/mattools-sandbox or ~/.local/share/mattools-sandbox, the first installed)")
	noCgroup := fs.Bool("sandbox-no-cgroup", false, "let the local sandbox run with rlimits only when no memory and pids cgroup is writable")
	cold := fs.Bool("cold", false, "run every execution in a fresh interpreter (the reference mode) instead of the sandbox's warm workers")
	unscored := fs.Bool("unscored", false, "write tool-usage runs unscored (generated code only; score them later with cmd/rescore)")
	shardFlag := fs.String("shard", "", "run only shard `i/n` of the plan's (configuration, round, question) items (0 ≤ i < n) into journals of its own; "+
		"cmd/merge writes the results files from every shard's -out")
	var models, baseURLs listFlag
	fs.Var(&models, "model", "run only the runs of this `model` (the plan's [[models]] name; repeatable): a cluster task serving one model; "+
		"with -shard, that model's part of the shard")
	fs.Var(&baseURLs, "base-url", "ask `model=URL` at URL instead of the plan's base_url, in this process only (repeatable; recorded in the journals' "+
		"session lines, not in the plan's hash nor the results files); a bare URL applies to the one model of the plan or of -model")
	slots := fs.Int("sandbox-slots", 0, "executions at once in the sandbox (default: the plan's [sandbox] slots, else $"+cliflags.SlurmCPUsVar+
		" in a Slurm task, else the CPUs this process may use)")
	journalSync := fs.Duration("journal-sync", runner.DefaultJournalSync, "the journal's sync interval: a finished question is on disk, and counted done, "+
		"within this time (a kill loses at most the questions of one interval, which a restart asks again)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: run-benchmark -plan FILE [-data DIR] [-prompts DIR] [-prompts-cache DIR] [-out DIR] [-sandbox auto|local|docker] [-sandbox-python DIR] [-sandbox-no-cgroup] [-cold] [-lightrag DIR] [-graph-cache DIR] [-unscored] [-shard i/n] [-model NAME]... [-base-url [NAME=]URL]... [-sandbox-slots N] [-journal-sync D] [-dry-run] [-no-progress] [-v]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if *planPath == "" || fs.NArg() > 0 {
		fs.Usage()
		return exitUsage
	}
	if *backend != "" && !slices.Contains(plan.SandboxBackends, *backend) {
		fmt.Fprintf(stderr, "run-benchmark: -sandbox %q: want one of %v\n", *backend, plan.SandboxBackends)
		return exitUsage
	}
	if *data == "" {
		fmt.Fprintf(stderr, "run-benchmark: no data root: set %s or -data to a MatTools checkout (github.com/Grenzlinie/MatTools, commit %s)\n",
			datasets.EnvVar, datasets.PinnedCommit)
		return exitUsage
	}
	var shard runner.Shard
	if *shardFlag != "" {
		var err error
		if shard, err = runner.ParseShard(*shardFlag); err != nil {
			fmt.Fprintln(stderr, "run-benchmark: -shard:", err)
			return exitUsage
		}
	}
	p, err := plan.Load(*planPath)
	if err != nil {
		fmt.Fprintln(stderr, "run-benchmark:", err)
		return exitFailed
	}
	planSum, err := runner.PlanFileSHA256(*planPath)
	if err != nil {
		fmt.Fprintln(stderr, "run-benchmark:", err)
		return exitFailed
	}
	// The progress bar and the log share stderr: a log record that follows
	// a bar drawn without its newline starts on a line of its own.
	term := &barAndLog{w: stderr}
	level := slog.LevelInfo
	switch {
	case *verbose:
		level = slog.LevelDebug
	case !*noProgress && !*dryRun:
		level = slog.LevelWarn // the bar shows progress; retries and failures are still logged
	}
	urls, err := parseBaseURLs(baseURLs, models, p)
	if err != nil {
		fmt.Fprintln(stderr, "run-benchmark: -base-url:", err)
		return exitUsage
	}
	if *slots < 0 {
		fmt.Fprintf(stderr, "run-benchmark: -sandbox-slots %d: want at least 1 (0: the default)\n", *slots)
		return exitUsage
	}
	if *slots > 0 {
		p.Sandbox.Slots = *slots
	} else if p.Sandbox.Slots == 0 {
		p.Sandbox.Slots = cliflags.AllocatedCPUs(env.getenv)
	}
	opts := runner.Options{Models: models, BaseURLs: urls, Plan: p, DataRoot: *data, LightRAGDir: *lightrag, GraphCache: *graphCache, PromptsDir: *prompts, PromptsCache: *promptsCache, OutDir: *out, Unscored: *unscored,
		Shard: shard, PlanSHA256: planSum, JournalSync: *journalSync,
		Python:       []string{filepath.Join(*python, "bin", "python"), "python3"},
		CorpusPython: filepath.Join(*python, "bin", "python3"),
		Log:          slog.New(slog.NewTextHandler(term.logWriter(), &slog.HandlerOptions{Level: level}))}

	if *dryRun {
		return dryRunPlan(stdout, stderr, opts, env)
	}

	keys, err := readKeys(p, models, env)
	if err != nil {
		fmt.Fprintln(stderr, "run-benchmark:", err)
		return exitFailed
	}
	opts.APIKeys = keys
	if !*unscored && scoresToolUsage(p) {
		sc, err := openScorer(ctx, p, *data, *backend, *python, *noCgroup, *cold)
		if err != nil && ctx.Err() != nil {
			// Stopped while the sandbox started: not a sandbox problem.
			fmt.Fprintf(stderr, "run-benchmark: interrupted (%v) while the sandbox was starting; nothing was asked: run the same command again\n", context.Cause(ctx))
			return exitInterrupted
		}
		if err != nil {
			fmt.Fprintln(stderr, "run-benchmark:", err)
			return exitFailed
		}
		defer sc.Close()
		se := sc.Environment()
		opts.Scorer = sc
		opts.Log.Info("sandbox opened", "backend", se.Sandbox.Backend, "version", se.Sandbox.Version, "slots", sc.Sandbox.Info().Slots,
			"timeout_s", se.Sandbox.TimeoutSeconds, "pymatgen", se.Libraries["pymatgen"], "lock_sha256", se.Sandbox.LockSHA256)
	}
	if !*noProgress {
		opts.Progress = term.barWriter()
	}
	if *verbose {
		opts.OnJournaled = func(journalID, questionID string) {
			opts.Log.Debug("journaled", "run", journalID, "question", questionID)
		}
	}
	runs, err := runner.Run(ctx, opts)
	printRuns(stdout, runs)
	switch {
	case ctx.Err() != nil:
		fmt.Fprintf(stderr, "run-benchmark: interrupted (%v); every finished question is journaled: run the same command again to resume\n", context.Cause(ctx))
		return exitInterrupted
	case err != nil:
		fmt.Fprintln(stderr, "run-benchmark:", err)
		return exitFailed
	}
	if shard.Count > 1 {
		fmt.Fprintf(stdout, "shard %s journaled in %s; when every shard is done: merge -plan %s -out DIR SHARD-OUT...\n", shard, *out, *planPath)
	}
	return exitOK
}

// dryRunPlan prints the runs of opts' plan with their model calls and
// estimated cost (runner.EstimatePlan), asking nothing; it unsets the
// plan's key variables first (a dry run needs no key) and returns the exit
// code.
func dryRunPlan(stdout, stderr io.Writer, opts runner.Options, env environ) int {
	p := opts.Plan
	for _, k := range runner.KeyVariables(p) {
		env.unsetenv(k.Name) // a dry run needs no key; no child process may inherit one
	}
	ests, err := runner.EstimatePlan(opts)
	if err != nil {
		fmt.Fprintln(stderr, "run-benchmark:", err)
		return exitFailed
	}
	if err := runner.WriteEstimates(stdout, ests, p.Estimate.BytesPerToken); err != nil {
		return exitFailed
	}
	return exitOK
}

// readKeys reads the API keys of the models this process asks (models,
// when not empty: a cluster task serving one model needs no other model's
// key) and then unsets every key variable of p, so that no child process
// inherits a key.
func readKeys(p *plan.Plan, models []string, env environ) (map[string]string, error) {
	keyPlan := p
	if len(models) > 0 {
		q := *p
		q.Models = slices.DeleteFunc(slices.Clone(p.Models), func(m plan.Model) bool { return !slices.Contains(models, m.Name) })
		keyPlan = &q
	}
	keys, err := runner.ReadAPIKeys(keyPlan, env.getenv)
	if err != nil {
		return nil, err
	}
	for _, k := range runner.KeyVariables(p) {
		env.unsetenv(k.Name) // no child process may inherit a key
	}
	return keys, nil
}

// printRuns prints one line per run: its status, questions done (of those
// asked; with how many had no data files, in a scored tool-usage run),
// model, run ID, headline scores (scores), tokens, cost (USD; "-" when
// unknown) and results file; then, once per question set smaller than its
// benchmark, the sentence saying so (subsetNotes).
func printRuns(stdout io.Writer, runs []runner.RunResult) {
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "status\tdone\tmodel\trun\trunnable\ttask success\taccuracy\tprompt tok\tcompletion tok\tcost USD\tfile")
	for _, r := range runs {
		cost := "-"
		if r.Usage.CostUSD != nil {
			cost = fmt.Sprintf("%.4f", *r.Usage.CostUSD)
		}
		file := r.Path
		if r.Status == runner.StatusJournaled {
			file = "- (shard journaled; merge writes it)"
		}
		done := fmt.Sprintf("%d/%d", r.Done, r.Items)
		if r.WithoutData > 0 {
			done += fmt.Sprintf(" (%d without data files)", r.WithoutData)
		}
		runnable, success, accuracy := scores(r.Run)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%s\t%s\n", r.Status, done, r.Model, r.RunID, runnable, success, accuracy,
			r.Usage.PromptTokens, r.Usage.CompletionTokens, cost, file)
	}
	tw.Flush()
	for _, n := range subsetNotes(runs) {
		fmt.Fprintln(stdout, n)
	}
}

// scores returns the headline numbers of run r from the totals its results
// file records (results.Totals, as the leaderboard shows them): a tool-usage
// run's function runnable rate (runnable of the question set's questions)
// and task success rate (properties passed of its properties), a QA run's
// accuracy (correct of its questions, strict extraction), each as
// "n/of (p %)"; "-" for what r does not have (nil r, unscored, the other
// kind).
func scores(r *results.Run) (runnable, success, accuracy string) {
	runnable, success, accuracy = "-", "-", "-"
	if r == nil || !r.Totals.Scored {
		return
	}
	t := r.Totals
	if pct, ok := t.FunctionRunnableRate(); ok {
		runnable = fmt.Sprintf("%d/%d (%.2f %%)", *t.Runnable, t.Questions, pct)
	}
	if pct, ok := t.TaskSuccessRate(); ok {
		success = fmt.Sprintf("%d/%d (%.2f %%)", *t.PropertiesPassed, t.Properties, pct)
	}
	if pct, ok := t.Accuracy(); ok {
		accuracy = fmt.Sprintf("%d/%d (%.2f %%)", *t.Correct, t.Questions, pct)
	}
	return
}

// subsetNotes returns one line per question set of runs that leaves out
// questions without data files (runner.RunResult.WithoutData, of a run
// whose record is known): how many questions of the benchmark the runs are
// scored on, the set's name and properties, and how many questions lacked
// their data files, the facts of the warning the results file records
// (runner/scoring.Warnings), which the leaderboard's configuration page
// shows with the questions' ids.
func subsetNotes(runs []runner.RunResult) []string {
	count := map[string]int{} // runs per line
	var order []string
	for _, r := range runs {
		if r.Run == nil || r.WithoutData == 0 {
			continue
		}
		qs := r.Run.QuestionSet
		line := fmt.Sprintf("scored on %d of %d questions (%d properties; question set %s): data files absent for %d questions, asked but not executed; "+
			"never compare with full-set runs (the results files' warnings name the questions)", qs.Questions, r.Items, qs.Properties, qs.Name, r.WithoutData)
		if count[line] == 0 {
			order = append(order, line)
		}
		count[line]++
	}
	var out []string
	for _, line := range order {
		n := count[line]
		what := "1 run"
		if n > 1 {
			what = fmt.Sprintf("%d runs", n)
		}
		out = append(out, "warning: "+what+" "+line)
	}
	return out
}

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// parseBaseURLs turns -base-url's values (NAME=URL, or a bare URL for the
// one model of the plan or of -model) into runner.Options.BaseURLs; the
// runner checks the names and URLs.
func parseBaseURLs(vals, models []string, p *plan.Plan) (map[string]string, error) {
	if len(vals) == 0 {
		return nil, nil
	}
	out := map[string]string{}
	for _, v := range vals {
		name, u, _ := strings.Cut(v, "=")
		if strings.HasPrefix(v, "http://") || strings.HasPrefix(v, "https://") {
			// A bare URL: the one model of -model, or of the plan.
			u = v
			switch {
			case len(models) == 1:
				name = models[0]
			case len(models) == 0 && len(p.Models) == 1:
				name = p.Models[0].Name
			default:
				return nil, errors.New("a bare URL: name its model (NAME=URL): the plan or -model has more than one")
			}
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("model %q given twice", name)
		}
		out[name] = u
	}
	return out, nil
}

// barAndLog serialises the progress bar's and the log's writes to one
// writer w, and starts a log record on a line of its own when the bar was
// drawn last (the bar redraws its line with "\r", without a newline).
type barAndLog struct {
	mu   sync.Mutex
	w    io.Writer
	open bool // the last write was the bar's, not ended by a newline
}

type barAndLogWriter struct {
	s   *barAndLog
	bar bool
}

func (b *barAndLog) barWriter() io.Writer { return barAndLogWriter{b, true} }
func (b *barAndLog) logWriter() io.Writer { return barAndLogWriter{b, false} }

func (w barAndLogWriter) Write(p []byte) (int, error) {
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	if !w.bar && w.s.open {
		if _, err := io.WriteString(w.s.w, "\n"); err != nil {
			return 0, err
		}
		w.s.open = false
	}
	n, err := w.s.w.Write(p)
	if w.bar && n > 0 {
		w.s.open = p[n-1] != '\n'
	}
	return n, err
}

// envOr returns the variable k from getenv, or def when it is unset or empty.
func envOr(getenv func(string) string, k, def string) string {
	if v := getenv(k); v != "" {
		return v
	}
	return def
}
