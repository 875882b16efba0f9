package systems

// Tests of the prompt extraction from an upstream checkout.

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestExtractedPromptsEqualPublished extracts every prompt text from the
// six upstream Python files of the data root and compares it, byte for
// byte, with the data root's prompts/ folder, file by file, in both
// directions (no text missing, none extra).
func TestExtractedPromptsEqualPublished(t *testing.T) {
	root := dataRoot(t)
	published := filepath.Join(root, PromptsDir)
	if _, err := os.Stat(published); err != nil {
		t.Skipf("%s: no published prompts folder to compare the extraction with (an upstream checkout)", published)
	}
	ex, err := ExtractPrompts(context.Background(), root, ExtractOptions{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if ex.Cached || len(ex.Sources) != 6 {
		t.Errorf("first extraction: cached %v, %d sources; want a fresh extraction of 6 upstream files", ex.Cached, len(ex.Sources))
	}
	var want []string
	err = filepath.WalkDir(published, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(published, p)
		want = append(want, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, u := range UpstreamTexts {
		got = append(got, u.Out)
	}
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("extracted texts:\n%s\npublished prompts folder:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, rel := range want {
		w, err := os.ReadFile(filepath.Join(published, rel))
		if err != nil {
			t.Fatal(err)
		}
		g, err := os.ReadFile(filepath.Join(ex.Dir, rel))
		if err != nil {
			t.Errorf("%s: not extracted: %v", rel, err)
			continue
		}
		if string(g) != string(w) {
			t.Errorf("%s: extracted %d bytes differ from the published %d bytes:\n got %q\nwant %q", rel, len(g), len(w), g, w)
		}
	}
}

// fakeUpstream writes six made-up Python files at the upstream paths of
// UpstreamTexts: each text is "text of <out>" written as the upstream
// files write them (module constants, implicit concatenation, f-strings
// in methods, two assignments to one name). It returns the root and the
// texts ObtainPrompts must find.
func fakeUpstream(t *testing.T) (string, map[string]string) {
	t.Helper()
	root := t.TempDir()
	want := map[string]string{}
	srcs := map[string]*strings.Builder{}
	methods := map[string]map[string][]UpstreamText{} // file → method → texts
	for _, u := range UpstreamTexts {
		if srcs[u.File] == nil {
			srcs[u.File] = &strings.Builder{}
			srcs[u.File].WriteString("import os\n\n")
		}
		if u.Scope == "" {
			want[u.Out] = "text of " + u.Out + "\n{placeholder}"
			srcs[u.File].WriteString(u.Name + " = (\n    \"text of " + u.Out + "\\n\"\n    \"{placeholder}\"\n)\n")
			continue
		}
		if methods[u.File] == nil {
			methods[u.File] = map[string][]UpstreamText{}
		}
		methods[u.File][u.Scope] = append(methods[u.File][u.Scope], u)
		want[u.Out] = "text of " + u.Out + " {query}"
	}
	for file, ms := range methods {
		cls := ""
		var scopes []string
		for s := range ms {
			scopes = append(scopes, s)
		}
		sort.Strings(scopes)
		for _, s := range scopes {
			c, m, _ := strings.Cut(s, ".")
			if c != cls {
				srcs[file].WriteString("class " + c + ":\n")
				cls = c
			}
			srcs[file].WriteString("    def " + m + "(self, query):\n")
			for _, u := range ms[s] {
				for k := 0; k < u.Occurrence; k++ {
					srcs[file].WriteString("        " + u.Name + " = \"an earlier assignment\"\n")
				}
				srcs[file].WriteString("        " + u.Name + " = f\"text of " + u.Out + " {query}\"\n")
			}
			srcs[file].WriteString("        return None\n")
		}
	}
	for file, b := range srcs {
		p := filepath.Join(root, filepath.FromSlash(file))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root, want
}

func TestObtainPromptsFromUpstreamSources(t *testing.T) {
	root, want := fakeUpstream(t)
	cache := t.TempDir()
	o := ExtractOptions{CacheDir: cache}
	ex, err := ExtractPrompts(context.Background(), root, o)
	if err != nil {
		t.Fatal(err)
	}
	for out, w := range want {
		g, err := os.ReadFile(filepath.Join(ex.Dir, out))
		if err != nil || string(g) != w {
			t.Errorf("%s = %q (%v), want %q", out, g, err, w)
		}
	}
	if len(want) != 24 {
		t.Errorf("%d texts, want the 24 of the prompts layout", len(want))
	}
	// The second extraction of the same inputs reads the cache.
	again, err := ExtractPrompts(context.Background(), root, ExtractOptions{CacheDir: cache, Python: []string{"no-such-python-here"}})
	if err != nil || !again.Cached || again.Dir != ex.Dir {
		t.Errorf("second extraction: %+v, %v; want the cached %s without running Python", again, err, ex.Dir)
	}
	entries, _ := os.ReadDir(cache)
	if len(entries) != 1 {
		t.Errorf("cache holds %d entries, want 1 (no temporary folder left)", len(entries))
	}

	// ObtainPrompts (no prompts/ folder) records the upstream files of the
	// two texts it loads.
	p, err := ObtainPrompts(context.Background(), root, "", o)
	if err != nil {
		t.Fatal(err)
	}
	if p.SingleLLMAnswerFormat != want[PromptSingleLLMAnswerFormat] || p.QAAnswer != want[PromptQAAnswer] || p.Dir != ex.Dir {
		t.Errorf("ObtainPrompts = %+v", p)
	}
	if len(p.Files) != 2 || p.Files[0].Path != upSingle || p.Files[1].Path != upQA || len(p.Files[0].SHA256) != 64 || p.Files[0].SHA256 != ex.Sources[len(ex.Sources)-1].SHA256 {
		t.Errorf("provenance files = %+v; want %s and %s with their SHA-256 (sources %+v)", p.Files, upSingle, upQA, ex.Sources)
	}

	// A changed upstream file is a new extraction.
	mtr := filepath.Join(root, filepath.FromSlash(upMTR))
	src, _ := os.ReadFile(mtr)
	os.WriteFile(mtr, []byte(strings.Replace(string(src), "text of self_reflection_rag/system.txt", "changed", 1)), 0o644)
	ex2, err := ExtractPrompts(context.Background(), root, o)
	if err != nil || ex2.Cached || ex2.Dir == ex.Dir {
		t.Fatalf("after a change: %+v, %v; want a fresh extraction in a new folder", ex2, err)
	}
	if g, _ := os.ReadFile(filepath.Join(ex2.Dir, "self_reflection_rag/system.txt")); string(g) != "changed\n{placeholder}" {
		t.Errorf("changed text = %q", g)
	}
}

func TestExtractPromptsErrors(t *testing.T) {
	for _, c := range []struct {
		name, file string
		edit       func(src string) string // "" removes the file
		want       string
	}{
		{"not a literal", upRAG, func(src string) string {
			return strings.Replace(src, "USER_PROMPT_DOC = (", "USER_PROMPT_DOC = str(", 1)
		},
			upRAG + ": USER_PROMPT_DOC: line "},
		{"assigned twice", upRAG, func(src string) string { return src + "USER_PROMPT = os.environ['X']\n" },
			upRAG + ": USER_PROMPT: assigned 2 times at module level"},
		{"missing method", upAgentic2, func(src string) string { return strings.Replace(src, "def nerquery", "def other", 1) },
			upAgentic2 + ": TextAnalysisTool.nerquery: instruction: no method TextAnalysisTool.nerquery"},
		{"missing variable", upQA, func(src string) string { return strings.Replace(src, "question_test_prompt =", "renamed =", 1) },
			upQA + ": question_test_prompt: 0 assignment(s)"},
		{"missing file", upMTR, nil, filepath.FromSlash(upMTR) + ": no such file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root, _ := fakeUpstream(t)
			p := filepath.Join(root, filepath.FromSlash(c.file))
			if c.edit == nil {
				os.Remove(p)
			} else {
				src, _ := os.ReadFile(p)
				os.WriteFile(p, []byte(c.edit(string(src))), 0o644)
			}
			cache := t.TempDir()
			_, err := ObtainPrompts(context.Background(), root, "", ExtractOptions{CacheDir: cache})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v; want it to contain %q", err, c.want)
			}
			if entries, _ := os.ReadDir(cache); len(entries) != 0 {
				t.Errorf("a failed extraction left %d entries in the cache", len(entries))
			}
		})
	}
}
