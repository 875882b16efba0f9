package corpus

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/internal/pystr"
)

func python(t testing.TB) string {
	t.Helper()
	if _, err := os.Stat(DefaultPython); err != nil {
		t.Skipf("no sandbox Python %s: %v", DefaultPython, err)
	}
	return DefaultPython
}

func buildBoth(t *testing.T, root string, o Options) (*Corpus, *Corpus) {
	t.Helper()
	code, err := BuildCode(root, o)
	if err != nil {
		t.Fatal(err)
	}
	docs, err := BuildDocs(root, o)
	if err != nil {
		t.Fatal(err)
	}
	return code, docs
}

// checkInvariants: every chunk 1..1000 characters, stripped, ids unique.
func checkInvariants(t *testing.T, c *Corpus) {
	t.Helper()
	ids := map[string]bool{}
	for _, ch := range c.Chunks {
		if n := pystr.Len(ch.Text); n == 0 || n > ChunkSize {
			t.Errorf("%s: %d characters", ch.ID, n)
		}
		if pystr.Strip(ch.Text) != ch.Text {
			t.Errorf("%s: not stripped", ch.ID)
		}
		if ids[ch.ID] {
			t.Errorf("duplicate id %s", ch.ID)
		}
		ids[ch.ID] = true
	}
	if c.ID != ComputeID(c.Chunks) || !strings.HasPrefix(c.ID, "sha256:") || len(c.ID) != 71 {
		t.Errorf("bad corpus id %q", c.ID)
	}
}

func TestRealData(t *testing.T) {
	root := mattoolstest.DataRoot(t, "to build the retrieval corpora")
	python(t)
	code, docs := buildBoth(t, root, Options{})
	code2, docs2 := buildBoth(t, root, Options{})
	if code.ID != code2.ID || docs.ID != docs2.ID {
		t.Errorf("not deterministic: %s/%s, %s/%s", code.ID, code2.ID, docs.ID, docs2.ID)
	}
	for _, c := range []*Corpus{code, docs} {
		checkInvariants(t, c)
		t.Logf("source %d: %d files, %d documents, %d chunks, %s", c.Source, c.Files, c.Documents, len(c.Chunks), c.ID)
	}
	// Counts measured against the LangChain reference (TestFidelity).
	if code.Files != CodeFiles || code.Documents != 1685 || len(code.Chunks) != 10327 {
		t.Errorf("code: %d files, %d documents, %d chunks; want 301, 1685, 10327", code.Files, code.Documents, len(code.Chunks))
	}
	if docs.Files != DocsHTMLFiles+DefectsDocFiles || docs.Documents != 57 || len(docs.Chunks) != 3473 {
		t.Errorf("docs: %d files, %d documents, %d chunks; want 57, 57, 3473", docs.Files, docs.Documents, len(docs.Chunks))
	}

	// Source 1: pymatgen/dao.py, read here.
	b, err := os.ReadFile(filepath.Join(root, "src", CodeDir, "dao.py"))
	if err != nil {
		t.Fatal(err)
	}
	var dao []Chunk
	for _, ch := range code.Chunks {
		if ch.Source == "pymatgen/dao.py" {
			dao = append(dao, ch)
		}
	}
	if len(dao) == 0 {
		t.Fatal("no chunk of pymatgen/dao.py")
	}
	for _, ch := range dao {
		if ch.ContentType == "functions_classes" && !strings.Contains(string(b), ch.Text) {
			t.Errorf("%s is not a piece of dao.py: %q", ch.ID, ch.Text)
		}
		if ch.Path != CodeDir+"/dao.py" || ch.Language != "python" {
			t.Errorf("%s: path %q language %q", ch.ID, ch.Path, ch.Language)
		}
	}
	last := dao[len(dao)-1]
	if last.ContentType != "simplified_code" || last.Name != "" {
		t.Errorf("last dao.py chunk: %+v", last)
	}
	// Every class line of dao.py appears as "# Code for: " in the simplified code.
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "class ") || strings.HasPrefix(line, "def ") {
			found := false
			for _, ch := range dao {
				if ch.ContentType == "simplified_code" && strings.Contains(ch.Text, "# Code for: "+line) {
					found = true
				}
			}
			if !found {
				t.Errorf("no %q in dao.py's simplified code", "# Code for: "+line)
			}
		}
	}
	// The first chunk of structure.py's Structure class starts at its class line.
	for _, ch := range code.Chunks {
		if ch.Source == "pymatgen/core/structure.py" && ch.Name == "class Structure" {
			if !strings.HasPrefix(ch.Text, "class Structure(") {
				t.Errorf("%s starts %q", ch.ID, ch.Text[:40])
			}
			break
		}
	}

	// Source 2: a defects_doc file of at most 1000 characters is one chunk
	// holding the stripped file; a longer one is several pieces of it.
	txts, _ := filepath.Glob(filepath.Join(root, "src", DefectsDocDir, "*.txt"))
	if len(txts) != DefectsDocFiles {
		t.Fatalf("%d defects_doc files", len(txts))
	}
	byPath := map[string][]Chunk{}
	for _, ch := range docs.Chunks {
		byPath[ch.Path] = append(byPath[ch.Path], ch)
	}
	for _, p := range txts {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel := DefectsDocDir + "/" + filepath.Base(p)
		cs := byPath[rel]
		if whole := pystr.Strip(string(b)); pystr.Len(whole) <= ChunkSize {
			if len(cs) != 1 || cs[0].Text != whole || cs[0].ID != rel+"#0" {
				t.Errorf("%s: %d chunks %+v", rel, len(cs), cs)
			}
		} else {
			if len(cs) < 2 {
				t.Errorf("%s: %d chunks", rel, len(cs))
			}
			for _, c := range cs {
				if !strings.Contains(whole, c.Text) {
					t.Errorf("%s: %q is not in the file", c.ID, c.Text)
				}
			}
		}
	}
	if cs := byPath[DefectsDocDir+"/api_overview.txt"]; len(cs) == 1 && cs[0].Source != "api overview — 2024.7.19 documentation" {
		t.Errorf("api_overview title %q", cs[0].Source)
	}
	if cs := byPath[DefectsDocDir+"/pymatgen_analysis_defects_ccd.txt"]; len(cs) == 1 && cs[0].Source != "pymatgen.analysis.defects.ccd package — 2024.7.19 documentation" {
		t.Errorf("ccd title %q", cs[0].Source)
	}
	// An HTML page: its title is in the file, its chunks follow the text.
	page := DocsHTMLDir + "/pymatgen.alchemy.html"
	cs := byPath[page]
	if len(cs) == 0 || cs[0].Source != "pymatgen.alchemy package — pymatgen 2024.6.10 documentation" {
		t.Fatalf("%s: %d chunks", page, len(cs))
	}
	hb, _ := os.ReadFile(filepath.Join(root, "src", page))
	if !strings.Contains(string(hb), "<title>pymatgen.alchemy package &mdash; pymatgen 2024.6.10 documentation</title>") {
		t.Error("title not in the page")
	}
	if !strings.HasPrefix(cs[0].Text, "pymatgen.alchemy package — pymatgen 2024.6.10 documentation") {
		t.Errorf("first chunk starts %q", cs[0].Text[:60])
	}
}

