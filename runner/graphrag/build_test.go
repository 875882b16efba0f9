package graphrag

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/llm"
	"github.com/mattools-leaderboard/leaderboard/llm/llmtest"
)

func TestLoadPromptsReadsEveryFileAndChecksPromptsJSON(t *testing.T) {
	dir := DataDir(t)
	p, err := LoadPrompts(dir)
	if err != nil {
		t.Fatal(err)
	}
	if p.TupleDelimiter != "<|>" || p.RecordDelimiter != "##" || p.CompletionDelimiter != "<|COMPLETE|>" || p.Language != "English" {
		t.Errorf("delimiters/language: %q %q %q %q", p.TupleDelimiter, p.RecordDelimiter, p.CompletionDelimiter, p.Language)
	}
	if strings.Join(p.EntityTypes, ",") != "organization,person,geo,event,category" {
		t.Errorf("entity types %q", p.EntityTypes)
	}
	if p.FailResponse != "Sorry, I'm not able to provide an answer to that question.[no-context]" {
		t.Errorf("fail_response %q", p.FailResponse)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "entity_extraction.txt"))
	sum := sha256.Sum256(b)
	if p.SHA256["entity_extraction.txt"] != hex.EncodeToString(sum[:]) || len(p.SHA256) != len(promptFiles) {
		t.Errorf("SHA256 map %v", p.SHA256)
	}

	// A copy with one file changed disagrees with prompts.json: refused.
	bad := t.TempDir()
	for _, n := range append(promptFiles, "prompts.json") {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		if n == "rag_response.txt" {
			b = append(b, '!')
		}
		os.WriteFile(filepath.Join(bad, n), b, 0o644)
	}
	if _, err := LoadPrompts(bad); err == nil || !strings.Contains(err.Error(), "rag_response") {
		t.Errorf("changed copy: err = %v, want one naming rag_response", err)
	}
	os.Remove(filepath.Join(bad, "fail_response.txt"))
	if _, err := LoadPrompts(bad); err == nil || !strings.Contains(err.Error(), "fail_response.txt") {
		t.Errorf("missing file: err = %v", err)
	}
}

// expectedExtractionPrompt builds the extraction prompt independently of
// pystr: plain replacements, as str.format would substitute them.
func expectedExtractionPrompt(t *testing.T, p *Prompts, chunk string) string {
	t.Helper()
	r := strings.NewReplacer("{tuple_delimiter}", "<|>", "{record_delimiter}", "##", "{completion_delimiter}", "<|COMPLETE|>")
	examples := r.Replace(p.EntityExtractionExamples)
	return strings.NewReplacer("{language}", "English", "{entity_types}", "organization,person,geo,event,category",
		"{tuple_delimiter}", "<|>", "{record_delimiter}", "##", "{completion_delimiter}", "<|COMPLETE|>",
		"{examples}", examples, "{input_text}", chunk).Replace(p.EntityExtraction)
}

