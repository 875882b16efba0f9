package published

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/results"
)

// File names inside a MatTools run folder (docs/mattools.md §3).
const (
	GenerationFile    = "function_generation_results.jsonl"
	SummaryFile       = "accuracy_summary.xlsx"
	RequestBodiesFile = "request_bodies.jsonl"
	RawResponsesFile  = "raw_responses.jsonl"
)

// family describes one MatTools result family folder under src/.
type family struct {
	system results.System
	// folder parses a run folder name into model and retrieval source.
	folder *regexp.Regexp
	// form describes the expected folder name, for errors.
	form string
}

// families maps MatTools' family folders to systems (docs/mattools.md §3.1).
var families = map[string]family{
	"pure_agent_test":  {results.SystemSingleLLM, regexp.MustCompile(`^(.+)$`), "<model>"},
	"RAG_agent_test":   {results.SystemLLMRAG, regexp.MustCompile(`^(.+)_method([1-4])$`), "<model>_method<1-4>"},
	"agentic_RAG_test": {results.SystemAgenticRAG, regexp.MustCompile(`^(.+)_method([1-4])$`), "<model>_method<1-4>"},
	"mtr_rag_test":     {results.SystemSelfReflectionRAG, regexp.MustCompile(`^(.+)_([1-4])$`), "<model>_<1-4>"},
}

var roundDir = regexp.MustCompile(`^round([1-9][0-9]*)$`)

// runFolder is a folder holding function_generation_results.jsonl.
type runFolder struct {
	rel    string // relative to the root, slash-separated, e.g. "src/pure_agent_test/round1/gpt-4o-2024-08-06"
	family string
	round  int // 0 when not inside a roundN folder
	model  string
	source int
	system results.System
}

// parseRunFolder maps a run folder (relative to the root) onto its family,
// round, model and retrieval source.
func parseRunFolder(rel string) (*runFolder, error) {
	parts := strings.Split(rel, "/")
	// src/<family>/[roundN/]<run>
	if len(parts) < 3 || parts[0] != "src" {
		return nil, fmt.Errorf("%s: a run folder must be src/<family>/[roundN/]<run>", rel)
	}
	fam, ok := families[parts[1]]
	if !ok {
		return nil, &UnknownFamilyError{Family: parts[1], Folder: rel}
	}
	rf := &runFolder{rel: rel, family: parts[1], system: fam.system}
	switch len(parts) {
	case 3:
	case 4:
		m := roundDir.FindStringSubmatch(parts[2])
		if m == nil {
			return nil, fmt.Errorf("%s: %q is not a roundN folder", rel, parts[2])
		}
		rf.round, _ = strconv.Atoi(m[1])
	default:
		return nil, fmt.Errorf("%s: a run folder must be src/<family>/[roundN/]<run>", rel)
	}
	m := fam.folder.FindStringSubmatch(parts[len(parts)-1])
	if m == nil {
		return nil, fmt.Errorf("%s: run folder name %q does not match %s for family %s", rel, parts[len(parts)-1], fam.form, parts[1])
	}
	rf.model = m[1]
	if len(m) > 2 {
		rf.source, _ = strconv.Atoi(m[2])
	}
	return rf, nil
}

// UnknownFamilyError reports a run folder in a family folder the importer
// does not know (it cannot tell which system produced it).
type UnknownFamilyError struct {
	Family string
	Folder string
}

func (e *UnknownFamilyError) Error() string {
	known := make([]string, 0, len(families))
	for k := range families {
		known = append(known, k)
	}
	return fmt.Sprintf("%s: unknown MatTools result family %q (known: %s)", e.Folder, e.Family, strings.Join(sortedStrings(known), ", "))
}

// generation is one line of function_generation_results.jsonl.
type generation struct {
	QuestionFilePath *string `json:"question_file_path"`
	Function         *string `json:"function"`
	FunctionName     *string `json:"function_name"`
}

