// Package published imports the results MatTools published (github.com/
// Grenzlinie/MatTools) into results format v3 (results.FormatVersion), so
// that the paper's numbers are recomputed from raw files by this project's
// code.
//
// A tool-usage run folder is any folder holding function_generation_results.jsonl;
// its family folder gives the system (pure_agent_test → single-llm,
// RAG_agent_test/…_methodK → llm-rag with retrieval source K,
// agentic_RAG_test/…_methodK → agentic-rag, mtr_rag_test/…_K →
// self-reflection-rag), its roundN folder the round. Totals come from
// accuracy_summary.xlsx, checked with the consistency rules of
// docs/mattools.md §3.2; a folder without one is imported as unscored.
// QA results come from the cumulative CSVs of qa_benchmark/test_results (§4);
// when the root holds the question sets (qa_benchmark/generated_qa), the
// runs of a whole set record its baselines (docs/qa-validity.md).
// Every imported run has provenance "imported" with a citation and scoring
// protocol "mattools-original". Nothing here depends on which runs a copy
// holds: an upstream checkout has more than a copy without its large files.
package published

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/results"
)

// Generator is the name recorded as the generator of imported runs.
const Generator = "import-mattools"

// Version is the importer's output version, recorded as the generator
// version of imported runs instead of a commit, so that the same published
// files give byte-identical results files whatever commit imports them (a
// frozen leaderboard release links to them). Bump it whenever the importer's
// output changes.
const Version = "3"

// Options configure an import.
type Options struct {
	// SkipUnknownFamilies turns a run folder of an unknown family into a
	// warning instead of an error.
	SkipUnknownFamilies bool
	// Reexecuted holds the re-executed verdicts joined with the published
	// code into rescored runs; nil: the committed store
	// (CommittedReexecuted). NewReexecuted() gives none.
	Reexecuted *Reexecuted
}

// Duplicate is a run folder skipped because its jsonl is byte-identical to
// that of a run inside a roundN folder.
type Duplicate struct {
	Folder, SameAs string // relative to the root
}

// Import is the outcome of reading a MatTools root.
type Import struct {
	Files      []*results.File // tool-usage runs (by folder path), their re-executed runs, then QA runs
	Duplicates []Duplicate
	Warnings   []string
	// Environments compares, for the re-executed runs joined, the main
	// environment's verdicts with the tasks environment's
	// (Reexecuted.EnvironmentComparison); nil when none of them was
	// re-executed there.
	Environments *results.EnvironmentComparison
}

type importer struct {
	root     string
	opts     Options
	bench    *datasets.Benchmark
	order    []string
	commit   string
	warnings []string
	qaSets   map[results.Benchmark]*qaSet // by benchmark, nil: the root has none (qaSetOf)
}

func (im *importer) warnf(format string, a ...any) {
	im.warnings = append(im.warnings, fmt.Sprintf(format, a...))
}

