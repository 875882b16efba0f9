package synth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/llm"
	"github.com/mattools-leaderboard/leaderboard/llm/llmtest"
)

// fakePromptsRoot writes a data root holding the four synthesis prompt
// files with made-up texts (the user template with upstream's three
// placeholders).
func fakePromptsRoot(t *testing.T) string {
	t.Helper()
	return writeFiles(t, map[string]string{
		QuestionGenerationDir + "/" + PromptExtract:        "EXTRACT the asserted properties.\n",
		QuestionGenerationDir + "/" + PromptQuestionSystem: "QUESTION system.",
		QuestionGenerationDir + "/" + PromptQuestionUser:   "Test:\n{unit_test_code}\nProps:\n{properties_json}\nRead:\n{file_reading_functions}\n",
		QuestionGenerationDir + "/" + PromptUnitTest:       "UNITTEST system",
	})
}

var userDef = regexp.MustCompile(`def (test\w*)\(`)

// scriptedModel answers the four steps of a test from its asserts (a
// scripted answer set: the properties are the asserts' expected values,
// named p0, p1, …), telling the step by the system prompt (or, for step
// 4, the project's reference prompt) and the test by the first def test…
// of the unit test. bad, if not nil, changes an answer.
type scriptedModel struct {
	p     *Prompts
	tests map[string]Test
	bad   func(test, step, answer string) string
	calls atomic.Int64
}

func (m *scriptedModel) props(t Test) string {
	var b strings.Builder
	fmt.Fprintf(&b, "{\n  \"JSON_File_Name\": %q,\n  \"properties\": {", t.Name)
	n := 0
	for _, a := range t.AssertList {
		if a.InRaises || a.Kind == "opaque" {
			continue
		}
		var v any = true
		if a.Value != nil {
			json.Unmarshal([]byte(*a.Value), &v)
		} else if a.Truth != nil {
			v = *a.Truth
		}
		lit, _ := json.Marshal(pyLiteral(v))
		if n > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "\n    \"p%d\": {\"description\": \"asserted at line %d\", \"format\": \"%T\", \"value\": %s}", n, a.Line, v, lit)
		n++
	}
	b.WriteString("\n  }\n}")
	return b.String()
}

