package e2e_test

// A retrieving toy system with settings, declared whole by this file alone — its title and
// description for the site, its retrieval (the plan's retrieval sources),
// its own plan section [toy_rag] decoded, defaulted and checked by itself
// — run through the whole pipeline: a plan naming it → the runner (against
// the fake OpenAI-compatible server, BM25 over a made-up retrieval source
// 2, scored by toysystem_test.go's fake scorer) → results files → the site, its title on the
// pages. It needs no sandbox and no MatTools data (a made-up data root).
// The site is built twice: in this process, and by the real build-site
// binary, which does not link this file and learns the toy from its runs
// (their extension "system").
//
// TestToyRAGSystemReexecutedSubmittedShown takes the toy the rest of the
// way with the real scorer: scored in the sandbox on four of MatTools'
// questions, re-executed by the rescore binary, made a submission by
// make-submission, re-executed again by validate-submission -reexecute and
// shown by build-site — binaries that learn the toy from its runs alone.
// It needs the sandbox and MATTOOLS_DATA.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/llm"
	"github.com/mattools-leaderboard/leaderboard/llm/llmtest"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/runner"
	"github.com/mattools-leaderboard/leaderboard/runner/plan"
	"github.com/mattools-leaderboard/leaderboard/runner/retrieval"
	"github.com/mattools-leaderboard/leaderboard/runner/scoring"
	"github.com/mattools-leaderboard/leaderboard/runner/systems"
	"github.com/mattools-leaderboard/leaderboard/sandbox"
	"github.com/mattools-leaderboard/leaderboard/site"
	"github.com/mattools-leaderboard/leaderboard/site/release"
)

// toyRAG retrieves the top documents for "structure module vacancy" and
// the question's id (each word is in one of the made-up documents) from the
// configuration's retrieval source, asks the model "<prefix><question id>"
// followed by each retrieved document's source in one call, and takes the first
// line of its answer as the function name, the rest as the code.
const toyRAG results.System = "toy-rag"

// toyRAGSettings are the plan's [toy_rag] section: the prompt's prefix
// (default "name: "; it must end in ": ") and the documents retrieved per
// question (default 1; 1–3), the toy's own top-k.
type toyRAGSettings struct {
	Prefix string `toml:"prefix"`
	TopK   int    `toml:"top_k"`
}

func init() {
	systems.Register(systems.Registration{Name: toyRAG,
		Info: &results.SystemInfo{Title: "Toy RAG", Description: "Echoes the question id after one retrieval; a test's system.",
			Board: results.BoardLLMRAG, Retrieval: results.SystemRetrieval{PlanSources: true}},
		Plan: plan.SystemSpec{Section: "toy_rag", NewSettings: func() any { return new(toyRAGSettings) },
			Check: func(c *plan.SectionChecker, settings any) {
				s := settings.(*toyRAGSettings)
				if !c.Defined("prefix") {
					s.Prefix = "name: "
				} else if !strings.HasSuffix(s.Prefix, ": ") {
					c.Add("toy_rag.prefix", "is %q; want a prefix ending in \": \"", s.Prefix)
				}
				if !c.Defined("top_k") {
					s.TopK = 1
				} else if s.TopK < 1 || s.TopK > 3 {
					c.Add("toy_rag.top_k", "is %d; want 1–3", s.TopK)
				}
			},
			Expand: func(settings any, c plan.Configuration) []plan.Configuration {
				s, _ := settings.(*toyRAGSettings)
				if s == nil { // a Plan that Parse did not make
					return []plan.Configuration{c}
				}
				c.TopK, c.Settings = s.TopK, s.Prefix
				return []plan.Configuration{c}
			}},
		Needs: systems.Needs{Retriever: true},
		New: func(p systems.Params) (systems.System, error) {
			prefix, _ := p.Settings.(string)
			if p.RetrievalSource == 0 || prefix == "" {
				return nil, fmt.Errorf("system %s: retrieval source %d, prefix %q; want a source and the plan's prefix", toyRAG, p.RetrievalSource, prefix)
			}
			return &toyRAGSystem{prefix: prefix, k: p.TopK}, nil
		}})
}

