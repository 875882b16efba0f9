package qasynth_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/datasets/corpus"
	"github.com/mattools-leaderboard/leaderboard/datasets/qaaudit"
	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/llm"
	"github.com/mattools-leaderboard/leaderboard/llm/llmtest"
	"github.com/mattools-leaderboard/leaderboard/runner/docgen"
	"github.com/mattools-leaderboard/leaderboard/synth/qasynth"
)

func needPython(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat(docgen.DefaultPython); err != nil {
		t.Skipf("no %s (scripts/setup.sh installs it): %v", docgen.DefaultPython, err)
	}
	return docgen.DefaultPython
}

// The prompts are MatTools' texts byte for byte: on the data copy they
// equal the prompts/qa files the runner reads.
func TestLoadPromptMatchesPromptsLayout(t *testing.T) {
	py := needPython(t)
	root := mattoolstest.DataRoot(t, "to read MatTools' QA prompts")
	for set, file := range map[string]string{qasynth.SetDoc: "qa_generation_from_doc.txt", qasynth.SetCode: "qa_generation_from_code.txt"} {
		p, err := qasynth.LoadPrompt(root, set, py)
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join(root, "prompts", "qa", file))
		if err != nil {
			t.Skipf("the data root has no prompts layout: %v", err)
		}
		if p.Text != string(want) {
			t.Errorf("%s: the prompt differs from prompts/qa/%s", set, file)
		}
		for _, field := range map[string][]string{qasynth.SetDoc: {"{Document}"}, qasynth.SetCode: {"{CodeSourceFile}", "{CodeSnippet}"}}[set] {
			if !strings.Contains(p.Text, field) {
				t.Errorf("%s: no %s", set, field)
			}
		}
	}
	// The doc set's document is upstream's doc_segment.
	p, err := qasynth.LoadPrompt(root, qasynth.SetDoc, py)
	if err != nil {
		t.Fatal(err)
	}
	m, err := p.Message(corpus.LLMDoc{PageContent: "# Vacancy {x}", Metadata: corpus.LLMDocMetadata{CodeSourceFile: "pymatgen/a.py"}})
	if err != nil || !strings.Contains(m, "<document>\nCode Source File: pymatgen/a.py\n\nDocument: \n# Vacancy {x}\n</document>") {
		t.Errorf("doc message %v:\n%s", err, m)
	}
	if _, err := qasynth.LoadPrompt(t.TempDir(), qasynth.SetDoc, py); err == nil || !strings.Contains(err.Error(), qasynth.PromptFile) {
		t.Errorf("a root without the prompt file: %v", err)
	}
}

// realDocs walks real pymatgen code objects (runner/docgen, as cmd/gen-docs
// does) and keeps n functions whose name occurs once in their code (the
// def line), as documents in upstream's schema.
func realDocs(t *testing.T, root, py string, n int) []corpus.LLMDoc {
	t.Helper()
	objs, err := docgen.Walk(root, "pymatgen/analysis/defects", py)
	if err != nil {
		t.Fatal(err)
	}
	var docs []corpus.LLMDoc
	for _, o := range objs {
		if o.Kind != "FunctionDef" || strings.Count(o.Code, o.Name) != 1 || len(o.Code) > 3000 || len(o.Name) < 5 {
			continue
		}
		docs = append(docs, corpus.LLMDoc{PageContent: "**" + o.Name + "** of " + o.File + ".\n\n" + o.Code, Metadata: corpus.LLMDocMetadata{
			CodeSourceFile: o.File, Type: o.Kind, Name: o.Name, CodeStartLine: o.StartLine, CodeEndLine: o.EndLine,
			HaveReturn: o.HaveReturn, CodeContent: o.Code, NameColumn: o.NameColumn, ItemStatus: "doc_up_to_date"}})
		if len(docs) == n {
			break
		}
	}
	if len(docs) != n {
		t.Fatalf("%d documents, want %d", len(docs), n)
	}
	return docs
}

var snippet = regexp.MustCompile(`(?s)<code>\n(.*)\n</code>`)

// scripted answers the code prompt for the documents: per document up to
// three questions masking the function's name in its code, always keyed C
// (as the published sets lean to C); doc 0's third question leaks its
// answer, doc 1's third has an empty choice, doc 2's first answer has a
// question with three choices (rejected, then asked again), doc 3 never
// answers in the format (dropped after three attempts).
type scripted struct {
	docs  []corpus.LLMDoc
	mu    sync.Mutex
	calls map[int]int
}

