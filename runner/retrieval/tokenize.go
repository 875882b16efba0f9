package retrieval

import (
	"strings"
	"unicode"
)

// TokenizerVersion identifies the rules of Tokenize. It is part of the key
// of every persisted BM25 index: change it whenever Tokenize's output
// changes for any input.
const TokenizerVersion = 1

// Tokenize splits code or prose into lowercase search terms, in text order:
//
//   - A word is a maximal run of Unicode letters, digits and underscores,
//     together with every '.' that has such a character on both sides
//     ("pymatgen.analysis.defects", "np.float64", "1.5"); other
//     characters separate words and are dropped.
//   - A dotted word is emitted whole first ("pymatgen.analysis.defects"),
//     then as the terms of each part.
//   - Each part is split at underscores (snake_case), at lower→upper
//     changes (CamelCase), before the last capital of a run of capitals
//     followed by a lowercase letter (acronyms: "HTTPServer" → http,
//     server), and between letters and digits ("float64" → float, 64).
//   - Every term is lowercased (Unicode simple case folding by
//     strings.ToLower). There are no stop words and no stemming; one-letter
//     terms are kept.
//
// For example "Structure.from_file(HTTPServer2)" gives
// [structure.from_file structure from file http server 2].
func Tokenize(text string) []string {
	var out []string
	rs := []rune(text)
	isWord := func(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }
	for i := 0; i < len(rs); {
		if !isWord(rs[i]) {
			i++
			continue
		}
		j, dotted := i, false
		for j < len(rs) && (isWord(rs[j]) || rs[j] == '.' && j+1 < len(rs) && isWord(rs[j+1]) && isWord(rs[j-1])) {
			dotted = dotted || rs[j] == '.'
			j++
		}
		word := rs[i:j]
		i = j
		if dotted {
			out = append(out, strings.ToLower(string(word)))
		}
		start := 0
		for k := 0; k <= len(word); k++ {
			if k == len(word) || word[k] == '.' || word[k] == '_' {
				out = splitPart(out, word[start:k])
				start = k + 1
			}
		}
	}
	return out
}

// splitPart appends the CamelCase, acronym and letter/digit pieces of p (no
// '.' or '_'), lowercased, to out.
func splitPart(out []string, p []rune) []string {
	start := 0
	for k := 1; k <= len(p); k++ {
		if k < len(p) && !boundary(p, k) {
			continue
		}
		if k > start {
			out = append(out, strings.ToLower(string(p[start:k])))
		}
		start = k
	}
	return out
}

// boundary reports whether a new piece starts at p[k] (0 < k < len(p)).
func boundary(p []rune, k int) bool {
	a, b := p[k-1], p[k]
	switch {
	case unicode.IsDigit(a) != unicode.IsDigit(b):
		return true
	case unicode.IsLower(a) && unicode.IsUpper(b):
		return true
	case unicode.IsUpper(a) && unicode.IsUpper(b) && k+1 < len(p) && unicode.IsLower(p[k+1]):
		return true
	}
	return false
}
