package release

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A table CSV (content.TableCSVHeader, as v1.0 wrote it) and a ranked CSV
// (content.RankedCSVHeader) of the same cell, and a download that is no table.
const (
	tableCSV = "table,benchmark,benchmark_version,scoring_protocol,question_set,provenance,system,retrieval_source,model,display_name,metric,n,mean_percent,pop_std_percent,sample_std_percent,rounds,round_counts,round_totals,round_percents,configuration\n" +
		"tool-usage,tool-usage,2025-05,mattools-v1,full,rescored,single-llm,0,gpt-4o,GPT-4o,task_success_rate,3,18.6380,1.0137,1.2415,1;2;3,25;27;25,138;138;138,18.1159;19.5652;18.1159,tool-usage/single-llm/s0/gpt-4o\n"
	rankedCSV = "table,rank,model,display_name,system,retrieval_source,badge,scoring_protocol,metric,n,mean,pop_std,configuration,reference,ci95_lo,ci95_hi,rank_best,rank_worst,tied_with_leader\n" +
		"tool-usage,4,gpt-4o,GPT-4o,single-llm,0,re-executed,mattools-v1,task_success_rate,3,18.6380,1.0137,tool-usage/single-llm/s0/gpt-4o,false,15.5540,21.7220,3,6,false\n"
	otherCSV = "run_id,path,bytes\nx,y,1\n"
)

func writeEdition(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for rel, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestReadEditionNumbers(t *testing.T) {
	dir := writeEdition(t, map[string]string{"downloads/tables/tool-usage.csv": tableCSV, "tables/tool-usage/ranked.csv": rankedCSV,
		"index/tool-usage.csv": tableCSV, "downloads/results.csv": otherCSV})
	ns, err := ReadEditionNumbers(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ns) != 2 {
		t.Fatalf("%d cells, want 2 (the table CSV's and the ranked CSV's, the copy merged, the other download ignored): %v", len(ns), ns)
	}
	plain := ns[NumberKey{Table: "tool-usage", Configuration: "tool-usage/single-llm/s0/gpt-4o", Metric: "task_success_rate"}]
	if plain["mean"] != "18.6380" || plain["pop_std"] != "1.0137" || plain["round_counts"] != "25;27;25" || plain["n"] != "3" {
		t.Errorf("table CSV cell: %v", plain)
	}
	ranked := ns[NumberKey{Table: "tool-usage", Configuration: "tool-usage/single-llm/s0/gpt-4o", Protocol: "mattools-v1", Metric: "task_success_rate"}]
	if ranked["rank"] != "4" || ranked["rank_best"] != "3" || ranked["rank_worst"] != "6" || ranked["ci95_hi"] != "21.7220" || ranked["mean"] != "18.6380" {
		t.Errorf("ranked CSV cell: %v", ranked)
	}
	// Round trip through the manifest file.
	repo := t.TempDir()
	if n, err := WriteNumbers(repo, "v9.9", dir); err != nil || n != 2 {
		t.Fatalf("WriteNumbers: %d, %v", n, err)
	}
	back, err := ReadNumbers(NumbersPath(repo, "v9.9"))
	if err != nil || len(back) != 2 || back[NumberKey{Table: "tool-usage", Configuration: "tool-usage/single-llm/s0/gpt-4o", Protocol: "mattools-v1", Metric: "task_success_rate"}]["tied_with_leader"] != "false" {
		t.Errorf("ReadNumbers after WriteNumbers: %v, %v", back, err)
	}
	if chk, err := CheckNumbers(repo, "v9.9", dir); err != nil || chk.Extra != 0 {
		t.Errorf("CheckNumbers of the pages it was written from: %+v, %v", chk, err)
	}
}

// TestReadEditionNumbersRefusesTwoValues: one cell shown with two means by
// two CSVs of an edition is an error naming both files.
func TestReadEditionNumbersRefusesTwoValues(t *testing.T) {
	dir := writeEdition(t, map[string]string{"a.csv": tableCSV, "b.csv": strings.Replace(tableCSV, "18.6380", "18.6381", 1)})
	_, err := ReadEditionNumbers(dir)
	for _, w := range []string{"a.csv line 2", "b.csv line 2", "different numbers", "mean=18.638"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("error %v, want it to say %q", err, w)
		}
	}
}

