// Package retrieval owns the retrievers of the RAG systems: a Retriever
// returns the top-k chunks of one corpus (datasets/corpus: retrieval
// sources 1–4) for a query, by BM25 ("bm25", embedded, no server and no
// key) or by embedding similarity ("embedding", vectors from any
// OpenAI-compatible /v1/embeddings endpoint through llm).
//
// It sits between the corpora and the systems: runner/systems get a
// Retriever through their Env. Among project packages it imports only
// llm and datasets/corpus.
//
// # BM25: own implementation, not bleve
//
// BM25 is exact textbook Okapi BM25 (see BM25), written here rather than
// taken from bleve v2.6.3 (scorch). Both were measured on the same
// synthetic corpus: 20,191 chunks of ≤ 1,000 characters cut from the
// pymatgen .py files (19 MB), indexed with the same Tokenize, on 2 cores;
// 200 queries of 3–6 terms drawn from the chunks, 5 passes, top 10; index
// written to disk (bleve: scorch on a directory, batches of 1,000):
//
//	                 build+persist   query p50   query p99   max RSS   on disk
//	own BM25         2.2–2.5 s       0.13 ms     1.6–8 ms    93 MB     2.9 MB
//	bleve scorch     10.4–14.4 s     2.2–3.4 ms  25–61 ms    123 MB    19.4 MB
//
// Own BM25 is 4–6× faster to build, about 20× faster to query, a sixth of
// the size on disk, and exact: bleve's BM25 uses avgdl = ceil(distinct
// terms / docs) and a lossy field-length norm, so its scores match neither
// rank_bm25 nor Lucene. It also adds no dependency (bleve
// brings about 25 modules). bench_test.go has the benchmarks of this
// package (BenchmarkBM25Build, BenchmarkBM25Query, BenchmarkDenseExactSearch20000x3072).
//
// # Ties
//
// Every retriever breaks ties of score by corpus order: of two chunks with
// equal scores, the one earlier in Corpus.Chunks ranks first. Results are
// therefore deterministic for a given corpus, query and k.
package retrieval

import (
	"container/heap"
	"context"

	"github.com/mattools-leaderboard/leaderboard/datasets/corpus"
)

// Method names returned by Retriever.Method.
const (
	MethodBM25      = "bm25"
	MethodEmbedding = "embedding"
)

// Hit is one retrieved chunk.
type Hit struct {
	ChunkID, Source, Name, Text string // copied from the corpus.Chunk
	// Score is the retriever's score: the BM25 sum (unbounded, > 0) or the
	// cosine similarity (−1…1). Higher is better.
	Score float64
	Rank  int // 1-based position in the result
}

// Retriever searches one corpus.
type Retriever interface {
	// Search returns at most k hits for query, best first (ties by corpus
	// order), with Rank 1…len. k ≤ 0 is an error. Errors name the
	// retriever and, for "embedding", the endpoint failure.
	Search(ctx context.Context, query string, k int) ([]Hit, error)
	// Method returns MethodBM25 or MethodEmbedding.
	Method() string
	// CorpusID returns the ID of the corpus searched (corpus.Corpus.ID).
	CorpusID() string
}

// scored is a candidate: chunk index and score.
type scored struct {
	doc   int
	score float64
}

// better reports whether a ranks before b: higher score, then lower index.
func better(a, b scored) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return a.doc < b.doc
}

// worstFirst is a min-heap on better: its root is the candidate to drop.
type worstFirst []scored

func (h worstFirst) Len() int           { return len(h) }
func (h worstFirst) Less(i, j int) bool { return better(h[j], h[i]) }
func (h worstFirst) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *worstFirst) Push(x any)        { *h = append(*h, x.(scored)) }
func (h *worstFirst) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// topK keeps the k best candidates offered, in O(n log k).
type topK struct {
	k int
	h worstFirst
}

func (t *topK) offer(s scored) {
	if len(t.h) < t.k {
		heap.Push(&t.h, s)
		return
	}
	if better(s, t.h[0]) {
		t.h[0] = s
		heap.Fix(&t.h, 0)
	}
}

// hits returns the kept candidates as hits, best first.
func (t *topK) hits(c *corpus.Corpus) []Hit {
	out := make([]Hit, len(t.h))
	for i := len(t.h) - 1; i >= 0; i-- {
		s := heap.Pop(&t.h).(scored)
		ch := c.Chunks[s.doc]
		out[i] = Hit{ChunkID: ch.ID, Source: ch.Source, Name: ch.Name, Text: ch.Text, Score: s.score, Rank: i + 1}
	}
	return out
}
