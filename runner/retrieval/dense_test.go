package retrieval

// Tests of Dense against the loopback fake: order against brute force, the
// Parquet cache, resumption, and every bad response.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/mattools-leaderboard/leaderboard/datasets/corpus"
	"github.com/mattools-leaderboard/leaderboard/llm"
	"github.com/mattools-leaderboard/leaderboard/llm/llmtest"
)

// denseCorpus has 17 chunks over a small vocabulary; chunks 5 and 11 are
// identical, so they tie.
func denseCorpus() *corpus.Corpus {
	words := []string{"structure", "lattice", "defect", "energy", "band", "gap", "phonon", "dos", "vasp", "cif"}
	c := &corpus.Corpus{Source: 2, ID: "sha256:dense"}
	for i := range 17 {
		text := fmt.Sprintf("%s %s %s", words[i%10], words[(i*3+1)%10], words[(i*7+2)%10])
		if i == 11 {
			text = c.Chunks[5].Text
		}
		c.Chunks = append(c.Chunks, corpus.Chunk{ID: fmt.Sprintf("d%02d", i), Source: "doc", Text: text})
	}
	return c
}

func client(t *testing.T, srv *llmtest.Server, cfg llm.Config) *llm.Client {
	t.Helper()
	cfg.BaseURL, cfg.Model = srv.URL, "chat"
	if cfg.Sleep == nil {
		cfg.Sleep = func(ctx context.Context, d time.Duration) error { return ctx.Err() }
	}
	c, err := llm.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// bruteForce ranks c for query by float64 cosine of the fake's vectors,
// ties by index.
func bruteForce(c *corpus.Corpus, query string, dims int) []scored {
	q := llmtest.Embedding(query, dims)
	var out []scored
	for i, ch := range c.Chunks {
		v := llmtest.Embedding(ch.Text, dims)
		var dot, nq, nv float64
		for j := range v {
			dot += float64(q[j]) * float64(v[j])
			nq += float64(q[j]) * float64(q[j])
			nv += float64(v[j]) * float64(v[j])
		}
		out = append(out, scored{doc: i, score: dot / math.Sqrt(nq*nv)})
	}
	sort.SliceStable(out, func(a, b int) bool {
		if math.Abs(out[a].score-out[b].score) > 1e-6 {
			return out[a].score > out[b].score
		}
		return out[a].doc < out[b].doc
	})
	return out
}

func TestDenseSearchMatchesBruteForceAndReusesItsParquetCache(t *testing.T) {
	ctx := context.Background()
	srv := llmtest.New(t, llmtest.Options{EmbeddingDims: 32})
	c, cache := denseCorpus(), t.TempDir()
	d, err := NewDense(ctx, c, client(t, srv, llm.Config{}), DenseOptions{Model: "emb", BatchSize: 5, CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(srv.Requests()); n != 4 || d.Reused() != 0 || d.Dims() != 32 { // ⌈17/5⌉ = 4 batches
		t.Fatalf("%d requests, reused %d, dims %d; want 4, 0, 32", n, d.Reused(), d.Dims())
	}
	for _, query := range []string{"defect energy", "band gap lattice", c.Chunks[5].Text, "unrelated words"} {
		for _, k := range []int{1, 5, 17, 50} {
			hits, err := d.Search(ctx, query, k)
			if err != nil {
				t.Fatal(err)
			}
			want := bruteForce(c, query, 32)[:min(k, 17)]
			if len(hits) != len(want) {
				t.Fatalf("%q k=%d: %d hits, want %d", query, k, len(hits), len(want))
			}
			for i, w := range want {
				if hits[i].ChunkID != c.Chunks[w.doc].ID || hits[i].Rank != i+1 || math.Abs(hits[i].Score-w.score) > 1e-5 {
					t.Errorf("%q k=%d [%d] = %s %.6f, want %s %.6f", query, k, i, hits[i].ChunkID, hits[i].Score, c.Chunks[w.doc].ID, w.score)
				}
			}
		}
	}
	// The tie: querying chunk 5's text ranks 5 then 11, both at cosine 1.
	hits, _ := d.Search(ctx, c.Chunks[5].Text, 2)
	if hits[0].ChunkID != "d05" || hits[1].ChunkID != "d11" || math.Abs(hits[1].Score-1) > 1e-6 {
		t.Errorf("tie: %+v", hits)
	}

	// The cache: one Parquet file with the documented columns, no parts left.
	if got := entries(t, cache); len(got) != 1 || got[0] != "embeddings-dense-emb.parquet" {
		t.Fatalf("cache holds %q", got)
	}
	rows, err := parquet.ReadFile[embeddingRow](d.Path())
	sum := sha256.Sum256([]byte(c.Chunks[3].Text))
	if err != nil || len(rows) != 17 || rows[3].ChunkID != "d03" || rows[3].Model != "emb" || len(rows[3].Vector) != 32 ||
		rows[3].ChunkSHA256 != hex.EncodeToString(sum[:]) {
		t.Fatalf("rows %d err %v", len(rows), err)
	}
	if rows[3].Vector[0] != llmtest.Embedding(c.Chunks[3].Text, 32)[0] {
		t.Errorf("stored vector differs from the server's")
	}
	f, _ := os.Open(d.Path())
	st, _ := f.Stat()
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	var cols []string
	for _, fl := range pf.Schema().Fields() {
		cols = append(cols, fl.Name())
	}
	f.Close()
	if strings.Join(cols, ",") != "chunk_id,chunk_sha256,model,vector" {
		t.Errorf("columns %v", cols)
	}
	if s := pf.Schema().String(); !strings.Contains(s, "repeated float element") && !strings.Contains(s, "float") {
		t.Errorf("vector is not list<float>: %s", s)
	}

	before := len(srv.Requests())
	d2, err := NewDense(ctx, c, client(t, srv, llm.Config{}), DenseOptions{Model: "emb", BatchSize: 5, CacheDir: cache, Dimensions: 32})
	if err != nil || d2.Reused() != 17 || len(srv.Requests()) != before {
		t.Fatalf("reuse: err %v, reused %d, %d new requests", err, d2.Reused(), len(srv.Requests())-before)
	}
	// Another model is another file.
	if _, err := NewDense(ctx, c, client(t, srv, llm.Config{}), DenseOptions{Model: "emb-2", BatchSize: 100, CacheDir: cache}); err != nil {
		t.Fatal(err)
	}
	if got := entries(t, cache); len(got) != 2 {
		t.Errorf("cache holds %q, want two model files", got)
	}
	if d.Method() != "embedding" || d.CorpusID() != "sha256:dense" {
		t.Errorf("Method %q CorpusID %q", d.Method(), d.CorpusID())
	}
}

func TestDenseResumesFromVerifiedBatchParts(t *testing.T) {
	ctx := context.Background()
	c, cache := denseCorpus(), t.TempDir()
	// Batches 1 and 2 succeed; batch 3 gets 500s until the retries run out.
	bad := llmtest.New(t, llmtest.Options{EmbeddingDims: 16, FaultSequence: []llmtest.Fault{"", "", llmtest.FaultServerError, llmtest.FaultServerError}})
	_, err := NewDense(ctx, c, client(t, bad, llm.Config{MaxRetries: 1}), DenseOptions{Model: "emb", BatchSize: 5, CacheDir: cache})
	var le *llm.Error
	if err == nil || !strings.Contains(err.Error(), "batch 3 of 4 (chunks 10–14)") || !errors.As(err, &le) || le.Status != 500 || le.Attempts != 2 {
		t.Fatalf("err = %v; want batch 3 of 4 failing with HTTP 500 after 2 attempts", err)
	}
	parts := filepath.Join(cache, "embeddings-dense-emb.parts")
	if got := entries(t, parts); strings.Join(got, " ") != "part-00000000-00000005.parquet part-00000005-00000010.parquet" {
		t.Fatalf("parts %q", got)
	}
	if got := entries(t, cache); len(got) != 1 {
		t.Fatalf("cache holds %q, want only the parts directory", got)
	}
	// Corrupt part 2: it must be verified and recomputed, part 1 reused.
	os.WriteFile(filepath.Join(parts, "part-00000005-00000010.parquet"), []byte("PAR1 not really"), 0o644)

	good := llmtest.New(t, llmtest.Options{EmbeddingDims: 16})
	d, err := NewDense(ctx, c, client(t, good, llm.Config{}), DenseOptions{Model: "emb", BatchSize: 5, CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	reqs := good.Requests()
	if d.Reused() != 5 || len(reqs) != 3 || reqs[0].Inputs[0] != c.Chunks[5].Text {
		t.Fatalf("reused %d with %d requests (first input %q); want 5 reused, batches 2–4 requested", d.Reused(), len(reqs), reqs[0].Inputs[0])
	}
	if got := entries(t, cache); len(got) != 1 || got[0] != "embeddings-dense-emb.parquet" {
		t.Errorf("cache holds %q after the merge", got)
	}
	hits, _ := d.Search(ctx, "defect energy", 3)
	want := bruteForce(c, "defect energy", 16)
	if hits[0].ChunkID != c.Chunks[want[0].doc].ID {
		t.Errorf("after resume: %+v, want %s first", hits, c.Chunks[want[0].doc].ID)
	}
}

func TestDenseRejectsBadResponsesNamingTheBatch(t *testing.T) {
	tests := []struct {
		name    string
		opts    llmtest.Options
		cfg     llm.Config
		dopts   DenseOptions
		wantErr []string
		invalid bool // wraps llm.ErrInvalidEmbeddings
	}{
		{name: "wrong dimension within a batch", opts: llmtest.Options{FaultSequence: []llmtest.Fault{"", llmtest.FaultWrongDimension}},
			wantErr: []string{"batch 2 of 4 (chunks 5–9)", "vector 4 has 63 dimensions, vector 0 has 64"}, invalid: true},
		{name: "wrong dimension against the first vector", opts: llmtest.Options{FaultSequence: []llmtest.Fault{"", llmtest.FaultWrongDimension}},
			dopts:   DenseOptions{BatchSize: 1},
			wantErr: []string{"batch 2 of 17 (chunks 1–1)", `vector 0 (chunk "d01")`, "63 dimensions, want 64 (the first vector received)"}},
		{name: "wrong dimension against the expected one", dopts: DenseOptions{Dimensions: 3072},
			wantErr: []string{"batch 1 of 4 (chunks 0–4)", "64 dimensions, want 3072 (DenseOptions.Dimensions)"}},
		{name: "NaN", opts: llmtest.Options{FaultSequence: []llmtest.Fault{"", "", llmtest.FaultNaN}}, cfg: llm.Config{EmbeddingFormat: "base64"},
			wantErr: []string{"batch 3 of 4 (chunks 10–14)", "vector 4 component 0 is NaN"}, invalid: true},
		{name: "Inf", opts: llmtest.Options{FaultSequence: []llmtest.Fault{llmtest.FaultInf}}, cfg: llm.Config{EmbeddingFormat: "base64"},
			wantErr: []string{"batch 1 of 4", "component 0 is +Inf"}, invalid: true},
		{name: "short list", opts: llmtest.Options{FaultSequence: []llmtest.Fault{"", "", "", llmtest.FaultShortList}},
			wantErr: []string{"batch 4 of 4 (chunks 15–16)", "1 vectors for 2 inputs"}, invalid: true},
		{name: "index out of order", opts: llmtest.Options{FaultSequence: []llmtest.Fault{llmtest.FaultIndexOrder}},
			wantErr: []string{"batch 1 of 4", "vector 0 has index 1"}, invalid: true},
		{name: "500 until the retries run out", opts: llmtest.Options{FaultRate: 1, Faults: []llmtest.Fault{llmtest.FaultServerError}}, cfg: llm.Config{MaxRetries: 2},
			wantErr: []string{"batch 1 of 4", "3 attempt(s)", "500"}},
		{name: "429 until the retries run out", opts: llmtest.Options{FaultRate: 1, Faults: []llmtest.Fault{llmtest.FaultRateLimit}}, cfg: llm.Config{MaxRetries: 1},
			wantErr: []string{"batch 1 of 4", "2 attempt(s)", "429"}},
		{name: "timeouts until the retries run out", opts: llmtest.Options{FaultRate: 1, Faults: []llmtest.Fault{llmtest.FaultHang}},
			cfg: llm.Config{MaxRetries: 1, Timeout: 100 * time.Millisecond}, wantErr: []string{"batch 1 of 4", "request timeout of 100ms"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.New(t, tt.opts)
			cache := t.TempDir()
			tt.dopts.Model, tt.dopts.CacheDir = "emb", cache
			if tt.dopts.BatchSize == 0 {
				tt.dopts.BatchSize = 5
			}
			_, err := NewDense(context.Background(), denseCorpus(), client(t, srv, tt.cfg), tt.dopts)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err = %v\nwant it to contain %q", err, w)
				}
			}
			if errors.Is(err, llm.ErrInvalidEmbeddings) != tt.invalid {
				t.Errorf("errors.Is(err, ErrInvalidEmbeddings) = %v, want %v", !tt.invalid, tt.invalid)
			}
			// Nothing partial: no final file, no temporary file; only verified parts.
			if _, err := os.Stat(filepath.Join(cache, "embeddings-dense-emb.parquet")); err == nil {
				t.Error("a final file was written")
			}
			filepath.Walk(cache, func(p string, fi os.FileInfo, err error) error {
				if strings.Contains(filepath.Base(p), ".tmp-") {
					t.Errorf("temporary file left: %s", p)
				}
				return nil
			})
		})
	}
}

func TestDenseRetriesTransientFailuresAndTheQueryIsEmbeddedPerSearch(t *testing.T) {
	srv := llmtest.New(t, llmtest.Options{EmbeddingDims: 16, SlowDelay: time.Minute, // past the timeout by far; the other answers arrive well within it
		FaultSequence: []llmtest.Fault{llmtest.FaultRateLimit, "", llmtest.FaultServerError, llmtest.FaultSlow}})
	c := denseCorpus()
	retry := true // the fake is on 127.0.0.1, whose timeouts llm does not retry by default
	d, err := NewDense(context.Background(), c, client(t, srv, llm.Config{Timeout: 2 * time.Second, RetryTimeouts: &retry}), DenseOptions{Model: "emb", BatchSize: 10})
	if err != nil {
		t.Fatal(err)
	}
	// 429 → OK (batch 1), 500 → slow (timeout) → OK (batch 2).
	if got := srv.FaultCounts(); got[llmtest.FaultRateLimit] != 1 || got[llmtest.FaultServerError] != 1 || got[llmtest.FaultSlow] != 1 || srv.Answered() != 2 {
		t.Fatalf("faults %v answered %d", got, srv.Answered())
	}
	if _, err := d.Search(context.Background(), "band gap", 3); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if last := reqs[len(reqs)-1]; len(last.Inputs) != 1 || last.Inputs[0] != "band gap" || last.Model != "emb" {
		t.Errorf("query request %+v", last)
	}
	if _, err := d.Search(context.Background(), "x", 0); err == nil {
		t.Error("k = 0 accepted")
	}
}
