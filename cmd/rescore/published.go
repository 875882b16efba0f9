package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/internal/words"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/results/published"
	"github.com/mattools-leaderboard/leaderboard/runner/journal"
	"github.com/mattools-leaderboard/leaderboard/runner/scoring"
)

// checkpointEvery is how often rescorePublished writes its store while it
// works, so that an interrupted invocation keeps what it did.
const checkpointEvery = 20 * time.Second

// publishedBenchmark loads the questions of the published runs: those of
// MatTools' own tool-usage benchmark (its paper's runs), from the data root
// of c (absolute), in version c.version, restricted to -questions.
func (c config) publishedBenchmark() (root string, bench *datasets.Benchmark, err error) {
	if root, err = c.root(); err != nil {
		return "", nil, err
	}
	if bench, err = datasets.Load(root); err == nil {
		bench, err = c.inVersion(bench)
	}
	return root, bench, err
}

// rescorePublished re-executes, question by question, the generated code
// of every published tool-usage run in the data root (as the importer
// reads it) under mattools-v1 and mattools-v1-strict, and records the
// verdicts in the store at c.store (results/published/reexecuted.json).
// It is incremental: a question whose verdicts the store holds for the same
// code (SHA-256) and environment (sandbox, libraries, lock hash), with
// their per-property outcomes, is not executed again; a run whose code or
// environment changed is redone whole, and a question whose rows lack
// per-property outcomes (the store's first form) is re-executed.
// Questions whose data files are absent are skipped (they get no row).
// With c.alongside the verdicts are kept under the store keys
// published.AlongsideKey(run id, c.alongside), beside the main ones, which
// stay as they are.
func rescorePublished(ctx context.Context, c config, stdout, stderr io.Writer) error {
	root, bench, err := c.publishedBenchmark()
	if err != nil {
		return err
	}
	imp, err := published.Read(root, published.Options{Reexecuted: published.NewReexecuted()})
	if err != nil {
		return err
	}
	st, err := published.ReadReexecuted(c.store)
	if err != nil {
		return err
	}
	items, runs, sources, parts, err := publishedItems(c, imp.Files, bench)
	if err != nil {
		return err
	}
	parts = append(parts, journal.QuestionParts(bench)...)
	itemID := func(k int) string { return items[k].run + "/" + items[k].q.ID }
	// key is the store key of a published run's verdicts in this environment.
	key := func(runID string) string {
		switch {
		case c.alongside != "":
			return published.AlongsideKey(runID, c.alongside)
		case c.version != "":
			return published.VersionKey(runID, c.version)
		}
		return runID
	}
	ids := make([]string, len(items))
	for k := range items {
		ids[k] = itemID(k)
	}

	// The environment the verdicts come from: the sandbox's, or with
	// -merge the shards'.
	var scorer *scoring.Scorer
	var merged *journal.Outcomes
	var se scoring.Environment
	if c.merge != nil {
		// No item is required here: those the store keeps are checked below.
		if merged, err = journal.MergeOutcomes(c.merge, "rescore", parts, ids, func(int) bool { return false }); err != nil {
			return err
		}
		se = merged.Environment
	} else {
		if scorer, err = c.openScorer(ctx, root); err != nil {
			return err
		}
		defer scorer.Close()
		se = scorer.Environment()
	}
	env := published.ReexecutionEnvironment{Sandbox: se.Sandbox, Libraries: se.Libraries}
	envID := env.EnvironmentID()
	order := map[string]int{}
	for i, q := range bench.Questions {
		order[q.ID] = i
	}

	// The jobs: the items whose verdicts the store does not keep.
	jobs, kept, redone, withoutOutcomes := pendingJobs(st, items, runs, sources, key, envID, c.shard.Count > 0)
	if c.shard.Count > 0 {
		want := map[int]bool{}
		for _, j := range jobs {
			want[j.k] = true
		}
		fmt.Fprintf(stderr, "rescore: %d published tool-usage runs; environment %s; %d questions to re-execute in all, %d kept from %s\n",
			len(runs), envID, len(jobs), kept, c.store)
		return c.scoreShard(ctx, scorer, parts, len(items), func(k int) bool { return want[k] },
			func(k int) (*datasets.Question, scoring.Submission) { return items[k].q, items[k].code }, itemID, stderr)
	}
	if merged != nil {
		var missing []string
		for _, j := range jobs {
			if merged.Get(j.k) == nil {
				missing = append(missing, fmt.Sprintf("%s (shard %d)", ids[j.k], j.k%merged.Shards))
			}
		}
		if len(missing) > 0 {
			return fmt.Errorf("merge: %d question(s) neither kept in %s nor journaled by their shard, e.g. %s: run those shards to completion (with this store) first",
				len(missing), c.store, strings.Join(missing[:min(len(missing), 3)], ", "))
		}
	}
	// record adds job j's verdicts s to the store.
	record := func(j publishedJob, s *scoring.Scored) error {
		rx := st.Runs[key(j.run)]
		for _, p := range scoring.Protocols {
			o, err := s.Outcome(p)
			if err != nil {
				return err
			}
			rx.Rows = append(rx.Rows, published.ReexecutedVerdict{QuestionID: j.q.ID, Protocol: p, Verdict: o.Verdict,
				Cause: o.Cause, Runnable: o.Runnable, PropertiesPassed: o.PropertiesPassed,
				HasOutcomes: true, Outcomes: published.StoredOutcomes(o.Properties)})
		}
		return nil
	}
	if merged != nil {
		for _, j := range jobs {
			if err := record(j, merged.Get(j.k)); err != nil {
				return err
			}
		}
		fmt.Fprintf(stderr, "rescore: %d questions' verdicts merged from %d shards\n", len(jobs), merged.Shards)
		jobs = nil
	}
	st.Environments[envID] = env
	for id := range st.Environments {
		used := false
		for _, r := range st.Runs {
			used = used || r.Environment == id
		}
		if !used {
			delete(st.Environments, id)
		}
	}
	fmt.Fprintf(stderr, "rescore: %d published tool-usage runs; environment %s; %d questions to re-execute, %d kept from %s (%d runs redone: code or environment changed; %d rows without per-property outcomes dropped)\n",
		len(runs), envID, len(jobs), kept, c.store, redone, withoutOutcomes)

	write := func() error { return st.Write(c.store, order) }
	if err := reexecute(ctx, scorer, jobs, record, write, c.quiet, stderr); err != nil {
		if errors.Is(err, errInterrupted) {
			return fmt.Errorf("interrupted: the verdicts made so far are in %s; run again to go on", c.store)
		}
		return err
	}
	if err := summarizePublished(stdout, runs, st, key); err != nil {
		return err
	}
	if c.alongside != "" {
		printDifferences(stdout, st, c.alongside)
	}
	if c.compare != "" {
		other, err := published.ReadReexecuted(c.compare)
		if err != nil {
			return err
		}
		mine := published.NewReexecuted()
		for _, f := range runs {
			mine.Runs[f.Run.RunID] = st.Runs[key(f.Run.RunID)]
		}
		return reportComparison(stdout, c.store, c.compare, mine, other)
	}
	return nil
}