// TestOneDocumentOfThreeChunksMakesSixCalls is docs/graphrag.md §8 case 1: with
// one gleaning pass, 2 calls per chunk, 3 of them with a history of two
// messages; no if-loop call; the prompts are filled exactly.
func TestOneDocumentOfThreeChunksMakesSixCalls(t *testing.T) {
	p := testPrompts(t)
	// 25 characters of windows 10 every 8: chunks start at 0, 8, 16, 24 —
	// four windows; with 20 characters (starts 0, 8, 16): three. Braces
	// in the text must reach the prompt untouched.
	text := "ab{cd}efghijklmnopqrs"[:20]
	f := &fakeLLM{}
	o := charOpts(p)
	o.ChunkTokenSize, o.ChunkOverlapTokenSize = 10, 2
	var progress [][2]int
	o.Progress = func(done, total int) { progress = append(progress, [2]int{done, total}) }
	g, st, err := Build(context.Background(), []Document{{Text: text, FilePath: "a.py"}}, f, &fakeEmbedder{}, o)
	if err != nil {
		t.Fatal(err)
	}
	calls := f.taken()
	if len(calls) != 6 || f.count(CallExtract) != 3 || f.count(CallGlean) != 3 || f.count(CallIfLoop) != 0 {
		t.Fatalf("%d calls (%d extract, %d glean, %d if-loop), want 6 = 3 + 3 + 0", len(calls), f.count(CallExtract), f.count(CallGlean), f.count(CallIfLoop))
	}
	if st.Chunks != 3 || st.TotalLLMCalls() != 6 || len(g.Chunks()) != 3 {
		t.Errorf("stats %+v, %d chunks", st, len(g.Chunks()))
	}
	if len(progress) != 4 || progress[0] != [2]int{0, 3} || progress[3] != [2]int{3, 3} {
		t.Errorf("progress %v, want (0,3) … (3,3)", progress)
	}
	cont := strings.NewReplacer("{language}", "English", "{entity_types}", "organization,person,geo,event,category",
		"{tuple_delimiter}", "<|>", "{record_delimiter}", "##", "{completion_delimiter}", "<|COMPLETE|>").Replace(p.EntityContinueExtraction)
	chunks := map[string]bool{"ab{cd}efgh": true, "ghijklmnop": true, "opqr": true}
	for _, c := range calls {
		switch c.kind {
		case CallExtract:
			if len(c.msgs) != 1 || c.msgs[0].Role != "user" || c.opts != (llm.CallOptions{}) {
				t.Errorf("extraction call %+v: want one user message, no options", c)
			}
			chunk := chunkOf(c.msgs[0].Content)
			if !chunks[chunk] {
				t.Errorf("extraction of unexpected chunk %q", chunk)
			}
			if want := expectedExtractionPrompt(t, p, chunk); c.msgs[0].Content != want {
				t.Errorf("extraction prompt differs from the template filled by hand")
			}
		case CallGlean:
			if len(c.msgs) != 3 || c.msgs[0].Role != "user" || c.msgs[1].Role != "assistant" || c.msgs[2].Role != "user" {
				t.Errorf("gleaning call roles %v", c.msgs)
			}
			if c.msgs[1].Content != `("content_keywords"<|>"none")<|COMPLETE|>` || c.msgs[2].Content != cont {
				t.Errorf("gleaning history/prompt differ: %q / %q", c.msgs[1].Content, c.msgs[2].Content)
			}
		}
	}
	for i, c := range g.Chunks() {
		if c.ID != mdhashID(c.Content, "chunk-") || c.OrderIndex != i || c.FilePath != "a.py" || c.DocID != mdhashID(text, "doc-") {
			t.Errorf("chunk %d = %+v", i, c)
		}
	}
}

// TestGleaningKeepsOnlyNewNamesAndPairs is case 2: a gleaned entity whose
// name the first pass found is ignored, a new name is added; a gleaned
// relation is kept only if its (source, target) as written is new, so
// (B, A) after (A, B) is kept and merged into the same edge.
func TestGleaningKeepsOnlyNewNamesAndPairs(t *testing.T) {
	p := testPrompts(t)
	f := &fakeLLM{
		extract: func(string) string {
			return records(ent("A", "category", "first A"), ent("B", "category", "first B"), rel("A", "B", "a to b", "k1", "2"))
		},
		glean: func(string) string {
			return records(ent("A", "person", "gleaned A"), ent("C", "category", "gleaned C"),
				rel("A", "B", "gleaned a to b", "k2", "5"), rel("B", "A", "b to a", "k3", "3"))
		},
	}
	g, _, err := Build(context.Background(), []Document{{Text: "one chunk"}}, f, &fakeEmbedder{}, charOpts(p))
	if err != nil {
		t.Fatal(err)
	}
	a, _ := g.Entity("A")
	if a.Description != "first A" || a.Type != "category" {
		t.Errorf("A = %+v, want the first pass only", a)
	}
	if c, ok := g.Entity("C"); !ok || c.Description != "gleaned C" {
		t.Errorf("C = %+v, %v", c, ok)
	}
	r, _ := g.Relation("A", "B")
	if r.Weight != 5 || r.Description != "a to b<SEP>b to a" || r.Keywords != "k1<SEP>k3" {
		t.Errorf("A–B = %+v, want weight 2+3, the first and the reversed record", r)
	}
}

