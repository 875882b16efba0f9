package qasynth

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/datasets/corpus"
	"github.com/mattools-leaderboard/leaderboard/datasets/qaaudit"
	"github.com/mattools-leaderboard/leaderboard/internal/atomicfile"
)

// RuleDuplicateID names an item whose question_id an earlier item of the
// same document has (the model numbered two blocks alike): the loaded set
// would hold two items of one ID.
const RuleDuplicateID = "duplicate-question-id"

// Entry is one document of a QA file in upstream's format: the document
// and its questions.
type Entry struct {
	Source    corpus.LLMDoc `json:"source"`
	Questions []Question    `json:"questions"`
}

// MarshalJSON writes a question with its fields in upstream's order
// (question_id, question, choices A–D, correct_answer).
func (q Question) MarshalJSON() ([]byte, error) {
	type choices struct {
		A string `json:"A"`
		B string `json:"B"`
		C string `json:"C"`
		D string `json:"D"`
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // json.Marshal would escape <, > and &, which Python writes as they are
	err := enc.Encode(struct {
		QuestionID    string  `json:"question_id"`
		Question      string  `json:"question"`
		Choices       choices `json:"choices"`
		CorrectAnswer string  `json:"correct_answer"`
	}{q.QuestionID, q.Question, choices{q.Choices[0], q.Choices[1], q.Choices[2], q.Choices[3]}, q.CorrectAnswer})
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), err
}

// Dropped is one item the filters took out, with the rules it failed
// (qaaudit's rule names, RuleDuplicateID).
type Dropped struct {
	Document   string   `json:"document"` // DocResult.ID
	QuestionID string   `json:"question_id"`
	Question   string   `json:"question"`
	Rules      []string `json:"rules"`
}

// Review is the record of a QA synthesis for the person who approves it
// (written beside the set by WriteSet).
type Review struct {
	Review string `json:"review"` // ReviewVersion
	Set    string `json:"set"`
	Model  string `json:"model"`
	// Prompt is "<file>:<variable> sha256:<hex>".
	Prompt string `json:"prompt"`
	// Documents is the input's size; Accepted those with an accepted
	// answer; Rejected the documents every attempt of which
	// check_answer rejected, with the reasons; Unfinished those not done.
	Documents  int                 `json:"documents"`
	Accepted   int                 `json:"accepted"`
	Rejected   map[string][]string `json:"rejected"`
	Unfinished []string            `json:"unfinished"`
	// Items counts the accepted answers' questions, Kept those in the set,
	// Dropped the others with their rules; EmptyDocuments the accepted
	// documents none of whose questions is left (not in the set).
	Items          int       `json:"items"`
	Kept           int       `json:"kept"`
	Dropped        []Dropped `json:"dropped"`
	EmptyDocuments []string  `json:"empty_documents"`
	// LettersBefore and LettersAfter count the correct letters A–D of the
	// kept items as the model wrote them and after rebalancing.
	LettersBefore [4]int `json:"letters_before"`
	LettersAfter  [4]int `json:"letters_after"`
}

// ReviewVersion is the "review" value of a QA synthesis review.
const ReviewVersion = "qasynth-review/1"

