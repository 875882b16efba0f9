package runner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/datasets/qaaudit"
	"github.com/mattools-leaderboard/leaderboard/llm"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/runner/journal"
	"github.com/mattools-leaderboard/leaderboard/runner/plan"
	"github.com/mattools-leaderboard/leaderboard/runner/scoring"
	"github.com/mattools-leaderboard/leaderboard/runner/systems"
)

// systemParams returns the system parameters of configuration c.
func systemParams(c plan.Configuration) systems.Params {
	json := c.Model.JSONMode == nil || *c.Model.JSONMode // plan.Parse sets the default, true
	p := systems.Params{RetrievalSource: c.RetrievalSource, TopK: c.TopK, JSONMode: json,
		Variant: c.Variant, MaxIterations: c.MaxIterations, NameLookup: c.NameLookup, GraphMode: c.GraphMode, Settings: c.Settings}
	return p
}

// setGraphIndex records rec, a graph-rag run's index record
// (graphs.indexRecord), as the extension "graph_index" of p's runs.
func (p *prepared) setGraphIndex(rec json.RawMessage) {
	for _, out := range p.outs {
		if out.run.Extensions == nil {
			out.run.Extensions = map[string]json.RawMessage{}
		}
		out.run.Extensions["graph_index"] = rec
	}
}

// prepare loads the data the plan needs and builds every run's skeleton.
func prepare(ctx context.Context, o Options) (*engine, error) { return prepareWith(ctx, o, false) }

