package content_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
	"github.com/mattools-leaderboard/leaderboard/site/content"
	"github.com/mattools-leaderboard/leaderboard/site/paperonly"
	"github.com/mattools-leaderboard/leaderboard/site/plots"
	"github.com/mattools-leaderboard/leaderboard/site/sitetest"
)

// writeAdvanced writes the preview edition of sitetest.AdvancedRuns and
// returns its content directory.
func writeAdvanced(t *testing.T) string {
	t.Helper()
	files := sitetest.AdvancedRuns()
	lb := aggregate.Build(files, aggregate.DefaultCatalog())
	dirs := content.Dirs{Content: filepath.Join(t.TempDir(), "content"), Static: filepath.Join(t.TempDir(), "static")}
	e := &content.Edition{Path: "preview", Version: "preview", Title: "advanced fixture", Leaderboard: lb, Files: files,
		Figures: plots.All(lb, paperonly.Values()), Benchmark: sitetest.Benchmark(), Paper: paperonly.Values()}
	if err := content.Write(dirs, e); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dirs.Content, "preview")
}

// pageData reads the params of a written page (JSON front matter) into v.
func pageData(t *testing.T, file string, v any) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(data, &p); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	if err := json.Unmarshal(p.Params, v); err != nil {
		t.Fatalf("%s: params: %v", file, err)
	}
}

type traceStage struct {
	Iteration        string   `json:"iteration"`
	Stage            string   `json:"stage"`
	PromptTokens     string   `json:"prompt_tokens"`
	CompletionTokens string   `json:"completion_tokens"`
	LatencyMS        string   `json:"latency_ms"`
	Retrieved        []string `json:"retrieved"`
	Verdict          string   `json:"verdict"`
	StopReason       string   `json:"stop_reason"`
}

type questionSection struct {
	Anchor   string `json:"anchor"`
	SystemID string `json:"system_id"`
	System   string `json:"system"`
	Entries  []struct {
		Round  int `json:"round"`
		Detail *struct {
			Href string `json:"href"`
		} `json:"detail"`
		Codes []struct {
			Trace *struct {
				Summary string       `json:"summary"`
				Stages  []traceStage `json:"stages"`
			} `json:"trace"`
		} `json:"codes"`
	} `json:"entries"`
}

type questionPage struct {
	Sections []questionSection `json:"sections"`
}

// codePages reads the code page of each section of the question page in
// file (questions/<id>.md): the sections with their codes, and the pages'
// files. A question page's entries hold no code and link their entry on
// the code page.
func codePages(t *testing.T, file string) ([]questionSection, []string) {
	t.Helper()
	var page questionPage
	pageData(t, file, &page)
	var out []questionSection
	var files []string
	for _, s := range page.Sections {
		code := filepath.Join(strings.TrimSuffix(file, ".md"), "code", s.Anchor+".md")
		for i, e := range s.Entries {
			if len(e.Codes) != 0 || e.Detail == nil || !strings.HasSuffix(e.Detail.Href, "/code/"+s.Anchor+"/#entry-"+strconv.Itoa(i+1)) {
				t.Errorf("%s, %s round %d: %d codes on the question page, detail %+v; want none and a link to entry-%d of its code page", file, s.System, e.Round, len(e.Codes), e.Detail, i+1)
			}
		}
		var cp struct {
			Section questionSection `json:"section"`
		}
		pageData(t, code, &cp)
		out = append(out, cp.Section)
		files = append(files, code)
	}
	return out, files
}