func TestHTMLText(t *testing.T) {
	for _, c := range []struct{ in, text, title string }{
		// Expected values produced by BeautifulSoup(in, features="lxml") (bs4 4.15, lxml 6.1.3).
		{"<!DOCTYPE html>\n<html>\n<head>\n  <meta charset='utf-8' />\n\n  <title>T</title>\n  <link rel=x />\n <script>x</script>\n</head>\n\n<body> \n<p>a</p>\n</body>\n</html>\n", "\n\n\nT\n\n\n\n\na\n\n\n", "T"},
		{"<html><body><dd><p><dl><dt>x</dt></dl>\n</p>\n</dd></body></html>", "x\n", ""},
		{"<html><body><p>a</p>\n<p>b</p> \n<ul>\n<li>x\n<li>y</ul>\n</body>\n</html>\n\n", "a\nb\n\nx\ny\n\n\n", ""},
		{"<html><head><title>a &amp; b</title></head><body><p>x<![CDATA[c]]>y<!-- c -->z<?pi x?>w</p></body></html>", "a & bxyzw", "a & b"},
		{"<html><body><pre>  \n  </pre><style>p{}</style></body></html>", "  \n  ", ""},
	} {
		text, title := HTMLText(c.in)
		if text != c.text || title != c.title {
			t.Errorf("HTMLText(%q) = %q, %q; want %q, %q", c.in, text, title, c.text, c.title)
		}
	}
}

func TestSplitter(t *testing.T) {
	sp := splitter{DefaultSeparators, 10, 3}
	// Values from RecursiveCharacterTextSplitter(chunk_size=10, chunk_overlap=3).
	got := sp.SplitText("aaa bbb ccc ddd\n\neee fff ggggggggggggg h")
	want := []string{"aaa bbb", "ccc ddd", "eee fff", "ggggggggg", "ggggggg", "h"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := pystr.SplitLines("a\r\nb\x0cc\n\nd\n"); strings.Join(got, "|") != "a|b|c||d" {
		t.Errorf("pystr.SplitLines: %q", got)
	}
}

// TestCacheKeyFollowsTheBuilderSources: the cache key hashes the builder's
// own sources, so a cache written by an earlier builder (whose chunks may
// differ) is never reused.
func TestCacheKeyFollowsTheBuilderSources(t *testing.T) {
	files := []inputFile{{rel: "a.py", data: []byte("x = 1\n")}}
	k := cacheKey(1, files)
	if len(builderHash) != 16 {
		t.Fatalf("builder hash %q", builderHash)
	}
	saved := builderHash
	builderHash = "0000000000000000"
	defer func() { builderHash = saved }()
	if cacheKey(1, files) == k {
		t.Error("the cache key does not change with the builder's sources")
	}
}
