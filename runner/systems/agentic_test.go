package systems

// Tests of agentic RAG and the self-reflection loop against a scripted
// fake model: the exact sequence of calls per question, the
// prompts byte for byte as MatTools' f-strings and str.format build them,
// and the retry limits.

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/datasets/corpus"
	"github.com/mattools-leaderboard/leaderboard/llm"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/runner/retrieval"
)

// scripted is a fake model: reply answers each call given its stage (found
// from the prompt) and how many calls of that stage came before.
type scripted struct {
	mu    sync.Mutex
	calls []scriptedCall
	n     map[string]int
	reply func(stage string, n int, msgs []llm.Message) string
}

type scriptedCall struct {
	stage string
	json  bool
	msgs  []llm.Message
}

// stageOf names the stage of a request from its prompts (the texts of
// MatTools' prompt files).
func stageOf(msgs []llm.Message) string {
	first, last := msgs[0].Content, msgs[len(msgs)-1].Content
	switch {
	case strings.HasPrefix(first, "Please provide a list of Code keywords"):
		return "keywords"
	case strings.HasPrefix(first, "You are a helpful assistant that generates multiple search queries"):
		return "queries"
	case strings.HasPrefix(first, "You are an expert relevance ranker"):
		return "rerank"
	case strings.HasPrefix(first, "You are a helpful assistant in the Pymatgen repository Q&A"):
		return "generate"
	case strings.Contains(first, "Extract the most relevant Pymatgen class or function"):
		return "ner"
	case strings.HasPrefix(first, "You are a helpful Repository-Level Software Q&A assistant"):
		return "answer"
	case strings.HasPrefix(first, "You are an assistant for code generation tasks"):
		return "sr-generate"
	case strings.HasPrefix(last, "Here is your task:\n1. Please check if the generated code"):
		return "format-check"
	case strings.HasPrefix(last, "You're a critical feedback agent"):
		return "critic"
	case strings.HasPrefix(last, "Here is your task:\n1. Please check if the content below"):
		return "critic-format-check"
	}
	return "unknown"
}

func (s *scripted) CompleteWith(_ context.Context, msgs []llm.Message, o llm.CallOptions) (*llm.Completion, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.n == nil {
		s.n = map[string]int{}
	}
	st := stageOf(msgs)
	s.calls = append(s.calls, scriptedCall{st, o.JSONObject, append([]llm.Message(nil), msgs...)})
	text := s.reply(st, s.n[st], msgs)
	s.n[st]++
	return &llm.Completion{Content: text, FinishReason: "stop", PromptTokens: 100, CompletionTokens: 10, Attempts: 1}, nil
}

func (s *scripted) Complete(ctx context.Context, msgs []llm.Message) (*llm.Completion, error) {
	return s.CompleteWith(ctx, msgs, llm.CallOptions{})
}

func (s *scripted) stages() []string {
	var out []string
	for _, c := range s.calls {
		out = append(out, c.stage)
	}
	return out
}

// objects is a fake systems.CodeObjects over hand-made documents.
type objects map[string][2]string // chunk id → file, code

func (o objects) ByChunk(id string) (string, string, bool) {
	v, ok := o[id]
	return v[0], v[1], ok
}

func (o objects) ByName(name string) ([]string, []string) {
	if name == "DefectEntry" {
		return []string{"class DefectEntry: ..."}, []string{"# DefectEntry\nA defect entry."}
	}
	return nil, nil
}

// llmDocCorpus is a small source-4 corpus and its code objects.
func llmDocCorpus(t *testing.T) (retrieval.Retriever, objects) {
	t.Helper()
	c := &corpus.Corpus{Source: 4, ID: "sha256:" + strings.Repeat("1", 64), Chunks: []corpus.Chunk{
		{ID: "pymatgen/analysis/defects/core.py#Vacancy#0", Source: "pymatgen/analysis/defects/core.py", Name: "Vacancy", Text: "# Vacancy\nA vacancy defect's 'site'."},
		{ID: "pymatgen/analysis/defects/core.py#Defect#0", Source: "pymatgen/analysis/defects/core.py", Name: "Defect", Text: "# Defect\nAbstract defect vacancy."},
		{ID: "pymatgen/core/structure.py#Structure#0", Source: "pymatgen/core/structure.py", Name: "Structure", Text: "# Structure\nA crystal structure."},
	}}
	bm, err := retrieval.NewBM25(context.Background(), c, retrieval.BM25Options{})
	if err != nil {
		t.Fatal(err)
	}
	objs := objects{}
	for _, ch := range c.Chunks {
		objs[ch.ID] = [2]string{ch.Source, "class " + ch.Name + ":\n    pass\n"}
	}
	return bm, objs
}