// Read reads every published result under root (a MatTools checkout or
// download) into results files, validating each, without writing anything.
// Any malformed input is an error naming the file (and line or cell); so
// is a run folder of an unknown family unless opts.SkipUnknownFamilies.
func Read(root string, opts Options) (*Import, error) {
	bench, err := datasets.Load(root)
	if err != nil {
		return nil, err
	}
	im := &importer{root: root, opts: opts, bench: bench, commit: bench.Commit}
	switch im.commit {
	case datasets.PinnedCommit:
	case "":
		im.warnf("%s: upstream commit unknown (no UPSTREAM_COMMIT file or readable .git): runs record none; this project's benchmark version %s is commit %s",
			root, results.BenchmarkVersion2025_05, datasets.PinnedCommit)
	default:
		im.warnf("%s: upstream commit %s is not the pinned %s of benchmark version %s: results may differ from the paper's",
			root, im.commit, datasets.PinnedCommit, results.BenchmarkVersion2025_05)
	}
	for _, q := range bench.Questions {
		im.order = append(im.order, q.ID)
	}
	out := &Import{}
	tool, dups, err := im.readToolUsage()
	if err != nil {
		return nil, err
	}
	out.Duplicates = dups
	qa, err := im.readQA()
	if err != nil {
		return nil, err
	}
	st := opts.Reexecuted
	if st == nil {
		if st, err = CommittedReexecuted(); err != nil {
			return nil, err
		}
	}
	rx, joined := im.reexecutedFiles(tool, st)
	out.Files = append(append(tool, rx...), qa...)
	out.Environments = st.EnvironmentComparison(TasksEnvironmentLabel, joined)
	ids := map[string]string{}
	for _, f := range out.Files {
		src := f.Run.Provenance.Source[0].Path
		if prev, ok := ids[f.Run.RunID]; ok {
			return nil, fmt.Errorf("%s and %s both map to run %s", prev, src, f.Run.RunID)
		}
		ids[f.Run.RunID] = src
		if err := results.Validate(f); err != nil {
			return nil, fmt.Errorf("%s: %w", src, err)
		}
	}
	out.Warnings = im.warnings
	return out, nil
}

// ReadRunFolder imports one tool-usage run folder of root (a folder holding
// function_generation_results.jsonl under src/<family>/[roundN/]), exactly
// as Read imports it: same system, model, retrieval source, round, run id,
// totals and checks. The folder may be absolute or relative to root; a
// folder outside root's src/ is an error.
func ReadRunFolder(root, folder string) (*results.File, error) {
	bench, err := datasets.Load(root)
	if err != nil {
		return nil, err
	}
	im := &importer{root: root, bench: bench, commit: bench.Commit}
	for _, q := range bench.Questions {
		im.order = append(im.order, q.ID)
	}
	abs, err := filepath.Abs(folder)
	if err != nil {
		return nil, err
	}
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	rel, err := filepath.Rel(absRoot, abs)
	if err != nil || strings.HasPrefix(rel, "..") {
		return nil, fmt.Errorf("%s: not inside the MatTools data root %s", folder, root)
	}
	rf, err := parseRunFolder(filepath.ToSlash(rel))
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(filepath.Join(abs, GenerationFile))
	if err != nil {
		return nil, err
	}
	f, err := im.toolUsageRun(rf, data)
	if err != nil {
		return nil, err
	}
	if err := results.Validate(f); err != nil {
		return nil, fmt.Errorf("%s: %w", rf.rel, err)
	}
	return f, nil
}

