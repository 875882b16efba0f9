package published

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/results"
)

// TestDuckDBReadsEveryFile: DuckDB, an independent Parquet implementation,
// reads every results file the importer writes, and sees the same row
// counts, sums, first question and run metadata (tools/duckdb/check.mjs).
func TestDuckDBReadsEveryFile(t *testing.T) {
	dir, files := importReal(t)
	script, _ := filepath.Abs("../../tools/duckdb/check.mjs")
	if _, err := os.Stat(filepath.Join(filepath.Dir(script), "node_modules/@duckdb/node-api")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("DuckDB is not installed (run scripts/setup.sh): %v", err)
		}
		t.Skip("DuckDB is not installed: run scripts/setup.sh (npm ci in tools/duckdb)")
	}
	byID := map[string]*results.File{}
	args := []string{script}
	for _, f := range files {
		byID[f.Run.RunID] = f
		args = append(args, filepath.Join(dir, f.Run.RunID+results.Extension))
	}
	cmd := exec.Command("node", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node check.mjs: %v\n%s", err, stderr.Bytes())
	}
	type seen struct {
		First         string      `json:"first"`
		RunID         string      `json:"run_id"`
		Rows, A, B    *int64      // see check.mjs
		Text          string      `json:"text"`
		Bytes         int64       `json:"bytes"`
		FormatVersion string      `json:"format_version"`
		Run           results.Run `json:"run"`
	}
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var s seen
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatal(err)
		}
		f := byID[s.RunID]
		if f == nil {
			t.Errorf("DuckDB saw run %q, which was not written", s.RunID)
			continue
		}
		n++
		var rows, a, b, nbytes int64
		var first string
		var text []string
		if f.Run.Benchmark.Kind() == results.KindMultipleChoice {
			rows, first = int64(len(f.QAItems)), f.QAItems[0].Item
			for _, it := range f.QAItems {
				a += int64(it.Questions)
				b += int64(it.Correct)
				text = append(text, it.Item)
				nbytes += int64(len(it.Item))
			}
		} else {
			rows, first = int64(len(f.Questions)), f.Questions[0].QuestionID
			scored := false
			for _, q := range f.Questions {
				text = append(text, q.FunctionName)
				nbytes += int64(len(q.Code))
				if q.Runnable != nil && *q.Runnable {
					a++
				}
				if q.PropertiesPassed != nil {
					b += int64(*q.PropertiesPassed)
					scored = true
				}
			}
			if !scored {
				b = -1 // DuckDB sums null outcomes (imported rows) to NULL
			}
		}
		if s.Text != strings.Join(text, "\n") || s.Bytes != nbytes {
			t.Errorf("%s: DuckDB sees different text (%d bytes) than we wrote (%d bytes)", s.RunID, s.Bytes, nbytes)
		}
		got := func(p *int64) int64 {
			if p == nil {
				return -1
			}
			return *p
		}
		// Tool usage: runnable rows and the sum of properties passed (NULL for
		// imported rows, whose outcomes are null).
		if got(s.Rows) != rows || got(s.A) != a || got(s.B) != b || s.First != first {
			t.Errorf("%s: DuckDB sees rows %d a %d b %d first %q; we wrote rows %d a %d b %d first %q",
				s.RunID, got(s.Rows), got(s.A), got(s.B), s.First, rows, a, b, first)
		}
		if s.FormatVersion != strconv.Itoa(results.FormatVersion) || s.Run.RunID != f.Run.RunID || s.Run.Model != f.Run.Model {
			t.Errorf("%s: metadata as DuckDB sees it: version %q run %q", s.RunID, s.FormatVersion, s.Run.RunID)
		}
	}
	if n != len(files) {
		t.Errorf("DuckDB read %d of %d files", n, len(files))
	}
	t.Logf("DuckDB read all %d results files", n)
}
