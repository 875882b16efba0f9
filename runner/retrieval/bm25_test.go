package retrieval

// Tests of Tokenize and BM25: ranking against the formula, persistence,
// reuse and corruption.

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/datasets/corpus"
)

func TestTokenize(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"get_structure", []string{"get", "structure"}},
		{"HTTPServer", []string{"http", "server"}},
		{"getHTTPResponseCode", []string{"get", "http", "response", "code"}},
		{"DefectEntry", []string{"defect", "entry"}},
		{"pymatgen.analysis.defects", []string{"pymatgen.analysis.defects", "pymatgen", "analysis", "defects"}},
		{"Structure.from_file(HTTPServer2)", []string{"structure.from_file", "structure", "from", "file", "http", "server", "2"}},
		{"float64 MP2020Compatibility", []string{"float", "64", "mp", "2020", "compatibility"}},
		{"__init__", []string{"init"}},
		{"End of sentence. Next", []string{"end", "of", "sentence", "next"}},
		{"a..b .c d.", []string{"a", "b", "c", "d"}},
		{"E = 1.5 eV", []string{"e", "1.5", "1", "5", "e", "v"}}, // "eV" is CamelCase
		{"ÉnergieDéfaut", []string{"énergie", "défaut"}},
		{"x+=y[0]", []string{"x", "y", "0"}},
		{"  ", nil},
	}
	for _, tt := range tests {
		if got := Tokenize(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Tokenize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// handCorpus exercises ranking: c0 and c4 are identical (a tie), c3 is short.
// Terms (Tokenize) and lengths:
//
//	c0 def get structure return structure        |d| = 5
//	c1 class defect entry defect energy          |d| = 5
//	c2 structure matcher compares structure structure  |d| = 5
//	c3 lattice vectors                           |d| = 2
//	c4 = c0                                      |d| = 5     avgdl = 22/5 = 4.4
func handCorpus() *corpus.Corpus {
	texts := []string{
		"def get_structure(): return Structure",
		"class DefectEntry: defect energy",
		"structure matcher compares structure structure",
		"lattice vectors",
		"def get_structure(): return Structure",
	}
	c := &corpus.Corpus{Source: 1, ID: "sha256:hand"}
	for i, s := range texts {
		c.Chunks = append(c.Chunks, corpus.Chunk{ID: "c" + string(rune('0'+i)), Source: "hand.py", Name: "n", Text: s})
	}
	return c
}

// bm25Term is one term's contribution, from the formula on BM25.
func bm25Term(tf, df, n, dl, avgdl float64) float64 {
	idf := math.Log(1 + (n-df+0.5)/(df+0.5))
	return idf * tf * (1.2 + 1) / (tf + 1.2*(1-0.75+0.75*dl/avgdl))
}

func TestBM25RanksAHandCorpusByTheFormula(t *testing.T) {
	b, err := NewBM25(context.Background(), handCorpus(), BM25Options{})
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		id    string
		score float64
	}
	tests := []struct {
		query string
		k     int
		want  []want
	}{
		// "structure": df = 3 of N = 5, idf = ln(1 + 2.5/3.5) = 0.5390; c2 has tf 3,
		// c0 and c4 tf 2 (tie: corpus order). ≈ 0.8231, 0.7058, 0.7058.
		{"structure", 10, []want{{"c2", bm25Term(3, 3, 5, 5, 4.4)}, {"c0", bm25Term(2, 3, 5, 5, 4.4)}, {"c4", bm25Term(2, 3, 5, 5, 4.4)}}},
		// "defect lattice": both df = 1, idf = ln 4 = 1.3863; c1 tf 2 at |d| 5 →
		// 1.3863·4.4/3.3227 = 1.8357; c3 tf 1 at |d| 2 → 1.3863·2.2/1.7091 = 1.7845.
		{"defect lattice", 10, []want{{"c1", bm25Term(2, 1, 5, 5, 4.4)}, {"c3", bm25Term(1, 1, 5, 2, 4.4)}}},
		// k cuts after the tie-broken order.
		{"structure", 2, []want{{"c2", bm25Term(3, 3, 5, 5, 4.4)}, {"c0", bm25Term(2, 3, 5, 5, 4.4)}}},
		// A duplicated query term counts twice; "get" (df 2) adds to c0 and c4 only.
		{"get_structure structure", 3, []want{
			{"c0", bm25Term(1, 2, 5, 5, 4.4) + 2*bm25Term(2, 3, 5, 5, 4.4)},
			{"c4", bm25Term(1, 2, 5, 5, 4.4) + 2*bm25Term(2, 3, 5, 5, 4.4)},
			{"c2", 2 * bm25Term(3, 3, 5, 5, 4.4)}}},
		{"nothing matches", 5, nil},
		{"", 5, nil},
	}
	for _, tt := range tests {
		hits, err := b.Search(context.Background(), tt.query, tt.k)
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != len(tt.want) {
			t.Fatalf("Search(%q, %d) = %d hits %+v, want %d", tt.query, tt.k, len(hits), hits, len(tt.want))
		}
		for i, w := range tt.want {
			h := hits[i]
			if h.ChunkID != w.id || h.Rank != i+1 || math.Abs(h.Score-w.score) > 1e-12 || h.Source != "hand.py" || h.Name != "n" || h.Text == "" {
				t.Errorf("Search(%q)[%d] = %s rank %d score %.6f, want %s rank %d score %.6f", tt.query, i, h.ChunkID, h.Rank, h.Score, w.id, i+1, w.score)
			}
		}
	}
	if _, err := b.Search(context.Background(), "x", 0); err == nil {
		t.Error("k = 0 accepted")
	}
	if b.Method() != "bm25" || b.CorpusID() != "sha256:hand" {
		t.Errorf("Method %q CorpusID %q", b.Method(), b.CorpusID())
	}
	// Spot-check the arithmetic in the comments above.
	if s := bm25Term(2, 1, 5, 5, 4.4); math.Abs(s-1.8357) > 1e-4 {
		t.Errorf("c1 score %.4f, want 1.8357", s)
	}
}

// entries lists dir's names.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestBM25IndexIsPersistedReusedAndRebuiltWhenCorrupt(t *testing.T) {
	ctx := context.Background()
	cache := t.TempDir()
	c := handCorpus()
	first, err := NewBM25(ctx, c, BM25Options{CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := first.Search(ctx, "structure defect", 5)
	if first.Loaded() || first.Dir() != filepath.Join(cache, "bm25-hand-t1") {
		t.Fatalf("first: Loaded %v Dir %q", first.Loaded(), first.Dir())
	}
	if got := entries(t, cache); !reflect.DeepEqual(got, []string{"bm25-hand-t1"}) {
		t.Fatalf("cache holds %q, want only the index directory", got)
	}
	file := filepath.Join(first.Dir(), "index.bin")

	check := func(name string, wantLoaded bool, wantWarning string) {
		t.Helper()
		b, err := NewBM25(ctx, c, BM25Options{CacheDir: cache})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if b.Loaded() != wantLoaded {
			t.Errorf("%s: Loaded = %v, want %v", name, b.Loaded(), wantLoaded)
		}
		if ws := b.Warnings(); wantWarning == "" && len(ws) > 0 || wantWarning != "" && (len(ws) != 1 || !strings.Contains(ws[0].Error(), wantWarning)) {
			t.Errorf("%s: warnings %v, want %q", name, ws, wantWarning)
		}
		if got, _ := b.Search(ctx, "structure defect", 5); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: hits %+v, want %+v", name, got, want)
		}
		if got := entries(t, cache); !reflect.DeepEqual(got, []string{"bm25-hand-t1"}) {
			t.Errorf("%s: cache holds %q", name, got)
		}
	}
	check("reuse", true, "")

	data, _ := os.ReadFile(file)
	flipped := append([]byte(nil), data...)
	flipped[len(flipped)/2] ^= 0xff
	os.WriteFile(file, flipped, 0o644)
	check("flipped byte", false, "checksum mismatch")
	check("reuse after rebuild", true, "")

	os.WriteFile(file, data[:len(data)-40], 0o644)
	check("truncated", false, "checksum mismatch")

	os.WriteFile(file, []byte("garbage"), 0o644)
	check("garbage", false, "not a BM25 index")

	os.Remove(file)
	check("missing file in the directory", false, "")

	// Same ID, other text: the fingerprint tells.
	c2 := handCorpus()
	c2.Chunks[3].Text = "lattice parameters"
	b, err := NewBM25(ctx, c2, BM25Options{CacheDir: cache})
	if err != nil || b.Loaded() || len(b.Warnings()) != 1 || !strings.Contains(b.Warnings()[0].Error(), "fingerprint") {
		t.Fatalf("changed chunks: Loaded %v warnings %v err %v", b.Loaded(), b.Warnings(), err)
	}
}

func TestBM25LeavesNothingWhenBuildFails(t *testing.T) {
	cache := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewBM25(ctx, handCorpus(), BM25Options{CacheDir: cache}); err == nil {
		t.Fatal("cancelled build succeeded")
	}
	if got := entries(t, cache); len(got) != 0 {
		t.Errorf("cache holds %q after a failed build", got)
	}
	// A cache path that is a file cannot hold the index: an error, no panic.
	f := filepath.Join(cache, "file")
	os.WriteFile(f, nil, 0o644)
	if _, err := NewBM25(context.Background(), handCorpus(), BM25Options{CacheDir: f}); err == nil {
		t.Error("a file as cache directory was accepted")
	}
	if _, err := NewBM25(context.Background(), &corpus.Corpus{}, BM25Options{}); err == nil {
		t.Error("empty corpus accepted")
	}
	if _, err := NewBM25(context.Background(), &corpus.Corpus{Chunks: handCorpus().Chunks}, BM25Options{CacheDir: cache}); err == nil {
		t.Error("a cache without corpus ID accepted")
	}
}
