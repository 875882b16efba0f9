package graphrag

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mattools-leaderboard/leaderboard/internal/pystr"
	"github.com/mattools-leaderboard/leaderboard/llm"
)

// LightRAG 1.3.3's defaults (docs/graphrag.md §5; lightrag.py line numbers there).
const (
	DefaultChunkTokenSize         = 1200  // #1
	DefaultChunkOverlapTokenSize  = 100   // #2
	DefaultGleaning               = 1     // #4 entity_extract_max_gleaning
	DefaultForceLLMSummaryOnMerge = 6     // #5
	DefaultSummaryMaxTokens       = 500   // #6 summary_to_max_tokens
	DefaultLLMMaxTokenSize        = 32768 // #7 llm_model_max_token_size
	DefaultMaxAsync               = 4     // #11 llm_model_max_async
	DefaultEmbeddingBatch         = 32    // #13 embedding_batch_num
	DefaultEmbeddingMaxAsync      = 16    // #14 embedding_func_max_async
	// NoGleaning as IndexOptions.Gleaning disables the gleaning pass.
	NoGleaning = -1
	// NoOverlap as IndexOptions.ChunkOverlapTokenSize makes windows disjoint.
	NoOverlap = -1
	// unknownSource is LightRAG's file_path placeholder.
	unknownSource = "unknown_source"
)

// IndexOptions configure Build. Zero values take LightRAG 1.3.3's defaults.
type IndexOptions struct {
	// Prompts are the prompt texts (LoadPrompts); required.
	Prompts *Prompts
	// Tokenizer counts and cuts tokens; nil means O200k().
	Tokenizer Tokenizer
	// ChatModel is recorded in the manifest and the journal; "" takes the
	// model's Model() when it has one (as *llm.Client does).
	ChatModel string
	// EmbeddingModel is sent with every embeddings request; required.
	EmbeddingModel string
	// EmbeddingEndpoint is recorded in the manifest only (pass it through
	// llm.RedactURL).
	EmbeddingEndpoint string
	// CorpusID names the documents (e.g. "pymatgen-code@<sha>"); recorded and
	// checked by Open and by a rerun in the same Dir.
	CorpusID string
	// Dir, when set, is the index directory: finished chunks are journaled
	// there as they finish, and the index is saved there at the end. An
	// existing complete index for the same build is opened instead of built.
	Dir string

	ChunkTokenSize        int // tokens per chunk window (1200)
	ChunkOverlapTokenSize int // tokens shared by consecutive windows (100); NoOverlap for none
	// Gleaning is the number of gleaning passes (1); NoGleaning for none.
	// With 2 or more, entity_if_loop_extraction is asked between passes.
	Gleaning               int
	ForceLLMSummaryOnMerge int      // fragments from which a merged description is summarised (6)
	SummaryMaxTokens       int      // max_tokens of a summary call (500)
	LLMMaxTokenSize        int      // tokens of a description kept for its summary (32768)
	EntityTypes            []string // nil: the prompts' DEFAULT_ENTITY_TYPES
	Language               string   // "": the prompts' DEFAULT_LANGUAGE ("English")

	MaxAsync          int // concurrent LLM calls (4)
	EmbeddingBatch    int // texts per embeddings request (32)
	EmbeddingMaxAsync int // concurrent embeddings requests (16)

	// Clock gives the __created_at__ of vector rows (time.time() in
	// LightRAG); nil means time.Now. Tests and comparisons fix it.
	Clock func() time.Time
	// Progress, if set, is called with (chunks done, chunks in all) at the
	// start and after every chunk's extraction; calls are serialised.
	Progress func(done, total int)
	// KeepUnicodeEscapes keeps `\uXXXX` written in answers as text.
	// LightRAG's OpenAI binding decodes them (safe_unicode_decode), and so
	// does this package by default.
	KeepUnicodeEscapes bool
}

// Settings are the options an index's content depends on, recorded in the
// manifest and the journal.
type Settings struct {
	ChunkTokenSize         int      `json:"chunk_token_size"`
	ChunkOverlapTokenSize  int      `json:"chunk_overlap_token_size"`
	Gleaning               int      `json:"gleaning"`
	ForceLLMSummaryOnMerge int      `json:"force_llm_summary_on_merge"`
	SummaryMaxTokens       int      `json:"summary_max_tokens"`
	LLMMaxTokenSize        int      `json:"llm_max_token_size"`
	EntityTypes            []string `json:"entity_types"`
	Language               string   `json:"language"`
	Tokenizer              string   `json:"tokenizer"`
	PromptsSHA256          string   `json:"prompts_sha256"`
	KeepUnicodeEscapes     bool     `json:"keep_unicode_escapes"`
}

