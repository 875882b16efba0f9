// Package results defines results format v3 (FormatVersion; it reads
// versions 1 and 2 too): one Parquet file per run, with the run record (Run)
// in the file's key-value metadata and one row per question (QuestionRow,
// tool usage) or per QA item (QAItem). The runner, the importer of published results and outside
// authors write it; the site builder only reads it. FORMAT.md documents the
// format for authors who do not use this package.
//
// It imports no other package of the project but internal/atomicfile: its
// writes are atomic (deps_test.go).
package results