func (im *importer) readToolUsage() ([]*results.File, []Duplicate, error) {
	// src may be a symbolic link (a data root assembled from links):
	// walk where it points, name folders relative to the root.
	src, err := filepath.EvalSymlinks(filepath.Join(im.root, "src"))
	if err != nil {
		return nil, nil, fmt.Errorf("reading the MatTools data root: %w", err)
	}
	var folders []string
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && d.Name() == GenerationFile {
			rel, _ := filepath.Rel(src, filepath.Dir(p))
			folders = append(folders, path.Join("src", filepath.ToSlash(rel)))
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("reading the MatTools data root: %w", err)
	}
	sort.Strings(folders)
	type pending struct {
		rf   *runFolder
		data []byte
		sum  string
	}
	var runs []pending
	inRound := map[string]string{} // jsonl sha256 → folder, for runs inside roundN
	for _, rel := range folders {
		rf, err := parseRunFolder(rel)
		var unknown *UnknownFamilyError
		if errors.As(err, &unknown) && im.opts.SkipUnknownFamilies {
			im.warnf("%v: skipped", err)
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		data, err := os.ReadFile(filepath.Join(im.root, filepath.FromSlash(rel), GenerationFile))
		if err != nil {
			return nil, nil, err
		}
		p := pending{rf, data, sha256Bytes(data)}
		if rf.round > 0 {
			if _, ok := inRound[p.sum]; !ok {
				inRound[p.sum] = rel
			}
		}
		runs = append(runs, p)
	}
	var files []*results.File
	var dups []Duplicate
	for _, p := range runs {
		if p.rf.round == 0 {
			if same, ok := inRound[p.sum]; ok {
				dups = append(dups, Duplicate{Folder: p.rf.rel, SameAs: same})
				im.warnf("%s: %s is byte-identical to %s's: duplicate, skipped", p.rf.rel, GenerationFile, same)
				continue
			}
		}
		f, err := im.toolUsageRun(p.rf, p.data)
		if err != nil {
			return nil, nil, err
		}
		files = append(files, f)
	}
	return files, dups, nil
}

func (im *importer) readQA() ([]*results.File, error) {
	dir := filepath.Join(im.root, filepath.FromSlash(QAResultsDir))
	models, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		im.warnf("%s: no QA results", QAResultsDir)
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var files []*results.File
	for _, m := range models {
		if !m.IsDir() {
			continue
		}
		entries, err := os.ReadDir(filepath.Join(dir, m.Name()))
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".csv") {
				continue
			}
			rel := QAResultsDir + "/" + m.Name() + "/" + e.Name()
			if !qaFileName.MatchString(e.Name()) {
				return nil, fmt.Errorf("%s: not a QA result file name (want evaluation_results_{code,doc}_<model>.csv)", rel)
			}
			data, err := os.ReadFile(filepath.Join(im.root, filepath.FromSlash(rel)))
			if err != nil {
				return nil, err
			}
			f, err := im.qaRun(m.Name(), e.Name(), data)
			if err != nil {
				return nil, err
			}
			files = append(files, f)
		}
	}
	return files, nil
}

// citation cites the MatTools paper and the file a run comes from.
func (im *importer) citation(rel string) string {
	commit := im.commit
	if commit == "" {
		commit = "unknown"
	}
	return fmt.Sprintf("Siyu Liu et al., MatTools: Benchmarking Large Language Models for Materials Science Tools, arXiv:2505.10852 (2025); "+
		"published results: github.com/Grenzlinie/MatTools at commit %s, %s", commit, rel)
}

// environment describes the import itself and what MatTools says it scored with.
func (im *importer) environment() results.Environment {
	return results.Environment{
		Generator: Generator, GeneratorVersion: Version,
		// As MatTools' README states ("How to reproduce"); the image itself was
		// not inspected (each imported run carries a warning saying so).
		Libraries: map[string]string{"pymatgen": "2024.8.9", "pymatgen-analysis-defects": "2024.7.19"},
		Sandbox: &results.Sandbox{Backend: "mattools-docker", Version: "MatTools Docker image grenzlinie/mat-tools (as mat-tool-ben)",
			Limits: map[string]string{"network": "bridge (not isolated)", "timeout": "none", "memory": "none", "pids": "none"}},
	}
}

// WriteAll writes every file of the import into dir as <run id>.parquet,
// each atomically, then removes the files of earlier imports that this one
// no longer has (files named imported__*.parquet whose generator is
// import-mattools). Other files in dir are never touched. Nothing is
// removed if a write fails.
func (imp *Import) WriteAll(dir string) error {
	keep := map[string]bool{}
	for _, f := range imp.Files {
		name := f.Run.RunID + results.Extension
		if err := results.Write(filepath.Join(dir, name), f); err != nil {
			return err
		}
		keep[name] = true
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	prefix := string(results.ProvenanceImported) + "__"
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || keep[name] || !strings.HasPrefix(name, prefix) || !strings.HasSuffix(name, results.Extension) {
			continue
		}
		if f, err := results.Read(filepath.Join(dir, name)); err != nil || f.Run.Environment.Generator != Generator {
			continue // not ours, or not a results file: leave it
		}
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	return nil
}

func sha256Bytes(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func sha256File(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	return sha256Bytes(b), nil
}

func sortedStrings(s []string) []string {
	sort.Strings(s)
	return s
}
