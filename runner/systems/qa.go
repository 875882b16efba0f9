package systems

import (
	"context"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/internal/pystr"
	"github.com/mattools-leaderboard/leaderboard/llm"
)

// QAPrompt returns the QA prompt of q: MatTools' question_test_prompt
// (prompts/qa/qa_answer.txt) formatted as Python's str.format with the
// question and the four choice texts, which keep their "A. " prefixes
// (qa_benchmark testing_script.py; docs/mattools.md §4).
func QAPrompt(q *datasets.QAQuestion, p *Prompts) (string, error) {
	return pystr.Format(p.QAAnswer, map[string]string{
		"question":     q.Question,
		"first_choice": q.Choices[0], "second_choice": q.Choices[1],
		"third_choice": q.Choices[2], "fourth_choice": q.Choices[3],
	})
}

// QAAnswer is a model's answer to one QA question.
type QAAnswer struct {
	Response string // the answer as received (scoring strips it)
	Usage
}

// AnswerQA asks the model one QA question in one user message, as MatTools'
// testing_script.py does. Errors are infrastructure failures only.
func AnswerQA(ctx context.Context, q *datasets.QAQuestion, env Env) (QAAnswer, error) {
	var a QAAnswer
	prompt, err := QAPrompt(q, env.Prompts)
	if err != nil {
		return a, err
	}
	c, err := env.LLM.Complete(ctx, []llm.Message{llm.User(prompt)})
	if err != nil {
		return a, err
	}
	a.Usage.add(c)
	a.Response = c.Content
	return a, nil
}
