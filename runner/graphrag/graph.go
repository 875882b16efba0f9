package graphrag

import (
	"math"
	"sort"
)

// Entity is one node of the graph (LightRAG's NetworkX node attributes).
type Entity struct {
	Name        string // the node id: the entity name as extracted, case kept
	Type        string // the most frequent type; "UNKNOWN" for a node created as a relation endpoint
	Description string // <SEP>-joined sorted set of descriptions, or an LLM summary
	// SourceID and FilePath are <SEP>-joined sets: chunk ids and file
	// paths. LightRAG joins a Python set (hash order); this package sorts.
	SourceID string
	FilePath string
}

// Relation is one undirected edge of the graph.
type Relation struct {
	Source, Target string  // Source ≤ Target (byte order, = code point order)
	Weight         float64 // sum of every record's strength
	Description    string  // <SEP>-joined sorted set, or an LLM summary
	Keywords       string  // <SEP>-joined sorted set
	SourceID       string  // sorted <SEP>-joined chunk ids
	FilePath       string  // sorted <SEP>-joined file paths
}

// Graph is an index: the entity-relation graph, the text chunks and the
// three vector collections of docs/graphrag.md §1. It is read-only once built
// or opened, and safe for concurrent queries.
type Graph struct {
	// Manifest describes how the index was built (counts filled in).
	Manifest Manifest

	tok Tokenizer

	nodes   []*Entity // NetworkX node order (insertion)
	nodeIdx map[string]int
	// adj lists each node's neighbours in NetworkX adjacency order: the
	// order in which the node's edges were added.
	adj   map[string][]string
	edges map[pair]*Relation

	chunks   []*Chunk // text-chunk store, insertion order
	chunkIdx map[string]int

	entVDB, relVDB, chunkVDB *vectorStore
}

func newGraph(tok Tokenizer) *Graph {
	return &Graph{tok: tok, nodeIdx: map[string]int{}, adj: map[string][]string{}, edges: map[pair]*Relation{},
		chunkIdx: map[string]int{}, entVDB: newVectorStore(), relVDB: newVectorStore(), chunkVDB: newVectorStore()}
}

// Tokenizer returns the tokenizer the graph was built with.
func (g *Graph) Tokenizer() Tokenizer { return g.tok }

// Entities returns a copy of every node, in node order.
func (g *Graph) Entities() []Entity {
	out := make([]Entity, len(g.nodes))
	for i, n := range g.nodes {
		out[i] = *n
	}
	return out
}

// Entity returns the node named name.
func (g *Graph) Entity(name string) (Entity, bool) {
	n := g.node(name)
	if n == nil {
		return Entity{}, false
	}
	return *n, true
}

// Relations returns a copy of every edge in NetworkX's edges() order (the
// order a GraphML file lists them).
func (g *Graph) Relations() []Relation {
	ps := g.edgeOrder()
	out := make([]Relation, len(ps))
	for i, p := range ps {
		out[i] = *g.edges[p]
	}
	return out
}

// Relation returns the edge between a and b, in either order.
func (g *Graph) Relation(a, b string) (Relation, bool) {
	r := g.edges[sortedPair(a, b)]
	if r == nil {
		return Relation{}, false
	}
	return *r, true
}

// Chunks returns a copy of the text chunks in store order.
func (g *Graph) Chunks() []Chunk {
	out := make([]Chunk, len(g.chunks))
	for i, c := range g.chunks {
		out[i] = *c
	}
	return out
}

// ChunkFile returns the file path of the chunk with this id, and whether
// the graph holds such a chunk (no copy of the chunk list: a question's
// retrieved chunks are named this way).
func (g *Graph) ChunkFile(id string) (string, bool) {
	c := g.chunk(id)
	if c == nil {
		return "", false
	}
	return c.FilePath, true
}

// EntityVectorIDs returns the ids of the entity vector rows, in row order
// (entities created only as relation endpoints have none).
func (g *Graph) EntityVectorIDs() []string { return g.entVDB.ids() }

// RelationVectorIDs returns the ids of the relation vector rows, in row order.
func (g *Graph) RelationVectorIDs() []string { return g.relVDB.ids() }

func (g *Graph) node(name string) *Entity {
	i, ok := g.nodeIdx[name]
	if !ok {
		return nil
	}
	return g.nodes[i]
}

// upsertNode is networkx add_node: a new node goes last; an existing one
// gets the new attributes in place.
func (g *Graph) upsertNode(e Entity) {
	if i, ok := g.nodeIdx[e.Name]; ok {
		*g.nodes[i] = e
		return
	}
	g.nodeIdx[e.Name] = len(g.nodes)
	g.nodes = append(g.nodes, &e)
}

// upsertEdge is networkx add_edge on an undirected graph: a new edge
// appends each endpoint to the other's adjacency (once for a self-loop);
// an existing one gets the new attributes.
func (g *Graph) upsertEdge(r Relation) {
	k := sortedPair(r.Source, r.Target)
	r.Source, r.Target = k[0], k[1]
	if old := g.edges[k]; old != nil {
		*old = r
		return
	}
	for _, n := range []string{k[0], k[1]} {
		if g.node(n) == nil { // networkx creates missing endpoints
			g.upsertNode(Entity{Name: n})
		}
	}
	g.edges[k] = &r
	g.adj[k[0]] = append(g.adj[k[0]], k[1])
	if k[0] != k[1] {
		g.adj[k[1]] = append(g.adj[k[1]], k[0])
	}
}

