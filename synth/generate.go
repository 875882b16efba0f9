package synth

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/mattools-leaderboard/leaderboard/internal/atomicfile"
	"github.com/mattools-leaderboard/leaderboard/internal/jsonl"
	"github.com/mattools-leaderboard/leaderboard/internal/workpool"
	"github.com/mattools-leaderboard/leaderboard/llm"
)

// JournalVersion is the "journal" value of a synthesis journal's header.
const JournalVersion = "synth-journal/1"

// Triplet is one synthesised task: MatTools' triplet (the fields of
// src/question_generation/defect_questions_original.json, null where the
// answer held no block to cut out) and this project's reference solution.
type Triplet struct {
	// ID is the test's ID (Test.ID); Test the test function's name.
	ID   string `json:"id"`
	Test string `json:"test"`
	// PropertiesJSON is step 1's properties_json_str (ParseProperties).
	PropertiesJSON *string `json:"properties_json_str"`
	// Question is step 2's question (ParseQuestion).
	Question *string `json:"question"`
	// NewUnitTest is step 3's verification code (ParseCode).
	NewUnitTest *string `json:"new_unit_test"`
	// Reference is step 4's reference solution (ParseCode).
	Reference *string `json:"reference_solution"`
}

// JournalLine is one finished step of one test.
type JournalLine struct {
	ID   string `json:"id"`
	Step string `json:"step"`
	// Fingerprint is the hex SHA-256 of the model and the step's messages:
	// a line counts only while it matches (a changed test or earlier answer
	// asks the step again).
	Fingerprint      string `json:"fingerprint"`
	Answer           string `json:"answer"`
	PromptTokens     int64  `json:"prompt_tokens"`
	CompletionTokens int64  `json:"completion_tokens"`
	LatencyMS        int64  `json:"latency_ms"`
}

type journalHeader struct {
	Journal  string       `json:"journal"`
	Model    string       `json:"model"`
	Endpoint string       `json:"endpoint"`
	Prompts  []PromptFile `json:"prompts"`
}

// Options configures Generate.
type Options struct {
	// Concurrency is the number of tests worked on at once (default 4;
	// a test's four steps are sequential). The client's
	// RequestsPerMinute limits the rate.
	Concurrency int
	// Journal is the JSON Lines journal (required): a header line
	// {"journal", "model", "endpoint", "prompts"} and one JournalLine per
	// finished step, fsynced as it arrives, so a run killed half-way is
	// resumed by the next, which asks only the missing steps.
	Journal string
	// Endpoint is the model's base URL without credentials (recorded).
	Endpoint string
	// Progress, if not nil, shows a progress bar of the calls with ETA.
	Progress io.Writer
}

// Result summarises a Generate call.
type Result struct {
	// Triplets are those of the tests whose four steps finished, in test order.
	Triplets []Triplet
	// Tests is len(tests); Calls the steps to make in all (4 per test);
	// Resumed the steps finished by an earlier run; Requested the calls of
	// this run (Completions answered, Failed not).
	Tests, Calls, Resumed, Requested, Completions, Failed int
	PromptTokens, CompletionTokens                        int64
	Wall                                                  time.Duration
}