// IndexStats reports what a Build did.
type IndexStats struct {
	Documents          int // after removing duplicate texts
	DuplicateDocuments int // texts given more than once, kept once
	Chunks             int // distinct chunks extracted (journaled ones included)
	ChunksFromJournal  int // chunks whose answers came from the journal: no call
	// LLMCalls counts the chat requests made, by kind (CallExtract, …);
	// SummariesFromJournal the summaries answered from the journal.
	LLMCalls             map[string]int
	SummariesFromJournal int
	EmbeddingCalls       int
	EmbeddedTexts        int
	// Token counts as the servers report them.
	PromptTokens, CompletionTokens, EmbeddingTokens int64
	Entities, Relations                             int           // in the graph
	Reused                                          bool          // a complete index was opened; nothing was called
	Elapsed                                         time.Duration // wall time of Build
}

// TotalLLMCalls returns the sum of LLMCalls.
func (s *IndexStats) TotalLLMCalls() int {
	n := 0
	for _, c := range s.LLMCalls {
		n += c
	}
	return n
}

// withDefaults returns o with LightRAG's defaults filled in, or an error
// for a missing required field.
func (o IndexOptions) withDefaults(model LLM) (IndexOptions, error) {
	if o.Prompts == nil {
		return o, errors.New("graphrag: IndexOptions.Prompts is nil (LoadPrompts)")
	}
	if o.EmbeddingModel == "" {
		return o, errors.New("graphrag: IndexOptions.EmbeddingModel is empty")
	}
	if o.Tokenizer == nil {
		o.Tokenizer = O200k()
	}
	if o.ChatModel == "" {
		if m, ok := model.(interface{ Model() string }); ok {
			o.ChatModel = m.Model()
		}
	}
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&o.ChunkTokenSize, DefaultChunkTokenSize)
	def(&o.ChunkOverlapTokenSize, DefaultChunkOverlapTokenSize)
	if o.ChunkOverlapTokenSize < 0 {
		o.ChunkOverlapTokenSize = 0
	}
	def(&o.Gleaning, DefaultGleaning)
	if o.Gleaning < 0 {
		o.Gleaning = 0
	}
	def(&o.ForceLLMSummaryOnMerge, DefaultForceLLMSummaryOnMerge)
	def(&o.SummaryMaxTokens, DefaultSummaryMaxTokens)
	def(&o.LLMMaxTokenSize, DefaultLLMMaxTokenSize)
	def(&o.MaxAsync, DefaultMaxAsync)
	def(&o.EmbeddingBatch, DefaultEmbeddingBatch)
	def(&o.EmbeddingMaxAsync, DefaultEmbeddingMaxAsync)
	if o.ChunkOverlapTokenSize >= o.ChunkTokenSize {
		return o, fmt.Errorf("graphrag: chunk overlap %d ≥ chunk size %d", o.ChunkOverlapTokenSize, o.ChunkTokenSize)
	}
	if o.EntityTypes == nil {
		o.EntityTypes = o.Prompts.EntityTypes
	}
	if o.Language == "" {
		o.Language = o.Prompts.Language
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	return o, nil
}

func (o IndexOptions) settings() Settings {
	return Settings{
		ChunkTokenSize: o.ChunkTokenSize, ChunkOverlapTokenSize: o.ChunkOverlapTokenSize, Gleaning: o.Gleaning,
		ForceLLMSummaryOnMerge: o.ForceLLMSummaryOnMerge, SummaryMaxTokens: o.SummaryMaxTokens,
		LLMMaxTokenSize: o.LLMMaxTokenSize, EntityTypes: o.EntityTypes, Language: o.Language,
		Tokenizer: o.Tokenizer.Name(), PromptsSHA256: o.Prompts.PromptsSHA256(), KeepUnicodeEscapes: o.KeepUnicodeEscapes,
	}
}

// doc is a document after intake.
type doc struct {
	id, content, filePath string
}

