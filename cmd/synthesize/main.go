// Command synthesize runs MatTools' task-synthesis pipeline (package
// synth; docs/synthesis.md) over a folder of unit tests:
//
//	synthesize [-data DIR] [-tests src/tool_source_code/pymatgen/tests]
//	           [-only REGEXP] [-with-data] -model M [-base-url URL]
//	           [-api-key-env OPENAI_API_KEY] [-temperature 0]
//	           [-concurrency 4] [-rpm 0] [-out build/synth/<name>.json]
//	           [-journal <out>.journal.jsonl]
//	           [-dry-run [-price-in $/Mtok -price-out $/Mtok]] [-python P]
//	           [-layout DIR [-benchmark NAME] [-version 0.1] [-sandbox auto]]
//	synthesize [-data DIR] -check-originals [-sandbox auto|local|docker|none]
//	synthesize [-data DIR] -qa doc|code [-docs FILE | -under pymatgen] [-only REGEXP]
//	           -model M [-base-url URL] [-temperature 0.7] [-concurrency 4]
//	           [-rpm 0] [-out build/synth/generation_results_<set>-<model>.json]
//	           [-journal <out>.journal.jsonl] [-dry-run [-price-in -price-out]]
//
// It splits the test files (synth.SplitDir), keeps the tests whose ID
// matches -only and, with -with-data, those whose test-data files the data
// root has (synth.DataFiles), asks the model four times per test
// (synth.Generate: resumable from the journal, a progress bar with ETA on
// stderr) and writes the triplets to -out. The API key is read from the
// environment variable named by -api-key-env, never from a flag. -dry-run
// prints the test files, tests, triplets to generate, calls, estimated
// tokens (and cost, with prices) without any request. With -layout, the
// triplets are then checked (synth.RunChecks: (a), (b) in the sandbox,
// (c)) and written in MatTools' layout with their reference solutions and
// review files (synth.WriteLayout); those failing a check are listed with
// their reasons and kept out.
//
// -qa makes a QA set with MatTools' doc or code prompt (synth/qasynth;
// docs/synthesis.md §6): one call per document of -docs (an LLM
// documentation file; without it, for the code set, the code objects under
// -under), answers parsed by upstream's check_answer rules and asked again
// up to three times, then the QA audit's filters and rebalanced letters;
// it writes the set in upstream's format and a review file beside it.
//
// -check-originals runs checks (a), (b) (in the sandbox) and (c) on
// MatTools' 55 original triplets
// (src/question_generation/defect_questions_original.json) and prints how
// many it flags next to what the review did (dropped, changed, unchanged
// in the 49 published folders).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/mattools-leaderboard/leaderboard/cmd/internal/cliflags"
	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/internal/version"
	"github.com/mattools-leaderboard/leaderboard/llm"
	"github.com/mattools-leaderboard/leaderboard/sandbox"
	"github.com/mattools-leaderboard/leaderboard/synth"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("synthesize", flag.ContinueOnError)
	fs.SetOutput(stderr)
	data := cliflags.Data(fs, nil, "")
	testsRel := fs.String("tests", synth.DefectsTestsDir, "folder of unit tests, relative to the data root")
	only := fs.String("only", "", "keep the tests whose ID (file::[class::]name) matches this regular expression (with -qa: the documents, file#name#k)")
	withData := fs.Bool("with-data", false, "keep only the tests whose test-data files the data root has")
	model := fs.String("model", "", "model id")
	baseURL := fs.String("base-url", "https://api.openai.com/v1", "OpenAI-compatible base URL")
	keyEnv := fs.String("api-key-env", "OPENAI_API_KEY", "name of the environment variable holding the API key")
	temp := fs.Float64("temperature", -1, "sampling temperature (default MatTools': 0 for triplets, 0.7 for -qa)")
	conc := fs.Int("concurrency", 4, "tests worked on at once")
	rpm := fs.Float64("rpm", 0, "requests per minute (0 = unlimited)")
	out := fs.String("out", "", "output JSON (default build/synth/<tests folder's package>-<model>.json)")
	journal := fs.String("journal", "", "journal (default <out without .json>.journal.jsonl)")
	dry := fs.Bool("dry-run", false, "print tests, triplets, calls and estimated tokens and cost; send nothing")
	priceIn := fs.Float64("price-in", 0, "price per million prompt tokens (dry run)")
	priceOut := fs.Float64("price-out", 0, "price per million completion tokens (dry run)")
	python := fs.String("python", synth.DefaultPython, "Python interpreter for parsing (run with -I)")
	originals := fs.Bool("check-originals", false, "run checks (a), (b) and (c) on MatTools' 55 original triplets and compare with the review")
	sbName := fs.String("sandbox", sandbox.Auto, "sandbox backend for check (b) (local, docker, auto; none: skip check (b))")
	sbPython := fs.String("sandbox-python", "/opt/mattools-sandbox", "the sandbox's Python environment")
	wall := fs.Duration("check-timeout", 5*time.Minute, "wall-clock limit of one check (b) execution")
	layout := fs.String("layout", "", "after generation, run the checks and write the benchmark in MatTools' layout to this folder")
	bench := fs.String("benchmark", "", "the synthesised benchmark's name (default the tests folder's package)")
	bversion := fs.String("version", "0.1", "the synthesised benchmark's version")
	qaSet := fs.String("qa", "", "make a QA set instead of tasks: doc or code (MatTools' two QA prompts)")
	qaDocs := fs.String("docs", "", "with -qa: the LLM-documentation file (upstream's schema, .json or .zip)")
	qaUnder := fs.String("under", "pymatgen", "with -qa and no -docs: the code objects to walk")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
		return 2
	}
	if *data == "" {
		fmt.Fprintf(stderr, "synthesize: no data root: give -data or set %s\n", datasets.EnvVar)
		return 2
	}
	if *qaSet != "" {
		var re *regexp.Regexp
		if *only != "" {
			var err error
			if re, err = regexp.Compile(*only); err != nil {
				fmt.Fprintln(stderr, "synthesize: -only:", err)
				return 2
			}
		}
		return runQA(ctx, *data, qaFlags{only: re, set: *qaSet, docs: *qaDocs, under: *qaUnder, out: *out, journal: *journal, model: *model, baseURL: *baseURL,
			keyEnv: *keyEnv, python: *python, conc: *conc, rpm: *rpm, temp: *temp, priceIn: *priceIn, priceOut: *priceOut, dry: *dry}, stdout, stderr)
	}
	if *temp < 0 {
		*temp = 0
	}
	if *originals {
		return checkOriginals(ctx, stdout, stderr, *data, *python, *sbName, *sbPython, *wall)
	}
	var re *regexp.Regexp
	if *only != "" {
		var err error
		if re, err = regexp.Compile(*only); err != nil {
			fmt.Fprintln(stderr, "synthesize: -only:", err)
			return 2
		}
	}
	start := time.Now()
	testsDir := filepath.Join(*data, filepath.FromSlash(*testsRel))
	files, err := synth.SplitDir(testsDir, *python)
	if err != nil {
		fmt.Fprintln(stderr, "synthesize:", err)
		return 1
	}
	all, tests, noData, unresolved := selectTests(files, re, *withData, testsDir)
	prompts, err := synth.LoadPrompts(*data)
	if err != nil {
		fmt.Fprintln(stderr, "synthesize:", err)
		return 1
	}
	if *dry {
		printDryRun(stdout, tests, prompts, dryCounts{testsRel: *testsRel, files: len(files), all: len(all), only: *only, withData: *withData,
			noData: noData, unresolved: unresolved}, *priceIn, *priceOut)
		return 0
	}
	if *model == "" {
		fmt.Fprintln(stderr, "synthesize: -model is required")
		return 2
	}
	if len(tests) == 0 {
		fmt.Fprintln(stderr, "synthesize: no test left to synthesise")
		return 1
	}
	if *out == "" {
		pkg := filepath.Base(filepath.Dir(filepath.Clean(testsDir)))
		*out = filepath.Join("build", "synth", pkg+"-"+strings.ReplaceAll(*model, "/", "_")+".json")
	}
	if *journal == "" {
		*journal = strings.TrimSuffix(*out, ".json") + ".journal.jsonl"
	}
	key := ""
	if *keyEnv != "" {
		key = os.Getenv(*keyEnv)
		os.Unsetenv(*keyEnv) // no child process may inherit the key
	}
	client, err := llm.New(llm.Config{BaseURL: *baseURL, APIKey: key, Model: *model, RequestsPerMinute: *rpm, Params: llm.Params{Temperature: temp}})
	if err != nil {
		fmt.Fprintln(stderr, "synthesize:", err)
		return 1
	}
	fmt.Fprintf(stderr, "synthesize %s: %d tests of %s, model %s\n", version.String(), len(tests), *testsRel, *model)
	res, err := synth.Generate(ctx, tests, prompts, client, synth.Options{Concurrency: *conc, Journal: *journal, Progress: stderr, Endpoint: llm.RedactURL(*baseURL)})
	if res != nil {
		fmt.Fprintf(stdout, "tests: %d (%d triplets finished)\ncalls: %d (%d from the journal, %d made: %d answered, %d failed)\ntokens: %d prompt, %d completion\nwall time: %s\n",
			res.Tests, len(res.Triplets), res.Calls, res.Resumed, res.Requested, res.Completions, res.Failed, res.PromptTokens, res.CompletionTokens,
			time.Since(start).Round(time.Millisecond))
	}
	if err != nil {
		fmt.Fprintln(stderr, "synthesize:", err)
		return 1
	}
	if err := synth.WriteTriplets(*out, res.Triplets); err != nil {
		fmt.Fprintln(stderr, "synthesize:", err)
		return 1
	}
	fmt.Fprintf(stdout, "wrote %s: %d triplets\n", *out, len(res.Triplets))
	if *layout == "" {
		return 0
	}
	return checkAndLayout(ctx, stdout, stderr, tests, res, prompts, layoutFlags{data: *data, python: *python, sbName: *sbName, sbPython: *sbPython, wall: *wall,
		layout: *layout, bench: *bench, version: *bversion, testsRel: *testsRel, testsDir: testsDir, model: *model})
}

