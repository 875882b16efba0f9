package retrieval

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/parquet-go/parquet-go"

	"github.com/mattools-leaderboard/leaderboard/datasets/corpus"
	"github.com/mattools-leaderboard/leaderboard/internal/atomicfile"
	"github.com/mattools-leaderboard/leaderboard/llm"
)

// Embedder computes embeddings; *llm.Client implements it (Embed returns
// one vector per input, in order, or an *llm.Error after its retries).
type Embedder interface {
	Embed(ctx context.Context, model string, inputs []string) (*llm.Embeddings, error)
}

// DefaultBatchSize is the number of chunks per embeddings request unless
// DenseOptions.BatchSize says otherwise (as the paper's Chroma ingestion:
// docs/mattools.md §5).
const DefaultBatchSize = 100

// DenseOptions configure NewDense.
type DenseOptions struct {
	// Model is the embedding model id, e.g. "text-embedding-3-large" (the
	// paper's, 3,072 dimensions). Required.
	Model string
	// Dimensions is the expected dimension of every vector; 0 accepts the
	// dimension of the first vector received (or cached).
	Dimensions int
	// BatchSize is the number of chunks per request (DefaultBatchSize when 0).
	BatchSize int
	// CacheDir holds the corpus's embeddings as Parquet, one file per corpus
	// ID and model: "embeddings-<corpus hex>-<model>.parquet", with columns
	// chunk_id (string), chunk_sha256 (hex SHA-256 of the Text embedded),
	// model (string) and vector (list<float>, as the server sent it), in
	// corpus order; "" keeps them in memory only. While embedding, each
	// finished batch is kept as a part file in "….parts/", so that a run
	// that fails or is killed resumes after its last finished batch.
	CacheDir string
}

// Dense is an exact cosine-similarity retriever: every chunk's Text is
// embedded once (per corpus ID × model, cached), the query is embedded per
// search, and Search scores every chunk by the dot product of L2-normalised
// float32 vectors (cosine similarity, −1…1), ties by corpus order. This is
// the paper's ranking: Chroma's L2 distance over normalised vectors orders
// as cosine (docs/mattools.md §5). It is safe for concurrent use.
type Dense struct {
	c        *corpus.Corpus
	emb      Embedder
	model    string
	dims     int
	dimsFrom string    // where dims came from, for errors
	vecs     []float32 // len(c.Chunks) × dims, row-major, each row unit length
	reused   int
	path     string
	workers  int
}

// NewDense embeds c's chunks with e (or reads them from opts.CacheDir) and
// returns the retriever. A cached file or part is used only if it passes
// the same checks as a response (below) and its rows name c's chunks, in
// order, with their current Text hashes and opts.Model; otherwise it is
// removed and recomputed. Files are written atomically (temporary file,
// then rename). Errors name the batch ("batch 3 of 200 (chunks 200–299)")
// and are: e's error (after its retries), a vector count other than the
// batch's, a dimension differing from opts.Dimensions or from the first
// vector, a NaN, infinite or zero vector, ctx's error, or an I/O error.
func NewDense(ctx context.Context, c *corpus.Corpus, e Embedder, opts DenseOptions) (*Dense, error) {
	if c == nil || len(c.Chunks) == 0 {
		return nil, errors.New("retrieval: embedding: empty corpus")
	}
	if opts.Model == "" {
		return nil, errors.New("retrieval: embedding: no model")
	}
	if e == nil {
		return nil, errors.New("retrieval: embedding: no embedder")
	}
	if opts.BatchSize <= 0 {
		opts.BatchSize = DefaultBatchSize
	}
	if opts.CacheDir != "" && c.ID == "" {
		return nil, errors.New("retrieval: embedding: the corpus has no ID to key the cache with")
	}
	d := &Dense{c: c, emb: e, model: opts.Model, dims: opts.Dimensions, dimsFrom: "DenseOptions.Dimensions", workers: runtime.GOMAXPROCS(0)}
	hashes := make([]string, len(c.Chunks))
	for i, ch := range c.Chunks {
		sum := sha256.Sum256([]byte(ch.Text))
		hashes[i] = hex.EncodeToString(sum[:])
	}
	var rows [][]float32
	if opts.CacheDir == "" {
		var err error
		if rows, err = d.embedAll(ctx, opts.BatchSize, hashes, ""); err != nil {
			return nil, err
		}
	} else {
		base := filepath.Join(opts.CacheDir, "embeddings-"+cacheKey(c.ID)+"-"+cacheKey(opts.Model))
		d.path = base + ".parquet"
		if got, err := d.readRows(d.path, 0, hashes); err == nil {
			rows, d.reused = got, len(c.Chunks)
		} else {
			if !errors.Is(err, os.ErrNotExist) {
				os.Remove(d.path)
			}
			if err := os.MkdirAll(base+".parts", 0o755); err != nil {
				return nil, fmt.Errorf("retrieval: embedding: %w", err)
			}
			if rows, err = d.embedAll(ctx, opts.BatchSize, hashes, base+".parts"); err != nil {
				return nil, err
			}
			if err := d.writeRows(d.path, 0, rows, hashes); err != nil {
				return nil, fmt.Errorf("retrieval: embedding: write %s: %w", d.path, err)
			}
			os.RemoveAll(base + ".parts")
		}
	}
	d.vecs = make([]float32, len(rows)*d.dims)
	for i, v := range rows {
		normalise(d.vecs[i*d.dims:(i+1)*d.dims], v)
	}
	return d, nil
}