// readGenerations reads a jsonl of generated functions: exactly one line per
// question, in the published evaluation order (docs/mattools.md §3.2).
func readGenerations(path string, data []byte, order []string) ([]generation, error) {
	var out []generation
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	line := 0
	for sc.Scan() {
		line++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			return nil, &datasets.FormatError{File: path, Row: line, Err: errors.New("empty line")}
		}
		var g generation
		if err := json.Unmarshal(text, &g); err != nil {
			return nil, &datasets.FormatError{File: path, Row: line, Err: fmt.Errorf("invalid JSON: %w", err)}
		}
		for field, v := range map[string]*string{"question_file_path": g.QuestionFilePath, "function": g.Function, "function_name": g.FunctionName} {
			if v == nil {
				return nil, &datasets.FormatError{File: path, Row: line, Field: field, Err: errors.New("missing or not a string")}
			}
		}
		if line <= len(order) && *g.QuestionFilePath != order[line-1] {
			return nil, &datasets.FormatError{File: path, Row: line, Field: "question_file_path",
				Err: fmt.Errorf("is %q; the published evaluation order has %q here", *g.QuestionFilePath, order[line-1])}
		}
		out = append(out, g)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(out) != len(order) {
		return nil, &datasets.FormatError{File: path, Err: fmt.Errorf("has %d lines; want one per question (%d)", len(out), len(order))}
	}
	return out, nil
}

// summary holds the cells of accuracy_summary.xlsx that the importer uses.
type summary struct {
	questions, correct, partial, incorrect, functionErrors, resultErrors int // Tasks row
	properties, propertiesCorrect, propertiesIncorrect                   int // Sub-tasks row
	created                                                              *time.Time
}

// runnable returns questions − function errors (= correct + partially correct).
func (s *summary) runnable() int { return s.questions - s.functionErrors }

var summaryHeader = []string{"Task/ Sub-task", "Total", "Correct", "Partially Correct", "Incorrect",
	"Function Runnable Rate", "Accuracy (%)", "Function Errors", "Result Errors"}