// checkOriginals runs checks (a), (b) and (c) on MatTools' original
// triplets (check (b) in the sandbox sbName, unless "none") and prints them
// by review outcome; it returns the exit code.
func checkOriginals(ctx context.Context, stdout, stderr io.Writer, data, python, sbName, sbPython string, wall time.Duration) int {
	rep, err := synth.CheckOriginals(data, python)
	if err != nil {
		fmt.Fprintln(stderr, "synthesize:", err)
		return 1
	}
	if sbName != "none" {
		abs, err := filepath.Abs(data)
		if err != nil {
			fmt.Fprintln(stderr, "synthesize:", err)
			return 1
		}
		sb, err := sandbox.Open(ctx, sbName, sandbox.Options{Python: sbPython, DataDirs: []string{filepath.Join(abs, "src", "tool_source_code")}})
		if err != nil {
			fmt.Fprintln(stderr, "synthesize: check (b):", err)
			return 1
		}
		defer sb.Close()
		if err := rep.RunExecution(ctx, sb, data, wall); err != nil {
			fmt.Fprintln(stderr, "synthesize:", err)
			return 1
		}
	}
	fmt.Fprintf(stdout, "MatTools' %d original triplets: the checks by review outcome\n", len(rep.Rows))
	fmt.Fprint(stdout, rep.Summary())
	return 0
}

