package runner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/mattools-leaderboard/leaderboard/internal/flock"
	"github.com/mattools-leaderboard/leaderboard/llm"
	"github.com/mattools-leaderboard/leaderboard/runner/graphrag"
	"github.com/mattools-leaderboard/leaderboard/runner/plan"
	"github.com/mattools-leaderboard/leaderboard/runner/systems"
)

// DefaultGraphCache is where graph-rag's indexes live (relative to the
// working directory) when Options.GraphCache is empty: one folder per
// corpus × index model × embedding model.
const DefaultGraphCache = "build/graphrag"

// graphCorpus is graph-rag's corpus: the .py files of a folder of the
// pymatgen package (plan graph_rag.corpus), one document per file, in
// sorted path order, each with its path below src/tool_source_code/pymatgen/src/
// as file path (e.g. "pymatgen/analysis/defects/core.py"). MatTools did
// not publish how its LightRAG run inserted the pymatgen source; this is
// the choice recorded on every run (system parameter corpus).
type graphCorpus struct {
	docs []graphrag.Document
	id   string // "sha256:" of the paths and texts
}

func loadGraphCorpus(root, folder string) (*graphCorpus, error) {
	base := filepath.Join(root, "src", "tool_source_code", "pymatgen", "src")
	dir := filepath.Join(base, filepath.FromSlash(folder))
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".py") {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("graph-rag corpus %s: %w", folder, err)
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("graph-rag corpus %s: no .py files under %s", folder, dir)
	}
	slices.Sort(paths)
	c := &graphCorpus{}
	h := sha256.New()
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		rel, _ := filepath.Rel(base, p)
		rel = filepath.ToSlash(rel)
		if strings.TrimSpace(string(data)) == "" {
			continue // LightRAG drops empty documents
		}
		c.docs = append(c.docs, graphrag.Document{FilePath: rel, Text: string(data)})
		fmt.Fprintf(h, "%s\x00%d\x00", rel, len(data))
		h.Write(data)
	}
	c.id = "sha256:" + hex.EncodeToString(h.Sum(nil))
	return c, nil
}

// graphs builds or opens graph-rag's indexes, once per corpus × index
// model × embedding model, shared by the plan's runs.
type graphs struct {
	o       Options
	prompts *graphrag.Prompts
	mu      sync.Mutex
	corpora map[string]*graphCorpus
	built   map[string]*graphrag.Graph
	stats   map[string]*graphrag.IndexStats
}

func newGraphs(o Options) *graphs {
	return &graphs{o: o, corpora: map[string]*graphCorpus{}, built: map[string]*graphrag.Graph{}, stats: map[string]*graphrag.IndexStats{}}
}

// lightragPrompts loads LightRAG's prompt texts (Options.LightRAGDir) once.
func (gs *graphs) lightragPrompts() (*graphrag.Prompts, error) {
	gs.mu.Lock()
	defer gs.mu.Unlock()
	if gs.prompts != nil {
		return gs.prompts, nil
	}
	p, err := graphrag.LoadPrompts(gs.o.LightRAGDir)
	if err != nil {
		return nil, err
	}
	gs.prompts = p
	return p, nil
}

func (gs *graphs) corpus(folder string) (*graphCorpus, error) {
	gs.mu.Lock()
	defer gs.mu.Unlock()
	if c := gs.corpora[folder]; c != nil {
		return c, nil
	}
	c, err := loadGraphCorpus(gs.o.DataRoot, folder)
	if err != nil {
		return nil, err
	}
	gs.corpora[folder] = c
	return c, nil
}

// indexModel returns the [[models]] entry that builds c's index.
func (gs *graphs) indexModel(c plan.Configuration) *plan.Model {
	if name := systems.GraphRAGOf(gs.o.Plan).IndexModel; name != "" {
		for i := range gs.o.Plan.Models {
			if gs.o.Plan.Models[i].Name == name {
				return &gs.o.Plan.Models[i]
			}
		}
	}
	return c.Model
}

