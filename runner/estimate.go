package runner

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/mattools-leaderboard/leaderboard/internal/words"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/runner/graphrag"
	"github.com/mattools-leaderboard/leaderboard/runner/plan"
	"github.com/mattools-leaderboard/leaderboard/runner/retrieval"
	"github.com/mattools-leaderboard/leaderboard/runner/systems"
)

// Estimate is the forecast of one configuration × round for --dry-run: one
// generation of answers, written as one run per scoring protocol.
type Estimate struct {
	RunID     string
	Benchmark results.Benchmark
	System    results.System
	Source    int
	Method    string // retrieval method, "" without retrieval
	Model     string // as shown to the user: the plan's display_name, or its name (plan.Model.Label)
	Round     int
	Protocols []string // the protocols, one run each (ProtocolUnscored when not scored)
	Questions int
	Done      int // already finished (results file exists: all)
	// Calls, PromptTokens and CompletionTokens forecast the questions still
	// to do: calls from the system, prompt tokens from the prompts' bytes
	// (plan estimate.bytes_per_token), completion tokens per call from the
	// plan's estimate section.
	Calls                          int
	PromptTokens, CompletionTokens int64
	CostUSD                        *float64 // nil when the model has no price
	// EmbeddingCalls and EmbeddingTokens forecast the embeddings requests
	// of a dense-retrieval run: one query per question, and, for the first
	// run of each corpus × embedding model, the whole corpus in batches
	// (cached afterwards; nothing when the cache already holds it). The
	// cost includes them when the plan gives the embedding price.
	EmbeddingCalls  int
	EmbeddingTokens int64
	// IndexCalls are the model calls of building a graph-rag index,
	// included in Calls (counted on the first run that needs the index).
	IndexCalls int
}

