package systems

// Tests of the systems, prompts and answer extraction (issue 5).

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/runner/llm"
	"github.com/mattools-leaderboard/leaderboard/runner/llm/llmtest"
)

func dataRoot(t *testing.T) string {
	t.Helper()
	root := mattoolstest.DataRoot(t, "to run tests on the real benchmark")
	return root
}

// dataPrompts returns the prompt texts of the data root as the runner
// obtains them: its prompts/ folder, or extracted from an upstream
// checkout's sources (cached in a temporary folder).
func dataPrompts(t *testing.T, root string) (*Prompts, error) {
	t.Helper()
	return ObtainPrompts(context.Background(), root, "", ExtractOptions{CacheDir: t.TempDir()})
}

// The GPT runs of the single-LLM system, the only ones with recorded requests
// and raw responses (mattools-reference.md §3.2).
var gptModels = []string{"gpt-3.5-turbo-0125", "gpt-4o-mini-2024-07-18", "gpt-4o-2024-08-06"}

func readJSONL(t *testing.T, path string, each func(line int, raw []byte)) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for n := 1; sc.Scan(); n++ {
		each(n, sc.Bytes())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

// TestSingleLLMPromptEqualsRecordedRequests is the first acceptance check of
// issue 5: the runner's own prompt equals the recorded request content byte
// for byte, 49 questions × 3 rounds × 3 models.
func TestSingleLLMPromptEqualsRecordedRequests(t *testing.T) {
	root := dataRoot(t)
	b, err := datasets.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	p, err := dataPrompts(t, root)
	if err != nil {
		t.Fatal(err)
	}
	equal := 0
	for _, model := range gptModels {
		for round := 1; round <= 3; round++ {
			path := filepath.Join(root, "src/pure_agent_test", "round"+itoa(round), model, "request_bodies.jsonl")
			n := 0
			readJSONL(t, path, func(line int, raw []byte) {
				var r struct {
					CustomID string `json:"custom_id"`
					Body     struct {
						Model       string        `json:"model"`
						Messages    []llm.Message `json:"messages"`
						Temperature float64       `json:"temperature"`
					} `json:"body"`
				}
				if err := json.Unmarshal(raw, &r); err != nil {
					t.Fatalf("%s:%d: %v", path, line, err)
				}
				n++
				q := &b.Questions[line-1] // task_i is the i-th question in the published order
				if r.CustomID != "task_"+itoa(line) || r.Body.Model != model || len(r.Body.Messages) != 1 || r.Body.Temperature != 0.7 {
					t.Errorf("%s:%d: unexpected request %s %s", path, line, r.CustomID, r.Body.Model)
					return
				}
				if got, want := SingleLLMPrompt(q, p), r.Body.Messages[0].Content; got != want {
					t.Errorf("%s:%d (%s): prompt differs from the recorded request (%d vs %d bytes)", path, line, q.ID, len(got), len(want))
					return
				}
				equal++
			})
			if n != 49 {
				t.Errorf("%s: %d requests, want 49", path, n)
			}
		}
	}
	t.Logf("prompt equals recorded request content byte for byte: %d of %d (49 × 3 rounds × 3 models)", equal, 49*9)
	if equal != 49*9 {
		t.Errorf("%d of 441 prompts equal", equal)
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// TestExtractCodeReproducesPublishedResults applies ExtractCode to the 441
// recorded raw responses and compares with function_generation_results.jsonl.
func TestExtractCodeReproducesPublishedResults(t *testing.T) {
	root := dataRoot(t)
	equal, failed := 0, 0
	for _, model := range gptModels {
		for round := 1; round <= 3; round++ {
			dir := filepath.Join(root, "src/pure_agent_test", "round"+itoa(round), model)
			var published []struct{ Function, FunctionName string }
			readJSONL(t, filepath.Join(dir, "function_generation_results.jsonl"), func(_ int, raw []byte) {
				var r struct {
					Function     string `json:"function"`
					FunctionName string `json:"function_name"`
				}
				json.Unmarshal(raw, &r)
				published = append(published, struct{ Function, FunctionName string }{r.Function, r.FunctionName})
			})
			readJSONL(t, filepath.Join(dir, "raw_responses.jsonl"), func(line int, raw []byte) {
				var r struct {
					CustomID string `json:"custom_id"`
					Response struct {
						Body struct {
							Choices []struct {
								Message struct{ Content string } `json:"message"`
							} `json:"choices"`
						} `json:"body"`
					} `json:"response"`
				}
				json.Unmarshal(raw, &r)
				i := 0
				json.Unmarshal([]byte(strings.TrimPrefix(r.CustomID, "task_")), &i)
				code, name, ok := ExtractCode(r.Response.Body.Choices[0].Message.Content)
				if !ok {
					failed++
				}
				if w := published[i-1]; code != w.Function || name != w.FunctionName {
					t.Errorf("%s task_%d: extracted (%d bytes, %q), published (%d bytes, %q)", dir, i, len(code), name, len(w.Function), w.FunctionName)
					return
				}
				equal++
			})
		}
	}
	t.Logf("ExtractCode equals the published jsonl for %d of 441 responses (%d without the answer format)", equal, failed)
	if equal != 441 {
		t.Errorf("%d of 441 equal", equal)
	}
}

func TestExtractCode(t *testing.T) {
	tests := []struct {
		name, in, code, fn string
		ok                 bool
	}{
		{"answer format", "<answer>\n<code>\n```python\ndef f():\n    return {}\n```\n</code>\n<name>f</name>\n</answer>", "def f():\n    return {}", "f", true},
		{"first code block wins", "<code>```python\na=1```</code><code>```python\nb=2```</code><name>x</name>", "a=1", "x", true},
		{"name stripped, verbatim otherwise", "<code>```python x```</code><name>\n foo() \n</name>", "x", "foo()", true},
		{"python whitespace \\v and NBSP around the fence", "<code>\v\u00a0```python\u3000y```\u2028</code><name>y</name>", "y", "y", true},
		{"no name", "<code>```python\nz```</code>", "", "", false},
		{"no python fence", "<code>```\nz```</code><name>z</name>", "", "", false},
		{"empty", "", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, fn, ok := ExtractCode(tt.in)
			if code != tt.code || fn != tt.fn || ok != tt.ok {
				t.Errorf("ExtractCode = %q, %q, %v; want %q, %q, %v", code, fn, ok, tt.code, tt.fn, tt.ok)
			}
		})
	}
}

func TestQAPromptWithThePublishedTemplate(t *testing.T) {
	p, err := dataPrompts(t, dataRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	q := &datasets.QAQuestion{Question: "Which {x} method?", Choices: [4]string{"A. one", "B. two", "C. three", "D. four"}}
	got, err := QAPrompt(q, p)
	if err != nil {
		t.Fatal(err)
	}
	want := "You are a materials scientist with expertise in Pymatgen for solving material simulation problems. " +
		"Below is a multiple-choice question related to Pymatgen. Please select the correct answer based on your expertise.\n\n" +
		"<question>Which {x} method?</question>\n<answer_choices>\n    <choice>A. one</choice>\n    <choice>B. two</choice>\n" +
		"    <choice>C. three</choice>\n    <choice>D. four</choice>\n</answer_choices>\n\n" +
		"Only provide your answer as a single letter (A, B, C, or D), formatted in tags as follows:\n<answer>Your answer here</answer>"
	if got != want {
		t.Errorf("QAPrompt =\n%q\nwant\n%q", got, want)
	}
}

func TestNewRejectsUnavailableSystemsAndBadParams(t *testing.T) {
	if _, err := New("llm-rag", Params{RetrievalSource: 4}); err == nil || !strings.Contains(err.Error(), "single-llm") {
		t.Errorf("llm-rag: err = %v, want 'not available' listing single-llm", err)
	}
	if _, err := New("nonsense", Params{}); err == nil || !strings.Contains(err.Error(), "not a known system") {
		t.Errorf("nonsense: err = %v", err)
	}
	if _, err := New(results.SystemSingleLLM, Params{RetrievalSource: 2}); err == nil {
		t.Error("single-llm accepted a retrieval source")
	}
}

// TestEverySystem runs each registered system on a 3-question fixture against
// the fake model and checks that the answer is extracted and the usage added.
func TestEverySystem(t *testing.T) {
	qs := []datasets.Question{
		{Index: 0, ID: "test_a", Text: "  Question A?\n"},
		{Index: 1, ID: "test_b", Text: "Question B?"},
		{Index: 2, ID: "test_c", Text: "Question C?\n\n"},
	}
	p := &Prompts{SingleLLMAnswerFormat: "FORMAT", QAAnswer: "{question}"}
	for _, name := range Names() {
		t.Run(string(name), func(t *testing.T) {
			srv := llmtest.New(t, llmtest.Options{Responder: func(r llmtest.Request) llmtest.Reply {
				id := strings.Fields(r.Prompt())[1]
				return llmtest.Reply{Content: "<answer><code>```python\ndef f" + id[:1] + "(): pass\n```</code><name>f" + id[:1] + "</name></answer>",
					PromptTokens: 10, CompletionTokens: 5}
			}})
			c, _ := llm.New(llm.Config{BaseURL: srv.URL, Model: "m"})
			sys, err := New(name, Params{})
			if err != nil {
				t.Fatal(err)
			}
			for _, q := range qs {
				g, err := sys.Generate(context.Background(), &q, Env{LLM: c, Prompts: p})
				if err != nil {
					t.Fatal(err)
				}
				letter := q.ID[len(q.ID)-1:]
				want := "f" + strings.ToUpper(letter)
				if !g.Extracted || g.FunctionName != want || g.Code != "def "+want+"(): pass" || g.Calls < 1 || g.PromptTokens < 10 || g.CompletionTokens < 5 {
					t.Errorf("%s: generation %+v", q.ID, g)
				}
			}
			if name == results.SystemSingleLLM {
				if got := srv.Requests()[0].Prompt(); got != "Question A?\nFORMAT" {
					t.Errorf("prompt %q", got)
				}
			}
		})
	}
}
