package systems

import (
	"context"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/internal/pystr"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/runner/graphrag"
	"github.com/mattools-leaderboard/leaderboard/runner/plan"
)

func init() {
	Register(Registration{Name: results.SystemGraphRAG, Needs: Needs{Graph: true}, New: newGraphRAG,
		Plan: plan.SystemSpec{Section: "graph_rag", NewSettings: func() any { return new(GraphRAGSettings) },
			Check: checkGraphRAG, Expand: expandGraphRAG}})
}

// GraphRAGSettings are the plan's [graph_rag] section (LightRAG 1.3.3
// re-implemented, runner/graphrag). Its index is built once per corpus ×
// index model × embedding model and reused; the embeddings come from
// [retrieval.embedding].
type GraphRAGSettings struct {
	// Corpus is the folder of the pymatgen package whose .py files are
	// indexed, one document per file (the paper: the pymatgen source):
	// "pymatgen" (default) or a folder below it, e.g.
	// "pymatgen/analysis/defects".
	Corpus string `toml:"corpus"`
	// Modes are LightRAG's query modes to run, each a configuration:
	// "global" (LightRAG's QueryParam default), "local", "hybrid", "naive",
	// "mix". Default ["global"].
	Modes []string `toml:"modes"`
	// IndexModel names the [[models]] entry that builds the index (entity
	// extraction and summaries); "" means each answering model builds its own.
	IndexModel string `toml:"index_model"`
	// SendTemperature sends the model's temperature; LightRAG 1.3.x sends
	// none (the provider's default applies), so the default is false.
	SendTemperature bool `toml:"send_temperature"`
}

// GraphModes are LightRAG's query modes.
var GraphModes = []string{graphrag.ModeGlobal, graphrag.ModeLocal, graphrag.ModeHybrid, graphrag.ModeNaive, graphrag.ModeMix}

// GraphRAGOf returns plan p's [graph_rag] settings (the zero value for a
// Plan that plan.Parse did not make).
func GraphRAGOf(p *plan.Plan) GraphRAGSettings {
	if g, _ := p.Settings(results.SystemGraphRAG).(*GraphRAGSettings); g != nil {
		return *g
	}
	return GraphRAGSettings{}
}

// checkGraphRAG checks [graph_rag], and that a plan naming graph-rag has
// an embeddings endpoint.
func checkGraphRAG(c *plan.SectionChecker, settings any) {
	gr, p := settings.(*GraphRAGSettings), c.Plan()
	if gr.Corpus == "" {
		gr.Corpus = "pymatgen"
	}
	if cl := path.Clean(gr.Corpus); cl != gr.Corpus || (cl != "pymatgen" && !strings.HasPrefix(cl, "pymatgen/")) || strings.Contains(cl, "..") {
		c.Add("graph_rag.corpus", "is %q; want pymatgen or a folder below it, e.g. pymatgen/analysis/defects", gr.Corpus)
	}
	if len(gr.Modes) == 0 {
		gr.Modes = []string{DefaultGraphMode}
	}
	for i, m := range gr.Modes {
		switch {
		case !slices.Contains(GraphModes, m):
			c.Add(fmt.Sprintf("graph_rag.modes[%d]", i), "is %q; want one of %v", m, GraphModes)
		case slices.Index(gr.Modes, m) != i:
			c.Add(fmt.Sprintf("graph_rag.modes[%d]", i), "%q appears twice", m)
		}
	}
	if slices.Contains(p.Systems, results.SystemGraphRAG) && p.Retrieval.Embedding == nil {
		c.Add("retrieval.embedding", "is required by graph-rag (LightRAG embeds entities, relations and chunks)")
	}
	if gr.IndexModel != "" && !slices.ContainsFunc(p.Models, func(m plan.Model) bool { return m.Name == gr.IndexModel }) {
		c.Add("graph_rag.index_model", "%q is not the name of a [[models]] entry", gr.IndexModel)
	}
}

// expandGraphRAG makes one configuration per query mode (none for a plan
// without settings).
func expandGraphRAG(settings any, c plan.Configuration) []plan.Configuration {
	gr, _ := settings.(*GraphRAGSettings)
	if gr == nil {
		return nil
	}
	var out []plan.Configuration
	for _, m := range gr.Modes {
		x := c
		x.GraphMode = m
		out = append(out, x)
	}
	return out
}

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
	mode  string
	asked string   // the query mode as configured (system parameter query_mode)
	g     GraphEnv // set by Build
}

