package graphrag

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mattools-leaderboard/leaderboard/internal/pystr"
	"github.com/mattools-leaderboard/leaderboard/llm"
)

// Query modes (docs/graphrag.md §3.1; base.py:38).
const (
	ModeLocal  = "local"
	ModeGlobal = "global" // LightRAG's default
	ModeHybrid = "hybrid"
	ModeNaive  = "naive"
	ModeMix    = "mix"
)

// Query defaults of LightRAG 1.3.3 (docs/graphrag.md §5).
const (
	DefaultTopK            = 60                    // #19
	DefaultMaxTokens       = 4000                  // #20–22, each budget
	DefaultCosineThreshold = 0.2                   // #15
	DefaultResponseType    = "Multiple Paragraphs" // #23
	mixTopK                = 10                    // #25: min(10, top_k)
)

// QueryParam is LightRAG's QueryParam (base.py:34-92), without
// conversation history, streaming, ids and a custom model function. Zero
// values take the defaults.
type QueryParam struct {
	// Prompts are the prompt texts (LoadPrompts); required.
	Prompts *Prompts
	// Mode is local, global, hybrid, naive or mix; "" means global.
	Mode string
	// TopK is the number of entities (local), relations (global) or chunks
	// (naive) searched (60); mix's chunk search takes min(10, TopK).
	TopK int
	// MaxTokenForTextUnit, MaxTokenForGlobalContext and
	// MaxTokenForLocalContext are the budgets, in tokens of one field, of
	// chunk contents, relation descriptions and entity descriptions (4000
	// each).
	MaxTokenForTextUnit      int
	MaxTokenForGlobalContext int
	MaxTokenForLocalContext  int
	// CosineThreshold cuts the vector searches (0.2); nil means the default.
	CosineThreshold *float64
	// ResponseType fills {response_type}; "" means "Multiple Paragraphs".
	ResponseType string
	// OnlyContext returns the context without the answer call (LightRAG's
	// only_need_context).
	OnlyContext bool
	// HLKeywords and LLKeywords, when either is non-empty, are used instead
	// of the keyword call (LightRAG's hl_keywords / ll_keywords).
	HLKeywords, LLKeywords []string
	// Location formats created_at times (LightRAG: the process's local
	// time zone); nil means time.Local.
	Location *time.Location
	// Tokenizer overrides the graph's tokenizer for the budgets.
	Tokenizer Tokenizer
	// KeepUnicodeEscapes: see IndexOptions.
	KeepUnicodeEscapes bool
}

// QueryResult is the outcome of one Query.
type QueryResult struct {
	// Mode is the mode asked for; EffectiveMode the one whose context was
	// built after LightRAG's fallbacks (an empty low-level list turns local
	// and hybrid into global, an empty high-level list global and hybrid
	// into local; mix picks local, global or hybrid from which lists are
	// non-empty). Naive has no keywords.
	Mode, EffectiveMode string
	// HLKeywords and LLKeywords are the keyword lists (high level for
	// relations, low level for entities), from the model or from QueryParam.
	HLKeywords, LLKeywords []string
	// KeywordsAnswer is the raw answer of the keyword call ("" without one).
	KeywordsAnswer string
	// Context is what LightRAG's only_need_context returns: the three
	// tables (local, global, hybrid), the chunks (naive), or mix's two
	// parts; "" when nothing was found.
	Context string
	// SystemPrompt is the answer call's system prompt ("" without one).
	SystemPrompt string
	// Answer is the answer after LightRAG's post-processing (§3.7), or
	// the fail_response text when Failed. "" with OnlyContext.
	Answer string
	// RawAnswer is the model's answer before that post-processing.
	RawAnswer string
	// Failed is set when LightRAG answers fail_response: both keyword lists
	// empty or unparseable, or nothing found.
	Failed bool
	// The selected items, in context order: entity names, relation pairs
	// (sorted endpoints) and chunk ids. Hybrid and mix list the global
	// path's first, then the local path's new ones; mix's vector chunks are
	// in VectorChunkIDs.
	EntityNames    []string
	RelationPairs  [][2]string
	ChunkIDs       []string
	VectorChunkIDs []string
	// Calls lists every LLM and embeddings request of this query, in order
	// of completion.
	Calls []Call
}

