package retrieval

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/llm"
	"github.com/mattools-leaderboard/leaderboard/llm/llmtest"
)

// TestPercentile checks numpy.percentile(values, q) (method "linear");
// the wanted values are numpy 2.4.6's reprs, derived by hand in comments.
func TestPercentile(t *testing.T) {
	for _, c := range []struct {
		vals []float64
		q    float64
		want float64
	}{
		// v = 3·0.95 = 2.8499999999999996, g ≥ 0.5: 4 − 1·(1−g) = 4 − 0.15000000000000036.
		{[]float64{1, 2, 3, 4}, 95, 3.8499999999999996},
		{[]float64{4, 3, 2, 1}, 95, 3.8499999999999996}, // sorted first
		{[]float64{0.5}, 95, 0.5},                       // v = 0 ≥ n−1: the only value
		// v = 0.95: 0.9 − 0.8·0.05 = 0.86.
		{[]float64{0.1, 0.9}, 95, 0.86},
		// v = 20·0.95 rounds to 19 exactly: sorted[19].
		{[]float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}, 95, 19},
		{[]float64{3, 1, 2}, 50, 2},          // v = 1, g = 0
		{[]float64{0, 10}, 25, 2.5},          // g = 0.25 < 0.5: 0 + 10·0.25
		{[]float64{0.3, 0.1, 0.2}, 0, 0.1},   // minimum
		{[]float64{0.3, 0.1, 0.2}, 100, 0.3}, // maximum
		{[]float64{0.04, 0.4, 0.2928932188134524}, 95, 0.38928932188134524},
		// numpy's _lerp for g ≥ 0.5 is b − (b−a)·(1−g) = 1.3278999999999999,
		// where a + (b−a)·g would give 1.3279.
		{[]float64{0.623, 1.365}, 95, 1.3278999999999999},
	} {
		if got := Percentile(c.vals, c.q); got != c.want {
			t.Errorf("Percentile(%v, %v) = %v, want %v (numpy)", c.vals, c.q, got, c.want)
		}
	}
	if !math.IsNaN(Percentile(nil, 95)) || !math.IsNaN(Percentile([]float64{1}, 101)) {
		t.Error("Percentile of no values or q > 100 should be NaN")
	}
	in := []float64{3, 1, 2}
	Percentile(in, 50)
	if !reflect.DeepEqual(in, []float64{3, 1, 2}) {
		t.Errorf("Percentile changed its input: %v", in)
	}
}

