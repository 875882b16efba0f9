package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/llm/llmtest"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/runner/graphrag/graphragtest"
	"github.com/mattools-leaderboard/leaderboard/runner/plan"
)

func graphPlan(t *testing.T, chat, emb string) *plan.Plan {
	t.Helper()
	p, err := plan.Parse([]byte(fmt.Sprintf(`rounds = 1
systems = ["graph-rag"]
[graph_rag]
corpus = "pymatgen/analysis/defects"
[retrieval.embedding]
model = "fake-embedding"
base_url = %q
api_key_env = "GRAPH_TEST_EMB_KEY"
[[models]]
name = "fake"
base_url = %q
api_key_env = "GRAPH_TEST_CHAT_KEY"
max_retries = 0
temperature = 0.3
`, emb, chat)), "graph.toml")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestGraphRAGRunRecordsAndKeys (found by review): graph-rag
// reads the embeddings endpoint's own key and sends it on every embeddings
// request (and the chat key on chat requests, with no temperature although
// the model has one); the runs validate and record the index (extension
// graph_index, with the build's calls); an index of another embeddings
// endpoint is another folder, built anew, never reused.
func TestGraphRAGRunRecordsAndKeys(t *testing.T) {
	root := mattoolstest.DataRoot(t, "for the pymatgen source")
	lightrag := os.Getenv("LIGHTRAG_DATA")
	if lightrag == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("LIGHTRAG_DATA is not set, and CI is")
		}
		t.Skip("LIGHTRAG_DATA is not set: set it to LightRAG's prompt texts (docs/graphrag.md)")
	}
	chat := llmtest.New(t, llmtest.Options{Responder: graphragtest.Responder})
	emb := llmtest.New(t, llmtest.Options{Responder: graphragtest.Responder})
	p := graphPlan(t, chat.URL, emb.URL)
	keys, err := ReadAPIKeys(p, func(name string) string {
		return map[string]string{"GRAPH_TEST_EMB_KEY": "emb-secret", "GRAPH_TEST_CHAT_KEY": "chat-secret"}[name]
	})
	if err != nil {
		t.Fatal(err)
	}
	cache, out := t.TempDir(), t.TempDir()
	opts := Options{Plan: p, DataRoot: root, OutDir: out, Unscored: true, LightRAGDir: lightrag, GraphCache: cache,
		PromptsCache: t.TempDir(), APIKeys: keys}
	if _, err := Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	for _, r := range emb.Requests() {
		if r.Header.Get("Authorization") != "Bearer emb-secret" {
			t.Fatalf("embeddings request with Authorization %q", r.Header.Get("Authorization"))
		}
	}
	for _, r := range chat.Requests() {
		if r.Header.Get("Authorization") != "Bearer chat-secret" || strings.Contains(string(r.Body), `"temperature"`) {
			t.Fatalf("chat request with Authorization %q, body %.200s", r.Header.Get("Authorization"), r.Body)
		}
	}
	if len(emb.Requests()) == 0 || graphragtest.CountKinds(chat.Requests())["extract"] == 0 {
		t.Fatalf("requests: %d embeddings, chat %v", len(emb.Requests()), graphragtest.CountKinds(chat.Requests()))
	}
	files, err := results.ReadDir(out)
	if err != nil || len(files) != 1 {
		t.Fatalf("%d results files, %v", len(files), err)
	}
	var rec struct {
		Counts        struct{ Chunks, Entities int }
		BuildLLMCalls map[string]int `json:"build_llm_calls"`
		Endpoint      string         `json:"embedding_endpoint"`
	}
	if err := json.Unmarshal(files[0].Run.Extensions["graph_index"], &rec); err != nil || rec.Counts.Chunks != 69 || rec.BuildLLMCalls["extract"] != 69 ||
		rec.Endpoint != emb.URL {
		t.Errorf("graph_index %s (%v)", files[0].Run.Extensions["graph_index"], err)
	}
	if g := files[0].Run.Generation; g.Temperature != nil {
		t.Errorf("generation records temperature %v; none was sent", *g.Temperature)
	}

	// Another embeddings endpoint: another index folder.
	emb2 := llmtest.New(t, llmtest.Options{Responder: graphragtest.Responder, EmbeddingDims: 16})
	opts.Plan, opts.OutDir = graphPlan(t, chat.URL, emb2.URL), t.TempDir()
	if _, err := Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	dirs, _ := filepath.Glob(filepath.Join(cache, "*", "manifest.json"))
	if len(dirs) != 2 || graphragtest.CountKinds(chat.Requests())["extract"] != 2*69 {
		t.Errorf("index folders %v, extraction calls %d: want a second index for the second endpoint", dirs, graphragtest.CountKinds(chat.Requests())["extract"])
	}
}

