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
	if extra, err := CheckNumbers(repo, "v9.9", dir); err != nil || extra != 0 {
		t.Errorf("CheckNumbers of the pages it was written from: %d extra, %v", extra, err)
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
	extra, err := CheckNumbers(repo, "v1.0", now)
	if extra != 1 {
		t.Errorf("extra = %d, want 1 (the new table's cell)", extra)
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
	os.WriteFile(p, []byte("table,configuration,scoring_protocol,metric,field,value\nt,c,,m,mean,1\nt,c,,m,mean,2\n"), 0o644)
	if _, err := ReadNumbers(p); err == nil || !strings.Contains(err.Error(), p+": line 3") || !strings.Contains(err.Error(), "twice") {
		t.Errorf("a field twice: %v", err)
	}
	os.WriteFile(p, []byte("table,value\n"), 0o644)
	if _, err := ReadNumbers(p); err == nil || !strings.Contains(err.Error(), "line 1: header") {
		t.Errorf("a wrong header: %v", err)
	}
}