// queryRun holds one Query's state.
type queryRun struct {
	g         *Graph
	p         QueryParam
	emb       Embedder
	call      *caller
	tok       Tokenizer
	threshold float64
	res       *QueryResult
}

// Query answers question over g as LightRAG 1.3.3's aquery does (docs/graphrag.md
// §3; lightrag.py:1303-1372, operate.py:781-2019): the question is stripped;
// local, global and hybrid ask for keywords, search the entity and/or
// relation vectors, build the CSV context and ask rag_response; naive
// searches the chunk vectors and asks naive_rag_response; mix adds chunk
// vectors to the hybrid context and asks mix_rag_response. The query texts
// are embedded with the graph's embedding model (its manifest). LightRAG's
// query cache is not reproduced: every Query calls the model.
//
// Errors are failed calls (wrapped), an unknown mode, or a missing prompt
// set; nothing found is not an error but a Failed result.
func Query(ctx context.Context, g *Graph, question string, p QueryParam, model LLM, emb Embedder) (*QueryResult, error) {
	if p.Prompts == nil {
		return nil, errors.New("graphrag: QueryParam.Prompts is nil (LoadPrompts)")
	}
	if g.Manifest.EmbeddingModel == "" {
		return nil, errors.New("graphrag: the graph's manifest names no embedding model")
	}
	if p.Mode == "" {
		p.Mode = ModeGlobal
	}
	if p.TopK == 0 {
		p.TopK = DefaultTopK
	}
	for _, v := range []*int{&p.MaxTokenForTextUnit, &p.MaxTokenForGlobalContext, &p.MaxTokenForLocalContext} {
		if *v == 0 {
			*v = DefaultMaxTokens
		}
	}
	if p.ResponseType == "" {
		p.ResponseType = DefaultResponseType
	}
	q := &queryRun{g: g, p: p, emb: emb, call: newCaller(model, DefaultMaxAsync, p.KeepUnicodeEscapes), tok: p.Tokenizer,
		threshold: DefaultCosineThreshold, res: &QueryResult{Mode: p.Mode}}
	if q.tok == nil {
		q.tok = g.tok
	}
	if p.CosineThreshold != nil {
		q.threshold = *p.CosineThreshold
	}
	question = pystr.Strip(question)
	var err error
	switch p.Mode {
	case ModeLocal, ModeGlobal, ModeHybrid:
		err = q.kgQuery(ctx, question)
	case ModeNaive:
		err = q.naiveQuery(ctx, question)
	case ModeMix:
		err = q.mixQuery(ctx, question)
	default:
		return nil, fmt.Errorf("graphrag: unknown query mode %q (want local, global, hybrid, naive or mix)", p.Mode)
	}
	q.res.Calls = q.call.taken()
	if err != nil {
		return nil, err
	}
	return q.res, nil
}

func (q *queryRun) fail() {
	q.res.Failed = true
	q.res.Answer = q.p.Prompts.FailResponse
}

