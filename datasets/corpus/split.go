package corpus

import (
	"strings"

	"github.com/mattools-leaderboard/leaderboard/internal/pystr"
)

// ChunkSize and ChunkOverlap are the parameters of both sources'
// RecursiveCharacterTextSplitter (construct_doc.ipynb): at most 1000
// characters (Unicode code points, Python's len) per chunk, 50 of overlap.
const (
	ChunkSize    = 1000
	ChunkOverlap = 50
)

// PythonSeparators are langchain_text_splitters' separators for
// Language.PYTHON, tried in order.
var PythonSeparators = []string{"\nclass ", "\ndef ", "\n\tdef ", "\n\n", "\n", " ", ""}

// DefaultSeparators are RecursiveCharacterTextSplitter's default separators.
var DefaultSeparators = []string{"\n\n", "\n", " ", ""}

// splitter reproduces langchain_text_splitters.RecursiveCharacterTextSplitter
// (version 1.1.3) with keep_separator=True (each separator starts the piece
// that follows it), strip_whitespace=True, length_function=len. The
// separators used here hold no regular-expression metacharacters, so
// is_separator_regex=True (from_language) and False (the default) split
// identically; they are matched as literals.
type splitter struct {
	separators []string
	size       int
	overlap    int
}

// SplitText splits text as RecursiveCharacterTextSplitter.split_text does.
func (sp splitter) SplitText(text string) []string {
	return sp.split(text, sp.separators)
}

func (sp splitter) split(text string, seps []string) []string {
	var final []string
	sep := seps[len(seps)-1]
	var next []string
	for i, s := range seps {
		if s == "" {
			sep = s
			break
		}
		if strings.Contains(text, s) {
			sep = s
			next = seps[i+1:]
			break
		}
	}
	splits := splitKeepStart(text, sep)
	var good []string
	for _, s := range splits {
		if pystr.Len(s) < sp.size {
			good = append(good, s)
			continue
		}
		if len(good) > 0 {
			final = append(final, sp.merge(good, "")...)
			good = nil
		}
		if len(next) == 0 {
			final = append(final, s)
		} else {
			final = append(final, sp.split(s, next)...)
		}
	}
	if len(good) > 0 {
		final = append(final, sp.merge(good, "")...)
	}
	return final
}

// splitKeepStart is _split_text_with_regex(text, sep, keep_separator=True):
// the text before the first separator, then each separator with the text up
// to the next one; empty pieces dropped. sep "" splits into code points.
func splitKeepStart(text, sep string) []string {
	var out []string
	if sep == "" {
		for _, r := range text {
			out = append(out, string(r))
		}
		return out
	}
	parts := strings.Split(text, sep)
	if parts[0] != "" {
		out = append(out, parts[0])
	}
	for _, p := range parts[1:] {
		out = append(out, sep+p)
	}
	return out
}

// merge is TextSplitter._merge_splits: greedily packs splits into chunks of
// at most size characters (joined by separator), then keeps a tail of at
// most overlap characters as the start of the next chunk.
func (sp splitter) merge(splits []string, separator string) []string {
	sepLen := pystr.Len(separator)
	var docs []string
	var cur []string
	var curLen []int
	total := 0
	withSep := func(n int) int {
		if n > 0 {
			return sepLen
		}
		return 0
	}
	for _, d := range splits {
		l := pystr.Len(d)
		if total+l+withSep(len(cur)) > sp.size {
			if len(cur) > 0 {
				if doc, ok := joinDocs(cur, separator); ok {
					docs = append(docs, doc)
				}
				for total > sp.overlap || (total+l+withSep(len(cur)) > sp.size && total > 0) {
					s := 0
					if len(cur) > 1 {
						s = sepLen
					}
					total -= curLen[0] + s
					cur, curLen = cur[1:], curLen[1:]
				}
			}
		}
		cur = append(cur, d)
		curLen = append(curLen, l)
		total += l + withSep(len(cur)-1)
	}
	if doc, ok := joinDocs(cur, separator); ok {
		docs = append(docs, doc)
	}
	return docs
}

func joinDocs(docs []string, separator string) (string, bool) {
	t := pystr.Strip(strings.Join(docs, separator))
	return t, t != ""
}
