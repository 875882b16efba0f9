package retrieval

// Semantic chunking: retrieval source 3 of the MatTools paper is the
// LLM-written documentation cut by LangChain's SemanticChunker.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mattools-leaderboard/leaderboard/internal/pystr"
)

// The SemanticChunker parameters of retrieval source 3 in the paper:
// SemanticChunker(OpenAIEmbeddings("text-embedding-3-large"), buffer_size=1,
// breakpoint_threshold_type="percentile", breakpoint_threshold_amount=95)
// from langchain_experimental.text_splitter (version 0.4.2 read).
const (
	// SemanticBufferSize is buffer_size: each sentence is embedded together
	// with this many neighbours on either side.
	SemanticBufferSize = 1
	// SemanticPercentile is breakpoint_threshold_amount: a chunk ends after
	// sentence i when the distance from i to i+1 exceeds this percentile of
	// all the text's distances.
	SemanticPercentile = 95.0
	// SemanticBatchSize is OpenAIEmbeddings's chunk_size default (1000):
	// the number of inputs per embeddings request unless
	// SemanticOptions.BatchSize says otherwise.
	SemanticBatchSize = 1000
)

// The fallback, used when no embeddings endpoint is configured, is
// corpus.SplitRecursive (the recursive splitter of sources 1 and 2, 1,000 /
// 50 characters): the runner builds source 3 with it under an origin that
// says so ("…, recursive chunks 1000/50 (no embeddings endpoint …)"), and
// its chunks, so its corpus ID, differ from the semantic ones wherever the
// two chunkers cut differently.

// SemanticOptions configure SemanticChunks and SemanticBatch. The zero value
// is the paper's chunker.
type SemanticOptions struct {
	// BatchSize is the maximum number of inputs (combined sentences) per
	// embeddings request; SemanticBatchSize (OpenAIEmbeddings's chunk_size)
	// when 0. It changes the number of requests only, not the chunks.
	BatchSize int
	// MinChunkSize is SemanticChunker's min_chunk_size in characters
	// (code points, Python's len); 0 means None (the paper's). With it, a
	// group shorter than MinChunkSize is not cut off but carried into the
	// next group.
	MinChunkSize int
}

// SemanticResult is the work of SemanticChunker.split_text on one text.
type SemanticResult struct {
	// Sentences are the pieces of SplitSentences (the whole text as the
	// only sentence when there is no split point).
	Sentences []string
	// Distances has len(Sentences)−1 entries: 1 − cosine similarity of the
	// embeddings of combined sentences i and i+1 (CombineSentences),
	// float64, in [0, 2]. Nil for a single sentence.
	Distances []float64
	// Threshold is Percentile(Distances, SemanticPercentile); 0 (and
	// meaningless) for a single sentence.
	Threshold float64
	// Breakpoints are the indices i, ascending, with Distances[i] >
	// Threshold: a chunk ends after sentence i (unless MinChunkSize merged
	// the group on).
	Breakpoints []int
	// Chunks are the output of split_text: runs of sentences joined with
	// one space, in order.
	Chunks []string
}

// SemanticChunks cuts text as LangChain's SemanticChunker(embeddings,
// buffer_size=1, breakpoint_threshold_type="percentile",
// breakpoint_threshold_amount=95).split_text does, with the vectors of
// model from e:
//
//  1. sentences: SplitSentences (re.split(r"(?<=[.?!])\s+", text));
//     one sentence (no split point, or an empty text) is returned as is,
//     []string{text}, with no request;
//  2. each sentence combined with its neighbours (CombineSentences) and
//     embedded in requests of at most o.BatchSize inputs (1,000 by
//     default, as OpenAIEmbeddings's chunk_size): one request for a text
//     of up to 1,000 sentences;
//  3. CosineDistances between consecutive combined sentences;
//  4. the threshold Percentile(distances, 95) (numpy.percentile, linear);
//  5. a chunk ends after each sentence whose distance to the next exceeds
//     the threshold (strictly), so two sentences always give one chunk;
//     chunks are the sentences joined with " ".
//
// Errors: e's error, a vector count other than the number of inputs, or
// vectors of unequal dimension or holding NaN or ±Inf, each naming the
// request ("retrieval: semantic: request 1 of 2 (inputs 0–999): …"), and
// ctx's error.
func SemanticChunks(ctx context.Context, text string, e Embedder, model string, o SemanticOptions) ([]string, error) {
	rs, err := SemanticBatch(ctx, []string{text}, e, model, o)
	if err != nil {
		return nil, err
	}
	return rs[0].Chunks, nil
}

