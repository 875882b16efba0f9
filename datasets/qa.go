package datasets

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
)

// The sizes of MatTools' QA benchmark sets (docs/mattools.md §4).
const (
	NumQACode = 34621 // generation_results_code.json
	NumQADoc  = 34604 // generation_results_doc.json
)

// QAQuestion is one multiple-choice question of a QA set.
type QAQuestion struct {
	Index int // 0-based position over the whole set: documents in file order, questions in document order
	// ID is unique within the set: "<Source>#<DocIndex>.<QuestionID>",
	// e.g. "pymatgen/core/lattice.py/Lattice#12.3".
	ID string
	// Source is the document's metadata.code_source_file + "/" +
	// metadata.name: the Source column of MatTools' result CSVs, which
	// several documents may share.
	Source     string
	DocIndex   int    // 0-based position of the document in the file
	QuestionID string // the question_id within the document ("1"–"5")
	Question   string
	// Choices are the texts of choices A–D as published, each keeping its
	// letter prefix ("A. …"), as MatTools' prompt shows them.
	Choices       [4]string
	CorrectAnswer string // "A"–"D"
	// ExtraChoices are the keys of the item's choices other than A–D, sorted
	// (a malformed item; the prompt never shows them).
	ExtraChoices []string
}

// QASet is a loaded QA question set.
type QASet struct {
	Path      string // the file it was read from
	SHA256    string // hex SHA-256 of that file (of the zip for a .zip)
	Questions []QAQuestion
}