// TestRelationInThreeChunksSumsWeights is case 3: strengths 8, 6, 8 → 22.0,
// the two distinct descriptions sorted and <SEP>-joined; a quoted strength
// counts 1.0.
func TestRelationInThreeChunksSumsWeights(t *testing.T) {
	p := testPrompts(t)
	f := &fakeLLM{extract: func(chunk string) string {
		switch {
		case strings.HasPrefix(chunk, "first"):
			return records(rel("Structure", "Lattice", "y holds", "geometry", "8"), rel("Site", "Lattice", "quoted", "k", `"7"`))
		case strings.HasPrefix(chunk, "second"):
			return records(rel("Lattice", "Structure", "x has", "geometry", "6"))
		default:
			return records(rel("Structure", "Lattice", "y holds", "cell", "8"))
		}
	}}
	o := charOpts(p)
	o.ChunkTokenSize, o.ChunkOverlapTokenSize = 10, NoOverlap
	g, _, err := Build(context.Background(), []Document{{Text: "first.....second....third....."}}, f, &fakeEmbedder{}, o)
	if err != nil {
		t.Fatal(err)
	}
	r, ok := g.Relation("Structure", "Lattice")
	if !ok || r.Weight != 22 || reprFloat(r.Weight) != "22.0" || r.Description != "x has<SEP>y holds" || r.Keywords != "cell<SEP>geometry" {
		t.Errorf("Structure–Lattice = %+v", r)
	}
	if r.Source != "Lattice" || r.Target != "Structure" {
		t.Errorf("endpoints %q, %q: want the sorted pair", r.Source, r.Target)
	}
	if len(strings.Split(r.SourceID, GraphFieldSep)) != 3 {
		t.Errorf("source ids %q, want 3 chunks", r.SourceID)
	}
	if q, _ := g.Relation("Lattice", "Site"); q.Weight != 1 {
		t.Errorf("quoted strength: weight %v, want 1.0", q.Weight)
	}
}

// TestSixDescriptionsTriggerOneSummary is case 5: six distinct descriptions
// of one entity (here over six documents, merged one after another) send
// one summary with max_tokens 500 and the fragments as a Python list repr;
// five send none.
func TestSixDescriptionsTriggerOneSummary(t *testing.T) {
	p := testPrompts(t)
	for _, n := range []int{5, 6} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			f := &fakeLLM{extract: func(chunk string) string {
				return records(ent("Structure", "category", "d"+strings.TrimPrefix(chunk, "doc ")+"'s"))
			}}
			var docs []Document
			for i := 1; i <= n; i++ {
				docs = append(docs, Document{Text: fmt.Sprintf("doc %d", i), FilePath: fmt.Sprintf("f%d.py", i)})
			}
			g, st, err := Build(context.Background(), docs, f, &fakeEmbedder{}, charOpts(p))
			if err != nil {
				t.Fatal(err)
			}
			e, _ := g.Entity("Structure")
			if n == 5 {
				if f.count(CallSummary) != 0 || e.Description != "d1's<SEP>d2's<SEP>d3's<SEP>d4's<SEP>d5's" {
					t.Errorf("%d summaries, description %q", f.count(CallSummary), e.Description)
				}
				return
			}
			if f.count(CallSummary) != 1 || st.LLMCalls[CallSummary] != 1 || e.Description != "SUMMARY" {
				t.Fatalf("%d summaries, description %q", f.count(CallSummary), e.Description)
			}
			for _, c := range f.taken() {
				if c.kind != CallSummary {
					if c.opts.MaxTokens != nil {
						t.Errorf("%s call sent max_tokens", c.kind)
					}
					continue
				}
				if c.opts.MaxTokens == nil || *c.opts.MaxTokens != 500 || len(c.msgs) != 1 {
					t.Errorf("summary options %+v, %d messages", c.opts, len(c.msgs))
				}
				want := strings.NewReplacer("{language}", "English", "{entity_name}", "Structure",
					"{description_list}", `["d1's", "d2's", "d3's", "d4's", "d5's", "d6's"]`).Replace(p.SummarizeDescriptions)
				// The stored description of doc 5's merge counts as one item of
				// the set, but its fragments count (5 + 1 = 6), and the list
				// is the joined text split on <SEP>.
				if c.msgs[0].Content != want {
					t.Errorf("summary prompt:\n%s\nwant\n%s", c.msgs[0].Content, want)
				}
			}
			if e.FilePath != "f1.py<SEP>f2.py<SEP>f3.py<SEP>f4.py<SEP>f5.py<SEP>f6.py" {
				t.Errorf("file paths %q", e.FilePath)
			}
		})
	}
}