// keywords returns the keyword lists: QueryParam's when either is set
// (get_keywords_from_query), else the model's (extract_keywords_only,
// operate.py:938-1034): keywords_extraction as one user message, the answer
// parsed from its first "{" to its last "}". No JSON, invalid JSON or a
// missing key give empty lists.
func (q *queryRun) keywords(ctx context.Context, question string) (hl, ll []string, err error) {
	if len(q.p.HLKeywords) > 0 || len(q.p.LLKeywords) > 0 {
		return q.p.HLKeywords, q.p.LLKeywords, nil
	}
	prompt, err := pystr.Format(q.p.Prompts.KeywordsExtraction, map[string]string{
		"query": question, "examples": q.p.Prompts.KeywordsExamples, "language": q.p.Prompts.Language, "history": "",
	})
	if err != nil {
		return nil, nil, fmt.Errorf("graphrag: keywords_extraction: %w", err)
	}
	ans, err := q.call.complete(ctx, CallKeywords, []llm.Message{llm.User(prompt)}, llm.CallOptions{})
	if err != nil {
		return nil, nil, err
	}
	q.res.KeywordsAnswer = ans
	hl, ll = parseKeywords(ans)
	return hl, ll, nil
}

// parseKeywords is step 6 of extract_keywords_only: re.search(r"\{.*\}",
// s, re.DOTALL), json.loads, .get(key, []). Values that are not lists of
// strings count as empty lists.
func parseKeywords(s string) (hl, ll []string) {
	i, j := strings.IndexByte(s, '{'), strings.LastIndexByte(s, '}')
	if i < 0 || j < i {
		return nil, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s[i:j+1]), &m); err != nil {
		return nil, nil
	}
	list := func(k string) []string {
		var l []string
		if err := json.Unmarshal(m[k], &l); err != nil {
			return nil
		}
		return l
	}
	return list("high_level_keywords"), list("low_level_keywords")
}

// kgQuery is kg_query (operate.py:781-903).
func (q *queryRun) kgQuery(ctx context.Context, question string) error {
	hl, ll, err := q.keywords(ctx, question)
	if err != nil {
		return err
	}
	q.res.HLKeywords, q.res.LLKeywords = hl, ll
	if len(hl) == 0 && len(ll) == 0 {
		q.fail()
		return nil
	}
	mode := q.p.Mode
	if len(ll) == 0 && (mode == ModeLocal || mode == ModeHybrid) {
		mode = ModeGlobal
	}
	if len(hl) == 0 && (mode == ModeGlobal || mode == ModeHybrid) {
		mode = ModeLocal
	}
	q.res.EffectiveMode = mode
	context, found, err := q.buildContext(ctx, mode, strings.Join(ll, ", "), strings.Join(hl, ", "))
	if err != nil {
		return err
	}
	if found {
		q.res.Context = context
	}
	if q.p.OnlyContext {
		return nil
	}
	if !found {
		q.fail()
		return nil
	}
	sys, err := pystr.Format(q.p.Prompts.RAGResponse, map[string]string{
		"context_data": context, "response_type": q.p.ResponseType, "history": "",
	})
	if err != nil {
		return fmt.Errorf("graphrag: rag_response: %w", err)
	}
	return q.answer(ctx, sys, question, false)
}

// answer sends the answer call (system = sys, user = question) and applies
// LightRAG's post-processing: an answer longer than the system prompt (in
// code points) loses every occurrence of the system prompt, "user",
// "model", the question, "<system>" and "</system>", and is stripped;
// naive mode first drops its first len(system prompt) code points.
func (q *queryRun) answer(ctx context.Context, sys, question string, naive bool) error {
	q.res.SystemPrompt = sys
	raw, err := q.call.complete(ctx, CallAnswer, []llm.Message{{Role: "system", Content: sys}, llm.User(question)}, llm.CallOptions{})
	if err != nil {
		return err
	}
	q.res.RawAnswer = raw
	resp := raw
	if n := pyLen(sys); pyLen(resp) > n {
		if naive {
			resp = string([]rune(resp)[n:])
		}
		for _, s := range []string{sys, "user", "model", question, "<system>", "</system>"} {
			if s != "" {
				resp = strings.ReplaceAll(resp, s, "")
			}
		}
		resp = pystr.Strip(resp)
	}
	q.res.Answer = resp
	return nil
}

// tables are the three context tables of one retrieval path as rows of
// fields (the first row is the header).
type tables struct {
	entities, relations, sources [][]string
	// the selected items, in table order
	entityNames []string
	pairs       [][2]string
	chunkIDs    []string
}

