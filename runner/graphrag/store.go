package graphrag

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"

	"github.com/mattools-leaderboard/leaderboard/results"
)

// FormatVersion is the version of the index directory layout.
const FormatVersion = 1

// LightRAGVersion is the LightRAG release this package follows.
const LightRAGVersion = "1.3.3"

// Files of an index directory. The Parquet files are readable by DuckDB
// (read_parquet); vectors are LIST<FLOAT> columns.
const (
	ManifestFile        = "manifest.json"
	EntitiesFile        = "entities.parquet"          // graph nodes, in node order
	RelationsFile       = "relations.parquet"         // graph edges, in NetworkX edges() order
	ChunksFile          = "chunks.parquet"            // the text-chunk store
	EntityVectorsFile   = "vdb_entities.parquet"      // entity vectors, in row order
	RelationVectorsFile = "vdb_relationships.parquet" // relation vectors
	ChunkVectorsFile    = "vdb_chunks.parquet"        // chunk vectors
)

// Manifest describes an index directory (manifest.json).
type Manifest struct {
	FormatVersion     int    `json:"format_version"`
	LightRAGVersion   string `json:"lightrag_version"` // "1.3.3"
	ChatModel         string `json:"chat_model"`
	EmbeddingModel    string `json:"embedding_model"`
	EmbeddingEndpoint string `json:"embedding_endpoint,omitempty"`
	EmbeddingDims     int    `json:"embedding_dims"`
	Tokenizer         string `json:"tokenizer"` // "o200k_base" or "chars"
	CorpusID          string `json:"corpus_id"`
	// DocumentsSHA256 fingerprints the documents after intake (ids, file
	// paths, texts, in order).
	DocumentsSHA256 string            `json:"documents_sha256"`
	Settings        Settings          `json:"settings"`
	PromptSHA256    map[string]string `json:"prompt_sha256"` // prompt file → SHA-256 hex
	Counts          Counts            `json:"counts"`
	BuiltAt         string            `json:"built_at"` // RFC 3339, UTC, from IndexOptions.Clock
	Complete        bool              `json:"complete"`
}

// Counts are the sizes of an index.
type Counts struct {
	Documents       int `json:"documents"`
	Chunks          int `json:"chunks"`
	Entities        int `json:"entities"` // graph nodes, UNKNOWN endpoints included
	Relations       int `json:"relations"`
	EntityVectors   int `json:"entity_vectors"`
	RelationVectors int `json:"relation_vectors"`
	ChunkVectors    int `json:"chunk_vectors"`
}

func (g *Graph) counts(docs int) Counts {
	return Counts{Documents: docs, Chunks: len(g.chunks), Entities: len(g.nodes), Relations: len(g.edges),
		EntityVectors: len(g.entVDB.rows), RelationVectors: len(g.relVDB.rows), ChunkVectors: len(g.chunkVDB.rows)}
}

type entityRow struct {
	Name        string `parquet:"entity_name"`
	Type        string `parquet:"entity_type,dict"`
	Description string `parquet:"description"`
	SourceID    string `parquet:"source_id"`
	FilePath    string `parquet:"file_path"`
}

type relationRow struct {
	Source      string  `parquet:"source"`
	Target      string  `parquet:"target"`
	Weight      float64 `parquet:"weight"`
	Description string  `parquet:"description"`
	Keywords    string  `parquet:"keywords"`
	SourceID    string  `parquet:"source_id"`
	FilePath    string  `parquet:"file_path"`
}

type chunkRow struct {
	ID         string `parquet:"id"`
	Tokens     int64  `parquet:"tokens"`
	Content    string `parquet:"content"`
	OrderIndex int64  `parquet:"chunk_order_index"`
	DocID      string `parquet:"full_doc_id"`
	FilePath   string `parquet:"file_path"`
}

type vectorFileRow struct {
	ID         string    `parquet:"id"`
	CreatedAt  float64   `parquet:"created_at"` // Unix seconds
	EntityName string    `parquet:"entity_name"`
	SrcID      string    `parquet:"src_id"`
	TgtID      string    `parquet:"tgt_id"`
	FullDocID  string    `parquet:"full_doc_id"`
	SourceID   string    `parquet:"source_id"`
	Content    string    `parquet:"content"`
	FilePath   string    `parquet:"file_path"`
	Vector     []float32 `parquet:"vector,list"`
}