const agenticQuestion = "  Make a vacancy defect\nand return its site.\n"

func agenticAnswer(stage string, n int, _ []llm.Message) string {
	switch stage {
	case "keywords":
		return "Vacancy, Defect"
	case "queries":
		return "```\nvacancy defect\n\nvacancy site\nstructure\n```\ndefect"
	case "rerank":
		if n < 2 { // the first rerank: two unusable answers, then a usable one
			return []string{"not json", `{"documents": {"content": "x"}}`}[n]
		}
		if n > 2 { // the later rankings: distinct answers, to tell their lists apart
			return fmt.Sprintf(`{"documents": [{"content": "ranked-%d-b", "relevance_score": 2}, {"content": "ranked-%d-a", "relevance_score": 3}]}`, n, n)
		}
		return `{"documents": [{"content": "low", "relevance_score": 1}, {"content": "high", "relevance_score": 90.5},
			{"content": "tie-a", "relevance_score": 50}, {"content": "tie-b", "relevance_score": 50}, {"content": "mid", "relevance_score": 70},
			{"content": "cut", "relevance_score": 0}]}`
	case "generate":
		return "Use Vacancy(structure, site)."
	case "ner":
		return []string{`{"type": "class", "name": "DefectEntry"}`, "no json"}[n%2]
	case "answer":
		if n == 0 {
			return `{"function_name": "make_vacancy", "function": "  "}`
		}
		return `{"function_name": " make_vacancy ", "function": "def make_vacancy():\n    return {'site': 1}\n"}`
	}
	return "?"
}