// buildContext is _build_query_context (operate.py:1256-1333). found is
// false when LightRAG returns None (no entity and no relation table).
func (q *queryRun) buildContext(ctx context.Context, mode, ll, hl string) (string, bool, error) {
	var ent, rel, src string
	switch mode {
	case ModeLocal:
		t, ok, err := q.nodeData(ctx, ll)
		if err != nil {
			return "", false, err
		}
		if ok {
			ent, rel, src = csvRows(t.entities), csvRows(t.relations), csvRows(t.sources)
			q.selected(t)
		}
	case ModeGlobal:
		t, ok, err := q.edgeData(ctx, hl)
		if err != nil {
			return "", false, err
		}
		if ok {
			ent, rel, src = csvRows(t.entities), csvRows(t.relations), csvRows(t.sources)
			q.selected(t)
		}
	default: // hybrid
		lt, lok, err := q.nodeData(ctx, ll)
		if err != nil {
			return "", false, err
		}
		gt, gok, err := q.edgeData(ctx, hl)
		if err != nil {
			return "", false, err
		}
		var lo, gl tables
		if lok {
			lo = lt
		}
		if gok {
			gl = gt
		}
		ent = combineContexts(gl.entities, lo.entities)
		rel = combineContexts(gl.relations, lo.relations)
		src = combineContexts(gl.sources, lo.sources)
		q.selected(gl)
		q.selected(lo)
	}
	if pystr.Strip(ent) == "" && pystr.Strip(rel) == "" {
		return "", false, nil
	}
	return contextString(ent, rel, src), true, nil
}

// contextString fills the result template of _build_query_context: an
// indented triple-quoted f-string stripped at its ends, so every line after
// the first keeps 4 spaces of indentation.
func contextString(ent, rel, src string) string {
	s := "\n    -----Entities-----\n    ```csv\n    " + ent + "\n    ```\n    -----Relationships-----\n    ```csv\n    " + rel +
		"\n    ```\n    -----Sources-----\n    ```csv\n    " + src + "\n    ```\n    "
	return pystr.Strip(s)
}

// selected appends t's items to the result, skipping ones already listed.
func (q *queryRun) selected(t tables) {
	has := map[string]bool{}
	for _, n := range q.res.EntityNames {
		has[n] = true
	}
	for _, n := range t.entityNames {
		if !has[n] {
			has[n] = true
			q.res.EntityNames = append(q.res.EntityNames, n)
		}
	}
	hp := map[[2]string]bool{}
	for _, p := range q.res.RelationPairs {
		hp[p] = true
	}
	for _, p := range t.pairs {
		if !hp[p] {
			hp[p] = true
			q.res.RelationPairs = append(q.res.RelationPairs, p)
		}
	}
	hc := map[string]bool{}
	for _, c := range q.res.ChunkIDs {
		hc[c] = true
	}
	for _, c := range t.chunkIDs {
		if !hc[c] {
			hc[c] = true
			q.res.ChunkIDs = append(q.res.ChunkIDs, c)
		}
	}
}

