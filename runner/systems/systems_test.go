package systems

// Tests of the systems, prompts and answer extraction.

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/datasets/corpus"
	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/llm"
	"github.com/mattools-leaderboard/leaderboard/llm/llmtest"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/runner/retrieval"
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
// and raw responses (docs/mattools.md §3.2).
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
// The runner's own prompt equals the recorded request content byte
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
	if got := Names(); len(got) != len(results.Systems) {
		t.Errorf("registered systems %v, want all of %v", got, results.Systems)
	}
	if _, err := New(results.SystemGraphRAG, Params{RetrievalSource: 1, GraphMode: "deep"}); err == nil || !strings.Contains(err.Error(), "query mode") {
		t.Errorf("graph-rag with an unknown mode: err = %v", err)
	}
	if _, err := New(results.SystemAgenticRAG, Params{RetrievalSource: 2}); err == nil || !strings.Contains(err.Error(), "needs retrieval source 3 or 4") {
		t.Errorf("agentic-rag on source 2: err = %v", err)
	}
	for _, p := range []Params{{RetrievalSource: 4, Variant: "loud"}, {RetrievalSource: 4, MaxIterations: 99}, {RetrievalSource: 0}} {
		if _, err := New(results.SystemSelfReflectionRAG, p); err == nil {
			t.Errorf("self-reflection-rag accepted %+v", p)
		}
	}
	if _, err := New(results.SystemLLMRAG, Params{}); err == nil || !strings.Contains(err.Error(), "needs a retrieval source 1–4") {
		t.Errorf("llm-rag without a source: err = %v", err)
	}
	if _, err := New("nonsense", Params{}); err == nil || !strings.Contains(err.Error(), "not a known system") {
		t.Errorf("nonsense: err = %v", err)
	}
	if _, err := New(results.SystemSingleLLM, Params{RetrievalSource: 2}); err == nil {
		t.Error("single-llm accepted a retrieval source")
	}
}