// dir returns the index folder of a corpus × index model × embedding
// model, also keyed by the embeddings endpoint (two servers may serve
// different vectors under one model name), the LightRAG prompt texts and
// whether sampling parameters are sent: an index built otherwise lives in
// another folder.
func (gs *graphs) dir(corpusID, model, embedding string) string {
	cache := gs.o.GraphCache
	if cache == "" {
		cache = DefaultGraphCache
	}
	var endpoint, prompts string
	if e := gs.o.Plan.Retrieval.Embedding; e != nil {
		endpoint = llm.RedactURL(e.BaseURL)
	}
	if gs.prompts != nil {
		prompts = gs.prompts.PromptsSHA256()
	}
	sum := sha256.Sum256([]byte(corpusID + "\x00" + model + "\x00" + embedding + "\x00" + endpoint + "\x00" + prompts + "\x00" +
		fmt.Sprint(systems.GraphRAGOf(gs.o.Plan).SendTemperature)))
	safe := strings.NewReplacer("/", "_", ":", "_").Replace(model)
	return filepath.Join(cache, safe+"-"+hex.EncodeToString(sum[:6]))
}

// chatClient returns a client of model m as graph-rag sends it: without
// sampling parameters unless graph_rag.send_temperature (LightRAG 1.3.x
// sends none, docs/graphrag.md §4).
func (gs *graphs) chatClient(m *plan.Model, round int) (*llm.Client, error) {
	var params llm.Params // LightRAG sends no max_tokens either (but 500 on summaries, graphrag's own)
	if systems.GraphRAGOf(gs.o.Plan).SendTemperature {
		params = llm.Params{Temperature: m.Temperature, TopP: m.TopP, MaxTokens: m.MaxTokens, Seed: m.Seed}
	}
	retries := *m.MaxRetries
	if retries == 0 {
		retries = llm.NoRetries
	}
	return llm.New(llm.Config{BaseURL: m.BaseURLFor(round), APIKey: gs.o.APIKeys[m.APIKeyEnv], Model: m.Name, Params: params,
		Timeout: m.Timeout.Duration, MaxRetries: retries, RequestsPerMinute: m.RequestsPerMinute, RetryTimeouts: m.RetryTimeouts, HTTPClient: gs.o.HTTPClient,
		Endpoints: gs.o.endpoints, OnRetry: gs.onRetry(m.Label())})
}

func (gs *graphs) onRetry(model string) func(int, error, time.Duration) {
	return func(attempt int, err error, delay time.Duration) {
		if gs.o.Log != nil {
			gs.o.Log.Warn("retrying", "model", model, "attempt", attempt, "delay", delay.Round(time.Millisecond), "error", err)
		}
	}
}

// embedder returns the client of the plan's embeddings endpoint.
func (gs *graphs) embedder() (*llm.Client, error) {
	e := gs.o.Plan.Retrieval.Embedding
	return llm.New(llm.Config{BaseURL: e.BaseURL, APIKey: gs.o.APIKeys[e.APIKeyEnv], Model: e.Model, Timeout: e.Timeout.Duration,
		RequestsPerMinute: e.RequestsPerMinute, RetryTimeouts: e.RetryTimeouts, HTTPClient: gs.o.HTTPClient, Endpoints: gs.o.endpoints,
		OnRetry: gs.onRetry(e.Model)})
}