// intake is apipeline_enqueue_documents (lightrag.py:632-767) without the
// doc-status store: ids, cleaning, file paths, duplicate texts kept once
// (first id and path), in input order. Documents with ids must be unique.
func intake(docs []Document) ([]doc, int, error) {
	var out []doc
	seenText := map[string]bool{}
	seenID := map[string]bool{}
	dups := 0
	for i, d := range docs {
		content, id := d.Text, d.ID
		if id == "" {
			content = strings.ReplaceAll(pystr.Strip(d.Text), "\x00", "")
			id = mdhashID(content, "doc-")
		} else if seenID[id] {
			return nil, 0, fmt.Errorf("graphrag: document %d: id %q given twice (LightRAG: IDs must be unique)", i, id)
		}
		fp := d.FilePath
		if fp == "" {
			fp = unknownSource
		}
		if seenText[content] {
			dups++
			continue
		}
		seenText[content] = true
		seenID[id] = true
		out = append(out, doc{id: id, content: content, filePath: fp})
	}
	return out, dups, nil
}

// documentsSHA256 fingerprints the documents after intake.
func documentsSHA256(docs []doc) string {
	h := sha256.New()
	for _, d := range docs {
		for _, s := range []string{d.id, d.filePath, d.content} {
			fmt.Fprintf(h, "%d:%s", len(s), s)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// specialTokens are o200k_base's special tokens, which tiktoken's encode
// refuses in text (disallowed_special="all").
var specialTokens = []string{"<|endoftext|>", "<|endofprompt|>"}

// chunkTask is the extraction of one distinct chunk text.
type chunkTask struct {
	id, content, promptMD5 string
	done                   chan struct{}
	entry                  journalEntry
	err                    error
}

// builder holds one Build's state.
type builder struct {
	o      IndexOptions
	g      *Graph
	emb    Embedder
	call   *caller
	j      *journal
	ctxMap map[string]string // extraction context_base
	cont   string            // the formatted continue prompt

	mu    sync.Mutex // guards the embedding counts of stats
	stats IndexStats
	dims  int // of the first vector; every vector must have it
}

// Build indexes docs as LightRAG 1.3.3's insert does (docs/graphrag.md §2):
// chunking, extraction with one gleaning pass, merging, summaries, and the
// embeddings of entities, relations and chunks. Documents are merged one
// after another in input order (LightRAG processes two at a time and merges
// whichever finishes first), chunks of a document in order, so the graph
// does not depend on how the at most MaxAsync concurrent calls finish.
//
// With opts.Dir, every finished chunk's answers and every summary are
// journaled (fsynced) in Dir/extract.journal.jsonl, a rerun makes no call for
// journaled work, and the index is saved to Dir at the end; a Dir that
// already holds the complete index of the same documents and settings is
// opened with no call at all (IndexStats.Reused). A Dir holding an index or
// journal of another chat model, embedding model, corpus, documents or
// settings is an error naming both values.
//
// A failed call stops Build with its error (LightRAG marks the document
// failed and goes on); what was journaled stays for the rerun. Errors of
// the model and embedder are wrapped.
func Build(ctx context.Context, docs []Document, model LLM, emb Embedder, opts IndexOptions) (*Graph, *IndexStats, error) {
	start := time.Now()
	o, err := opts.withDefaults(model)
	if err != nil {
		return nil, nil, err
	}
	ds, dups, err := intake(docs)
	if err != nil {
		return nil, nil, err
	}
	if o.Tokenizer.Name() == TokenizerO200k {
		for _, d := range ds {
			for _, s := range specialTokens {
				if strings.Contains(d.content, s) {
					return nil, nil, fmt.Errorf("graphrag: document %s (%s) contains the special token %s, which tiktoken refuses to encode (LightRAG marks such a document failed)", d.id, d.filePath, s)
				}
			}
		}
	}
	man := Manifest{
		FormatVersion: FormatVersion, LightRAGVersion: LightRAGVersion, ChatModel: o.ChatModel,
		EmbeddingModel: o.EmbeddingModel, EmbeddingEndpoint: o.EmbeddingEndpoint, Tokenizer: o.Tokenizer.Name(),
		CorpusID: o.CorpusID, DocumentsSHA256: documentsSHA256(ds), Settings: o.settings(), PromptSHA256: o.Prompts.SHA256,
	}
	if o.Dir != "" {
		if g, ok, err := reuse(o.Dir, man); err != nil || ok {
			if err != nil {
				return nil, nil, err
			}
			return g, &IndexStats{Documents: len(ds), DuplicateDocuments: dups, Chunks: len(g.chunks), LLMCalls: map[string]int{},
				Entities: len(g.nodes), Relations: len(g.edges), Reused: true, Elapsed: time.Since(start)}, nil
		}
	}
	b := &builder{o: o, g: newGraph(o.Tokenizer), emb: emb, call: newCaller(model, o.MaxAsync, o.KeepUnicodeEscapes)}
	b.stats = IndexStats{Documents: len(ds), DuplicateDocuments: dups, LLMCalls: map[string]int{}}
	if b.ctxMap, err = o.Prompts.extractionContext(o.Language, o.EntityTypes); err != nil {
		return nil, nil, err
	}
	if b.cont, err = pystr.Format(o.Prompts.EntityContinueExtraction, b.ctxMap); err != nil {
		return nil, nil, fmt.Errorf("graphrag: entity_continue_extraction: %w", err)
	}
	if o.Dir != "" {
		b.j, err = openJournal(o.Dir, journalHeader{FormatVersion: FormatVersion, ChatModel: o.ChatModel, CorpusID: o.CorpusID, Settings: man.Settings})
		if err != nil {
			return nil, nil, err
		}
		defer b.j.close()
	}
	if err := b.run(ctx, ds); err != nil {
		return nil, nil, err
	}
	b.finishStats()
	man.EmbeddingDims = b.dims
	man.BuiltAt = o.Clock().UTC().Format(time.RFC3339)
	b.g.Manifest = man
	b.g.Manifest.Counts = b.g.counts(len(ds))
	b.g.Manifest.Complete = true
	if o.Dir != "" {
		if err := b.g.Save(o.Dir); err != nil {
			return nil, nil, err
		}
	}
	b.stats.Entities, b.stats.Relations = len(b.g.nodes), len(b.g.edges)
	b.stats.Elapsed = time.Since(start)
	return b.g, &b.stats, nil
}

// reuse opens dir's index when its manifest says it is complete and was
// built as man would be; it is an error when it was built otherwise.
func reuse(dir string, man Manifest) (*Graph, bool, error) {
	got, err := ReadManifest(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if err := checkManifest(dir, got, man); err != nil {
		return nil, false, err
	}
	if got.DocumentsSHA256 != man.DocumentsSHA256 {
		return nil, false, fmt.Errorf("graphrag: the index in %s was built from other documents (sha256 %s, these are %s) of corpus %q: use another index directory", dir, got.DocumentsSHA256, man.DocumentsSHA256, man.CorpusID)
	}
	if err := sameBuild(journalHeader{FormatVersion: got.FormatVersion, ChatModel: got.ChatModel, CorpusID: got.CorpusID, Settings: got.Settings},
		journalHeader{FormatVersion: man.FormatVersion, ChatModel: man.ChatModel, CorpusID: man.CorpusID, Settings: man.Settings}); err != nil {
		return nil, false, fmt.Errorf("graphrag: the index in %s was %w", dir, err)
	}
	if !got.Complete {
		return nil, false, nil
	}
	g, err := Open(dir, man)
	if err != nil {
		return nil, false, err
	}
	return g, true, nil
}

func (b *builder) finishStats() {
	for _, c := range b.call.taken() {
		b.stats.LLMCalls[c.Kind]++
		b.stats.PromptTokens += c.PromptTokens
		b.stats.CompletionTokens += c.CompletionTokens
	}
}

func (b *builder) recordEmbed(c Call) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.stats.EmbeddingCalls++
	b.stats.EmbeddedTexts += c.Inputs
	b.stats.EmbeddingTokens += c.PromptTokens
}

// docChunks chunks one document: the chunk dict of process_document
// (lightrag.py:868-883), keyed by chunk id, so that equal texts collapse
// into the first position with the last window's fields.
func (b *builder) docChunks(d doc) []Chunk {
	m := newOmap[string, Chunk]()
	for _, c := range chunkWindows(b.o.Tokenizer, d.content, b.o.ChunkTokenSize, b.o.ChunkOverlapTokenSize) {
		c.ID = mdhashID(c.Content, "chunk-")
		c.DocID, c.FilePath = d.id, d.filePath
		m.set(c.ID, c)
	}
	out := make([]Chunk, 0, m.len())
	for _, k := range m.keys {
		out = append(out, m.m[k])
	}
	return out
}

func (b *builder) run(ctx context.Context, ds []doc) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	docChunks := make([][]Chunk, len(ds))
	tasks := newOmap[string, *chunkTask]()
	for i, d := range ds {
		docChunks[i] = b.docChunks(d)
		for _, c := range docChunks[i] {
			if _, ok := tasks.get(c.ID); ok {
				continue // LightRAG's extraction cache answers a repeated chunk text
			}
			prompt, err := extractionPrompt(b.o.Prompts.EntityExtraction, b.ctxMap, c.Content)
			if err != nil {
				return err
			}
			// The prompt (the template is ~12 KB) is rebuilt by the worker.
			tasks.set(c.ID, &chunkTask{id: c.ID, content: c.Content, promptMD5: md5Hex(prompt), done: make(chan struct{})})
		}
	}
	total := tasks.len()
	b.stats.Chunks = total
	var todo []*chunkTask
	for _, k := range tasks.keys {
		t := tasks.m[k]
		if e, ok := b.j.chunk(t.id, t.promptMD5); ok {
			t.entry = e
			close(t.done)
			b.stats.ChunksFromJournal++
			continue
		}
		todo = append(todo, t)
	}
	var progMu sync.Mutex
	done := total - len(todo)
	progress := func(step int) {
		if b.o.Progress == nil {
			return
		}
		progMu.Lock()
		done += step
		b.o.Progress(done, total)
		progMu.Unlock()
	}
	progress(0)

	var firstErr error
	var errOnce sync.Once
	fail := func(err error) {
		errOnce.Do(func() { firstErr = err; cancel() })
	}
	queue := make(chan *chunkTask)
	var wg sync.WaitGroup
	for range max(1, b.o.MaxAsync) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for t := range queue {
				if t.err = ctx.Err(); t.err == nil {
					t.entry, t.err = b.extract(ctx, t)
				}
				if t.err == nil {
					t.err = b.j.addChunk(t.entry)
				}
				if t.err != nil {
					fail(t.err)
				}
				close(t.done)
				progress(1)
			}
		}()
	}
	go func() {
		defer close(queue)
		for _, t := range todo {
			select {
			case queue <- t:
			case <-ctx.Done():
				return // mergeAll sees ctx's end
			}
		}
	}()
	if err := b.mergeAll(ctx, ds, docChunks, tasks); err != nil {
		fail(err)
	}
	cancel()
	wg.Wait()
	return firstErr
}

