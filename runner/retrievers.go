package runner

import (
	"context"
	"fmt"
	"sync"

	"github.com/mattools-leaderboard/leaderboard/datasets/corpus"
	"github.com/mattools-leaderboard/leaderboard/runner/llm"
	"github.com/mattools-leaderboard/leaderboard/runner/plan"
	"github.com/mattools-leaderboard/leaderboard/runner/retrieval"
)

// Default cache folders of the corpora and retrieval indexes (relative to
// the working directory), when Options leave them empty.
const (
	DefaultCorpusCache    = "build/corpus"
	DefaultRetrievalCache = "build/retrieval"
)

// retrievers builds, once per retrieval source, its corpus (datasets/corpus)
// and, once per source × method, its retriever, shared by every model and
// round of the plan: the BM25 index is built (or loaded from the cache)
// once, the corpus embedded once per embedding model.
type retrievers struct {
	o       Options
	mu      sync.Mutex
	corpora map[int]*corpus.Corpus
	rs      map[string]retrieval.Retriever
	failed  map[string]error // a retriever that could not be built: every run needing it fails at once
}

func newRetrievers(o Options) *retrievers {
	return &retrievers{o: o, corpora: map[int]*corpus.Corpus{}, rs: map[string]retrieval.Retriever{}, failed: map[string]error{}}
}

// corpus returns the corpus of retrieval source src, building it on first use.
func (r *retrievers) corpus(src int) (*corpus.Corpus, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if c := r.corpora[src]; c != nil {
		return c, nil
	}
	cache := r.o.CorpusCache
	if cache == "" {
		cache = DefaultCorpusCache
	}
	opts := corpus.Options{Python: r.o.CorpusPython, CacheDir: cache, Logf: func(format string, a ...any) {
		if r.o.Log != nil {
			r.o.Log.Info(fmt.Sprintf(format, a...))
		}
	}}
	var c *corpus.Corpus
	var err error
	switch src {
	case 1:
		c, err = corpus.BuildCode(r.o.DataRoot, opts)
	case 2:
		c, err = corpus.BuildDocs(r.o.DataRoot, opts)
	default:
		return nil, fmt.Errorf("retrieval source %d (LLM-written documentation) has no corpus in this runner yet: sources 1 (code) and 2 (official docs) do", src)
	}
	if err != nil {
		return nil, fmt.Errorf("retrieval source %d: %w", src, err)
	}
	r.corpora[src] = c
	if r.o.Log != nil {
		r.o.Log.Info("corpus ready", "source", src, "chunks", len(c.Chunks), "id", c.ID, "cached", c.Cached)
	}
	return c, nil
}

// get returns the retriever of source src and method (plan.MethodBM25 or
// plan.MethodEmbedding), building it on first use: the embedding method
// embeds the whole corpus then (cached on disk per corpus and model).
func (r *retrievers) get(ctx context.Context, src int, method string) (retrieval.Retriever, error) {
	c, err := r.corpus(src)
	if err != nil {
		return nil, err
	}
	key := fmt.Sprintf("%d/%s", src, method)
	r.mu.Lock()
	defer r.mu.Unlock()
	if rt := r.rs[key]; rt != nil {
		return rt, nil
	}
	if err := r.failed[key]; err != nil {
		return nil, err
	}
	cache := r.retrievalCache()
	var rt retrieval.Retriever
	switch method {
	case plan.MethodBM25:
		rt, err = retrieval.NewBM25(ctx, c, retrieval.BM25Options{CacheDir: cache})
	case plan.MethodEmbedding:
		e := r.o.Plan.Retrieval.Embedding
		var client *llm.Client
		client, err = llm.New(llm.Config{BaseURL: e.BaseURL, APIKey: r.o.APIKeys[e.APIKeyEnv], Model: e.Model, Timeout: e.Timeout.Duration,
			RequestsPerMinute: e.RequestsPerMinute, HTTPClient: r.o.HTTPClient})
		if err == nil {
			rt, err = retrieval.NewDense(ctx, c, client, retrieval.DenseOptions{Model: e.Model, BatchSize: e.BatchSize, CacheDir: cache})
		}
	default:
		err = fmt.Errorf("unknown retrieval method %q", method)
	}
	if err != nil {
		err = fmt.Errorf("retrieval source %d, method %s: %w", src, method, err)
		r.failed[key] = err
		return nil, err
	}
	r.rs[key] = rt
	return rt, nil
}

func (r *retrievers) retrievalCache() string {
	if r.o.RetrievalCache != "" {
		return r.o.RetrievalCache
	}
	return DefaultRetrievalCache
}
