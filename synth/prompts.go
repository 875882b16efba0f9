package synth

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// QuestionGenerationDir is the folder of MatTools' synthesis prompts and
// intermediate JSON, relative to the data root (the same path in an
// upstream checkout).
const QuestionGenerationDir = "src/question_generation"

// MatTools' three synthesis prompts, files of QuestionGenerationDir.
const (
	PromptExtract        = "extract_params_from_test.txt"      // step 1's system prompt
	PromptQuestionSystem = "build_question_from_test.txt"      // step 2's system prompt
	PromptQuestionUser   = "build_question_from_test_user.txt" // step 2's user template
	PromptUnitTest       = "generate_new_unit_test.txt"        // step 3's system prompt
)

// ReferencePrompt is this project's fourth prompt (reference_prompt.txt),
// sent as the one user message of step 4 after replacing {question},
// {properties_json}, {unit_test_code} and {file_reading_functions}: it
// asks for the reference solution, the function the question asks for,
// written from the test's code.
//
//go:embed reference_prompt.txt
var ReferencePrompt string

// ReferencePromptSHA256 is "sha256:" and the hex SHA-256 of ReferencePrompt.
var ReferencePromptSHA256 = sha256Hex(ReferencePrompt)

func sha256Hex(s string) string {
	h := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(h[:])
}

// PromptFile is a prompt text's source and hash, for the provenance of a
// synthesis (the journal's header, the review file).
type PromptFile struct {
	// Path is relative to the data root ("src/question_generation/…"),
	// or "synth/reference_prompt.txt" for the project's own prompt.
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// Prompts are the four prompt texts of a synthesis.
type Prompts struct {
	// Extract, QuestionSystem, QuestionUser and UnitTest are MatTools'
	// texts byte for byte; Reference is ReferencePrompt.
	Extract, QuestionSystem, QuestionUser, UnitTest, Reference string
	Files                                                      []PromptFile
}

// LoadPrompts reads MatTools' three synthesis prompts (four files) from
// root/QuestionGenerationDir, byte for byte, and adds ReferencePrompt. A
// missing file is an error naming it.
func LoadPrompts(root string) (*Prompts, error) {
	p := &Prompts{Reference: ReferencePrompt}
	for _, f := range []struct {
		name string
		dst  *string
	}{{PromptExtract, &p.Extract}, {PromptQuestionSystem, &p.QuestionSystem}, {PromptQuestionUser, &p.QuestionUser}, {PromptUnitTest, &p.UnitTest}} {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(QuestionGenerationDir), f.name))
		if err != nil {
			return nil, fmt.Errorf("synth: reading MatTools' synthesis prompt (%s/%s of the data root): %w", QuestionGenerationDir, f.name, err)
		}
		*f.dst = string(b)
		p.Files = append(p.Files, PromptFile{QuestionGenerationDir + "/" + f.name, sha256Hex(string(b))})
	}
	p.Files = append(p.Files, PromptFile{"synth/reference_prompt.txt", ReferencePromptSHA256})
	return p, nil
}

// Steps of a triplet, in order: the calls made for each test.
const (
	StepProperties = "properties" // extract the asserted properties (JSON)
	StepQuestion   = "question"   // write the question
	StepUnitTest   = "unit_test"  // write the verification code
	StepReference  = "reference"  // write the reference solution (this project's)
)

// Steps lists the steps in order.
var Steps = []string{StepProperties, StepQuestion, StepUnitTest, StepReference}

// Upstream's answers are cut out of the model's text as MatTools' results
// show (src/question_generation/defect_questions_original.json: stripped
// texts with no fence or tag left, and a null properties_json_str where the
// answer held no JSON block): the first ```json block, the first
// <question>…</question>, the first ```python block, each trimmed of
// surrounding whitespace.
var (
	jsonBlock     = regexp.MustCompile("(?s)```json(.*?)```")
	questionBlock = regexp.MustCompile(`(?s)<question>(.*?)</question>`)
	pythonBlock   = regexp.MustCompile("(?s)```python(.*?)```")
)

func firstGroup(re *regexp.Regexp, s string) *string {
	m := re.FindStringSubmatch(s)
	if m == nil {
		return nil
	}
	t := strings.TrimSpace(m[1])
	return &t
}

// ParseProperties returns step 1's properties_json_str: the first ```json
// block of the answer, trimmed; nil when there is none (upstream's null).
func ParseProperties(answer string) *string { return firstGroup(jsonBlock, answer) }

// ParseQuestion returns step 2's question: the text of the first
// <question>…</question>, trimmed; nil when there is none.
func ParseQuestion(answer string) *string { return firstGroup(questionBlock, answer) }

// ParseCode returns step 3's new_unit_test and step 4's reference
// solution: the first ```python block, trimmed; nil when there is none.
func ParseCode(answer string) *string { return firstGroup(pythonBlock, answer) }

// pyStr is what Python's str() gives for an optional text: the text, or
// "None" (what upstream formatted into the next prompts when step 1 gave
// no JSON block).
func pyStr(s *string) string {
	if s == nil {
		return "None"
	}
	return *s
}

// Messages returns the chat messages of step for test t, given the parsed
// answers of the earlier steps (props for steps 2–4, question for step 4):
//
//  1. system PromptExtract, user the unit test (Test.UnitTest);
//  2. system PromptQuestionSystem, user PromptQuestionUser with
//     {unit_test_code}, {properties_json} and {file_reading_functions};
//  3. system PromptUnitTest, user the properties JSON;
//  4. user ReferencePrompt with {question}, {properties_json},
//     {unit_test_code} and {file_reading_functions}.
//
// A missing earlier answer is formatted as "None", as upstream's
// str.format did.
func (p *Prompts) Messages(step string, t Test, props, question *string) []Message {
	switch step {
	case StepProperties:
		return []Message{{"system", p.Extract}, {"user", t.UnitTest}}
	case StepQuestion:
		u := strings.NewReplacer("{unit_test_code}", t.UnitTest, "{properties_json}", pyStr(props), "{file_reading_functions}", t.FileReading).Replace(p.QuestionUser)
		return []Message{{"system", p.QuestionSystem}, {"user", u}}
	case StepUnitTest:
		return []Message{{"system", p.UnitTest}, {"user", pyStr(props)}}
	case StepReference:
		u := strings.NewReplacer("{question}", pyStr(question), "{properties_json}", pyStr(props), "{unit_test_code}", t.UnitTest,
			"{file_reading_functions}", t.FileReading).Replace(p.Reference)
		return []Message{{"user", u}}
	}
	panic("synth: unknown step " + step)
}

// Message is one chat message of a step (role "system" or "user").
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}