// Fingerprint is the hex SHA-256 of the model and the messages (role and
// content, NUL separated).
func Fingerprint(model string, msgs []Message) string {
	h := sha256.New()
	h.Write([]byte(model))
	for _, m := range msgs {
		h.Write([]byte{0})
		h.Write([]byte(m.Role))
		h.Write([]byte{0})
		h.Write([]byte(m.Content))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Generate synthesises the triplet and reference solution of each test
// with client's model (upstream used GPT-4o at temperature 0: set the
// client's Params): four calls per test (Steps), each fed the parsed
// answers of the earlier ones (Prompts.Messages), opts.Concurrency tests at
// a time. Every answer is appended to opts.Journal at once; a step whose
// journal line matches its fingerprint is not asked again. A journal of
// another model, endpoint or prompt set is refused. A request that fails
// after the client's retries stops its test (counted in Failed; the others
// go on) and Generate returns the Result with an error. When ctx ends it
// returns ctx's error once the calls in flight end.
func Generate(ctx context.Context, tests []Test, p *Prompts, client *llm.Client, opts Options) (*Result, error) {
	start := time.Now()
	if opts.Journal == "" {
		return nil, errors.New("synth: no journal file given")
	}
	if opts.Concurrency <= 0 {
		opts.Concurrency = 4
	}
	seen := map[string]bool{}
	for _, t := range tests {
		if seen[t.ID] {
			return nil, fmt.Errorf("synth: test %s occurs twice", t.ID)
		}
		seen[t.ID] = true
	}
	model := client.Model()
	j, err := jsonl.OpenJournal(opts.Journal, journalHeader{JournalVersion, model, opts.Endpoint, p.Files}, journalSpec)
	if err != nil {
		return nil, err
	}
	defer j.Close()
	res := &Result{Tests: len(tests), Calls: len(Steps) * len(tests)}
	bar := workpool.Bar(opts.Progress, res.Calls, "calls")
	var (
		mu      sync.Mutex
		lastErr error
	)
	triplets := make([]*Triplet, len(tests))
	workpool.Run(ctx, opts.Concurrency, len(tests), func() bool { return j.Err() != nil }, func(i int) {
		t := tests[i]
		tr := &Triplet{ID: t.ID, Test: t.Name}
		ok := true
		for _, step := range Steps {
			msgs := p.Messages(step, t, tr.PropertiesJSON, tr.Question)
			fp := Fingerprint(model, msgs)
			l, have := j.Get(t.ID + "\x00" + step)
			if have && l.Fingerprint == fp {
				mu.Lock()
				res.Resumed++
				if bar != nil {
					bar.Add(1)
				}
				mu.Unlock()
			} else {
				lm := make([]llm.Message, len(msgs))
				for k, m := range msgs {
					lm[k] = llm.Message{Role: m.Role, Content: m.Content}
				}
				comp, err := client.Complete(ctx, lm)
				mu.Lock()
				res.Requested++
				if err != nil {
					if ctx.Err() == nil {
						res.Failed++
						lastErr = fmt.Errorf("%s, step %s: %w", t.ID, step, err)
					}
					mu.Unlock()
					ok = false
					break
				}
				res.Completions++
				res.PromptTokens += comp.PromptTokens
				res.CompletionTokens += comp.CompletionTokens
				l = JournalLine{ID: t.ID, Step: step, Fingerprint: fp, Answer: comp.Content,
					PromptTokens: comp.PromptTokens, CompletionTokens: comp.CompletionTokens, LatencyMS: comp.Latency.Milliseconds()}
				stop := j.Add(l) != nil
				if bar != nil {
					bar.Add(1)
				}
				mu.Unlock()
				if stop {
					ok = false
					break
				}
			}
			switch step {
			case StepProperties:
				tr.PropertiesJSON = ParseProperties(l.Answer)
			case StepQuestion:
				tr.Question = ParseQuestion(l.Answer)
			case StepUnitTest:
				tr.NewUnitTest = ParseCode(l.Answer)
			case StepReference:
				tr.Reference = ParseCode(l.Answer)
			}
		}
		if ok {
			mu.Lock()
			triplets[i] = tr
			mu.Unlock()
		}
	})
	if bar != nil {
		bar.Finish()
	}
	for _, tr := range triplets {
		if tr != nil {
			res.Triplets = append(res.Triplets, *tr)
		}
	}
	res.Wall = time.Since(start)
	if err := j.Stopped(ctx, len(res.Triplets), len(tests), "tests"); err != nil {
		return res, err
	}
	if res.Failed > 0 {
		return res, fmt.Errorf("synth: %d of %d calls failed (last: %v); run again to ask them again", res.Failed, res.Requested, lastErr)
	}
	return res, nil
}

// journalSpec is the synthesis journal: its finished steps by id NUL
// step.
var journalSpec = jsonl.Spec[journalHeader, JournalLine]{
	Program: "synth", Kind: "synthesis", Version: JournalVersion,
	Key: func(l JournalLine) string {
		if l.ID == "" || l.Step == "" {
			return ""
		}
		return l.ID + "\x00" + l.Step
	},
	Mismatch: func(h, want journalHeader) string {
		return fmt.Sprintf("was written for model %q at %q with prompts %v; this run uses model %q at %q with prompts %v: refusing to mix them (use another -journal, or delete it to start over)",
			h.Model, h.Endpoint, h.Prompts, want.Model, want.Endpoint, want.Prompts)
	},
	InUse: "one synthesis per journal",
}

// WriteTriplets writes the triplets as an indented JSON list (Triplet's
// fields: upstream's three plus id, test and reference_solution) to path,
// atomically (temp file and rename).
func WriteTriplets(path string, ts []Triplet) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if ts == nil {
		ts = []Triplet{}
	}
	if err := enc.Encode(ts); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, buf.Bytes(), 0o644)
}

// Estimate is a dry run's forecast of a synthesis.
type Estimate struct {
	// Tests and Calls (len(Steps) per test).
	Tests, Calls int
	// Asserts counts the assert statements and assert calls of the tests
	// (Test.Asserts).
	Asserts int
	// PromptTokens counts each call's messages at 4 bytes a token, the
	// earlier answers they include at their estimated size.
	// CompletionTokens assumes, per test with a asserts and a unit test
	// of u tokens: properties JSON 45 + 50a, question 500 + 45a, unit test
	// 330 + 28a, reference 150 + u/2 tokens. The first three fit MatTools'
	// 55 original triplets (147 asserts; answers of 9,679, 34,350 and
	// 22,372 tokens at 4 bytes a token; these constants give 9,825, 34,115
	// and 22,266); the reference's is a guess (no original has one).
	PromptTokens, CompletionTokens int64
}

// EstimateCalls forecasts a Generate over tests with an empty journal.
func EstimateCalls(tests []Test, p *Prompts) Estimate {
	e := Estimate{Tests: len(tests), Calls: len(Steps) * len(tests)}
	for _, t := range tests {
		a := int64(t.Asserts)
		e.Asserts += t.Asserts
		u := int64(len(t.UnitTest)) / 4
		props, question, unit, ref := 45+50*a, 500+45*a, 330+28*a, 150+u/2
		e.CompletionTokens += props + question + unit + ref
		fr := int64(len(t.FileReading)) / 4
		e.PromptTokens += int64(len(p.Extract))/4 + u
		e.PromptTokens += int64(len(p.QuestionSystem)+len(p.QuestionUser))/4 + u + props + fr
		e.PromptTokens += int64(len(p.UnitTest))/4 + props
		e.PromptTokens += int64(len(p.Reference))/4 + question + props + u + fr
	}
	return e
}

// Cost returns the cost of e in dollars at the given prices per million
// prompt and completion tokens.
func (e Estimate) Cost(pricePerMIn, pricePerMOut float64) float64 {
	return float64(e.PromptTokens)/1e6*pricePerMIn + float64(e.CompletionTokens)/1e6*pricePerMOut
}
