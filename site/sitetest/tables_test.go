package sitetest

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestCheckTableShapes(t *testing.T) {
	dir := t.TempDir()
	pages := map[string]string{
		// aligned: colspan and rowspan counted, a nested table on its own
		"ok.html": `<table id="a"><thead><tr><th>#</th><th>Model</th><th>x</th><th>y</th></tr></thead>
<tbody><tr><td>1</td><th rowspan="2">m</th><td colspan="2">z</td></tr><tr><td>2</td><td>a</td><td><table><tr><td>n</td></tr></table></td></tr></tbody>
<tfoot><tr><th colspan="4">group</th></tr></tfoot></table>`,
		// the audit row shifted one column right, a row whose hidden ("extra")
		// cells are not those of the header, a short row, a table without id
		"bad/index.html": `<table data-table="tool-usage"><thead><tr><th>#</th><th>Model</th><th>T</th><th>P</th></tr></thead>
<tbody><tr><td>1</td><th>m</th><td>5</td><td>b</td></tr></tbody>
<tfoot><tr><td>–</td><th>Reference</th><td>badge</td><td>84.95</td><td>100.00</td></tr></tfoot></table>
<table id="x"><thead><tr><th>#</th><th>T</th><th>P</th><th class="extra">T2</th></tr></thead>
<tbody><tr><td>1</td><td>5</td><td>b</td><td class="extra">6</td></tr><tr><td colspan="4">all</td></tr>
<tr><td>–</td><td>b</td><td class="extra">84.95</td><td>84.95</td></tr></tbody></table>
<table><tr><th>a</th><th>b</th></tr><tr><td>1</td></tr></table>`,
	}
	for name, body := range pages {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("<!doctype html><title>t</title>"+body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := CheckTableShapes(dir)
	want := []string{
		filepath.Join("bad", "index.html") + ": table tool-usage: row 3 has 5 cells, header has 4",
		filepath.Join("bad", "index.html") + ": table x: row 4 column 3: cell extra true, header extra false",
		filepath.Join("bad", "index.html") + ": table x: row 4 column 4: cell extra false, header extra true",
		filepath.Join("bad", "index.html") + ": table #3: row 2 has 1 cells, header has 2",
	}
	if !slices.Equal(got, want) {
		t.Errorf("CheckTableShapes = %q, want %q", got, want)
	}
}
