package systems

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/mattools-leaderboard/leaderboard/results"
)

// PromptsDir is where the prompt texts live in the project's MatTools data
// folder (MATTOOLS_DATA/prompts): the exact prompt texts of the published
// systems, taken from the upstream source, placeholders in braces. An
// upstream checkout has no such folder: ObtainPrompts then extracts the
// same texts from its Python sources (UpstreamTexts).
const PromptsDir = "prompts"

// Prompt files, relative to the prompts directory.
const (
	PromptSingleLLMAnswerFormat = "single_llm/answer_format.txt" // ANSWER_FORMAT of pure_agent_test/build_agent.py
	PromptQAAnswer              = "qa/qa_answer.txt"             // question_test_prompt of qa_benchmark files/prompt.py
)

// Prompts are the prompt texts the systems use, read from the data root.
type Prompts struct {
	// SingleLLMAnswerFormat is MatTools' ANSWER_FORMAT, appended to each
	// question (pure_agent_test/build_agent.py).
	SingleLLMAnswerFormat string
	// QAAnswer is MatTools' question_test_prompt (qa_benchmark files/prompt.py)
	// with the fields {question}, {first_choice} … {fourth_choice}.
	QAAnswer string
	// Dir is the folder in the prompts layout the texts were read from
	// (MATTOOLS_DATA/prompts, -prompts, or the extraction cache); it holds
	// the other systems' texts too.
	Dir string
	// Files lists the files the texts come from, relative to the data
	// root ("prompts/<file>", or the upstream Python file when extracted),
	// with their SHA-256, for the run's provenance.
	Files []results.SourceFile

	// origins maps a prompt file (relative to Dir) to the file it was
	// extracted from, when extracted (ObtainPrompts); texts caches Text.
	origins map[string]results.SourceFile
	mu      sync.Mutex
	texts   map[string]promptText
}

type promptText struct {
	text string
	src  results.SourceFile
}

// Text returns the prompt file rel (slash-separated, relative to the
// prompts directory, e.g. "llm_rag/system.txt") and the source file to
// record for it (the prompts file with its SHA-256, or the upstream Python
// file it was extracted from). A missing file is an error naming it.
func (p *Prompts) Text(rel string) (string, results.SourceFile, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if t, ok := p.texts[rel]; ok {
		return t.text, t.src, nil
	}
	data, err := os.ReadFile(filepath.Join(p.Dir, filepath.FromSlash(rel)))
	if err != nil {
		return "", results.SourceFile{}, fmt.Errorf("reading the prompt text %s (MatTools' prompts as in MATTOOLS_DATA/%s): %w", rel, PromptsDir, err)
	}
	sum := sha256.Sum256(data)
	src := results.SourceFile{Path: PromptsDir + "/" + rel, SHA256: hex.EncodeToString(sum[:])}
	if o, ok := p.origins[rel]; ok {
		src = o
	}
	if p.texts == nil {
		p.texts = map[string]promptText{}
	}
	p.texts[rel] = promptText{string(data), src}
	return string(data), src, nil
}

// LoadPrompts reads the prompt files from the prompts directory dir
// (usually MATTOOLS_DATA/prompts). A missing file is an error naming it.
func LoadPrompts(dir string) (*Prompts, error) {
	p := &Prompts{Dir: dir}
	for _, f := range []struct {
		rel string
		dst *string
	}{{PromptSingleLLMAnswerFormat, &p.SingleLLMAnswerFormat}, {PromptQAAnswer, &p.QAAnswer}} {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.rel)))
		if err != nil {
			return nil, fmt.Errorf("reading the prompt texts (MatTools' prompts as in MATTOOLS_DATA/%s): %w", PromptsDir, err)
		}
		*f.dst = string(data)
		sum := sha256.Sum256(data)
		p.Files = append(p.Files, results.SourceFile{Path: PromptsDir + "/" + f.rel, SHA256: hex.EncodeToString(sum[:])})
	}
	return p, nil
}
