package corpus

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
)

// tinyRoot makes a data root in a temporary folder with a few small files:
// two real pymatgen files and one real page and defects_doc file copied from
// the data root if MATTOOLS_DATA is set, else made-up ones.
func tinyRoot(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	put := func(rel string, b []byte) {
		p := filepath.Join(dir, "src", filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put(CodeDir+"/a.py", []byte("import os\n\n@dec\ndef f(x):\n    return x\n\n\nclass C:\n    pass\nX = 1\n"))
	put(CodeDir+"/sub/empty.py", nil)
	put(CodeDir+"/.hidden.py", []byte("def h(): pass\n"))
	put(CodeDir+"/notes.txt", []byte("not python"))
	put(DocsHTMLDir+"/pymatgen.x.html", []byte("<!DOCTYPE html>\n<html><head><title>x &mdash; doc</title></head><body><p>Hello</p></body></html>\n"))
	put(DocsHTMLDir+"/_modules/pymatgen.y.html", []byte("<html><body>skip</body></html>"))
	put(DocsHTMLDir+"/other.html", []byte("<html><body>skip</body></html>"))
	put(DefectsDocDir+"/pymatgen_analysis_defects_core.txt", []byte("Classes representing defects.\n"))
	return dir
}

func TestTinyRoot(t *testing.T) {
	py := python(t)
	root := tinyRoot(t)
	code, docs := buildBoth(t, root, Options{Python: py})
	var got []string
	for _, c := range code.Chunks {
		got = append(got, c.ID+"|"+c.Name+"|"+c.ContentType+"|"+c.Text)
	}
	want := []string{
		"pymatgen/a.py#0|def f|functions_classes|def f(x):\n    return x",
		"pymatgen/a.py#1|class C|functions_classes|class C:\n    pass",
		"pymatgen/a.py#2||simplified_code|import os\n\n@dec\n# Code for: def f(x):\n\n\n# Code for: class C:\nX = 1",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("code chunks\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if code.Files != 2 || code.Documents != 4 {
		t.Errorf("code: %d files, %d documents; want 2 (empty.py gives an empty document, no chunk), 4", code.Files, code.Documents)
	}
	if len(docs.Chunks) != 2 || docs.Chunks[0].Source != "x — doc" || docs.Chunks[0].Text != "x — docHello" ||
		docs.Chunks[1].Source != "pymatgen.analysis.defects.core package — 2024.7.19 documentation" {
		t.Errorf("docs chunks %+v", docs.Chunks)
	}
}

func TestIDStableAndSensitive(t *testing.T) {
	py := python(t)
	root := tinyRoot(t)
	if data := os.Getenv("MATTOOLS_DATA"); data != "" {
		// A tiny subset of the real data, copied into the temporary root.
		for _, rel := range []string{CodeDir + "/dao.py", CodeDir + "/util/numba.py"} {
			b, err := os.ReadFile(filepath.Join(data, "src", rel))
			if err != nil {
				t.Fatal(err)
			}
			os.MkdirAll(filepath.Join(root, "src", filepath.Dir(rel)), 0o755)
			os.WriteFile(filepath.Join(root, "src", rel), b, 0o644)
		}
	}
	o := Options{Python: py}
	c1, d1 := buildBoth(t, root, o)
	c2, d2 := buildBoth(t, root, o)
	if c1.ID != c2.ID || d1.ID != d2.ID {
		t.Fatal("IDs differ between two builds")
	}
	// Change one byte of one input of each source.
	flip := func(rel string, from, to string) {
		p := filepath.Join(root, "src", rel)
		b, _ := os.ReadFile(p)
		nb := strings.Replace(string(b), from, to, 1)
		if nb == string(b) {
			t.Fatalf("%s holds no %q", rel, from)
		}
		os.WriteFile(p, []byte(nb), 0o644)
	}
	flip(CodeDir+"/a.py", "X = 1", "X = 2")
	flip(DocsHTMLDir+"/pymatgen.x.html", "Hello", "Hellp")
	c3, d3 := buildBoth(t, root, o)
	if c3.ID == c1.ID || d3.ID == d1.ID {
		t.Errorf("ID unchanged after a one-byte change: %s %s", c3.ID, d3.ID)
	}
}

func TestCache(t *testing.T) {
	py := python(t)
	root := tinyRoot(t)
	cache := filepath.Join(t.TempDir(), "corpus")
	var notes []string
	o := Options{Python: py, CacheDir: cache, Logf: func(f string, a ...any) { notes = append(notes, f) }}
	c1, err := BuildCode(root, o)
	if err != nil || c1.Cached {
		t.Fatal(err, c1.Cached)
	}
	files, _ := filepath.Glob(filepath.Join(cache, "code-*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("cache files %v", files)
	}
	// Reused: even without a Python, since nothing is parsed.
	o2 := o
	o2.Python = filepath.Join(t.TempDir(), "no-python")
	c2, err := BuildCode(root, o2)
	if err != nil || !c2.Cached || c2.ID != c1.ID || len(c2.Chunks) != len(c1.Chunks) || c2.Chunks[0] != c1.Chunks[0] {
		t.Fatalf("cache not reused: %v %+v", err, c2)
	}
	// Corrupt: one changed byte of a chunk text → rejected, rebuilt, rewritten.
	b, _ := os.ReadFile(files[0])
	os.WriteFile(files[0], []byte(strings.Replace(string(b), "return x", "return y", 1)), 0o644)
	c3, err := BuildCode(root, o)
	if err != nil || c3.Cached || c3.ID != c1.ID || len(notes) != 1 {
		t.Fatalf("corrupt cache: %v cached=%v notes=%q", err, c3.Cached, notes)
	}
	os.WriteFile(files[0], []byte("{not json\n"), 0o644)
	if c4, err := BuildCode(root, o); err != nil || c4.Cached || c4.ID != c1.ID || len(notes) != 2 {
		t.Fatalf("garbage cache: %v %q", err, notes)
	}
	if c5, err := BuildCode(root, o); err != nil || !c5.Cached {
		t.Fatalf("rewritten cache not used: %v", err)
	}
	// Changed input → new key, new file.
	os.WriteFile(filepath.Join(root, "src", CodeDir, "a.py"), []byte("def g():\n    pass\n"), 0o644)
	if c6, err := BuildCode(root, o); err != nil || c6.Cached || c6.ID == c1.ID {
		t.Fatalf("changed input: %v", err)
	}
	if files, _ := filepath.Glob(filepath.Join(cache, "code-*.jsonl")); len(files) != 2 {
		t.Errorf("cache files %v", files)
	}
	if tmp, _ := filepath.Glob(filepath.Join(cache, ".*")); len(tmp) != 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
	d1, err := BuildDocs(root, o)
	if err != nil {
		t.Fatal(err)
	}
	if d2, err := BuildDocs(root, o); err != nil || !d2.Cached || d2.ID != d1.ID {
		t.Fatalf("docs cache: %v", err)
	}
}

func TestErrors(t *testing.T) {
	py := python(t)
	empty := t.TempDir()
	if _, err := BuildCode(empty, Options{Python: py}); err == nil || !strings.Contains(err.Error(), filepath.Join(empty, "src", CodeDir)) {
		t.Errorf("missing code folder: %v", err)
	}
	if _, err := BuildDocs(empty, Options{}); err == nil || !strings.Contains(err.Error(), filepath.Join(empty, "src", DocsHTMLDir)) {
		t.Errorf("missing docs folder: %v", err)
	}
	root := tinyRoot(t)
	if _, err := BuildCode(root, Options{Python: "/nonexistent/python3"}); err == nil || !strings.Contains(err.Error(), "/nonexistent/python3") {
		t.Errorf("missing Python: %v", err)
	}
	// A file Python rejects stays one plain document (LangChain's fallback).
	bad := filepath.Join(root, "src", CodeDir, "bad.py")
	os.WriteFile(bad, []byte("def broken(:\n    pass\n"), 0o644)
	var notes []string
	c, err := BuildCode(root, Options{Python: py, Logf: func(f string, a ...any) { notes = append(notes, a[0].(string)) }})
	if err != nil {
		t.Fatal(err)
	}
	var got *Chunk
	for i := range c.Chunks {
		if c.Chunks[i].Source == "pymatgen/bad.py" {
			got = &c.Chunks[i]
		}
	}
	if got == nil || got.Text != "def broken(:\n    pass" || got.ContentType != "" || got.Language != "" || got.Name != "" ||
		len(notes) != 1 || notes[0] != CodeDir+"/bad.py" {
		t.Errorf("syntax error fallback: %+v %q", got, notes)
	}
	// Not UTF-8: an error naming the file.
	os.WriteFile(bad, []byte("x = '\xff'\n"), 0o644)
	if _, err := BuildCode(root, Options{Python: py}); err == nil || !strings.Contains(err.Error(), "bad.py") {
		t.Errorf("non-UTF-8: %v", err)
	}
	// A null byte: ValueError in Python 3.11, which LangChain does not catch.
	os.WriteFile(bad, []byte("x = 1\x00\n"), 0o644)
	if _, err := BuildCode(root, Options{Python: py}); err == nil || !strings.Contains(err.Error(), "bad.py") {
		t.Errorf("null byte: %v", err)
	}
	os.Remove(bad)
	// Unreadable file.
	if os.Geteuid() != 0 {
		p := filepath.Join(root, "src", CodeDir, "a.py")
		os.Chmod(p, 0)
		if _, err := BuildCode(root, Options{Python: py}); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("unreadable: %v", err)
		}
		os.Chmod(p, 0o644)
	}
}

func BenchmarkBuildCode(b *testing.B) {
	root := mattoolstest.DataRoot(b, "to build source 1")
	py := python(b)
	for b.Loop() {
		if _, err := BuildCode(root, Options{Python: py}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBuildDocs(b *testing.B) {
	root := mattoolstest.DataRoot(b, "to build source 2")
	for b.Loop() {
		if _, err := BuildDocs(root, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