// readSummary reads accuracy_summary.xlsx (sheet Sheet1, A1:I3; both the
// openpyxl inline-string files and the wijmo shared-string files of
// docs/mattools.md §3.2) and checks it with the internal-consistency
// rules of §3.2. Errors name the file and cell.
func readSummary(path string, questions, properties int) (*summary, error) {
	x, err := excelize.OpenFile(path)
	if err != nil {
		return nil, &datasets.FormatError{File: path, Err: fmt.Errorf("not a readable xlsx: %w", err)}
	}
	defer x.Close()
	const sheet = "Sheet1"
	if idx, err := x.GetSheetIndex(sheet); err != nil || idx < 0 {
		return nil, &datasets.FormatError{File: path, Err: fmt.Errorf("no sheet %q (sheets: %v)", sheet, x.GetSheetList())}
	}
	cellErr := func(cell, format string, a ...any) error {
		return &datasets.FormatError{File: path, Field: "cell " + cell, Err: fmt.Errorf(format, a...)}
	}
	get := func(cell string) (string, error) {
		v, err := x.GetCellValue(sheet, cell, excelize.Options{RawCellValue: true})
		if err != nil {
			return "", cellErr(cell, "%v", err)
		}
		return strings.TrimSpace(v), nil
	}
	for i, want := range summaryHeader {
		cell, _ := excelize.CoordinatesToCellName(i+1, 1)
		v, err := get(cell)
		if err != nil {
			return nil, err
		}
		if v != want {
			return nil, cellErr(cell, "header is %q, want %q", v, want)
		}
	}
	for cell, want := range map[string]string{"A2": "Tasks", "A3": "Sub-tasks"} {
		if v, err := get(cell); err != nil || v != want {
			return nil, errors.Join(err, cellErr(cell, "is %q, want %q", v, want))
		}
	}
	num := func(cell string) (float64, error) {
		v, err := get(cell)
		if err != nil {
			return 0, err
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return 0, cellErr(cell, "is %q, want a number", v)
		}
		return f, nil
	}
	integer := func(cell string) (int, error) {
		f, err := num(cell)
		if err != nil {
			return 0, err
		}
		if f != math.Trunc(f) || f < 0 || f > 1e9 {
			return 0, cellErr(cell, "is %v, want a count", f)
		}
		return int(f), nil
	}
	s := &summary{}
	var errs []error
	for cell, dst := range map[string]*int{
		"B2": &s.questions, "C2": &s.correct, "D2": &s.partial, "E2": &s.incorrect, "H2": &s.functionErrors,
		"I2": &s.resultErrors, "B3": &s.properties, "C3": &s.propertiesCorrect, "E3": &s.propertiesIncorrect,
	} {
		v, err := integer(cell)
		errs = append(errs, err)
		*dst = v
	}
	rates := map[string]float64{}
	for _, cell := range []string{"F2", "G2", "G3"} {
		v, err := num(cell)
		errs = append(errs, err)
		rates[cell] = v
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	check := func(ok bool, cells, format string, a ...any) {
		if !ok {
			errs = append(errs, &datasets.FormatError{File: path, Field: "cells " + cells,
				Err: fmt.Errorf(format+" (docs/mattools.md §3.2 consistency rules)", a...)})
		}
	}
	closeTo := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }
	check(s.questions == questions, "B2", "Total is %d, want %d questions", s.questions, questions)
	check(s.properties == properties, "B3", "Total is %d, want %d properties", s.properties, properties)
	check(s.correct+s.partial+s.incorrect == s.questions, "C2+D2+E2=B2", "%d+%d+%d ≠ %d", s.correct, s.partial, s.incorrect, s.questions)
	check(s.incorrect == s.functionErrors, "E2=H2", "Incorrect %d ≠ Function Errors %d", s.incorrect, s.functionErrors)
	check(s.partial == s.resultErrors, "D2=I2", "Partially Correct %d ≠ Result Errors %d", s.partial, s.resultErrors)
	check(s.propertiesCorrect+s.propertiesIncorrect == s.properties, "C3+E3=B3", "%d+%d ≠ %d", s.propertiesCorrect, s.propertiesIncorrect, s.properties)
	if s.questions > 0 && s.properties > 0 {
		check(closeTo(rates["F2"], float64(s.questions-s.functionErrors)/float64(s.questions)*100), "F2=(B2−H2)/B2·100",
			"Function Runnable Rate %v ≠ (%d−%d)/%d·100", rates["F2"], s.questions, s.functionErrors, s.questions)
		check(closeTo(rates["G2"], float64(s.correct)/float64(s.questions)*100), "G2=C2/B2·100",
			"Accuracy %v ≠ %d/%d·100", rates["G2"], s.correct, s.questions)
		check(closeTo(rates["G3"], float64(s.propertiesCorrect)/float64(s.properties)*100), "G3=C3/B3·100",
			"Accuracy %v ≠ %d/%d·100", rates["G3"], s.propertiesCorrect, s.properties)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if props, err := x.GetDocProps(); err == nil && props.Created != "" {
		if t, err := time.Parse(time.RFC3339Nano, props.Created); err == nil {
			t = t.UTC()
			s.created = &t
		}
	}
	return s, nil
}

// batchUsage reads the OpenAI Batch files of a run folder, when present:
// the temperature of every request (which must agree) and the token usage of
// every response, by question index (custom_id "task_<i+1>").
type batchUsage struct {
	temperature      *float64
	prompt, complete map[int]int64
}

func readBatch(dir string, n int) (*batchUsage, []string, error) {
	reqPath := filepath.Join(dir, RequestBodiesFile)
	respPath := filepath.Join(dir, RawResponsesFile)
	var used []string
	b := &batchUsage{prompt: map[int]int64{}, complete: map[int]int64{}}
	if data, err := os.ReadFile(reqPath); err == nil {
		used = append(used, RequestBodiesFile)
		for i, line := range splitLines(data) {
			var req struct {
				Body struct {
					Temperature *float64 `json:"temperature"`
				} `json:"body"`
			}
			if err := json.Unmarshal(line, &req); err != nil {
				return nil, nil, &datasets.FormatError{File: reqPath, Row: i + 1, Err: err}
			}
			t := req.Body.Temperature
			if t == nil || (b.temperature != nil && *b.temperature != *t) {
				return nil, nil, &datasets.FormatError{File: reqPath, Row: i + 1, Field: "body.temperature", Err: errors.New("missing or differs from the first request's")}
			}
			b.temperature = t
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, nil, err
	}
	if data, err := os.ReadFile(respPath); err == nil {
		used = append(used, RawResponsesFile)
		for i, line := range splitLines(data) {
			var resp struct {
				CustomID string          `json:"custom_id"`
				Error    json.RawMessage `json:"error"`
				Response struct {
					StatusCode int `json:"status_code"`
					Body       struct {
						Usage struct {
							PromptTokens     int64 `json:"prompt_tokens"`
							CompletionTokens int64 `json:"completion_tokens"`
						} `json:"usage"`
					} `json:"body"`
				} `json:"response"`
			}
			if err := json.Unmarshal(line, &resp); err != nil {
				return nil, nil, &datasets.FormatError{File: respPath, Row: i + 1, Err: err}
			}
			k, err := strconv.Atoi(strings.TrimPrefix(resp.CustomID, "task_"))
			if err != nil || k < 1 || k > n {
				return nil, nil, &datasets.FormatError{File: respPath, Row: i + 1, Field: "custom_id", Err: fmt.Errorf("%q is not task_1…task_%d", resp.CustomID, n)}
			}
			if _, dup := b.prompt[k-1]; dup {
				return nil, nil, &datasets.FormatError{File: respPath, Row: i + 1, Field: "custom_id", Err: fmt.Errorf("%q appears twice", resp.CustomID)}
			}
			if resp.Response.StatusCode != 200 || (len(resp.Error) > 0 && string(resp.Error) != "null") {
				return nil, nil, &datasets.FormatError{File: respPath, Row: i + 1, Field: "response.status_code",
					Err: fmt.Errorf("is %d (error %s): not a completed request", resp.Response.StatusCode, resp.Error)}
			}
			b.prompt[k-1] = resp.Response.Body.Usage.PromptTokens
			b.complete[k-1] = resp.Response.Body.Usage.CompletionTokens
		}
		if len(b.prompt) != n {
			return nil, nil, &datasets.FormatError{File: respPath, Err: fmt.Errorf("has responses for %d of the %d questions", len(b.prompt), n)}
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, nil, err
	}
	return b, used, nil
}

func splitLines(data []byte) [][]byte {
	var out [][]byte
	for _, l := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(l)) > 0 {
			out = append(out, l)
		}
	}
	return out
}

// toolUsageRun builds the results file of one MatTools run folder.
func (im *importer) toolUsageRun(rf *runFolder, jsonl []byte) (*results.File, error) {
	dir := filepath.Join(im.root, filepath.FromSlash(rf.rel))
	jsonlPath := filepath.Join(dir, GenerationFile)
	gens, err := readGenerations(jsonlPath, jsonl, im.order)
	if err != nil {
		return nil, err
	}
	r := results.Run{
		FormatVersion:    results.FormatVersion,
		Benchmark:        results.BenchmarkToolUsage,
		BenchmarkVersion: results.BenchmarkVersion2025_05,
		UpstreamCommit:   im.commit,
		System:           rf.system,
		RetrievalSource:  rf.source,
		Model:            rf.model,
		Round:            rf.round,
		ScoringProtocol:  results.ProtocolMatToolsOriginal,
		QuestionSet: results.QuestionSet{Name: results.QuestionSetAll, Questions: len(im.bench.Questions),
			Properties: im.bench.Properties()},
		Provenance:  results.Provenance{Kind: results.ProvenanceImported},
		Environment: im.environment(),
	}
	if rf.source > 0 {
		r.TopK = 5 // similarity_search(k=5) in every MatTools retrieval system (docs/mattools.md §5)
	}
	if m, ok := results.LookupModel(rf.model); ok {
		r.ModelDisplayName, r.ModelGroup = m.DisplayName, m.Group
	}
	r.Totals = results.Totals{Questions: r.QuestionSet.Questions, Properties: r.QuestionSet.Properties}
	sources := []string{GenerationFile}
	xlsxPath := filepath.Join(dir, SummaryFile)
	if _, err := os.Stat(xlsxPath); err == nil {
		s, err := readSummary(xlsxPath, r.QuestionSet.Questions, r.QuestionSet.Properties)
		if err != nil {
			return nil, err
		}
		sources = append(sources, SummaryFile)
		runnable, correct, partial, passed := s.runnable(), s.correct, s.partial, s.propertiesCorrect
		r.Totals.Scored = true
		r.Totals.Runnable, r.Totals.QuestionsCorrect, r.Totals.QuestionsPartial, r.Totals.PropertiesPassed = &runnable, &correct, &partial, &passed
		r.FinishedAt = s.created
		r.Warnings = append(r.Warnings, "per-question outcomes were never published: only the run totals of "+SummaryFile+" are known",
			"library versions as stated in MatTools' README (pymatgen 2024.8.9, pymatgen-analysis-defects 2024.7.19); the scoring image was not inspected")
	} else if errors.Is(err, os.ErrNotExist) {
		r.Warnings = append(r.Warnings, "unscored: MatTools published the generated code ("+GenerationFile+") but no "+SummaryFile)
		im.warnf("%s: no %s: imported as unscored (code only)", rf.rel, SummaryFile)
	} else {
		return nil, err
	}
	batch, batchFiles, err := readBatch(dir, len(gens))
	if err != nil {
		return nil, err
	}
	sources = append(sources, batchFiles...)
	if batch.temperature != nil {
		r.Generation = results.GenerationParams{Temperature: batch.temperature, Source: RequestBodiesFile}
	} else {
		t := 0.7
		// Source is part of the imported runs' records (frozen in the releases), so it keeps the
		// reference's old name; the facts are in docs/mattools.md §5.
		r.Generation = results.GenerationParams{Temperature: &t, Source: "MatTools code default (docs/mattools.md §5)"}
	}
	if rf.round == 0 {
		r.Warnings = append(r.Warnings, "not inside a roundN folder: not part of any round")
	}
	r.Provenance.Citation = im.citation(rf.rel + "/")
	for _, name := range sources {
		sum, err := sha256File(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		r.Provenance.Source = append(r.Provenance.Source, results.SourceFile{Path: rf.rel + "/" + name, SHA256: sum})
	}
	rows := make([]results.QuestionRow, len(gens))
	var usage results.Usage
	for i, g := range gens {
		q := im.bench.Questions[i]
		rows[i] = results.QuestionRow{
			QuestionIndex: int32(i), QuestionID: q.ID, PropertyCount: int32(len(q.Properties)),
			Code: *g.Function, FunctionName: *g.FunctionName, Verdict: string(results.VerdictUnknown),
		}
		if p, ok := batch.prompt[i]; ok {
			c := batch.complete[i]
			rows[i].PromptTokens, rows[i].CompletionTokens = &p, &c
			usage.Calls++
			usage.PromptTokens += p
			usage.CompletionTokens += c
		}
	}
	if usage.Calls > 0 {
		r.Usage = &usage
	}
	r.RunID = results.MakeRunID(&r)
	return &results.File{Run: r, Questions: rows}, nil
}