func (s *scripted) respond(r llmtest.Request) llmtest.Reply {
	msg := r.Messages[len(r.Messages)-1].Content
	m := snippet.FindStringSubmatch(msg)
	d := -1
	for i, doc := range s.docs {
		if m != nil && m[1] == doc.Metadata.CodeContent {
			d = i
		}
	}
	if d < 0 {
		return llmtest.Reply{Content: "unknown document"}
	}
	s.mu.Lock()
	s.calls[d]++
	attempt := s.calls[d]
	s.mu.Unlock()
	name := s.docs[d].Metadata.Name
	masked := strings.Replace(s.docs[d].Metadata.CodeContent, name, "[MASK]", 1)
	item := func(n int, q string, choices ...string) string {
		var b strings.Builder
		fmt.Fprintf(&b, "<question%d>%s</question%d>\n<answer_choices%d>\n", n, q, n, n)
		for _, c := range choices {
			fmt.Fprintf(&b, "    <choice>%s</choice>\n", c)
		}
		fmt.Fprintf(&b, "</answer_choices%d>\n<correct_answer%d>C</correct_answer%d>\n\n", n, n, n)
		return b.String()
	}
	src := s.docs[d].Metadata.CodeSourceFile
	var out strings.Builder
	if d == 3 {
		return llmtest.Reply{Content: "Here are some questions: 1. What does it do?"}
	}
	if d == 2 && attempt == 1 {
		out.WriteString(item(1, "In "+src+", what replaces [MASK]?\n"+masked, "A. run", "B. build", "C. "+name))
		return llmtest.Reply{Content: out.String()}
	}
	out.WriteString(item(1, "In "+src+", what replaces [MASK]?\n"+masked, "A. get_"+name, "B. "+name+"_all", "C. "+name, "D. _"+name))
	out.WriteString(item(2, "Which module of Pymatgen defines the function whose name is masked in\n"+masked, "A. pymatgen.core", "B. pymatgen.io", "C. "+strings.TrimSuffix(strings.ReplaceAll(src, "/", "."), ".py"), "D. pymatgen.util"))
	switch d {
	case 0:
		out.WriteString(item(3, "The function "+name+" is masked below; name it.\n"+masked, "A. foo_bar", "B. baz_qux", "C. "+name, "D. quux_corge"))
	case 1:
		out.WriteString(item(3, "Fill [MASK] in "+src, "A. alpha", "B. beta", "C. "+name, "D."))
	}
	return llmtest.Reply{Content: out.String()}
}