// degree is networkx Graph.degree: neighbours, a self-loop counting twice.
func (g *Graph) degree(name string) int {
	d := 0
	for _, n := range g.adj[name] {
		d++
		if n == name {
			d++
		}
	}
	return d
}

// edgeDegree is NetworkXStorage.edge_degree: the sum of the endpoint degrees.
func (g *Graph) edgeDegree(a, b string) int { return g.degree(a) + g.degree(b) }

// nodeEdges is list(graph.edges(name)): (name, neighbour) in adjacency order.
func (g *Graph) nodeEdges(name string) []pair {
	var out []pair
	for _, n := range g.adj[name] {
		out = append(out, pair{name, n})
	}
	return out
}

// edgeOrder is the order of networkx Graph.edges(): nodes in order, each
// with its neighbours not yet visited, as sorted pairs.
func (g *Graph) edgeOrder() []pair {
	seen := map[string]bool{}
	var out []pair
	for _, n := range g.nodes {
		for _, nb := range g.adj[n.Name] {
			if !seen[nb] {
				out = append(out, sortedPair(n.Name, nb))
			}
		}
		seen[n.Name] = true
	}
	return out
}

// upsertChunk is the text-chunk KV upsert: a new id goes last, an existing
// one is overwritten in place.
func (g *Graph) upsertChunk(c Chunk) {
	if i, ok := g.chunkIdx[c.ID]; ok {
		*g.chunks[i] = c
		return
	}
	g.chunkIdx[c.ID] = len(g.chunks)
	g.chunks = append(g.chunks, &c)
}

func (g *Graph) chunk(id string) *Chunk {
	i, ok := g.chunkIdx[id]
	if !ok {
		return nil
	}
	return g.chunks[i]
}

// vectorRow is one row of a vector collection: the id, the upsert time,
// LightRAG's meta fields (docs/graphrag.md §2.8) and the L2-normalised vector.
type vectorRow struct {
	ID        string
	CreatedAt float64 // Unix seconds, as time.time()
	// Meta fields: entities have EntityName; relations SrcID and TgtID;
	// chunks FullDocID. All have SourceID (not chunks), Content, FilePath.
	EntityName, SrcID, TgtID, FullDocID string
	SourceID, Content, FilePath         string
	Vector                              []float32
}

// vectorStore is NanoVectorDB 0.0.4.3 with the cosine metric (dbs.py):
// vectors normalised in float64 and stored as float32; a query is
// normalised, scored by dot product in float64 against every row, sorted by
// score and cut at the first score below the threshold.
type vectorStore struct {
	rows []*vectorRow
	idx  map[string]int
}

func newVectorStore() *vectorStore { return &vectorStore{idx: map[string]int{}} }

func (v *vectorStore) ids() []string {
	out := make([]string, len(v.rows))
	for i, r := range v.rows {
		out[i] = r.ID
	}
	return out
}

// normalize returns a/‖a‖ in float64 (NaN components for a zero vector,
// as numpy).
func normalize(a []float32) []float64 {
	var n float64
	for _, x := range a {
		n += float64(x) * float64(x)
	}
	n = math.Sqrt(n)
	out := make([]float64, len(a))
	for i, x := range a {
		out[i] = float64(x) / n
	}
	return out
}

// upsert normalises each row's vector; rows with a known id are replaced in
// place, new ones are appended in order.
func (v *vectorStore) upsert(rows []vectorRow) {
	for _, r := range rows {
		nv := normalize(r.Vector)
		r.Vector = make([]float32, len(nv))
		for i, x := range nv {
			r.Vector[i] = float32(x)
		}
		if i, ok := v.idx[r.ID]; ok {
			*v.rows[i] = r
			continue
		}
		v.idx[r.ID] = len(v.rows)
		rr := r
		v.rows = append(v.rows, &rr)
	}
}

// scored is a query hit.
type scored struct {
	row   *vectorRow
	score float64
}

// query returns up to topK rows by descending cosine score, stopping at the
// first score < threshold. numpy's argsort (ascending, reversed) decides
// ties; for the small arrays where it is an insertion sort, equal scores
// come out with the later row first, which this reproduces. A NaN score (a
// zero vector) sorts above every number and passes the threshold, as in
// numpy.
func (v *vectorStore) query(q []float32, topK int, threshold float64) []scored {
	if topK <= 0 || len(v.rows) == 0 {
		return nil
	}
	qn := normalize(q)
	hits := make([]scored, len(v.rows))
	order := make([]int, len(v.rows))
	for i, r := range v.rows {
		var s float64
		for j := range qn {
			if j < len(r.Vector) {
				s += float64(r.Vector[j]) * qn[j]
			}
		}
		hits[i] = scored{row: r, score: s}
		order[i] = i
	}
	key := func(s float64) float64 {
		if math.IsNaN(s) {
			return math.Inf(1)
		}
		return s
	}
	sort.SliceStable(order, func(a, b int) bool {
		sa, sb := key(hits[order[a]].score), key(hits[order[b]].score)
		if sa != sb {
			return sa > sb
		}
		return order[a] > order[b]
	})
	var out []scored
	for _, i := range order[:min(topK, len(order))] {
		if hits[i].score < threshold { // false for NaN
			break
		}
		out = append(out, hits[i])
	}
	return out
}
