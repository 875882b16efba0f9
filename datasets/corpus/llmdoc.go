package corpus

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/internal/atomicfile"
)

// LLMDoc is one entry of an LLM-documentation file: upstream's
// documents_llm_doc_gemini_20_flash_full.json (retrieval source 4: one
// markdown document per pymatgen code object, written by RepoAgent with
// Gemini-2.0-Flash), the chunked documents_llm_doc_gemini_20_flash.json.zip
// (source 3's text: PageContent is one SemanticChunker chunk of such a
// document, the metadata that of its object), or a file written by
// WriteLLMDocs (runner/docgen). docs/mattools.md §4 gives the schema,
// inferred from construct_doc.ipynb (method 4): a JSON list of
// {"page_content": …, "metadata": {…}}.
type LLMDoc struct {
	// PageContent is the markdown text (md_content[0] of RepoAgent's
	// project_hierarchy.json), non-empty, at most MaxLLMDocBytes bytes.
	PageContent string         `json:"page_content"`
	Metadata    LLMDocMetadata `json:"metadata"`
}

// LLMDocMetadata is the metadata of an LLMDoc: RepoAgent's record of the
// documented code object. Every field is required in a file.
type LLMDocMetadata struct {
	// CodeSourceFile is the object's file, "pymatgen/" and its path below
	// the pymatgen package folder, e.g. "pymatgen/analysis/defects/core.py"
	// (the prefix "Source of this document: {code_source_file}" of sources
	// 3 and 4 names it).
	CodeSourceFile string `json:"code_source_file"`
	// Type is RepoAgent's kind of object: one of LLMDocTypes.
	Type string `json:"type"`
	// Name is the object's simple name (no class prefix), non-empty.
	Name string `json:"name"`
	// CodeStartLine and CodeEndLine are the object's first and last lines,
	// 1-based, inclusive (ast lineno and end_lineno), start ≥ 1 and ≤ end.
	CodeStartLine int `json:"code_start_line"`
	CodeEndLine   int `json:"code_end_line"`
	// HaveReturn is RepoAgent's test: the object's code contains "return".
	HaveReturn bool `json:"have_return"`
	// CodeContent is the object's code, lines CodeStartLine..CodeEndLine
	// with their line ends; at most MaxLLMDocBytes bytes.
	CodeContent string `json:"code_content"`
	// NameColumn is the 0-based offset of Name in the object's first line
	// (str.find, so -1 if absent).
	NameColumn int `json:"name_column"`
	// ItemStatus is RepoAgent's DocItemStatus name: one of LLMDocStatuses.
	ItemStatus string `json:"item_status"`
}

// LLMDocTypes are the accepted LLMDocMetadata.Type values: RepoAgent
// records type(node).__name__ of the ast node (older file_handler.py) or
// DocItemType.to_str(), which maps classes to "ClassDef" and functions,
// methods and nested functions to "FunctionDef".
var LLMDocTypes = []string{"ClassDef", "FunctionDef", "AsyncFunctionDef"}

// LLMDocStatuses are the accepted LLMDocMetadata.ItemStatus values:
// RepoAgent's DocItemStatus names.
var LLMDocStatuses = []string{"doc_up_to_date", "doc_has_not_been_generated", "code_changed", "add_new_referencer", "referencer_not_exist"}

// Limits of LoadLLMDocs and WriteLLMDocs.
const (
	// MaxLLMDocBytes caps page_content and code_content of one entry (1 MiB).
	MaxLLMDocBytes = 1 << 20
	// MaxLLMDocEntries caps the entries of one file (upstream's full file
	// has 7,192–7,200, the chunked one 18,001–18,100).
	MaxLLMDocEntries = 200_000
	// MaxLLMDocFileBytes caps the size of the JSON text (2 GiB), inside a
	// zip archive too.
	MaxLLMDocFileBytes = 2 << 30
)

var llmDocFields = []string{"page_content", "metadata"}
var llmDocMetaFields = []string{"code_source_file", "type", "name", "code_start_line", "code_end_line", "have_return", "code_content", "name_column", "item_status"}

