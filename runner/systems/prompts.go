package systems

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mattools-leaderboard/leaderboard/results"
)

// Prompt files, relative to the MatTools data root (MATTOOLS_DATA): the
// exact prompt texts of the published systems, placeholders in braces.
const (
	PromptSingleLLMAnswerFormat = "prompts/single_llm/answer_format.txt"
	PromptQAAnswer              = "prompts/qa/qa_answer.txt"
)

// Prompts are the prompt texts the systems use, read from the data root.
type Prompts struct {
	// SingleLLMAnswerFormat is MatTools' ANSWER_FORMAT, appended to each
	// question (pure_agent_test/build_agent.py).
	SingleLLMAnswerFormat string
	// QAAnswer is MatTools' question_test_prompt (qa_benchmark files/prompt.py)
	// with the fields {question}, {first_choice} … {fourth_choice}.
	QAAnswer string
	// Files lists the files read with their SHA-256, for the run's provenance.
	Files []results.SourceFile
}

// LoadPrompts reads the prompt files from the data root. A missing file is
// an error naming it.
func LoadPrompts(root string) (*Prompts, error) {
	p := &Prompts{}
	for _, f := range []struct {
		rel string
		dst *string
	}{{PromptSingleLLMAnswerFormat, &p.SingleLLMAnswerFormat}, {PromptQAAnswer, &p.QAAnswer}} {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f.rel)))
		if err != nil {
			return nil, fmt.Errorf("reading the prompt %s of the data root %s: %w", f.rel, root, err)
		}
		*f.dst = string(data)
		sum := sha256.Sum256(data)
		p.Files = append(p.Files, results.SourceFile{Path: f.rel, SHA256: hex.EncodeToString(sum[:])})
	}
	return p, nil
}