// SemanticBatch is SemanticChunks for many texts, returning each text's
// SemanticResult in order. The combined sentences of all texts are
// embedded together, in requests of at most o.BatchSize inputs that may
// span texts, so N short texts cost about N·sentences/1,000 requests
// instead of N. The chunks are those of SemanticChunks text by text, since
// every input's vector depends only on that input (true of the fake server
// and, up to the endpoint's own nondeterminism, of OpenAI's). Errors are
// those of SemanticChunks; a request's error names the texts it held.
func SemanticBatch(ctx context.Context, texts []string, e Embedder, model string, o SemanticOptions) ([]SemanticResult, error) {
	if e == nil {
		return nil, errors.New("retrieval: semantic: no embedder")
	}
	if model == "" {
		return nil, errors.New("retrieval: semantic: no embedding model")
	}
	if o.BatchSize <= 0 {
		o.BatchSize = SemanticBatchSize
	}
	if o.MinChunkSize < 0 {
		return nil, fmt.Errorf("retrieval: semantic: MinChunkSize %d is negative", o.MinChunkSize)
	}
	rs := make([]SemanticResult, len(texts))
	var inputs []string
	var owner []int // text index of each input
	for i, t := range texts {
		s := SplitSentences(t)
		rs[i].Sentences = s
		if len(s) == 1 {
			rs[i].Chunks = []string{t}
			continue
		}
		for _, c := range CombineSentences(s, SemanticBufferSize) {
			inputs = append(inputs, c)
			owner = append(owner, i)
		}
	}
	vecs := make([][]float32, 0, len(inputs))
	nreq := (len(inputs) + o.BatchSize - 1) / o.BatchSize
	dims := -1
	for r := 0; r < nreq; r++ {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("retrieval: semantic: %w", err)
		}
		lo, hi := r*o.BatchSize, min((r+1)*o.BatchSize, len(inputs))
		where := fmt.Sprintf("request %d of %d (inputs %d–%d, texts %d–%d)", r+1, nreq, lo, hi-1, owner[lo], owner[hi-1])
		got, err := e.Embed(ctx, model, inputs[lo:hi])
		if err != nil {
			return nil, fmt.Errorf("retrieval: semantic: %s: %w", where, err)
		}
		if got == nil || len(got.Vectors) != hi-lo {
			n := 0
			if got != nil {
				n = len(got.Vectors)
			}
			return nil, fmt.Errorf("retrieval: semantic: %s: %d vectors for %d inputs", where, n, hi-lo)
		}
		for k, v := range got.Vectors {
			if dims < 0 {
				dims = len(v)
			}
			if len(v) != dims || dims == 0 {
				return nil, fmt.Errorf("retrieval: semantic: %s: vector %d has dimension %d, want %d", where, k, len(v), dims)
			}
			for j, x := range v {
				if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
					return nil, fmt.Errorf("retrieval: semantic: %s: vector %d component %d is %v", where, k, j, x)
				}
			}
		}
		vecs = append(vecs, got.Vectors...)
	}
	at := 0
	for i := range rs {
		n := len(rs[i].Sentences)
		if n == 1 {
			continue
		}
		rs[i].Distances = CosineDistances(vecs[at : at+n])
		at += n
		rs[i].Threshold = Percentile(rs[i].Distances, SemanticPercentile)
		for k, d := range rs[i].Distances {
			if d > rs[i].Threshold {
				rs[i].Breakpoints = append(rs[i].Breakpoints, k)
			}
		}
		rs[i].Chunks = assemble(rs[i].Sentences, rs[i].Breakpoints, o.MinChunkSize)
	}
	return rs, nil
}

// assemble is the end of split_text: sentences up to each breakpoint
// joined with " " (a group shorter than minSize code points, when minSize
// > 0, is carried on), then the remaining sentences.
func assemble(sentences []string, breakpoints []int, minSize int) []string {
	var chunks []string
	start := 0
	for _, b := range breakpoints {
		c := strings.Join(sentences[start:b+1], " ")
		if minSize > 0 && utf8.RuneCountInString(c) < minSize {
			continue
		}
		chunks = append(chunks, c)
		start = b + 1
	}
	if start < len(sentences) {
		chunks = append(chunks, strings.Join(sentences[start:], " "))
	}
	return chunks
}

// SplitSentences is Python's re.split(r"(?<=[.?!])\s+", text): the text
// is cut at every maximal run of whitespace that directly follows '.', '?'
// or '!', and the runs are dropped. Whitespace is that of Python's \s in
// str patterns (str.isspace: ASCII \t\n\v\f\r and space, \x1c–\x1f, \x85,
// U+00A0, U+1680, U+2000–U+200A, U+2028, U+2029, U+202F, U+205F, U+3000).
// Pieces may be empty only at the end: "A. " gives ["A.", ""], and ""
// gives [""]. A text with no split point gives [text]. Invalid UTF-8
// bytes are neither punctuation nor whitespace.
func SplitSentences(text string) []string {
	var out []string
	start := 0
	prev := rune(-1)
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		if (prev == '.' || prev == '?' || prev == '!') && pystr.IsSpace(r) {
			end := i
			for i < len(text) {
				r, n = utf8.DecodeRuneInString(text[i:])
				if !pystr.IsSpace(r) {
					break
				}
				i += n
			}
			out = append(out, text[start:end])
			start = i
			prev = -1 // the run ended on whitespace
			continue
		}
		prev = r
		i += n
	}
	return append(out, text[start:])
}

