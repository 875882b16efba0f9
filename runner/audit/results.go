package audit

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/internal/version"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/runner/scoring"
)

// Generator is the generator recorded on the audit's results files.
const Generator = "audit"

// auditRuns are the results files the audit writes: each audit system with
// the item kind whose outcomes are its rows.
var auditRuns = []struct {
	system results.System
	kind   string
}{
	{results.SystemReferenceSolution, kindReference},
	{results.SystemBaselineAllTrue, kindTrue},
	{results.SystemBaselineAllNone, kindNone},
}

// writeResults writes, into out/results, one results file per audit system
// and scored protocol of benchmark name (format v3, provenance audit, model
// none, round 1; a benchmark registered at run time described on each by
// results.ExtensionBenchmark) over the
// questions whose data files are present among audited: the reference's
// outcomes (a question without a reference file answers with empty code:
// not runnable) and the True and None controls'. It returns the paths.
func writeResults(out string, name results.Benchmark, bench *datasets.Benchmark, audited []*datasets.Question, refs map[string]*item,
	byQuestion map[string]map[string]*item, env scoring.Environment, refDir string) ([]string, error) {
	commit := bench.Commit
	if commit == "" { // the registry's commit of the version (MatTools: results.UpstreamCommit)
		info, _ := results.LookupBenchmark(name)
		v, _ := info.Version(bench.Version)
		commit = v.UpstreamCommit
	}
	qs := scoring.QuestionSet(bench)
	renv := results.Environment{Generator: Generator, GeneratorVersion: version.String(), GoVersion: runtime.Version(),
		Libraries: env.Libraries, Sandbox: &env.Sandbox}
	now := time.Now().UTC().Truncate(time.Second)
	auditedIDs := map[string]bool{}
	for _, q := range audited {
		auditedIDs[q.ID] = true
	}
	var paths []string
	for _, ar := range auditRuns {
		for _, p := range results.ScoredProtocols(name) {
			run := results.Run{FormatVersion: results.FormatVersion, Benchmark: name,
				BenchmarkVersion: bench.Version, UpstreamCommit: commit, System: ar.system,
				Model: results.ModelNone, Round: 1, ScoringProtocol: p, QuestionSet: qs,
				Provenance: results.Provenance{Kind: results.ProvenanceAudit}, Environment: renv, FinishedAt: &now}
			if ext, ok := results.BenchmarkRecord(name); ok { // a folder benchmark describes itself on its runs
				run.Extensions = map[string]json.RawMessage{results.ExtensionBenchmark: ext}
			}
			run.RunID = results.MakeRunID(&run)
			f := &results.File{Run: run}
			for i := range bench.Questions {
				q := &bench.Questions[i]
				row := results.QuestionRow{QuestionIndex: int32(q.Index), QuestionID: q.ID, PropertyCount: int32(len(q.Properties))}
				var sc *scoring.Scored
				switch it := byQuestion[q.ID][ar.kind]; {
				case !q.Executable() || !auditedIDs[q.ID]:
					row.Verdict = string(results.VerdictDataMissing)
				case ar.kind == kindReference && refs[q.ID] == nil:
					sc = emptyAnswer(q)
				default:
					row.Code, row.FunctionName = it.code, it.function
					sc = it.scored
				}
				if sc != nil {
					sc.FillRow(&row, p)
				}
				if ar.kind == kindReference && refs[q.ID] != nil {
					sum := sha256.Sum256([]byte(refs[q.ID].code))
					f.Run.Provenance.Source = append(f.Run.Provenance.Source, results.SourceFile{
						Path: filepath.ToSlash(filepath.Join(refDir, q.ID+".py")), SHA256: hex.EncodeToString(sum[:])})
				}
				f.Questions = append(f.Questions, row)
			}
			var missing []string
			f.Run.Totals, missing = scoring.Tally(f.Questions, qs)
			f.Run.Warnings = append(f.Run.Warnings, scoring.Warnings(&env.Sandbox, bench, qs, missing)...)
			path := filepath.Join(out, "results", run.RunID+results.Extension)
			if err := results.Write(path, f); err != nil {
				return nil, err
			}
			paths = append(paths, path)
		}
	}
	return paths, nil
}

// emptyAnswer is the outcome of a question without a reference: empty
// code, not runnable (scoring.Scorer.Score decides it without executing).
func emptyAnswer(q *datasets.Question) *scoring.Scored {
	s := &scoring.Scorer{}
	sc, err := s.Score(context.Background(), q, scoring.Submission{})
	if err != nil {
		panic(err) // empty code never reaches the sandbox
	}
	return sc
}

// publishResults copies the results files at paths into dir (created if
// needed), each atomically, and then removes the audit's earlier results
// files there (*.parquet) of the same benchmark and version: dir then holds
// exactly this audit's files of benchmark b, version (and whatever else it
// held: other versions' or other benchmarks' audits, files of no audit),
// the copy that build-site reads (-audit; docs/benchmark-audit.md). Which
// files are the audit's earlier ones is read from each file's run record
// (provenance kind audit, benchmark, benchmark version), never from its
// name. Errors: a results file in dir that cannot be read, named, before
// anything is copied or removed.
func publishResults(paths []string, dir string, b results.Benchmark, version string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	keep := map[string]bool{}
	for _, p := range paths {
		keep[filepath.Base(p)] = true
	}
	stale, err := staleAuditFiles(dir, keep, b, version)
	if err != nil {
		return err
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := results.WriteFileAtomic(filepath.Join(dir, filepath.Base(p)), data, 0o644); err != nil {
			return err
		}
	}
	for _, p := range stale {
		if err := os.Remove(p); err != nil {
			return err
		}
	}
	return syncDir(dir)
}

// syncDir makes dir's entries (the removals) durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// staleAuditFiles lists the results files in dir, other than those named
// in keep, that are benchmark-audit runs of benchmark b, version.
func staleAuditFiles(dir string, keep map[string]bool, b results.Benchmark, version string) ([]string, error) {
	entries, err := os.ReadDir(dir) // not Glob: dir may hold [, * or ?
	if err != nil {
		return nil, err
	}
	var stale []string
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), results.Extension) || keep[e.Name()] {
			continue
		}
		p := filepath.Join(dir, e.Name())
		f, err := results.Read(p)
		if err != nil {
			return nil, fmt.Errorf("publishing into %s: %w (nothing was copied or removed)", dir, err)
		}
		r := f.Run
		if r.Provenance.Kind == results.ProvenanceAudit && r.Benchmark == b && r.BenchmarkVersion == version {
			stale = append(stale, p)
		}
	}
	return stale, nil
}
