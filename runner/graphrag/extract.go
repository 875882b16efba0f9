package graphrag

// Chunking (docs/graphrag.md §2.2) and the tolerant parser of extraction
// answers (§2.4–2.6).

import (
	"strings"

	"github.com/mattools-leaderboard/leaderboard/internal/pystr"
)

// Document is one text to index.
type Document struct {
	// ID is the document id; "" gives LightRAG's "doc-" + md5 of the
	// cleaned text. As in LightRAG (lightrag.py:672-700), a document with
	// an id keeps its text as given, one without has it stripped and its
	// NUL bytes removed.
	ID string
	// FilePath is cited in the context tables; "" means "unknown_source".
	FilePath string
	Text     string
}

// Chunk is one token window of a document, as LightRAG's text-chunk store
// holds it (docs/graphrag.md §2.2).
type Chunk struct {
	ID         string // "chunk-" + md5 of Content
	Tokens     int    // min(chunk size, tokens left in the document)
	Content    string // the decoded window, stripped as str.strip() does
	OrderIndex int    // 0-based window index in its document
	DocID      string // the document that wrote the chunk last
	FilePath   string
}

// chunkWindows is chunking_by_token_size without split_by_character
// (operate.py:48-103): windows of size tokens starting every size−overlap
// tokens, the last one possibly short, each decoded and stripped.
func chunkWindows(tok Tokenizer, content string, size, overlap int) []Chunk {
	ids := tok.Encode(content)
	step := size - overlap
	var out []Chunk
	for i, start := 0, 0; start < len(ids); i, start = i+1, start+step {
		end := min(start+size, len(ids))
		out = append(out, Chunk{
			Tokens:     min(size, len(ids)-start),
			Content:    pystr.Strip(tok.Decode(ids[start:end])),
			OrderIndex: i,
		})
	}
	return out
}

// omap is an insertion-ordered map, standing for a Python dict.
type omap[K comparable, V any] struct {
	keys []K
	m    map[K]V
}

func newOmap[K comparable, V any]() *omap[K, V] { return &omap[K, V]{m: map[K]V{}} }

func (o *omap[K, V]) get(k K) (V, bool) { v, ok := o.m[k]; return v, ok }

