package content

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
	"github.com/mattools-leaderboard/leaderboard/site/sitetest"
)

// TestResultsArchive: the downloads page offers every results file of the
// edition in one zip archive, with its size; the archive holds exactly the
// files linked one by one (same bytes), sorted, with fixed times, and two
// writes of the same edition, whatever the files' own times, give the
// same bytes.
func TestResultsArchive(t *testing.T) {
	write := func(touch time.Time) (archive []byte, params map[string]any, runs map[string][]byte) {
		dir := t.TempDir()
		e := &Edition{Path: "preview", Version: "preview", Benchmark: sitetest.Benchmark(), ResultsPaths: map[string]string{}, CodeKeys: map[string][]string{}}
		runs = map[string][]byte{}
		for _, f := range sitetest.Runs() {
			p := filepath.Join(dir, "runs", f.Run.RunID+results.Extension)
			if err := results.Write(p, f); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(p, touch, touch); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			runs[f.Run.RunID+results.Extension] = data
			e.Files = append(e.Files, f)
			e.ResultsPaths[f.Run.RunID] = p
		}
		e.Leaderboard = aggregate.Build(e.Files, aggregate.DefaultCatalog())
		dirs := Dirs{Content: filepath.Join(dir, "content"), Static: filepath.Join(dir, "static")}
		if err := Write(dirs, e); err != nil {
			t.Fatal(err)
		}
		archive, err := os.ReadFile(filepath.Join(dirs.Static, "preview", filepath.FromSlash(ResultsArchivePath("preview"))))
		if err != nil {
			t.Fatal(err)
		}
		return archive, readParams(t, filepath.Join(dirs.Content, "preview", "downloads.md")), runs
	}
	a, params, runs := write(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	b, _, _ := write(time.Date(2027, 6, 7, 8, 9, 10, 0, time.UTC))
	if !bytes.Equal(a, b) {
		t.Errorf("two writes of the same edition gave different archives (%d and %d bytes)", len(a), len(b))
	}
	zr, err := zip.NewReader(bytes.NewReader(a), int64(len(a)))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range zr.File {
		name, ok := bytes.CutPrefix([]byte(f.Name), []byte("results-preview/"))
		if !ok {
			t.Errorf("%s: not in the folder results-preview/", f.Name)
		}
		names = append(names, string(name))
		if !f.Modified.Equal(archiveTime) || f.Method != zip.Store || f.Mode() != 0o644 {
			t.Errorf("%s: modified %v, method %d, mode %v; want %v, stored, 0644", f.Name, f.Modified, f.Method, f.Mode(), archiveTime)
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		got.ReadFrom(rc)
		rc.Close()
		if want := runs[string(name)]; !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%s: %d bytes in the archive, the results file has %d", name, got.Len(), len(want))
		}
	}
	if !slices.IsSorted(names) || len(names) != len(runs) {
		t.Errorf("archive holds %d files %v (sorted: %v); want the %d results files, sorted", len(names), names, slices.IsSorted(names), len(runs))
	}
	arch, _ := params["archive"].(map[string]any)
	if arch["href"] != "downloads/results-preview.zip" || arch["size"] != byteSize(len(a)) {
		t.Errorf("downloads page archive = %v; want downloads/results-preview.zip of %s", arch, byteSize(len(a)))
	}
}