// publishedJob is one item of rescorePublished: a published run's answer to
// one executable question.
type publishedJob struct {
	k    int // the item: its position among every published run's executable questions
	run  string
	q    *datasets.Question
	code scoring.Submission
}

// publishedItems returns, in order, the items to re-execute (each published
// tool-usage run's executable questions, a corrected version's corrected
// ones only; the runs in the importer's order, which -shard partitions),
// those runs (filtered by -runs), each run's generation file and the parts
// of the shards' fingerprint but the questions'.
func publishedItems(c config, files []*results.File, bench *datasets.Benchmark) (items []publishedJob, runs []*results.File, sources map[string]results.SourceFile, parts []string, err error) {
	var runFilter *regexp.Regexp
	if c.runs != "" {
		if runFilter, err = regexp.Compile(c.runs); err != nil {
			return nil, nil, nil, nil, fmt.Errorf("-runs: %w", err)
		}
	}
	// In a corrected version only its corrected questions are re-executed:
	// the others' code and verification are the published version's, whose
	// verdicts the store holds under the run's own key.
	var corrected map[string]bool
	if c.version != "" {
		v, _ := datasets.LookupCorrectedVersion(c.version)
		corrected = map[string]bool{}
		for _, id := range v.VerificationQuestions() {
			corrected[id] = true
		}
	}
	sources = map[string]results.SourceFile{}
	parts = []string{"published"}
	for _, f := range files {
		// The importer's tool-usage runs: MatTools' published ones.
		if f.Run.Benchmark.Kind() != results.KindToolUsage || f.Run.Provenance.Kind != results.ProvenanceImported {
			continue
		}
		if runFilter != nil && !runFilter.MatchString(f.Run.RunID) {
			continue
		}
		runs = append(runs, f)
		var src results.SourceFile
		for _, s := range f.Run.Provenance.Source {
			if path.Base(s.Path) == published.GenerationFile {
				src = s
			}
		}
		sources[f.Run.RunID] = src
		parts = append(parts, f.Run.RunID+" "+src.SHA256)
		code := map[string]scoring.Submission{}
		for _, q := range f.Questions {
			code[q.QuestionID] = scoring.Submission{Code: q.Code, FunctionName: q.FunctionName}
		}
		for i := range bench.Questions {
			if q := &bench.Questions[i]; q.Executable() && (corrected == nil || corrected[q.ID]) {
				items = append(items, publishedJob{k: len(items), run: f.Run.RunID, q: q, code: code[q.ID]})
			}
		}
	}
	return items, runs, sources, parts, nil
}