// TestAgenticRAGCallSequence: one question through agentic RAG against a
// scripted model that sends unusable JSON twice to the first reranking, an
// unusable NER answer and an incomplete first final answer: 12 calls in
// MatTools' order, JSON mode exactly on reranking, NER and the final
// answer, and the prompts as MatTools' code builds them from the shared
// texts.
func TestAgenticRAGCallSequence(t *testing.T) {
	p, err := dataPrompts(t, dataRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	bm, objs := llmDocCorpus(t)
	sys, err := New(results.SystemAgenticRAG, Params{RetrievalSource: 4, JSONMode: true, NameLookup: LookupMetadataName})
	if err != nil {
		t.Fatal(err)
	}
	m := &scripted{reply: agenticAnswer}
	q := &datasets.Question{ID: "test_vacancy", Text: agenticQuestion}
	g, err := buildAnswerer(t, sys, Given{Search: bm, Objects: objs}).Generate(context.Background(), q, Env{LLM: m, Prompts: p})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"keywords", "queries", "rerank", "rerank", "rerank", "generate", "ner", "ner", "rerank", "rerank", "answer", "answer"}
	if got := m.stages(); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("calls %v, want %v", got, want)
	}
	if g.Calls != 12 || g.PromptTokens != 1200 || g.CompletionTokens != 120 {
		t.Errorf("usage %+v", g.Usage)
	}
	for _, c := range m.calls {
		wantJSON := c.stage == "rerank" || c.stage == "ner" || c.stage == "answer"
		if c.json != wantJSON {
			t.Errorf("stage %s: JSON mode %v", c.stage, c.json)
		}
	}
	if !g.Extracted || g.FunctionName != "make_vacancy" || g.Code != "def make_vacancy():\n    return {'site': 1}" {
		t.Errorf("generation: extracted %v, %q, %q", g.Extracted, g.FunctionName, g.Code)
	}

	// The prompts, as the f-strings and str.format of prompt.py,
	// text_analysis_tool.py and rag.py build them.
	wrapped := "User: Make a vacancy defect\nand return its site.\nAssistant: "
	if got := m.calls[0].msgs[0].Content; got != "Please provide a list of Code keywords according to the following query, please output no more than 3 keywords, Input: "+wrapped+", Output:" {
		t.Errorf("keywords prompt %q", got)
	}
	if got := m.calls[1].msgs[0].Content; got != "You are a helpful assistant that generates multiple search queries based on a single input query. "+
		"Generate 4 search queries, one on each line, related to the following input query:\nQuery: "+wrapped+"\nQueries:\n" {
		t.Errorf("queries prompt %q", got)
	}
	// The 4 queries ("```" and empty lines dropped) retrieve 5 each from a
	// 3-chunk corpus; the texts, deduplicated, are the first reranking's docs
	// as str(list).
	var retrieves int
	for _, st := range g.Trace {
		if st.Stage == "retrieve" {
			retrieves++
		}
	}
	if retrieves != 4 {
		t.Errorf("%d retrieval stages, want 4 (one per query)", retrieves)
	}
	rr := m.calls[2].msgs
	if rr[0].Role != "system" || !strings.HasPrefix(rr[0].Content, "You are an expert relevance ranker") || !strings.Contains(rr[0].Content, `{"content": "Document 1 text...", "relevance_score": 85.5}`) {
		t.Errorf("rerank system prompt %q", rr[0].Content)
	}
	if !strings.HasPrefix(rr[1].Content, "Query: Make a vacancy defect\nand return its site.\n\nDocs: ['# ") ||
		!strings.Contains(rr[1].Content, `"# Vacancy\nA vacancy defect's 'site'."`) {
		t.Errorf("rerank user prompt %q", rr[1].Content)
	}
	// The reranked top 5 by score (ties in answer order) joined by blank lines.
	if got := m.calls[5].msgs[0].Content; !strings.HasSuffix(got, "Question: "+wrapped+".\n\nInformation: high\n\nmid\n\ntie-a\n\ntie-b\n\nlow") {
		t.Errorf("rag prompt %q", got)
	}
	ner := m.calls[6].msgs
	if ner[0].Role != "system" || !strings.HasPrefix(ner[0].Content, "\nExtract the most relevant Pymatgen class or function") ||
		ner[1].Content != "The input is shown as below:\nUse Vacancy(structure, site).\n\nAnd now directly give your Output:" {
		t.Errorf("NER 1 %q", ner)
	}
	if got := m.calls[7].msgs[1].Content; got != "The input is shown as below:\n"+wrapped+"Vacancy, Defect\n\nAnd now directly give your Output:" {
		t.Errorf("NER 2 %q", got)
	}
	// Second reranking (the question itself, not the wrapped prompt, is its
	// query): the 5 documents + DefectEntry's markdown and the second NER's
	// "No matching item found.".
	if got := m.calls[8].msgs[1].Content; got != "Query: Make a vacancy defect\nand return its site.\n\nDocs: ['high', 'mid', 'tie-a', 'tie-b', 'low', '# DefectEntry\\nA defect entry.', 'No matching item found.']" {
		t.Errorf("rerank 2 %q", got)
	}
	// Third: the looked-up code, then each retrieved object's code between rules.
	if got := m.calls[9].msgs[1].Content; !strings.Contains(got, "Docs: ['class DefectEntry: ...', 'No matching item found.', "+
		"'--------------\\n\\npymatgen/analysis/defects/core.py\\n\\nclass Defect:\\n    pass\\n--------------\\n\\n'") {
		t.Errorf("rerank 3 %q", got)
	}
	final := m.calls[10].msgs[0].Content
	if !strings.Contains(final, "The user's question is:\n"+wrapped+"\n\n") ||
		!strings.Contains(final, "related code snippets recalled by the retriever are:\n['ranked-4-a', 'ranked-4-b']\n\n") ||
		!strings.Contains(final, "relevant documents recalled by the retriever are:\n['ranked-3-a', 'ranked-3-b']\n\n") ||
		!strings.Contains(final, "{\n  \"function_name\": \"calculate_sum\",\n  \"function\": \"def calculate_sum(a, b):\\n    return a + b\"\n}") {
		t.Errorf("final prompt %q", final)
	}
	if len(g.Retrieved) != 3 || g.Retrieved[0].Rank != 1 {
		t.Errorf("retrieved %+v", g.Retrieved)
	}
	if st := sys.Estimate(q, p); st.Calls != 9 || st.PromptBytes < 10_000 {
		t.Errorf("estimate %+v", st)
	}
}