// pyLiteral writes a JSON value as a Python literal.
func pyLiteral(v any) string {
	switch x := v.(type) {
	case bool:
		if x {
			return "True"
		}
		return "False"
	case string:
		b, _ := json.Marshal(x)
		return string(b)
	case []any:
		var s []string
		for _, e := range x {
			s = append(s, pyLiteral(e))
		}
		return "[" + strings.Join(s, ", ") + "]"
	case nil:
		return "None"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func (m *scriptedModel) respond(r llmtest.Request) llmtest.Reply {
	m.calls.Add(1)
	first := r.Messages[0].Content
	user := r.Messages[len(r.Messages)-1].Content
	step := ""
	switch first {
	case m.p.Extract:
		step = StepProperties
	case m.p.QuestionSystem:
		step = StepQuestion
	case m.p.UnitTest:
		step = StepUnitTest
	default:
		if strings.HasPrefix(first, m.p.Reference[:40]) {
			step = StepReference
		}
	}
	name := ""
	if step == StepUnitTest {
		var top struct {
			Name string `json:"JSON_File_Name"`
		}
		json.Unmarshal([]byte(user), &top)
		name = top.Name
	} else if mm := userDef.FindStringSubmatch(user); mm != nil {
		name = mm[1]
	}
	t, ok := m.tests[name]
	if step == "" || !ok {
		return llmtest.Reply{Content: "unexpected request"}
	}
	var a string
	switch step {
	case StepProperties:
		a = "Here are the properties.\n```json\n" + m.props(t) + "\n```\nDone."
	case StepQuestion:
		a = "<question>\nWrite a function computing the properties of " + t.Name + ".\n</question>"
	case StepUnitTest:
		a = "```python\ndef " + t.Name + "(properties):\n    return \"ok\"\n```"
	case StepReference:
		a = "```python\ndef solve():\n    return {}\n```"
	}
	if m.bad != nil {
		a = m.bad(t.Name, step, a)
	}
	return llmtest.Reply{Content: a}
}

func client(t *testing.T, url, model string, retries int) *llm.Client {
	t.Helper()
	c, err := llm.New(llm.Config{BaseURL: url, Model: model, MaxRetries: retries})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

const twoTestsPy = `import pytest


@pytest.fixture
def value():
    return 3


def test_alpha(value):
    assert value == 3
    assert str(value) == "3"


def test_beta():
    assert [1, 2] == [1, 2]
    assert not False
`

// TestGenerateStepsPromptsAndResume drives Generate through the fake
// server: four calls per test with the prompts as given, each step fed the
// parsed earlier answers; a failed call stops its test, and the next run
// asks only the missing steps.
func TestGenerateStepsPromptsAndResume(t *testing.T) {
	py := needPython(t)
	root := fakePromptsRoot(t)
	p, err := LoadPrompts(root)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte("EXTRACT the asserted properties.\n"))
	if p.Files[0] != (PromptFile{QuestionGenerationDir + "/" + PromptExtract, "sha256:" + hex.EncodeToString(sum[:])}) || p.Files[4].SHA256 != ReferencePromptSHA256 {
		t.Errorf("prompt files %+v", p.Files)
	}
	dir := writeFiles(t, map[string]string{"test_two.py": twoTestsPy})
	files, err := SplitDir(dir, py)
	if err != nil {
		t.Fatal(err)
	}
	tests := files[0].Tests
	m := &scriptedModel{p: p, tests: map[string]Test{}}
	for _, x := range tests {
		m.tests[x.Name] = x
	}
	// First run: test_beta's unit-test step fails (500, no retries).
	failing := true
	srv := llmtest.New(t, llmtest.Options{Responder: func(r llmtest.Request) llmtest.Reply {
		if failing && r.Messages[0].Content == p.UnitTest && strings.Contains(r.Messages[1].Content, "test_beta") {
			return llmtest.Reply{Content: "```python\nbroken"} // no closing fence: parsed as nil
		}
		return m.respond(r)
	}})
	journal := filepath.Join(t.TempDir(), "j.jsonl")
	res, err := Generate(context.Background(), tests, p, client(t, srv.URL, "fake-model", llm.NoRetries), Options{Concurrency: 2, Journal: journal})
	if err != nil {
		t.Fatal(err)
	}
	if res.Calls != 8 || res.Requested != 8 || res.Completions != 8 || res.Resumed != 0 || len(res.Triplets) != 2 {
		t.Fatalf("result %+v", res)
	}
	reqs := srv.Requests()
	byStep := map[string][]llmtest.Request{}
	for _, r := range reqs {
		byStep[r.Messages[0].Content] = append(byStep[r.Messages[0].Content], r)
	}
	alpha := tests[0]
	for _, r := range byStep[p.Extract] {
		if len(r.Messages) != 2 || r.Messages[1].Role != "user" || !strings.Contains(r.Messages[1].Content, "def test_") {
			t.Errorf("step 1 messages %+v", r.Messages)
		}
	}
	wantQ := strings.NewReplacer("{unit_test_code}", alpha.UnitTest, "{properties_json}", *ParseProperties("```json\n" + m.props(alpha) + "\n```"),
		"{file_reading_functions}", alpha.FileReading).Replace(p.QuestionUser)
	found := false
	for _, r := range byStep[p.QuestionSystem] {
		found = found || r.Messages[1].Content == wantQ
	}
	if !found {
		t.Errorf("no step-2 request carries test_alpha's user template:\n%s", wantQ)
	}
	tr := res.Triplets[0]
	if tr.ID != "test_two.py::test_alpha" || tr.Question == nil || *tr.Question != "Write a function computing the properties of test_alpha." ||
		tr.NewUnitTest == nil || !strings.HasPrefix(*tr.NewUnitTest, "def test_alpha(properties):") || tr.Reference == nil {
		t.Errorf("triplet %+v", tr)
	}
	if res.Triplets[1].NewUnitTest != nil {
		t.Errorf("an unfenced answer parsed as %q", *res.Triplets[1].NewUnitTest)
	}

	// The same journal with every step finished: nothing asked.
	res2, err := Generate(context.Background(), tests, p, client(t, srv.URL, "fake-model", llm.NoRetries), Options{Journal: journal})
	if err != nil || res2.Requested != 0 || res2.Resumed != 8 {
		t.Fatalf("second run %+v, %v", res2, err)
	}
	// Drop test_beta's last two steps from the journal (as a run killed
	// half-way leaves it) and answer them: only they are asked.
	b, _ := os.ReadFile(journal)
	var keep []string
	for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if strings.Contains(l, `"id":"test_two.py::test_beta","step":"unit_test"`) || strings.Contains(l, `"id":"test_two.py::test_beta","step":"reference"`) {
			continue
		}
		keep = append(keep, l)
	}
	os.WriteFile(journal, []byte(strings.Join(keep, "\n")+"\n{\"id\":\"torn"), 0o644)
	failing = false
	res3, err := Generate(context.Background(), tests, p, client(t, srv.URL, "fake-model", llm.NoRetries), Options{Journal: journal})
	if err != nil || res3.Requested != 2 || res3.Resumed != 6 || res3.Triplets[1].NewUnitTest == nil {
		t.Fatalf("resumed run %+v, %v", res3, err)
	}

	// A journal of another model is refused before any call.
	n := len(srv.Requests())
	if _, err := Generate(context.Background(), tests, p, client(t, srv.URL, "other-model", llm.NoRetries), Options{Journal: journal}); err == nil ||
		!strings.Contains(err.Error(), "refusing to mix") {
		t.Errorf("other model: %v", err)
	}
	if len(srv.Requests()) != n {
		t.Errorf("requests were sent for a refused journal")
	}

	// A failed call stops its test; the other test finishes.
	srv2 := llmtest.New(t, llmtest.Options{Responder: func(r llmtest.Request) llmtest.Reply {
		return m.respond(r)
	}, FaultSequence: []llmtest.Fault{llmtest.FaultServerError}})
	res4, err := Generate(context.Background(), tests, p, client(t, srv2.URL, "fake-model", llm.NoRetries), Options{Concurrency: 1, Journal: filepath.Join(t.TempDir(), "k.jsonl")})
	if err == nil || res4.Failed != 1 || len(res4.Triplets) != 1 || res4.Triplets[0].Test != "test_beta" {
		t.Errorf("failed call: %+v, %v", res4, err)
	}

	e := EstimateCalls(tests, p)
	if e.Tests != 2 || e.Calls != 8 || e.Asserts != 4 || e.PromptTokens <= 0 || e.CompletionTokens != (45+50*2+500+45*2+330+28*2)*2+300+int64(len(alpha.UnitTest)/4)/2+int64(len(tests[1].UnitTest)/4)/2 {
		t.Errorf("estimate %+v", e)
	}
}

// TestParseAsUpstream: the answers are cut out as MatTools' originals
// show: the first block, trimmed; nil without one.
func TestParseAsUpstream(t *testing.T) {
	s := func(p *string) string {
		if p == nil {
			return "<nil>"
		}
		return *p
	}
	for _, c := range []struct{ got, want string }{
		{s(ParseProperties("x\n```json\n {\"a\": 1} \n```\n```json\n{}\n```")), `{"a": 1}`},
		{s(ParseProperties("{\"a\": 1}")), "<nil>"},
		{s(ParseQuestion("pre <question>\n  Q text\n</question> post")), "Q text"},
		{s(ParseQuestion("<question>unclosed")), "<nil>"},
		{s(ParseCode("```python\ndef f():\n    pass\n```")), "def f():\n    pass"},
		{s(ParseCode("```py\nx\n```")), "<nil>"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	if pyStr(nil) != "None" {
		t.Error("a missing answer is formatted as None, as str.format does")
	}
}

// TestPromptsByteForByte: LoadPrompts returns MatTools' files unchanged,
// and the step-2 user message is the template with its three fields.
func TestPromptsByteForByte(t *testing.T) {
	root := mattoolstest.DataRoot(t, "to read MatTools' synthesis prompts")
	p, err := LoadPrompts(root)
	if err != nil {
		t.Fatal(err)
	}
	for i, name := range []string{PromptExtract, PromptQuestionSystem, PromptQuestionUser, PromptUnitTest} {
		b, err := os.ReadFile(filepath.Join(root, QuestionGenerationDir, name))
		if err != nil {
			t.Fatal(err)
		}
		got := []string{p.Extract, p.QuestionSystem, p.QuestionUser, p.UnitTest}[i]
		if got != string(b) || p.Files[i].SHA256 != sha256Hex(string(b)) {
			t.Errorf("%s differs from the data root's", name)
		}
	}
	msgs := p.Messages(StepQuestion, Test{UnitTest: "UT", FileReading: "FR"}, nil, nil)
	if msgs[0].Content != p.QuestionSystem || !strings.Contains(msgs[1].Content, "```python\nUT\n```") ||
		!strings.Contains(msgs[1].Content, "```json\nNone\n```") || !strings.Contains(msgs[1].Content, "```python\nFR\n```") {
		t.Errorf("step 2 user message:\n%s", msgs[1].Content)
	}
}
