package graphrag

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/internal/pystr"
)

// EnvData names the environment variable from which the runner takes the
// prompt directory (LightRAG 1.3.3's prompt texts; see docs/graphrag.md).
const EnvData = "LIGHTRAG_DATA"

// promptFiles lists the files LoadPrompts reads, one per PROMPTS key of
// LightRAG 1.3.3's prompt.py (similarity_check, used only by the
// embedding-similarity cache that is off by default, is not read).
var promptFiles = []string{
	"DEFAULT_LANGUAGE.txt",
	"DEFAULT_TUPLE_DELIMITER.txt",
	"DEFAULT_RECORD_DELIMITER.txt",
	"DEFAULT_COMPLETION_DELIMITER.txt",
	"DEFAULT_ENTITY_TYPES.txt",
	"entity_extraction.txt",
	"entity_extraction_examples.txt",
	"entity_continue_extraction.txt",
	"entity_if_loop_extraction.txt",
	"summarize_entity_descriptions.txt",
	"keywords_extraction.txt",
	"keywords_extraction_examples.txt",
	"rag_response.txt",
	"naive_rag_response.txt",
	"mix_rag_response.txt",
	"fail_response.txt",
}

// Prompts are LightRAG 1.3.3's prompt texts (prompt.py; the files of
// directory LIGHTRAG_DATA names; see docs/graphrag.md), byte for byte, with the
// placeholders of Python's str.format kept.
type Prompts struct {
	Language            string   // DEFAULT_LANGUAGE: "English"
	TupleDelimiter      string   // "<|>"
	RecordDelimiter     string   // "##"
	CompletionDelimiter string   // "<|COMPLETE|>"
	EntityTypes         []string // DEFAULT_ENTITY_TYPES, in order

	EntityExtraction         string
	EntityExtractionExamples string // the three examples joined by "\n", unformatted
	EntityContinueExtraction string
	EntityIfLoopExtraction   string // never sent with one gleaning pass
	SummarizeDescriptions    string
	KeywordsExtraction       string
	KeywordsExamples         string // joined by "\n"; literal JSON braces, never formatted
	RAGResponse              string
	NaiveRAGResponse         string
	MixRAGResponse           string
	FailResponse             string

	// SHA256 maps each file name read to the SHA-256 (hex) of its bytes,
	// for the manifest.
	SHA256 map[string]string
	// Dir is the directory read.
	Dir string
}