// TestSynthesizeScripted: a scripted model answers MatTools' code prompt
// for four real pymatgen code objects; the answers are parsed as upstream
// parses them (a rejected answer is asked again, a document whose three
// answers are rejected is dropped), the leaking and the malformed item are
// filtered out with their rules, the letters are rebalanced, and the
// written file is upstream's format (datasets.LoadQA reads it; it is what
// Python's json.dump writes) with nothing the QA audit flags. A second run
// resumes everything from the journal.
func TestSynthesizeScripted(t *testing.T) {
	py := needPython(t)
	root := mattoolstest.DataRoot(t, "to make questions from real pymatgen code")
	p, err := qasynth.LoadPrompt(root, qasynth.SetCode, py)
	if err != nil {
		t.Fatal(err)
	}
	docs := realDocs(t, root, py, 4)
	s := &scripted{docs: docs, calls: map[int]int{}}
	srv := llmtest.New(t, llmtest.Options{Responder: s.respond})
	c, err := llm.New(llm.Config{BaseURL: srv.URL, Model: "scripted", MaxRetries: llm.NoRetries})
	if err != nil {
		t.Fatal(err)
	}
	journal := filepath.Join(t.TempDir(), "j.jsonl")
	var progress bytes.Buffer
	res, err := qasynth.Generate(context.Background(), docs, p, c, qasynth.Options{Journal: journal, Concurrency: 2, Progress: &progress})
	if err != nil {
		t.Fatal(err)
	}
	// 1 + 1 + 2 + 3 attempts.
	if res.Requested != 7 || res.Completions != 7 || res.Finished != 4 || res.Resumed != 0 {
		t.Errorf("result %+v", res)
	}
	if !strings.Contains(progress.String(), "4/4") {
		t.Errorf("progress %q", progress.String())
	}
	// Every request is one user message: the prompt formatted with the
	// document's file and code, as upstream's CodeQuestionGenerator sends it.
	for _, r := range srv.Requests() {
		if len(r.Messages) != 1 || r.Messages[0].Role != "user" || !strings.Contains(r.Messages[0].Content, "<code_souce_file>Code Source File: pymatgen/analysis/defects/") {
			t.Errorf("request %+v", r.Messages)
		}
	}
	if r := res.Docs[2].Rejected; len(r) != 1 || !strings.Contains(r[0], "attempt 1: question 1: 3 choices, want 4") {
		t.Errorf("doc 2 rejected %q", r)
	}
	entries, rv := qasynth.Build(docs, res.Docs, qasynth.SetCode, "scripted", p)
	ids := qasynth.DocIDs(docs)
	if r := rv.Rejected[ids[3]]; len(r) != 3 || !strings.Contains(r[2], "attempt 3: no question block") {
		t.Errorf("doc 3 rejected %q", r)
	}
	dropped := map[string]string{}
	for _, d := range rv.Dropped {
		dropped[d.Document+"/"+d.QuestionID] = strings.Join(d.Rules, ",")
	}
	want := map[string]string{ids[0] + "/3": "leaked-strict", ids[1] + "/3": "empty-text"}
	if fmt.Sprint(dropped) != fmt.Sprint(want) {
		t.Errorf("dropped %v, want %v", dropped, want)
	}
	// 3 + 3 + 2 items accepted, 2 dropped; all keyed C by the model.
	if rv.Documents != 4 || rv.Accepted != 3 || rv.Items != 8 || rv.Kept != 6 || len(entries) != 3 || rv.LettersBefore != [4]int{0, 0, 6, 0} {
		t.Errorf("review %+v", rv)
	}
	for _, n := range rv.LettersAfter {
		if n < 1 || n > 2 {
			t.Errorf("letters after rebalancing %v, want 6/4 ± 1 each", rv.LettersAfter)
		}
	}
	out := filepath.Join(t.TempDir(), "generation_results_code.json")
	if err := qasynth.WriteSet(out, entries, rv); err != nil {
		t.Fatal(err)
	}
	set, err := datasets.LoadQA(out)
	if err != nil {
		t.Fatal(err)
	}
	rep := qaaudit.Audit("synth", set)
	if rep.N != 6 || rep.Malformed != 0 || rep.LeakedStrict != 0 || rep.Duplicates != 0 || rep.Letters != rv.LettersAfter {
		t.Errorf("audit of the written set %+v", rep)
	}
	// Every item keeps its correct text behind its new letter.
	for _, q := range set.Questions {
		name := q.Source[strings.LastIndex(q.Source, "/")+1:]
		if q.QuestionID == "1" && q.Choices[strings.Index("ABCD", q.CorrectAnswer)] != q.CorrectAnswer+". "+name {
			t.Errorf("%s: correct %s, choices %q", q.ID, q.CorrectAnswer, q.Choices)
		}
	}
	// Byte for byte what Python's json.dump(result, file, indent=4) writes.
	b, _ := os.ReadFile(out)
	cmd := exec.Command(py, "-I", "-c", "import json,sys; sys.stdout.write(json.dumps(json.load(open(sys.argv[1])), indent=4))", out)
	pyOut, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, pyOut) {
		t.Errorf("the file is not what json.dump writes:\n%.300s\n---\n%.300s", b, pyOut)
	}
	var review qasynth.Review
	if rb, err := os.ReadFile(qasynth.ReviewPath(out)); err != nil || json.Unmarshal(rb, &review) != nil || review.Kept != 6 || len(review.Dropped) != 2 {
		t.Errorf("review file %+v (%v)", review, err)
	}

	// Resumed: nothing is asked again.
	res2, err := qasynth.Generate(context.Background(), docs, p, c, qasynth.Options{Journal: journal})
	if err != nil {
		t.Fatal(err)
	}
	if res2.Requested != 0 || res2.Resumed != 7 || res2.Finished != 4 {
		t.Errorf("resumed %+v", res2)
	}
	if e2, _ := qasynth.Build(docs, res2.Docs, qasynth.SetCode, "scripted", p); fmt.Sprint(e2) != fmt.Sprint(entries) {
		t.Error("the resumed run builds another set")
	}
	// A journal of another model is refused.
	c2, _ := llm.New(llm.Config{BaseURL: srv.URL, Model: "other", MaxRetries: llm.NoRetries})
	if _, err := qasynth.Generate(context.Background(), docs, p, c2, qasynth.Options{Journal: journal}); err == nil || !strings.Contains(err.Error(), "refusing to mix") {
		t.Errorf("another model's journal: %v", err)
	}
}

// The dry run's answer sizes fit the real sample of each set.
func TestEstimateConstantsFitTheSample(t *testing.T) {
	dir := os.Getenv("MATTOOLS_QA_SAMPLE")
	if dir == "" {
		t.Skip("MATTOOLS_QA_SAMPLE is unset (a folder with qa_120.json and qa_doc_120.json)")
	}
	for file, want := range map[string]int{"qa_120.json": qasynth.CodeItemBytes, "qa_doc_120.json": qasynth.DocItemBytes} {
		set, err := datasets.LoadQA(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		total := 0
		for _, q := range set.Questions {
			total += len(q.Question)
			for _, c := range q.Choices {
				total += len(c)
			}
		}
		if mean := float64(total) / float64(len(set.Questions)); mean < float64(want)-0.5 || mean > float64(want)+0.5 {
			t.Errorf("%s: mean item %.2f bytes, the estimate assumes %d", file, mean, want)
		}
	}
	// TagBytes is the answer format's markup around one item.
	one := "<question1></question1>\n<answer_choices1>\n" + strings.Repeat("    <choice></choice>\n", 4) + "</answer_choices1>\n<correct_answer1>C</correct_answer1>\n\n"
	if len(one) != qasynth.TagBytes {
		t.Errorf("TagBytes %d, the format has %d", qasynth.TagBytes, len(one))
	}
}