func parquetBytes[T any](rows []T) ([]byte, error) {
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[T](&buf, parquet.Compression(&zstd.Codec{Level: zstd.SpeedDefault}),
		parquet.KeyValueMetadata("generator", "runner/graphrag"),
		parquet.KeyValueMetadata("lightrag_version", LightRAGVersion))
	if len(rows) > 0 {
		if _, err := w.Write(rows); err != nil {
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func vectorRows(v *vectorStore) []vectorFileRow {
	out := make([]vectorFileRow, len(v.rows))
	for i, r := range v.rows {
		out[i] = vectorFileRow{ID: r.ID, CreatedAt: r.CreatedAt, EntityName: r.EntityName, SrcID: r.SrcID, TgtID: r.TgtID,
			FullDocID: r.FullDocID, SourceID: r.SourceID, Content: r.Content, FilePath: r.FilePath, Vector: r.Vector}
	}
	return out
}

// Save writes g to dir (created if needed): the Parquet files, then
// manifest.json last, each through a temporary file and a rename, so a
// crash leaves either the old manifest or the new one. Relations are
// written in NetworkX's edges() order, as LightRAG's GraphML file lists
// them, so that Open rebuilds the adjacency order a reloaded LightRAG has.
func (g *Graph) Save(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("graphrag: save: %w", err)
	}
	ents := make([]entityRow, len(g.nodes))
	for i, n := range g.nodes {
		ents[i] = entityRow{Name: n.Name, Type: n.Type, Description: n.Description, SourceID: n.SourceID, FilePath: n.FilePath}
	}
	rels := make([]relationRow, 0, len(g.edges))
	for _, p := range g.edgeOrder() {
		r := g.edges[p]
		rels = append(rels, relationRow{Source: r.Source, Target: r.Target, Weight: r.Weight, Description: r.Description,
			Keywords: r.Keywords, SourceID: r.SourceID, FilePath: r.FilePath})
	}
	chunks := make([]chunkRow, len(g.chunks))
	for i, c := range g.chunks {
		chunks[i] = chunkRow{ID: c.ID, Tokens: int64(c.Tokens), Content: c.Content, OrderIndex: int64(c.OrderIndex), DocID: c.DocID, FilePath: c.FilePath}
	}
	files := []struct {
		name string
		data func() ([]byte, error)
	}{
		{EntitiesFile, func() ([]byte, error) { return parquetBytes(ents) }},
		{RelationsFile, func() ([]byte, error) { return parquetBytes(rels) }},
		{ChunksFile, func() ([]byte, error) { return parquetBytes(chunks) }},
		{EntityVectorsFile, func() ([]byte, error) { return parquetBytes(vectorRows(g.entVDB)) }},
		{RelationVectorsFile, func() ([]byte, error) { return parquetBytes(vectorRows(g.relVDB)) }},
		{ChunkVectorsFile, func() ([]byte, error) { return parquetBytes(vectorRows(g.chunkVDB)) }},
	}
	for _, f := range files {
		b, err := f.data()
		if err != nil {
			return fmt.Errorf("graphrag: save %s: %w", f.name, err)
		}
		if err := results.WriteFileAtomic(filepath.Join(dir, f.name), b, 0o644); err != nil {
			return fmt.Errorf("graphrag: save %s: %w", f.name, err)
		}
	}
	m := g.Manifest
	m.Counts.Chunks, m.Counts.Entities, m.Counts.Relations = len(g.chunks), len(g.nodes), len(g.edges)
	m.Counts.EntityVectors, m.Counts.RelationVectors, m.Counts.ChunkVectors = len(g.entVDB.rows), len(g.relVDB.rows), len(g.chunkVDB.rows)
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := results.WriteFileAtomic(filepath.Join(dir, ManifestFile), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("graphrag: save manifest: %w", err)
	}
	return nil
}

// ReadManifest reads dir/manifest.json; a missing file gives an error
// wrapping os.ErrNotExist.
func ReadManifest(dir string) (Manifest, error) {
	var m Manifest
	b, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		return m, fmt.Errorf("graphrag: %w", err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("graphrag: %s: %w", filepath.Join(dir, ManifestFile), err)
	}
	return m, nil
}

// checkManifest compares the identity of an index (format, chat model,
// embedding model, corpus) with want's non-empty fields.
func checkManifest(dir string, got, want Manifest) error {
	if got.FormatVersion != FormatVersion {
		return fmt.Errorf("graphrag: the index in %s has format version %d, this package reads %d: rebuild it", dir, got.FormatVersion, FormatVersion)
	}
	for _, c := range []struct{ what, got, want string }{
		{"chat model", got.ChatModel, want.ChatModel},
		{"embedding model", got.EmbeddingModel, want.EmbeddingModel},
		{"corpus", got.CorpusID, want.CorpusID},
	} {
		if c.want != "" && c.got != c.want {
			return fmt.Errorf("graphrag: the index in %s was built with %s %q, not %q", dir, c.what, c.got, c.want)
		}
	}
	return nil
}

// Open reads the index saved in dir. It refuses, with an error naming both
// values, an index built with another chat model, embedding model or corpus
// than want's (empty fields of want are not checked), one of another format
// version, and an incomplete one (a Build that did not finish). The
// adjacency order is rebuilt from the relations' order, as LightRAG's
// NetworkX graph is when it is read back from its GraphML file.
func Open(dir string, want Manifest) (*Graph, error) {
	m, err := ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	if err := checkManifest(dir, m, want); err != nil {
		return nil, err
	}
	if !m.Complete {
		return nil, fmt.Errorf("graphrag: the index in %s is incomplete (its Build did not finish): run Build again", dir)
	}
	tok, err := TokenizerByName(m.Tokenizer)
	if err != nil {
		return nil, err
	}
	g := newGraph(tok)
	g.Manifest = m
	read := func(name string, f func(string) error) error {
		if err := f(filepath.Join(dir, name)); err != nil {
			return fmt.Errorf("graphrag: open %s: %w", filepath.Join(dir, name), err)
		}
		return nil
	}
	if err := read(EntitiesFile, func(p string) error {
		rows, err := parquet.ReadFile[entityRow](p)
		for _, r := range rows {
			g.upsertNode(Entity{Name: r.Name, Type: r.Type, Description: r.Description, SourceID: r.SourceID, FilePath: r.FilePath})
		}
		return err
	}); err != nil {
		return nil, err
	}
	if err := read(RelationsFile, func(p string) error {
		rows, err := parquet.ReadFile[relationRow](p)
		for _, r := range rows {
			g.upsertEdge(Relation{Source: r.Source, Target: r.Target, Weight: r.Weight, Description: r.Description,
				Keywords: r.Keywords, SourceID: r.SourceID, FilePath: r.FilePath})
		}
		return err
	}); err != nil {
		return nil, err
	}
	if err := read(ChunksFile, func(p string) error {
		rows, err := parquet.ReadFile[chunkRow](p)
		for _, r := range rows {
			g.upsertChunk(Chunk{ID: r.ID, Tokens: int(r.Tokens), Content: r.Content, OrderIndex: int(r.OrderIndex), DocID: r.DocID, FilePath: r.FilePath})
		}
		return err
	}); err != nil {
		return nil, err
	}
	for _, v := range []struct {
		name  string
		store *vectorStore
	}{{EntityVectorsFile, g.entVDB}, {RelationVectorsFile, g.relVDB}, {ChunkVectorsFile, g.chunkVDB}} {
		if err := read(v.name, func(p string) error {
			rows, err := parquet.ReadFile[vectorFileRow](p)
			for _, r := range rows {
				vr := &vectorRow{ID: r.ID, CreatedAt: r.CreatedAt, EntityName: r.EntityName, SrcID: r.SrcID, TgtID: r.TgtID,
					FullDocID: r.FullDocID, SourceID: r.SourceID, Content: r.Content, FilePath: r.FilePath, Vector: r.Vector}
				v.store.idx[r.ID] = len(v.store.rows)
				v.store.rows = append(v.store.rows, vr) // stored normalised: not normalised again
			}
			return err
		}); err != nil {
			return nil, err
		}
	}
	if c := g.counts(m.Counts.Documents); c != m.Counts {
		return nil, fmt.Errorf("graphrag: the index in %s holds %+v, its manifest says %+v", dir, c, m.Counts)
	}
	return g, nil
}