func TestCheckNumbersNamesEachDifference(t *testing.T) {
	repo := t.TempDir()
	cut := writeEdition(t, map[string]string{"t.csv": tableCSV, "r.csv": rankedCSV})
	if _, err := WriteNumbers(repo, "v1.0", cut); err != nil {
		t.Fatal(err)
	}
	// A rank that moved, a cell no longer shown, and a new table beside.
	now := writeEdition(t, map[string]string{"r.csv": strings.Replace(rankedCSV, ",3,6,false", ",2,6,false", 1),
		"n.csv": strings.Replace(tableCSV, "tool-usage,tool-usage,", "new-table,tool-usage,", 1)})
	chk, err := CheckNumbers(repo, "v1.0", now)
	if chk == nil || chk.Extra != 1 || len(chk.Differences) != 1 {
		t.Errorf("check = %+v, want 1 extra cell (the new table's) and 1 difference", chk)
	}
	for _, w := range []string{"release v1.0: 2 numbers differ", "table tool-usage, row tool-usage/single-llm/s0/gpt-4o, column mattools-v1 task_success_rate, field rank_best: frozen 3, shown 2",
		"table tool-usage, row tool-usage/single-llm/s0/gpt-4o, column task_success_rate: frozen, not shown"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("error %v, want it to say %q", err, w)
		}
	}
	if _, err := CheckNumbers(repo, "v2.0", now); err == nil || !strings.Contains(err.Error(), "no numbers manifest") {
		t.Errorf("a release without a manifest: %v", err)
	}
}

func TestReadNumbersNamesTheLine(t *testing.T) {
	p := filepath.Join(t.TempDir(), "v1.0.numbers.csv")
	os.WriteFile(p, []byte("table,configuration,scoring_protocol,metric,mean,rank\nt,c,,m,1,NA\nt,c,,m,2,NA\n"), 0o644)
	if _, err := ReadNumbers(p); err == nil || !strings.Contains(err.Error(), p+": line 3") || !strings.Contains(err.Error(), "twice") {
		t.Errorf("a cell twice: %v", err)
	}
	os.WriteFile(p, []byte("table,configuration,scoring_protocol,metric,mean,rank,sample_std\nt,c,,m,1,NA,\n"), 0o644)
	if ns, err := ReadNumbers(p); err != nil || len(ns[NumberKey{Table: "t", Configuration: "c", Metric: "m"}]) != 2 ||
		ns[NumberKey{Table: "t", Configuration: "c", Metric: "m"}]["sample_std"] != "" {
		t.Errorf("NA is an absent field, an empty value an empty field: %v, %v", ns, err)
	}
	os.WriteFile(p, []byte("table,value\n"), 0o644)
	if _, err := ReadNumbers(p); err == nil || !strings.Contains(err.Error(), "line 1: header") {
		t.Errorf("a wrong header: %v", err)
	}
}

// TestErrataAcceptExactlyWhatTheyRecord: a difference recorded by an erratum
// (RecordErrata) passes the check and is counted; the same cell with another
// value, or an erratum whose change the pages no longer show, fails naming it;
// an erratum not described in ErrataFile is refused.
func TestErrataAcceptExactlyWhatTheyRecord(t *testing.T) {
	repo := t.TempDir()
	cut := writeEdition(t, map[string]string{"r.csv": rankedCSV})
	if _, err := WriteNumbers(repo, "v1.0", cut); err != nil {
		t.Fatal(err)
	}
	now := writeEdition(t, map[string]string{"r.csv": strings.Replace(rankedCSV, ",3,6,false", ",1,6,true", 1)})
	chk, err := CheckNumbers(repo, "v1.0", now)
	if err == nil || len(chk.Differences) != 2 {
		t.Fatalf("before the erratum: %+v, %v; want 2 differences (rank_best, tied_with_leader)", chk, err)
	}
	if _, err := RecordErrata(repo, "v1.0", "one-round", chk.Differences); err == nil || !strings.Contains(err.Error(), "not described in "+ErrataFile) {
		t.Errorf("an undescribed erratum: %v", err)
	}
	os.WriteFile(filepath.Join(repo, ErrataFile), []byte(`{"errata": [{"id": "one-round", "date": "2026-12-04", "commit": "030392e335dcf64716837071fdb91013c75dd1f3", "text": "A row of one round has no interval."}]}`), 0o644)
	if n, err := RecordErrata(repo, "v1.0", "one-round", chk.Differences); err != nil || n != 2 {
		t.Fatalf("RecordErrata: %d, %v", n, err)
	}
	chk, err = CheckNumbers(repo, "v1.0", now)
	if err != nil || chk.Corrected["one-round"] != 2 || len(chk.Differences) != 0 {
		t.Errorf("after the erratum: %+v, %v; want 2 numbers corrected by one-round", chk, err)
	}
	es, n, err := ErrataOf(repo, "v1.0")
	if err != nil || len(es) != 1 || es[0].ID != "one-round" || n["one-round"] != 2 {
		t.Errorf("ErrataOf: %v %v %v", es, n, err)
	}
	other := writeEdition(t, map[string]string{"r.csv": strings.Replace(rankedCSV, ",3,6,false", ",2,6,true", 1)})
	if _, err := CheckNumbers(repo, "v1.0", other); err == nil || !strings.Contains(err.Error(), "field rank_best: frozen 3, shown 2") ||
		!strings.Contains(err.Error(), "erratum one-round of table tool-usage") {
		t.Errorf("another value than the erratum's: %v", err)
	}
	if _, err := CheckNumbers(repo, "v1.0", cut); err == nil || !strings.Contains(err.Error(), "but the pages show no such change") {
		t.Errorf("an erratum the pages no longer show: %v", err)
	}
}