// CombineSentences is langchain_experimental's combine_sentences: for each
// sentence i, the sentences i−buffer … i−1 each followed by " ", then
// sentence i, then " " + each of sentences i+1 … i+buffer (those that
// exist). With buffer 1: ["a", "b", "c"] → ["a b", "a b c", "b c"].
func CombineSentences(sentences []string, buffer int) []string {
	out := make([]string, len(sentences))
	for i := range sentences {
		var b strings.Builder
		for j := i - buffer; j < i; j++ {
			if j >= 0 {
				b.WriteString(sentences[j])
				b.WriteByte(' ')
			}
		}
		b.WriteString(sentences[i])
		for j := i + 1; j < i+1+buffer; j++ {
			if j < len(sentences) {
				b.WriteByte(' ')
				b.WriteString(sentences[j])
			}
		}
		out[i] = b.String()
	}
	return out
}

// CosineDistances is calculate_cosine_distances: for each consecutive
// pair of vectors, 1 − cosine similarity, computed in float64 from the
// float32 components as langchain_community's cosine_similarity does with
// numpy (without simsimd): dot(x, y) / (‖x‖·‖y‖), a NaN or ±Inf similarity
// (a zero vector) counting as 0. The norms are summed in numpy's pairwise
// order (exactly np.linalg.norm's value); the dot product is summed in
// order, where numpy calls OpenBLAS, whose CPU-specific kernel may differ
// in the last bits (a few 1e-16). It returns len(vecs)−1 distances (none
// for fewer than two vectors); the vectors must have equal dimensions.
func CosineDistances(vecs [][]float32) []float64 {
	if len(vecs) < 2 {
		return nil
	}
	norms := make([]float64, len(vecs))
	sq := make([]float64, 0, len(vecs[0]))
	for i, v := range vecs {
		sq = sq[:0]
		for _, x := range v {
			f := float64(x)
			sq = append(sq, f*f)
		}
		norms[i] = math.Sqrt(pairwiseSum(sq))
	}
	out := make([]float64, len(vecs)-1)
	for i := range out {
		x, y := vecs[i], vecs[i+1]
		var dot float64
		for j := range x {
			dot += float64(float64(x[j]) * float64(y[j]))
		}
		sim := dot / float64(norms[i]*norms[i+1])
		if math.IsNaN(sim) || math.IsInf(sim, 0) {
			sim = 0
		}
		out[i] = 1 - sim
	}
	return out
}

// pairwiseSum is numpy's pairwise summation of float64 (add.reduce over a
// contiguous axis): below 8 values in order; up to 128 values in 8
// interleaved partial sums combined as ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7))
// with the remainder added in order; above, the halves (the first a
// multiple of 8) summed recursively.
func pairwiseSum(a []float64) float64 {
	n := len(a)
	switch {
	case n < 8:
		var s float64
		for _, x := range a {
			s += x
		}
		return s
	case n <= 128:
		var r [8]float64
		copy(r[:], a[:8])
		i := 8
		for ; i < n-n%8; i += 8 {
			for j := 0; j < 8; j++ {
				r[j] += a[i+j]
			}
		}
		s := float64(float64(r[0]+r[1])+float64(r[2]+r[3])) + float64(float64(r[4]+r[5])+float64(r[6]+r[7]))
		for ; i < n; i++ {
			s += a[i]
		}
		return s
	default:
		h := n / 2
		h -= h % 8
		return pairwiseSum(a[:h]) + pairwiseSum(a[h:])
	}
}

// Percentile is numpy.percentile(values, q) with the default "linear"
// method (q in percent, 0–100): with the values sorted ascending and
// v = (n−1)·(q/100), i = ⌊v⌋ and g = v − i, it interpolates between
// sorted[i] and sorted[i+1] exactly as numpy's _lerp does (a + (b−a)·g
// for g < 0.5, b − (b−a)·(1−g) otherwise), and returns sorted[n−1] when
// v ≥ n−1. NaN for no values or a q outside 0–100. values is not changed.
func Percentile(values []float64, q float64) float64 {
	n := len(values)
	if n == 0 || !(q >= 0 && q <= 100) {
		return math.NaN()
	}
	s := append([]float64(nil), values...)
	slices.Sort(s)
	v := float64(n-1) * (q / 100)
	if v >= float64(n-1) {
		return s[n-1]
	}
	prev := math.Floor(v)
	g := v - prev
	a, b := s[int(prev)], s[int(prev)+1]
	d := b - a
	if g >= 0.5 {
		return b - float64(d*(1-g))
	}
	return a + float64(d*g)
}