// TestSplitSentences checks re.split(r"(?<=[.?!])\s+", text); every case
// was run through Python 3.11's re.
func TestSplitSentences(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"One. Two? Three! Four", []string{"One.", "Two?", "Three!", "Four"}},
		{"a.b c", []string{"a.b c"}},
		{"Hi.  \n\tThere.", []string{"Hi.", "There."}},
		{"End. ", []string{"End.", ""}},
		{"", []string{""}},
		{"x . y", []string{"x .", "y"}},
		{"3.14 is pi", []string{"3.14 is pi"}},
		{"Wow!\u00a0Yes", []string{"Wow!", "Yes"}},   // NBSP is \s
		{"Wow!\u200bYes", []string{"Wow!\u200bYes"}}, // zero-width space is not
		{"e.g. this", []string{"e.g.", "this"}},
		{"...  next", []string{"...", "next"}},
		{"Q?\u3000A", []string{"Q?", "A"}},
		{"A.\x1cB", []string{"A.", "B"}},
		{"A.\u0085B", []string{"A.", "B"}},
		{"Done.\n\n# Next\nText. More", []string{"Done.", "# Next\nText.", "More"}},
	} {
		if got := SplitSentences(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("SplitSentences(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestCombineSentences(t *testing.T) {
	if got, want := CombineSentences([]string{"a", "b", "c"}, 1), []string{"a b", "a b c", "b c"}; !reflect.DeepEqual(got, want) {
		t.Errorf("buffer 1: %q, want %q", got, want)
	}
	if got, want := CombineSentences([]string{"End.", ""}, 1), []string{"End. ", "End. "}; !reflect.DeepEqual(got, want) {
		t.Errorf("empty last sentence: %q, want %q", got, want)
	}
	if got, want := CombineSentences([]string{"a", "b", "c", "d"}, 2), []string{"a b c", "a b c d", "a b c d", "b c d"}; !reflect.DeepEqual(got, want) {
		t.Errorf("buffer 2: %q, want %q", got, want)
	}
}

// tableEmbedder returns the vector of each input from a table and records
// the requests.
type tableEmbedder struct {
	vecs  map[string][]float32
	calls [][]string
	err   error
	mod   func([][]float32) [][]float32
}

func (e *tableEmbedder) Embed(ctx context.Context, model string, inputs []string) (*llm.Embeddings, error) {
	e.calls = append(e.calls, append([]string(nil), inputs...))
	if e.err != nil {
		return nil, e.err
	}
	var out [][]float32
	for _, in := range inputs {
		v, ok := e.vecs[in]
		if !ok {
			return nil, fmt.Errorf("no vector for %q", in)
		}
		out = append(out, append([]float32(nil), v...))
	}
	if e.mod != nil {
		out = e.mod(out)
	}
	return &llm.Embeddings{Vectors: out, Model: model}, nil
}

// TestSemanticHand is a small document with distances computed by hand.
// Sentences A–D combine to "A. B." (3,4), "A. B. C." (4,3), "B. C. D."
// (0,1), "C. D." (1,1): cosines 24/25, 3/5 and 1/√2, so the distances are
// 0.04, 0.4 and 1 − 1/√2 ≈ 0.29289; the 95th percentile of the sorted
// [0.04, 0.29289, 0.4] is at v = 1.9: 0.4 − 0.10711·0.1 = 0.389289…; only
// 0.4 (index 1) exceeds it, so the chunks are "A. B." and "C. D.".
func TestSemanticHand(t *testing.T) {
	e := &tableEmbedder{vecs: map[string][]float32{
		"A. B.": {3, 4}, "A. B. C.": {4, 3}, "B. C. D.": {0, 1}, "C. D.": {1, 1},
	}}
	rs, err := SemanticBatch(context.Background(), []string{"A. B. C. D."}, e, "m", SemanticOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := rs[0]
	want := []float64{0.04, 0.4, 1 - 1/math.Sqrt2}
	for i, d := range r.Distances {
		if math.Abs(d-want[i]) > 1e-15 {
			t.Errorf("distance %d = %v, want %v", i, d, want[i])
		}
	}
	if math.Abs(r.Threshold-0.38928932188134524) > 1e-15 {
		t.Errorf("threshold %v, want 0.389289…", r.Threshold)
	}
	if !reflect.DeepEqual(r.Breakpoints, []int{1}) || !reflect.DeepEqual(r.Chunks, []string{"A. B.", "C. D."}) {
		t.Errorf("breakpoints %v chunks %q, want [1] [\"A. B.\" \"C. D.\"]", r.Breakpoints, r.Chunks)
	}
	if len(e.calls) != 1 || !reflect.DeepEqual(e.calls[0], []string{"A. B.", "A. B. C.", "B. C. D.", "C. D."}) {
		t.Errorf("requests %q, want one with the four combined sentences", e.calls)
	}

	// MinChunkSize 6: "A. B." (5 characters) is carried on; the rest is one chunk.
	rs, err = SemanticBatch(context.Background(), []string{"A. B. C. D."}, e, "m", SemanticOptions{MinChunkSize: 6})
	if err != nil || !reflect.DeepEqual(rs[0].Chunks, []string{"A. B. C. D."}) {
		t.Errorf("MinChunkSize 6: %q, %v", rs[0].Chunks, err)
	}

	// A zero vector: numpy's NaN similarity counts as 0, distance 1.
	if d := CosineDistances([][]float32{{0, 0}, {1, 0}}); len(d) != 1 || d[0] != 1 {
		t.Errorf("zero vector distance %v, want [1]", d)
	}
}

func TestSemanticEdgeCases(t *testing.T) {
	ctx := context.Background()
	e := &tableEmbedder{vecs: map[string][]float32{"One. Two.": {1, 0}, "Trailing. ": {0, 1}}}
	// One sentence (or none): returned as is, no request.
	for _, text := range []string{"", "A single sentence without a split", "Ends here."} {
		got, err := SemanticChunks(ctx, text, e, "m", SemanticOptions{})
		if err != nil || !reflect.DeepEqual(got, []string{text}) {
			t.Errorf("SemanticChunks(%q) = %q, %v; want the text", text, got, err)
		}
	}
	if len(e.calls) != 0 {
		t.Errorf("single sentences made %d requests", len(e.calls))
	}
	// Two sentences: one distance, equal to its own percentile, never above it.
	got, err := SemanticChunks(ctx, "One. Two.", e, "m", SemanticOptions{})
	if err != nil || !reflect.DeepEqual(got, []string{"One. Two."}) {
		t.Errorf("two sentences: %q, %v", got, err)
	}
	// "Trailing. " is ["Trailing.", ""]: one chunk "Trailing. " (joined with " ").
	got, err = SemanticChunks(ctx, "Trailing. ", e, "m", SemanticOptions{})
	if err != nil || !reflect.DeepEqual(got, []string{"Trailing. "}) {
		t.Errorf("trailing space: %q, %v", got, err)
	}
}

func TestSemanticErrors(t *testing.T) {
	ctx := context.Background()
	vecs := map[string][]float32{"A. B.": {1, 0}, "A. B. C.": {1, 1}, "B. C.": {0, 1}}
	text := "A. B. C."
	for _, c := range []struct {
		name string
		e    *tableEmbedder
		want string
	}{
		{"endpoint", &tableEmbedder{vecs: vecs, err: errors.New("boom")}, "request 1 of 1 (inputs 0–2, texts 0–0): boom"},
		{"short", &tableEmbedder{vecs: vecs, mod: func(v [][]float32) [][]float32 { return v[:2] }}, "2 vectors for 3 inputs"},
		{"dims", &tableEmbedder{vecs: vecs, mod: func(v [][]float32) [][]float32 { v[2] = v[2][:1]; return v }}, "vector 2 has dimension 1, want 2"},
		{"nan", &tableEmbedder{vecs: vecs, mod: func(v [][]float32) [][]float32 { v[1][0] = float32(math.NaN()); return v }}, "vector 1 component 0 is NaN"},
	} {
		_, err := SemanticChunks(ctx, text, c.e, "m", SemanticOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
	if _, err := SemanticChunks(ctx, text, nil, "m", SemanticOptions{}); err == nil {
		t.Error("nil embedder: no error")
	}
	if _, err := SemanticChunks(ctx, text, &tableEmbedder{vecs: vecs}, "", SemanticOptions{}); err == nil {
		t.Error("empty model: no error")
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := SemanticChunks(cctx, text, &tableEmbedder{vecs: vecs}, "m", SemanticOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
}

// TestSemanticBatchEqualsSingle embeds many texts in shared requests and
// checks the chunks equal those of one SemanticChunks call per text.
func TestSemanticBatchEqualsSingle(t *testing.T) {
	srv := llmtest.New(t, llmtest.Options{})
	c := client(t, srv, llm.Config{EmbeddingFormat: "base64"})
	texts := []string{
		"Defects are computed here. The supercell is built. Energy is relaxed! Then the formation energy follows? Charge states matter. Done.",
		"One sentence only",
		"Vacancy defects remove a site. Substitutions replace a site. Interstitials add a site. Each has a charge. Corrections apply to charged defects.",
		"Two sentences. Exactly two.",
	}
	ctx := context.Background()
	var single [][]string
	for _, tx := range texts {
		ch, err := SemanticChunks(ctx, tx, c, "emb", SemanticOptions{})
		if err != nil {
			t.Fatal(err)
		}
		single = append(single, ch)
	}
	if n := len(srv.Requests()); n != 3 { // one per text of ≥ 2 sentences
		t.Errorf("%d requests for 3 multi-sentence texts, want 3", n)
	}
	before := len(srv.Requests())
	rs, err := SemanticBatch(ctx, texts, c, "emb", SemanticOptions{BatchSize: 4})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(srv.Requests()) - before; n != 4 { // 6 + 5 + 2 = 13 inputs in batches of 4
		t.Errorf("%d batched requests, want ⌈13/4⌉ = 4", n)
	}
	for i, r := range rs {
		if !reflect.DeepEqual(r.Chunks, single[i]) {
			t.Errorf("text %d: batched %q, single %q", i, r.Chunks, single[i])
		}
	}
	if len(rs[0].Chunks) < 2 {
		t.Errorf("text 0 gave %d chunk(s); the test wants a breakpoint: %+v", len(rs[0].Chunks), rs[0])
	}
}

// TestPairwiseSum checks numpy's pairwise order on values where it differs
// from summation in order: 1e16 + 1 + 1 … cancels differently.
func TestPairwiseSum(t *testing.T) {
	a := make([]float64, 16)
	a[0] = 1e16
	for i := 1; i < 16; i++ {
		a[i] = 1
	}
	// Accumulators r0 = 1e16 + 1 (= 1e16, lost), r1…r7 = 2; combined:
	// ((1e16 + 2) + 4) + (4 + 4) = 1e16 + 14.
	if got := pairwiseSum(a); got != 1e16+14 {
		t.Errorf("pairwiseSum = %v, want 1e16+14", got)
	}
	var seq float64
	for _, x := range a {
		seq += x
	}
	if seq != 1e16 {
		t.Errorf("in-order sum %v, want 1e16 (the test's premise)", seq)
	}
}

// refSemantic is one line of scripts/semantic-fidelity/semantic_reference.py.
type refSemantic struct {
	ID          string    `json:"id"`
	Chunks      []string  `json:"chunks"`
	Sentences   []string  `json:"sentences"`
	Distances   []float64 `json:"distances"`
	Threshold   *float64  `json:"threshold"`
	Breakpoints []int     `json:"breakpoints"`
}

// TestSemanticFidelity compares SemanticBatch text by text with LangChain's
// SemanticChunker (scripts/semantic-fidelity/semantic_reference.py), both
// embedding through the same llmtest server on 127.0.0.1, on documents
// shaped as RepoAgent markdown from the docstrings of pymatgen's
// analysis/defects package (MATTOOLS_DATA). It needs the venv
// build/semantic-fidelity-venv (MATTOOLS_SEMANTIC_FIDELITY_VENV overrides):
// it skips without it, and fails without it under CI. Chunks and
// breakpoints must be equal, except where a distance lies within 1e-12 of
// the threshold (numpy's dot product goes through OpenBLAS, whose
// summation order differs from ours in the last bits); every such case is
// logged.
func TestSemanticFidelity(t *testing.T) {
	repo, _ := filepath.Abs("../..")
	venv := os.Getenv("MATTOOLS_SEMANTIC_FIDELITY_VENV")
	if venv == "" {
		venv = filepath.Join(repo, "build", "semantic-fidelity-venv")
	}
	py := filepath.Join(venv, "bin", "python")
	if _, err := os.Stat(py); err != nil {
		msg := fmt.Sprintf("semantic fidelity: no venv at %s: create it with /usr/bin/python3 -m venv %s && %s/bin/pip install -r scripts/semantic-fidelity/requirements.txt", venv, venv, venv)
		if ci := os.Getenv("CI"); ci != "" && ci != "0" && ci != "false" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	root := mattoolstest.DataRoot(t, "for the pymatgen docstrings of the semantic-chunker fidelity test")
	docs := defectsDocs(t, filepath.Join(root, "src/tool_source_code/pymatgen/src/pymatgen/analysis/defects"), 50)
	// Edge cases beside the documents.
	docs = append(docs, [2]string{"edge/empty", ""}, [2]string{"edge/one", "A single sentence"},
		[2]string{"edge/two", "Two sentences. Exactly two."}, [2]string{"edge/trailing", "Trailing space. "})

	srv := llmtest.New(t, llmtest.Options{})
	dir := t.TempDir()
	in, out := filepath.Join(dir, "docs.jsonl"), filepath.Join(dir, "ref.jsonl")
	var b strings.Builder
	for _, d := range docs {
		line, _ := json.Marshal(map[string]string{"id": d[0], "text": d[1]})
		b.Write(line)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(in, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	cmd := exec.Command(py, filepath.Join(repo, "scripts/semantic-fidelity/semantic_reference.py"),
		"--base-url", srv.URL, "--model", "text-embedding-3-large", "--input", in, "--output", out)
	cmd.Env = append(os.Environ(), "NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost")
	if outb, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("semantic_reference.py: %v\n%s", err, outb)
	} else {
		t.Logf("%s(python %.1f s, %d embeddings requests)", outb, time.Since(start).Seconds(), len(srv.Requests()))
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var refs []refSemantic
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var r refSemantic
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		refs = append(refs, r)
	}
	if len(refs) != len(docs) {
		t.Fatalf("%d reference lines for %d documents", len(refs), len(docs))
	}
	// The Python side sent each text's combined sentences in its own request.
	for _, r := range srv.Requests() {
		if !strings.Contains(string(r.Body), `"encoding_format":"base64"`) || r.Model != "text-embedding-3-large" {
			t.Fatalf("python request body %.200s: want encoding_format base64 and the model", r.Body)
		}
	}

	before := len(srv.Requests())
	texts := make([]string, len(docs))
	for i, d := range docs {
		texts[i] = d[1]
	}
	c := client(t, srv, llm.Config{EmbeddingFormat: "base64"})
	rs, err := SemanticBatch(context.Background(), texts, c, "text-embedding-3-large", SemanticOptions{})
	if err != nil {
		t.Fatal(err)
	}
	goReqs := len(srv.Requests()) - before

	var sentences, distances, exact, bps, bpEqual, chunksRef, chunksEqual, textsEqual int
	var maxDiff, maxThr float64
	for i, r := range rs {
		ref := refs[i]
		if ref.ID != docs[i][0] {
			t.Fatalf("line %d is %q, want %q", i, ref.ID, docs[i][0])
		}
		if !reflect.DeepEqual(r.Sentences, ref.Sentences) {
			t.Errorf("%s: sentences differ:\n go %q\n py %q", ref.ID, r.Sentences, ref.Sentences)
			continue
		}
		sentences += len(r.Sentences)
		if len(r.Distances) != len(ref.Distances) {
			t.Errorf("%s: %d distances, python %d", ref.ID, len(r.Distances), len(ref.Distances))
			continue
		}
		for k, d := range r.Distances {
			distances++
			diff := math.Abs(d - ref.Distances[k])
			if diff == 0 {
				exact++
			}
			maxDiff = math.Max(maxDiff, diff)
		}
		if ref.Threshold != nil {
			maxThr = math.Max(maxThr, math.Abs(r.Threshold-*ref.Threshold))
		}
		bps += len(ref.Breakpoints)
		if reflect.DeepEqual(r.Breakpoints, ref.Breakpoints) || len(r.Breakpoints)+len(ref.Breakpoints) == 0 {
			bpEqual++
		}
		chunksRef += len(ref.Chunks)
		same := reflect.DeepEqual(r.Chunks, ref.Chunks)
		if same {
			textsEqual++
			chunksEqual += len(ref.Chunks)
			continue
		}
		// Explained only by a distance within 1e-12 of the threshold.
		explained := true
		for _, k := range symDiff(r.Breakpoints, ref.Breakpoints) {
			if math.Abs(ref.Distances[k]-*ref.Threshold) > 1e-12 {
				explained = false
			}
			t.Logf("%s: breakpoint %d differs: python distance %.17g threshold %.17g, go %.17g / %.17g", ref.ID, k, ref.Distances[k], *ref.Threshold, r.Distances[k], r.Threshold)
		}
		if !explained {
			t.Errorf("%s: chunks differ (unexplained):\n go %q\n py %q", ref.ID, r.Chunks, ref.Chunks)
		}
	}
	t.Logf("semantic fidelity: %d texts, %d sentences, %d distances (%d bit-identical, max |Δ| %.3g), max |Δthreshold| %.3g; "+
		"breakpoints equal in %d/%d texts (%d python breakpoints); chunks equal in %d/%d texts (%d/%d chunks); go requests %d (batched) vs python %d",
		len(docs), sentences, distances, exact, maxDiff, maxThr, bpEqual, len(docs), bps, textsEqual, len(docs), chunksEqual, chunksRef, goReqs, before)
	if bps == 0 {
		t.Error("no python breakpoint at all: the documents do not exercise the chunker")
	}
}

// symDiff returns the sorted elements in exactly one of a and b.
func symDiff(a, b []int) []int {
	m := map[int]int{}
	for _, x := range a {
		m[x]++
	}
	for _, x := range b {
		m[x]--
	}
	var out []int
	for x, n := range m {
		if n != 0 {
			out = append(out, x)
		}
	}
	sort.Ints(out)
	return out
}

var defRe = regexp.MustCompile(`(?m)^([ \t]*)(?:async[ \t]+)?(def|class)[ \t]+(\w+)`)

// defectsDocs returns up to n documents (id, text) shaped as RepoAgent's
// markdown, one per documented function or class of the .py files under
// dir (sorted paths, in file order), keeping those whose docstring has at
// least three sentences: the object's name, a "Code Description" holding
// the dedented docstring, and its location.
func defectsDocs(t *testing.T, dir string, n int) [][2]string {
	t.Helper()
	var files []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".py") {
			files = append(files, p)
		}
		return nil
	})
	sort.Strings(files)
	var docs [][2]string
	for _, p := range files {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		s := string(src)
		rel, _ := filepath.Rel(filepath.Dir(dir), p)
		for _, m := range defRe.FindAllStringSubmatchIndex(s, -1) {
			kind, name := s[m[4]:m[5]], s[m[6]:m[7]]
			rest := s[m[1]:]
			q := strings.Index(rest, `"""`)
			if q < 0 || strings.Contains(rest[:q], "\n\n") || defRe.MatchString(rest[:q]) || !strings.HasSuffix(strings.TrimRight(rest[:q], " \t"), "\n") {
				continue
			}
			end := strings.Index(rest[q+3:], `"""`)
			if end < 0 {
				continue
			}
			doc := dedent(rest[q+3 : q+3+end])
			if len(SplitSentences(doc)) < 3 {
				continue
			}
			what := "function"
			if kind == "class" {
				what = "class"
			}
			text := fmt.Sprintf("**%s**: The function of %s is described below.\n\n**Code Description**: %s\n\n**Note**: This %s is defined in pymatgen/analysis/%s.", name, name, doc, what, filepath.ToSlash(rel))
			docs = append(docs, [2]string{filepath.ToSlash(rel) + ":" + name, text})
			if len(docs) == n {
				return docs
			}
		}
	}
	if len(docs) < 10 {
		t.Fatalf("only %d documented objects under %s", len(docs), dir)
	}
	return docs
}

// dedent strips the common leading whitespace of a docstring's lines after
// the first, and the whole text's surrounding whitespace.
func dedent(s string) string {
	lines := strings.Split(s, "\n")
	ind := -1
	for _, l := range lines[1:] {
		if strings.TrimSpace(l) == "" {
			continue
		}
		k := len(l) - len(strings.TrimLeft(l, " \t"))
		if ind < 0 || k < ind {
			ind = k
		}
	}
	for i := 1; i < len(lines); i++ {
		if len(lines[i]) >= ind && ind > 0 {
			lines[i] = lines[i][ind:]
		} else {
			lines[i] = strings.TrimLeft(lines[i], " \t")
		}
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}