func newGraphRAG(p Params) (System, error) {
	mode := p.GraphMode
	if mode == "" {
		mode = DefaultGraphMode
	}
	if !slices.Contains(GraphModes, mode) {
		return nil, fmt.Errorf("system graph-rag: query mode %q; want global, local, hybrid, naive or mix", mode)
	}
	return &graphRAG{mode: mode, asked: p.GraphMode}, nil
}

func (s *graphRAG) Name() results.System { return results.SystemGraphRAG }

// Record fills the run record of a graph-rag run: retrieval source 1 (the
// pymatgen code), method "graph", LightRAG's top_k, the corpus and
// embedding model, no sampling parameter unless the plan sends it, and as
// system parameters the query mode, how the question is asked, the corpus
// folder, the index model, the LightRAG version followed and the embedding
// endpoint; the provenance lists LightRAG's prompt files with their
// SHA-256 (as lightrag/<file>).
func (s *graphRAG) Record(res Resources, r *results.Run) error {
	info, err := res.GraphInfo()
	if err != nil {
		return err
	}
	sys, _ := results.LookupSystem(results.SystemGraphRAG)
	fixed := sys.Retrieval.Fixed // source 1 (the pymatgen code), method "graph", LightRAG's top_k 60
	r.RetrievalSource, r.RetrievalMethod, r.TopK, r.CorpusID, r.EmbeddingModel = fixed.Source, fixed.Method, fixed.TopK, info.CorpusID, info.EmbeddingModel
	if !info.SendTemperature {
		r.Generation = results.GenerationParams{MaxTokens: r.Generation.MaxTokens, Source: "plan; no temperature, top_p or seed sent, as LightRAG 1.3.x"}
	}
	r.SystemParams = map[string]string{"query_mode": s.asked, "question_format": GraphQuestionFormat, "corpus": info.Corpus,
		"index_model": info.IndexModel, "lightrag_version": "1.3.3", "embedding_endpoint": info.EmbeddingEndpoint}
	names := make([]string, 0, len(info.PromptSHA256))
	for name := range info.PromptSHA256 {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		r.Provenance.Source = append(r.Provenance.Source, results.SourceFile{Path: "lightrag/" + name, SHA256: info.PromptSHA256[name]})
	}
	return nil
}

// Build takes the graph index and its clients.
func (s *graphRAG) Build(ctx context.Context, res Resources) (Answerer, error) {
	g, err := res.Graph(ctx)
	if err != nil {
		return nil, err
	}
	a := *s
	a.g = g
	return &a, nil
}

// PromptFiles: graph-rag sends MatTools' answer format; LightRAG's own
// texts are recorded by Record.
func (s *graphRAG) PromptFiles() []string { return []string{PromptSingleLLMAnswerFormat} }

// GraphQuestionFormat names how the question is put to LightRAG (system
// parameter question_format).
const GraphQuestionFormat = "question.strip() + \\n + ANSWER_FORMAT"

func (s *graphRAG) Generate(ctx context.Context, q *datasets.Question, env Env) (Generation, error) {
	var g Generation
	if s.g.Graph == nil || s.g.Prompts == nil || s.g.Embedder == nil || s.g.LLM == nil {
		return g, fmt.Errorf("system graph-rag: no graph index, LightRAG prompts, embeddings client or chat client")
	}
	// The graph's own chat client: LightRAG sends no sampling parameter.
	res, err := graphrag.Query(ctx, s.g.Graph, SingleLLMPrompt(q, env.Prompts), graphrag.QueryParam{Prompts: s.g.Prompts, Mode: s.mode},
		s.g.LLM, s.g.Embedder)
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
		file, _ := s.g.Graph.ChunkFile(id)
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
	// One query embedding per keyword level: global and local 1, hybrid 2, mix 3.
	queries := max(map[string]int{graphrag.ModeHybrid: 2, graphrag.ModeMix: 3}[s.asked], 1)
	return Estimate{Calls: calls, PromptBytes: calls*question + ctx + 3000, Queries: queries}
}
