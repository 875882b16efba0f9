package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/results"
)

// storedRun is generated code to rescore: one stored run, in the published
// evaluation order, with what identifies it.
type storedRun struct {
	Label           string // for messages: the input path
	System          results.System
	RetrievalSource int
	Model           string
	Round           int
	DerivedFrom     string // run id of the stored run
	// Origin is where the stored code came from: imported (MatTools'
	// published code) or runner (this project's runner).
	Origin results.ProvenanceKind
	Source results.SourceFile
	Code   map[string]submission // question id → code
}

type submission struct{ Code, FunctionName string }

// familySystems maps MatTools' run folders to systems (mattools-reference.md §3.1).
var familySystems = map[string]results.System{
	"pure_agent_test":  results.SystemSingleLLM,
	"RAG_agent_test":   results.SystemLLMRAG,
	"agentic_RAG_test": results.SystemAgenticRAG,
	"mtr_rag_test":     results.SystemSelfReflectionRAG,
}

var (
	roundDir  = regexp.MustCompile(`^round([0-9]+)$`)
	methodDir = regexp.MustCompile(`^(.*?)(?:_method([1-4])|_([1-4]))$`)
)

// readMatToolsRun reads <dir>/function_generation_results.jsonl: exactly 49
// lines with keys question_file_path, function, function_name, in the
// published evaluation order. The system, model, retrieval source and round
// come from the path (src/<family>/roundN/<model>[_methodK|_K]).
func readMatToolsRun(dir, root string) (*storedRun, error) {
	path := filepath.Join(dir, "function_generation_results.jsonl")
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	abs, _ := filepath.Abs(dir)
	r := &storedRun{Label: path, Code: map[string]submission{}}
	model := filepath.Base(abs)
	parent := filepath.Base(filepath.Dir(abs))
	family := parent
	if m := roundDir.FindStringSubmatch(parent); m != nil {
		r.Round, _ = strconv.Atoi(m[1])
		family = filepath.Base(filepath.Dir(filepath.Dir(abs)))
	}
	sys, ok := familySystems[family]
	if !ok {
		return nil, fmt.Errorf("%s: cannot tell the system: %q is not a MatTools run family (%v)", path, family, keys(familySystems))
	}
	r.System = sys
	if sys != results.SystemSingleLLM {
		if m := methodDir.FindStringSubmatch(model); m != nil {
			model = m[1]
			r.RetrievalSource, _ = strconv.Atoi(m[2] + m[3])
		}
	}
	r.Model = model
	rel, err := filepath.Rel(root, path)
	if err != nil || strings.HasPrefix(rel, "..") {
		rel = path
	}
	sum := sha256.Sum256(data)
	r.Source = results.SourceFile{Path: filepath.ToSlash(rel), SHA256: hex.EncodeToString(sum[:])}
	imported := results.Run{Provenance: results.Provenance{Kind: results.ProvenanceImported}, Benchmark: results.BenchmarkToolUsage,
		System: r.System, RetrievalSource: r.RetrievalSource, Model: r.Model, ScoringProtocol: results.ProtocolMatToolsOriginal,
		QuestionSet: results.QuestionSet{Name: results.QuestionSetAll}, Round: r.Round}
	r.DerivedFrom = results.MakeRunID(&imported)
	r.Origin = results.ProvenanceImported

	order := datasets.Order()
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	line := 0
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		line++
		var row struct {
			Question *string `json:"question_file_path"`
			Function *string `json:"function"`
			Name     *string `json:"function_name"`
		}
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		for field, v := range map[string]*string{"question_file_path": row.Question, "function": row.Function, "function_name": row.Name} {
			if v == nil {
				return nil, fmt.Errorf("%s:%d: %s: missing", path, line, field)
			}
		}
		if line > len(order) {
			return nil, fmt.Errorf("%s:%d: more than %d rows", path, line, len(order))
		}
		if *row.Question != order[line-1] {
			return nil, fmt.Errorf("%s:%d: question_file_path: %q, but the published evaluation order has %q here", path, line, *row.Question, order[line-1])
		}
		r.Code[*row.Question] = submission{Code: *row.Function, FunctionName: *row.Name}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if line != len(order) {
		return nil, fmt.Errorf("%s: %d rows; MatTools' scorer requires exactly %d", path, line, len(order))
	}
	return r, nil
}

// readParquetRun reads the generated code of a tool-usage results file.
func readParquetRun(path string) (*storedRun, error) {
	f, err := results.Read(path)
	if err != nil {
		return nil, err
	}
	if f.Run.Benchmark != results.BenchmarkToolUsage {
		return nil, fmt.Errorf("%s: a %s run has no generated code to rescore", path, f.Run.Benchmark)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	r := &storedRun{Label: path, System: f.Run.System, RetrievalSource: f.Run.RetrievalSource, Model: f.Run.Model,
		Round: f.Run.Round, DerivedFrom: f.Run.RunID, Origin: originOf(&f.Run), Code: map[string]submission{},
		Source: results.SourceFile{Path: filepath.ToSlash(path), SHA256: hex.EncodeToString(sum[:])}}
	for i, q := range f.Questions {
		if _, dup := r.Code[q.QuestionID]; dup {
			return nil, fmt.Errorf("%s: row %d: question_id: %s appears twice", path, i+1, q.QuestionID)
		}
		r.Code[q.QuestionID] = submission{Code: q.Code, FunctionName: q.FunctionName}
	}
	for _, id := range datasets.Order() {
		if _, ok := r.Code[id]; !ok {
			return nil, fmt.Errorf("%s: question_id: no row for question %s", path, id)
		}
	}
	return r, nil
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// originOf returns where the code of a stored run came from: for a rescored
// run its own origin, otherwise its provenance kind.
func originOf(r *results.Run) results.ProvenanceKind {
	if r.Provenance.Kind == results.ProvenanceRescored {
		return r.Provenance.Origin
	}
	return r.Provenance.Kind
}
