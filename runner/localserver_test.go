package runner

// Tests of the runner against what local servers do (docs/runner.md,
// "Local servers"): a context-length refusal is the question's outcome,
// not the run's failure; an answer without usage makes the tokens and the
// cost unknown, not 0.

import (
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/llm/llmtest"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/runner/scoring"
	"github.com/mattools-leaderboard/leaderboard/runner/systems"
)

// contextRefusal is llama-cpp-python 0.3.36's body of a prompt past n_ctx
// (llm/testdata/wire/llama-cpp-python).
var contextRefusal = []byte(`{"error":{"message":"This model's maximum context length is 2048 tokens. However, you requested 2690 tokens (2434 in the messages, 256 in the completion). Please reduce the length of the messages or completion.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`)

func TestContextLengthRefusalIsTheQuestionsOutcome(t *testing.T) {
	r := mattoolstest.NewRoot(t)
	r.AddDataFiles()
	refuse := regexp.MustCompile(`Question [01] \(`)
	srv := llmtest.New(t, llmtest.Options{Responder: toolAnswer, Raw: func(req llmtest.Request) (int, []byte, bool) {
		return 400, contextRefusal, refuse.MatchString(req.Prompt())
	}})
	sc := &emptyOrFake{empty: &scoring.Scorer{Env: (&fakeScorer{}).Environment()}, fake: &fakeScorer{}}
	res, err := Run(context.Background(), Options{Plan: mustPlan(t, toolPlan(srv.URL, 1, "")), DataRoot: r.Dir, OutDir: t.TempDir(),
		APIKeys: map[string]string{"FAKE_API_KEY": testKey}, Scorer: sc})
	if err != nil {
		t.Fatalf("the run failed: %v", err)
	}
	refusedRequests := 0
	for _, req := range srv.Requests() {
		if refuse.MatchString(req.Prompt()) {
			refusedRequests++
		}
	}
	if refusedRequests != 2 {
		t.Errorf("%d requests of the refused questions, want 2 (a refusal is not retried)", refusedRequests)
	}
	if len(res) != 2 {
		t.Fatalf("%d runs", len(res))
	}
	for _, rr := range res {
		f := readRun(t, rr.Path)
		if len(f.Questions) != 49 {
			t.Fatalf("%d rows", len(f.Questions))
		}
		for i, q := range f.Questions {
			refused := i < 2
			got := q.FinishReason != nil && *q.FinishReason == FinishContextLength
			if got != refused || (refused && (q.Verdict != string(results.VerdictNotRunnable) || q.VerdictCause != scoring.CauseContextLength || q.Code != "")) {
				t.Errorf("%s row %d: finish %v, %s %s, %d bytes of code; refused %v", f.Run.ScoringProtocol, i, q.FinishReason, q.Verdict,
					q.VerdictCause, len(q.Code), refused)
			}
		}
		if !hasWarning(f.Run.Warnings, "refused 2 question(s) as longer than the model's context window") {
			t.Errorf("%s: warnings %q lack the refusals", f.Run.ScoringProtocol, f.Run.Warnings)
		}
	}
}

// emptyOrFake scores empty code as the real scorer does (not runnable,
// cause empty-code, without a sandbox) and other code as fakeScorer.
type emptyOrFake struct {
	empty *scoring.Scorer
	fake  *fakeScorer
}

func (s *emptyOrFake) Environment() scoring.Environment { return s.fake.Environment() }

func (s *emptyOrFake) Score(ctx context.Context, q *datasets.Question, sub scoring.Submission) (*scoring.Scored, error) {
	if sub.Code == "" {
		return s.empty.Score(ctx, q, sub)
	}
	return s.fake.Score(ctx, q, sub)
}

func TestQAContextLengthRefusalIsRecordedUnanswered(t *testing.T) {
	root, respond, mkPlan := qa20Live(t)
	set, err := datasets.LoadQA("testdata/qa20.json")
	if err != nil {
		t.Fatal(err)
	}
	prompts, _ := systems.LoadPrompts(filepath.Join(root, "prompts"))
	first, err := systems.QAPrompt(&set.Questions[0], prompts)
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.New(t, llmtest.Options{Responder: respond, Raw: func(req llmtest.Request) (int, []byte, bool) {
		return 400, contextRefusal, req.Prompt() == first
	}})
	res, err := Run(context.Background(), Options{Plan: mkPlan(t, srv.URL), DataRoot: root, OutDir: t.TempDir()})
	if err != nil {
		t.Fatalf("the run failed: %v", err)
	}
	f := readRun(t, res[0].Path)
	q := f.QAItems[0]
	if q.Correct != 0 || *q.AnswerText != "" || *q.CorrectLenient != 0 {
		t.Errorf("refused item: correct %d, answer %q", q.Correct, *q.AnswerText)
	}
	if *f.QAItems[1].AnswerText != qa20Replies[1].reply {
		t.Errorf("item 1 answer %q, want %q", *f.QAItems[1].AnswerText, qa20Replies[1].reply)
	}
	if !hasWarning(f.Run.Warnings, "refused 1 question(s)") {
		t.Errorf("warnings %q lack the refusal", f.Run.Warnings)
	}
}

func TestAnswersWithoutUsageMakeTheCostUnknown(t *testing.T) {
	root := mattoolstest.NewRoot(t).Dir
	srv := llmtest.New(t, llmtest.Options{Responder: toolAnswer, NoUsage: true})
	res, err := Run(context.Background(), Options{Plan: mustPlan(t, toolPlan(srv.URL, 1, "")), DataRoot: root, OutDir: t.TempDir(), Unscored: true,
		APIKeys: map[string]string{"FAKE_API_KEY": testKey}})
	if err != nil {
		t.Fatal(err)
	}
	f := readRun(t, res[0].Path)
	u := f.Run.Usage
	if u.CostUSD != nil || u.Calls != 49 || u.PromptTokens != 0 || u.CompletionTokens != 0 {
		b, _ := json.Marshal(u)
		t.Errorf("usage %s; want 49 calls, no cost (the plan has a price, the tokens are unknown)", b)
	}
	for i, q := range f.Questions {
		if q.PromptTokens != nil || q.CompletionTokens != nil {
			t.Errorf("row %d tokens %v/%v, want null (unknown)", i, *q.PromptTokens, *q.CompletionTokens)
		}
	}
	if !hasWarning(f.Run.Warnings, "no token usage for 49 question(s)") {
		t.Errorf("warnings %q lack the unknown usage", f.Run.Warnings)
	}
}

func hasWarning(ws []string, part string) bool {
	for _, w := range ws {
		if strings.Contains(w, part) {
			return true
		}
	}
	return false
}