// wait returns t's result, or ctx's error if ctx ends first.
func (t *chunkTask) wait(ctx context.Context) (journalEntry, error) {
	select {
	case <-t.done:
		return t.entry, t.err
	case <-ctx.Done():
		return journalEntry{}, ctx.Err()
	}
}

// extract sends the extraction prompt and the gleaning passes of one chunk
// (operate.py:577-653): the prompt as the only user message; each gleaning
// pass as the history (user prompt, assistant answer, …) plus the continue
// prompt; between passes, the if-loop question, stopping unless "yes".
func (b *builder) extract(ctx context.Context, t *chunkTask) (journalEntry, error) {
	e := journalEntry{ChunkID: t.id, PromptMD5: t.promptMD5}
	prompt, err := extractionPrompt(b.o.Prompts.EntityExtraction, b.ctxMap, t.content)
	if err != nil {
		return e, err
	}
	first, err := b.call.complete(ctx, CallExtract, []llm.Message{llm.User(prompt)}, llm.CallOptions{})
	if err != nil {
		return e, err
	}
	e.Extraction = first
	history := []llm.Message{llm.User(prompt), {Role: "assistant", Content: first}}
	for i := 0; i < b.o.Gleaning; i++ {
		msgs := append(append([]llm.Message(nil), history...), llm.User(b.cont))
		g, err := b.call.complete(ctx, CallGlean, msgs, llm.CallOptions{})
		if err != nil {
			return e, err
		}
		e.Gleaning = append(e.Gleaning, g)
		history = append(history, llm.User(b.cont), llm.Message{Role: "assistant", Content: g})
		if i == b.o.Gleaning-1 {
			break
		}
		msgs = append(append([]llm.Message(nil), history...), llm.User(b.o.Prompts.EntityIfLoopExtraction))
		l, err := b.call.complete(ctx, CallIfLoop, msgs, llm.CallOptions{})
		if err != nil {
			return e, err
		}
		e.IfLoop = append(e.IfLoop, l)
		if strings.ToLower(stripChars(stripChars(pystr.Strip(l), `"`), `'`)) != "yes" {
			break
		}
	}
	return e, nil
}

