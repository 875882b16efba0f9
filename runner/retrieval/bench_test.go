package retrieval

// Benchmarks (go test -bench . ./runner/retrieval/): BM25 build and query
// on a code-like corpus (≈ 20,000 chunks of ≤ 1,000 characters cut from
// the pymatgen sources under MATTOOLS_DATA, as retrieval source 1) and a
// docs-like corpus (≈ 16 MB of synthetic prose, as source 2's 15.8 MB of
// HTML); dense exact search at 20,000 × 3,072.

import (
	"context"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/datasets/corpus"
)

// codeLikeCorpus cuts every .py file of the pymatgen sources into windows
// of whole lines, ≤ 1,000 characters, starting every step characters, so
// that the 7.3 MB give about n chunks (overlapping, as a splitter with
// overlap does). For benchmarks only: the real chunking is datasets/corpus's.
func codeLikeCorpus(tb testing.TB, n int) *corpus.Corpus {
	root := os.Getenv("MATTOOLS_DATA")
	if root == "" {
		tb.Skip("set MATTOOLS_DATA to a MatTools data root to benchmark on the pymatgen sources")
	}
	dir := filepath.Join(root, "src", "tool_source_code", "pymatgen", "src", "pymatgen")
	type file struct{ rel, text string }
	var files []file
	total := 0
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || !strings.HasSuffix(p, ".py") {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files = append(files, file{rel, string(b)})
		total += len(b)
		return err
	})
	if err != nil || total == 0 {
		tb.Fatalf("read %s: %d bytes, %v", dir, total, err)
	}
	step := max(total/n, 1)
	c := &corpus.Corpus{Source: 1, ID: fmt.Sprintf("sha256:bench-code-%d", n)}
	for _, f := range files {
		for start := 0; start < len(f.text); start += step {
			end := min(start+1000, len(f.text))
			if i := strings.LastIndexByte(f.text[start:end], '\n'); i > 0 && end < len(f.text) {
				end = start + i
			}
			c.Chunks = append(c.Chunks, corpus.Chunk{ID: fmt.Sprintf("%s#%d", f.rel, len(c.Chunks)), Source: f.rel, Text: f.text[start:end]})
		}
	}
	return c
}

// docsLikeCorpus is ≈ bytes of synthetic English-like prose in chunks of
// ≤ 1,000 characters: words from a 30,000-word vocabulary drawn with a
// Zipf (s = 1.1) law, seeded, so every run builds the same corpus.
func docsLikeCorpus(bytes int) *corpus.Corpus {
	r := rand.New(rand.NewPCG(1, 2))
	vocab := make([]string, 30000)
	for i := range vocab {
		var b strings.Builder
		for range 3 + r.IntN(8) {
			b.WriteByte(byte('a' + r.IntN(26)))
		}
		vocab[i] = b.String()
	}
	z := rand.NewZipf(rand.New(rand.NewPCG(3, 4)), 1.1, 1, uint64(len(vocab)-1))
	c := &corpus.Corpus{Source: 2, ID: fmt.Sprintf("sha256:bench-docs-%d", bytes)}
	for size := 0; size < bytes; {
		var b strings.Builder
		for b.Len() < 940 {
			b.WriteString(vocab[z.Uint64()])
			b.WriteByte(' ')
		}
		c.Chunks = append(c.Chunks, corpus.Chunk{ID: fmt.Sprintf("doc#%d", len(c.Chunks)), Source: "synthetic", Text: b.String()})
		size += b.Len()
	}
	return c
}

// benchQueries draws n queries of 3–6 terms from chunks of c, seeded: a
// question naming a few identifiers.
func benchQueries(c *corpus.Corpus, n int) []string {
	r := rand.New(rand.NewPCG(5, 6))
	out := make([]string, n)
	for i := range out {
		toks := Tokenize(c.Chunks[r.IntN(len(c.Chunks))].Text)
		var q []string
		for range 3 + r.IntN(4) {
			if len(toks) > 0 {
				q = append(q, toks[r.IntN(len(toks))])
			}
		}
		out[i] = strings.Join(q, " ")
	}
	return out
}

var (
	benchOnce  sync.Map // name → *corpus.Corpus
	codeChunks = 20000
)

