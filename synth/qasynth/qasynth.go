// Package qasynth runs MatTools' QA-synthesis pipeline (docs/synthesis.md
// §6): each LLM-written document of a pymatgen code object (upstream's
// documents_llm_doc_gemini_20_flash_full.json, or cmd/gen-docs output; both
// read by corpus.LoadLLMDocs) is turned into up to five multiple-choice
// questions by one chat call with one of MatTools' two QA prompts, the
// answer parsed as upstream's check_answer parses it; then the QA audit of
// datasets/qaaudit is applied as a filter (malformed and leaked items out,
// correct letters rebalanced) and the set is written in upstream's QA file
// format, which datasets.LoadQA reads.
package qasynth

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mattools-leaderboard/leaderboard/datasets/corpus"
	"github.com/mattools-leaderboard/leaderboard/internal/pystr"
)

// PromptFile is the upstream Python file holding MatTools' QA prompts,
// relative to the data root (the same path in an upstream checkout).
const PromptFile = "qa_benchmark/pymatgen-qa-generation/src/files/prompt.py"

// The two question sets and the prompt variable of each in PromptFile, as
// upstream's main.py picks them (settings.prompt_type "question_generation"
// or "code_generation").
const (
	SetDoc  = "doc"  // question_generation_prompt, filled with the document's text
	SetCode = "code" // question_code_generation_prompt, filled with its code
)

// PromptVariable maps a set to its prompt's variable in PromptFile.
var PromptVariable = map[string]string{SetDoc: "question_generation_prompt", SetCode: "question_code_generation_prompt"}

// Upstream's generation settings (main.py, question_generator.py).
const (
	// UpstreamModel and UpstreamTemperature are main.py's model_args.
	UpstreamModel       = "gemini-2.0-flash"
	UpstreamTemperature = 0.7
	// MaxAttempts is process_documents' max_retries: a document whose
	// answer check_answer rejects is asked again, up to this many times
	// in all, then dropped.
	MaxAttempts = 3
)

//go:embed prompts.py
var promptsScript string

// Prompt is one of MatTools' QA prompts, byte for byte.
type Prompt struct {
	Set  string // SetDoc or SetCode
	Text string
	// Source is PromptFile and Variable the variable assigned the text;
	// SHA256 is "sha256:" and the hex SHA-256 of Text.
	Source, Variable, SHA256 string
}

// LoadPrompt reads set's prompt from root/PromptFile: the string assigned
// at module level to PromptVariable[set], evaluated by Python's ast
// (ast.literal_eval; the file is parsed, never imported or run) under
// python. A missing file, variable or interpreter is an error naming it.
func LoadPrompt(root, set, python string) (*Prompt, error) {
	name, ok := PromptVariable[set]
	if !ok {
		return nil, fmt.Errorf("qasynth: unknown QA set %q; want %s or %s", set, SetDoc, SetCode)
	}
	src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(PromptFile)))
	if err != nil {
		return nil, fmt.Errorf("qasynth: reading MatTools' QA prompts (%s of the data root): %w", PromptFile, err)
	}
	var out struct {
		Text  *string `json:"text"`
		Error string  `json:"error"`
	}
	if err := corpus.RunParser("qasynth", python, promptsScript, map[string]string{"source": string(src), "name": name}, &out); err != nil {
		return nil, err
	}
	if out.Text == nil {
		return nil, fmt.Errorf("qasynth: %s: %s", PromptFile, out.Error)
	}
	return &Prompt{Set: set, Text: *out.Text, Source: PromptFile, Variable: name, SHA256: sha256Hex(*out.Text)}, nil
}

func sha256Hex(s string) string {
	h := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(h[:])
}

// Message returns the one user message upstream sends for doc: for SetDoc
// question_generation_prompt.format(Document=…) with "Code Source File: "
// + code_source_file + "\n\nDocument: \n" + page_content
// (QuestionGenerator.process_documents); for SetCode
// question_code_generation_prompt.format(CodeSourceFile=code_source_file,
// CodeSnippet=code_content) (CodeQuestionGenerator). The format is Python's
// str.format (pystr.Format); an error names the field it lacks.
func (p *Prompt) Message(doc corpus.LLMDoc) (string, error) {
	var fields map[string]string
	switch p.Set {
	case SetDoc:
		fields = map[string]string{"Document": "Code Source File: " + doc.Metadata.CodeSourceFile + "\n\nDocument: \n" + doc.PageContent}
	case SetCode:
		fields = map[string]string{"CodeSourceFile": doc.Metadata.CodeSourceFile, "CodeSnippet": doc.Metadata.CodeContent}
	default:
		return "", fmt.Errorf("qasynth: unknown QA set %q", p.Set)
	}
	m, err := pystr.Format(p.Text, fields)
	if err != nil {
		return "", fmt.Errorf("qasynth: formatting the %s prompt (%s): %w", p.Set, p.Variable, err)
	}
	return m, nil
}