// pendingJobs returns the items whose verdicts the store st does not keep
// (in environment envID, for the run's generation file, both protocols'
// rows with per-property outcomes), how many it keeps, how many runs are
// redone (code or environment changed) and how many rows without outcomes
// it drops. Unless shard (a shard leaves the store alone), st gets an empty
// entry for each run redone or new, and loses the rows dropped.
func pendingJobs(st *published.Reexecuted, items []publishedJob, runs []*results.File, sources map[string]results.SourceFile,
	key func(string) string, envID string, shard bool) (jobs []publishedJob, kept, redone, withoutOutcomes int) {
	done := map[string]map[string]int{}
	for _, f := range runs {
		rx, src := st.Runs[key(f.Run.RunID)], sources[f.Run.RunID]
		if rx != nil && (rx.Source.SHA256 != src.SHA256 || rx.Environment != envID) {
			redone++
			rx = nil
		}
		if rx == nil && !shard {
			st.Runs[key(f.Run.RunID)] = &published.ReexecutedRun{Source: src, Environment: envID}
		}
		done[f.Run.RunID] = map[string]int{}
		if rx != nil {
			// A question is kept when both protocols' rows record their
			// per-property outcomes; rows of the store's first form (no
			// outcomes) are dropped and the question re-executed.
			var keep []published.ReexecutedVerdict
			for _, v := range rx.Rows {
				if v.HasOutcomes {
					done[f.Run.RunID][v.QuestionID]++
				}
			}
			for _, v := range rx.Rows {
				if done[f.Run.RunID][v.QuestionID] == len(scoring.Protocols) {
					keep = append(keep, v)
				} else {
					withoutOutcomes++
				}
			}
			if !shard {
				rx.Rows = keep
			}
		}
	}
	for _, it := range items {
		if done[it.run][it.q.ID] == len(scoring.Protocols) {
			kept++
			continue
		}
		jobs = append(jobs, it)
	}
	return jobs, kept, redone, withoutOutcomes
}

// errInterrupted is reexecute's error when its context ends first.
var errInterrupted = errors.New("interrupted")

// reexecute scores the jobs in the scorer's sandbox, one worker per slot,
// with a progress bar unless quiet: record adds a job's verdicts to the
// store and write checkpoints it (both called under one lock), every
// checkpointEvery and once at the end, even when interrupted or failed, so
// that nothing done is lost. It returns the first error, or errInterrupted.
func reexecute(ctx context.Context, scorer *scoring.Scorer, jobs []publishedJob, record func(publishedJob, *scoring.Scored) error,
	write func() error, quiet bool, stderr io.Writer) error {
	if len(jobs) == 0 {
		return write()
	}
	var bar *progressbar.ProgressBar
	if !quiet {
		bar = progressbar.NewOptions(len(jobs), progressbar.OptionSetWriter(stderr), progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true), progressbar.OptionSetElapsedTime(true), progressbar.OptionSetDescription("re-executing"),
			progressbar.OptionThrottle(200*time.Millisecond), progressbar.OptionOnCompletion(func() { fmt.Fprintln(stderr) }))
	}
	outer := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var mu sync.Mutex
	save := func() error {
		mu.Lock()
		defer mu.Unlock()
		return write()
	}
	queue := make(chan publishedJob)
	var wg sync.WaitGroup
	var firstErr error
	for w := 0; w < scorer.Sandbox.Info().Slots; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range queue {
				s, err := scorer.Score(ctx, j.q, j.code)
				mu.Lock()
				if err == nil {
					err = record(j, s)
				}
				if err != nil {
					if firstErr == nil && ctx.Err() == nil {
						firstErr = fmt.Errorf("%s: question %s: %w", j.run, j.q.ID, err)
					}
					mu.Unlock()
					cancel()
					continue
				}
				mu.Unlock()
				if bar != nil {
					bar.Add(1)
				}
			}
		}()
	}
	last := time.Now()
