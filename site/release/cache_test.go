package release

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, body := range files {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestInputsKey: the key changes with every input (a run's bytes, the data
// root's files, the release list, a submission folder, the mode) and with
// nothing else (the same inputs twice, a .git folder in the data root).
func TestInputsKey(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"run.parquet": "PAR1 a", "data/src/q.json": "{}", "data/.git/HEAD": "ref: x", "sub/SUBMITTING.md": "m"})
	sum := func() string {
		s, err := TreeSum(filepath.Join(dir, "data"))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	in := func() Inputs {
		return Inputs{Releases: []Release{{Version: "v1.0", GeneratorCommit: "c1", Runs: []string{"r1", "r2"}}}, DataSum: sum(), DataFingerprint: "none",
			Runs: map[string]string{"r1": filepath.Join(dir, "run.parquet")}, Trees: []string{filepath.Join(dir, "sub")}, Mode: []string{"from-commit"}}
	}
	key := func(i Inputs) string {
		k, err := i.Key()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(k, "sha256:") || len(k) != len("sha256:")+64 {
			t.Fatalf("key %q", k)
		}
		return k
	}
	base := key(in())
	if again := key(in()); again != base {
		t.Errorf("same inputs: %s then %s", base, again)
	}
	writeFiles(t, dir, map[string]string{"data/.git/HEAD": "ref: y"})
	if k := key(in()); k != base {
		t.Errorf("a .git change changed the key")
	}
	changes := map[string]func(*Inputs){
		"run bytes":     func(*Inputs) { writeFiles(t, dir, map[string]string{"run.parquet": "PAR1 b"}) },
		"data file":     func(i *Inputs) { writeFiles(t, dir, map[string]string{"data/src/q.json": "[]"}); i.DataSum = sum() },
		"release list":  func(i *Inputs) { i.Releases[0].Title = "other" },
		"commit":        func(i *Inputs) { i.Releases[0].GeneratorCommit = "c2" },
		"absent run":    func(i *Inputs) { delete(i.Runs, "r1") },
		"submission":    func(*Inputs) { writeFiles(t, dir, map[string]string{"sub/SUBMITTING.md": "n"}) },
		"mode":          func(i *Inputs) { i.Mode = []string{"in-process"} },
		"fingerprint":   func(i *Inputs) { i.DataFingerprint = "sha256:00" },
		"absent folder": func(i *Inputs) { i.Trees = []string{filepath.Join(dir, "nowhere")} },
	}
	for name, change := range changes {
		t.Run(name, func(t *testing.T) {
			writeFiles(t, dir, map[string]string{"run.parquet": "PAR1 a", "data/src/q.json": "{}", "sub/SUBMITTING.md": "m"})
			i := in()
			change(&i)
			if k := key(i); k == base {
				t.Errorf("key unchanged by %s", name)
			}
		})
	}
}

// TestCacheGetPut: an entry is returned only for its key and while its
// pages match the release's committed manifest; Put replaces an entry.
func TestCacheGetPut(t *testing.T) {
	repo, built := t.TempDir(), t.TempDir()
	writeFiles(t, built, map[string]string{"index.html": "<p>v9.0</p>", "models/a/index.html": "a"})
	if err := WriteManifest(repo, "v9.0", built, nil); err != nil {
		t.Fatal(err)
	}
	c := Cache{Dir: filepath.Join(t.TempDir(), "cache")}
	if _, why, ok, err := c.Get(repo, "v9.0", "sha256:k1", nil); ok || err != nil || why != "not cached yet" {
		t.Errorf("empty cache: ok %v, %q, %v", ok, why, err)
	}
	if err := c.Put("v9.0", "sha256:k1", built); err != nil {
		t.Fatal(err)
	}
	pages, why, ok, err := c.Get(repo, "v9.0", "sha256:k1", nil)
	if !ok || err != nil {
		t.Fatalf("cached: ok %v, %q, %v", ok, why, err)
	}
	if got, err := os.ReadFile(filepath.Join(pages, "models/a/index.html")); err != nil || string(got) != "a" {
		t.Errorf("cached page: %q, %v", got, err)
	}
	if _, why, ok, _ := c.Get(repo, "v9.0", "sha256:k2", nil); ok || !strings.Contains(why, "inputs changed") {
		t.Errorf("other key: ok %v, %q", ok, why)
	}
	// A damaged entry (a page edited in the cache) is refused, naming the file.
	writeFiles(t, pages, map[string]string{"models/a/index.html": "b"})
	if _, why, ok, _ := c.Get(repo, "v9.0", "sha256:k1", nil); ok || !strings.Contains(why, "models/a/index.html") || !strings.Contains(why, "do not match its manifest") {
		t.Errorf("damaged entry: ok %v, %q", ok, why)
	}
	if err := c.Put("v9.0", "sha256:k1", built); err != nil {
		t.Fatal(err)
	}
	if _, why, ok, _ := c.Get(repo, "v9.0", "sha256:k1", nil); !ok {
		t.Errorf("after Put again: %q", why)
	}
	entries, err := os.ReadDir(c.Dir)
	if err != nil || len(entries) != 1 || entries[0].Name() != "v9.0" {
		t.Errorf("cache folder holds %v (%v), want only v9.0 (no temporary copies)", entries, err)
	}
}
