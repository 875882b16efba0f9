package retrieval

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/mattools-leaderboard/leaderboard/datasets/corpus"
)

// BM25 parameters (Robertson & Zaragoza 2009; Lucene's and rank_bm25's defaults).
const (
	BM25K1 = 1.2
	BM25B  = 0.75
)

// BM25Options configure NewBM25.
type BM25Options struct {
	// CacheDir holds persisted indexes, one directory per corpus ID and
	// TokenizerVersion (e.g. "build/retrieval" → "build/retrieval/bm25-<hex>-t1");
	// it is created if missing. "" builds in memory and persists nothing.
	CacheDir string
}

// BM25 is an exact Okapi BM25 retriever over one corpus. The score of chunk
// d for a query is
//
//	Σ over query terms t (duplicates included) of
//	    idf(t) · tf(t,d)·(k1+1) / (tf(t,d) + k1·(1 − b + b·|d|/avgdl))
//	idf(t) = ln(1 + (N − df(t) + 0.5) / (df(t) + 0.5))
//
// with k1 = BM25K1, b = BM25B, terms from Tokenize, |d| the number of terms
// of d's Text, avgdl their mean over the N chunks, and df(t) the number of
// chunks containing t. The idf is Robertson–Spärck Jones' with +1 inside
// the logarithm, as Lucene's BM25Similarity has it (always > 0); the
// (k1+1) factor, which Lucene ≥ 8 drops, scales every score by 2.2 and
// does not change the ranking. Only chunks containing at least one query
// term are returned, so a search may return fewer than k hits (none when
// the query has no term). It is safe for concurrent use.
type BM25 struct {
	c        *corpus.Corpus
	terms    map[string]int32
	postOff  []int64 // postings of term i are post[postOff[i]:postOff[i+1]]
	postDoc  []int32 // chunk index, ascending within a term
	postTF   []int32
	docLen   []int32
	idf      []float64
	norm     []float64 // k1·(1 − b + b·|d|/avgdl) per chunk
	avgdl    float64
	loaded   bool
	dir      string
	warnings []error
	acc      sync.Pool // *[]float64 of len N
}

// NewBM25 returns the BM25 retriever of c. With opts.CacheDir it reads the
// persisted index of c's ID if present and valid (checksum, format,
// tokenizer version and a fingerprint of every chunk's ID and Text);
// otherwise it builds the index and writes it atomically (a temporary
// directory renamed into place, so that no partial index is ever visible
// and a failed write leaves nothing). A corrupt or stale index is removed,
// rebuilt and reported by Warnings. c is kept (hits copy its chunks) and
// must not be modified afterwards. Errors: an empty corpus, an empty
// corpus ID with a CacheDir, ctx's error, or an I/O error of the cache.
func NewBM25(ctx context.Context, c *corpus.Corpus, opts BM25Options) (*BM25, error) {
	if c == nil || len(c.Chunks) == 0 {
		return nil, errors.New("retrieval: bm25: empty corpus")
	}
	if len(c.Chunks) > math.MaxInt32 {
		return nil, fmt.Errorf("retrieval: bm25: %d chunks are too many", len(c.Chunks))
	}
	if opts.CacheDir == "" {
		b, err := buildBM25(ctx, c)
		if err != nil {
			return nil, err
		}
		b.finish()
		return b, nil
	}
	if c.ID == "" {
		return nil, errors.New("retrieval: bm25: the corpus has no ID to key the cache with")
	}
	dir := filepath.Join(opts.CacheDir, "bm25-"+cacheKey(c.ID)+fmt.Sprintf("-t%d", TokenizerVersion))
	fp := fingerprint(c)
	var warnings []error
	data, err := os.ReadFile(filepath.Join(dir, bm25File))
	if err == nil {
		b, derr := decodeBM25(data, c, fp)
		if derr == nil {
			b.loaded, b.dir = true, dir
			b.finish()
			return b, nil
		}
		err = derr
	}
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		warnings = append(warnings, fmt.Errorf("retrieval: bm25: rebuilt the index in %s: %w", dir, err))
	}
	// Whatever is there (a corrupt index, a directory without one) goes.
	if err := os.RemoveAll(dir); err != nil {
		return nil, fmt.Errorf("retrieval: bm25: remove the invalid index: %w", err)
	}
	b, err := buildBM25(ctx, c)
	if err != nil {
		return nil, err
	}
	if err := writeDirAtomic(opts.CacheDir, dir, bm25File, b.encode(fp)); err != nil {
		return nil, fmt.Errorf("retrieval: bm25: persist index: %w", err)
	}
	b.dir, b.warnings = dir, warnings
	b.finish()
	return b, nil
}