// LoadPrompts reads the prompt files of dir (the layout of the directory
// LIGHTRAG_DATA names; see docs/graphrag.md). A missing or unreadable file is an error naming
// it. When dir also holds prompts.json (the whole PROMPTS dictionary), every
// text file is checked against it, lists as joined by "\n", and a
// difference is an error naming the key.
func LoadPrompts(dir string) (*Prompts, error) {
	if dir == "" {
		return nil, fmt.Errorf("graphrag: no prompt directory (set %s to LightRAG's prompt texts; docs/graphrag.md)", EnvData)
	}
	text := map[string]string{}
	sums := map[string]string{}
	for _, name := range promptFiles {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("graphrag: prompts: %w", err)
		}
		text[name] = string(b)
		s := sha256.Sum256(b)
		sums[name] = hex.EncodeToString(s[:])
	}
	if b, err := os.ReadFile(filepath.Join(dir, "prompts.json")); err == nil {
		if err := checkPromptsJSON(b, text); err != nil {
			return nil, fmt.Errorf("graphrag: prompts in %s: %w", dir, err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("graphrag: prompts: %w", err)
	}
	p := &Prompts{
		Language:                 text["DEFAULT_LANGUAGE.txt"],
		TupleDelimiter:           text["DEFAULT_TUPLE_DELIMITER.txt"],
		RecordDelimiter:          text["DEFAULT_RECORD_DELIMITER.txt"],
		CompletionDelimiter:      text["DEFAULT_COMPLETION_DELIMITER.txt"],
		EntityTypes:              strings.Split(text["DEFAULT_ENTITY_TYPES.txt"], "\n"),
		EntityExtraction:         text["entity_extraction.txt"],
		EntityExtractionExamples: text["entity_extraction_examples.txt"],
		EntityContinueExtraction: text["entity_continue_extraction.txt"],
		EntityIfLoopExtraction:   text["entity_if_loop_extraction.txt"],
		SummarizeDescriptions:    text["summarize_entity_descriptions.txt"],
		KeywordsExtraction:       text["keywords_extraction.txt"],
		KeywordsExamples:         text["keywords_extraction_examples.txt"],
		RAGResponse:              text["rag_response.txt"],
		NaiveRAGResponse:         text["naive_rag_response.txt"],
		MixRAGResponse:           text["mix_rag_response.txt"],
		FailResponse:             text["fail_response.txt"],
		SHA256:                   sums,
		Dir:                      dir,
	}
	return p, nil
}

// checkPromptsJSON compares each text file with its key in prompts.json.
func checkPromptsJSON(b []byte, text map[string]string) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("prompts.json: %w", err)
	}
	for _, name := range promptFiles {
		key := strings.TrimSuffix(name, ".txt")
		raw, ok := m[key]
		if !ok {
			return fmt.Errorf("prompts.json has no key %q", key)
		}
		var want string
		if bytes.HasPrefix(bytes.TrimSpace(raw), []byte("[")) {
			var list []string
			if err := json.Unmarshal(raw, &list); err != nil {
				return fmt.Errorf("prompts.json key %q: %w", key, err)
			}
			want = strings.Join(list, "\n")
		} else if err := json.Unmarshal(raw, &want); err != nil {
			return fmt.Errorf("prompts.json key %q: %w", key, err)
		}
		if text[name] != want {
			return fmt.Errorf("%s differs from key %q of prompts.json", name, key)
		}
	}
	return nil
}

// PromptsSHA256 returns one SHA-256 over the sorted (file, sha256) pairs,
// a fingerprint of the prompt set.
func (p *Prompts) PromptsSHA256() string {
	names := make([]string, 0, len(p.SHA256))
	for n := range p.SHA256 {
		names = append(names, n)
	}
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		fmt.Fprintf(h, "%s %s\n", n, p.SHA256[n])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// extractionContext is context_base of extract_entities (operate.py:470-520):
// entity types joined by "," without a space, the examples formatted first
// with the delimiters (and types joined by ", ", which they do not use).
func (p *Prompts) extractionContext(language string, types []string) (map[string]string, error) {
	exBase := map[string]string{
		"tuple_delimiter":      p.TupleDelimiter,
		"record_delimiter":     p.RecordDelimiter,
		"completion_delimiter": p.CompletionDelimiter,
		"entity_types":         strings.Join(types, ", "),
		"language":             language,
	}
	examples, err := pystr.Format(p.EntityExtractionExamples, exBase)
	if err != nil {
		return nil, fmt.Errorf("graphrag: entity_extraction_examples: %w", err)
	}
	return map[string]string{
		"tuple_delimiter":      p.TupleDelimiter,
		"record_delimiter":     p.RecordDelimiter,
		"completion_delimiter": p.CompletionDelimiter,
		"entity_types":         strings.Join(types, ","),
		"examples":             examples,
		"language":             language,
	}, nil
}

// extractionPrompt fills entity_extraction for one chunk as LightRAG does
// (operate.py:577-583): formatted once with input_text left as the
// placeholder, then formatted again with the chunk text, so braces in the
// chunk are never interpreted.
func extractionPrompt(tmpl string, ctxBase map[string]string, chunk string) (string, error) {
	f := make(map[string]string, len(ctxBase)+1)
	for k, v := range ctxBase {
		f[k] = v
	}
	f["input_text"] = "{input_text}"
	first, err := pystr.Format(tmpl, f)
	if err != nil {
		return "", fmt.Errorf("graphrag: entity_extraction: %w", err)
	}
	f["input_text"] = chunk
	second, err := pystr.Format(first, f)
	if err != nil {
		return "", fmt.Errorf("graphrag: entity_extraction (second pass): %w", err)
	}
	return second, nil
}
