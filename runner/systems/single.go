package systems

import (
	"context"
	"fmt"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/internal/pystr"
	"github.com/mattools-leaderboard/leaderboard/llm"
	"github.com/mattools-leaderboard/leaderboard/results"
)

func init() { Register(Registration{Name: results.SystemSingleLLM, New: newSingleLLM}) }

// singleLLM is the paper's single-LLM system: one user message per question,
// no system prompt, no retrieval. Source: MatTools
// src/pure_agent_test/build_agent.py (docs/mattools.md §5).
type singleLLM struct{ noRecord }

func newSingleLLM(p Params) (System, error) {
	if p.RetrievalSource != 0 {
		return nil, fmt.Errorf("system single-llm uses no retrieval source; got %d", p.RetrievalSource)
	}
	return singleLLM{}, nil
}

func (singleLLM) Name() results.System { return results.SystemSingleLLM }

// Build: the single LLM needs nothing beyond Env.
func (s singleLLM) Build(context.Context, Resources) (Answerer, error) { return s, nil }

// SingleLLMPrompt returns the single-LLM prompt of q:
// question.txt.strip() + "\n" + ANSWER_FORMAT, byte for byte as MatTools
// built the requests of request_bodies.jsonl.
func SingleLLMPrompt(q *datasets.Question, p *Prompts) string {
	return pystr.Strip(q.Text) + "\n" + p.SingleLLMAnswerFormat
}

func (singleLLM) Generate(ctx context.Context, q *datasets.Question, env Env) (Generation, error) {
	var g Generation
	c, err := env.LLM.Complete(ctx, []llm.Message{llm.User(SingleLLMPrompt(q, env.Prompts))})
	if err != nil {
		return g, err
	}
	g.add(c)
	g.Response, g.FinishReason = c.Content, c.FinishReason
	g.Code, g.FunctionName, g.Extracted = ExtractCode(c.Content)
	return g, nil
}

func (singleLLM) Estimate(q *datasets.Question, p *Prompts) Estimate {
	return Estimate{Calls: 1, PromptBytes: len(SingleLLMPrompt(q, p))}
}