// combineContexts is process_combine_contexts (utils.py:475-509) applied to
// the tables as rows: LightRAG parses its own CSV back, which gives these
// fields again (NUL characters removed). Each row loses its id and its
// fields are joined by a bare ","; rows are deduplicated as strings, hl
// (global) rows first; the result is a header joined by ",\t" and rows
// "i,\t<fields>" from 1, joined by "\n", with no final newline; "" when
// both tables are empty.
func combineContexts(hl, ll [][]string) string {
	var header []string
	if len(hl) > 0 {
		header = hl[0]
	}
	if len(ll) > 0 {
		header = ll[0]
	}
	if header == nil {
		return ""
	}
	var items []string
	seen := map[string]bool{}
	for _, rows := range [][][]string{hl, ll} {
		if len(rows) == 0 {
			continue
		}
		for _, row := range rows[1:] {
			if len(row) == 0 {
				continue
			}
			fields := make([]string, len(row)-1)
			for i, f := range row[1:] {
				fields[i] = strings.ReplaceAll(f, "\x00", "")
			}
			item := strings.Join(fields, ",")
			if item != "" && !seen[item] {
				seen[item] = true
				items = append(items, item)
			}
		}
	}
	hdr := make([]string, len(header))
	for i, h := range header {
		hdr[i] = strings.ReplaceAll(h, "\x00", "")
	}
	lines := []string{strings.Join(hdr, ",\t")}
	for i, it := range items {
		lines = append(lines, strconv.Itoa(i+1)+",\t"+it)
	}
	return strings.Join(lines, "\n")
}

// search embeds text with the graph's embedding model and queries store.
func (q *queryRun) search(ctx context.Context, store *vectorStore, text string, topK int) ([]scored, error) {
	vecs, err := embedTexts(ctx, q.emb, q.g.Manifest.EmbeddingModel, []string{text}, 1, 1, q.call.record)
	if err != nil {
		return nil, err
	}
	if d := q.g.Manifest.EmbeddingDims; d > 0 && len(vecs[0]) != d {
		// numpy would raise; a dot product over the shorter vector is meaningless.
		return nil, fmt.Errorf("graphrag: the query embedding has %d dimensions, the index's vectors %d (another embeddings endpoint or model?)", len(vecs[0]), d)
	}
	return store.query(vecs[0], topK, q.threshold), nil
}

// truncate is truncate_list_by_token_size (utils.py:363-374): the longest
// prefix whose cumulative tokens of key stay ≤ max; nothing when max ≤ 0.
func truncate[T any](tok Tokenizer, items []T, key func(T) string, max int) []T {
	if max <= 0 {
		return nil
	}
	n := 0
	for i, it := range items {
		n += tok.Count(key(it))
		if n > max {
			return items[:i]
		}
	}
	return items
}

// nodeHit is an entity of the local path.
type nodeHit struct {
	e    *Entity
	rank int
}

// edgeHit is a relation of either path.
type edgeHit struct {
	r         *Relation
	src, tgt  string
	rank      int
	createdAt *float64 // global path: the vector row's time
}

// nodeData is _get_node_data (operate.py:1336-1474).
func (q *queryRun) nodeData(ctx context.Context, keywords string) (tables, bool, error) {
	hits, err := q.search(ctx, q.g.entVDB, keywords, q.p.TopK)
	if err != nil || len(hits) == 0 {
		return tables{}, false, err
	}
	var nodes []nodeHit
	for _, h := range hits {
		if n := q.g.node(h.row.EntityName); n != nil {
			nodes = append(nodes, nodeHit{e: n, rank: q.g.degree(n.Name)})
		}
	}
	units := q.textUnitsFromEntities(nodes)
	edges := q.edgesFromEntities(nodes)
	nodes = truncate(q.tok, nodes, func(n nodeHit) string { return n.e.Description }, q.p.MaxTokenForLocalContext)

	t := tables{entities: [][]string{{"id", "entity", "type", "description", "rank", "created_at", "file_path"}}}
	for i, n := range nodes {
		t.entities = append(t.entities, []string{strconv.Itoa(i), n.e.Name, n.e.Type, n.e.Description, strconv.Itoa(n.rank), "UNKNOWN", n.e.FilePath})
		t.entityNames = append(t.entityNames, n.e.Name)
	}
	t.relations = [][]string{{"id", "source", "target", "description", "keywords", "weight", "rank", "created_at", "file_path"}}
	for i, e := range edges {
		t.relations = append(t.relations, []string{strconv.Itoa(i), e.src, e.tgt, e.r.Description, e.r.Keywords,
			reprFloat(e.r.Weight), strconv.Itoa(e.rank), "UNKNOWN", e.r.FilePath})
		t.pairs = append(t.pairs, [2]string{e.src, e.tgt})
	}
	t.sources = [][]string{{"id", "content", "file_path"}}
	for i, c := range units {
		t.sources = append(t.sources, []string{strconv.Itoa(i), c.Content, c.FilePath})
		t.chunkIDs = append(t.chunkIDs, c.ID)
	}
	return t, true, nil
}

