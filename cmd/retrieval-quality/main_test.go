package main

import (
	"testing"

	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
)

func TestChunkModule(t *testing.T) {
	for _, c := range []struct {
		src       int
		id, want  string
		documents []string // imports the module covers
	}{
		{1, "pymatgen/analysis/defects/core.py#20", "pymatgen.analysis.defects.core", []string{"pymatgen.analysis.defects.core"}},
		{1, "pymatgen/core/__init__.py#0", "pymatgen.core", []string{"pymatgen.core"}},
		{2, "tool_source_code/pymatgen/docs/pymatgen.io.html#207", "pymatgen.io", []string{"pymatgen.io.vasp", "pymatgen.io"}},
		{2, "defects_doc/pymatgen_analysis_defects_core.txt#1", "pymatgen.analysis.defects.core", []string{"pymatgen.analysis.defects.core"}},
		{2, "defects_doc/api_overview.txt#0", "", nil},
		{2, "tool_source_code/pymatgen/docs/modules.html#0", "", nil},
	} {
		if got := chunkModule(c.src, c.id); got != c.want {
			t.Errorf("chunkModule(%d, %q) = %q, want %q", c.src, c.id, got, c.want)
		}
		for _, m := range c.documents {
			if !documents(c.want, []string{m}) {
				t.Errorf("%s does not document %s", c.want, m)
			}
		}
	}
	if documents("pymatgen.io", []string{"pymatgen.iox"}) || documents("pymatgen.core", []string{"pymatgen"}) {
		t.Error("a page documents a module whose name it only prefixes, or its parent")
	}
}

// TestHitTableOnTheRealData: every question's original test is found, the
// hit rates are the table's own counts, and BM25 finds a module of the
// test for most questions in both sources.
func TestHitTableOnTheRealData(t *testing.T) {
	root := mattoolstest.DataRoot(t, "to measure retrieval on the real corpora")
	rep, err := measure(root, 5, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.questions) != 49 {
		t.Fatalf("%d questions", len(rep.questions))
	}
	hits, n := rep.HitRates()
	for _, q := range rep.questions {
		if q.testFile == "" || len(q.modules) == 0 {
			t.Errorf("%s: no original test or no pymatgen import found", q.id)
		}
	}
	count := map[int]int{}
	for _, q := range rep.questions {
		for _, src := range []int{1, 2} {
			if q.hit[src] {
				count[src]++
			}
			if len(q.chunks[src]) != 5 {
				t.Errorf("%s source %d: %d chunks", q.id, src, len(q.chunks[src]))
			}
		}
	}
	for _, src := range []int{1, 2} {
		if hits[src] != count[src] || n[src] != 49 {
			t.Errorf("source %d: hit@5 %d/%d, table has %d hits", src, hits[src], n[src], count[src])
		}
		t.Logf("source %d: hit@5 = %d/%d", src, hits[src], n[src])
	}
}