// EstimatePlan forecasts every run of the plan without calling any model or
// needing API keys: it loads the data, builds every prompt and counts the
// questions already finished in existing results files and journals.
func EstimatePlan(o Options) ([]Estimate, error) {
	e, err := prepareWith(context.Background(), o, true)
	if err != nil {
		return nil, err
	}
	est := o.Plan.Estimate
	var out []Estimate
	embedded := map[string]bool{} // corpus × embedding model already counted
	graphsCounted := map[string]bool{}
	semanticCounted := false
	for _, p := range e.runs {
		x := Estimate{RunID: p.journalID, Benchmark: p.pr.Benchmark, System: p.pr.System, Source: p.pr.RetrievalSource, Method: p.pr.RetrievalMethod,
			Model: p.pr.Model.Label(), Round: p.pr.Round, Questions: p.n, Done: p.done}
		for _, out := range p.outs {
			x.Protocols = append(x.Protocols, out.run.ScoringProtocol)
		}
		// queries and queryBytes: the questions' retrieval queries and the
		// bytes they embed (each query embeds the question's text).
		var promptBytes, queries, queryBytes int
		// The questions still to do are approximated by the last Questions−Done
		// (a journal finishes questions roughly in order); the counts are exact.
		items := p.items()
		todo := items[min(p.done, len(items)):]
		for _, it := range todo {
			if it.q != nil {
				se := p.sys.Estimate(it.q, e.prompts)
				x.Calls += se.Calls
				promptBytes += se.PromptBytes
				queries += se.Queries
				queryBytes += se.Queries * len(it.q.Text)
				x.CompletionTokens += int64(se.Calls * est.CompletionTokensToolUsage)
			} else {
				prompt, err := systems.QAPrompt(it.qa, e.prompts)
				if err != nil {
					return nil, err
				}
				x.Calls++
				promptBytes += len(prompt)
				x.CompletionTokens += int64(est.CompletionTokensQAQuestion)
			}
		}
		x.PromptTokens = int64(math.Ceil(float64(promptBytes) / est.BytesPerToken))
		if p.needs.Graph && len(todo) > 0 {
			// The queries' embeddings (the system's Estimate.Queries).
			x.EmbeddingCalls += queries
			x.EmbeddingTokens += int64(math.Ceil(float64(queryBytes) / est.BytesPerToken))
		}
		if price := p.pr.Model.Price; price != nil {
			x.CostUSD = ptr(price.Cost(x.PromptTokens, x.CompletionTokens))
		}
		if p.needs.Graph && len(todo) > 0 {
			// The graph index, once per corpus × index model × embedding,
			// unless a complete one exists: counted on the first run that
			// needs it, priced as the index model; then the embeddings.
			if err := e.estimateGraphIndex(p, &x, graphsCounted); err != nil {
				return nil, err
			}
			if emb := o.Plan.Retrieval.Embedding; emb.PricePerMillion > 0 && x.CostUSD != nil {
				*x.CostUSD += float64(x.EmbeddingTokens) * emb.PricePerMillion / 1e6
			}
		}
		if p.pr.RetrievalSource == 3 && !semanticCounted && e.rr.semanticInputs > 0 && len(todo) > 0 {
			// Source 3's semantic chunking embeds every combined sentence once.
			semanticCounted = true
			emb := o.Plan.Retrieval.Embedding
			x.EmbeddingCalls += (e.rr.semanticInputs + emb.BatchSize - 1) / emb.BatchSize
			x.EmbeddingTokens += int64(math.Ceil(float64(e.rr.semanticInputByte) / est.BytesPerToken))
		}
		if p.pr.RetrievalMethod == plan.MethodEmbedding && len(todo) > 0 {
			emb := o.Plan.Retrieval.Embedding
			// One embedding per retrieval query (the system's
			// Estimate.Queries: agentic RAG searches its 4 generated
			// queries, the self-reflection loop up to once per iteration).
			x.EmbeddingCalls = queries
			x.EmbeddingTokens = int64(math.Ceil(float64(queryBytes) / est.BytesPerToken))
			key := fmt.Sprintf("%d/%s", p.pr.RetrievalSource, emb.Model)
			if !embedded[key] {
				embedded[key] = true
				c, err := e.rr.corpus(p.pr.RetrievalSource)
				if err != nil {
					return nil, err
				}
				if !retrieval.DenseCached(c, emb.Model, e.rr.retrievalCache()) {
					var corpusBytes int
					for _, ch := range c.Chunks {
						corpusBytes += len(ch.Text)
					}
					x.EmbeddingCalls += (len(c.Chunks) + emb.BatchSize - 1) / emb.BatchSize
					x.EmbeddingTokens += int64(math.Ceil(float64(corpusBytes) / est.BytesPerToken))
				}
			}
			if emb.PricePerMillion > 0 && x.CostUSD != nil { // an unpriced model's row stays unpriced
				*x.CostUSD += float64(x.EmbeddingTokens) * emb.PricePerMillion / 1e6
			}
		}
		out = append(out, x)
	}
	return out, nil
}