// textUnitsFromEntities is _find_most_related_text_unit_from_entities
// (operate.py:1477-1578): each chunk belongs to the first entity citing it
// (order), counts that entity's edges to neighbours that also cite it
// (relation_counts), sorted by (order, −relation_counts), truncated by
// content.
func (q *queryRun) textUnitsFromEntities(nodes []nodeHit) []*Chunk {
	oneHop := map[string]map[string]bool{}
	for _, n := range nodes {
		for _, e := range q.g.nodeEdges(n.e.Name) {
			if _, ok := oneHop[e[1]]; ok {
				continue
			}
			if nb := q.g.node(e[1]); nb != nil {
				set := map[string]bool{}
				for _, c := range splitByMarkers(nb.SourceID, []string{GraphFieldSep}) {
					set[c] = true
				}
				oneHop[e[1]] = set
			}
		}
	}
	type unit struct {
		c              *Chunk
		order, related int
	}
	seen := map[string]bool{}
	var units []unit
	for i, n := range nodes {
		edges := q.g.nodeEdges(n.e.Name)
		for _, cid := range splitByMarkers(n.e.SourceID, []string{GraphFieldSep}) {
			if seen[cid] {
				continue
			}
			seen[cid] = true
			c := q.g.chunk(cid)
			related := 0
			for _, e := range edges {
				if oneHop[e[1]][cid] {
					related++
				}
			}
			if c != nil {
				units = append(units, unit{c: c, order: i, related: related})
			}
		}
	}
	sort.SliceStable(units, func(a, b int) bool {
		if units[a].order != units[b].order {
			return units[a].order < units[b].order
		}
		return units[a].related > units[b].related
	})
	units = truncate(q.tok, units, func(u unit) string { return u.c.Content }, q.p.MaxTokenForTextUnit)
	out := make([]*Chunk, len(units))
	for i, u := range units {
		out[i] = u.c
	}
	return out
}

// edgesFromEntities is _find_most_related_edges_from_entities
// (operate.py:1581-1637): every edge of the entities once (as sorted
// pairs, in adjacency order), sorted by (edge degree, weight) descending,
// truncated by description.
func (q *queryRun) edgesFromEntities(nodes []nodeHit) []edgeHit {
	seen := map[pair]bool{}
	var out []edgeHit
	for _, n := range nodes {
		for _, e := range q.g.nodeEdges(n.e.Name) {
			k := sortedPair(e[0], e[1])
			if seen[k] {
				continue
			}
			seen[k] = true
			if r := q.g.edges[k]; r != nil {
				out = append(out, edgeHit{r: r, src: k[0], tgt: k[1], rank: q.g.edgeDegree(k[0], k[1])})
			}
		}
	}
	sortEdges(out)
	return truncate(q.tok, out, func(e edgeHit) string { return e.r.Description }, q.p.MaxTokenForGlobalContext)
}

// sortEdges sorts by (rank, weight) descending, stably (Python's sorted
// with reverse=True keeps equal items in order).
func sortEdges(es []edgeHit) {
	sort.SliceStable(es, func(a, b int) bool {
		if es[a].rank != es[b].rank {
			return es[a].rank > es[b].rank
		}
		return es[a].r.Weight > es[b].r.Weight
	})
}

