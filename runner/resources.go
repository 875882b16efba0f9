package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mattools-leaderboard/leaderboard/llm"
	"github.com/mattools-leaderboard/leaderboard/runner/plan"
	"github.com/mattools-leaderboard/leaderboard/runner/retrieval"
	"github.com/mattools-leaderboard/leaderboard/runner/systems"
)

// resources is what the runner provides the system of one configuration ×
// round (systems.Resources): the retrievers and code objects of the
// retrieval sources (retrievers), the scoring sandbox and graph-rag's
// indexes (graphs), each built on first use and shared by the runs that
// use it.
type resources struct {
	e      *engine
	pr     plan.Run
	scorer Scorer // nil: no sandbox (unscored, or not yet executing)
	// graphRec is the record of the graph index Graph returned
	// (graphs.indexRecord), for the run record and the journal sessions.
	graphRec json.RawMessage
}

var _ systems.Resources = (*resources)(nil)

// errIndexInterrupted marks a graph index whose build ctx interrupted:
// its journal keeps every finished chunk, and the run is interrupted
// (resumable), not failed.
var errIndexInterrupted = errors.New("graph index interrupted")

func (r *resources) Retriever(ctx context.Context) (retrieval.Retriever, error) {
	if r.pr.RetrievalMethod == "" {
		return nil, fmt.Errorf("system %s: the configuration has no retrieval method", r.pr.System)
	}
	return r.e.rr.get(ctx, r.pr.RetrievalSource, r.pr.RetrievalMethod)
}

func (r *resources) CodeObjects() (systems.CodeObjects, error) {
	objs, err := r.e.rr.codeObjectsOf(r.pr.RetrievalSource)
	if err != nil {
		return nil, err
	}
	return objs, nil
}

func (r *resources) Executor() systems.Executor {
	if r.scorer == nil {
		return nil
	}
	return executorOf(r.scorer)
}

func (r *resources) GraphInfo() (systems.GraphInfo, error) {
	gs := r.e.graphs
	gp := systems.GraphRAGOf(r.e.o.Plan)
	c, err := gs.corpus(gp.Corpus)
	if err != nil {
		return systems.GraphInfo{}, err
	}
	prompts, err := gs.lightragPrompts()
	if err != nil {
		return systems.GraphInfo{}, err
	}
	emb := r.e.o.Plan.Retrieval.Embedding
	return systems.GraphInfo{Corpus: gp.Corpus, CorpusID: c.id, IndexModel: gs.indexModel(r.pr.Configuration).Name, EmbeddingModel: emb.Model,
		EmbeddingEndpoint: llm.RedactURL(emb.BaseURL), SendTemperature: gp.SendTemperature, PromptSHA256: prompts.SHA256}, nil
}

func (r *resources) Graph(ctx context.Context) (systems.GraphEnv, error) {
	gs := r.e.graphs
	g, err := gs.get(ctx, r.pr.Configuration, r.pr.Round)
	if err != nil {
		if ctx.Err() != nil {
			return systems.GraphEnv{}, fmt.Errorf("%w: %w", errIndexInterrupted, err)
		}
		return systems.GraphEnv{}, err
	}
	r.graphRec = gs.indexRecord(g)
	// LightRAG sends no sampling parameter (docs/graphrag.md §4).
	client, err := gs.chatClient(r.pr.Model, r.pr.Round)
	if err != nil {
		return systems.GraphEnv{}, err
	}
	emb, err := gs.embedder()
	if err != nil {
		return systems.GraphEnv{}, err
	}
	return systems.GraphEnv{Graph: g, Prompts: gs.prompts, Embedder: emb, LLM: client}, nil
}
