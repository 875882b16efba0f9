package check

import (
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/results"
)

func fullRun() *results.File {
	f := &results.File{Run: results.Run{Benchmark: results.BenchmarkToolUsage, BenchmarkVersion: results.BenchmarkVersion2025_05}}
	for _, e := range datasets.Manifest() {
		f.Questions = append(f.Questions, results.QuestionRow{QuestionIndex: int32(e.Index), QuestionID: e.ID, PropertyCount: int32(e.Properties)})
	}
	return f
}

func TestAgainstManifest(t *testing.T) {
	if err := AgainstManifest(fullRun()); err != nil {
		t.Fatalf("the manifest itself fails: %v", err)
	}
	tests := []struct {
		name   string
		mutate func(f *results.File)
		want   string
	}{
		{"unknown id", func(f *results.File) { f.Questions[3].QuestionID = "whatever" }, `row 4: question_id: "whatever" is not a question`},
		{"moved", func(f *results.File) { f.Questions[0].QuestionIndex = 1000 }, "row 1: question_index: is 1000; test_vacancy is question 0"},
		{"property count", func(f *results.File) { f.Questions[0].PropertyCount = 1 }, "row 1: property_count: is 1; test_vacancy has 10 properties"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := fullRun()
			tt.mutate(f)
			if err := AgainstManifest(f); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want %q", err, tt.want)
			}
		})
	}
	other := fullRun()
	other.Run.BenchmarkVersion = "2026-01"
	other.Questions[0].QuestionID = "new_question"
	if err := AgainstManifest(other); err != nil {
		t.Errorf("another benchmark version is checked: %v", err)
	}
}