type toyRAGSystem struct {
	prefix string
	k      int
	search retrieval.Retriever // set by Build
}

func (*toyRAGSystem) Name() results.System { return toyRAG }

// Record: the toy records how it asks (system parameter prompt).
func (t *toyRAGSystem) Record(_ systems.Resources, r *results.Run) error {
	if r.SystemParams == nil {
		r.SystemParams = map[string]string{}
	}
	r.SystemParams["prompt"] = t.prefix + "<question id>"
	return nil
}

func (t *toyRAGSystem) Build(ctx context.Context, res systems.Resources) (systems.Answerer, error) {
	r, err := res.Retriever(ctx)
	if err != nil {
		return nil, err
	}
	return &toyRAGSystem{prefix: t.prefix, k: t.k, search: r}, nil
}

func (t *toyRAGSystem) Generate(ctx context.Context, q *datasets.Question, env systems.Env) (systems.Generation, error) {
	var g systems.Generation
	hits, err := t.search.Search(ctx, "structure module vacancy "+q.ID, t.k)
	if err != nil {
		return g, err
	}
	prompt := t.prefix + q.ID
	for _, h := range hits {
		g.Retrieved = append(g.Retrieved, results.RetrievedChunk{ChunkID: h.ChunkID, Source: h.Source, Score: h.Score, Rank: int32(h.Rank)})
		prompt += "\n" + h.Source
	}
	c, err := env.LLM.Complete(ctx, []llm.Message{llm.User(prompt)})
	if err != nil {
		return g, err
	}
	g.Calls, g.PromptTokens, g.CompletionTokens, g.Latency, g.Attempts = 1, c.PromptTokens, c.CompletionTokens, c.Latency, c.Attempts
	g.Response, g.FinishReason = c.Content, c.FinishReason
	name, code, ok := strings.Cut(c.Content, "\n")
	if ok {
		g.FunctionName, g.Code, g.Extracted = name, code, true
	}
	return g, nil
}

func (t *toyRAGSystem) Estimate(q *datasets.Question, _ *systems.Prompts) systems.Estimate {
	return systems.Estimate{Calls: 1, PromptBytes: len(t.prefix + q.ID), Queries: 1}
}