// edgeData is _get_edge_data (operate.py:1640-1772).
func (q *queryRun) edgeData(ctx context.Context, keywords string) (tables, bool, error) {
	hits, err := q.search(ctx, q.g.relVDB, keywords, q.p.TopK)
	if err != nil || len(hits) == 0 {
		return tables{}, false, err
	}
	var edges []edgeHit
	for _, h := range hits {
		if r := q.g.edges[sortedPair(h.row.SrcID, h.row.TgtID)]; r != nil {
			ts := h.row.CreatedAt
			edges = append(edges, edgeHit{r: r, src: h.row.SrcID, tgt: h.row.TgtID, rank: q.g.edgeDegree(h.row.SrcID, h.row.TgtID), createdAt: &ts})
		}
	}
	sortEdges(edges)
	edges = truncate(q.tok, edges, func(e edgeHit) string { return e.r.Description }, q.p.MaxTokenForGlobalContext)

	// Entities: the endpoints in order of first appearance.
	var nodes []nodeHit
	seen := map[string]bool{}
	for _, e := range edges {
		for _, name := range []string{e.src, e.tgt} {
			if seen[name] {
				continue
			}
			seen[name] = true
			if n := q.g.node(name); n != nil {
				nodes = append(nodes, nodeHit{e: n, rank: q.g.degree(name)})
			}
		}
	}
	nodes = truncate(q.tok, nodes, func(n nodeHit) string { return n.e.Description }, q.p.MaxTokenForLocalContext)

	// Chunks: by the index of the first edge citing them.
	var units []*Chunk
	seenC := map[string]bool{}
	for _, e := range edges {
		for _, cid := range splitByMarkers(e.r.SourceID, []string{GraphFieldSep}) {
			if seenC[cid] {
				continue
			}
			if c := q.g.chunk(cid); c != nil {
				seenC[cid] = true
				units = append(units, c)
			}
		}
	}
	units = truncate(q.tok, units, func(c *Chunk) string { return c.Content }, q.p.MaxTokenForTextUnit)

	t := tables{relations: [][]string{{"id", "source", "target", "description", "keywords", "weight", "rank", "created_at", "file_path"}}}
	for i, e := range edges {
		created := ""
		if e.createdAt != nil {
			created = pyTime(*e.createdAt, q.p.Location)
		}
		t.relations = append(t.relations, []string{strconv.Itoa(i), e.src, e.tgt, e.r.Description, e.r.Keywords,
			reprFloat(e.r.Weight), strconv.Itoa(e.rank), created, e.r.FilePath})
		t.pairs = append(t.pairs, [2]string{e.src, e.tgt})
	}
	t.entities = [][]string{{"id", "entity", "type", "description", "rank", "created_at", "file_path"}}
	for i, n := range nodes {
		t.entities = append(t.entities, []string{strconv.Itoa(i), n.e.Name, n.e.Type, n.e.Description, strconv.Itoa(n.rank), "Unknown", n.e.FilePath})
		t.entityNames = append(t.entityNames, n.e.Name)
	}
	t.sources = [][]string{{"id", "content", "file_path"}}
	for i, c := range units {
		t.sources = append(t.sources, []string{strconv.Itoa(i), c.Content, c.FilePath})
		t.chunkIDs = append(t.chunkIDs, c.ID)
	}
	return t, true, nil
}

// chunkHit is a chunk found by vector search.
type chunkHit struct {
	c   *Chunk
	row *vectorRow
}

// vectorChunks searches the chunk vectors and keeps the hits still in the
// chunk store, truncated by content.
func (q *queryRun) vectorChunks(ctx context.Context, text string, topK int) ([]chunkHit, error) {
	hits, err := q.search(ctx, q.g.chunkVDB, text, topK)
	if err != nil {
		return nil, err
	}
	var out []chunkHit
	for _, h := range hits {
		if c := q.g.chunk(h.row.ID); c != nil {
			out = append(out, chunkHit{c: c, row: h.row})
		}
	}
	return truncate(q.tok, out, func(h chunkHit) string { return h.c.Content }, q.p.MaxTokenForTextUnit), nil
}