// LoadQA reads a QA set in MatTools' upstream JSON format
// (qa_benchmark/generated_qa/generation_results_{code,doc}.json, written by
// pymatgen-qa-generation/src/main.py): a JSON list of documents
//
//	{"source": {"page_content": …, "metadata": {"code_source_file": …, "name": …, …}},
//	 "questions": [{"question_id": "1", "question": …,
//	                "choices": {"A": "A. …", "B": …, "C": …, "D": …}, "correct_answer": "A"}, …]}
//
// It also reads the flattened list of items that third parties publish
// (one object per question, the fields of upstream's items):
//
//	[{"source_file": "pymatgen/<file>.py", "question": …, "choices": {…}, "correct_answer": "C"}, …]
//
// with an optional "id" (written by cmd/audit-qa for a variant, the item's
// ID in the set it came from); there an item's Source is its source_file,
// DocIndex its 0-based position, QuestionID "" and ID, without "id",
// "<source_file>#<position>". One file holds one form; items are then
// counted as documents in errors.
//
// A path ending in ".zip" is read as the upstream zip: it must hold exactly
// one ".json" file. Errors are *FormatError naming the file, the 1-based
// document and the field, e.g. "set.json: document 7 questions[2].choices.C: is missing".
func LoadQA(file string) (*QASet, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(raw)
	set := &QASet{Path: file, SHA256: hex.EncodeToString(sum[:])}
	data := raw
	if strings.HasSuffix(strings.ToLower(file), ".zip") {
		if data, err = unzipJSON(raw); err != nil {
			return nil, &FormatError{File: file, Err: err}
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return nil, &FormatError{File: file, Err: errors.New("not a JSON list of documents")}
	}
	flat := -1 // unknown, 0 upstream documents, 1 flattened items
	for doc := 0; dec.More(); doc++ {
		var d struct {
			// The flattened form's fields.
			ID            *string           `json:"id"`
			SourceFile    *string           `json:"source_file"`
			Question      *string           `json:"question"`
			Choices       map[string]string `json:"choices"`
			CorrectAnswer *string           `json:"correct_answer"`
			Source        struct {
				Metadata struct {
					CodeSourceFile *string `json:"code_source_file"`
					Name           *string `json:"name"`
				} `json:"metadata"`
			} `json:"source"`
			Questions []struct {
				QuestionID    json.RawMessage   `json:"question_id"`
				Question      *string           `json:"question"`
				Choices       map[string]string `json:"choices"`
				CorrectAnswer *string           `json:"correct_answer"`
			} `json:"questions"`
		}
		ferr := func(field string, format string, a ...any) error {
			if field != "" {
				field = " " + field
			}
			return &FormatError{File: file, Field: fmt.Sprintf("document %d%s", doc+1, field), Err: fmt.Errorf(format, a...)}
		}
		if err := dec.Decode(&d); err != nil {
			return nil, ferr("", "%v", err)
		}
		isFlat := 0
		if d.SourceFile != nil {
			isFlat = 1
		}
		if flat >= 0 && isFlat != flat {
			return nil, ferr("", "mixes flattened items (with source_file) and upstream documents (with source)")
		}
		flat = isFlat
		if isFlat == 1 {
			if d.Question == nil {
				return nil, ferr("question", "is missing")
			}
			if d.CorrectAnswer == nil || len(*d.CorrectAnswer) != 1 || !strings.Contains("ABCD", *d.CorrectAnswer) {
				return nil, ferr("correct_answer", "must be one of A, B, C, D")
			}
			id := *d.SourceFile + "#" + strconv.Itoa(doc)
			if d.ID != nil {
				id = *d.ID
			}
			qq := QAQuestion{Index: len(set.Questions), ID: id, Source: *d.SourceFile, DocIndex: doc,
				Question: *d.Question, CorrectAnswer: *d.CorrectAnswer}
			if err := qq.setChoices(d.Choices); err != nil {
				return nil, ferr("choices."+err.Error(), "is missing")
			}
			set.Questions = append(set.Questions, qq)
			continue
		}
		md := d.Source.Metadata
		if md.CodeSourceFile == nil || md.Name == nil {
			return nil, ferr("source.metadata", "needs code_source_file and name")
		}
		source := *md.CodeSourceFile + "/" + *md.Name
		for qi, q := range d.Questions {
			field := "questions[" + strconv.Itoa(qi) + "]"
			qid := strings.Trim(string(q.QuestionID), `"`)
			if qid == "" || qid == "null" {
				return nil, ferr(field+".question_id", "is missing")
			}
			if q.Question == nil {
				return nil, ferr(field+".question", "is missing")
			}
			if q.CorrectAnswer == nil || len(*q.CorrectAnswer) != 1 || !strings.Contains("ABCD", *q.CorrectAnswer) {
				return nil, ferr(field+".correct_answer", "must be one of A, B, C, D")
			}
			qq := QAQuestion{Index: len(set.Questions), ID: source + "#" + strconv.Itoa(doc) + "." + qid, Source: source,
				DocIndex: doc, QuestionID: qid, Question: *q.Question, CorrectAnswer: *q.CorrectAnswer}
			if err := qq.setChoices(q.Choices); err != nil {
				return nil, ferr(field+".choices."+err.Error(), "is missing")
			}
			set.Questions = append(set.Questions, qq)
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, &FormatError{File: file, Err: fmt.Errorf("after the last document: %w", err)}
	}
	return set, nil
}

// setChoices sets Choices and ExtraChoices from an item's choices; the
// error is the first missing letter.
func (q *QAQuestion) setChoices(choices map[string]string) error {
	for i, l := range QALetters {
		c, ok := choices[l]
		if !ok {
			return errors.New(l)
		}
		q.Choices[i] = c
	}
	for k := range choices {
		if !slices.Contains(QALetters[:], k) {
			q.ExtraChoices = append(q.ExtraChoices, k)
		}
	}
	slices.Sort(q.ExtraChoices)
	return nil
}

// QALetters are the letters of a QA item's four choices, in order (an
// array, so that no caller can share and change its backing store).
var QALetters = [4]string{"A", "B", "C", "D"}

func unzipJSON(raw []byte) ([]byte, error) {
	zr, err := zip.NewReader(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		return nil, fmt.Errorf("not a zip file: %w", err)
	}
	var found *zip.File
	for _, f := range zr.File {
		if strings.HasSuffix(f.Name, ".json") && !strings.HasPrefix(path.Base(f.Name), ".") && !strings.HasPrefix(f.Name, "__MACOSX/") {
			if found != nil {
				return nil, fmt.Errorf("holds more than one .json file (%s, %s)", found.Name, f.Name)
			}
			found = f
		}
	}
	if found == nil {
		return nil, errors.New("holds no .json file")
	}
	rc, err := found.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}