// mergeAll merges the documents in order as their chunks finish.
func (b *builder) mergeAll(ctx context.Context, ds []doc, docChunks [][]Chunk, tasks *omap[string, *chunkTask]) error {
	for i, d := range ds {
		results := make([]chunkRecords, len(docChunks[i]))
		for k, c := range docChunks[i] {
			t, _ := tasks.get(c.ID)
			e, err := t.wait(ctx)
			if err != nil {
				return err
			}
			results[k] = chunkResult(b.o.Prompts, c.ID, d.filePath, e.Extraction, e.Gleaning)
		}
		if err := b.mergeDoc(ctx, d, docChunks[i], results); err != nil {
			return err
		}
	}
	return nil
}

// now returns the clock as Unix seconds.
func (b *builder) now() float64 {
	t := b.o.Clock()
	return float64(t.UnixNano()) / 1e9
}

// mergeDoc stores one document's chunks and merges its records
// (extract_entities after the gather, operate.py:655-770): all entities,
// then all relations, in order of first appearance; then the vector upserts.
func (b *builder) mergeDoc(ctx context.Context, d doc, chunks []Chunk, results []chunkRecords) error {
	if len(chunks) > 0 {
		rows := make([]vectorRow, len(chunks))
		for i, c := range chunks {
			rows[i] = vectorRow{ID: c.ID, FullDocID: d.id, Content: c.Content, FilePath: d.filePath}
		}
		if err := b.upsertVectors(ctx, b.g.chunkVDB, rows); err != nil {
			return err
		}
		for _, c := range chunks {
			b.g.upsertChunk(c)
		}
	}
	allNodes := newOmap[string, []entityRecord]()
	allEdges := newOmap[pair, []relationRecord]()
	for _, r := range results {
		for _, name := range r.nodes.keys {
			l, _ := allNodes.get(name)
			allNodes.set(name, append(l, r.nodes.m[name]...))
		}
		for _, k := range r.edges.keys {
			sk := sortedPair(k[0], k[1])
			l, _ := allEdges.get(sk)
			allEdges.set(sk, append(l, r.edges.m[k]...))
		}
	}
	var entRows []vectorRow
	for _, name := range allNodes.keys {
		e, err := b.mergeNode(ctx, name, allNodes.m[name])
		if err != nil {
			return err
		}
		entRows = append(entRows, vectorRow{ID: mdhashID(e.Name, "ent-"), EntityName: e.Name, SourceID: e.SourceID,
			Content: e.Name + "\n" + e.Description, FilePath: e.FilePath})
	}
	relRows := newOmap[string, vectorRow]()
	for _, k := range allEdges.keys {
		r, err := b.mergeEdge(ctx, k[0], k[1], allEdges.m[k])
		if err != nil {
			return err
		}
		id := mdhashID(r.Source+r.Target, "rel-")
		relRows.set(id, vectorRow{ID: id, SrcID: r.Source, TgtID: r.Target, SourceID: r.SourceID,
			Content: r.Source + "\t" + r.Target + "\n" + r.Keywords + "\n" + r.Description, FilePath: r.FilePath})
	}
	if len(entRows) > 0 {
		if err := b.upsertVectors(ctx, b.g.entVDB, entRows); err != nil {
			return err
		}
	}
	if relRows.len() > 0 {
		rows := make([]vectorRow, 0, relRows.len())
		for _, k := range relRows.keys {
			rows = append(rows, relRows.m[k])
		}
		if err := b.upsertVectors(ctx, b.g.relVDB, rows); err != nil {
			return err
		}
	}
	return nil
}

