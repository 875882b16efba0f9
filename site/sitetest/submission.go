package sitetest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/results/submission"
)

// SubmissionModel is the model id of the submissions WriteSubmission writes;
// it is in no model catalogue, so the pages show SubmissionDisplayName.
const (
	SubmissionModel       = "fixture-model"
	SubmissionDisplayName = "Fixture model (submitted)"
)

// SubmissionFolder returns the folder name of the submission WriteSubmission
// writes for organization org on date (YYYY-MM-DD): a valid
// <date>_<org>_<model>_<system> name.
func SubmissionFolder(date, org string) string {
	return date + "_" + org + "_" + SubmissionModel + "_" + string(results.SystemSingleLLM)
}

// WriteSubmission writes a valid tool-usage submission (single LLM, no
// retrieval, SubmissionModel, scoring protocol mattools-v1, rounds 1–3, all
// 49 questions) as the folder SubmissionFolder(date, org) of subRoot, with
// Go alone: submission.toml first, then one results file per round whose
// provenance hashes it (SUBMITTING.md §3). It returns the folder's path;
// submission.Load accepts it.
func WriteSubmission(subRoot, date, org string) (string, error) {
	folder := SubmissionFolder(date, org)
	dir := filepath.Join(subRoot, folder)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	meta := fmt.Sprintf(`organization = %q
model = %q
model_display_name = %q
provider = "sitetest (no model: a fixed answer per question)"
benchmark = "tool-usage"
system = "single-llm"
retrieval_source = 0
authors = ["Fixture Author"]
contact = "author@example.org"
link = "https://example.org/fixture-model"
date = %q
model_release_date = "unknown"
open_model = true
open_system = true
outputs_license = "CC-BY-4.0"
notes = "A submission written by site/sitetest."
`, org, SubmissionModel, SubmissionDisplayName, date)
	metaPath := filepath.Join(dir, submission.MetadataFile)
	if err := results.WriteFileAtomic(metaPath, []byte(meta), 0o644); err != nil {
		return "", err
	}
	sum, err := fileSHA256(metaPath)
	if err != nil {
		return "", err
	}
	for round := 1; round <= submission.Rounds; round++ {
		r := results.Run{FormatVersion: results.FormatVersion, Benchmark: results.BenchmarkToolUsage, BenchmarkVersion: results.BenchmarkVersion2025_05,
			UpstreamCommit: results.UpstreamCommit, System: results.SystemSingleLLM, Model: SubmissionModel, ModelDisplayName: SubmissionDisplayName,
			Round: round, ScoringProtocol: results.ProtocolMatToolsV1,
			Provenance:  results.Provenance{Kind: results.ProvenanceSubmitted, Submission: &results.Submission{Folder: folder, MetadataSHA256: sum}},
			Environment: results.Environment{Generator: "sitetest", GeneratorVersion: "fixture"}}
		f := &results.File{}
		var ids []string
		props := 0
		for _, e := range datasets.Manifest() {
			passed := int32(0)
			verdict := results.VerdictPartial
			switch e.Index {
			case 0:
				passed, verdict = int32(e.Properties), results.VerdictCorrect
			case 1:
				passed = 1
			}
			f.Questions = append(f.Questions, results.QuestionRow{QuestionIndex: int32(e.Index), QuestionID: e.ID, PropertyCount: int32(e.Properties),
				Code: fmt.Sprintf("def solve():\n    # %s\n    return {}\n", e.ID), FunctionName: "solve",
				Runnable: ptr(true), PropertiesPassed: ptr(passed), Verdict: string(verdict)})
			ids = append(ids, e.ID)
			props += e.Properties
		}
		r.QuestionSet = results.ExecutableQuestionSet(ids, props, len(ids))
		r.Totals, _ = results.Tally(f.Questions, r.QuestionSet)
		r.RunID = results.MakeRunID(&r)
		f.Run = r
		if err := results.Write(filepath.Join(dir, r.RunID+results.Extension), f); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// VerifiedQuestions is how many questions (the first in the published
// order) the records of WriteVerified re-executed: the others are
// data-missing, as on a machine without their data files, so the verified
// rows are in a table of their own question set.
const VerifiedQuestions = 3

// WriteVerified writes, under verRoot/<folder>/, a verified record of every
// run of the submission in subDir, as validate-submission -reexecute -record
// writes them (provenance rescored from the submitted file and its hash,
// generator submission.VerifiedGenerator, the same code and verdicts), over
// the first VerifiedQuestions questions, with Go alone (no sandbox: the
// verdicts are copied, not re-executed). submission.LoadVerified accepts
// them. It returns the run ids written.
func WriteVerified(verRoot, subDir string) ([]string, error) {
	s, ps := submission.Load(subDir, submission.DefaultLimits)
	if len(ps) > 0 {
		return nil, ps
	}
	var ids []string
	for _, f := range s.Files {
		run := f.Run
		run.Generation = f.Run.Generation.Rescored()
		run.Provenance = results.Provenance{Kind: results.ProvenanceRescored, Origin: results.ProvenanceSubmitted, DerivedFrom: f.Run.RunID,
			Source:     []results.SourceFile{{Path: s.Folder + "/" + filepath.Base(f.Path), SHA256: s.FileSHA256[f.Run.RunID]}},
			Submission: f.Run.Provenance.Submission}
		run.Environment = results.Environment{Generator: submission.VerifiedGenerator, GeneratorVersion: "sitetest"}
		vf := &results.File{}
		var qids []string
		props := 0
		for i, q := range f.Questions {
			if i >= VerifiedQuestions {
				q.Runnable, q.PropertiesPassed, q.Verdict = nil, nil, string(results.VerdictDataMissing)
			} else {
				qids = append(qids, q.QuestionID)
				props += int(q.PropertyCount)
			}
			vf.Questions = append(vf.Questions, q)
		}
		run.QuestionSet = results.ExecutableQuestionSet(qids, props, len(f.Questions))
		run.Totals, _ = results.Tally(vf.Questions, run.QuestionSet)
		run.RunID = results.MakeRunID(&run)
		vf.Run = run
		if err := results.Write(filepath.Join(verRoot, s.Folder, run.RunID+results.Extension), vf); err != nil {
			return nil, err
		}
		ids = append(ids, run.RunID)
	}
	return ids, nil
}

func fileSHA256(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), nil
}