// set stores v under k; a new key goes last, an existing one keeps its place.
func (o *omap[K, V]) set(k K, v V) {
	if _, ok := o.m[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.m[k] = v
}

func (o *omap[K, V]) len() int { return len(o.keys) }

// entityRecord is one parsed entity record.
type entityRecord struct {
	Name, Type, Description string
	SourceID, FilePath      string
}

// relationRecord is one parsed relationship record, endpoints as written.
type relationRecord struct {
	Src, Tgt              string
	Weight                float64
	Description, Keywords string
	SourceID, FilePath    string
}

// pair is an (source, target) key.
type pair [2]string

func sortedPair(a, b string) pair {
	if b < a {
		return pair{b, a}
	}
	return pair{a, b}
}

// chunkRecords are the records of one chunk, grouped as maybe_nodes and
// maybe_edges (operate.py:539-575): by entity name, and by (source, target)
// as written, in order of first appearance.
type chunkRecords struct {
	nodes *omap[string, []entityRecord]
	edges *omap[pair, []relationRecord]
}

// parenContent returns the group of re.search(r"\((.*)\)", s): from the
// first "(" that has a ")" after it on the same line to the last ")" of that
// line ("." does not match "\n").
func parenContent(s string) (string, bool) {
	for i := 0; i < len(s); {
		open := strings.IndexByte(s[i:], '(')
		if open < 0 {
			return "", false
		}
		open += i
		lineEnd := strings.IndexByte(s[open:], '\n')
		if lineEnd < 0 {
			lineEnd = len(s)
		} else {
			lineEnd += open
		}
		if cl := strings.LastIndexByte(s[open+1:lineEnd], ')'); cl >= 0 {
			return s[open+1 : open+1+cl], true
		}
		i = lineEnd // no ")" after any "(" of this line
		if i < len(s) {
			i++
		}
	}
	return "", false
}

// parseAnswer parses one extraction or gleaning answer as
// _process_extraction_result does (operate.py:539-575; docs/graphrag.md §2.6).
func parseAnswer(answer string, p *Prompts, chunkID, filePath string) chunkRecords {
	out := chunkRecords{nodes: newOmap[string, []entityRecord](), edges: newOmap[pair, []relationRecord]()}
	for _, rec := range splitByMarkers(answer, []string{p.RecordDelimiter, p.CompletionDelimiter}) {
		body, ok := parenContent(rec)
		if !ok {
			continue
		}
		attrs := splitByMarkers(body, []string{p.TupleDelimiter})
		if e, ok := parseEntity(attrs, chunkID, filePath); ok {
			l, _ := out.nodes.get(e.Name)
			out.nodes.set(e.Name, append(l, e))
			continue
		}
		if r, ok := parseRelation(attrs, chunkID, filePath); ok {
			k := pair{r.Src, r.Tgt}
			l, _ := out.edges.get(k)
			out.edges.set(k, append(l, r))
		}
	}
	return out
}

// parseEntity is _handle_single_entity_extraction (operate.py:151-195).
func parseEntity(attrs []string, chunkID, filePath string) (entityRecord, bool) {
	if len(attrs) < 4 || attrs[0] != `"entity"` {
		return entityRecord{}, false
	}
	name := pystr.Strip(cleanStr(attrs[1]))
	if name == "" {
		return entityRecord{}, false
	}
	name = normalizeExtractedInfo(name, true)
	typ := stripChars(cleanStr(attrs[2]), `"`)
	if pystr.Strip(typ) == "" || strings.HasPrefix(typ, `("`) {
		return entityRecord{}, false
	}
	desc := normalizeExtractedInfo(cleanStr(attrs[3]), false)
	if pystr.Strip(desc) == "" {
		return entityRecord{}, false
	}
	return entityRecord{Name: name, Type: typ, Description: desc, SourceID: chunkID, FilePath: filePath}, true
}

// parseRelation is _handle_single_relationship_extraction
// (operate.py:198-230): no emptiness check, weight from the last field if
// it is a bare number, else 1.0.
func parseRelation(attrs []string, chunkID, filePath string) (relationRecord, bool) {
	if len(attrs) < 5 || attrs[0] != `"relationship"` {
		return relationRecord{}, false
	}
	r := relationRecord{
		Src:         normalizeExtractedInfo(cleanStr(attrs[1]), true),
		Tgt:         normalizeExtractedInfo(cleanStr(attrs[2]), true),
		Description: normalizeExtractedInfo(cleanStr(attrs[3]), false),
		Keywords:    stripChars(stripChars(cleanStr(attrs[4]), `"`), `'`),
		Weight:      1.0,
		SourceID:    chunkID,
		FilePath:    filePath,
	}
	if last := attrs[len(attrs)-1]; isFloatRegex(last) {
		r.Weight = pyFloat(stripChars(stripChars(last, `"`), `'`))
	}
	return r, true
}

// chunkResult merges the first answer's records with the gleaning answers'
// as LightRAG 1.3.2+ does (operate.py:602-653): a gleaned entity is kept
// only if its name is new in this chunk, a gleaned relation only if its
// (source, target), as written, is.
func chunkResult(p *Prompts, chunkID, filePath, first string, gleans []string) chunkRecords {
	res := parseAnswer(first, p, chunkID, filePath)
	for _, g := range gleans {
		gr := parseAnswer(g, p, chunkID, filePath)
		for _, name := range gr.nodes.keys {
			if _, ok := res.nodes.get(name); !ok {
				res.nodes.set(name, gr.nodes.m[name])
			}
		}
		for _, k := range gr.edges.keys {
			if _, ok := res.edges.get(k); !ok {
				res.edges.set(k, gr.edges.m[k])
			}
		}
	}
	return res
}