// TestSummaryInOneDocumentListsEachFragment: six chunks of one document
// merged at once give the six fragments as the list, sorted.
func TestSummaryInOneDocumentListsEachFragment(t *testing.T) {
	p := testPrompts(t)
	f := &fakeLLM{extract: func(chunk string) string { return records(ent("X", "category", "about "+chunk)) }}
	o := charOpts(p)
	o.ChunkTokenSize, o.ChunkOverlapTokenSize = 3, NoOverlap
	if _, _, err := Build(context.Background(), []Document{{Text: "c6 c5 c4 c3 c2 c1"}}, f, &fakeEmbedder{}, o); err != nil {
		t.Fatal(err)
	}
	var prompt string
	for _, c := range f.taken() {
		if c.kind == CallSummary {
			prompt = c.msgs[0].Content
		}
	}
	if !strings.Contains(prompt, "Entities: X\nDescription List: ['about c1', 'about c2', 'about c3', 'about c4', 'about c5', 'about c6']\n") {
		t.Errorf("summary prompt %q", prompt)
	}
}

// TestEdgeToAnUnextractedEntityCreatesAnUnknownNode is case 6: the endpoint
// gets type UNKNOWN and the edge's description and sources, and no entity
// vector.
func TestEdgeToAnUnextractedEntityCreatesAnUnknownNode(t *testing.T) {
	p := testPrompts(t)
	f := &fakeLLM{extract: func(string) string {
		return records(ent("Structure", "category", "a structure"), rel("Structure", "Ghost", "haunts", "k", "3"))
	}}
	emb := &fakeEmbedder{}
	g, _, err := Build(context.Background(), []Document{{Text: "text", FilePath: "a.py"}}, f, emb, charOpts(p))
	if err != nil {
		t.Fatal(err)
	}
	ghost, ok := g.Entity("Ghost")
	if !ok || ghost.Type != "UNKNOWN" || ghost.Description != "haunts" || ghost.FilePath != "a.py" || ghost.SourceID != g.Chunks()[0].ID {
		t.Errorf("Ghost = %+v, %v", ghost, ok)
	}
	ids := strings.Join(g.EntityVectorIDs(), ",")
	if ids != mdhashID("Structure", "ent-") {
		t.Errorf("entity vectors %s, want only Structure's", ids)
	}
	if strings.Join(g.RelationVectorIDs(), ",") != mdhashID("GhostStructure", "rel-") {
		t.Errorf("relation vectors %v", g.RelationVectorIDs())
	}
	// The embedded texts of §2.8, in batches: chunks, entities, relations.
	emb.mu.Lock()
	defer emb.mu.Unlock()
	want := [][]string{{"text"}, {"Structure\na structure"}, {"Ghost\tStructure\nk\nhaunts"}}
	if fmt.Sprint(emb.inputs) != fmt.Sprint(want) {
		t.Errorf("embedded %q, want %q", emb.inputs, want)
	}
}