// selectTests returns every test of files (all) and those kept (tests):
// matching re when set and, with withData, whose test-data files
// testsDir's data root has; it counts those left out for missing data
// (noData) and for data paths that cannot be resolved (unresolved).
func selectTests(files []synth.File, re *regexp.Regexp, withData bool, testsDir string) (all, tests []synth.Test, noData, unresolved int) {
	for _, f := range files {
		for _, t := range f.Tests {
			all = append(all, t)
			if re != nil && !re.MatchString(t.ID) {
				continue
			}
			if withData {
				_, missing, unres := synth.DataFiles(t, testsDir)
				if unres {
					unresolved++
					continue
				}
				if len(missing) > 0 {
					noData++
					continue
				}
			}
			tests = append(tests, t)
		}
	}
	return all, tests, noData, unresolved
}

// dryCounts are the counts of a dry run's selection (selectTests): the
// tests folder, its test files and tests, the -only expression and, with
// -with-data, the tests left out.
type dryCounts struct {
	testsRel, only                 string
	files, all, noData, unresolved int
	withData                       bool
}

// printDryRun prints what generating tests would cost: triplets, calls,
// estimated tokens, the prompt files and, with a price (per million
// prompt / completion tokens), the estimated cost.
func printDryRun(stdout io.Writer, tests []synth.Test, prompts *synth.Prompts, c dryCounts, priceIn, priceOut float64) {
	e := synth.EstimateCalls(tests, prompts)
	fmt.Fprintf(stdout, "dry run: %s\n", c.testsRel)
	fmt.Fprintf(stdout, "test files: %d\ntests found: %d\n", c.files, c.all)
	if c.only != "" {
		fmt.Fprintf(stdout, "matching -only %s: see below\n", c.only)
	}
	if c.withData {
		fmt.Fprintf(stdout, "left out: %d whose test-data files the data root lacks, %d whose data paths cannot be resolved\n", c.noData, c.unresolved)
	}
	none := 0
	for _, t := range tests {
		if t.Asserts == 0 {
			none++
		}
	}
	fmt.Fprintf(stdout, "triplets to generate: %d (asserts: %d; tests without an assert: %d)\ncalls: %d\nestimated prompt tokens: %d\nestimated completion tokens: %d\n",
		e.Tests, e.Asserts, none, e.Calls, e.PromptTokens, e.CompletionTokens)
	for _, p := range prompts.Files {
		fmt.Fprintf(stdout, "prompt %s %s\n", p.Path, p.SHA256)
	}
	if priceIn > 0 || priceOut > 0 {
		fmt.Fprintf(stdout, "estimated cost: $%.2f (at $%g / $%g per million prompt / completion tokens)\n", e.Cost(priceIn, priceOut), priceIn, priceOut)
	} else {
		fmt.Fprintln(stdout, "cost unknown (no price given: -price-in, -price-out)")
	}
}