// Method returns MethodEmbedding.
func (d *Dense) Method() string { return MethodEmbedding }

// CorpusID returns the ID of the corpus searched.
func (d *Dense) CorpusID() string { return d.c.ID }

// Dims returns the dimension of the vectors.
func (d *Dense) Dims() int { return d.dims }

// Reused returns how many chunks' vectors came from the cache (the whole
// file or verified batch parts) rather than from requests.
func (d *Dense) Reused() int { return d.reused }

// Path returns the Parquet cache file, "" without a CacheDir.
func (d *Dense) Path() string { return d.path }

// Search embeds query (one request) and returns the at most k chunks of
// highest cosine similarity, ties by corpus order; k > number of chunks
// returns every chunk.
func (d *Dense) Search(ctx context.Context, query string, k int) ([]Hit, error) {
	if k <= 0 {
		return nil, fmt.Errorf("retrieval: embedding: k = %d, want ≥ 1", k)
	}
	res, err := d.emb.Embed(ctx, d.model, []string{query})
	if err != nil {
		return nil, fmt.Errorf("retrieval: embedding: query: %w", err)
	}
	if len(res.Vectors) != 1 {
		return nil, fmt.Errorf("retrieval: embedding: query: %d vectors for 1 input", len(res.Vectors))
	}
	if err := checkVector(res.Vectors[0], d.dims, "the corpus's vectors"); err != nil {
		return nil, fmt.Errorf("retrieval: embedding: query: %w", err)
	}
	q := make([]float32, d.dims)
	normalise(q, res.Vectors[0])
	return d.searchVector(q, k), nil
}

// searchVector returns the top k chunks for the unit vector q, splitting
// the scan over the available cores for large corpora.
func (d *Dense) searchVector(q []float32, k int) []Hit {
	n := len(d.c.Chunks)
	parts := 1
	if n*d.dims >= 1<<20 {
		parts = d.workers
	}
	tops := make([]topK, parts)
	var wg sync.WaitGroup
	for p := range parts {
		lo, hi := p*n/parts, (p+1)*n/parts
		wg.Add(1)
		go func() {
			defer wg.Done()
			t := topK{k: k}
			for i := lo; i < hi; i++ {
				t.offer(scored{doc: i, score: float64(dot(q, d.vecs[i*d.dims:(i+1)*d.dims]))})
			}
			tops[p] = t
		}()
	}
	wg.Wait()
	all := topK{k: k}
	for _, t := range tops {
		for _, s := range t.h {
			all.offer(s)
		}
	}
	return all.hits(d.c)
}

// dot is the float32 dot product of equal-length a and b, in four
// interleaved partial sums.
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// normalise writes v / ‖v‖₂ (computed in float64) to dst.
func normalise(dst, v []float32) {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	n = math.Sqrt(n)
	for i, x := range v {
		dst[i] = float32(float64(x) / n)
	}
}

// checkVector validates one vector: dims components (from where says
// where dims comes from), all finite, not all zero.
func checkVector(v []float32, dims int, from string) error {
	if len(v) != dims {
		return fmt.Errorf("%d dimensions, want %d (%s)", len(v), dims, from)
	}
	zero := true
	for j, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("component %d is %v", j, x)
		}
		zero = zero && x == 0
	}
	if zero {
		return errors.New("zero vector (no direction to compare)")
	}
	return nil
}