// Build makes the question set from the documents and Generate's
// results: the accepted questions, less those the QA audit's filters
// (docs/qa-validity.md) take out: malformed items (any of
// qaaudit.MalformedRules), leaked items (qaaudit.RuleLeakedStrict: the
// correct text stands in the question outside [MASK] and no wrong text
// does), repeated questions (qaaudit.RuleDuplicateQuestion) and repeated
// question_ids (RuleDuplicateID). A document left with no question is
// left out. The correct letters are then rebalanced as the balanced
// variant does (qaaudit.Balanced, on the items as datasets.LoadQA will
// number them in the written file), so that each letter is correct for
// n/4 items (±1) and no constant answer beats a uniform guess.
func Build(docs []corpus.LLMDoc, res []DocResult, set, model string, p *Prompt) ([]Entry, *Review) {
	rv := &Review{Review: ReviewVersion, Set: set, Model: model, Documents: len(docs), Rejected: map[string][]string{}}
	if p != nil {
		rv.Prompt = p.Source + ":" + p.Variable + " " + p.SHA256
	}
	var entries []Entry
	seen := map[string]bool{}
	for _, r := range res {
		if !r.Done {
			rv.Unfinished = append(rv.Unfinished, r.ID)
			continue
		}
		if r.Questions == nil {
			rv.Rejected[r.ID] = r.Rejected
			continue
		}
		rv.Accepted++
		d := docs[r.Index]
		e := Entry{Source: d}
		ids := map[string]bool{}
		for _, q := range r.Questions {
			rv.Items++
			item := datasets.QAQuestion{Question: q.Question, Choices: q.Choices, CorrectAnswer: q.CorrectAnswer}
			var rules []string
			for _, m := range qaaudit.Malformed(&item) {
				rules = append(rules, string(m))
			}
			if qaaudit.Leak(&item) == strings.Index("ABCD", q.CorrectAnswer) {
				rules = append(rules, string(qaaudit.RuleLeakedStrict))
			}
			qt := strings.TrimSpace(q.Question)
			if seen[qt] {
				rules = append(rules, string(qaaudit.RuleDuplicateQuestion))
			}
			if ids[q.QuestionID] {
				rules = append(rules, RuleDuplicateID)
			}
			if len(rules) > 0 {
				rv.Dropped = append(rv.Dropped, Dropped{Document: r.ID, QuestionID: q.QuestionID, Question: q.Question, Rules: rules})
				continue
			}
			seen[qt], ids[q.QuestionID] = true, true
			e.Questions = append(e.Questions, q)
		}
		if len(e.Questions) == 0 {
			rv.EmptyDocuments = append(rv.EmptyDocuments, r.ID)
			continue
		}
		entries = append(entries, e)
	}
	// Rebalance on the items as LoadQA numbers them in the written file.
	qs := &datasets.QASet{}
	for di, e := range entries {
		source := e.Source.Metadata.CodeSourceFile + "/" + e.Source.Metadata.Name
		for _, q := range e.Questions {
			rv.LettersBefore[strings.Index("ABCD", q.CorrectAnswer)]++
			qs.Questions = append(qs.Questions, datasets.QAQuestion{Index: len(qs.Questions), ID: source + "#" + strconv.Itoa(di) + "." + q.QuestionID,
				Source: source, DocIndex: di, QuestionID: q.QuestionID, Question: q.Question, Choices: q.Choices, CorrectAnswer: q.CorrectAnswer})
		}
	}
	bal := qaaudit.Balanced(qs)
	k := 0
	for di := range entries {
		for qi := range entries[di].Questions {
			b := bal.Questions[k]
			entries[di].Questions[qi].Choices, entries[di].Questions[qi].CorrectAnswer = b.Choices, b.CorrectAnswer
			rv.LettersAfter[strings.Index("ABCD", b.CorrectAnswer)]++
			k++
		}
	}
	rv.Kept = k
	return entries, rv
}

// WriteSet writes entries to path as upstream's store_result does
// (json.dump(result, file, indent=4): a JSON list of {"source",
// "questions"}, four-space indentation, non-ASCII characters as \u
// escapes, as Python's default ensure_ascii writes them), so that
// datasets.LoadQA reads it; and the review to path without ".json" plus
// ".review.json". Both are written atomically (temp file and rename).
func WriteSet(path string, entries []Entry, rv *Review) error {
	if entries == nil {
		entries = []Entry{}
	}
	b, err := marshalPython(entries)
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("qasynth: writing %s: %w", path, err)
	}
	rb, err := json.MarshalIndent(rv, "", "  ")
	if err != nil {
		return err
	}
	rp := ReviewPath(path)
	if err := atomicfile.WriteFile(rp, append(rb, '\n'), 0o644); err != nil {
		return fmt.Errorf("qasynth: writing %s: %w", rp, err)
	}
	return nil
}

// ReviewPath is the review file written beside a set: path without
// ".json", plus ".review.json".
func ReviewPath(path string) string { return strings.TrimSuffix(path, ".json") + ".review.json" }

// marshalPython is json.dumps(v, indent=4) of Go's JSON of v: four-space
// indentation, no HTML escaping, every non-ASCII character as \uXXXX
// (a surrogate pair above U+FFFF), and DEL as \u007f.
func marshalPython(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "    ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	raw := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	var out bytes.Buffer
	out.Grow(len(raw))
	for _, r := range string(raw) {
		switch {
		case r < 0x7f:
			out.WriteByte(byte(r))
		case r > 0xffff:
			r -= 0x10000
			fmt.Fprintf(&out, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
		default:
			fmt.Fprintf(&out, `\u%04x`, r)
		}
	}
	return out.Bytes(), nil
}