// upsertVectors embeds the rows' Content and upserts them with the clock's
// time, as NanoVectorDBStorage.upsert does.
func (b *builder) upsertVectors(ctx context.Context, store *vectorStore, rows []vectorRow) error {
	ts := b.now()
	texts := make([]string, len(rows))
	for i, r := range rows {
		texts[i] = r.Content
	}
	vecs, err := embedTexts(ctx, b.emb, b.o.EmbeddingModel, texts, b.o.EmbeddingBatch, b.o.EmbeddingMaxAsync, b.recordEmbed)
	if err != nil {
		return err
	}
	for i := range rows {
		if b.dims == 0 {
			b.dims = len(vecs[i])
		}
		if len(vecs[i]) != b.dims {
			return fmt.Errorf("graphrag: embeddings (model %s): a vector of %d dimensions after vectors of %d", b.o.EmbeddingModel, len(vecs[i]), b.dims)
		}
		rows[i].Vector, rows[i].CreatedAt = vecs[i], ts
	}
	store.upsert(rows)
	return nil
}

// sortedSet returns the distinct items sorted (Python sorted(set(...))).
func sortedSet(items []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range items {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

// majority returns the most frequent item, ties to the first seen
// (sorted(Counter(items).items(), key=count, reverse=True)[0][0]).
func majority(items []string) string {
	count := map[string]int{}
	var order []string
	for _, s := range items {
		if count[s] == 0 {
			order = append(order, s)
		}
		count[s]++
	}
	best := ""
	for i, s := range order {
		if i == 0 || count[s] > count[best] {
			best = s
		}
	}
	return best
}

// mergeNode is _merge_nodes_then_upsert (operate.py:233-321).
func (b *builder) mergeNode(ctx context.Context, name string, recs []entityRecord) (Entity, error) {
	var types, descs, sources, files []string
	for _, r := range recs {
		types = append(types, r.Type)
		descs = append(descs, r.Description)
		sources = append(sources, r.SourceID)
		files = append(files, r.FilePath)
	}
	if old := b.g.node(name); old != nil {
		types = append(types, old.Type)
		sources = append(sources, splitByMarkers(old.SourceID, []string{GraphFieldSep})...)
		files = append(files, splitByMarkers(old.FilePath, []string{GraphFieldSep})...)
		descs = append(descs, old.Description) // the stored text counts as one item
	}
	e := Entity{
		Name:        name,
		Type:        majority(types),
		Description: strings.Join(sortedSet(descs), GraphFieldSep),
		SourceID:    strings.Join(sortedSet(sources), GraphFieldSep),
		FilePath:    strings.Join(sortedSet(files), GraphFieldSep),
	}
	var err error
	if e.Description, err = b.maybeSummarize(ctx, name, e.Description); err != nil {
		return e, err
	}
	b.g.upsertNode(e)
	return e, nil
}

// nonEmpty returns the non-empty items.
func nonEmpty(items []string) []string {
	var out []string
	for _, s := range items {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// mergeEdge is _merge_edges_then_upsert (operate.py:324-467): weights summed,
// descriptions and keywords as sorted sets, missing endpoints created as
// UNKNOWN nodes with the edge's description and sources.
func (b *builder) mergeEdge(ctx context.Context, src, tgt string, recs []relationRecord) (Relation, error) {
	var descs, kws, sources, files []string
	weight := 0.0
	for _, r := range recs {
		weight += r.Weight
		descs = append(descs, r.Description)
		kws = append(kws, r.Keywords)
		sources = append(sources, r.SourceID)
		files = append(files, r.FilePath)
	}
	descs, kws, sources, files = nonEmpty(descs), nonEmpty(kws), nonEmpty(sources), nonEmpty(files)
	if old := b.g.edges[sortedPair(src, tgt)]; old != nil {
		weight += old.Weight
		sources = append(sources, splitByMarkers(old.SourceID, []string{GraphFieldSep})...)
		files = append(files, splitByMarkers(old.FilePath, []string{GraphFieldSep})...)
		descs = append(descs, old.Description)
		kws = append(kws, splitByMarkers(old.Keywords, []string{GraphFieldSep})...)
	}
	r := Relation{
		Source: src, Target: tgt, Weight: weight,
		Description: strings.Join(sortedSet(descs), GraphFieldSep),
		Keywords:    strings.Join(sortedSet(kws), GraphFieldSep),
		SourceID:    strings.Join(sortedSet(sources), GraphFieldSep),
		FilePath:    strings.Join(sortedSet(files), GraphFieldSep),
	}
	for _, n := range []string{src, tgt} {
		if b.g.node(n) == nil {
			b.g.upsertNode(Entity{Name: n, Type: "UNKNOWN", Description: r.Description, SourceID: r.SourceID, FilePath: r.FilePath})
		}
	}
	var err error
	if r.Description, err = b.maybeSummarize(ctx, "("+src+", "+tgt+")", r.Description); err != nil {
		return r, err
	}
	b.g.upsertEdge(r)
	return r, nil
}

// maybeSummarize applies the 1.3.2+ summary rule (operate.py:282-300,
// 423-441): with n = fragments of description, n > 1 and n ≥
// ForceLLMSummaryOnMerge send summarize_entity_descriptions.
func (b *builder) maybeSummarize(ctx context.Context, name, description string) (string, error) {
	n := strings.Count(description, GraphFieldSep) + 1
	if n <= 1 || n < b.o.ForceLLMSummaryOnMerge {
		return description, nil
	}
	return b.summarize(ctx, name, description)
}

// summaryPrompt fills summarize_entity_descriptions as
// _handle_entity_relation_summary does (operate.py:106-148): the
// description cut to LLMMaxTokenSize tokens, split on <SEP> (empty pieces
// kept) and written as a Python list repr.
func summaryPrompt(p *Prompts, tok Tokenizer, maxTokens int, language, name, description string) (string, error) {
	use := description
	if ids := tok.Encode(description); len(ids) > maxTokens {
		use = tok.Decode(ids[:maxTokens])
	}
	prompt, err := pystr.Format(p.SummarizeDescriptions, map[string]string{
		"entity_name":      name,
		"description_list": pystr.ReprList(strings.Split(use, GraphFieldSep)),
		"language":         language,
	})
	if err != nil {
		return "", fmt.Errorf("graphrag: summarize_entity_descriptions: %w", err)
	}
	return prompt, nil
}

func (b *builder) summarize(ctx context.Context, name, description string) (string, error) {
	prompt, err := summaryPrompt(b.o.Prompts, b.o.Tokenizer, b.o.LLMMaxTokenSize, b.o.Language, name, description)
	if err != nil {
		return "", err
	}
	key := md5Hex(prompt)
	if a, ok := b.j.summary(key); ok {
		b.stats.SummariesFromJournal++
		return a, nil
	}
	maxTok := b.o.SummaryMaxTokens
	a, err := b.call.complete(ctx, CallSummary, []llm.Message{llm.User(prompt)}, llm.CallOptions{MaxTokens: &maxTok})
	if err != nil {
		return "", err
	}
	if err := b.j.addSummary(key, a); err != nil {
		return "", err
	}
	return a, nil
}

// Estimate is what EstimateIndex predicts of a Build, for -dry-run.
type Estimate struct {
	Documents int
	Chunks    int // distinct chunks
	// ExtractionCalls is Chunks × (1 + gleaning passes), exact.
	ExtractionCalls int
	// SummaryCalls is a rough guess, not a bound: one per two chunks. The
	// true count depends on how often entity names recur across
	// documents (a summary is sent each time a merged description reaches
	// ForceLLMSummaryOnMerge fragments).
	SummaryCalls int
	Calls        int // ExtractionCalls + SummaryCalls
	// PromptTokens counts the extraction prompts and the known part of the
	// gleaning prompts (extraction prompt + continue prompt; the first
	// answer they also carry is unknown), summaries excluded. Each prompt
	// is counted as template tokens plus chunk tokens, which can differ
	// from the joined text's count by a few tokens per prompt.
	PromptTokens int64
	// EmbeddedTexts counts the chunk texts; entity and relation texts,
	// unknown before extraction, come on top.
	EmbeddedTexts int
}

// EstimateIndex chunks docs as Build would and predicts its calls and
// prompt tokens. It makes no call and reads no index directory.
func EstimateIndex(docs []Document, opts IndexOptions) (*Estimate, error) {
	o, err := opts.withDefaults(nil)
	if err != nil {
		return nil, err
	}
	ds, _, err := intake(docs)
	if err != nil {
		return nil, err
	}
	b := &builder{o: o}
	ctxMap, err := o.Prompts.extractionContext(o.Language, o.EntityTypes)
	if err != nil {
		return nil, err
	}
	empty, err := extractionPrompt(o.Prompts.EntityExtraction, ctxMap, "")
	if err != nil {
		return nil, err
	}
	cont, err := pystr.Format(o.Prompts.EntityContinueExtraction, ctxMap)
	if err != nil {
		return nil, err
	}
	tmplTok, contTok := int64(o.Tokenizer.Count(empty)), int64(o.Tokenizer.Count(cont))
	est := &Estimate{Documents: len(ds)}
	seen := map[string]bool{}
	for _, d := range ds {
		for _, c := range b.docChunks(d) {
			if seen[c.ID] {
				continue
			}
			seen[c.ID] = true
			est.Chunks++
			p := tmplTok + int64(o.Tokenizer.Count(c.Content))
			est.PromptTokens += p
			for range o.Gleaning {
				p += contTok
				est.PromptTokens += p
			}
		}
	}
	est.EmbeddedTexts = est.Chunks
	est.ExtractionCalls = est.Chunks * (1 + o.Gleaning)
	est.SummaryCalls = (est.Chunks + 1) / 2
	est.Calls = est.ExtractionCalls + est.SummaryCalls
	return est, nil
}