// Question is one parsed question: the fields of an item of upstream's
// QA files ("question_id", "question", "choices", "correct_answer").
type Question struct {
	QuestionID string `json:"question_id"`
	Question   string `json:"question"`
	// Choices are A–D in order, each as the model wrote it (upstream
	// keeps the "A. " prefix).
	Choices       [4]string `json:"-"`
	CorrectAnswer string    `json:"correct_answer"`
}

// CheckAnswer parses one answer as MatTools' check_answer does
// (qa_benchmark/pymatgen-qa-generation/src/question_generator.py,
// BaseQuestionGenerator.check_answer): re.findall of
//
//	<question(\d+)>(.*?)</question\1>.*?<answer_choices\1>(.*?)</answer_choices\1>.*?<correct_answer\1>(.*?)</correct_answer\1>
//
// under re.DOTALL, then each block's <choice>(.*?)</choice>, stripped. The
// whole answer is rejected (an error giving the reason) when any block has
// other than four choices or a correct answer that is not, stripped, one
// of A–D, or when there is no block at all. Question texts and the correct
// letter are stripped (Python's str.strip, pystr.Strip); question_id is
// the block's number as written.
func CheckAnswer(answer string) ([]Question, error) {
	var out []Question
	for _, b := range findBlocks(answer) {
		var choices []string
		rest := b.choices
		for {
			i := strings.Index(rest, "<choice>")
			if i < 0 {
				break
			}
			rest = rest[i+len("<choice>"):]
			j := strings.Index(rest, "</choice>")
			if j < 0 {
				break
			}
			choices = append(choices, pystr.Strip(rest[:j]))
			rest = rest[j+len("</choice>"):]
		}
		letter := pystr.Strip(b.correct)
		if len(choices) != 4 {
			return nil, fmt.Errorf("question %s: %d choices, want 4 (the whole answer is rejected, as upstream's check_answer does)", b.id, len(choices))
		}
		if letter != "A" && letter != "B" && letter != "C" && letter != "D" {
			return nil, fmt.Errorf("question %s: correct answer %s is not one of A, B, C, D (the whole answer is rejected, as upstream's check_answer does)", b.id, strconv.Quote(letter))
		}
		out = append(out, Question{QuestionID: b.id, Question: pystr.Strip(b.question), Choices: [4]string(choices), CorrectAnswer: letter})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no question block (<questionN>…</questionN>, <answer_choicesN>, <correct_answerN>) in the answer")
	}
	return out, nil
}

type block struct{ id, question, choices, correct string }

// findBlocks is re.findall of check_answer's pattern, which Go's regexp
// cannot express (it has back-references): at each position, from the
// left, "<question" and a run of digits (Python's \d: any decimal digit)
// and ">", then the first "</questionN>", the first "<answer_choicesN>"
// after it, the first "</answer_choicesN>", the first "<correct_answerN>"
// and the first "</correct_answerN>". Taking the first occurrence of each
// is what the lazy groups give with backtracking (a later occurrence can
// only make the rest harder to find); a start whose chain is incomplete
// matches nothing and the search goes on one character later; after a
// match it goes on from the match's end.
func findBlocks(s string) []block {
	var out []block
	for pos := 0; pos < len(s); {
		i := strings.Index(s[pos:], "<question")
		if i < 0 {
			break
		}
		start := pos + i
		b, end, ok := matchAt(s, start+len("<question"))
		if !ok {
			pos = start + 1
			continue
		}
		out = append(out, b)
		pos = end
	}
	return out
}

func matchAt(s string, p int) (block, int, bool) {
	q := p
	for q < len(s) {
		r, n := utf8.DecodeRuneInString(s[q:])
		if !unicode.IsDigit(r) {
			break
		}
		q += n
	}
	if q == p || q >= len(s) || s[q] != '>' {
		return block{}, 0, false
	}
	id := s[p:q]
	q++
	var b block
	b.id = id
	parts := []struct {
		tag string
		dst *string
	}{{"</question" + id + ">", &b.question}, {"<answer_choices" + id + ">", nil}, {"</answer_choices" + id + ">", &b.choices},
		{"<correct_answer" + id + ">", nil}, {"</correct_answer" + id + ">", &b.correct}}
	for _, part := range parts {
		k := strings.Index(s[q:], part.tag)
		if k < 0 {
			return block{}, 0, false
		}
		if part.dst != nil {
			*part.dst = s[q : q+k]
		}
		q += k + len(part.tag)
	}
	return b, q, true
}