feed:
	for _, j := range jobs {
		select {
		case queue <- j:
		case <-ctx.Done():
			break feed
		}
		if time.Since(last) > checkpointEvery {
			if err := save(); err != nil {
				cancel()
				mu.Lock()
				firstErr = err
				mu.Unlock()
				break
			}
			last = time.Now()
		}
	}
	close(queue)
	wg.Wait()
	// What was done is kept, even when interrupted or failed.
	if err := save(); err != nil {
		return err
	}
	if firstErr != nil {
		return firstErr
	}
	if outer.Err() != nil {
		return errInterrupted
	}
	return nil
}

// summarizePublished prints, per system, the re-executed runnable questions
// and passed properties under both protocols (over the questions
// re-executed) next to the published totals of the same runs (over 49
// questions and 138 properties each). It is about MatTools' published runs
// only (-all-published), so it names their protocols.
func summarizePublished(w io.Writer, runs []*results.File, st *published.Reexecuted, storeKey func(runID string) string) error {
	type tally struct{ runs, questions, properties, pubRunnable, pubPassed, pubQuestions, pubProperties, scoredRuns int }
	type key struct {
		system   results.System
		protocol string
	}
	agg := map[results.System]*tally{}
	re := map[key][2]int{}
	var systems []results.System
	for _, f := range runs {
		rx := st.Runs[storeKey(f.Run.RunID)]
		if rx == nil {
			continue
		}
		t := agg[f.Run.System]
		if t == nil {
			t = &tally{}
			agg[f.Run.System] = t
			systems = append(systems, f.Run.System)
		}
		t.runs++
		props := map[string]int{}
		for _, q := range f.Questions {
			props[q.QuestionID] = int(q.PropertyCount)
		}
		for _, v := range rx.Rows {
			k := key{f.Run.System, v.Protocol}
			c := re[k]
			if v.Runnable {
				c[0]++
			}
			c[1] += v.PropertiesPassed
			re[k] = c
			if v.Protocol == results.ProtocolMatToolsV1 {
				t.questions++
				t.properties += props[v.QuestionID]
			}
		}
		if tt := f.Run.Totals; tt.Scored && tt.Runnable != nil && tt.PropertiesPassed != nil {
			t.scoredRuns++
			t.pubRunnable += *tt.Runnable
			t.pubPassed += *tt.PropertiesPassed
			t.pubQuestions += tt.Questions
			t.pubProperties += tt.Properties
		}
	}
	sort.Slice(systems, func(i, j int) bool { return systems[i] < systems[j] })
	fmt.Fprintf(w, "%-20s %5s %22s %22s %24s\n", "system", "runs", "mattools-v1 run/pass", "strict run/pass", "published run/pass")
	for _, s := range systems {
		t := agg[s]
		v1, strict := re[key{s, results.ProtocolMatToolsV1}], re[key{s, results.ProtocolMatToolsV1Strict}]
		pub := "-"
		if t.scoredRuns > 0 {
			pub = fmt.Sprintf("%d/%d %d/%d (%s)", t.pubRunnable, t.pubQuestions, t.pubPassed, t.pubProperties, words.Count(t.scoredRuns, "run", "runs"))
		}
		fmt.Fprintf(w, "%-20s %5d %10s %11s %10s %11s %24s\n", s, t.runs,
			fmt.Sprintf("%d/%d", v1[0], t.questions), fmt.Sprintf("%d/%d", v1[1], t.properties),
			fmt.Sprintf("%d/%d", strict[0], t.questions), fmt.Sprintf("%d/%d", strict[1], t.properties), pub)
	}
	return nil
}

// printDifferences prints every question × protocol whose verdict differs
// between the store's main environment and the one labelled label, both
// sides (published.Reexecuted.EnvironmentDifferences).
func printDifferences(w io.Writer, st *published.Reexecuted, label string) {
	diffs, compared := st.EnvironmentDifferences(label)
	fmt.Fprintf(w, "verdicts that differ between the main environment and %s: %d of %d question × protocol pairs compared\n", label, len(diffs), compared)
	for _, d := range diffs {
		fmt.Fprintf(w, "  %-28s %-19s %s  main %s: %s %s %d  %s %s: %s %s %d\n", d.QuestionID, d.Protocol, d.RunID,
			d.MainEnvironment, d.Main.Verdict, d.Main.Cause, d.Main.PropertiesPassed,
			label, d.OtherEnvironment, d.Other.Verdict, d.Other.Cause, d.Other.PropertiesPassed)
	}
}
