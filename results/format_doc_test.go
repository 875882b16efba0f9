package results

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestFormatDocExample runs the DuckDB example of FORMAT.md and reads the
// file it writes: the documentation is enough to produce a valid file
// without this package, and cannot drift from the reader.
func TestFormatDocExample(t *testing.T) {
	doc, err := os.ReadFile("FORMAT.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```sql\n(.*?)```").FindSubmatch(doc)
	if m == nil {
		t.Fatal("FORMAT.md has no sql example")
	}
	duckdb, _ := filepath.Abs("../tools/duckdb")
	if _, err := os.Stat(filepath.Join(duckdb, "node_modules/@duckdb/node-api")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("DuckDB is not installed (run scripts/setup.sh): %v", err)
		}
		t.Skip("DuckDB is not installed: run scripts/setup.sh (npm ci in tools/duckdb)")
	}
	dir := t.TempDir()
	cmd := exec.Command("node", filepath.Join(duckdb, "run-sql.mjs"))
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(string(m[1]))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("duckdb: %v\n%s", err, out)
	}
	f, err := Read(filepath.Join(dir, "my-run.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.QAItems) != 2 || f.QAItems[1].Item != "q-0002" || *f.QAItems[1].CorrectLenient != 1 || f.QAItems[1].Correct != 0 {
		t.Errorf("rows = %+v", f.QAItems)
	}
	if acc, _ := f.Run.Totals.Accuracy(); acc != 50 {
		t.Errorf("accuracy = %v, want 50", acc)
	}
	if acc, _ := f.Run.Totals.AccuracyLenient(); acc != 100 {
		t.Errorf("lenient accuracy = %v, want 100", acc)
	}
}
