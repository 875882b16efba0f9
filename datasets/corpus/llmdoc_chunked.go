package corpus

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// SplitRecursive splits text with LangChain's RecursiveCharacterTextSplitter
// defaults of the paper (separators "\n\n", "\n", " ", ""; ChunkSize
// characters, ChunkOverlap overlap): the documented fallback chunker of
// retrieval source 3 when no embeddings endpoint is configured.
func SplitRecursive(text string) []string {
	return splitter{DefaultSeparators, ChunkSize, ChunkOverlap}.SplitText(text)
}

// BuildLLMDocChunks builds retrieval source 3 from the per-object documents
// of source 4: each document's page_content cut into chunks by chunks
// (called once with every document's text, in order, returning the chunks
// of each: the semantic chunker or SplitRecursive), each chunk with the
// document's code_source_file as Source and name as Name, ID
// "<code_source_file>#<name>#<i>#<j>" (i counting repeats of the file and
// name, j the chunk). origin labels the corpus (who wrote the documents and
// how they were cut: "…, semantic chunks (p95, buffer 1) by <model>" or
// "…, recursive chunks 1000/50 (no embeddings endpoint)"); two chunkings
// never share an ID unless their chunks are equal.
func BuildLLMDocChunks(docs []LLMDoc, chunks func(texts []string) ([][]string, error), origin string) (*Corpus, error) {
	texts := make([]string, len(docs))
	for i, d := range docs {
		texts[i] = d.PageContent
	}
	cut, err := chunks(texts)
	if err != nil {
		return nil, err
	}
	if len(cut) != len(docs) {
		return nil, fmt.Errorf("corpus: the chunker returned the chunks of %d documents for %d", len(cut), len(docs))
	}
	c := &Corpus{Source: 3, Documents: len(docs), Origin: origin}
	n := map[string]int{}
	files := map[string]bool{}
	for i, d := range docs {
		m := d.Metadata
		key := m.CodeSourceFile + "#" + m.Name
		files[m.CodeSourceFile] = true
		for j, text := range cut[i] {
			c.Chunks = append(c.Chunks, Chunk{ID: key + "#" + strconv.Itoa(n[key]) + "#" + strconv.Itoa(j), Source: m.CodeSourceFile,
				Name: m.Name, Text: text, Path: LLMDocDir + "/" + m.CodeSourceFile})
		}
		n[key]++
	}
	c.Files = len(files)
	c.ID = ComputeID(c.Chunks)
	return c, nil
}

// BuildLLMDocChunked builds retrieval source 3 from upstream's chunked file
// (documents_llm_doc_gemini_20_flash.json.zip: one entry per chunk, the
// same schema as the full file, LoadLLMDocs reads it), one chunk per entry,
// as BuildLLMDocFull does for source 4.
func BuildLLMDocChunked(chunks []LLMDoc, origin string) *Corpus {
	c := BuildLLMDocFull(chunks, origin)
	c.Source = 3
	return c
}

// CachedLLMDocChunks is BuildLLMDocChunks through a cache in dir (""
// disables it): the corpus is stored as the other corpora are (a header
// line and one chunk per line, checked by ComputeID on reuse), keyed by the
// SHA-256 of every document and of tag (what else decides the chunks: the
// chunker, its embedding model and endpoint), so that the semantic
// chunking, which embeds every sentence of every document, runs once.
func CachedLLMDocChunks(dir string, docs []LLMDoc, tag string, chunks func([]string) ([][]string, error), origin string) (*Corpus, error) {
	if dir == "" {
		return BuildLLMDocChunks(docs, chunks, origin)
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s %s\nllm-doc-chunks\n%s\n", BuilderVersion, builderHash, tag)
	for _, d := range docs {
		fmt.Fprintf(h, "%s\x00%s\x00%d\x00", d.Metadata.CodeSourceFile, d.Metadata.Name, len(d.PageContent))
		h.Write([]byte(d.PageContent))
	}
	key := hex.EncodeToString(h.Sum(nil))
	p := filepath.Join(dir, "llm-doc-chunks-"+key+".jsonl")
	if c, err := readCache(p, 3, key); err == nil {
		c.Origin = origin
		return c, nil
	} else if !os.IsNotExist(err) {
		// A damaged cache is rebuilt, never trusted.
		os.Remove(p)
	}
	c, err := BuildLLMDocChunks(docs, chunks, origin)
	if err != nil {
		return nil, err
	}
	if err := writeCache(p, key, c); err != nil {
		return nil, err
	}
	return c, nil
}