const bm25File = "index.bin"

// Method returns MethodBM25.
func (b *BM25) Method() string { return MethodBM25 }

// CorpusID returns the ID of the corpus searched.
func (b *BM25) CorpusID() string { return b.c.ID }

// Loaded reports whether the index was read from the cache rather than built.
func (b *BM25) Loaded() bool { return b.loaded }

// Dir returns the index's cache directory, "" without a CacheDir.
func (b *BM25) Dir() string { return b.dir }

// Warnings returns the conditions that did not stop NewBM25, such as a
// corrupt cached index that was rebuilt.
func (b *BM25) Warnings() []error { return b.warnings }

// Search returns the at most k best chunks for query by the BM25 score
// documented on BM25, ties by corpus order.
func (b *BM25) Search(ctx context.Context, query string, k int) ([]Hit, error) {
	if k <= 0 {
		return nil, fmt.Errorf("retrieval: bm25: k = %d, want ≥ 1", k)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ap := b.acc.Get().(*[]float64)
	acc := *ap
	defer b.acc.Put(ap)
	var touched []int32
	for _, tok := range Tokenize(query) {
		t, ok := b.terms[tok]
		if !ok {
			continue
		}
		idf := b.idf[t]
		for p := b.postOff[t]; p < b.postOff[t+1]; p++ {
			d, tf := b.postDoc[p], float64(b.postTF[p])
			if acc[d] == 0 {
				touched = append(touched, d)
			}
			acc[d] += idf * tf * (BM25K1 + 1) / (tf + b.norm[d])
		}
	}
	top := topK{k: k}
	for _, d := range touched {
		top.offer(scored{doc: int(d), score: acc[d]})
		acc[d] = 0
	}
	return top.hits(b.c), nil
}

// buildBM25 tokenizes every chunk and builds the postings.
func buildBM25(ctx context.Context, c *corpus.Corpus) (*BM25, error) {
	b := &BM25{c: c, terms: map[string]int32{}, docLen: make([]int32, len(c.Chunks))}
	var docs, tfs [][]int32 // per term
	tf := map[int32]int32{}
	var order []int32
	for d, ch := range c.Chunks {
		if d%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		toks := Tokenize(ch.Text)
		b.docLen[d] = int32(len(toks))
		order = order[:0]
		for _, tok := range toks {
			t, ok := b.terms[tok]
			if !ok {
				t = int32(len(docs))
				b.terms[tok] = t
				docs, tfs = append(docs, nil), append(tfs, nil)
			}
			if tf[t] == 0 {
				order = append(order, t)
			}
			tf[t]++
		}
		for _, t := range order {
			docs[t] = append(docs[t], int32(d))
			tfs[t] = append(tfs[t], tf[t])
			delete(tf, t)
		}
	}
	b.postOff = make([]int64, len(docs)+1)
	for t := range docs {
		b.postOff[t+1] = b.postOff[t] + int64(len(docs[t]))
	}
	n := b.postOff[len(docs)]
	b.postDoc, b.postTF = make([]int32, 0, n), make([]int32, 0, n)
	for t := range docs {
		b.postDoc = append(b.postDoc, docs[t]...)
		b.postTF = append(b.postTF, tfs[t]...)
	}
	return b, nil
}

// finish computes the derived statistics: avgdl, idf and the length norms.
func (b *BM25) finish() {
	n := len(b.docLen)
	var total float64
	for _, l := range b.docLen {
		total += float64(l)
	}
	b.avgdl = total / float64(n)
	b.norm = make([]float64, n)
	for d, l := range b.docLen {
		if b.avgdl > 0 {
			b.norm[d] = BM25K1 * (1 - BM25B + BM25B*float64(l)/b.avgdl)
		}
	}
	b.idf = make([]float64, len(b.postOff)-1)
	for t := range b.idf {
		df := float64(b.postOff[t+1] - b.postOff[t])
		b.idf[t] = math.Log(1 + (float64(n)-df+0.5)/(df+0.5))
	}
	b.acc.New = func() any { a := make([]float64, n); return &a }
}

// fingerprint is the SHA-256 of every chunk's length-prefixed ID and Text,
// in order: it ties a persisted index to the exact chunks it was built from.
func fingerprint(c *corpus.Corpus) [32]byte {
	h := sha256.New()
	var n [binary.MaxVarintLen64]byte
	for _, ch := range c.Chunks {
		h.Write(n[:binary.PutUvarint(n[:], uint64(len(ch.ID)))])
		h.Write([]byte(ch.ID))
		h.Write(n[:binary.PutUvarint(n[:], uint64(len(ch.Text)))])
		h.Write([]byte(ch.Text))
	}
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// cacheKey makes a corpus ID a file name: "sha256:" is dropped and any
// character other than ASCII letters, digits, '.', '-' and '_' becomes '_'.
func cacheKey(id string) string {
	id = strings.TrimPrefix(id, "sha256:")
	return strings.Map(func(r rune) rune {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_') {
			return r
		}
		return '_'
	}, id)
}

// The persisted index (index.bin): bm25Magic, then uvarints — format
// version, tokenizer version, len+corpus ID, the 32-byte fingerprint, N,
// N chunk lengths, the term count, and per term len+term, df and df
// (chunk-index delta, tf) pairs — then the SHA-256 of all of the above.
const (
	bm25Magic  = "MTLB-BM25\n"
	bm25Format = 1
)

func (b *BM25) encode(fp [32]byte) []byte {
	var buf bytes.Buffer
	buf.Grow(len(b.postDoc)*3 + 1<<16)
	var tmp [binary.MaxVarintLen64]byte
	u := func(x uint64) { buf.Write(tmp[:binary.PutUvarint(tmp[:], x)]) }
	s := func(x string) { u(uint64(len(x))); buf.WriteString(x) }
	buf.WriteString(bm25Magic)
	u(bm25Format)
	u(TokenizerVersion)
	s(b.c.ID)
	buf.Write(fp[:])
	u(uint64(len(b.docLen)))
	for _, l := range b.docLen {
		u(uint64(l))
	}
	names := make([]string, len(b.terms))
	for tok, t := range b.terms {
		names[t] = tok
	}
	u(uint64(len(names)))
	for t, tok := range names {
		s(tok)
		u(uint64(b.postOff[t+1] - b.postOff[t]))
		prev := int32(-1)
		for p := b.postOff[t]; p < b.postOff[t+1]; p++ {
			u(uint64(b.postDoc[p] - prev))
			u(uint64(b.postTF[p]))
			prev = b.postDoc[p]
		}
	}
	sum := sha256.Sum256(buf.Bytes())
	buf.Write(sum[:])
	return buf.Bytes()
}

// decodeBM25 parses and checks a persisted index for c; any error means
// the file is corrupt or belongs to other chunks.
func decodeBM25(data []byte, c *corpus.Corpus, fp [32]byte) (*BM25, error) {
	if len(data) < len(bm25Magic)+sha256.Size || string(data[:len(bm25Magic)]) != bm25Magic {
		return nil, errors.New("not a BM25 index file")
	}
	body := data[:len(data)-sha256.Size]
	if sum := sha256.Sum256(body); !bytes.Equal(sum[:], data[len(body):]) {
		return nil, errors.New("checksum mismatch")
	}
	r := &reader{b: body[len(bm25Magic):]}
	if v := r.u(); v != bm25Format {
		return nil, fmt.Errorf("format %d, want %d", v, bm25Format)
	}
	if v := r.u(); v != TokenizerVersion {
		return nil, fmt.Errorf("tokenizer version %d, want %d", v, TokenizerVersion)
	}
	if id := r.s(); id != c.ID {
		return nil, fmt.Errorf("corpus ID %q, want %q", id, c.ID)
	}
	if got := r.n(32); r.err == nil && !bytes.Equal(got, fp[:]) {
		return nil, errors.New("chunk fingerprint differs from the corpus's chunks")
	}
	n := r.u()
	if r.err == nil && n != uint64(len(c.Chunks)) {
		return nil, fmt.Errorf("%d chunks, want %d", n, len(c.Chunks))
	}
	b := &BM25{c: c, docLen: make([]int32, len(c.Chunks))}
	for d := range b.docLen {
		b.docLen[d] = int32(r.u())
	}
	nt := r.u()
	if r.err != nil || nt > uint64(len(r.b)) {
		return nil, errors.New("truncated")
	}
	b.terms = make(map[string]int32, nt)
	b.postOff = make([]int64, nt+1)
	for t := range nt {
		tok := r.s()
		df := r.u()
		if r.err != nil || df == 0 || df > n {
			return nil, fmt.Errorf("term %d: bad document frequency", t)
		}
		if _, dup := b.terms[tok]; dup {
			return nil, fmt.Errorf("term %q twice", tok)
		}
		b.terms[tok] = int32(t)
		prev := int64(-1)
		for range df {
			d := prev + int64(r.u())
			tf := r.u()
			if r.err != nil || d <= prev || d >= int64(n) || tf == 0 || tf > math.MaxInt32 {
				return nil, fmt.Errorf("term %q: bad posting", tok)
			}
			b.postDoc = append(b.postDoc, int32(d))
			b.postTF = append(b.postTF, int32(tf))
			prev = d
		}
		b.postOff[t+1] = int64(len(b.postDoc))
	}
	if r.err != nil {
		return nil, r.err
	}
	if len(r.b) != 0 {
		return nil, fmt.Errorf("%d trailing bytes", len(r.b))
	}
	return b, nil
}

// reader reads uvarints and strings, remembering the first error.
type reader struct {
	b   []byte
	err error
}

func (r *reader) u() uint64 {
	if r.err != nil {
		return 0
	}
	x, k := binary.Uvarint(r.b)
	if k <= 0 {
		r.err = errors.New("truncated")
		return 0
	}
	r.b = r.b[k:]
	return x
}

func (r *reader) n(k uint64) []byte {
	if r.err != nil || k > uint64(len(r.b)) {
		r.err = errors.New("truncated")
		return nil
	}
	out := r.b[:k]
	r.b = r.b[k:]
	return out
}

func (r *reader) s() string { return string(r.n(r.u())) }

// writeDirAtomic writes data as file name into a new temporary directory under parent
// and renames it to dir; on any failure it removes the temporary
// directory. If dir appeared meanwhile (another process built the same
// index), dir is kept and the temporary directory removed.
func writeDirAtomic(parent, dir, name string, data []byte) error {
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, ".tmp-"+filepath.Base(dir)+"-*")
	if err != nil {
		return err
	}
	ok := false
	defer func() {
		if !ok {
			os.RemoveAll(tmp)
		}
	}()
	if err := writeFileSync(filepath.Join(tmp, name), data); err != nil {
		return err
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, serr := os.Stat(filepath.Join(dir, name)); serr == nil {
			return nil // a concurrent writer won; the deferred RemoveAll drops ours
		}
		return err
	}
	ok = true
	syncDir(parent)
	return nil
}

func writeFileSync(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// syncDir makes a rename durable where the platform allows it.
func syncDir(dir string) {
	if f, err := os.Open(dir); err == nil {
		f.Sync()
		f.Close()
	}
}