// LoadLLMDocs reads an LLM-documentation file: a JSON list of LLMDoc
// entries, either as such (path ending ".json") or as the only file of a
// zip archive (path ending ".zip"; directory entries and "__MACOSX/"
// entries are ignored, any other second file is an error).
//
// Validation is strict: the top level must be a list of 1 to
// MaxLLMDocEntries objects; each entry must have exactly the keys
// page_content and metadata, the metadata exactly the nine keys of
// LLMDocMetadata, each of its JSON type (strings, integers, a boolean);
// page_content non-empty and code_content at most MaxLLMDocBytes;
// code_source_file starting "pymatgen/" and ending ".py"; name non-empty;
// type among LLMDocTypes; item_status among LLMDocStatuses;
// 1 ≤ code_start_line ≤ code_end_line; name_column ≥ -1. An error names the
// file, the 0-based entry index and the field, e.g.
// "corpus: docs.json: entry 3: metadata.code_end_line: 10 is before code_start_line 12".
func LoadLLMDocs(path string) ([]LLMDoc, error) {
	data, err := readLLMDocFile(path)
	if err != nil {
		return nil, err
	}
	return parseLLMDocs(path, data)
}

func readLLMDocFile(path string) ([]byte, error) {
	if !strings.HasSuffix(strings.ToLower(path), ".zip") {
		st, err := os.Stat(path)
		if err != nil {
			return nil, fmt.Errorf("corpus: LLM docs: %w", err)
		}
		if st.Size() > MaxLLMDocFileBytes {
			return nil, fmt.Errorf("corpus: %s: %d bytes, over the %d-byte cap", path, st.Size(), int64(MaxLLMDocFileBytes))
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("corpus: LLM docs: %w", err)
		}
		return b, nil
	}
	zr, err := zip.OpenReader(path)
	if err != nil {
		return nil, fmt.Errorf("corpus: %s: not a readable zip archive: %w", path, err)
	}
	defer zr.Close()
	var files []*zip.File
	for _, f := range zr.File {
		if f.FileInfo().IsDir() || strings.HasPrefix(f.Name, "__MACOSX/") {
			continue
		}
		files = append(files, f)
	}
	if len(files) != 1 {
		names := make([]string, len(files))
		for i, f := range files {
			names[i] = f.Name
		}
		return nil, fmt.Errorf("corpus: %s: the archive holds %d files %q, want exactly one JSON file", path, len(files), names)
	}
	rc, err := files[0].Open()
	if err != nil {
		return nil, fmt.Errorf("corpus: %s: %s: %w", path, files[0].Name, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, MaxLLMDocFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("corpus: %s: %s: %w", path, files[0].Name, err)
	}
	if len(b) > MaxLLMDocFileBytes {
		return nil, fmt.Errorf("corpus: %s: %s is over the %d-byte cap", path, files[0].Name, int64(MaxLLMDocFileBytes))
	}
	return b, nil
}

func parseLLMDocs(path string, data []byte) ([]LLMDoc, error) {
	name := filepath.Base(path)
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("corpus: %s: not a JSON list of documents: %w", name, err)
	}
	if len(raw) == 0 {
		return nil, fmt.Errorf("corpus: %s: the list holds no document", name)
	}
	if len(raw) > MaxLLMDocEntries {
		return nil, fmt.Errorf("corpus: %s: %d entries, over the cap of %d", name, len(raw), MaxLLMDocEntries)
	}
	docs := make([]LLMDoc, len(raw))
	for i, r := range raw {
		d, err := parseLLMDoc(r)
		if err != nil {
			return nil, fmt.Errorf("corpus: %s: entry %d: %w", name, i, err)
		}
		docs[i] = d
	}
	return docs, nil
}