// TestErrataDownloadIsNoTable: the errata file an edition publishes
// (downloads/errata.csv: table, configuration, metric columns, no mean) is
// not read as a table.
func TestErrataDownloadIsNoTable(t *testing.T) {
	dir := writeEdition(t, map[string]string{"t.csv": tableCSV,
		"downloads/errata.csv": "erratum,table,configuration,scoring_protocol,metric,field,frozen,shown\none,tool-usage,tool-usage/single-llm/s0/gpt-4o,,task_success_rate,sample_std,0.0000,\n"})
	ns, err := ReadEditionNumbers(dir)
	if err != nil || len(ns) != 1 || ns[NumberKey{Table: "tool-usage", Configuration: "tool-usage/single-llm/s0/gpt-4o", Metric: "task_success_rate"}]["mean"] != "18.6380" {
		t.Errorf("%v, %v", ns, err)
	}
}

// TestFrozenTableGainsNoRow: a row a frozen table gains fails the check,
// naming it; a reference row (reference true) and an audit row
// ("audit:…") are counted, as is a whole new table.
func TestFrozenTableGainsNoRow(t *testing.T) {
	repo := t.TempDir()
	cut := writeEdition(t, map[string]string{"r.csv": rankedCSV})
	if _, err := WriteNumbers(repo, "v1.0", cut); err != nil {
		t.Fatal(err)
	}
	line := strings.SplitAfter(rankedCSV, "\n")[1]
	leaked := strings.ReplaceAll(line, "gpt-4o", "leaked-model")
	ref := strings.Replace(strings.ReplaceAll(line, "gpt-4o", "ref-model"), ",false,15.5540", ",true,15.5540", 1)
	audit := strings.Replace(line, "tool-usage/single-llm/s0/gpt-4o", "audit:reference-solution/all/49", 1)
	newTable := strings.Replace(line, "tool-usage,4,", "other-table,4,", 1)
	_, err := CheckNumbers(repo, "v1.0", writeEdition(t, map[string]string{"r.csv": rankedCSV + leaked}))
	if err == nil || !strings.Contains(err.Error(), "row tool-usage/single-llm/s0/leaked-model") || !strings.Contains(err.Error(), "shown, not frozen") {
		t.Errorf("a leaked row: %v", err)
	}
	chk, err := CheckNumbers(repo, "v1.0", writeEdition(t, map[string]string{"r.csv": rankedCSV + ref + audit, "n.csv": strings.SplitAfter(rankedCSV, "\n")[0] + newTable}))
	if err != nil || chk.Extra != 3 {
		t.Errorf("a reference row, an audit row and a new table: %+v, %v; want 3 extra cells", chk, err)
	}
}

// TestMergedCellsTakeEveryField: a cell in two CSVs keeps the fields of
// both; a cell twice in one CSV is an error.
func TestMergedCellsTakeEveryField(t *testing.T) {
	short := "table,configuration,metric,mean\ntool-usage,tool-usage/single-llm/s0/gpt-4o,task_success_rate,18.6380\n"
	ns, err := ReadEditionNumbers(writeEdition(t, map[string]string{"a.csv": short, "b.csv": tableCSV}))
	k := NumberKey{Table: "tool-usage", Configuration: "tool-usage/single-llm/s0/gpt-4o", Metric: "task_success_rate"}
	if err != nil || ns[k]["mean"] != "18.6380" || ns[k]["round_counts"] != "25;27;25" {
		t.Errorf("merged: %v, %v", ns[k], err)
	}
	if _, err := ReadEditionNumbers(writeEdition(t, map[string]string{"a.csv": short + strings.SplitAfter(short, "\n")[1]})); err == nil || !strings.Contains(err.Error(), "appears twice") {
		t.Errorf("a cell twice in one CSV: %v", err)
	}
}

