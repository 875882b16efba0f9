package corpus

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mattools-leaderboard/leaderboard/internal/atomicfile"
)

// cacheHeader is the first line of a cache file.
type cacheHeader struct {
	Builder   string `json:"builder"`
	Source    int    `json:"source"`
	Key       string `json:"key"`
	ID        string `json:"id"`
	Files     int    `json:"files"`
	Documents int    `json:"documents"`
	Chunks    int    `json:"chunks"`
}

// builderSources are this package's own sources that decide the chunks;
// their hash (builderHash) is part of every cache key, so that a cache
// written by an earlier builder is never reused, even when BuilderVersion
// was not bumped. The Python string helpers they call (internal/pystr) are
// not hashed: a change there that changes chunks must bump BuilderVersion.
//
//go:embed code.go docs.go split.go llmdoc.go llmdoc_chunked.go
var builderSources embed.FS

var builderHash = func() string {
	h := sha256.New()
	entries, _ := builderSources.ReadDir(".")
	for _, e := range entries {
		data, _ := builderSources.ReadFile(e.Name())
		fmt.Fprintf(h, "%s\x00%d\x00", e.Name(), len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}()

// cacheKey is the hex SHA-256 of BuilderVersion, the builder's source hash, the source number and, per
// input file in build order, its path relative to src/, its length and the
// SHA-256 of its bytes.
func cacheKey(source int, files []inputFile) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s %s\nsource %d\n", BuilderVersion, builderHash, source)
	for _, f := range files {
		sum := sha256.Sum256(f.data)
		fmt.Fprintf(h, "%s\x00%d\x00%x\n", f.rel, len(f.data), sum)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func cacheName(source int) string {
	if source == 1 {
		return "code"
	}
	return "docs"
}

// cached returns the corpus of files from o.CacheDir if a valid entry is
// there, else builds it and, with a CacheDir, stores it.
//
// A cache file is CacheDir/<code|docs>-<key>.jsonl: one header line
// {"builder","source","key","id","files","documents","chunks"}, then one
// Chunk (its JSON encoding) per line. An entry is used only if it parses,
// its header names this builder, source and key, it holds the announced
// number of chunks and the chunks' ComputeID equals the header's id;
// otherwise it is reported through Options.Logf and rebuilt. Files are
// written to a temporary file in CacheDir and renamed into place.
func cached(o Options, source int, files []inputFile, build func() (*Corpus, error)) (*Corpus, error) {
	if o.CacheDir == "" {
		return build()
	}
	key := cacheKey(source, files)
	p := filepath.Join(o.CacheDir, cacheName(source)+"-"+key+".jsonl")
	if c, err := readCache(p, source, key); err == nil {
		return c, nil
	} else if !os.IsNotExist(err) {
		o.logf("corpus: ignoring cache %s: %v; rebuilding", p, err)
	}
	c, err := build()
	if err != nil {
		return nil, err
	}
	if err := writeCache(p, key, c); err != nil {
		return nil, err
	}
	return c, nil
}

func readCache(p string, source int, key string) (*Corpus, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	if !sc.Scan() {
		return nil, fmt.Errorf("empty file")
	}
	var h cacheHeader
	if err := json.Unmarshal(sc.Bytes(), &h); err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	if h.Builder != BuilderVersion || h.Source != source || h.Key != key {
		return nil, fmt.Errorf("header names builder %q source %d key %s", h.Builder, h.Source, h.Key)
	}
	c := &Corpus{Source: source, Files: h.Files, Documents: h.Documents, Cached: true}
	for sc.Scan() {
		var ch Chunk
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&ch); err != nil {
			return nil, fmt.Errorf("line %d: %w", len(c.Chunks)+2, err)
		}
		c.Chunks = append(c.Chunks, ch)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(c.Chunks) != h.Chunks {
		return nil, fmt.Errorf("%d chunks, header says %d", len(c.Chunks), h.Chunks)
	}
	if c.ID = ComputeID(c.Chunks); c.ID != h.ID {
		return nil, fmt.Errorf("chunks hash to %s, header says %s", c.ID, h.ID)
	}
	return c, nil
}

func writeCache(p, key string, c *Corpus) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("corpus: cache: %w", err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	h := cacheHeader{BuilderVersion, c.Source, key, c.ID, c.Files, c.Documents, len(c.Chunks)}
	if err := enc.Encode(h); err != nil {
		return err
	}
	for _, ch := range c.Chunks {
		if err := enc.Encode(ch); err != nil {
			return err
		}
	}
	if err := atomicfile.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("corpus: writing cache %s: %w", p, err)
	}
	return nil
}
