package systems

import (
	"context"
	"fmt"
	"slices"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/internal/pystr"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/runner/graphrag"
)

func init() { register(results.SystemGraphRAG, newGraphRAG) }

// DefaultGraphMode is LightRAG 1.3.3's QueryParam.mode default.
const DefaultGraphMode = graphrag.ModeGlobal

// graphRAG is the paper's GraphRAG baseline: LightRAG 1.3.3
// (runner/graphrag) over a graph of the pymatgen source, asked the
// question in the benchmark's answer format. MatTools published neither its
// LightRAG script nor how it asked; this system asks what the single LLM is
// asked, question.txt stripped + "\n" + ANSWER_FORMAT (recorded as the
// system parameter question_format), with LightRAG's query mode (default
// "global"), and extracts the code from LightRAG's answer as MatTools
// extracts every answer.
type graphRAG struct {
	mode string
}

func newGraphRAG(p Params) (System, error) {
	mode := p.Variant
	if mode == "" {
		mode = DefaultGraphMode
	}
	if !slices.Contains([]string{graphrag.ModeGlobal, graphrag.ModeLocal, graphrag.ModeHybrid, graphrag.ModeNaive, graphrag.ModeMix}, mode) {
		return nil, fmt.Errorf("system graph-rag: query mode %q; want global, local, hybrid, naive or mix", mode)
	}
	return &graphRAG{mode: mode}, nil
}

func (s *graphRAG) Name() results.System { return results.SystemGraphRAG }

// PromptFiles: graph-rag sends MatTools' answer format; LightRAG's own
// texts are recorded by the runner from the index's manifest.
func (s *graphRAG) PromptFiles() []string { return []string{PromptSingleLLMAnswerFormat} }

// GraphQuestionFormat names how the question is put to LightRAG (system
// parameter question_format).
const GraphQuestionFormat = "question.strip() + \\n + ANSWER_FORMAT"

func (s *graphRAG) Generate(ctx context.Context, q *datasets.Question, env Env) (Generation, error) {
	var g Generation
	if env.Graph == nil || env.GraphPrompts == nil || env.Embedder == nil {
		return g, fmt.Errorf("system graph-rag: no graph index, LightRAG prompts or embeddings client")
	}
	res, err := graphrag.Query(ctx, env.Graph, SingleLLMPrompt(q, env.Prompts), graphrag.QueryParam{Prompts: env.GraphPrompts, Mode: s.mode},
		env.LLM, env.Embedder)
	if err != nil {
		return g, fmt.Errorf("graph-rag: %w", err)
	}
	for _, c := range res.Calls {
		st := results.TraceStage{Stage: c.Kind, PromptTokens: c.PromptTokens, CompletionTokens: c.CompletionTokens, LatencyMS: c.Latency.Milliseconds()}
		if c.Kind == graphrag.CallEmbed {
			st.Stage, st.PromptTokens = "retrieve", 0 // the query embedding; its tokens are not the chat model's
		} else {
			g.Calls++
			g.PromptTokens += c.PromptTokens
			g.CompletionTokens += c.CompletionTokens
			g.Latency += c.Latency
			g.Attempts += c.Attempts
		}
		g.Trace = append(g.Trace, st)
	}
	// The chunks of the context (the Sources table, mix's vector chunks),
	// in context order, as the retrieved context.
	ids := append(append([]string{}, res.ChunkIDs...), res.VectorChunkIDs...)
	for i, id := range ids {
		// The chunk's file as its source; no score (the graph method ranks
		// by entity and relation, not by chunk; mix's vector chunks follow).
		file, _ := env.Graph.ChunkFile(id)
		g.Retrieved = append(g.Retrieved, results.RetrievedChunk{ChunkID: id, Source: file, Rank: int32(i + 1)})
	}
	if len(g.Trace) > 0 {
		for i := range g.Trace {
			if g.Trace[i].Stage == "retrieve" {
				g.Trace[i].RetrievedIDs = ids
				break
			}
		}
		if res.Failed {
			g.Trace[len(g.Trace)-1].StopReason = "no-context"
		}
	}
	g.Response = res.Answer
	g.FinishReason = "stop" // graphrag.Query reports no finish reason: recorded as "stop"
	g.Code, g.FunctionName, g.Extracted = ExtractCode(pystr.Strip(res.Answer))
	return g, nil
}

// Estimate counts LightRAG's two calls (keywords, answer; naive: one); the
// prompt bytes are the question in the answer format plus a context of
// LightRAG's budgets (three tables of at most 4,000 tokens each, at 4 bytes
// a token), an upper bound.
func (s *graphRAG) Estimate(q *datasets.Question, p *Prompts) Estimate {
	question := len(SingleLLMPrompt(q, p))
	calls, ctx := 2, 3*4000*4
	if s.mode == graphrag.ModeNaive {
		calls, ctx = 1, 4000*4
	}
	return Estimate{Calls: calls, PromptBytes: calls*question + ctx + 3000}
}
