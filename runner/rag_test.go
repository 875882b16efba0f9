package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/datasets/corpus"
	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/llm/llmtest"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/runner/plan"
	"github.com/mattools-leaderboard/leaderboard/runner/scoring"
	"github.com/mattools-leaderboard/leaderboard/runner/systems"
)

func ragPlan(t *testing.T, url string) *plan.Plan {
	t.Helper()
	p, err := plan.Parse([]byte(fmt.Sprintf(`rounds = 1
systems = ["llm-rag"]
retrieval_sources = [2]
[retrieval]
methods = ["embedding"]
[retrieval.embedding]
model = "fake-embedding"
base_url = %q
batch_size = 100
[[models]]
name = "fake"
base_url = %q
max_retries = 0
`, url, url)), "rag.toml")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestDenseRetrievalFailureLeavesNothingPartial: an embeddings endpoint
// that answers fewer vectors than inputs while the corpus (source 2) is embedded fails
// the run with an error naming the batch; the results folder gets no
// results file and the cache no embeddings file, only the finished batches
// (verified on reuse). Run again against a healthy endpoint, the runner
// resumes after them (fewer requests than batches) and writes the run,
// whose rows record the chunks retrieved.
func TestDenseRetrievalFailureLeavesNothingPartial(t *testing.T) {
	root := mattoolstest.DataRoot(t, "to build the docs corpus")
	bench, err := datasets.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if err := scoring.Restrict(bench, nil); err != nil { // ask every question, execute none
		t.Fatal(err)
	}
	answer := func(r llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Content: "<answer><code>```python\ndef f(): return {}\n```</code><name>f</name></answer>"}
	}
	out, cache := t.TempDir(), t.TempDir()
	opts := func(url string) Options {
		return Options{Plan: ragPlan(t, url), DataRoot: root, Benchmark: bench, OutDir: out, Unscored: true,
			PromptsCache: t.TempDir(), CorpusCache: filepath.Join(cache, "corpus"), RetrievalCache: filepath.Join(cache, "retrieval")}
	}
	seq := []llmtest.Fault{llmtest.FaultNone, llmtest.FaultNone, llmtest.FaultNone, llmtest.FaultShortList}
	bad := llmtest.New(t, llmtest.Options{Responder: answer, FaultSequence: seq})
	res, err := Run(context.Background(), opts(bad.URL))
	if err == nil || len(res) != 1 || res[0].Status != StatusFailed || !strings.Contains(res[0].Err.Error(), "batch 4 of ") {
		t.Fatalf("against a short list of vectors: %v, %+v; want the run failed naming batch 4", err, res)
	}
	if files, _ := filepath.Glob(filepath.Join(out, "*"+results.Extension)); len(files) > 0 {
		t.Errorf("results files after a failed run: %v", files)
	}
	if js, _ := filepath.Glob(filepath.Join(out, JournalDir, "*")); len(js) > 0 {
		t.Errorf("journals after a run that failed before its first question: %v", js)
	}
	var final []string
	filepath.WalkDir(cache, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".parquet") && !strings.Contains(p, ".parts") {
			final = append(final, p)
		}
		return err
	})
	if len(final) > 0 {
		t.Errorf("an embeddings file after a failed embedding: %v", final)
	}

	good := llmtest.New(t, llmtest.Options{Responder: answer})
	res, err = Run(context.Background(), opts(good.URL))
	if err != nil || len(res) != 1 || res[0].Status != StatusWritten {
		t.Fatalf("against a healthy endpoint: %v, %+v", err, res)
	}
	var batches, queries int
	for _, r := range good.Requests() {
		if r.Endpoint == "embeddings" {
			if len(r.Inputs) > 1 {
				batches++
			} else {
				queries++
			}
		}
	}
	f, err := results.Read(res[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, q := range f.Questions {
		if len(q.Retrieved) != 5 {
			t.Errorf("%s: %d chunks retrieved", q.QuestionID, len(q.Retrieved))
		}
	}
	total = (3473 + 99) / 100
	if batches == 0 || batches >= total-2 || queries != len(bench.Questions) {
		t.Errorf("resumed embedding sent %d corpus batches (of %d; 3 were done) and %d query embeddings (want %d)", batches, total, queries, len(bench.Questions))
	}
	if r := f.Run; r.RetrievalMethod != "embedding" || r.EmbeddingModel != "fake-embedding" || r.TopK != 5 || !strings.HasPrefix(r.CorpusID, "sha256:") ||
		r.SystemParams["embedding_endpoint"] != good.URL {
		t.Errorf("run records method %q, model %q, top-k %d, corpus %q, params %v", r.RetrievalMethod, r.EmbeddingModel, r.TopK, r.CorpusID, r.SystemParams)
	}
}

// TestEmbeddingKeyIsReadAndRequired: the embeddings endpoint's api_key_env
// is one of the plan's key variables (read, then unset by the command),
// and a dense run without it fails before any request.
func TestEmbeddingKeyIsReadAndRequired(t *testing.T) {
	p, err := plan.Parse([]byte(`systems = ["llm-rag"]
retrieval_sources = [2]
[retrieval]
methods = ["embedding"]
[retrieval.embedding]
model = "e"
base_url = "http://127.0.0.1:9/v1"
api_key_env = "EMB_KEY"
[[models]]
name = "m"
base_url = "http://127.0.0.1:9/v1"
api_key_env = "MODEL_KEY"
`), "k.toml")
	if err != nil {
		t.Fatal(err)
	}
	vars := KeyVariables(p)
	if len(vars) != 2 || vars[1] != (KeyVariable{"EMB_KEY", "retrieval.embedding"}) {
		t.Errorf("key variables %v", vars)
	}
	keys, err := ReadAPIKeys(p, func(k string) string { return map[string]string{"MODEL_KEY": "m"}[k] })
	if err == nil || !strings.Contains(err.Error(), "retrieval.embedding: environment variable EMB_KEY (its api_key_env) is not set") || keys["MODEL_KEY"] != "m" {
		t.Errorf("keys %v, err %v", keys, err)
	}
	p.Retrieval.Methods = []string{plan.MethodBM25}
	if vars := KeyVariables(p); len(vars) != 1 {
		t.Errorf("BM25 plan: key variables %v, want the model's only", vars)
	}
}

// TestDryRunOfSource3MakesNoRequestAndFindsTheRealRuns: a dry run of a
// source-3 plan (semantic chunking through the embeddings endpoint) sends
// nothing and counts the chunking's embeddings; after a real run cached the
// chunks, a dry run uses them and so finds that run done.
func TestDryRunOfSource3MakesNoRequestAndFindsTheRealRuns(t *testing.T) {
	root := mattoolstest.DataRoot(t, "to load the benchmark questions")
	bench, err := datasets.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if err := scoring.Restrict(bench, nil); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	docs := filepath.Join(dir, "docs.json")
	var entries []corpus.LLMDoc
	for i, name := range []string{"Vacancy", "Interstitial", "Substitution"} {
		entries = append(entries, corpus.LLMDoc{PageContent: fmt.Sprintf("# %s\n\n%s is a point defect. It lives in pymatgen.analysis.defects.core. "+
			"Create it from a structure and a site! Its charge states are guessed. Does it have a name? Yes.", name, name),
			Metadata: corpus.LLMDocMetadata{CodeSourceFile: "pymatgen/analysis/defects/core.py", Type: "ClassDef", Name: name,
				CodeStartLine: 10 * (i + 1), CodeEndLine: 10*(i+1) + 5, CodeContent: "class " + name + ":\n    pass\n", ItemStatus: "doc_up_to_date"}})
	}
	if err := corpus.WriteLLMDocs(docs, entries); err != nil {
		t.Fatal(err)
	}
	answer := func(r llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Content: "<answer><code>```python\ndef f(): return {}\n```</code><name>f</name></answer>"}
	}
	srv := llmtest.New(t, llmtest.Options{Responder: answer})
	p, err := plan.Parse([]byte(fmt.Sprintf(`rounds = 1
systems = ["llm-rag"]
retrieval_sources = [3]
[retrieval]
methods = ["bm25"]
llm_docs = %q
[retrieval.embedding]
model = "fake-embedding"
base_url = %q
[[models]]
name = "fake"
base_url = %q
max_retries = 0
`, docs, srv.URL, srv.URL)), "s3.toml")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	o := Options{Plan: p, DataRoot: root, Benchmark: bench, OutDir: out, Unscored: true, PromptsCache: filepath.Join(dir, "prompts"),
		CorpusCache: filepath.Join(dir, "corpus"), RetrievalCache: filepath.Join(dir, "retrieval")}
	ests, err := EstimatePlan(o)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(srv.Requests()); n != 0 || len(ests) != 1 || ests[0].EmbeddingCalls == 0 || ests[0].Done != 0 {
		t.Fatalf("dry run before any run: %d requests, estimates %+v; want none sent and the chunking's embeddings counted", n, ests)
	}
	if res, err := Run(context.Background(), o); err != nil || res[0].Status != StatusWritten {
		t.Fatalf("run: %v %+v", err, res)
	}
	before := len(srv.Requests())
	ests, err = EstimatePlan(o)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(srv.Requests()) - before; n != 0 || ests[0].Done != len(bench.Questions) || ests[0].Calls != 0 {
		t.Errorf("dry run after the run: %d requests, done %d of %d, %d calls to make; want the real run found", n, ests[0].Done, len(bench.Questions), ests[0].Calls)
	}
	f, err := results.Read(filepath.Join(out, ests[0].RunID+results.Extension))
	if err != nil {
		t.Fatal(err)
	}
	var origin string
	json.Unmarshal(f.Run.Extensions["corpus_origin"], &origin)
	if !strings.Contains(origin, "semantic chunks (95th percentile, buffer 1) by fake-embedding") {
		t.Errorf("corpus origin %q", origin)
	}
}