// TestAgenticRAGRetryLimits: a model that never sends usable JSON makes
// each reranking try 10 times and keep every document, and the final
// answer try 10 times and give up with empty code: 3×10 + 10 + 5 calls.
func TestAgenticRAGRetryLimits(t *testing.T) {
	p, err := dataPrompts(t, dataRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	bm, objs := llmDocCorpus(t)
	sys, _ := New(results.SystemAgenticRAG, Params{RetrievalSource: 4})
	m := &scripted{reply: func(stage string, n int, msgs []llm.Message) string {
		switch stage {
		case "rerank", "answer", "ner":
			return "```json\n{\"documents\": []}\n```" // fenced: not JSON for json.loads
		}
		return agenticAnswer(stage, n, msgs)
	}}
	g, err := buildAnswerer(t, sys, Given{Search: bm, Objects: objs}).Generate(context.Background(), &datasets.Question{ID: "test_vacancy", Text: agenticQuestion}, Env{LLM: m, Prompts: p})
	if err != nil {
		t.Fatal(err)
	}
	if m.n["rerank"] != 3*AgenticMaxRerankAttempts || m.n["answer"] != AgenticMaxFinalAttempts || g.Calls != 45 {
		t.Errorf("calls per stage %v, total %d", m.n, g.Calls)
	}
	for _, c := range m.calls {
		if c.json {
			t.Fatalf("JSON mode sent with JSONMode off (stage %s)", c.stage)
		}
	}
	if g.Extracted || g.Code != "" || g.FunctionName != "" {
		t.Errorf("generation %+v", g)
	}
	// The failed first reranking keeps all 3 documents for the RAG answer.
	if got := m.calls[2+30/3].msgs[0].Content; !strings.Contains(got, "Information: # ") || strings.Count(got, "\n\n# ") != 2 {
		t.Errorf("rag prompt after a failed reranking %q", got)
	}
}

// TestAgenticRAGLookupAsPublished: MatTools' own name lookup finds nothing,
// whatever the NER answer names: the second ranking gets the reranked
// documents and one "No matching item found.", the third that and the
// retrieved code; hits with the same text keep the first position and
// the last hit's object.
func TestAgenticRAGLookupAsPublished(t *testing.T) {
	p, err := dataPrompts(t, dataRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	c := &corpus.Corpus{Source: 4, ID: "sha256:" + strings.Repeat("3", 64), Chunks: []corpus.Chunk{
		{ID: "a.py#Vacancy#0", Source: "a.py", Name: "Vacancy", Text: "# Vacancy\nvacancy defect"},
		{ID: "b.py#Vacancy#0", Source: "b.py", Name: "Vacancy", Text: "# Vacancy\nvacancy defect"},
	}}
	bm, err := retrieval.NewBM25(context.Background(), c, retrieval.BM25Options{})
	if err != nil {
		t.Fatal(err)
	}
	objs := objects{"a.py#Vacancy#0": {"a.py", "A"}, "b.py#Vacancy#0": {"b.py", "B"}}
	sys, _ := New(results.SystemAgenticRAG, Params{RetrievalSource: 4})
	m := &scripted{reply: agenticAnswer}
	if _, err := buildAnswerer(t, sys, Given{Search: bm, Objects: objs}).Generate(context.Background(), &datasets.Question{ID: "q", Text: agenticQuestion}, Env{LLM: m, Prompts: p}); err != nil {
		t.Fatal(err)
	}
	var ranks []string
	for _, c := range m.calls {
		if c.stage == "rerank" {
			ranks = append(ranks, c.msgs[1].Content[strings.Index(c.msgs[1].Content, "Docs: "):])
		}
	}
	// One unique text (its two hits tie; the later one's object, b.py, is kept).
	want := []string{"Docs: ['# Vacancy\\nvacancy defect']", "Docs: ['# Vacancy\\nvacancy defect']", "Docs: ['# Vacancy\\nvacancy defect']",
		"Docs: ['high', 'mid', 'tie-a', 'tie-b', 'low', 'No matching item found.']",
		"Docs: ['No matching item found.', '--------------\\n\\nb.py\\n\\nB--------------\\n\\n']"}
	if strings.Join(ranks, "|") != strings.Join(want, "|") {
		t.Errorf("rankings' documents:\n%q\nwant\n%q", ranks, want)
	}
}

func TestRerankNERAndFinalAnswerParsing(t *testing.T) {
	if top, ok := RerankAnswer(`{"documents": [{"content": "a", "relevance_score": "9"}]}`); ok {
		t.Errorf("string score accepted: %v", top)
	}
	if top, ok := RerankAnswer(`{"documents": []}`); !ok || len(top) != 0 {
		t.Errorf("empty list: %v %v", top, ok)
	}
	if _, ok := RerankAnswer(`[{"content": "a", "relevance_score": 1}]`); ok {
		t.Error("a JSON list accepted")
	}
	for _, bad := range []string{`{"documents": [{"content": null, "relevance_score": 1}]}`, `{"documents": [{"content": "a", "relevance_score": null}]}`} {
		if _, ok := RerankAnswer(bad); ok {
			t.Errorf("RerankAnswer accepted %s", bad)
		}
	}
	for in, want := range map[string]string{`{"name": 1e5}`: "100000.0", `{"name": 1.50}`: "1.5", `{"name": 1e-5}`: "1e-05", `{"name": 1e16}`: "1e+16", `{"name": -0.0}`: "-0.0",
		`{"name": "Vacancy"}`: "Vacancy", `{"name": null}`: "None", `{"name": 12}`: "12",
		`{"type": "class"}`: "", `["Vacancy"]`: "", `{"name": true}`: "True", "Vacancy": ""} {
		if got := NERName(in); got != want {
			t.Errorf("NERName(%s) = %q, want %q", in, got, want)
		}
	}
	if c, n := FinalAnswer(`{"function": 5, "function_name": "f"}`); c != "" || n != "f" {
		t.Errorf("FinalAnswer = %q, %q", c, n)
	}
}

// fakeExec is a scripted Executor: outcome i is the i-th execution's.
type fakeExec struct {
	outcomes []Execution
	codes    []string
}

func (f *fakeExec) exec(_ context.Context, _ *datasets.Question, code, name string) (Execution, error) {
	f.codes = append(f.codes, code)
	if len(f.codes) > len(f.outcomes) {
		return Execution{}, fmt.Errorf("execution %d not scripted", len(f.codes))
	}
	return f.outcomes[len(f.codes)-1], nil
}

var (
	noneDict     = Execution{Stdout: "{'a': 1, 'b': None}\n", Dict: true, Keys: 2, NoneValues: 1}
	completeDict = Execution{Stdout: "{'a': 1, 'b': 2}\n", Dict: true, Keys: 2}
	emptyDict    = Execution{Stdout: "{}\n", Dict: true}
	timedOut     = Execution{Stderr: "", TimedOut: true, TimeoutSeconds: 60}
)

// srAnswer answers the loop's stages; generation i returns function f<i>.
func srAnswer(stage string, n int, msgs []llm.Message) string {
	switch stage {
	case "sr-generate":
		return fmt.Sprintf("Here: <answer><code>```python\ndef f%d():\n    return {}\n```</code><name>f%d</name></answer> print(f%d())", n, n, n)
	case "format-check":
		// Echo the answer's tags (the generated text follows the prompt's last line).
		prompt := msgs[0].Content
		return prompt[strings.LastIndex(prompt, "<answer>") : strings.LastIndex(prompt, "</answer>")+len("</answer>")]
	case "critic":
		return fmt.Sprintf("<think>t</think><feedback>critique %d: value b is None</feedback><next_rag_retrieval>- structure API %d</next_rag_retrieval>", n, n)
	case "critic-format-check":
		prompt := msgs[0].Content
		return prompt[strings.Index(prompt, "**Content:**\n")+len("**Content:**\n"):]
	}
	return "?"
}

// queries records the retrieval queries.
type recordingRetriever struct {
	retrieval.Retriever
	queries []string
}

func (r *recordingRetriever) Search(ctx context.Context, q string, k int) ([]retrieval.Hit, error) {
	r.queries = append(r.queries, q)
	return r.Retriever.Search(ctx, q, k)
}

func runSR(t *testing.T, variant string, exec *fakeExec, reply func(string, int, []llm.Message) string) (*scripted, *recordingRetriever, Generation) {
	t.Helper()
	p, err := dataPrompts(t, dataRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	bm, _ := llmDocCorpus(t)
	rr := &recordingRetriever{Retriever: bm}
	sys, err := New(results.SystemSelfReflectionRAG, Params{RetrievalSource: 4, Variant: variant})
	if err != nil {
		t.Fatal(err)
	}
	m := &scripted{reply: reply}
	g, err := buildAnswerer(t, sys, Given{Search: rr, Execute: exec.exec}).Generate(context.Background(),
		&datasets.Question{ID: "test_vacancy", Text: agenticQuestion}, Env{LLM: m, Prompts: p})
	if err != nil {
		t.Fatal(err)
	}
	return m, rr, g
}

// generatorPrompts returns every message the generator was sent, per generation.
func generatorPrompts(m *scripted) []string {
	var out []string
	for _, c := range m.calls {
		if c.stage == "sr-generate" {
			var b strings.Builder
			for _, msg := range c.msgs {
				b.WriteString(msg.Role + ": " + msg.Content + "\n")
			}
			out = append(out, b.String())
		}
	}
	return out
}

// TestSelfReflectionAsPublished: a dict with a None value goes on to the
// critic, whose <next_rag_retrieval> becomes the next query while the
// generator is prompted afresh (no critique, no runtime output); the first
// complete dict stops the loop: 6 calls, 2 executions.
func TestSelfReflectionAsPublished(t *testing.T) {
	exec := &fakeExec{outcomes: []Execution{noneDict, completeDict}}
	m, rr, g := runSR(t, VariantAsPublished, exec, srAnswer)
	want := "sr-generate format-check critic critic-format-check sr-generate format-check"
	if got := strings.Join(m.stages(), " "); got != want {
		t.Fatalf("calls %s, want %s", got, want)
	}
	if len(exec.codes) != 2 || exec.codes[1] != "def f1():\n    return {}" || g.FunctionName != "f1" || !g.Extracted {
		t.Errorf("executions %q, final %q", exec.codes, g.FunctionName)
	}
	if len(rr.queries) != 2 || rr.queries[0] != "Make a vacancy defect\nand return its site." || rr.queries[1] != "- structure API 0" {
		t.Errorf("retrieval queries %q", rr.queries)
	}
	gens := generatorPrompts(m)
	if strings.Contains(gens[1], "critique 0") || strings.Contains(gens[1], "None") || strings.Contains(gens[1], "assistant:") {
		t.Errorf("as published, the critique or output reached the generator:\n%s", gens[1])
	}
	critic := m.calls[2].msgs[0].Content
	if !strings.Contains(critic, "The runtime output of the code is as follows:\n{\n  \"stdout\": \"{'a': 1, 'b': None}\",\n  \"stderr\": \"\"\n}\n") {
		t.Errorf("critic prompt %q", critic)
	}
	last := g.Trace[len(g.Trace)-1]
	if last.Stage != "execute" || last.StopReason != "complete-dict" || last.Iteration != 1 {
		t.Errorf("last stage %+v", last)
	}
}

// TestSelfReflectionStops: as published an empty dict stops at once (all()
// of nothing); five dicts with None values run every iteration, 18 calls.
func TestSelfReflectionStops(t *testing.T) {
	m, _, _ := runSR(t, VariantAsPublished, &fakeExec{outcomes: []Execution{emptyDict}}, srAnswer)
	if len(m.calls) != 2 {
		t.Errorf("empty dict: %v", m.stages())
	}
	exec := &fakeExec{outcomes: []Execution{noneDict, noneDict, noneDict, noneDict, noneDict}}
	m, _, g := runSR(t, VariantAsPublished, exec, srAnswer)
	if len(m.calls) != 18 || len(exec.codes) != 5 || g.FunctionName != "f4" {
		t.Errorf("None values: %d calls, %d executions, final %q", len(m.calls), len(exec.codes), g.FunctionName)
	}
	if last := g.Trace[len(g.Trace)-1]; last.StopReason != "max-iterations" || last.Iteration != 4 {
		t.Errorf("last stage %+v", last)
	}
}

// TestSelfReflectionFeedback: the generator sees its previous answer, the
// runtime output and the critique; {} does not stop the loop; a time-out
// goes on, with the time limit in the runtime output.
func TestSelfReflectionFeedback(t *testing.T) {
	exec := &fakeExec{outcomes: []Execution{emptyDict, timedOut, completeDict}}
	m, _, g := runSR(t, VariantFeedback, exec, srAnswer)
	if len(exec.codes) != 3 || g.FunctionName != "f2" || len(m.calls) != 10 {
		t.Fatalf("%d executions, %d calls (%v), final %q", len(exec.codes), len(m.calls), m.stages(), g.FunctionName)
	}
	gens := generatorPrompts(m)
	if strings.Contains(gens[0], "critique") {
		t.Errorf("first generation holds a critique")
	}
	second := m.calls[4].msgs
	if len(second) != 4 || second[2].Role != "assistant" || !strings.Contains(second[2].Content, "def f0()") ||
		!strings.Contains(second[3].Content, "**Feedback from the critic agent**:\ncritique 0: value b is None") ||
		!strings.Contains(second[3].Content, "\"stdout\": \"{}\"") {
		t.Errorf("second generation's messages %q", second)
	}
	// The conversation does not grow: the first prompt, the latest answer, its feedback.
	third := m.calls[8].msgs
	if len(third) != 4 || third[1].Content != second[1].Content || !strings.Contains(third[2].Content, "def f1()") ||
		!strings.Contains(third[3].Content, "TimeoutError: the sandbox stopped the program at its time limit of 60 s") ||
		!strings.Contains(third[3].Content, "critique 1: value b is None") {
		t.Errorf("third generation's messages %q", third)
	}
}

// TestSelfReflectionCriticAndQueries: the critic's prompt is
// CRITICAL_FEEDBACK_PROMPT with the stripped question, the whole
// format-checked answer and the runtime output; the retrieval query is the
// <next_rag_retrieval> text stripped, or the whole checked critique when
// its tags are missing; the new context reaches the generator; a runtime
// output past RuntimeOutputBytes is cut in the middle.
func TestSelfReflectionCriticAndQueries(t *testing.T) {
	noisy := Execution{Stdout: strings.Repeat("x", 40_000) + "END", Dict: false}
	exec := &fakeExec{outcomes: []Execution{noisy, noneDict, completeDict}}
	m, rr, _ := runSR(t, VariantAsPublished, exec, func(stage string, n int, msgs []llm.Message) string {
		switch {
		case stage == "critic-format-check" && n == 0:
			return "<feedback>\n  prints too much \n</feedback><next_rag_retrieval>\n  - crystal structure  \n</next_rag_retrieval>"
		case stage == "critic-format-check" && n == 1:
			return "no tags: look up Vacancy"
		}
		return srAnswer(stage, n, msgs)
	})
	if len(rr.queries) != 3 || rr.queries[1] != "- crystal structure" || rr.queries[2] != "no tags: look up Vacancy" {
		t.Fatalf("queries %q", rr.queries)
	}
	critic := m.calls[2].msgs[0].Content
	answer0 := m.calls[1].msgs[0].Content // the format check's prompt holds the generated answer
	answer0 = answer0[strings.LastIndex(answer0, "<answer>") : strings.LastIndex(answer0, "</answer>")+len("</answer>")]
	stdout := strings.Repeat("x", RuntimeOutputBytes/2) + fmt.Sprintf("\\n[… %d bytes dropped …]\\n", 40_003-RuntimeOutputBytes) + strings.Repeat("x", RuntimeOutputBytes/2-3) + "END"
	want := "You're a critical feedback agent. Provide feedback on the generated code.\nThe original question is as follows:\nMake a vacancy defect\nand return its site.\n\n" +
		"The generated code is as follows:\n" + answer0 + "\n\nThe runtime output of the code is as follows:\n{\n  \"stdout\": \"" + stdout + "\",\n  \"stderr\": \"\"\n}\n\n"
	if !strings.HasPrefix(critic, want) {
		t.Errorf("critic prompt\n%.600q\nwant prefix\n%.600q", critic, want)
	}
	// The second generation's context is the second query's hits (Structure ranks first).
	gen := m.calls[4].msgs[1].Content
	if !strings.Contains(gen, "**Retrieved code documents from helper**:\nSource of this document: pymatgen/core/structure.py\n# Structure") {
		t.Errorf("second generation's prompt %q", gen)
	}
}

// TestSelfReflectionFeedbackAfterFormatFailure: in the feedback variant an
// answer without code gets no critic; the generator is told so and sees
// MatTools' format failure text as the runtime output.
func TestSelfReflectionFeedbackAfterFormatFailure(t *testing.T) {
	exec := &fakeExec{outcomes: []Execution{completeDict}}
	m, _, g := runSR(t, VariantFeedback, exec, func(stage string, n int, msgs []llm.Message) string {
		if stage == "format-check" && n == 0 {
			return "no tags here"
		}
		return srAnswer(stage, n, msgs)
	})
	second := m.calls[2].msgs
	if len(second) != 4 || second[2].Content != "no tags here" || !strings.Contains(second[3].Content, FormatFailure) ||
		!strings.Contains(second[3].Content, "**Feedback from the critic agent**:\n(none: the answer could not be executed)") || g.FunctionName != "f1" {
		t.Errorf("second generation's messages %q; final %q", second, g.FunctionName)
	}
}

// refusing answers like scripted but fails the stage given with HTTP 400
// from its n-th call on.
type refusing struct {
	scripted
	stage string
	from  int
}

func (r *refusing) CompleteWith(ctx context.Context, msgs []llm.Message, o llm.CallOptions) (*llm.Completion, error) {
	if stageOf(msgs) == r.stage && r.n[r.stage] >= r.from {
		return nil, &llm.Error{Model: "m", Attempts: 1, Status: 400}
	}
	return r.scripted.CompleteWith(ctx, msgs, o)
}

func (r *refusing) Complete(ctx context.Context, msgs []llm.Message) (*llm.Completion, error) {
	return r.CompleteWith(ctx, msgs, llm.CallOptions{})
}

// TestSelfReflectionRefusalEndsTheLoop: a model that refuses a later
// generation (HTTP 400, e.g. a prompt past its context window) ends the
// loop with the previous answer, recorded in the trace; a refusal of the
// very first generation is an error.
func TestSelfReflectionRefusalEndsTheLoop(t *testing.T) {
	p, err := dataPrompts(t, dataRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	bm, _ := llmDocCorpus(t)
	sys, _ := New(results.SystemSelfReflectionRAG, Params{RetrievalSource: 4})
	exec := &fakeExec{outcomes: []Execution{noneDict}}
	m := &refusing{scripted: scripted{reply: srAnswer, n: map[string]int{}}, stage: "sr-generate", from: 1}
	q := &datasets.Question{ID: "q", Text: agenticQuestion}
	g, err := buildAnswerer(t, sys, Given{Search: bm, Execute: exec.exec}).Generate(context.Background(), q, Env{LLM: m, Prompts: p})
	if err != nil {
		t.Fatal(err)
	}
	if last := g.Trace[len(g.Trace)-1]; g.FunctionName != "f0" || last.StopReason != "model-refused" || last.Iteration != 1 {
		t.Errorf("final %q, last stage %+v", g.FunctionName, last)
	}
	m = &refusing{scripted: scripted{reply: srAnswer, n: map[string]int{}}, stage: "sr-generate", from: 0}
	if _, err := buildAnswerer(t, sys, Given{Search: bm, Execute: (&fakeExec{}).exec}).Generate(context.Background(), q, Env{LLM: m, Prompts: p}); err == nil {
		t.Error("a refused first generation is not an error")
	}
}

// TestSelfReflectionFormatFailure: an answer without the tags is not
// executed and gets no critic; the next iteration reuses the context (no
// retrieval).
func TestSelfReflectionFormatFailure(t *testing.T) {
	exec := &fakeExec{outcomes: []Execution{completeDict}}
	m, rr, g := runSR(t, VariantAsPublished, exec, func(stage string, n int, msgs []llm.Message) string {
		if stage == "format-check" && n == 0 {
			return "no tags here"
		}
		return srAnswer(stage, n, msgs)
	})
	if got := strings.Join(m.stages(), " "); got != "sr-generate format-check sr-generate format-check" || len(exec.codes) != 1 || len(rr.queries) != 1 {
		t.Errorf("calls %s, %d executions, queries %q", got, len(exec.codes), rr.queries)
	}
	if g.FunctionName != "f1" {
		t.Errorf("final %q", g.FunctionName)
	}
}