// naiveQuery is naive_query (operate.py:1893-1972): no keyword call; the
// question searches the chunk vectors; chunks as "File path: …\n<content>"
// joined by "\n--New Chunk--\n" in naive_rag_response.
func (q *queryRun) naiveQuery(ctx context.Context, question string) error {
	q.res.EffectiveMode = ModeNaive
	hits, err := q.vectorChunks(ctx, question, q.p.TopK)
	if err != nil {
		return err
	}
	if len(hits) == 0 {
		q.fail()
		return nil
	}
	parts := make([]string, len(hits))
	for i, h := range hits {
		parts[i] = "File path: " + h.c.FilePath + "\n" + h.c.Content
		q.res.ChunkIDs = append(q.res.ChunkIDs, h.c.ID)
	}
	section := strings.Join(parts, "\n--New Chunk--\n")
	q.res.Context = section
	if q.p.OnlyContext {
		return nil
	}
	sys, err := pystr.Format(q.p.Prompts.NaiveRAGResponse, map[string]string{
		"content_data": section, "response_type": q.p.ResponseType, "history": "",
	})
	if err != nil {
		return fmt.Errorf("graphrag: naive_rag_response: %w", err)
	}
	return q.answer(ctx, sys, question, true)
}

// mixQuery is mix_kg_vector_query (operate.py:1037-1253): the KG part (mode
// picked from the non-empty keyword lists) and up to min(10, TopK) vector
// chunks, each "[Created at: …]\nFile path: …\n<content>", in
// mix_rag_response. Unlike LightRAG, which logs and drops an exception of
// either part, a failed call is returned as an error.
func (q *queryRun) mixQuery(ctx context.Context, question string) error {
	var kg string
	kgFound := false
	hl, ll, err := q.keywords(ctx, question)
	if err != nil {
		return err
	}
	q.res.HLKeywords, q.res.LLKeywords = hl, ll
	if len(hl) > 0 || len(ll) > 0 {
		mode := ModeHybrid
		if len(ll) == 0 {
			mode = ModeGlobal
		} else if len(hl) == 0 {
			mode = ModeLocal
		}
		q.res.EffectiveMode = mode
		kg, kgFound, err = q.buildContext(ctx, mode, strings.Join(ll, ", "), strings.Join(hl, ", "))
		if err != nil {
			return err
		}
	}
	hits, err := q.vectorChunks(ctx, question, min(mixTopK, q.p.TopK))
	if err != nil {
		return err
	}
	var vec string
	if len(hits) > 0 {
		parts := make([]string, len(hits))
		for i, h := range hits {
			text := "File path: " + h.row.FilePath + "\n" + h.c.Content
			if h.row.CreatedAt != 0 {
				text = "[Created at: " + pyTime(h.row.CreatedAt, q.p.Location) + "]\n" + text
			}
			parts[i] = text
			q.res.VectorChunkIDs = append(q.res.VectorChunkIDs, h.c.ID)
		}
		vec = strings.Join(parts, "\n--New Chunk--\n")
	}
	if !kgFound && vec == "" {
		q.fail()
		return nil
	}
	kgText, vecText := kg, vec
	if !kgFound {
		kgText = "No relevant knowledge graph information found"
	}
	if vec == "" {
		vecText = "No relevant text information found"
	}
	q.res.Context = pystr.Strip("\n        -----Knowledge Graph Context-----\n        " + kgText +
		"\n\n        -----Vector Context-----\n        " + vecText + "\n        ")
	if q.p.OnlyContext {
		return nil
	}
	sys, err := pystr.Format(q.p.Prompts.MixRAGResponse, map[string]string{
		"kg_context": kgText, "vector_context": vecText, "response_type": q.p.ResponseType, "history": "",
	})
	if err != nil {
		return fmt.Errorf("graphrag: mix_rag_response: %w", err)
	}
	return q.answer(ctx, sys, question, false)
}