// TestShardedGraphRAGMergeKeepsTheGraphIndex: a graph-rag plan
// run as 2 shards and merged equals the unsharded run, its run record's
// extension graph_index included (the record of the index shard 0 built:
// the 69 chunks of pymatgen/analysis/defects, 69 extraction calls); a
// shard that used another index is refused.
func TestShardedGraphRAGMergeKeepsTheGraphIndex(t *testing.T) {
	root := mattoolstest.DataRoot(t, "for the pymatgen source")
	lightrag := os.Getenv("LIGHTRAG_DATA")
	if lightrag == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("LIGHTRAG_DATA is not set, and CI is")
		}
		t.Skip("LIGHTRAG_DATA is not set: set it to LightRAG's prompt texts (docs/graphrag.md)")
	}
	ctx := context.Background()
	chat := llmtest.New(t, llmtest.Options{Responder: graphragtest.Responder})
	emb := llmtest.New(t, llmtest.Options{Responder: graphragtest.Responder})
	p := graphPlan(t, chat.URL, emb.URL)
	prompts := t.TempDir()
	keys := map[string]string{"GRAPH_TEST_EMB_KEY": "emb-secret", "GRAPH_TEST_CHAT_KEY": "chat-secret"}
	opts := func(out, cache string) Options {
		return Options{Plan: p, DataRoot: root, OutDir: out, Unscored: true, LightRAGDir: lightrag, GraphCache: cache,
			PromptsCache: prompts, PlanSHA256: "plan-sha", APIKeys: keys}
	}
	full := t.TempDir()
	if _, err := Run(ctx, opts(full, t.TempDir())); err != nil {
		t.Fatal(err)
	}
	// Shard 0 builds its index in a cache of its own, as the unsharded run
	// did; shard 1 reuses it (the same index: build_reused differs only).
	shardCache := t.TempDir()
	dirs := []string{t.TempDir(), t.TempDir()}
	for i, d := range dirs {
		o := opts(d, shardCache)
		o.Shard = Shard{Index: i, Count: 2}
		if _, err := Run(ctx, o); err != nil {
			t.Fatalf("shard %d: %v", i, err)
		}
	}
	merged := t.TempDir()
	if _, err := Merge(ctx, opts(merged, t.TempDir()), dirs); err != nil {
		t.Fatal(err)
	}
	names := parquetNames(t, full)
	if got := parquetNames(t, merged); len(names) != 1 || strings.Join(got, " ") != names[0] {
		t.Fatalf("merged %v, unsharded %v", got, names)
	}
	f := readRun(t, filepath.Join(merged, names[0]))
	var rec struct {
		Counts        struct{ Chunks int }
		BuildLLMCalls map[string]int `json:"build_llm_calls"`
	}
	if err := json.Unmarshal(f.Run.Extensions["graph_index"], &rec); err != nil || rec.Counts.Chunks != 69 || rec.BuildLLMCalls["extract"] != 69 {
		t.Errorf("merged graph_index %s (%v); want 69 chunks, 69 extraction calls", f.Run.Extensions["graph_index"], err)
	}
	// built_at is when the index was built: a timing, like the run's own times.
	comparable := func(dir string) string {
		path := filepath.Join(dir, names[0])
		g := readRun(t, path)
		var m map[string]any
		if err := json.Unmarshal(g.Run.Extensions["graph_index"], &m); err != nil {
			t.Fatalf("%s: graph_index: %v", path, err)
		}
		delete(m, "built_at")
		g.Run.Extensions["graph_index"], _ = json.Marshal(m)
		tmp := filepath.Join(t.TempDir(), names[0])
		if err := results.Write(tmp, g); err != nil {
			t.Fatal(err)
		}
		return comparableFile(t, tmp)
	}
	if d := firstDiff(comparable(full), comparable(merged)); d != "" {
		t.Errorf("merged run differs from the unsharded one at %s", d)
	}

	// Shard 1's journal edited to name another corpus: refused.
	other := t.TempDir()
	journals, _ := filepath.Glob(filepath.Join(dirs[1], JournalDir, "*.jsonl"))
	for _, j := range journals {
		data, err := os.ReadFile(j)
		if err != nil {
			t.Fatal(err)
		}
		edited := strings.Replace(string(data), `"documents_sha256":"`, `"documents_sha256":"0`, 1)
		if edited == string(data) {
			t.Fatalf("%s: no documents_sha256 in the session's graph index", j)
		}
		os.MkdirAll(filepath.Join(other, JournalDir), 0o755)
		if err := os.WriteFile(filepath.Join(other, JournalDir, filepath.Base(j)), []byte(edited), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := t.TempDir()
	if _, err := Merge(ctx, opts(out, t.TempDir()), []string{dirs[0], other}); err == nil || !strings.Contains(err.Error(), "another graph index") {
		t.Errorf("merge of a shard on another index: %v; want a refusal naming another graph index", err)
	}
	if got := parquetNames(t, out); len(got) != 0 {
		t.Errorf("the refused merge wrote %v", got)
	}
}