// TestRecordErrataRefusesTwoCorrectionsAndRemovals: a number already
// corrected by one erratum is not silently re-assigned to another, and a
// number no longer shown is no correction.
func TestRecordErrataRefusesTwoCorrectionsAndRemovals(t *testing.T) {
	repo := t.TempDir()
	os.MkdirAll(filepath.Join(repo, ManifestDir), 0o755)
	os.WriteFile(filepath.Join(repo, ErrataFile), []byte(`{"errata": [
		{"id": "a", "date": "2026-12-04", "commit": "030392e335dcf64716837071fdb91013c75dd1f3", "text": "first"},
		{"id": "b", "date": "2026-12-05", "commit": "030392e335dcf64716837071fdb91013c75dd1f3", "text": "second"}]}`), 0o644)
	k := NumberKey{Table: "t", Configuration: "c", Metric: "m"}
	if _, err := RecordErrata(repo, "v1.0", "a", []Correction{{Key: k, Field: "rank", Frozen: "3", Shown: "2"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := RecordErrata(repo, "v1.0", "b", []Correction{{Key: k, Field: "rank", Frozen: "3", Shown: "1"}}); err == nil || !strings.Contains(err.Error(), "erratum a already corrects it") {
		t.Errorf("a second correction: %v", err)
	}
	if _, err := RecordErrata(repo, "v1.0", "b", []Correction{{Key: k, Field: "mean", Frozen: "3", Shown: "absent"}}); err == nil || !strings.Contains(err.Error(), "no longer shown") {
		t.Errorf("a removal: %v", err)
	}
	if err := CheckErratumID(repo, "c"); err == nil {
		t.Error("an undescribed id passes CheckErratumID")
	}
}

// shownPage is a ranked table as layouts/_partials/ranked.html writes it:
// the header's metric columns carry data-protocol and data-metric, a row its
// configurations, a cell its mean as data-sort.
func shownPage(cells string) string {
	return `<html><body><table class="sortable ranked" data-table="tool-usage"><thead><tr>
<th class="num rank">#</th><th>Model</th><th class="num" data-protocol="mattools-v1" data-metric="task_success_rate">Task success</th><th>Provenance</th></tr></thead>
<tbody><tr class="computed-row" data-configs="tool-usage/single-llm/s0/gpt-4o/mattools-v1/all/49">` + cells + `</tr></tbody></table></body></html>`
}

// TestCheckShownTables: a ranked table's cell must show its CSV's mean, and
// its row the CSV's rank; a value under another column, or another rank,
// is named with page, table, row and column.
func TestCheckShownTables(t *testing.T) {
	const conf = "tool-usage/single-llm/s0/gpt-4o/mattools-v1/all/49"
	csvText := "table,rank,model,display_name,system,retrieval_source,badge,scoring_protocol,metric,n,mean,pop_std,configuration,reference,ci95_lo,ci95_hi,rank_best,rank_worst,tied_with_leader\n" +
		"tool-usage,4,gpt-4o,GPT-4o,single-llm,0,re-executed,mattools-v1,task_success_rate,3,18.6380,1.0137," + conf + ",false,15.5540,21.7220,3,6,false\n"
	good := `<td class="num rank" data-rank="4">4</td><th>GPT-4o</th><td class="num computed headline" data-sort="18.637999">18.64</td><td class="provenance">re-executed</td>`
	shifted := `<td class="num rank" data-rank="4">4</td><th>GPT-4o</th><td class="provenance">re-executed</td><td class="num computed headline" data-sort="18.637999">18.64</td>`
	for _, c := range []struct {
		name, cells string
		want        string
	}{
		{"aligned", good, ""},
		{"shifted", shifted, `index.html: table tool-usage, row ` + conf + `, column mattools-v1 task_success_rate: the page shows "", the table's CSV "18.6380"`},
		{"other rank", strings.Replace(good, `data-rank="4"`, `data-rank="2"`, 1), "the page shows rank 2, the table's CSV 4"},
	} {
		dir := writeEdition(t, map[string]string{"t.csv": csvText, "index.html": shownPage(c.cells)})
		ns, err := ReadEditionNumbers(dir)
		if err != nil {
			t.Fatal(err)
		}
		n, diffs, err := CheckShownTables(dir, ns)
		switch {
		case err != nil || n != 1:
			t.Errorf("%s: %d cells checked, %v", c.name, n, err)
		case c.want == "" && len(diffs) > 0:
			t.Errorf("%s: %q", c.name, diffs)
		case c.want != "" && (len(diffs) != 1 || !strings.Contains(diffs[0], c.want)):
			t.Errorf("%s: %q, want one saying %q", c.name, diffs, c.want)
		}
	}
}