// get returns the index of configuration c, building it (resumably: the
// extraction journal keeps every finished chunk) or opening the one built
// before; an index folder built from another model, embedding or corpus is
// refused by graphrag.Open with both values named.
func (gs *graphs) get(ctx context.Context, c plan.Configuration, round int) (*graphrag.Graph, error) {
	corp, err := gs.corpus(systems.GraphRAGOf(gs.o.Plan).Corpus)
	if err != nil {
		return nil, err
	}
	prompts, err := gs.lightragPrompts()
	if err != nil {
		return nil, err
	}
	m := gs.indexModel(c)
	e := gs.o.Plan.Retrieval.Embedding
	dir := gs.dir(corp.id, m.Name, e.Model)
	gs.mu.Lock()
	defer gs.mu.Unlock() // one index build at a time
	if g := gs.built[dir]; g != nil {
		return g, nil
	}
	// One builder per index folder across processes too (the lock dies
	// with the process, SIGKILL included).
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return nil, err
	}
	lf, err := os.OpenFile(dir+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	defer lf.Close()
	if err := flock.Lock(lf); err != nil {
		if !errors.Is(err, flock.ErrLocked) {
			return nil, fmt.Errorf("graph-rag index %s: %w", dir, err)
		}
		return nil, fmt.Errorf("graph-rag index %s is being built by another runner (%s is locked): wait for it, or give another -graph-cache", dir, lf.Name())
	}
	chat, err := gs.chatClient(m, round)
	if err != nil {
		return nil, err
	}
	emb, err := gs.embedder()
	if err != nil {
		return nil, err
	}
	opts := graphrag.IndexOptions{Prompts: prompts, Tokenizer: graphrag.O200k(), ChatModel: m.Name, EmbeddingModel: e.Model,
		EmbeddingEndpoint: llm.RedactURL(e.BaseURL), CorpusID: corp.id, Dir: dir}
	var bar *progressbar.ProgressBar
	if gs.o.Progress != nil {
		opts.Progress = func(done, total int) {
			if bar == nil {
				bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(gs.o.Progress), progressbar.OptionSetDescription("graph index: chunks"),
					progressbar.OptionShowCount(), progressbar.OptionSetPredictTime(true), progressbar.OptionThrottle(200*time.Millisecond),
					progressbar.OptionSetWidth(30))
			}
			bar.Set(done)
		}
	}
	start := time.Now()
	g, st, err := graphrag.Build(ctx, corp.docs, chat, emb, opts)
	if bar != nil {
		bar.Exit()
		fmt.Fprintln(gs.o.Progress)
	}
	if err != nil {
		return nil, fmt.Errorf("graph-rag index %s (the extraction journal keeps what finished; run again to resume): %w", dir, err)
	}
	if gs.o.Log != nil {
		gs.o.Log.Info("graph index ready", "dir", dir, "documents", len(corp.docs), "chunks", len(g.Chunks()), "entities", len(g.Entities()),
			"relations", len(g.Relations()), "llm_calls", st.TotalLLMCalls(), "reused", st.Reused, "took", time.Since(start).Round(time.Millisecond))
	}
	gs.built[dir] = g
	gs.stats[dir] = st
	return g, nil
}

// indexRecord is what a graph-rag run records of its index (run extension
// "graph_index"): the folder's manifest (who built it from what, when, its
// sizes) and, when this process built it, the build's model calls, which
// no run's usage counts otherwise.
func (gs *graphs) indexRecord(g *graphrag.Graph) json.RawMessage {
	m := g.Manifest
	rec := map[string]any{"chat_model": m.ChatModel, "embedding_model": m.EmbeddingModel, "embedding_endpoint": m.EmbeddingEndpoint,
		"embedding_dims": m.EmbeddingDims, "tokenizer": m.Tokenizer, "corpus_id": m.CorpusID, "documents_sha256": m.DocumentsSHA256,
		"built_at": m.BuiltAt, "counts": m.Counts, "lightrag_version": m.LightRAGVersion}
	gs.mu.Lock()
	if st := gs.stats[gs.dirOf(g)]; st != nil {
		rec["build_llm_calls"], rec["build_embedding_calls"], rec["build_reused"] = st.LLMCalls, st.EmbeddingCalls, st.Reused
	}
	gs.mu.Unlock()
	b, _ := json.Marshal(rec)
	return b
}

func (gs *graphs) dirOf(g *graphrag.Graph) string {
	for d, x := range gs.built {
		if x == g {
			return d
		}
	}
	return ""
}