// embedAll returns the vectors of every chunk, batch by batch, reusing
// verified part files in parts ("" = none) and writing one per new batch.
func (d *Dense) embedAll(ctx context.Context, bs int, hashes []string, parts string) ([][]float32, error) {
	n := len(d.c.Chunks)
	nb := (n + bs - 1) / bs
	rows := make([][]float32, 0, n)
	for b := range nb {
		lo, hi := b*bs, min((b+1)*bs, n)
		name := fmt.Sprintf("batch %d of %d (chunks %d–%d)", b+1, nb, lo, hi-1)
		var part string
		if parts != "" {
			part = filepath.Join(parts, fmt.Sprintf("part-%08d-%08d.parquet", lo, hi))
			if got, err := d.readRows(part, lo, hashes[lo:hi]); err == nil {
				rows = append(rows, got...)
				d.reused += hi - lo
				continue
			} else if !errors.Is(err, os.ErrNotExist) {
				os.Remove(part)
			}
		}
		inputs := make([]string, hi-lo)
		for i := range inputs {
			inputs[i] = d.c.Chunks[lo+i].Text
		}
		res, err := d.emb.Embed(ctx, d.model, inputs)
		if err != nil {
			return nil, fmt.Errorf("retrieval: embedding: %s: %w", name, err)
		}
		if len(res.Vectors) != len(inputs) {
			return nil, fmt.Errorf("retrieval: embedding: %s: %d vectors for %d inputs", name, len(res.Vectors), len(inputs))
		}
		if d.dims == 0 && len(res.Vectors) > 0 {
			d.dims, d.dimsFrom = len(res.Vectors[0]), "the first vector received"
		}
		for i, v := range res.Vectors {
			if err := checkVector(v, d.dims, d.dimsFrom); err != nil {
				return nil, fmt.Errorf("retrieval: embedding: %s: vector %d (chunk %q): %w", name, i, d.c.Chunks[lo+i].ID, err)
			}
		}
		if part != "" {
			if err := d.writeRows(part, lo, res.Vectors, hashes[lo:hi]); err != nil {
				return nil, fmt.Errorf("retrieval: embedding: %s: write %s: %w", name, part, err)
			}
		}
		rows = append(rows, res.Vectors...)
	}
	return rows, nil
}

// embeddingRow is one row of the Parquet cache.
type embeddingRow struct {
	ChunkID     string    `parquet:"chunk_id"`
	ChunkSHA256 string    `parquet:"chunk_sha256"`
	Model       string    `parquet:"model,dict"`
	Vector      []float32 `parquet:"vector,list"`
}

// writeRows writes the rows of chunks lo… to path atomically.
func (d *Dense) writeRows(path string, lo int, vecs [][]float32, hashes []string) error {
	rows := make([]embeddingRow, len(vecs))
	for i, v := range vecs {
		rows[i] = embeddingRow{ChunkID: d.c.Chunks[lo+i].ID, ChunkSHA256: hashes[i], Model: d.model, Vector: v}
	}
	f, err := atomicfile.Create(path)
	if err != nil {
		return err
	}
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	w := parquet.NewGenericWriter[embeddingRow](f,
		parquet.KeyValueMetadata("corpus_id", d.c.ID), parquet.KeyValueMetadata("model", d.model),
		parquet.KeyValueMetadata("dimensions", fmt.Sprint(d.dims)))
	if _, err := w.Write(rows); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	if err := atomicfile.Commit(f, path, 0o644); err != nil {
		return err
	}
	ok = true
	return nil
}

// readRows reads path and verifies that it holds exactly the rows of
// chunks lo…lo+len(hashes)−1 for d's model, with valid vectors.
func (d *Dense) readRows(path string, lo int, hashes []string) ([][]float32, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	rows, err := parquet.ReadFile[embeddingRow](path)
	if err != nil {
		return nil, err
	}
	if len(rows) != len(hashes) {
		return nil, fmt.Errorf("%s: %d rows, want %d", path, len(rows), len(hashes))
	}
	dims, from := d.dims, d.dimsFrom
	if dims == 0 && len(rows) > 0 {
		dims, from = len(rows[0].Vector), "the first cached vector"
	}
	out := make([][]float32, len(rows))
	for i, r := range rows {
		ch := d.c.Chunks[lo+i]
		if r.ChunkID != ch.ID || r.ChunkSHA256 != hashes[i] || r.Model != d.model {
			return nil, fmt.Errorf("%s: row %d is chunk %q (sha256 %s, model %q), want %q (%s, %q)",
				path, i, r.ChunkID, r.ChunkSHA256, r.Model, ch.ID, hashes[i], d.model)
		}
		if err := checkVector(r.Vector, dims, from); err != nil {
			return nil, fmt.Errorf("%s: row %d: %w", path, i, err)
		}
		out[i] = r.Vector
	}
	d.dims, d.dimsFrom = dims, from
	return out, nil
}