func TestWholeToySystemFromPlanToSite(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a site with Hugo; skipped with -short")
	}
	root := mattoolstest.NewRoot(t)
	root.AddDataFiles() // all 49 questions executable
	// Retrieval source 2, made up: two Sphinx pages and a defects note.
	root.Write("src/tool_source_code/pymatgen/docs/pymatgen.core.html", []byte("<html><head><title>pymatgen.core</title></head><body><p>Structure and Lattice: a crystal structure.</p></body></html>"))
	root.Write("src/tool_source_code/pymatgen/docs/modules.html", []byte("<html><head><title>modules</title></head><body><p>Every module of pymatgen.</p></body></html>"))
	root.Write("src/defects_doc/vacancy.txt", []byte("A vacancy is a missing atom."))
	srv := llmtest.New(t, llmtest.Options{Responder: func(r llmtest.Request) llmtest.Reply {
		first, _, _ := strings.Cut(r.Prompt(), "\n")
		id := strings.TrimPrefix(first, "ask: ")
		return llmtest.Reply{Content: "f_" + id + "\ndef f_" + id + "(): return {}", PromptTokens: 10, CompletionTokens: 4}
	}})
	base := t.TempDir()
	models := fmt.Sprintf("[[models]]\nname = \"toy-model\"\nbase_url = %q\ntimeout = \"30s\"\n", srv.URL)
	// The toy's section is its own: decoded, defaulted and checked by its
	// registration, errors naming its fields.
	for text, want := range map[string]string{
		"retrieval_sources = [2]\n[toy_rag]\nprefix = \"ask\"\n": `plan.toml: toy_rag.prefix: is "ask"; want a prefix ending in ": "`,
		"retrieval_sources = [2]\n[toy_rag]\ntop_k = 0\n":        "plan.toml: toy_rag.top_k: is 0; want 1–3",
		"retrieval_sources = [2]\n[toy_rag]\ntop_ks = [1]\n":     "plan.toml: toy_rag.top_ks: unknown key",
		"[toy_rag]\nprefix = \"ask: \"\n":                        "plan.toml: retrieval_sources: is required by the retrieving systems in systems",
	} {
		_, err := plan.Parse([]byte(fmt.Sprintf("systems = [%q]\n", toyRAG)+text+models), "plan.toml")
		if err == nil || err.Error() != want {
			t.Errorf("plan section %q: error %v; want %s", text, err, want)
		}
	}
	text := fmt.Sprintf(`systems = [%q]
retrieval_sources = [2]
rounds = 2
[toy_rag]
prefix = "ask: "
top_k = 2
`, toyRAG) + models
	p, err := plan.Parse([]byte(text), filepath.Join(base, "plan.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if cs := p.Configurations(); len(cs) != 1 || cs[0].RetrievalSource != 2 || cs[0].RetrievalMethod != "bm25" || cs[0].TopK != 2 || cs[0].Settings != "ask: " {
		t.Fatalf("configurations %+v; want one, of source 2, bm25, the toy's top-k 2 and prefix", cs)
	}
	resultsDir := filepath.Join(base, "results")
	o := runner.Options{Plan: p, DataRoot: root.Dir, OutDir: resultsDir, Scorer: toyScorer{},
		CorpusCache: filepath.Join(base, "corpus"), RetrievalCache: filepath.Join(base, "retrieval")}
	ests, err := runner.EstimatePlan(o)
	if err != nil {
		t.Fatal(err)
	}
	if len(ests) != 2 || ests[0].System != toyRAG || ests[0].Source != 2 || ests[0].Calls != 49 || ests[1].Calls != 49 {
		t.Fatalf("estimates %+v; want the toy's configuration × 2 rounds, source 2, 49 calls each", ests)
	}
	res, err := runner.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 4 || len(srv.Requests()) != 2*49 {
		t.Fatalf("%d runs from %d requests; want 4 runs (2 rounds × 2 protocols) from 98", len(res), len(srv.Requests()))
	}
	for _, r := range srv.Requests() {
		if !strings.HasPrefix(r.Prompt(), "ask: ") || strings.Count(r.Prompt(), "\n") != 2 {
			t.Errorf("prompt %q; want the plan's prefix, the id and the sources of 2 documents", r.Prompt())
			break
		}
	}
	files, err := results.ReadDir(resultsDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		r := f.Run
		// 25 even-indexed questions are correct: 81 of the 138 properties
		// (their property counts, as runner's TestScoredRunsOnePerProtocol sums them).
		// Each run describes the toy (extension "system"); the paper's
		// protocols need no description.
		if r.System != toyRAG || r.SystemParams["prompt"] != "ask: <question id>" || !r.Totals.Scored ||
			*r.Totals.QuestionsCorrect != 25 || *r.Totals.Runnable != 25 || *r.Totals.PropertiesPassed != 81 || r.Totals.Properties != 138 {
			t.Errorf("%s: system %q, params %v, totals %+v", r.RunID, r.System, r.SystemParams, r.Totals)
		}
		if ext := string(r.Extensions[results.ExtensionSystem]); ext != toyRAGRecord {
			t.Errorf("%s: extension %s = %s; want %s", r.RunID, results.ExtensionSystem, ext, toyRAGRecord)
		}
		if ext, ok := r.Extensions[results.ExtensionScoringProtocol]; ok {
			t.Errorf("%s: extension %s = %s; a protocol of the registry's own records none", r.RunID, results.ExtensionScoringProtocol, ext)
		}
		if r.RetrievalSource != 2 || r.RetrievalMethod != "bm25" || r.TopK != 2 || r.CorpusID == "" {
			t.Errorf("%s: retrieval source %d, method %q, top-k %d, corpus %q; want 2, bm25, 2 and the corpus", r.RunID, r.RetrievalSource, r.RetrievalMethod, r.TopK, r.CorpusID)
		}
	}

	bench, err := datasets.Load(root.Dir)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(base, "public")
	rep, err := site.Build(context.Background(), site.Options{ResultsDir: resultsDir, Benchmark: bench, DataHint: "hint",
		RepoRoot: repoRoot(t), OutDir: out, WorkDir: filepath.Join(base, "work"), Releases: []release.Release{}, Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Runs != 4 || len(rep.Skipped) != 0 {
		t.Errorf("site read %d runs, skipped %v; want the toy's 4", rep.Runs, rep.Skipped)
	}
	checkToyRAGPages(t, filepath.Join(out, site.PreviewPath))

	// The production path: the build-site command, which links neither
	// this file nor runner/systems, builds the same pages from the same
	// results files, learning the toy's title, description and board from
	// their extension "system".
	deps, err := exec.Command("go", "list", "-deps", "../cmd/build-site").Output()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(deps), "/runner/systems\n") {
		t.Fatal("cmd/build-site links runner/systems: this test would not show that the site learns the toy from its runs")
	}
	bin := filepath.Join(base, "bin")
	build := exec.Command("go", "build", "-o", bin+"/", "./cmd/build-site")
	build.Dir = repoRoot(t)
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	out2 := filepath.Join(base, "public-cmd")
	cmd := exec.Command(filepath.Join(bin, "build-site"), "-results", resultsDir, "-out", out2, "-work", filepath.Join(base, "work-cmd"),
		"-repo", repoRoot(t), "-commit", "toy", "-data", root.Dir, "-preview-only", "-strict")
	cmd.Dir = base // the default submissions, verified and audit folders are absent there
	b, err := cmd.CombinedOutput()
	t.Logf("$ build-site …\n%s", b)
	if err != nil {
		t.Fatalf("build-site: %v", err)
	}
	if !strings.Contains(string(b), ", 4 runs,") || strings.Contains(string(b), "skipped") {
		t.Errorf("build-site read: %s; want the toy's 4 runs, none skipped", b)
	}
	checkToyRAGPages(t, filepath.Join(out2, site.PreviewPath))
}

// toyRAGRecord is the toy's description as its runs record it (extension
// "system"; results.SystemRecord).
const toyRAGRecord = `{"name":"toy-rag","title":"Toy RAG","description":"Echoes the question id after one retrieval; a test's system.",` +
	`"board":"llm-rag","retrieval":{"plan_sources":true}}`

// checkToyRAGPages checks the toy's pages of a built preview: its
// configuration is ranked on the LLM-RAG board (its registered board; not
// on the advanced one), one row for both protocols, with its retrieval
// source: function runnable rate 25/49 = 51.02 %, task success rate 81/138
// = 58.70 % in each round (n = 2), linked to the toy's system page, which
// has its title and description.
func checkToyRAGPages(t *testing.T, preview string) {
	t.Helper()
	row := regexp.MustCompile(`(?s)<tr[^>]*data-system="` + string(toyRAG) + `"[^>]*>.*?</tr>`)
	for page, want := range map[string]int{"llm-rag": 1, "advanced": 0} {
		board, err := os.ReadFile(filepath.Join(preview, page, "index.html"))
		if err != nil {
			t.Fatal(err)
		}
		rows := row.FindAllString(string(board), -1)
		if len(rows) != want {
			t.Fatalf("%s: the %s board has %d rows of system %s, want %d", preview, page, len(rows), toyRAG, want)
		}
		for _, w := range []string{">toy-model</a>", `<span class="row-sub">source 2</span>`, "round 1: 51.02 (25/49); round 2: 51.02 (25/49)",
			"round 1: 58.70 (81/138); round 2: 58.70 (81/138)", "mattools-v1-strict"} {
			if want == 1 && !strings.Contains(rows[0], w) {
				t.Errorf("%s: toy row lacks %q: %s", preview, w, rows[0])
			}
		}
	}
	sys, err := os.ReadFile(filepath.Join(preview, "systems", string(toyRAG), "index.html"))
	if err != nil {
		t.Fatalf("the toy's system page: %v", err)
	}
	for _, w := range []string{"toy-model", "<title>Toy RAG", "Echoes the question id after one retrieval; a test&#39;s system."} {
		if !strings.Contains(string(sys), w) {
			t.Errorf("%s: the toy's system page lacks %q", preview, w)
		}
	}
}

// toyRAGAnswers are the fake model's answers to the toy, by question: four
// MatTools questions that read no data file (datasets/manifest.csv), 1 + 1
// + 2 + 1 properties. test_pchip_eval returns its expected value (correct),
// test_boltzmann wrong values (runnable, no property passed: partial),
// test_lower_envelope one of its two properties (partial, 1 passed) and
// test_get_SRH_coef raises (not runnable): under either protocol, 1 question
// correct, 3 of 4 runnable, 2 of 5 properties passed.
var toyRAGAnswers = map[string]string{
	"test_pchip_eval":     "pchip\ndef pchip():\n    return {\"pchip_interpolation_integral\": 8.227688936841835}\n",
	"test_boltzmann":      "boltzmann\ndef boltzmann():\n    return {\"Boltzmann_Filling_Distribution\": " + folderBoltzmannValues + "}\n",
	"test_lower_envelope": "envelope\ndef envelope():\n    return {\"lower_envelope\": [(4, 12), (3, 8), (-2, 1), (-5, 4)], \"transitions\": []}\n",
	"test_get_SRH_coef":   "srh\ndef srh():\n    raise ValueError(\"no capture coefficient\")\n",
}

// TestToyRAGSystemReexecutedSubmittedShown: the toy of this file, scored
// by the real sandbox scorer on four of MatTools' questions (the others
// left out: scoring.Restrict), 3 rounds under both protocols, in this
// process; then the binaries, none of which links this file: rescore
// re-executes the runs and finds every verdict of the runner's,
// make-submission makes a submission folder of them, validate-submission
// -reexecute finds them all agreeing, and build-site shows the toy, by its
// title, on the LLM-RAG board. They learn the toy from its runs (extension
// "system"). It needs the sandbox and MATTOOLS_DATA.
func TestToyRAGSystemReexecutedSubmittedShown(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the toy through the sandbox; skipped with -short")
	}
	root := mattoolstest.DataRoot(t, "to score the toy on MatTools' questions")
	python := sandboxPython(t)
	ctx := context.Background()
	sc, err := scoring.Open(ctx, "auto", root, sandbox.Options{Slots: 2, Python: python})
	if err != nil {
		if os.Getenv("CI") == "" && errors.Is(err, sandbox.ErrUnavailable) {
			t.Skipf("no sandbox (make setup as root): %v", err)
		}
		t.Fatal(err)
	}
	defer sc.Close()
	base := readableTempDir(t, "e2e-toyrag-")

	bench, err := datasets.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for id := range toyRAGAnswers {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	if err := scoring.Restrict(bench, ids); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.New(t, llmtest.Options{Responder: func(r llmtest.Request) llmtest.Reply {
		first, _, _ := strings.Cut(r.Prompt(), "\n")
		if a, ok := toyRAGAnswers[strings.TrimPrefix(first, "ask: ")]; ok {
			return llmtest.Reply{Content: a, PromptTokens: 300, CompletionTokens: 30}
		}
		return llmtest.Reply{Content: "none\ndef none():\n    return {}\n", PromptTokens: 300, CompletionTokens: 10}
	}})
	const model = "local/fake-toy-coder"
	p, err := plan.Parse([]byte(fmt.Sprintf(`systems = [%q]
retrieval_sources = [2]
rounds = 3
[toy_rag]
prefix = "ask: "
top_k = 2
[tool_usage]
scoring_protocols = ["mattools-v1", "mattools-v1-strict"]
[[models]]
name = %q
display_name = "Fake toy coder"
base_url = %q
timeout = "60s"
`, toyRAG, model, srv.URL)), filepath.Join(base, "plan.toml"))
	if err != nil {
		t.Fatal(err)
	}
	runs := filepath.Join(base, "runs")
	res, err := runner.Run(ctx, runner.Options{Plan: p, DataRoot: root, Benchmark: bench, OutDir: runs, Scorer: sc,
		PromptsCache: filepath.Join(base, "prompts"), CorpusCache: filepath.Join(base, "corpus"), RetrievalCache: filepath.Join(base, "retrieval")})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 6 || len(srv.Requests()) != 3*49 {
		t.Fatalf("%d runs from %d requests; want 6 runs (3 rounds × 2 protocols) from 3 × 49", len(res), len(srv.Requests()))
	}
	files, err := results.ReadDir(runs)
	if err != nil || len(files) != 6 {
		t.Fatalf("%d results files (%v); want 6", len(files), err)
	}
	// The runner's verdicts, by protocol, round and question.
	want := map[verdictKey]string{}
	var inputs []string
	for _, f := range files {
		r := f.Run
		if r.System != toyRAG || string(r.Extensions[results.ExtensionSystem]) != toyRAGRecord || r.RetrievalSource != 2 || r.TopK != 2 ||
			!r.Totals.Scored || r.Totals.Questions != 4 || r.Totals.Properties != 5 ||
			*r.Totals.QuestionsCorrect != 1 || *r.Totals.Runnable != 3 || *r.Totals.PropertiesPassed != 2 || len(f.Questions) != 49 {
			t.Errorf("%s: system %q, extension %s, source %d, top-k %d, totals %+v, %d rows; want the toy's, 1 of 4 questions correct, 3 runnable, 2 of 5 properties, 49 rows",
				r.RunID, r.System, r.Extensions[results.ExtensionSystem], r.RetrievalSource, r.TopK, r.Totals, len(f.Questions))
		}
		for _, q := range f.Questions {
			want[verdictKey{r.ScoringProtocol, r.Round, q.QuestionID}] = rowVerdict(q)
		}
		if r.ScoringProtocol == results.ProtocolMatToolsV1 { // a round's code, once: rescore scores it under both protocols
			inputs = append(inputs, f.Path)
		}
	}
	for q, w := range map[string]string{"test_pchip_eval": "correct runnable=true passed=1", "test_boltzmann": "partial runnable=true passed=0",
		"test_lower_envelope": "partial runnable=true passed=1", "test_get_SRH_coef": "not-runnable runnable=false passed=0",
		"test_vacancy": "data-missing"} {
		for _, p := range []string{results.ProtocolMatToolsV1, results.ProtocolMatToolsV1Strict} {
			if got := want[verdictKey{p, 2, q}]; got != w {
				t.Errorf("runner, %s round 2, %s: %q; want %q", p, q, got, w)
			}
		}
	}

	// The commands run in base: the default submissions, verified and audit folders are absent there.
	cmd := commands(t, base, root, "./cmd/rescore", "./cmd/make-submission", "./cmd/validate-submission", "./cmd/build-site")
	only := strings.Join(ids, ",")

	// rescore: the runner's verdicts, row by row.
	rescored := filepath.Join(base, "rescored")
	if _, err := cmd("rescore", append([]string{"-data", root, "-python", python, "-quiet", "-out", rescored, "-questions", only}, inputs...)...); err != nil {
		t.Fatalf("rescore: %v", err)
	}
	refiles, err := results.ReadDir(rescored)
	if err != nil || len(refiles) != 6 {
		t.Fatalf("rescore wrote %d results files (%v); want 3 rounds × 2 protocols", len(refiles), err)
	}
	compared := 0
	for _, f := range refiles {
		// The rescored run describes the toy as the runner's did (the
		// rescore binary learnt it from the input runs).
		if f.Run.System != toyRAG || string(f.Run.Extensions[results.ExtensionSystem]) != toyRAGRecord || f.Run.Provenance.Kind != results.ProvenanceRescored {
			t.Errorf("%s: system %s (extension %s), provenance %s; want a rescored run of %s, described", f.Path, f.Run.System,
				f.Run.Extensions[results.ExtensionSystem], f.Run.Provenance.Kind, toyRAG)
		}
		for _, q := range f.Questions {
			k := verdictKey{f.Run.ScoringProtocol, f.Run.Round, q.QuestionID}
			if got := rowVerdict(q); got != want[k] {
				t.Errorf("rescore, %v: %q; the runner's %q", k, got, want[k])
			}
			compared++
		}
	}
	if compared != 6*49 {
		t.Errorf("compared %d rescored verdicts; want 6 files × 49 questions", compared)
	}

	// make-submission, then validate-submission -reexecute.
	meta := filepath.Join(base, "author.toml")
	if err := os.WriteFile(meta, []byte(authorTOML), 0o644); err != nil {
		t.Fatal(err)
	}
	subs := filepath.Join(base, "submissions")
	out, err := cmd("make-submission", "-metadata", meta, "-out", subs, runs)
	if err != nil {
		t.Fatalf("make-submission: %v", err)
	}
	m := regexp.MustCompile(`wrote (\S+): submission.toml and 6 results files`).FindStringSubmatch(out)
	if m == nil || !strings.HasSuffix(m[1], "_example-lab_local-fake-toy-coder_"+string(toyRAG)) {
		t.Fatalf("make-submission printed %q; want <date>_example-lab_local-fake-toy-coder_%s written with 6 results files", out, toyRAG)
	}
	out, err = cmd("validate-submission", "-reexecute", "-quiet", "-data", root, "-python", python, "-questions", only, m[1])
	if err != nil || !strings.Contains(out, "re-executed: 12 answers (4 distinct) in the sandbox under mattools-v1 and mattools-v1-strict: 24 verdicts compared, all agree") {
		t.Errorf("validate-submission -reexecute: %v; want 12 answers, 24 verdicts compared, all agreeing", err)
	}

	// build-site, from the submission alone: the toy by its title on the LLM-RAG board.
	siteOut := filepath.Join(base, "public")
	out, err = cmd("build-site", "-results", filepath.Join(base, "no-results"), "-submissions", subs, "-out", siteOut, "-work", filepath.Join(base, "work"),
		"-repo", repoRoot(t), "-commit", "toy", "-data", root, "-preview-only", "-strict")
	if err != nil {
		t.Fatalf("build-site: %v", err)
	}
	if !strings.Contains(out, ", 6 runs,") || strings.Contains(out, "skipped") {
		t.Errorf("build-site read: %s; want the submission's 6 runs, none skipped", out)
	}
	// The toy's configuration, one row for both protocols: task success
	// rate 2/5 = 40.00 % and function runnable rate 3/4 = 75.00 % in each
	// of the 3 rounds, self-reported; on the home page with its title,
	// linked to its system page, on its registered board (LLM-RAG) and not
	// on the advanced one.
	preview := filepath.Join(siteOut, site.PreviewPath)
	row := regexp.MustCompile(`(?s)<tr[^>]*data-system="` + string(toyRAG) + `"[^>]*>.*?</tr>`)
	for page, want := range map[string][]string{
		"index.html":          {`<a href="./systems/toy-rag/">Toy RAG</a>`, `<span class="row-sub">Toy RAG · source 2</span>`},
		"llm-rag/index.html":  {`<span class="row-sub">source 2</span>`},
		"advanced/index.html": nil,
	} {
		html, err := os.ReadFile(filepath.Join(preview, page))
		if err != nil {
			t.Fatal(err)
		}
		rows := row.FindAllString(string(html), -1)
		if len(rows) != min(len(want), 1) {
			t.Errorf("%s: %d rows of system %s, want %d", page, len(rows), toyRAG, min(len(want), 1))
			continue
		}
		if want == nil {
			continue
		}
		for _, w := range append(want, ">Fake toy coder</a>", "2: official docs, BM25, top-2", "badge-self-reported",
			"round 1: 40.00 (2/5); round 2: 40.00 (2/5); round 3: 40.00 (2/5)", "round 1: 75.00 (3/4); round 2: 75.00 (3/4); round 3: 75.00 (3/4)") {
			if !strings.Contains(rows[0], w) {
				t.Errorf("%s: the toy's row lacks %q: %s", page, w, rows[0])
			}
		}
	}
	sys, err := os.ReadFile(filepath.Join(preview, "systems", string(toyRAG), "index.html"))
	if err != nil {
		t.Fatalf("the toy's system page: %v", err)
	}
	for _, w := range []string{"<h1>Toy RAG</h1>", "Echoes the question id after one retrieval; a test&#39;s system.", `<table class="matrix">`} {
		if !strings.Contains(string(sys), w) {
			t.Errorf("the toy's system page lacks %q", w)
		}
	}
}