// TestSelfReflectionNeedsTheSandbox: the self-reflection loop executes its
// drafts, so an unscored run of it (no sandbox) is refused before any
// request; the plan's default configuration of it is the systems' default
// variant with MatTools' loop bound.
func TestSelfReflectionNeedsTheSandbox(t *testing.T) {
	root := mattoolstest.DataRoot(t, "to load the benchmark")
	srv := llmtest.New(t, llmtest.Options{})
	p, err := plan.Parse([]byte(fmt.Sprintf("systems = [\"self-reflection-rag\"]\nretrieval_sources = [2]\n[[models]]\nname = \"m\"\nbase_url = %q\n", srv.URL)), "sr.toml")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), Options{Plan: p, DataRoot: root, OutDir: t.TempDir(), Unscored: true, PromptsCache: t.TempDir(),
		CorpusCache: t.TempDir(), RetrievalCache: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "cannot run without scoring") || len(srv.Requests()) != 0 {
		t.Errorf("err = %v after %d requests", err, len(srv.Requests()))
	}
	if cs := p.Configurations(); len(cs) != 1 || cs[0].Variant != systems.VariantAsPublished || cs[0].MaxIterations != systems.DefaultMaxIterations {
		t.Errorf("configurations %+v; want one, of the as-published variant with MatTools' 5 iterations", cs)
	}
}