func TestEmbeddingsGoInBatchesOf32(t *testing.T) {
	p := testPrompts(t)
	f := &fakeLLM{extract: func(string) string {
		var rs []string
		for i := range 70 {
			rs = append(rs, ent(fmt.Sprintf("E%02d", i), "category", "d"))
		}
		return records(rs...)
	}}
	emb := &fakeEmbedder{}
	if _, _, err := Build(context.Background(), []Document{{Text: "x"}}, f, emb, charOpts(p)); err != nil {
		t.Fatal(err)
	}
	var sizes []int
	for _, in := range emb.inputs {
		sizes = append(sizes, len(in))
	}
	sort.Ints(sizes) // the entity batches run concurrently
	if fmt.Sprint(sizes) != "[1 6 32 32]" {
		t.Errorf("batch sizes %v, want the chunk, then 70 entities as 32+32+6", sizes)
	}
	g, _, _ := Build(context.Background(), []Document{{Text: "x"}}, f, &fakeEmbedder{}, charOpts(p))
	for i, r := range g.entVDB.rows { // each row has its own text's vector
		want := normalize(llmtest.Embedding(r.Content, 64))
		if r.EntityName != fmt.Sprintf("E%02d", i) || r.Vector[0] != float32(want[0]) || r.Vector[63] != float32(want[63]) {
			t.Fatalf("row %d: %s, vector differs from its text's", i, r.EntityName)
		}
	}
}

func TestDuplicateTextsAndChunksAreExtractedOnce(t *testing.T) {
	p := testPrompts(t)
	f := &fakeLLM{}
	docs := []Document{{Text: " same text ", FilePath: "a.py"}, {Text: "same text", FilePath: "b.py"}, {Text: "other", FilePath: "c.py"}}
	_, st, err := Build(context.Background(), docs, f, &fakeEmbedder{}, charOpts(p))
	if err != nil {
		t.Fatal(err)
	}
	if st.Documents != 2 || st.DuplicateDocuments != 1 || f.count(CallExtract) != 2 {
		t.Errorf("stats %+v, %d extractions", st, f.count(CallExtract))
	}
	if _, _, err := Build(context.Background(), []Document{{ID: "x", Text: "a"}, {ID: "x", Text: "b"}}, f, &fakeEmbedder{}, charOpts(p)); err == nil {
		t.Error("a repeated id was accepted")
	}
}

func TestSpecialTokensAreRefusedWithO200k(t *testing.T) {
	p := testPrompts(t)
	o := charOpts(p)
	o.Tokenizer = nil // o200k
	_, _, err := Build(context.Background(), []Document{{Text: "a <|endoftext|> b", FilePath: "x.py"}}, &fakeLLM{}, &fakeEmbedder{}, o)
	if err == nil || !strings.Contains(err.Error(), "x.py") || !strings.Contains(err.Error(), "<|endoftext|>") {
		t.Errorf("err = %v", err)
	}
}

func TestEstimateIndexCountsChunksAndCalls(t *testing.T) {
	p := testPrompts(t)
	o := charOpts(p)
	o.ChunkTokenSize, o.ChunkOverlapTokenSize = 10, 2
	est, err := EstimateIndex([]Document{{Text: strings.Repeat("x", 20)}, {Text: "short"}}, o)
	if err != nil {
		t.Fatal(err)
	}
	// 20 characters: windows at 0, 8, 16 = 3 chunks ("xxxxxxxxxx" twice is
	// one id, so 2 distinct) + 1 = 3 distinct chunks.
	if est.Chunks != 3 || est.ExtractionCalls != 6 || est.Calls != est.ExtractionCalls+est.SummaryCalls || est.PromptTokens <= 0 {
		t.Errorf("estimate %+v", est)
	}
	empty, _ := extractionPrompt(p.EntityExtraction, mustCtx(t, p), "")
	if est.PromptTokens < int64(3*2*pyLen(empty)) {
		t.Errorf("prompt tokens %d < 6 × the empty prompt's %d", est.PromptTokens, pyLen(empty))
	}
}

