package site_test

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/site"
	"github.com/mattools-leaderboard/leaderboard/site/sitetest"
)

// treeFiles returns every regular file under dir by its path relative to dir.
func treeFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		data, err := os.ReadFile(p)
		out[rel] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestHugoPassesGiveTheOnePassBytes: the fixture site rendered by
// Hugo in several passes over disjoint sets of its generated pages (a pass
// budget of a quarter of their bytes) is the one-pass build, file for file
// and byte for byte.
func TestHugoPassesGiveTheOnePassBytes(t *testing.T) {
	one := builtFixture(t)
	if one.report.HugoPasses != 1 {
		t.Fatalf("the default build of the fixture took %d Hugo passes, want 1", one.report.HugoPasses)
	}
	var total int64
	err := filepath.WalkDir(filepath.Join(one.work, "content"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() != "_index.md" {
			info, err := d.Info()
			if err != nil {
				return err
			}
			total += info.Size()
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	base := t.TempDir()
	out, work := filepath.Join(base, "public"), filepath.Join(base, "work")
	rep, err := site.Build(context.Background(), site.Options{ResultsDir: filepath.Join(filepath.Dir(one.work), "results"), Benchmark: sitetest.Benchmark(), DataHint: "fixture data hint",
		RepoRoot: repoRoot(t), OutDir: out, WorkDir: work, Releases: one.releases, HugoPassBytes: total / 4})
	if err != nil {
		t.Fatal(err)
	}
	if rep.HugoPasses < 4 {
		t.Fatalf("%d Hugo passes for a budget of a quarter of %d bytes, want at least 4", rep.HugoPasses, total)
	}
	a, b := treeFiles(t, one.dir), treeFiles(t, out)
	if len(a) != len(b) {
		t.Errorf("one pass: %d files, %d passes: %d files", len(a), rep.HugoPasses, len(b))
	}
	for rel, data := range a {
		if other, ok := b[rel]; !ok {
			t.Errorf("%s: missing from the build in passes", rel)
		} else if !bytes.Equal(data, other) {
			t.Errorf("%s differs between one pass and %d passes", rel, rep.HugoPasses)
		}
	}
	for rel := range b {
		if _, ok := a[rel]; !ok {
			t.Errorf("%s: only in the build in passes", rel)
		}
	}
	if _, err := os.Stat(filepath.Join(work, "passes")); err == nil {
		t.Error("the passes' content is left in the work directory")
	}
}