// TestQuestionPageCarriesStageTraces: each answer of agentic RAG and of the
// self-reflection loop carries its stage trace (1-based iterations, tokens,
// latency, chunk ids, verdicts, stop reasons) and its summary; LLM-RAG
// answers, which have none, carry no trace key at all.
func TestQuestionPageCarriesStageTraces(t *testing.T) {
	dir := writeAdvanced(t)
	qid := sitetest.Questions[0].ID // 10 properties: agentic RAG and feedback correct, as published partial
	sections, files := codePages(t, filepath.Join(dir, "questions", qid+".md"))
	bySystem := map[string][]string{} // system label → trace summaries, one per round
	for _, s := range sections {
		for _, e := range s.Entries {
			if len(e.Codes) != 1 {
				t.Fatalf("%s round %d: %d codes, want 1", s.System, e.Round, len(e.Codes))
			}
			tr := e.Codes[0].Trace
			if s.SystemID == string(results.SystemLLMRAG) {
				if tr != nil {
					t.Errorf("%s round %d: a trace %+v on an answer without one", s.System, e.Round, tr)
				}
				continue
			}
			if tr == nil {
				t.Fatalf("%s round %d: no trace", s.System, e.Round)
			}
			bySystem[s.System] = append(bySystem[s.System], tr.Summary)
			last := tr.Stages[len(tr.Stages)-1]
			switch s.SystemID {
			case string(results.SystemAgenticRAG):
				var names []string
				for _, st := range tr.Stages {
					names = append(names, st.Stage)
					if st.Iteration != "1" {
						t.Errorf("agentic stage %s: iteration %q, want 1 (0-based 0)", st.Stage, st.Iteration)
					}
				}
				if !slices.Equal(names, sitetest.AdvancedAgenticTrace) {
					t.Errorf("agentic stages %v, want %v", names, sitetest.AdvancedAgenticTrace)
				}
				// keywords: 1000 + 0 prompt, 50 completion tokens, 100 ms; retrieve (third): 2 ids.
				if st := tr.Stages[0]; st.PromptTokens != "1000" || st.CompletionTokens != "50" || st.LatencyMS != "100" || st.Retrieved != nil {
					t.Errorf("keywords stage %+v", st)
				}
				if st := tr.Stages[2]; !slices.Equal(st.Retrieved, []string{qid + "#5", qid + "#6"}) {
					t.Errorf("retrieve stage ids %v", st.Retrieved)
				}
			case string(results.SystemSelfReflectionRAG):
				if tr.Stages[0].Stage != "retrieve" || !slices.Equal(tr.Stages[0].Retrieved, []string{qid + "#1", qid + "#2"}) ||
					tr.Stages[3].Verdict != string(results.VerdictNotRunnable) || tr.Stages[3].StopReason != "" {
					t.Errorf("self-reflection first iteration %+v", tr.Stages[:4])
				}
				if last.Stage != "execute" || last.Iteration != "2" || last.StopReason == "" || last.Verdict == "" {
					t.Errorf("self-reflection last stage %+v", last)
				}
			}
		}
	}
	want := map[string]string{
		"Agentic RAG": "Stage trace: 7 stages, 1 iteration",
		"Self-reflection LLM-doc RAG (as published variant)": "Stage trace: 9 stages, 2 iterations",
		"Self-reflection LLM-doc RAG (feedback variant)":     "Stage trace: 9 stages, 2 iterations",
	}
	for sys, summary := range want {
		if got := bySystem[sys]; len(got) != 3 || got[0] != summary {
			t.Errorf("%s: trace summaries %q, want 3 × %q", sys, got, summary)
		}
	}
	if len(bySystem) != len(want) {
		t.Errorf("sections with traces: %v", bySystem)
	}
	// An answer without a trace costs the page nothing: no "trace" key.
	n := 0
	for _, f := range files {
		raw, _ := os.ReadFile(f)
		n += strings.Count(string(raw), `"trace":`)
	}
	if traced := 3 * 3; n != traced {
		t.Errorf("code pages have %d trace keys, want %d (3 traced configurations × 3 rounds)", n, traced)
	}
}

type rankedRow struct {
	Rank      string `json:"rank"`
	Model     string `json:"model"`
	System    string `json:"system"`
	SystemID  string `json:"system_id"`
	SourceN   int    `json:"source_n"`
	Reference bool   `json:"reference"`
}

type boardPage struct {
	Intro  string `json:"intro"`
	Ranked []struct {
		References string      `json:"references"`
		Rows       []rankedRow `json:"rows"`
	} `json:"ranked"`
}

