// Package corpus builds the retrieval corpora of the tool-usage benchmark
// from a MatTools data root (mattools-reference.md §5): retrieval source 1
// (code: the pymatgen source, segmented and split as the paper's LangChain
// pipeline did) and source 2 (official docs: the Sphinx HTML pages and the
// pymatgen-analysis-defects API summaries). Sources 3 and 4 (LLM-written
// documentation) come with the next issue. Every corpus is built
// deterministically and identified by a content hash (ID) that every run
// retrieving from it records (results.Run.CorpusID).
//
// The chunking reproduces the calls of upstream src/construct_doc.ipynb
// (cells "method1" and "method2") with langchain-community 0.4.2,
// langchain-text-splitters 1.1.3, beautifulsoup4 4.15.0 and lxml 6.1.3;
// scripts/corpus-fidelity compares the two chunk by chunk. The one
// deliberate difference: the notebook takes the files in file-system order,
// this package in sorted path order.
package corpus

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// Chunk is one retrievable piece of a corpus.
type Chunk struct {
	// ID is unique within the corpus and stable across builds of the same
	// inputs: Path (source 1: Source) "#" and the 0-based index of the
	// chunk among its file's chunks, e.g. "pymatgen/core/structure.py#12"
	// or "tool_source_code/pymatgen/docs/modules.html#3".
	ID string `json:"id"`
	// Source is what the per-chunk prefix of mattools-reference.md §5
	// names. Source 1: LangChain's metadata "source" as the notebook
	// rewrote it, i.e. "pymatgen/" and the path below the pymatgen package
	// folder (relative to src/tool_source_code/pymatgen/src/ of the data
	// root), e.g. "pymatgen/core/structure.py". Source 2: the page title,
	// e.g. "pymatgen.core package — pymatgen 2024.6.10 documentation" or
	// "pymatgen.analysis.defects.ccd package — 2024.7.19 documentation".
	Source string `json:"source"`
	// Name is, for source 1, LangChain's metadata "first_function_or_class"
	// of the chunk's document: "def NAME" or "class NAME", from the first
	// match of ^\s*(def|class)\s+([a-zA-Z_][a-zA-Z0-9_]*) (multi-line) in
	// the document, set only on "functions_classes" documents, as
	// construct_doc.ipynb computes it; "" otherwise and for source 2.
	Name string `json:"name,omitempty"`
	// Text is the chunk's text, without the prefix.
	Text string `json:"text"`
	// Path is the input file relative to the data root's src/ folder,
	// slash-separated, e.g. "tool_source_code/pymatgen/src/pymatgen/core/structure.py"
	// or "defects_doc/api_overview.txt".
	Path string `json:"path"`
	// ContentType is LangChain's metadata "content_type" (source 1):
	// "functions_classes" (one top-level def/class), "simplified_code"
	// (the rest of a file), or "" for a file kept whole (empty, or one
	// that Python's ast rejects). Always "" for source 2.
	ContentType string `json:"content_type,omitempty"`
	// Language is LangChain's metadata "language" (source 1): "python",
	// or "" for a file that Python's ast rejects; "" for source 2.
	Language string `json:"language,omitempty"`
}

// Corpus is a built corpus: its retrieval source, content hash and chunks
// in build order.
type Corpus struct {
	// Source is the retrieval source, 1 (code) or 2 (official docs).
	Source int
	// ID is "sha256:" and the 64 lowercase hex digits of the SHA-256 of the
	// chunks' canonical serialization (see ComputeID); equal inputs give
	// equal IDs.
	ID     string
	Chunks []Chunk
	// Files is the number of input files read; Documents the number of
	// LangChain documents they gave before splitting.
	Files, Documents int
	// Cached reports that the corpus was read from Options.CacheDir.
	Cached bool
}

// Options configures BuildCode and BuildDocs. The zero value is usable.
type Options struct {
	// Python is the interpreter that parses the source-1 files with its
	// ast module (run as "Python -I -", script on stdin; the files are
	// parsed, never executed). Default DefaultPython. Only source 1 uses it.
	Python string
	// CacheDir, if not "", holds built corpora as JSON Lines
	// ("code-<key>.jsonl", "docs-<key>.jsonl"; see cache.go) keyed by the
	// input files' bytes and BuilderVersion, and reused while they match.
	CacheDir string
	// Logf, if not nil, receives notes such as a rejected cache file.
	Logf func(format string, args ...any)
}

// DefaultPython is the interpreter used when Options.Python is "": the
// benchmark sandbox's Python 3.11.
const DefaultPython = "/opt/mattools-sandbox/bin/python3"

// BuilderVersion changes whenever a change of this package can change the
// chunks; it is part of the cache key.
const BuilderVersion = "corpus-builder/1"

func (o Options) logf(format string, args ...any) {
	if o.Logf != nil {
		o.Logf(format, args...)
	}
}

// canonicalChunk is the record of the canonical serialization.
type canonicalChunk struct {
	ID     string `json:"id"`
	Source string `json:"source"`
	Name   string `json:"name"`
	Text   string `json:"text"`
}

// ComputeID returns the corpus ID of chunks: "sha256:" + hex SHA-256 of
// their canonical serialization, one line per chunk in order, each the JSON
// object {"id":…,"source":…,"name":…,"text":…} (keys in that order, "name"
// always present, Go encoding/json string escaping without HTML escaping,
// UTF-8) followed by "\n". Path, ContentType and Language are not part of
// it: they are determined by the inputs that ID and Source already name.
func ComputeID(chunks []Chunk) string {
	h := sha256.New()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, c := range chunks {
		buf.Reset()
		// Encoding a struct of strings cannot fail.
		_ = enc.Encode(canonicalChunk{c.ID, c.Source, c.Name, c.Text})
		h.Write(buf.Bytes())
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}