// WriteEstimates prints the estimates as a table with a total line.
func WriteEstimates(w io.Writer, ests []Estimate, bytesPerToken float64) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "round\tmodel\tbenchmark\tsystem\tsource\tretrieval\tprotocols\tquestions\tdone\tcalls\t~prompt tok\t~completion tok\temb calls\t~emb tok\t~cost USD\t")
	var calls, runs, ecalls int
	var pt, ct, et int64
	var cost float64
	priced, unpriced := 0, 0 // rows with model calls to make
	for _, x := range ests {
		c := "-"
		if x.CostUSD != nil {
			c = fmt.Sprintf("%.2f", *x.CostUSD)
			if *x.CostUSD > 0 && *x.CostUSD < 0.005 {
				c = "<0.01"
			}
			cost += *x.CostUSD
			if x.Calls > 0 {
				priced++
			}
		} else if x.Calls > 0 {
			unpriced++
		}
		runs += len(x.Protocols)
		method := x.Method
		if method == "" {
			method = "-"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t\n", x.Round, x.Model, x.Benchmark, x.System, x.Source,
			method, strings.Join(x.Protocols, "+"), x.Questions, x.Done, x.Calls, x.PromptTokens, x.CompletionTokens, x.EmbeddingCalls, x.EmbeddingTokens, c)
		calls += x.Calls
		ecalls += x.EmbeddingCalls
		et += x.EmbeddingTokens
		pt += x.PromptTokens
		ct += x.CompletionTokens
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n%s (results files), %s to make, ~%d prompt + ~%s", words.Count(runs, "run", "runs"), words.Count(calls, "model call", "model calls"),
		pt, words.Count(ct, "completion token", "completion tokens"))
	if ecalls > 0 {
		fmt.Fprintf(w, ", %s (~%s)", words.Count(ecalls, "embeddings request", "embeddings requests"), words.Count(et, "token", "tokens"))
	}
	switch {
	case unpriced > 0 && priced == 0: // $0.00 would read as free
		fmt.Fprint(w, ", cost unknown (no price configured for the models to call)")
	default:
		fmt.Fprintf(w, ", estimated cost $%.2f", cost)
		if unpriced > 0 {
			fmt.Fprintf(w, " (priced models only; %s no price)", words.Count(unpriced, "row has", "rows have"))
		}
	}
	fmt.Fprintf(w, ".\nEstimates: prompt tokens = prompt bytes / %g; completion tokens per call from the plan's [estimate] section.\n", bytesPerToken)
	return nil
}

// estimateGraphIndex adds to x the model calls, tokens and embeddings of
// building p's graph index (graphrag.EstimateIndex: 2 calls a chunk and
// the summaries it expects; completion tokens per call from the plan's
// [estimate]; priced as the index model), unless the index is complete
// already or counted. A partly built index (a journal) is counted whole:
// an upper bound.
func (e *engine) estimateGraphIndex(p *prepared, x *Estimate, counted map[string]bool) error {
	corp, err := e.graphs.corpus(systems.GraphRAGOf(e.o.Plan).Corpus)
	if err != nil {
		return err
	}
	prompts, err := e.graphs.lightragPrompts()
	if err != nil {
		return err
	}
	m := e.graphs.indexModel(p.pr.Configuration)
	emb := e.o.Plan.Retrieval.Embedding
	dir := e.graphs.dir(corp.id, m.Name, emb.Model)
	if counted[dir] {
		return nil
	}
	counted[dir] = true
	if man, err := graphrag.ReadManifest(dir); err == nil && man.Complete {
		return nil
	}
	ie, err := graphrag.EstimateIndex(corp.docs, graphrag.IndexOptions{Prompts: prompts, Tokenizer: graphrag.O200k(), ChatModel: m.Name,
		EmbeddingModel: emb.Model, CorpusID: corp.id})
	if err != nil {
		return err
	}
	calls := ie.ExtractionCalls + ie.SummaryCalls
	completion := int64(calls * e.o.Plan.Estimate.CompletionTokensToolUsage)
	x.Calls += calls
	x.PromptTokens += ie.PromptTokens
	x.CompletionTokens += completion
	x.IndexCalls = calls
	switch {
	case x.CostUSD == nil:
	case m.Price == nil:
		x.CostUSD = nil // the index model has no price: the row's cost is unknown
	default:
		*x.CostUSD += m.Price.Cost(ie.PromptTokens, completion)
	}
	// Embedded texts: the chunks, and the entities and relations extraction
	// finds, about 7 a chunk (6.8 measured on pymatgen/analysis/defects and
	// on the whole pymatgen source against the fake); in batches of 32 per
	// document and collection. Rough, as the extraction is unknown.
	texts := ie.EmbeddedTexts * 8
	x.EmbeddingCalls += (texts+31)/32 + 2*ie.Documents
	x.EmbeddingTokens += int64(ie.EmbeddedTexts)*int64(e.o.Plan.Estimate.CompletionTokensToolUsage) + int64(ie.EmbeddedTexts*7*40)
	return nil
}