// TestAdvancedBoardShowsReferenceRows: the advanced board's ranked table
// has GPT-4o's LLM-RAG source-4 row, labelled as a reference and unranked,
// beside its advanced systems, says so in words, and has no row of GPT-3.5
// (LLM-RAG only); the LLM-RAG board keeps both as ordinary rows; the
// configuration page of the reference links the advanced board; the
// self-reflection variants are told apart on their configuration pages.
func TestAdvancedBoardShowsReferenceRows(t *testing.T) {
	dir := writeAdvanced(t)
	var adv boardPage
	pageData(t, filepath.Join(dir, "advanced.md"), &adv)
	if len(adv.Ranked) != 1 {
		t.Fatalf("%d ranked tables on the advanced board, want 1", len(adv.Ranked))
	}
	var got []rankedRow
	for _, r := range adv.Ranked[0].Rows {
		got = append(got, rankedRow{Rank: r.Rank, Model: r.Model, System: r.System, SystemID: r.SystemID, SourceN: r.SourceN, Reference: r.Reference})
	}
	want := []rankedRow{
		{"1", "GPT-4o", "Self-reflection LLM-doc RAG (feedback variant)", "self-reflection-rag", 4, false},
		{"2", "GPT-4o", "Agentic RAG", "agentic-rag", 4, false},
		{"", "GPT-4o", "LLM-RAG, source 4 (reference)", "llm-rag", 4, true},
		{"3", "GPT-4o", "Self-reflection LLM-doc RAG (as published variant)", "self-reflection-rag", 4, false},
	}
	if !slices.Equal(got, want) {
		t.Errorf("advanced rows:\n%+v\nwant:\n%+v", got, want)
	}
	if refs := adv.Ranked[0].References; !strings.Contains(refs, "GPT-4o") || strings.Contains(refs, "GPT-3.5") {
		t.Errorf("references text %q: want GPT-4o named, GPT-3.5 not", refs)
	}
	for _, w := range []string{"LLM-RAG, source 4 (reference)", "retrieves the top 5 chunks for the question text once", "reranks", "critic"} {
		if !strings.Contains(adv.Intro, w) {
			t.Errorf("advanced intro lacks %q: %s", w, adv.Intro)
		}
	}

	var llm boardPage
	pageData(t, filepath.Join(dir, "llm-rag.md"), &llm)
	n := 0
	for _, tb := range llm.Ranked {
		for _, r := range tb.Rows {
			if r.Reference || r.Rank == "" || strings.Contains(r.System, "reference") {
				t.Errorf("LLM-RAG board row %+v", r)
			}
			n++
		}
	}
	if n != 3 {
		t.Errorf("LLM-RAG board has %d rows, want 3 (GPT-3.5 source 4, GPT-4o sources 4 and 1)", n)
	}

	// One configuration page per configuration; the reference's links the advanced board.
	entries, err := os.ReadDir(filepath.Join(dir, "configurations"))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 7 {
		t.Errorf("%d configuration pages, want 7", len(entries))
	}
	titles := map[string]bool{}
	referenced := 0
	for _, e := range entries {
		var p struct {
			Config struct {
				Model, System, Protocol string
				Source                  string `json:"source"`
			} `json:"config"`
			ReferenceIn []struct{ Text, Href string } `json:"reference_in"`
		}
		pageData(t, filepath.Join(dir, "configurations", e.Name()), &p)
		titles[p.Config.System] = true
		if len(p.ReferenceIn) > 0 {
			referenced++
			if p.Config.System != "LLM-RAG" || p.Config.Protocol != results.ProtocolMatToolsV1 || !strings.HasPrefix(p.Config.Source, "4:") ||
				p.ReferenceIn[0].Href != "advanced/" {
				t.Errorf("%s: reference_in %+v for %+v", e.Name(), p.ReferenceIn, p.Config)
			}
		}
	}
	if referenced != 1 {
		t.Errorf("%d configuration pages say they are a reference row, want 1", referenced)
	}
	for _, l := range []string{"Self-reflection LLM-doc RAG (as published variant)", "Self-reflection LLM-doc RAG (feedback variant)"} {
		if !titles[l] {
			t.Errorf("no configuration page of system %q (have %v)", l, titles)
		}
	}
}