// fieldsOf decodes an object into its members, rejecting keys outside want
// and missing ones.
func fieldsOf(r json.RawMessage, prefix string, want []string) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(r, &m); err != nil || m == nil {
		return nil, fmt.Errorf("%s: not a JSON object", strings.TrimSuffix(prefix, "."))
	}
	var unknown []string
	for k := range m {
		if !contains(want, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, fmt.Errorf("%s%s: unknown field", prefix, unknown[0])
	}
	for _, k := range want {
		if _, ok := m[k]; !ok {
			return nil, fmt.Errorf("%s%s: missing", prefix, k)
		}
	}
	return m, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func jsonKind(r json.RawMessage) string {
	t := bytes.TrimSpace(r)
	if len(t) == 0 {
		return "nothing"
	}
	switch t[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "a list"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number " + string(t)
}

func parseLLMDoc(r json.RawMessage) (LLMDoc, error) {
	var d LLMDoc
	top, err := fieldsOf(r, "", llmDocFields)
	if err != nil {
		return d, err
	}
	if err := llmString(top["page_content"], "page_content", &d.PageContent); err != nil {
		return d, err
	}
	meta, err := fieldsOf(top["metadata"], "metadata.", llmDocMetaFields)
	if err != nil {
		return d, err
	}
	m := &d.Metadata
	for _, f := range []struct {
		key string
		dst *string
	}{{"code_source_file", &m.CodeSourceFile}, {"type", &m.Type}, {"name", &m.Name}, {"code_content", &m.CodeContent}, {"item_status", &m.ItemStatus}} {
		if err := llmString(meta[f.key], "metadata."+f.key, f.dst); err != nil {
			return d, err
		}
	}
	for _, f := range []struct {
		key string
		dst *int
	}{{"code_start_line", &m.CodeStartLine}, {"code_end_line", &m.CodeEndLine}, {"name_column", &m.NameColumn}} {
		if err := llmInt(meta[f.key], "metadata."+f.key, f.dst); err != nil {
			return d, err
		}
	}
	if err := json.Unmarshal(meta["have_return"], &m.HaveReturn); err != nil || jsonKind(meta["have_return"]) != "a boolean" {
		return d, fmt.Errorf("metadata.have_return: want a boolean, got %s", jsonKind(meta["have_return"]))
	}
	return d, d.validate()
}

func llmString(r json.RawMessage, field string, dst *string) error {
	if jsonKind(r) != "a string" {
		return fmt.Errorf("%s: want a string, got %s", field, jsonKind(r))
	}
	if err := json.Unmarshal(r, dst); err != nil {
		return fmt.Errorf("%s: %w", field, err)
	}
	return nil
}

func llmInt(r json.RawMessage, field string, dst *int) error {
	t := string(bytes.TrimSpace(r))
	n, err := strconv.Atoi(t)
	if err != nil {
		return fmt.Errorf("%s: want an integer, got %s", field, jsonKind(r))
	}
	*dst = n
	return nil
}

// validate checks the values of a decoded entry (the JSON types are
// checked by parseLLMDoc; WriteLLMDocs checks only this).
func (d LLMDoc) validate() error {
	m := d.Metadata
	switch {
	case strings.TrimSpace(d.PageContent) == "":
		return fmt.Errorf("page_content: empty")
	case len(d.PageContent) > MaxLLMDocBytes:
		return fmt.Errorf("page_content: %d bytes, over the %d-byte cap", len(d.PageContent), MaxLLMDocBytes)
	case !strings.HasPrefix(m.CodeSourceFile, "pymatgen/") || !strings.HasSuffix(m.CodeSourceFile, ".py") || strings.Contains(m.CodeSourceFile, ".."):
		return fmt.Errorf("metadata.code_source_file: %q is not \"pymatgen/<path>.py\"", m.CodeSourceFile)
	case !contains(LLMDocTypes, m.Type):
		return fmt.Errorf("metadata.type: %q is none of %q", m.Type, LLMDocTypes)
	case strings.TrimSpace(m.Name) == "":
		return fmt.Errorf("metadata.name: empty")
	case m.CodeStartLine < 1:
		return fmt.Errorf("metadata.code_start_line: %d is not ≥ 1", m.CodeStartLine)
	case m.CodeEndLine < m.CodeStartLine:
		return fmt.Errorf("metadata.code_end_line: %d is before code_start_line %d", m.CodeEndLine, m.CodeStartLine)
	case len(m.CodeContent) > MaxLLMDocBytes:
		return fmt.Errorf("metadata.code_content: %d bytes, over the %d-byte cap", len(m.CodeContent), MaxLLMDocBytes)
	case m.NameColumn < -1:
		return fmt.Errorf("metadata.name_column: %d is below -1", m.NameColumn)
	case !contains(LLMDocStatuses, m.ItemStatus):
		return fmt.Errorf("metadata.item_status: %q is none of %q", m.ItemStatus, LLMDocStatuses)
	}
	return nil
}

// WriteLLMDocs writes docs as an LLM-documentation JSON file in upstream's
// schema (a list, one entry per line, keys in the order of LLMDoc and
// LLMDocMetadata, no HTML escaping), so that LoadLLMDocs reads it back
// equal. Every entry is validated first (errors name the entry index and
// field; nothing is written then). The file is written to a temporary file
// in path's folder (created if missing), synced and renamed onto path.
func WriteLLMDocs(path string, docs []LLMDoc) error {
	if len(docs) == 0 {
		return fmt.Errorf("corpus: writing %s: no document", path)
	}
	if len(docs) > MaxLLMDocEntries {
		return fmt.Errorf("corpus: writing %s: %d entries, over the cap of %d", path, len(docs), MaxLLMDocEntries)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	buf.WriteString("[\n")
	for i, d := range docs {
		if err := d.validate(); err != nil {
			return fmt.Errorf("corpus: writing %s: entry %d: %w", path, i, err)
		}
		if err := enc.Encode(d); err != nil {
			return fmt.Errorf("corpus: writing %s: entry %d: %w", path, i, err)
		}
		buf.Truncate(buf.Len() - 1) // the encoder's "\n"
		if i < len(docs)-1 {
			buf.WriteByte(',')
		}
		buf.WriteByte('\n')
	}
	buf.WriteString("]\n")
	if err := atomicfile.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("corpus: writing %s: %w", path, err)
	}
	return nil
}

// LLMDocDir is the folder of the documented code, relative to the data
// root's src/ folder, under which a code_source_file "pymatgen/…" lies.
const LLMDocDir = "tool_source_code/pymatgen/src"

// BuildLLMDocFull builds retrieval source 4 from docs (as LoadLLMDocs
// returns them): one chunk per document, in order, no splitting, as
// construct_doc.ipynb's method 4 does. Chunk ID is
// "<code_source_file>#<name>#<i>", i being the 0-based index of the
// document among those of the same file and name (so IDs are unique, e.g.
// "pymatgen/analysis/defects/core.py#Defect#0"); Source is
// code_source_file (the prefix "Source of this document: {Source}" of §5);
// Name the metadata name; Text page_content; Path LLMDocDir + "/" +
// code_source_file. Files counts distinct code_source_file values,
// Documents the documents. ID is ComputeID of the chunks; origin (who wrote
// the documents, e.g. "upstream gemini-2.0-flash") becomes Origin.
func BuildLLMDocFull(docs []LLMDoc, origin string) *Corpus {
	c := &Corpus{Source: 4, Documents: len(docs), Origin: origin}
	n := map[string]int{}
	files := map[string]bool{}
	for _, d := range docs {
		m := d.Metadata
		key := m.CodeSourceFile + "#" + m.Name
		files[m.CodeSourceFile] = true
		c.Chunks = append(c.Chunks, Chunk{
			ID: key + "#" + strconv.Itoa(n[key]), Source: m.CodeSourceFile, Name: m.Name,
			Text: d.PageContent, Path: LLMDocDir + "/" + m.CodeSourceFile,
		})
		n[key]++
	}
	c.Files = len(files)
	c.ID = ComputeID(c.Chunks)
	return c
}
