package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/results/published"
)

// storedRun is generated code to rescore: one stored run, in the published
// evaluation order, with what identifies it.
type storedRun struct {
	Label           string // for messages: the input path
	Benchmark       results.Benchmark
	System          results.System
	RetrievalSource int
	Model           string
	Round           int
	DerivedFrom     string // run id of the stored run
	// Origin is where the stored code came from: imported (MatTools'
	// published code), runner (this project's runner) or submitted.
	Origin results.ProvenanceKind
	// Identity holds the stored run's fields that tell its configuration
	// apart beside the ones above (variant, top-k, retrieval method,
	// corpus, embedding model, system parameters, submission, generation
	// parameters), so that
	// rescorings of different configurations never share a run id.
	Identity results.Run
	Source   results.SourceFile
	Code     map[string]submission // question id → code
}

// submission is one question's stored answer: its code and, for runs of
// retrieving systems, what was retrieved and the stage trace (kept on the
// rescored rows, so that their question pages still show the context).
type submission struct {
	Code, FunctionName string
	Retrieved          []results.RetrievedChunk
	Trace              []results.TraceStage
}

// readMatToolsRun reads a MatTools run folder (its
// function_generation_results.jsonl, in the published evaluation order) as
// the importer does (results/published.ReadRunFolder), so that rescoring the
// folder and rescoring its imported results file are the same input.
func readMatToolsRun(dir, root string) (*storedRun, error) {
	f, err := published.ReadRunFolder(root, dir)
	if err != nil {
		return nil, err
	}
	return storedFromFile(f, filepath.Join(dir, published.GenerationFile), f.Run.Provenance.Source[0])
}

// readParquetRun reads the generated code of a tool-usage results file.
func readParquetRun(path string) (*storedRun, error) {
	f, err := results.Read(path)
	if err != nil {
		return nil, err
	}
	if f.Run.Benchmark.Kind() != results.KindToolUsage {
		return nil, fmt.Errorf("%s: a %s run has no generated code to rescore", path, f.Run.Benchmark)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	return storedFromFile(f, path, results.SourceFile{Path: filepath.ToSlash(path), SHA256: hex.EncodeToString(sum[:])})
}

// storedFromFile collects the generated code of a tool-usage results file;
// label names the input in messages and source is the file rescoring read.
func storedFromFile(f *results.File, label string, source results.SourceFile) (*storedRun, error) {
	path := label
	r := &storedRun{Label: label, Benchmark: f.Run.Benchmark, System: f.Run.System, RetrievalSource: f.Run.RetrievalSource, Model: f.Run.Model,
		Round: f.Run.Round, DerivedFrom: f.Run.RunID, Origin: originOf(&f.Run), Code: map[string]submission{}, Source: source,
		Identity: results.Run{Variant: f.Run.Variant, TopK: f.Run.TopK, RetrievalMethod: f.Run.RetrievalMethod, CorpusID: f.Run.CorpusID,
			EmbeddingModel: f.Run.EmbeddingModel, SystemParams: f.Run.SystemParams, ModelDisplayName: f.Run.ModelDisplayName,
			ModelGroup: f.Run.ModelGroup, Provenance: results.Provenance{Submission: f.Run.Provenance.Submission},
			Generation: f.Run.Generation}}
	for i, q := range f.Questions {
		if _, dup := r.Code[q.QuestionID]; dup {
			return nil, fmt.Errorf("%s: row %d: question_id: %s appears twice", path, i+1, q.QuestionID)
		}
		r.Code[q.QuestionID] = submission{Code: q.Code, FunctionName: q.FunctionName, Retrieved: q.Retrieved, Trace: q.Trace}
	}
	return r, nil
}

// answersEvery checks that r has a row for every question of b.
func (r *storedRun) answersEvery(b *datasets.Benchmark) error {
	for _, q := range b.Questions {
		if _, ok := r.Code[q.ID]; !ok {
			return fmt.Errorf("%s: question_id: no row for question %s", r.Label, q.ID)
		}
	}
	return nil
}

// originOf returns where the code of a stored run came from: for a rescored
// run its own origin, otherwise its provenance kind.
func originOf(r *results.Run) results.ProvenanceKind {
	if r.Provenance.Kind == results.ProvenanceRescored {
		return r.Provenance.Origin
	}
	return r.Provenance.Kind
}