// TestEverySystem checks every registered system against its
// registration: configured with the first retrieval source (0–4) it
// accepts, it records and builds its answerer asking the runner for
// exactly the resources its Needs declare (the runner provides only
// those), forecasts at least one call and as many retrieval queries as it
// retrieves; each one-call system (Estimate.Calls 1) then answers a
// 3-question fixture against the fake model, the answer extracted and the
// usage added (the multi-call systems: agentic_test.go).
func TestEverySystem(t *testing.T) {
	qs := []datasets.Question{
		{Index: 0, ID: "test_a", Text: "  Question A?\n"},
		{Index: 1, ID: "test_b", Text: "Question B?"},
		{Index: 2, ID: "test_c", Text: "Question C?\n\n"},
	}
	dir := t.TempDir()
	for rel, text := range map[string]string{PromptLLMRAGSystem: "SYSTEM", PromptLLMRAGUserCode: "Q: {question}\nCODE:\n{retrieved_code_segments}",
		PromptLLMRAGUserDoc: "Q: {question}\nDOCS:\n{retrieved_code_documents}", PromptLLMRAGUserLLMDoc: "Q: {question}\nLLM DOCS:\n{retrieved_code_documents}"} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(rel)), 0o755)
		os.WriteFile(filepath.Join(dir, rel), []byte(text), 0o644)
	}
	p := &Prompts{SingleLLMAnswerFormat: "FORMAT", QAAnswer: "{question}", Dir: dir}
	c := &corpus.Corpus{Source: 1, ID: "sha256:" + strings.Repeat("0", 64), Chunks: []corpus.Chunk{
		{ID: "a.py#0", Source: "a.py", Name: "alpha", Text: "def alpha(): question a"},
		{ID: "b.py#0", Source: "b.py", Text: "b = 1"}}}
	bm, err := retrieval.NewBM25(context.Background(), c, retrieval.BM25Options{})
	if err != nil {
		t.Fatal(err)
	}
	given := Given{Search: bm, Objects: fakeObjects{}, Execute: (&fakeExec{}).exec,
		Info:     &GraphInfo{Corpus: "pymatgen", CorpusID: "sha256:1", IndexModel: "m", EmbeddingModel: "e", PromptSHA256: map[string]string{"a.txt": "00"}},
		GraphEnv: &GraphEnv{}}
	letterRE := regexp.MustCompile(`Question ([A-Z])\?`)
	names := Names()
	if len(names) < len(results.Systems) {
		t.Fatalf("registered systems %v, want at least the paper's %v", names, results.Systems)
	}
	for _, name := range names {
		t.Run(string(name), func(t *testing.T) {
			var sys System
			var params Params
			for src := 0; src <= 4 && sys == nil; src++ {
				params = Params{RetrievalSource: src}
				sys, _ = New(name, params)
			}
			if sys == nil {
				t.Fatalf("%s accepts no retrieval source 0–4", name)
			}
			if sys.Name() != name {
				t.Errorf("Name() = %q", sys.Name())
			}
			res := &askedResources{Given: given}
			var r results.Run
			if err := sys.Record(res, &r); err != nil {
				t.Fatal(err)
			}
			a, err := sys.Build(context.Background(), res)
			if err != nil {
				t.Fatal(err)
			}
			if needs := NeedsOf(name); res.asked != needs {
				t.Errorf("asked the runner for %+v; its registration declares %+v", res.asked, needs)
			}
			needs := NeedsOf(name)
			est := sys.Estimate(&qs[0], p)
			if retrieves := needs.Retriever || needs.Graph; est.Calls < 1 || (est.Queries > 0) != retrieves {
				t.Errorf("estimate %+v for a system that retrieves: %v", est, retrieves)
			}
			if est.Calls != 1 {
				return
			}
			srv := llmtest.New(t, llmtest.Options{Responder: func(r llmtest.Request) llmtest.Reply {
				id := letterRE.FindStringSubmatch(r.Prompt())[1]
				return llmtest.Reply{Content: "<answer><code>```python\ndef f" + id[:1] + "(): pass\n```</code><name>f" + id[:1] + "</name></answer>",
					PromptTokens: 10, CompletionTokens: 5}
			}})
			client, _ := llm.New(llm.Config{BaseURL: srv.URL, Model: "m"})
			env := Env{LLM: client, Prompts: p}
			for _, q := range qs {
				g, err := a.Generate(context.Background(), &q, env)
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
			if name == results.SystemLLMRAG {
				// The whole question (stripped) is the query: "question a" ranks alpha first;
				// "b" matches nothing and is not returned.
				want := "Q: Question A?\nCODE:\nThis code belongs to the module: a.py\nThe top-level function or class of this code: alpha\ndef alpha(): question a"
				if got := srv.Requests()[0].Prompt(); got != want {
					t.Errorf("prompt %q, want %q", got, want)
				}
			}
		})
	}
}

// askedResources are given resources that note which ones were asked for.
type askedResources struct {
	Given
	asked Needs
}

func (r *askedResources) Retriever(ctx context.Context) (retrieval.Retriever, error) {
	r.asked.Retriever = true
	return r.Given.Retriever(ctx)
}

func (r *askedResources) CodeObjects() (CodeObjects, error) {
	r.asked.CodeObjects = true
	return r.Given.CodeObjects()
}

func (r *askedResources) Executor() Executor {
	r.asked.Executor = true
	return r.Given.Executor()
}

func (r *askedResources) GraphInfo() (GraphInfo, error) {
	r.asked.Graph = true
	return r.Given.GraphInfo()
}

func (r *askedResources) Graph(ctx context.Context) (GraphEnv, error) {
	r.asked.Graph = true
	return r.Given.Graph(ctx)
}

// fakeObjects are code objects that document nothing.
type fakeObjects struct{}

func (fakeObjects) ByChunk(string) (string, string, bool) { return "", "", false }
func (fakeObjects) ByName(string) (codes, docs []string)  { return nil, nil }

