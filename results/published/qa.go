package published

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/datasets/qaaudit"
	"github.com/mattools-leaderboard/leaderboard/results"
)

// QAResultsDir is where MatTools keeps the QA results, relative to the root.
const QAResultsDir = "qa_benchmark/test_results"

// QAQuestionsDir is where MatTools keeps the QA question sets, relative to
// the root (generation_results_{code,doc}.json.zip, docs/mattools.md §4).
// A copy of the data may lack them (they are large files); an upstream
// checkout has them.
const QAQuestionsDir = "qa_benchmark/generated_qa"

// QASetFiles returns the paths, relative to the root, at which the
// question set of a QA benchmark (qa-code or qa-doc) is looked for, in
// order: upstream's zip, then the JSON it holds, unzipped.
func QASetFiles(bench results.Benchmark) []string {
	base := QAQuestionsDir + "/generation_results_" + strings.TrimPrefix(string(bench), "qa-") + ".json"
	return []string{base + ".zip", base}
}

// qaSet is what the importer takes from a benchmark's question set: the
// file (relative to the root) and its SHA-256, and its baselines.
type qaSet struct {
	rel, sha256 string
	baselines   qaaudit.Baselines
}

// qaSetOf returns the question set of bench (QASetFiles), loaded and
// audited once per import; nil when the root holds none (a warning says
// that the benchmark's imported QA runs then record no baselines). A set
// that does not load is an error naming its file, document and field.
func (im *importer) qaSetOf(bench results.Benchmark) (*qaSet, error) {
	if s, ok := im.qaSets[bench]; ok {
		return s, nil
	}
	if im.qaSets == nil {
		im.qaSets = map[results.Benchmark]*qaSet{}
	}
	files := QASetFiles(bench)
	for _, rel := range files {
		path := filepath.Join(im.root, filepath.FromSlash(rel))
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		set, err := datasets.LoadQA(path)
		if err != nil {
			return nil, err
		}
		s := &qaSet{rel: rel, sha256: set.SHA256, baselines: qaaudit.Audit(string(bench), set).Baselines()}
		im.qaSets[bench] = s
		return s, nil
	}
	im.qaSets[bench] = nil
	im.warnf("%s: no question set of %s: its imported QA runs record no baselines (docs/qa-validity.md)", files[0], bench)
	return nil, nil
}

var qaFileName = regexp.MustCompile(`^evaluation_results_(code|doc)_(.+)\.csv$`)

var qaHeader = []string{"Source", "Total Questions", "Correct Answers", "Incorrect Answers", "Accuracy"}

// qaCounts is the result of reading one QA CSV.
type qaCounts struct {
	items              []results.QAItem // per item, non-cumulative
	questions, correct int              // totals = the Overall row
}

// readQACSV reads one MatTools QA CSV (testing_script.py output,
// docs/mattools.md §4). Its rows are cumulative per Source: items that
// share a Source reuse one counter and a row is written after each item. So
// each item's counts are the difference from the previous row with the same
// Source, and the totals are the sum over Sources of their last row, which
// must equal the final Overall row. Every row must also satisfy
// Total = Correct + Incorrect and Accuracy = "%.2f%%" of Correct/Total.
// Errors name the file, the 1-based line and the column.
func readQACSV(path string, data []byte) (*qaCounts, error) {
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = len(qaHeader)
	header, err := r.Read()
	if err != nil {
		return nil, &datasets.FormatError{File: path, Row: 1, Err: fmt.Errorf("no header: %w", err)}
	}
	for i, want := range qaHeader {
		if header[i] != want {
			return nil, &datasets.FormatError{File: path, Row: 1, Field: "header", Err: fmt.Errorf("column %d is %q, want %q", i+1, header[i], want)}
		}
	}
	type counter struct{ total, correct int }
	last := map[string]counter{}
	var order []string
	out := &qaCounts{}
	line := 1
	overall := false
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		line++
		if err != nil {
			return nil, &datasets.FormatError{File: path, Row: line, Err: err}
		}
		if overall {
			return nil, &datasets.FormatError{File: path, Row: line, Field: "Source", Err: errors.New("row after the Overall row")}
		}
		nums := make([]int, 3)
		for i := range nums {
			v, err := strconv.Atoi(rec[i+1])
			if err != nil || v < 0 {
				return nil, &datasets.FormatError{File: path, Row: line, Field: qaHeader[i+1], Err: fmt.Errorf("%q is not a count", rec[i+1])}
			}
			nums[i] = v
		}
		total, correct, incorrect := nums[0], nums[1], nums[2]
		if total != correct+incorrect {
			return nil, &datasets.FormatError{File: path, Row: line, Field: "Total Questions", Err: fmt.Errorf("%d ≠ %d correct + %d incorrect", total, correct, incorrect)}
		}
		if total > 0 {
			if want := fmt.Sprintf("%.2f%%", 100*float64(correct)/float64(total)); rec[4] != want {
				return nil, &datasets.FormatError{File: path, Row: line, Field: "Accuracy", Err: fmt.Errorf("%q, want %q for %d/%d", rec[4], want, correct, total)}
			}
		}
		source := rec[0]
		if source == "Overall" {
			overall = true
			out.questions, out.correct = total, correct
			continue
		}
		prev, seen := last[source]
		dq, dc := total-prev.total, correct-prev.correct
		if dq <= 0 || dc < 0 || dc > dq {
			return nil, &datasets.FormatError{File: path, Row: line, Field: "Total Questions",
				Err: fmt.Errorf("source %q goes from %d/%d to %d/%d: cumulative counts must grow by a whole item", source, prev.correct, prev.total, correct, total)}
		}
		if !seen {
			order = append(order, source)
		}
		last[source] = counter{total, correct}
		out.items = append(out.items, results.QAItem{ItemIndex: int32(len(out.items)), Item: source, Questions: int32(dq), Correct: int32(dc)})
	}
	if !overall {
		return nil, &datasets.FormatError{File: path, Row: line, Field: "Source", Err: errors.New("no Overall row: the file is incomplete")}
	}
	if len(out.items) == 0 || out.questions == 0 {
		return nil, &datasets.FormatError{File: path, Row: line, Field: "Overall", Err: errors.New("no questions")}
	}
	var sumTotal, sumCorrect int
	for _, s := range order {
		sumTotal += last[s].total
		sumCorrect += last[s].correct
	}
	if sumTotal != out.questions || sumCorrect != out.correct {
		return nil, &datasets.FormatError{File: path, Row: line, Field: "Overall",
			Err: fmt.Errorf("says %d/%d but the last rows of the %d sources add up to %d/%d", out.correct, out.questions, len(order), sumCorrect, sumTotal)}
	}
	return out, nil
}