func mustCtx(t *testing.T, p *Prompts) map[string]string {
	m, err := p.extractionContext(p.Language, p.EntityTypes)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestJournalResumesAndACompleteIndexIsReused: a Build that fails after some
// chunks leaves them journaled; the rerun calls only for the others; a third
// Build of the complete index makes no call at all.
func TestJournalResumesAndACompleteIndexIsReused(t *testing.T) {
	p := testPrompts(t)
	dir := t.TempDir()
	o := charOpts(p)
	o.Dir = dir
	o.ChunkTokenSize, o.ChunkOverlapTokenSize = 4, NoOverlap
	o.MaxAsync = 1 // chunks in order, so exactly c1–c3 finish before c4 fails
	docs := []Document{{Text: "c1  c2  c3  c4  c5  ", FilePath: "a.py"}}
	extract := func(chunk string) string { return records(ent("E"+chunk, "category", "from "+chunk)) }
	boom := errors.New("boom")
	f := &fakeLLM{extract: extract, fail: func(kind, text string) error {
		if kind == CallExtract && text == "c4" {
			return boom
		}
		return nil
	}}
	if _, _, err := Build(context.Background(), docs, f, &fakeEmbedder{}, o); !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	if _, err := ReadManifest(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed build wrote a manifest: %v", err)
	}
	lines, _ := os.ReadFile(filepath.Join(dir, JournalFile))
	if n := strings.Count(string(lines), "\n"); n != 4 { // header + c1, c2, c3
		t.Errorf("journal has %d lines, want 4:\n%s", n, lines)
	}
	// The journal of another chat model is refused, naming both.
	o1 := o
	o1.ChatModel = "gpt-4o"
	if _, _, err := Build(context.Background(), docs, &fakeLLM{}, &fakeEmbedder{}, o1); err == nil ||
		!strings.Contains(err.Error(), `chat model "fake-chat"`) || !strings.Contains(err.Error(), `"gpt-4o"`) {
		t.Errorf("other chat model: err = %v", err)
	}
	// A crash mid-line leaves a partial last line: dropped on reopen.
	fh, _ := os.OpenFile(filepath.Join(dir, JournalFile), os.O_APPEND|os.O_WRONLY, 0)
	fh.WriteString(`{"kind":"chunk","chunk_id":"chu`)
	fh.Close()

	f2 := &fakeLLM{extract: extract}
	var first [2]int
	o.Progress = func(done, total int) {
		if first == [2]int{} {
			first = [2]int{done, total}
		}
	}
	g, st, err := Build(context.Background(), docs, f2, &fakeEmbedder{}, o)
	if err != nil {
		t.Fatal(err)
	}
	if f2.count(CallExtract) != 2 || st.ChunksFromJournal != 3 || first != [2]int{3, 5} {
		t.Errorf("rerun: %d extractions, %d from the journal, first progress %v; want 2, 3, (3,5)", f2.count(CallExtract), st.ChunksFromJournal, first)
	}
	if len(g.Entities()) != 5 {
		t.Errorf("%d entities, want 5", len(g.Entities()))
	}
	f3 := &fakeLLM{}
	emb := &fakeEmbedder{}
	g3, st3, err := Build(context.Background(), docs, f3, emb, o)
	if err != nil {
		t.Fatal(err)
	}
	if !st3.Reused || len(f3.taken()) != 0 || emb.requests() != 0 || len(g3.Entities()) != 5 {
		t.Errorf("third build: reused %v, %d calls, %d embeddings", st3.Reused, len(f3.taken()), emb.requests())
	}
	// Another corpus or chat model in the same directory is refused.
	o2 := o
	o2.CorpusID = "other-corpus"
	if _, _, err := Build(context.Background(), docs, f3, emb, o2); err == nil || !strings.Contains(err.Error(), `"other-corpus"`) || !strings.Contains(err.Error(), `"test-corpus"`) {
		t.Errorf("other corpus: err = %v", err)
	}
	if _, _, err := Build(context.Background(), []Document{{Text: "different"}}, f3, emb, o); err == nil || !strings.Contains(err.Error(), "other documents") {
		t.Errorf("other documents: err = %v", err)
	}
}

func TestSaveOpenRoundTripAndManifestChecks(t *testing.T) {
	p := testPrompts(t)
	dir := t.TempDir()
	o := charOpts(p)
	o.Dir = dir
	o.EmbeddingEndpoint = "http://127.0.0.1:1/v1"
	f := &fakeLLM{extract: func(chunk string) string {
		return records(ent("A", "category", "a \"quoted\" C:\\ path"), ent("B", "person", "b"), ent("C", "geo", "c"),
			rel("C", "A", "ca", "k", "2"), rel("A", "B", "ab", "k", "1.5"), rel("B", "B", "self", "k", "1"))
	}}
	g, _, err := Build(context.Background(), []Document{{Text: "text", FilePath: "a.py"}}, f, &fakeEmbedder{}, o)
	if err != nil {
		t.Fatal(err)
	}
	m, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.LightRAGVersion != "1.3.3" || m.ChatModel != "fake-chat" || m.EmbeddingModel != "fake-embed" || m.Tokenizer != "chars" ||
		m.CorpusID != "test-corpus" || !m.Complete || m.EmbeddingDims != 64 || m.BuiltAt != "2025-04-26T12:00:00Z" ||
		m.Counts != (Counts{Documents: 1, Chunks: 1, Entities: 3, Relations: 3, EntityVectors: 3, RelationVectors: 3, ChunkVectors: 1}) ||
		m.PromptSHA256["rag_response.txt"] == "" || m.EmbeddingEndpoint != "http://127.0.0.1:1/v1" {
		t.Errorf("manifest %+v", m)
	}
	h, err := Open(dir, Manifest{ChatModel: "fake-chat", EmbeddingModel: "fake-embed", CorpusID: "test-corpus"})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(h.Entities()) != fmt.Sprint(g.Entities()) || fmt.Sprint(h.Relations()) != fmt.Sprint(g.Relations()) ||
		fmt.Sprint(h.Chunks()) != fmt.Sprint(g.Chunks()) {
		t.Errorf("reopened graph differs")
	}
	for i, r := range g.entVDB.rows {
		if fmt.Sprint(*h.entVDB.rows[i]) != fmt.Sprint(*r) {
			t.Errorf("entity vector row %d differs", i)
		}
	}
	// Adjacency after reopening follows the GraphML edge order: A's
	// neighbours were [C, B] (added in that order) and stay so; B's were
	// [A, B]; C's [A].
	if fmt.Sprint(h.adj["A"]) != "[C B]" || fmt.Sprint(h.adj["B"]) != "[A B]" || h.degree("B") != 3 {
		t.Errorf("adjacency %v, degree(B) = %d", h.adj, h.degree("B"))
	}
	for _, tt := range []struct {
		want Manifest
		msg  string
	}{
		{Manifest{ChatModel: "gpt-4o"}, `chat model "fake-chat", not "gpt-4o"`},
		{Manifest{EmbeddingModel: "text-embedding-3-large"}, `embedding model "fake-embed", not "text-embedding-3-large"`},
		{Manifest{CorpusID: "docs"}, `corpus "test-corpus", not "docs"`},
	} {
		if _, err := Open(dir, tt.want); err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("Open(%+v): err = %v, want %q", tt.want, err, tt.msg)
		}
	}
	if _, err := Open(t.TempDir(), Manifest{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("empty dir: %v", err)
	}
}