// prepareWith is prepare; dry makes no request (a dry run: see retrievers).
func prepareWith(ctx context.Context, o Options, dry bool) (*engine, error) {
	if o.Plan == nil {
		return nil, errors.New("runner: no plan")
	}
	if o.Generator == "" {
		o.Generator = results.GeneratorRunner
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if err := o.Shard.Check(); err != nil {
		return nil, err
	}
	if err := checkModels(o); err != nil {
		return nil, err
	}
	if o.HTTPClient == nil {
		// One pool for every client of the run, sized to the concurrency.
		o.HTTPClient = llm.NewHTTPClient(max(o.Plan.Concurrency, llm.DefaultConns))
	}
	o.endpoints = &llm.Endpoints{}
	e := &engine{o: o, log: o.Log, qaSets: map[string]*datasets.QASet{}, qaInfo: map[string]qaSetInfo{}, rr: newRetrievers(o), graphs: newGraphs(o)}
	e.rr.dry = dry
	if e.log == nil {
		e.log = slog.New(slog.DiscardHandler)
	}
	var err error
	if e.prompts, err = systems.ObtainPrompts(ctx, o.DataRoot, o.PromptsDir, systems.ExtractOptions{Python: o.Python, CacheDir: o.PromptsCache}); err != nil {
		return nil, err
	}
	e.benches = map[results.Benchmark]*datasets.Benchmark{}
	if o.Benchmark != nil { // the default tool-usage benchmark's questions, in the plan's [tool_usage] benchmark_version
		if e.benches[results.DefaultBenchmark(results.KindToolUsage)], err = correctedVersion(o.Benchmark, o.Plan.ToolUsage.BenchmarkVersion); err != nil {
			return nil, err
		}
	}
	for _, pr := range o.Plan.Runs() {
		if pr.Benchmark.Kind() == results.KindToolUsage && e.benches[pr.Benchmark] == nil {
			if e.benches[pr.Benchmark], err = loadBenchmark(pr.Benchmark, o.DataRoot, o.Plan.ToolUsage.BenchmarkVersion); err != nil {
				return nil, err
			}
		}
		if pr.Benchmark.Kind() == results.KindMultipleChoice && e.qaSets[qaKey(pr.QA)] == nil {
			set, err := datasets.LoadQA(pr.QA.Path)
			if err != nil {
				return nil, err
			}
			want, _, _ := results.FullQuestionSet(pr.Benchmark, results.BenchmarkVersion2025_05)
			if pr.QA.Name == results.QuestionSetAll && len(set.Questions) != want {
				return nil, fmt.Errorf("%s: %d questions, but the whole %s set has %d; give the subset a name of its own in qa_sets.%s.name",
					pr.QA.Path, len(set.Questions), pr.Benchmark, want, pr.Benchmark)
			}
			var info qaSetInfo
			if pr.QA.Variant != "" {
				vs, vi, err := qaaudit.Variant(set, pr.QA.Variant)
				if err != nil {
					return nil, fmt.Errorf("qa_sets.%s.variant: %w", pr.Benchmark, err)
				}
				set, info.variant = vs, &vi
			}
			info.baselines = qaaudit.Audit(pr.QA.QuestionSetName(), set).Baselines()
			e.qaSets[qaKey(pr.QA)], e.qaInfo[qaKey(pr.QA)] = set, info
		}
		p, err := e.prepareRun(pr)
		if err != nil {
			return nil, err
		}
		if len(o.Models) > 0 && !slices.Contains(o.Models, pr.Model.Name) {
			continue // another task's model: its items keep their positions (e.nItems)
		}
		e.runs = append(e.runs, p)
	}
	return e, nil
}

// prepareRun builds run pr's skeletons (one output per scoring protocol),
// its journal's identity and fingerprint, and the place of its items among
// the plan's (e.nItems grows by its questions).
func (e *engine) prepareRun(pr plan.Run) (*prepared, error) {
	protocols := pr.ScoringProtocols
	if pr.Benchmark.Kind() == results.KindToolUsage && e.o.Unscored {
		protocols = []string{ProtocolUnscored}
	}
	r := e.skeleton(pr)
	var sys systems.System
	var needs systems.Needs
	if pr.Benchmark.Kind() == results.KindToolUsage {
		var err error
		if sys, err = systems.New(pr.System, systemParams(pr.Configuration)); err != nil {
			return nil, err
		}
		needs = systems.NeedsOf(pr.System)
	}
	if needs.Retriever && pr.RetrievalMethod != "" {
		if err := e.recordRetrieval(pr, &r); err != nil {
			return nil, err
		}
	}
	if sys != nil {
		if err := e.recordSystem(pr, sys, needs, &r); err != nil {
			return nil, err
		}
	}
	// A benchmark or system registered at run time (a folder benchmark, a
	// system of runner/systems that is not the paper's) describes itself
	// on its runs, for the site and the validators, which do not link it.
	if ext, ok := results.BenchmarkRecord(pr.Benchmark); ok {
		setExtension(&r, results.ExtensionBenchmark, ext)
	}
	if ext, ok := results.SystemRecord(pr.System); ok {
		setExtension(&r, results.ExtensionSystem, ext)
	}
	p := &prepared{pr: pr, sys: sys, needs: needs, first: e.nItems, shard: e.o.Shard}
	h := sha256.New()
	var all int // items before sharding
	if bench := e.benches[pr.Benchmark]; bench != nil {
		all = recordToolUsageQuestions(p, bench, protocols[0] != ProtocolUnscored, &r, h)
	} else {
		var err error
		if all, err = e.recordQAQuestions(p, &r); err != nil {
			return nil, err
		}
	}
	e.addOutputs(p, r, protocols)
	e.identify(p, r, hex.EncodeToString(h.Sum(nil)))
	e.nItems += all
	if err := e.placeItems(p, all); err != nil {
		return nil, err
	}
	return p, nil
}

// skeleton returns the run skeleton of pr that every configuration shares:
// benchmark, system, model, round, generation parameters, provenance (the
// prompt files) and the redacted endpoint.
func (e *engine) skeleton(pr plan.Run) results.Run {
	m := pr.Model
	return results.Run{
		FormatVersion:    results.FormatVersion,
		Benchmark:        pr.Benchmark,
		BenchmarkVersion: results.BenchmarkVersion2025_05,
		System:           pr.System,
		RetrievalSource:  pr.RetrievalSource,
		Model:            m.Name,
		ModelDisplayName: m.DisplayName,
		ModelGroup:       m.Group,
		Round:            pr.Round,
		Generation: results.GenerationParams{Temperature: m.Temperature, TopP: m.TopP, MaxTokens: m.MaxTokens, Seed: m.Seed,
			Source: "plan"},
		Provenance: results.Provenance{Kind: results.ProvenanceRunner, Source: append([]results.SourceFile(nil), e.prompts.Files...)},
		Endpoint:   llm.RedactURL(m.BaseURLFor(pr.Round)),
	}
}

// recordRetrieval records on r the retrieval of pr, a retrieving system's
// run: method, corpus ID, top-k, the corpus origin and, for the embedding
// method, the embedding model and endpoint.
func (e *engine) recordRetrieval(pr plan.Run, r *results.Run) error {
	c, err := e.rr.corpus(pr.RetrievalSource)
	if err != nil {
		return err
	}
	r.RetrievalMethod, r.CorpusID, r.TopK = pr.RetrievalMethod, c.ID, pr.TopK
	if c.Origin != "" {
		// Who wrote the LLM documentation and how it was cut (sources 3
		// and 4): a label, shown beside the retrieval source on the site,
		// outside the configuration (the corpus ID identifies the corpus).
		origin, _ := json.Marshal(c.Origin)
		r.Extensions = map[string]json.RawMessage{"corpus_origin": origin}
	}
	if pr.RetrievalMethod == plan.MethodEmbedding {
		emb := e.o.Plan.Retrieval.Embedding
		// The endpoint is part of the configuration: two servers may
		// serve different vectors under one model name.
		r.EmbeddingModel = emb.Model
		if r.SystemParams == nil {
			r.SystemParams = map[string]string{}
		}
		r.SystemParams["embedding_endpoint"] = llm.RedactURL(emb.BaseURL)
	}
	return nil
}

// recordSystem lets sys, pr's configured system, record itself on r
// (systems.System.Record) and adds its prompt files to r's provenance. A
// system that executes its answers needs the scoring sandbox.
func (e *engine) recordSystem(pr plan.Run, sys systems.System, needs systems.Needs, r *results.Run) error {
	if _, ok := e.o.Scorer.(Executor); needs.Executor && !e.rr.dry && (!ok || e.o.Unscored) {
		return fmt.Errorf("system %s executes its answers in the scoring sandbox: it cannot run without scoring", pr.System)
	}
	if err := sys.Record(&resources{e: e, pr: pr}, r); err != nil {
		return err
	}
	if ps, ok := sys.(systems.Prompted); ok {
		for _, rel := range ps.PromptFiles() {
			_, src, err := e.prompts.Text(rel)
			if err != nil {
				return err
			}
			if !slices.Contains(r.Provenance.Source, src) {
				r.Provenance.Source = append(r.Provenance.Source, src)
			}
		}
	}
	return nil
}

// recordToolUsageQuestions records on r the question set of bench, p's
// tool-usage benchmark (scored: scoring.QuestionSet, where data-missing
// questions are outside the set), writes every question's ID and text to
// h, and returns the number of questions.
func recordToolUsageQuestions(p *prepared, bench *datasets.Benchmark, scored bool, r *results.Run, h hash.Hash) int {
	r.UpstreamCommit = bench.Commit
	if bench.Version != "" {
		r.BenchmarkVersion = bench.Version
	}
	r.QuestionSet = results.QuestionSet{Name: results.QuestionSetAll, Questions: len(bench.Questions), Properties: bench.Properties()}
	if scored {
		// Every question is asked (its code is kept for a later
		// rescoring); those whose data files are absent are data-missing.
		r.QuestionSet = scoring.QuestionSet(bench)
	}
	p.bench = bench
	for i := range bench.Questions {
		q := &bench.Questions[i]
		h.Write([]byte(q.ID + "\x00" + q.Text + "\x00"))
	}
	return len(bench.Questions)
}

// recordQAQuestions records on r the question set of p's QA set, its file
// and, as extensions, its baselines and variant, and returns the number of
// questions.
func (e *engine) recordQAQuestions(p *prepared, r *results.Run) (int, error) {
	pr := p.pr
	set := e.qaSets[qaKey(pr.QA)]
	r.QuestionSet = results.QuestionSet{Name: pr.QA.QuestionSetName(), Questions: len(set.Questions)}
	p.qa = set
	if r.QuestionSet.Name != results.QuestionSetAll {
		r.QuestionSet.IDs = e.qaIDs(set) // shared by the runs of the set: not modified
	}
	r.Provenance.Source = append(r.Provenance.Source, results.SourceFile{Path: sourcePath(e.o.DataRoot, set.Path), SHA256: set.SHA256})
	// The baselines of the set as asked (the variant's, for a variant),
	// which the QA board shows beside the run's accuracy, and for a
	// variant which one it is, of which set.
	info := e.qaInfo[qaKey(pr.QA)]
	ext := map[string]any{qaaudit.ExtensionBaselines: info.baselines}
	if info.variant != nil {
		vi := *info.variant
		vi.Of = pr.QA.Name
		ext[qaaudit.ExtensionVariant] = vi
	}
	r.Extensions = maps.Clone(r.Extensions)
	if r.Extensions == nil {
		r.Extensions = map[string]json.RawMessage{}
	}
	for k, v := range ext {
		b, err := json.Marshal(v)
		if err != nil {
			return 0, err
		}
		r.Extensions[k] = b
	}
	return len(set.Questions), nil
}

// addOutputs adds to p one output per protocol, from skeleton r, each
// marked existing when its results file is on disk; p.exists when all are.
func (e *engine) addOutputs(p *prepared, r results.Run, protocols []string) {
	p.exists = true
	for _, protocol := range protocols {
		out := &output{run: r}
		out.run.ScoringProtocol = protocol
		if ext, ok := results.ProtocolRecord(protocol); ok { // a protocol registered at run time describes itself
			setExtension(&out.run, results.ExtensionScoringProtocol, ext)
		}
		out.run.RunID = results.MakeRunID(&out.run)
		out.path = filepath.Join(e.o.OutDir, out.run.RunID+results.Extension)
		if _, err := os.Stat(out.path); err == nil {
			out.exists = true
		}
		p.exists = p.exists && out.exists
		p.outs = append(p.outs, out)
	}
}

// setExtension sets r's extension name to ext, on a copy of r's
// extensions (skeletons share theirs).
func setExtension(r *results.Run, name string, ext json.RawMessage) {
	r.Extensions = maps.Clone(r.Extensions)
	if r.Extensions == nil {
		r.Extensions = map[string]json.RawMessage{}
	}
	r.Extensions[name] = ext
}

// identify sets p's journal ID, fingerprint and journal path: one journal
// per configuration × round (skeleton r), whose questions hash to
// questions (hex).
func (e *engine) identify(p *prepared, r results.Run, questions string) {
	// One journal per configuration × round: a scored one holds the
	// outcomes of every protocol, so it serves any of them.
	p.journalID = p.outs[0].run.RunID
	if p.scored() {
		j := r
		j.ScoringProtocol = "scored"
		p.journalID = results.MakeRunID(&j)
	}
	// The fingerprint covers what must not change while a run is resumed.
	fp, _ := json.Marshal(struct {
		RunID      string
		Generation results.GenerationParams
		Set        results.QuestionSet
		Sources    []results.SourceFile
		Questions  string
	}{p.journalID, r.Generation, r.QuestionSet, r.Provenance.Source, questions})
	sum := sha256.Sum256(fp)
	p.fingerprint = hex.EncodeToString(sum[:])
	p.journalPath = filepath.Join(e.o.OutDir, JournalDir, p.journalID+".jsonl")
}

// placeItems sets p's item count n (of all, before sharding: this shard's
// only when the plan is sharded, whose journal is then the shard's and
// whose outputs are not written) and counts its done items (a peek at the
// journal; all of them when every output exists).
func (e *engine) placeItems(p *prepared, all int) error {
	p.n = all
	if s := e.o.Shard; s.Count > 1 {
		// A shard writes no results file: it journals its own items.
		p.exists = false
		for _, out := range p.outs {
			out.exists = false
		}
		p.journalPath = filepath.Join(e.o.OutDir, JournalDir, p.journalID+s.Suffix()+".jsonl")
		p.n = 0
		for k := p.first; k < p.first+all; k++ {
			if s.Owns(k) {
				p.n++
			}
		}
	}
	if p.exists {
		p.done = p.n
	} else {
		var err error
		if p.done, err = journal.Peek(p.journalPath); err != nil {
			return err
		}
	}
	return nil
}

// qaSetInfo is what the runs of one loaded QA set record of it.
type qaSetInfo struct {
	baselines qaaudit.Baselines
	variant   *qaaudit.VariantInfo // nil: the set as published
}

// qaKey keys the loaded QA sets: the file and the variant.
func qaKey(q *plan.QA) string { return q.Path + "\x00" + q.Variant }

// qaIDs returns the question IDs of set, in order, one slice per set for
// all the runs that record them (results.QuestionSet.IDs).
func (e *engine) qaIDs(set *datasets.QASet) []string {
	if ids, ok := e.ids[set]; ok {
		return ids
	}
	ids := make([]string, len(set.Questions))
	for i := range set.Questions {
		ids[i] = set.Questions[i].ID
	}
	if e.ids == nil {
		e.ids = map[*datasets.QASet][]string{}
	}
	e.ids[set] = ids
	return ids
}

// sourcePath returns path relative to root when it lies inside it, else its base name.
func sourcePath(root, path string) string {
	if rel, err := filepath.Rel(root, path); err == nil && !strings.HasPrefix(rel, "..") && !filepath.IsAbs(rel) {
		return filepath.ToSlash(rel)
	}
	return filepath.Base(path)
}