// TestLLMRAGPromptPerSource: for one real question, the LLM-RAG messages of
// retrieval sources 1 and 2 are MatTools' prompt texts (the data root's
// prompts, byte for byte) with the stripped question and the retrieved
// chunks in MatTools' context format (build_agent.py retrieve /
// retrieve_doc), the chunks looked up by the hits' ids in the corpus.
func TestLLMRAGPromptPerSource(t *testing.T) {
	root := mattoolstest.DataRoot(t, "to build the real corpora and prompts")
	bench, err := datasets.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	prompts, err := LoadPrompts(filepath.Join(root, PromptsDir))
	if err != nil {
		t.Fatal(err)
	}
	q := bench.Questions[0]
	read := func(rel string) string {
		data, err := os.ReadFile(filepath.Join(root, PromptsDir, rel))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	cache := t.TempDir()
	for _, src := range []int{1, 2} {
		build := corpus.BuildCode
		if src == 2 {
			build = corpus.BuildDocs
		}
		c, err := build(root, corpus.Options{CacheDir: cache})
		if err != nil {
			t.Fatal(err)
		}
		byID := map[string]corpus.Chunk{}
		for _, ch := range c.Chunks {
			byID[ch.ID] = ch
		}
		bm, err := retrieval.NewBM25(context.Background(), c, retrieval.BM25Options{})
		if err != nil {
			t.Fatal(err)
		}
		srv := llmtest.New(t, llmtest.Options{Responder: func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Content: "no answer"} }})
		client, _ := llm.New(llm.Config{BaseURL: srv.URL, Model: "m"})
		sys, err := New(results.SystemLLMRAG, Params{RetrievalSource: src})
		if err != nil {
			t.Fatal(err)
		}
		g, err := buildAnswerer(t, sys, Given{Search: bm}).Generate(context.Background(), &q, Env{LLM: client, Prompts: prompts})
		if err != nil {
			t.Fatal(err)
		}
		if len(g.Retrieved) != DefaultTopK {
			t.Fatalf("source %d: %d chunks retrieved, want %d", src, len(g.Retrieved), DefaultTopK)
		}
		var items []string
		for _, r := range g.Retrieved {
			ch := byID[r.ChunkID]
			if src == 1 {
				name := ch.Name
				if name == "" {
					name = "None"
				}
				items = append(items, "This code belongs to the module: "+ch.Source+"\nThe top-level function or class of this code: "+name+"\n"+ch.Text)
			} else {
				items = append(items, "Source of this document: "+ch.Source+"\n"+ch.Text)
			}
		}
		context := strings.Join(items, "\n\n---------------------------------\n\n")
		user, field := read("llm_rag/user_code_source1.txt"), "{retrieved_code_segments}"
		if src == 2 {
			user, field = read("llm_rag/user_doc_source2.txt"), "{retrieved_code_documents}"
		}
		want := strings.Replace(strings.Replace(user, "{question}", strings.TrimSpace(q.Text), 1), field, context, 1)
		reqs := srv.Requests()
		if len(reqs) != 1 || len(reqs[0].Messages) != 2 {
			t.Fatalf("source %d: %d requests", src, len(reqs))
		}
		if got := reqs[0].Messages[0].Content; got != read("llm_rag/system.txt") {
			t.Errorf("source %d: system prompt %q", src, got)
		}
		if got := reqs[0].Messages[1].Content; got != want {
			t.Errorf("source %d: user prompt differs from MatTools' template filled with the question and the retrieved chunks:\n%s\nwant:\n%s", src, got, want)
		}
		t.Logf("source %d (%d chunks): question %s retrieved %v; prompt %d bytes", src, len(c.Chunks), q.ID, chunkIDs(g.Retrieved), len(want))
	}
}

func chunkIDs(rs []results.RetrievedChunk) []string {
	var ids []string
	for _, r := range rs {
		ids = append(ids, r.ChunkID)
	}
	return ids
}

// buildAnswerer returns sys's answerer built from res, failing t when it
// cannot be built.
func buildAnswerer(t testing.TB, sys System, res Resources) Answerer {
	t.Helper()
	a, err := sys.Build(context.Background(), res)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
