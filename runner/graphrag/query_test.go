package graphrag

import (
	"context"
	"encoding/json"
	"flag"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mattools-leaderboard/leaderboard/internal/pystr"
	"github.com/mattools-leaderboard/leaderboard/llm"
	"github.com/mattools-leaderboard/leaderboard/llm/llmtest"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/context")

// goldenGraph builds the small corpus of the golden tests: two files, five
// extracted entities, an edge to an entity never extracted (an UNKNOWN
// node), a description with `"` and `\`, a chunk with a newline, `"` and
// `\`, and a record written over two lines, which LightRAG's parser drops
// ("." does not match a newline).
func goldenGraph(t *testing.T, p *Prompts) *Graph {
	t.Helper()
	f := &fakeLLM{extract: func(chunk string) string {
		if strings.HasPrefix(chunk, "Structure") {
			return records(
				ent("Structure", "category", `A crystal "structure" stored at C:\data.`),
				ent("Lattice", "category", "Periodic lattice vectors."),
				ent("CifParser", "organization", "Parses CIF files."),
				rel("Structure", "Lattice", "A Structure has a Lattice.", "geometry, cell", "8"),
				rel("CifParser", "Structure", "CifParser returns a Structure.", "parsing", "6"),
				`("content_keywords"<|>"crystals")`)
		}
		return records(
			ent("Site", "category", "A site in a lattice."),
			ent("Lattice", "category", "Lattice of a site."),
			rel("Site", "Lattice", "A Site has coordinates in a Lattice.\nSecond line.", "coordinates", "7"),
			rel("Site", "Ghost", "Ghost relation.", "k", "1"))
	}}
	docs := []Document{
		{Text: "Structure and Lattice are parsed by CifParser.", FilePath: "pymatgen/core/structure.py"},
		{Text: "Site and Lattice.\nSee \"sites\" in C:\\x.", FilePath: "pymatgen/core/sites.py"},
	}
	g, _, err := Build(context.Background(), docs, f, &fakeEmbedder{}, charOpts(p))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func goldenKeywords(string) string {
	return "Here you go:\n```json\n{\"high_level_keywords\": [\"crystal structure\", \"parsing\"], \"low_level_keywords\": [\"Structure\", \"Lattice\"]}\n```"
}

// golden compares got with testdata/context/<name>.golden; -update rewrites
// it (refused when CI is set), a mismatch writes <name>.got beside it.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "context", name+".golden")
	if *update {
		if os.Getenv("CI") != "" {
			t.Fatal("-update is refused when CI is set")
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./runner/graphrag -update)", err)
	}
	if got != string(want) {
		os.WriteFile(strings.TrimSuffix(path, ".golden")+".got", []byte(got), 0o644)
		t.Errorf("%s differs from %s (see %s.got):\ngot:\n%s", name, path, strings.TrimSuffix(path, ".golden"), got)
	}
}

// TestGoldenContextsPerMode is docs/graphrag.md §8 case 9: the context strings
// byte for byte (4-space indentation, a blank line before each closing
// fence, ids from 0, quote-all CSV with `""` and `\\`; hybrid's ",\t"
// layout, ids from 1 and the rows repeated for their created_at), and each
// mode's system prompt.
func TestGoldenContextsPerMode(t *testing.T) {
	p := testPrompts(t)
	g := goldenGraph(t, p)
	for _, mode := range []string{ModeLocal, ModeGlobal, ModeHybrid, ModeNaive, ModeMix} {
		t.Run(mode, func(t *testing.T) {
			f := &fakeLLM{keywords: goldenKeywords}
			qp := QueryParam{Prompts: p, Mode: mode, CosineThreshold: ptr(-1.0), Location: time.UTC}
			res, err := Query(context.Background(), g, "  How do I read a CIF file?\n", qp, f, &fakeEmbedder{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Failed || res.Answer != "ANSWER" {
				t.Fatalf("result %+v", res)
			}
			golden(t, mode, res.Context)
			var tmpl string
			fields := map[string]string{"response_type": "Multiple Paragraphs", "history": ""}
			switch mode {
			case ModeNaive:
				tmpl, fields["content_data"] = p.NaiveRAGResponse, res.Context
			case ModeMix:
				kg, vec, _ := strings.Cut(strings.TrimPrefix(res.Context, "-----Knowledge Graph Context-----\n        "), "\n\n        -----Vector Context-----\n        ")
				tmpl, fields["kg_context"], fields["vector_context"] = p.MixRAGResponse, kg, vec
			default:
				tmpl, fields["context_data"] = p.RAGResponse, res.Context
			}
			want, _ := pystr.Format(tmpl, fields)
			calls := f.taken()
			last := calls[len(calls)-1]
			if last.kind != CallAnswer || len(last.msgs) != 2 || last.msgs[0].Content != want || last.msgs[1].Content != "How do I read a CIF file?" {
				t.Errorf("answer call: %d messages, system prompt equal: %v, user %q", len(last.msgs), last.msgs[0].Content == want, last.msgs[1].Content)
			}
			if res.SystemPrompt != want {
				t.Error("SystemPrompt differs from the prompt sent")
			}
		})
	}
}

// TestQueryCallCounts is case 7: the KG modes and mix make 2 LLM calls
// (keywords, answer), naive 1; embeddings: one per vector search. (The
// second half of case 7, a repeated question costing nothing, is LightRAG's
// query cache, which this package does not keep.)
func TestQueryCallCounts(t *testing.T) {
	p := testPrompts(t)
	g := goldenGraph(t, p)
	for _, tt := range []struct {
		mode       string
		llm, embed int
	}{{ModeLocal, 2, 1}, {ModeGlobal, 2, 1}, {ModeHybrid, 2, 2}, {ModeMix, 2, 3}, {ModeNaive, 1, 1}, {"", 2, 1}} {
		f := &fakeLLM{keywords: goldenKeywords}
		emb := &fakeEmbedder{}
		res, err := Query(context.Background(), g, "q", QueryParam{Prompts: p, Mode: tt.mode, CosineThreshold: ptr(-1.0)}, f, emb)
		if err != nil {
			t.Fatal(err)
		}
		var nLLM, nEmb int
		for _, c := range res.Calls {
			if c.Kind == CallEmbed {
				nEmb++
			} else {
				nLLM++
			}
		}
		if len(f.taken()) != tt.llm || nLLM != tt.llm || emb.requests() != tt.embed || nEmb != tt.embed {
			t.Errorf("mode %q: %d LLM calls (%d recorded), %d embeddings (%d recorded); want %d, %d", tt.mode, len(f.taken()), nLLM, emb.requests(), nEmb, tt.llm, tt.embed)
		}
		if tt.mode == "" && (res.Mode != ModeGlobal || res.EffectiveMode != ModeGlobal) {
			t.Errorf("default mode %q/%q, want global", res.Mode, res.EffectiveMode)
		}
		// OnlyContext: the same context, no answer call.
		f2 := &fakeLLM{keywords: goldenKeywords}
		only, err := Query(context.Background(), g, "q", QueryParam{Prompts: p, Mode: tt.mode, CosineThreshold: ptr(-1.0), OnlyContext: true}, f2, &fakeEmbedder{})
		if err != nil {
			t.Fatal(err)
		}
		if len(f2.taken()) != tt.llm-1 || only.Context != res.Context || only.Answer != "" || only.SystemPrompt != "" {
			t.Errorf("mode %q with OnlyContext: %d calls, same context %v, answer %q", tt.mode, len(f2.taken()), only.Context == res.Context, only.Answer)
		}
	}
}

// TestEmptyKeywordsFail is case 8: empty lists or an answer without JSON give
// fail_response after 1 call; an empty low-level list turns local into
// global, an empty high-level list global into local; mix without keywords
// keeps its vector part.
func TestEmptyKeywordsFail(t *testing.T) {
	p := testPrompts(t)
	g := goldenGraph(t, p)
	for _, kw := range []string{`{"high_level_keywords": [], "low_level_keywords": []}`, "I cannot answer in JSON.", `{"high_level_keywords": ["a",}`} {
		for _, mode := range []string{ModeLocal, ModeGlobal, ModeHybrid} {
			f := &fakeLLM{keywords: func(string) string { return kw }}
			res, err := Query(context.Background(), g, "q", QueryParam{Prompts: p, Mode: mode}, f, &fakeEmbedder{})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Failed || res.Answer != p.FailResponse || len(f.taken()) != 1 || res.Context != "" {
				t.Errorf("%s with %q: failed %v, answer %q, %d calls", mode, kw, res.Failed, res.Answer, len(f.taken()))
			}
		}
	}
	for _, tt := range []struct{ mode, kw, want string }{
		{ModeLocal, `{"high_level_keywords": ["x"], "low_level_keywords": []}`, ModeGlobal},
		{ModeHybrid, `{"high_level_keywords": ["x"], "low_level_keywords": []}`, ModeGlobal},
		{ModeGlobal, `{"high_level_keywords": [], "low_level_keywords": ["x"]}`, ModeLocal},
		{ModeHybrid, `{"high_level_keywords": [], "low_level_keywords": ["x"]}`, ModeLocal},
		{ModeMix, `{"high_level_keywords": [], "low_level_keywords": ["x"]}`, ModeLocal},
		{ModeMix, `{"high_level_keywords": ["x"], "low_level_keywords": []}`, ModeGlobal},
	} {
		f := &fakeLLM{keywords: func(string) string { return tt.kw }}
		res, err := Query(context.Background(), g, "q", QueryParam{Prompts: p, Mode: tt.mode, CosineThreshold: ptr(-1.0)}, f, &fakeEmbedder{})
		if err != nil {
			t.Fatal(err)
		}
		if res.EffectiveMode != tt.want || res.Failed {
			t.Errorf("%s with %s: effective mode %q (failed %v), want %q", tt.mode, tt.kw, res.EffectiveMode, res.Failed, tt.want)
		}
	}
	f := &fakeLLM{}
	res, err := Query(context.Background(), g, "Structure", QueryParam{Prompts: p, Mode: ModeMix, CosineThreshold: ptr(-1.0)}, f, &fakeEmbedder{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Failed || len(f.taken()) != 2 || !strings.Contains(res.SystemPrompt, "1. From Knowledge Graph(KG):\nNo relevant knowledge graph information found\n") {
		t.Errorf("mix without keywords: failed %v, %d calls, system prompt %q", res.Failed, len(f.taken()), res.SystemPrompt)
	}
	// Nothing above the threshold: fail_response after the keyword call.
	f = &fakeLLM{keywords: goldenKeywords}
	res, err = Query(context.Background(), g, "q", QueryParam{Prompts: p, Mode: ModeGlobal, CosineThreshold: ptr(2.0)}, f, &fakeEmbedder{})
	if err != nil || !res.Failed || len(f.taken()) != 1 {
		t.Errorf("nothing found: %+v, %v", res, err)
	}
	res, err = Query(context.Background(), g, "q", QueryParam{Prompts: p, Mode: ModeNaive, CosineThreshold: ptr(2.0)}, f, &fakeEmbedder{})
	if err != nil || !res.Failed {
		t.Errorf("naive, nothing found: %+v, %v", res, err)
	}
	if _, err := Query(context.Background(), g, "q", QueryParam{Prompts: p, Mode: "bypass"}, f, &fakeEmbedder{}); err == nil {
		t.Error("mode bypass accepted")
	}
}

// scoreVec returns a unit vector of cosine s with (1, 0).
func scoreVec(s float64) []float32 { return []float32{float32(s), float32(math.Sqrt(1 - s*s))} }

// orderGraph: E1–E3 (weight 1), E2–E3 (2), E3–E4 (3), E1–E4 (5). Degrees
// E1 2, E2 1, E3 3, E4 2; edge degrees E1E3 5, E2E3 4, E3E4 5, E1E4 4.
// Descriptions of 10 characters each.
func orderGraph(t *testing.T, p *Prompts) *Graph {
	t.Helper()
	f := &fakeLLM{extract: func(string) string {
		return records(ent("E1", "category", "desc of E1"), ent("E2", "category", "desc of E2"),
			ent("E3", "category", "desc of E3"), ent("E4", "category", "desc of E4"),
			rel("E1", "E3", "rel E1-E3.", "k", "1"), rel("E2", "E3", "rel E2-E3.", "k", "2"),
			rel("E3", "E4", "rel E3-E4.", "k", "3"), rel("E1", "E4", "rel E1-E4.", "k", "5"))
	}}
	g, _, err := Build(context.Background(), []Document{{Text: "one chunk", FilePath: "x.py"}}, f, orderEmbedder, charOpts(p))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// orderEmbedder gives the queries "LL" and "HL" the vector (1, 0), the
// entities scores E2 .9, E1 .7, E4 .5, E3 .3 and the relations E2E3 .9,
// E1E4 .8, E1E3 .6, E3E4 .4.
var orderEmbedder = &fakeEmbedder{vec: func(text string) []float32 {
	scores := map[string]float64{"E2\n": .9, "E1\n": .7, "E4\n": .5, "E3\n": .3,
		"E2\tE3\n": .9, "E1\tE4\n": .8, "E1\tE3\n": .6, "E3\tE4\n": .4}
	if text == "LL" || text == "HL" {
		return []float32{1, 0}
	}
	for prefix, s := range scores {
		if strings.HasPrefix(text, prefix) {
			return scoreVec(s)
		}
	}
	return []float32{0, 1}
}}

func tableColumn(ctx, heading string, col int) []string {
	i := strings.Index(ctx, "-----"+heading+"-----\n    ```csv\n    ")
	if i < 0 {
		return nil
	}
	body := ctx[i+len("-----"+heading+"-----\n    ```csv\n    "):]
	body = body[:strings.Index(body, "\n    ```")]
	var out []string
	for _, line := range strings.Split(body, "\n")[1:] {
		if line == "" {
			continue
		}
		fields := strings.Split(line, `","`)
		out = append(out, strings.Trim(fields[col], `"`))
	}
	return out
}

// TestOrderingAndBudgets is cases 10 and 11: local entities keep the vector
// order and local edges are sorted by (edge degree, weight); global edges
// are re-sorted by (edge degree, weight) and its entities follow them; each
// budget keeps the longest prefix within its tokens, and the entity list
// is truncated only after it chose the edges and chunks.
func TestOrderingAndBudgets(t *testing.T) {
	p := testPrompts(t)
	g := orderGraph(t, p)
	run := func(qp QueryParam) *QueryResult {
		t.Helper()
		qp.Prompts, qp.HLKeywords, qp.LLKeywords, qp.OnlyContext = p, []string{"HL"}, []string{"LL"}, true
		res, err := Query(context.Background(), g, "q", qp, &fakeLLM{}, orderEmbedder)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	check := func(what string, got []string, want string) {
		t.Helper()
		if strings.Join(got, " ") != want {
			t.Errorf("%s = %q, want %q", what, strings.Join(got, " "), want)
		}
	}
	res := run(QueryParam{Mode: ModeLocal})
	check("local entities", tableColumn(res.Context, "Entities", 1), "E2 E1 E4 E3")
	check("local entity ranks", tableColumn(res.Context, "Entities", 4), "1 2 2 3")
	check("local edge sources", tableColumn(res.Context, "Relationships", 1), "E3 E1 E1 E2")
	check("local edge targets", tableColumn(res.Context, "Relationships", 2), "E4 E3 E4 E3")
	check("local edge ranks", tableColumn(res.Context, "Relationships", 6), "5 5 4 4")

	res = run(QueryParam{Mode: ModeGlobal})
	check("global edge sources", tableColumn(res.Context, "Relationships", 1), "E3 E1 E1 E2")
	check("global edge weights", tableColumn(res.Context, "Relationships", 5), "3.0 1.0 5.0 2.0")
	check("global entities", tableColumn(res.Context, "Entities", 1), "E3 E4 E1 E2")

	// Budgets: 10 characters a description; 25 keep 2 entities, 35 keep 3 relations.
	res = run(QueryParam{Mode: ModeLocal, MaxTokenForLocalContext: 25, MaxTokenForGlobalContext: 35})
	check("local entities within 25", tableColumn(res.Context, "Entities", 1), "E2 E1")
	check("local edges within 35", tableColumn(res.Context, "Relationships", 1), "E3 E1 E1")
	res = run(QueryParam{Mode: ModeGlobal, MaxTokenForGlobalContext: 20, MaxTokenForLocalContext: 20})
	check("global edges within 20", tableColumn(res.Context, "Relationships", 1), "E3 E1")
	check("global entities within 20", tableColumn(res.Context, "Entities", 1), "E3 E4")
	res = run(QueryParam{Mode: ModeGlobal, MaxTokenForTextUnit: 8}) // the chunk "one chunk" has 9
	if got := tableColumn(res.Context, "Sources", 1); len(got) != 0 {
		t.Errorf("chunk within 8 tokens: %q", got)
	}
	// The threshold cuts at the first score below it: E3 (0.3) < 0.4.
	res = run(QueryParam{Mode: ModeLocal, CosineThreshold: ptr(0.4)})
	check("local entities above 0.4", tableColumn(res.Context, "Entities", 1), "E2 E1 E4")
	check("selected entities", res.EntityNames, "E2 E1 E4")
	res = run(QueryParam{Mode: ModeLocal, TopK: 2})
	check("local top 2", tableColumn(res.Context, "Entities", 1), "E2 E1")
}

// TestAnswerPostProcessing: an answer longer than the system prompt loses
// "user", "model", the question and <system> tags (kg modes) and also its
// first len(system prompt) characters (naive); a shorter one is kept.
func TestAnswerPostProcessing(t *testing.T) {
	p := testPrompts(t)
	g := goldenGraph(t, p)
	long := func(sys, q string) string {
		return strings.Repeat("x", pyLen(sys)) + " the model <system>answers</system> the user: " + q + " done "
	}
	f := &fakeLLM{keywords: goldenKeywords, answer: long}
	res, err := Query(context.Background(), g, "Q?", QueryParam{Prompts: p, Mode: ModeGlobal}, f, &fakeEmbedder{})
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Repeat("x", pyLen(res.SystemPrompt)) + " the  answers the :  done"; res.Answer != want {
		t.Errorf("global answer %q", res.Answer[len(res.Answer)-40:])
	}
	res, err = Query(context.Background(), g, "Q?", QueryParam{Prompts: p, Mode: ModeNaive, CosineThreshold: ptr(-1.0)}, f, &fakeEmbedder{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Answer != "the  answers the :  done" {
		t.Errorf("naive answer %q", res.Answer)
	}
	f.answer = func(string, string) string { return " user model \\u00e9 " }
	res, _ = Query(context.Background(), g, "Q?", QueryParam{Prompts: p, Mode: ModeGlobal}, f, &fakeEmbedder{})
	if res.Answer != " user model é " {
		t.Errorf("short answer %q, want it as sent with \\u00e9 decoded", res.Answer)
	}
}

// TestEmptyAnswersAreAskedAgain: LightRAG's binding retries an empty answer,
// 3 attempts in all, then fails.
func TestEmptyAnswersAreAskedAgain(t *testing.T) {
	p := testPrompts(t)
	g := goldenGraph(t, p)
	n := 0
	f := &fakeLLM{keywords: goldenKeywords, answer: func(string, string) string {
		n++
		if n < 3 {
			return " \n"
		}
		return "third"
	}}
	res, err := Query(context.Background(), g, "q", QueryParam{Prompts: p}, f, &fakeEmbedder{})
	if err != nil || res.Answer != "third" || f.count(CallAnswer) != 3 {
		t.Fatalf("%v, %v, %d answer calls", res, err, f.count(CallAnswer))
	}
	n = -10
	if _, err := Query(context.Background(), g, "q", QueryParam{Prompts: p}, f, &fakeEmbedder{}); err == nil || !strings.Contains(err.Error(), "empty answer") {
		t.Errorf("err = %v", err)
	}
}

// TestOverHTTPNoTemperatureIsSent is case 12, end to end through
// *llm.Client and llmtest's server: index (with a summary) and query in
// every mode; no request body has a "temperature" key, only summaries
// carry max_tokens (500).
func TestOverHTTPNoTemperatureIsSent(t *testing.T) {
	p := testPrompts(t)
	fake := &fakeLLM{
		extract: func(chunk string) string {
			return records(ent("Structure", "category", "about "+chunk), rel("Structure", "Lattice", chunk, "k", "2"))
		},
		keywords: goldenKeywords,
	}
	srv := llmtest.New(t, llmtest.Options{EmbeddingDims: 32, Responder: func(r llmtest.Request) llmtest.Reply {
		msgs := make([]llm.Message, len(r.Messages))
		for i, m := range r.Messages {
			msgs[i] = llm.Message{Role: m.Role, Content: m.Content}
		}
		c, err := fake.CompleteWith(context.Background(), msgs, llm.CallOptions{})
		if err != nil {
			return llmtest.Reply{Content: "ERROR " + err.Error()}
		}
		return llmtest.Reply{Content: c.Content}
	}})
	client, err := llm.New(llm.Config{BaseURL: srv.URL, Model: "gpt-4o-2024-08-06", MaxRetries: llm.NoRetries})
	if err != nil {
		t.Fatal(err)
	}
	var docs []Document
	for i := range 6 {
		docs = append(docs, Document{Text: "file " + string(rune('a'+i)), FilePath: "f" + string(rune('a'+i)) + ".py"})
	}
	o := charOpts(p)
	o.ChatModel, o.EmbeddingModel, o.EmbeddingEndpoint = "", "text-embedding-3-large", llm.RedactURL(srv.URL)
	o.Dir = t.TempDir()
	g, st, err := Build(context.Background(), docs, client, client, o)
	if err != nil {
		t.Fatal(err)
	}
	if g.Manifest.ChatModel != "gpt-4o-2024-08-06" || st.LLMCalls[CallSummary] != 2 || st.EmbeddingCalls == 0 || st.PromptTokens == 0 {
		t.Errorf("manifest chat model %q, stats %+v", g.Manifest.ChatModel, st)
	}
	g, err = Open(o.Dir, Manifest{ChatModel: "gpt-4o-2024-08-06", EmbeddingModel: "text-embedding-3-large", CorpusID: "test-corpus"})
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{ModeLocal, ModeGlobal, ModeHybrid, ModeNaive, ModeMix} {
		res, err := Query(context.Background(), g, "Structure", QueryParam{Prompts: p, Mode: mode, CosineThreshold: ptr(-1.0)}, client, client)
		if err != nil || res.Failed || res.Answer != "ANSWER" {
			t.Fatalf("%s: %+v, %v", mode, res, err)
		}
	}
	summaries := 0
	for _, r := range srv.Requests() {
		var body map[string]json.RawMessage
		if err := json.Unmarshal(r.Body, &body); err != nil {
			t.Fatal(err)
		}
		if _, ok := body["temperature"]; ok {
			t.Errorf("%s request sent temperature: %s", r.Endpoint, r.Body)
		}
		// The body keys (doc.go): chat requests carry model, messages and
		// "stream": false (go-openai writes it always; LightRAG only with KG
		// and mix answers), summaries max_tokens too; embeddings model, input
		// and encoding_format, as LightRAG's openai_embed.
		keys := slices.Sorted(maps.Keys(body))
		if r.Endpoint == "embeddings" {
			if r.Model != "text-embedding-3-large" {
				t.Errorf("embeddings model %q", r.Model)
			}
			if !slices.Equal(keys, []string{"encoding_format", "input", "model"}) || string(body["encoding_format"]) != `"float"` {
				t.Errorf("embeddings body keys %v, encoding_format %s", keys, body["encoding_format"])
			}
			continue
		}
		if want := []string{"messages", "model", "stream"}; !slices.Equal(slices.DeleteFunc(slices.Clone(keys), func(k string) bool { return k == "max_tokens" }), want) || string(body["stream"]) != "false" {
			t.Errorf("chat body keys %v (want %v, and max_tokens for summaries), stream %s", keys, want, body["stream"])
		}
		mt, has := body["max_tokens"]
		isSummary := strings.HasPrefix(r.Prompt(), "You are a helpful assistant responsible for generating a comprehensive summary")
		if isSummary {
			summaries++
		}
		if isSummary != has || (has && string(mt) != "500") {
			t.Errorf("max_tokens %q on a request (summary: %v): %.100s", mt, isSummary, r.Prompt())
		}
	}
	if summaries != 2 { // Structure (6 descriptions) and Structure–Lattice (6)
		t.Errorf("%d summary requests, want 2", summaries)
	}
	srv.Verify(t)
}