func cachedCorpus(tb testing.TB, name string) *corpus.Corpus {
	if c, ok := benchOnce.Load(name); ok {
		return c.(*corpus.Corpus)
	}
	var c *corpus.Corpus
	switch name {
	case "source1", "source2":
		root := os.Getenv("MATTOOLS_DATA")
		if root == "" {
			tb.Skip("MATTOOLS_DATA is not set: the real corpora of retrieval sources 1 and 2 need the data root")
		}
		build := corpus.BuildCode
		if name == "source2" {
			build = corpus.BuildDocs
		}
		var err error
		if c, err = build(root, corpus.Options{}); err != nil {
			tb.Fatal(err)
		}
	case "code":
		c = codeLikeCorpus(tb, codeChunks)
	default:
		c = docsLikeCorpus(16 << 20)
	}
	benchOnce.Store(name, c)
	return c
}

// questionQueries returns the 49 tool-usage questions (stripped), the
// queries LLM-RAG sends, or nil without MATTOOLS_DATA.
func questionQueries(tb testing.TB) []string {
	root := os.Getenv("MATTOOLS_DATA")
	if root == "" {
		return nil
	}
	bench, err := datasets.Load(root)
	if err != nil {
		tb.Fatal(err)
	}
	var qs []string
	for _, q := range bench.Questions {
		qs = append(qs, strings.TrimSpace(q.Text))
	}
	return qs
}

// The benchmarks run on the real corpora of sources 1 and 2 (source1,
// source2; MATTOOLS_DATA), queried with the 49 questions, and on the
// synthetic code-like and docs-like corpora (code, docs).
var benchCorpora = []string{"source1", "source2", "code", "docs"}

func BenchmarkBM25Build(b *testing.B) {
	for _, name := range benchCorpora {
		b.Run(name, func(b *testing.B) {
			c := cachedCorpus(b, name)
			bytes := 0
			for _, ch := range c.Chunks {
				bytes += len(ch.Text)
			}
			b.SetBytes(int64(bytes))
			for b.Loop() {
				if _, err := NewBM25(context.Background(), c, BM25Options{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(c.Chunks)), "chunks")
		})
	}
}

// BenchmarkBM25Persist: write builds and persists the index; load reads it back.
func BenchmarkBM25Persist(b *testing.B) {
	c := cachedCorpus(b, "code")
	b.Run("write", func(b *testing.B) {
		for b.Loop() {
			dir := b.TempDir()
			if _, err := NewBM25(context.Background(), c, BM25Options{CacheDir: dir}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("load", func(b *testing.B) {
		dir := b.TempDir()
		if _, err := NewBM25(context.Background(), c, BM25Options{CacheDir: dir}); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			ix, err := NewBM25(context.Background(), c, BM25Options{CacheDir: dir})
			if err != nil || !ix.Loaded() {
				b.Fatal(err)
			}
		}
	})
}

// reportLatency adds the p50 and p99 of one operation, in milliseconds.
func reportLatency(b *testing.B, lat []time.Duration) {
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	q := func(p float64) float64 {
		return float64(lat[int(math.Ceil(p*float64(len(lat))))-1]) / float64(time.Millisecond)
	}
	b.ReportMetric(q(0.50), "p50-ms")
	b.ReportMetric(q(0.99), "p99-ms")
}

func BenchmarkBM25Query(b *testing.B) {
	for _, name := range benchCorpora {
		b.Run(name, func(b *testing.B) {
			c := cachedCorpus(b, name)
			ix, err := NewBM25(context.Background(), c, BM25Options{})
			if err != nil {
				b.Fatal(err)
			}
			qs := benchQueries(c, 200)
			if strings.HasPrefix(name, "source") {
				qs = questionQueries(b)
			}
			var lat []time.Duration
			i := 0
			for b.Loop() {
				t := time.Now()
				if _, err := ix.Search(context.Background(), qs[i%len(qs)], 10); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t))
				i++
			}
			reportLatency(b, lat)
		})
	}
}

func BenchmarkDenseExactSearch20000x3072(b *testing.B) {
	const n, dims = 20000, 3072
	r := rand.New(rand.NewPCG(7, 8))
	d := &Dense{c: &corpus.Corpus{Chunks: make([]corpus.Chunk, n)}, dims: dims, vecs: make([]float32, n*dims), workers: runtime.GOMAXPROCS(0)}
	v := make([]float32, dims)
	for i := range n {
		for j := range v {
			v[j] = float32(r.NormFloat64())
		}
		normalise(d.vecs[i*dims:(i+1)*dims], v)
	}
	q := make([]float32, dims)
	var lat []time.Duration
	for b.Loop() {
		for j := range v {
			v[j] = float32(r.NormFloat64())
		}
		normalise(q, v)
		t := time.Now()
		if hits := d.searchVector(q, 10); len(hits) != 10 {
			b.Fatal(len(hits))
		}
		lat = append(lat, time.Since(t))
	}
	reportLatency(b, lat)
	b.ReportMetric(float64(n*dims*4)/(1<<20), "MB-vectors")
}
