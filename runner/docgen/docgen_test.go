package docgen

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mattools-leaderboard/leaderboard/datasets/corpus"
	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/llm"
	"github.com/mattools-leaderboard/leaderboard/llm/llmtest"
)

const defects = "pymatgen/analysis/defects"

func defectsObjects(t *testing.T) []Object {
	t.Helper()
	root := mattoolstest.DataRoot(t, "to walk pymatgen/analysis/defects")
	if _, err := os.Stat(DefaultPython); err != nil {
		t.Skipf("no %s: %v", DefaultPython, err)
	}
	objs, err := Walk(root, defects, "")
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

func newClient(t *testing.T, url, model string) *llm.Client {
	t.Helper()
	c, err := llm.New(llm.Config{BaseURL: url, Model: model, MaxRetries: llm.NoRetries, Timeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// echo answers with a document naming the object of the prompt.
func echo(r llmtest.Request) llmtest.Reply {
	p := r.Prompt()
	i := strings.Index(p, "The object is the ")
	line := p[i:]
	line = line[:strings.Index(line, "\n")]
	return llmtest.Reply{Content: "**Doc**: " + line + "\n\n**Purpose**: …"}
}

func TestWalkDefects(t *testing.T) {
	objs := defectsObjects(t)
	if len(objs) != 284 {
		t.Errorf("%d objects, want 284 (ast.walk count of the published defects package)", len(objs))
	}
	byID := map[string]*Object{}
	edges := 0
	for i := range objs {
		byID[objs[i].ID] = &objs[i]
		edges += len(objs[i].Calls)
		if !strings.HasPrefix(objs[i].File, defects+"/") {
			t.Fatalf("object %s outside %s", objs[i].ID, defects)
		}
	}
	d := byID["pymatgen/analysis/defects/core.py#Defect"]
	if d == nil || d.Kind != "ClassDef" || d.Parent != "" || !strings.HasPrefix(d.Code, "class Defect(") || d.NameColumn != 6 {
		t.Fatalf("Defect = %+v", d)
	}
	m := byID["pymatgen/analysis/defects/core.py#Defect.get_charge_states"]
	if m == nil || m.Kind != "FunctionDef" || m.Parent != "Defect" || !m.HaveReturn || m.StartLine <= d.StartLine || m.EndLine > d.EndLine {
		t.Fatalf("get_charge_states = %+v", m)
	}
	// Every call edge has its reverse.
	for _, o := range objs {
		for _, c := range o.Calls {
			callee := byID[c]
			if callee == nil {
				t.Fatalf("%s calls unknown %s", o.ID, c)
			}
			found := false
			for _, b := range callee.CalledBy {
				found = found || b == o.ID
			}
			if !found {
				t.Fatalf("%s calls %s but is not among its callers", o.ID, c)
			}
		}
	}
	t.Logf("%d objects, %d call edges", len(objs), edges)
	if edges != 264 {
		t.Errorf("%d call edges, want 264", edges)
	}
}

func journalLines(t *testing.T, p string) []JournalLine {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	var ls []JournalLine
	for n := 0; sc.Scan(); n++ {
		if n == 0 {
			continue
		}
		var l JournalLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
	}
	return ls
}

func TestGenerateDefectsKillAndResume(t *testing.T) {
	objs := defectsObjects(t)
	dir := t.TempDir()
	journal, out := filepath.Join(dir, "j.jsonl"), filepath.Join(dir, "docs.json")
	const first = 100
	srv := llmtest.New(t, llmtest.Options{Responder: echo, BlockAfter: first})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		// Every worker blocked: the first answers are all journaled.
		for srv.Blocked() < 4 {
			time.Sleep(5 * time.Millisecond)
		}
		cancel()
	}()
	res, err := Generate(ctx, objs, newClient(t, srv.URL, "fake-docs"), Options{Concurrency: 4, Journal: journal, Out: out})
	if err == nil || !strings.Contains(err.Error(), "run again to resume") {
		t.Fatalf("first run: err = %v", err)
	}
	if res.Completions != first || len(journalLines(t, journal)) != first {
		t.Fatalf("first run: %d completions, %d journal lines, want %d", res.Completions, len(journalLines(t, journal)), first)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("output written by a cancelled run: %v", err)
	}
	asked := map[string]bool{}
	for _, r := range srv.Requests()[:first] {
		asked[r.Prompt()] = true
	}

	// Another model's run on this journal is refused before any request.
	other := llmtest.New(t, llmtest.Options{Responder: echo})
	if _, err := Generate(context.Background(), objs, newClient(t, other.URL, "other-model"), Options{Journal: journal}); err == nil ||
		!strings.Contains(err.Error(), `written for model "fake-docs"`) || !strings.Contains(err.Error(), `this run uses model "other-model"`) {
		t.Fatalf("other model: err = %v", err)
	}
	if n := len(other.Requests()); n != 0 {
		t.Fatalf("other model: %d requests", n)
	}

	srv2 := llmtest.New(t, llmtest.Options{Responder: echo})
	start := time.Now()
	res2, err := Generate(context.Background(), objs, newClient(t, srv2.URL, "fake-docs"), Options{Concurrency: 4, Journal: journal, Out: out})
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv2.Requests()
	if res2.Resumed != first || res2.Requested != len(objs)-first || len(reqs) != len(objs)-first {
		t.Fatalf("second run: resumed %d, requested %d, server saw %d; want %d, %d", res2.Resumed, res2.Requested, len(reqs), first, len(objs)-first)
	}
	for _, r := range reqs {
		if asked[r.Prompt()] {
			t.Fatalf("second run asked again: %.80q", r.Prompt())
		}
	}
	t.Logf("defects: %d objects, first run %d calls, second run %d calls in %s", len(objs), res.Completions, len(reqs), time.Since(start))

	docs, err := corpus.LoadLLMDocs(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != len(objs) {
		t.Fatalf("%d documents, want %d", len(docs), len(objs))
	}
	for i, d := range docs {
		o := objs[i]
		m := d.Metadata
		if m.CodeSourceFile != o.File || m.Name != o.Name || m.Type != o.Kind || m.CodeStartLine != o.StartLine || m.CodeContent != o.Code || m.ItemStatus != "doc_up_to_date" ||
			!strings.Contains(d.PageContent, `"`+o.Name+`" in the file `+o.File) {
			t.Fatalf("document %d = %+v for %s", i, d, o.ID)
		}
	}
	c := corpus.BuildLLMDocFull(docs, res2.Origin)
	if c.Source != 4 || len(c.Chunks) != len(objs) || c.Origin != "generated by fake-docs, prompt "+PromptSHA256 || c.Files != 13 {
		t.Fatalf("corpus: source %d, %d chunks, %d files, origin %q", c.Source, len(c.Chunks), c.Files, c.Origin)
	}
	// A third run has nothing to ask.
	srv3 := llmtest.New(t, llmtest.Options{Responder: echo})
	if res3, err := Generate(context.Background(), objs, newClient(t, srv3.URL, "fake-docs"), Options{Journal: journal}); err != nil || res3.Requested != 0 || len(srv3.Requests()) != 0 {
		t.Fatalf("third run: %v, %+v", err, res3)
	}
}

func TestGenerateFlagsEmptyAndHuge(t *testing.T) {
	mk := func(name string) Object {
		code := "def " + name + "():\n    return 1\n"
		return Object{ID: "pymatgen/x.py#" + name, File: "pymatgen/x.py", Kind: "FunctionDef", Name: name, Qualname: name,
			StartLine: 1, EndLine: 2, NameColumn: 4, HaveReturn: true, Code: code}
	}
	objs := []Object{mk("ok"), mk("empty"), mk("huge")}
	huge := strings.Repeat("é", 40<<10) // 80 KiB
	srv := llmtest.New(t, llmtest.Options{Responder: func(r llmtest.Request) llmtest.Reply {
		switch {
		case strings.Contains(r.Prompt(), `"empty"`):
			return llmtest.Reply{Content: " \n "}
		case strings.Contains(r.Prompt(), `"huge"`):
			return llmtest.Reply{Content: huge}
		}
		return llmtest.Reply{Content: "**ok**: fine."}
	}})
	dir := t.TempDir()
	out := filepath.Join(dir, "d.json")
	res, err := Generate(context.Background(), objs, newClient(t, srv.URL, "m"), Options{Journal: filepath.Join(dir, "j"), Out: out})
	if err != nil {
		t.Fatal(err)
	}
	if res.Empty != 1 || res.Oversize != 1 || len(res.Docs) != 2 {
		t.Fatalf("empty %d, oversize %d, docs %d", res.Empty, res.Oversize, len(res.Docs))
	}
	flags := map[string]JournalLine{}
	for _, l := range journalLines(t, filepath.Join(dir, "j")) {
		flags[l.ID] = l
	}
	if l := flags["pymatgen/x.py#empty"]; l.Flag != FlagEmpty || l.Doc != "" {
		t.Errorf("empty line = %+v", l)
	}
	if l := flags["pymatgen/x.py#huge"]; l.Flag != FlagOversize || l.AnswerBytes != len(huge) || len(l.Doc) != DefaultMaxAnswerBytes {
		t.Errorf("huge line: flag %q, %d answer bytes, %d kept", l.Flag, l.AnswerBytes, len(l.Doc))
	}
	docs, err := corpus.LoadLLMDocs(out)
	if err != nil || len(docs) != 2 || docs[0].Metadata.Name != "ok" || docs[1].Metadata.Name != "huge" {
		t.Fatalf("output: %v %d", err, len(docs))
	}
	// A torn last line (a crash mid-write) is dropped; nothing is asked again.
	jf, _ := os.OpenFile(filepath.Join(dir, "j"), os.O_APPEND|os.O_WRONLY, 0)
	jf.WriteString(`{"id":"pymatgen/x.py#o`)
	jf.Close()
	n := len(srv.Requests())
	res, err = Generate(context.Background(), objs, newClient(t, srv.URL, "m"), Options{Journal: filepath.Join(dir, "j")})
	if err != nil || res.Resumed != 3 || len(srv.Requests()) != n || len(journalLines(t, filepath.Join(dir, "j"))) != 3 {
		t.Fatalf("torn journal: %v, %+v", err, res)
	}
}

func TestPromptHash(t *testing.T) {
	if len(PromptSHA256) != 71 || !strings.Contains(PromptTemplate, "{code}") || !strings.Contains(PromptTemplate, "{callers}") {
		t.Fatalf("prompt %s", PromptSHA256)
	}
	o := Object{ID: "pymatgen/a.py#f", File: "pymatgen/a.py", Kind: "FunctionDef", Name: "f", Qualname: "C.f", Parent: "C", Code: "def f(): g()\n", Calls: []string{"pymatgen/a.py#g"}}
	g := Object{ID: "pymatgen/a.py#g", File: "pymatgen/a.py", Kind: "FunctionDef", Name: "g", Qualname: "g", CalledBy: []string{o.ID}}
	p := Prompt(o, map[string]*Object{o.ID: &o, g.ID: &g})
	for _, want := range []string{`FunctionDef "f" in the file pymatgen/a.py`, "It is defined in C.", "def f(): g()\n```", "this object calls:\n- g (FunctionDef in pymatgen/a.py)", "called by:\n- (none found)"} {
		if !strings.Contains(p, want) {
			t.Errorf("prompt lacks %q:\n%s", want, p)
		}
	}
}

// TestJournalIsLockedAndNamesItsEndpoint: a second generator on the same
// journal is refused while the first holds it, and a journal written
// against another endpoint (or answer cap) is refused.
func TestJournalIsLockedAndNamesItsEndpoint(t *testing.T) {
	p := filepath.Join(t.TempDir(), "j.jsonl")
	f, err := openJournal(p, "m", "http://127.0.0.1:1/v1", 100)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := openJournal(p, "m", "http://127.0.0.1:1/v1", 100); err == nil || !strings.Contains(err.Error(), "in use by another process") {
		t.Errorf("second open while locked: %v", err)
	}
	f.Close()
	if _, err := openJournal(p, "m", "http://127.0.0.1:2/v1", 100); err == nil || !strings.Contains(err.Error(), "refusing to mix them") {
		t.Errorf("another endpoint: %v", err)
	}
	if _, err := openJournal(p, "m", "http://127.0.0.1:1/v1", 200); err == nil || !strings.Contains(err.Error(), "refusing to mix them") {
		t.Errorf("another answer cap: %v", err)
	}
	f, err = openJournal(p, "m", "http://127.0.0.1:1/v1", 100)
	if err != nil {
		t.Fatalf("the same settings after the first closed: %v", err)
	}
	f.Close()
}