// qaRun builds the results file of one QA CSV of a model folder.
func (im *importer) qaRun(dirName, fileName string, data []byte) (*results.File, error) {
	m := qaFileName.FindStringSubmatch(fileName)
	rel := QAResultsDir + "/" + dirName + "/" + fileName
	path := filepath.Join(im.root, filepath.FromSlash(rel))
	counts, err := readQACSV(path, data)
	if err != nil {
		return nil, err
	}
	bench := results.BenchmarkQACode
	if m[1] == "doc" {
		bench = results.BenchmarkQADoc
	}
	t := 0.7
	correct := counts.correct
	r := results.Run{
		FormatVersion:    results.FormatVersion,
		Benchmark:        bench,
		BenchmarkVersion: results.BenchmarkVersion2025_05,
		UpstreamCommit:   im.commit,
		System:           results.SystemSingleLLM,
		Model:            dirName,
		Round:            1,
		ScoringProtocol:  results.ProtocolMatToolsOriginal,
		// Source is part of the imported runs' records (frozen in the releases), so it keeps the
		// reference's old name; the facts are in docs/mattools.md §4.
		Generation:  results.GenerationParams{Temperature: &t, Source: "MatTools testing_script.py (docs/mattools.md §4)"},
		QuestionSet: results.QuestionSet{Name: results.QuestionSetAll, Questions: counts.questions},
		Provenance:  results.Provenance{Kind: results.ProvenanceImported, Citation: im.citation(rel)},
		Environment: results.Environment{Generator: Generator, GeneratorVersion: Version},
		Totals:      results.Totals{Scored: true, Questions: counts.questions, Correct: &correct},
		Warnings: []string{"per-question answers were never published: counts per source item, from MatTools' cumulative CSV",
			"scored with MatTools' strict extraction only (exact single letter after removing <answer> tags)"},
	}
	if full, _, ok := results.FullQuestionSet(bench, r.BenchmarkVersion); ok && counts.questions != full {
		// MatTools tested some models on part of a set (e.g. ChemLLM, per the paper).
		r.QuestionSet.Name = "published-subset"
		r.Warnings = append(r.Warnings, fmt.Sprintf("covers %d of the %d questions of %s", counts.questions, full, bench))
		im.warnf("%s: %d questions, not the whole %s set (%d): imported as question set %q", rel, counts.questions, bench, full, r.QuestionSet.Name)
	}
	r.Provenance.Source = []results.SourceFile{{Path: rel, SHA256: sha256Bytes(data)}}
	if r.QuestionSet.Name == results.QuestionSetAll {
		if err := im.addBaselines(&r, rel); err != nil {
			return nil, err
		}
	}
	if mod, ok := results.LookupModel(dirName); ok {
		r.ModelDisplayName, r.ModelGroup = mod.DisplayName, mod.Group
	} else {
		im.warnf("%s: model folder %q is not in results/models.csv: shown under its folder name, without a group", rel, dirName)
	}
	r.RunID = results.MakeRunID(&r)
	return &results.File{Run: r, QAItems: counts.items}, nil
}

// addBaselines records on r, an imported QA run of its benchmark's whole
// question set, the baselines of that set (extension
// qaaudit.ExtensionBaselines, as the runner records them on its runs;
// docs/qa-validity.md) when the root holds the set (qaSetOf), and lists the
// set's file among the run's sources. A set of another size than the run's
// (not the set MatTools tested) gives none and a warning naming both.
func (im *importer) addBaselines(r *results.Run, rel string) error {
	set, err := im.qaSetOf(r.Benchmark)
	if err != nil || set == nil {
		return err
	}
	if set.baselines.Questions != r.QuestionSet.Questions {
		im.warnf("%s: %d questions, but %s has %d: no baselines recorded", rel, r.QuestionSet.Questions, set.rel, set.baselines.Questions)
		return nil
	}
	raw, err := json.Marshal(set.baselines)
	if err != nil {
		return err
	}
	r.Extensions = map[string]json.RawMessage{qaaudit.ExtensionBaselines: raw}
	r.Provenance.Source = append(r.Provenance.Source, results.SourceFile{Path: set.rel, SHA256: set.sha256})
	return nil
}