// layoutFlags are the flags of the checks and the layout (-layout) of a
// generation: the data root, the interpreters, the sandbox, the
// benchmark's name and version, the tests folder (relative and as a path)
// and the model.
type layoutFlags struct {
	data, python, sbName, sbPython             string
	wall                                       time.Duration
	layout, bench, version, testsRel, testsDir string
	model                                      string
}

// checkAndLayout runs the checks on res's triplets (check (b) in the
// sandbox) and writes the benchmark in MatTools' layout into f.layout,
// with the tasks that passed; it returns the exit code.
func checkAndLayout(ctx context.Context, stdout, stderr io.Writer, tests []synth.Test, res *synth.Result, prompts *synth.Prompts, f layoutFlags) int {
	// The checks, then the layout: tests and triplets in the same order.
	byID := map[string]synth.Test{}
	for _, t := range tests {
		byID[t.ID] = t
	}
	var done []synth.Test
	for _, tr := range res.Triplets {
		done = append(done, byID[tr.ID])
	}
	abs, err := filepath.Abs(f.data)
	if err != nil {
		fmt.Fprintln(stderr, "synthesize:", err)
		return 1
	}
	sb, err := sandbox.Open(ctx, f.sbName, sandbox.Options{Python: f.sbPython, DataDirs: []string{filepath.Join(abs, "src", "tool_source_code")}})
	if err != nil {
		fmt.Fprintln(stderr, "synthesize: check (b):", err)
		return 1
	}
	defer sb.Close()
	revs, err := synth.RunChecks(ctx, sb, f.data, f.python, done, res.Triplets, f.model, prompts.Files, f.wall)
	if err != nil {
		fmt.Fprintln(stderr, "synthesize:", err)
		return 1
	}
	name := f.bench
	if name == "" {
		name = strings.ReplaceAll(filepath.Base(filepath.Dir(filepath.Clean(f.testsDir))), "-", "_")
	}
	commit, _ := os.ReadFile(filepath.Join(f.data, "UPSTREAM_COMMIT"))
	m := synth.Manifest{Name: name, Version: f.version, Tests: f.testsRel, DataCommit: strings.TrimSpace(string(commit)), Model: f.model, Prompts: prompts.Files}
	if err := synth.WriteLayout(f.layout, m, done, res.Triplets, revs); err != nil {
		fmt.Fprintln(stderr, "synthesize:", err)
		return 1
	}
	passed := 0
	for _, r := range revs {
		if r.Passed() {
			passed++
		} else {
			fmt.Fprintf(stdout, "excluded %s: %s\n", r.Test, strings.Join(r.Problems, "; "))
		}
	}
	fmt.Fprintf(stdout, "wrote %s: benchmark %s %s, %d of %d tasks passed the checks; review page %s\n", f.layout, name, f.version, passed, len(revs),
		filepath.Join(f.layout, synth.ReviewPageFile))
	return 0
}
