package site_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/results"
)

// TestFixtureDownloadsListEveryTableAndTheFormatVersion: the downloads page
// names the results format version the files have (results.FormatVersion)
// and links every CSV of downloads/tables/, the ranked tables' included.
func TestFixtureDownloadsListEveryTableAndTheFormatVersion(t *testing.T) {
	fx := builtFixture(t)
	ed := filepath.Join(fx.dir, "v1.1")
	page := readFile(t, filepath.Join(ed, "downloads", "index.html"))
	if want := fmt.Sprintf("Results files (Parquet, results format v%d)", results.FormatVersion); !strings.Contains(page, want) {
		t.Errorf("downloads page lacks the heading %q", want)
	}
	entries, err := os.ReadDir(filepath.Join(ed, "downloads", "tables"))
	if err != nil {
		t.Fatal(err)
	}
	ranked := 0
	for _, e := range entries {
		if !strings.Contains(page, `href="../downloads/tables/`+e.Name()+`"`) {
			t.Errorf("downloads page does not link downloads/tables/%s", e.Name())
		}
		if strings.HasPrefix(e.Name(), "tool-usage-") {
			ranked++
		}
	}
	if len(entries) == 0 || ranked == 0 {
		t.Fatalf("%d table CSVs, %d of them headline ranked tables: the fixture should have both", len(entries), ranked)
	}
	for _, want := range []string{`id="ranked-tables"`, "rank_best", "ci95_lo", "sample_std_percent"} {
		if !strings.Contains(page, want) {
			t.Errorf("downloads page lacks %q (the ranked tables and the columns of both kinds of table)", want)
		}
	}
}
