package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/datasets/corpus"
	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/llm"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/runner/retrieval"
	"github.com/mattools-leaderboard/leaderboard/runner/scoring"
	"github.com/mattools-leaderboard/leaderboard/runner/systems"
	"github.com/mattools-leaderboard/leaderboard/sandbox"
)

// loopModel drafts, in order, the functions of drafts (one per
// generation), echoes them through the format check and critiques; it
// keeps the runtime output each critic prompt showed. Asked for a draft
// beyond drafts, it returns an error (the test fails with it).
type loopModel struct {
	mu      sync.Mutex
	drafts  []string
	n       int
	critics []string
}

func (m *loopModel) CompleteWith(ctx context.Context, msgs []llm.Message, _ llm.CallOptions) (*llm.Completion, error) {
	return m.Complete(ctx, msgs)
}

func (m *loopModel) Complete(_ context.Context, msgs []llm.Message) (*llm.Completion, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	last := msgs[len(msgs)-1].Content
	var text string
	switch {
	case strings.HasPrefix(msgs[0].Content, "You are an assistant for code generation tasks"):
		if m.n >= len(m.drafts) {
			return nil, fmt.Errorf("loopModel: asked for draft %d, but the test scripted %d", m.n+1, len(m.drafts))
		}
		text = "<answer><code>```python\n" + m.drafts[m.n] + "\n```</code><name>f</name></answer>"
		m.n++
	case strings.Contains(last, "Please check if the generated code"):
		text = last[strings.LastIndex(last, "<answer>"):]
	case strings.HasPrefix(last, "You're a critical feedback agent"):
		m.critics = append(m.critics, last)
		text = "<think>t</think><feedback>it hangs</feedback><next_rag_retrieval>- a faster way</next_rag_retrieval>"
	default:
		text = last[strings.Index(last, "**Content:**\n")+len("**Content:**\n"):]
	}
	return &llm.Completion{Content: text, FinishReason: "stop", Attempts: 1}, nil
}

// TestLoopExecutionHangsThenGoesOn: the self-reflection loop's first draft
// hangs (a busy loop) in the real sandbox; the 2 s CPU-time limit kills it
// (SIGXCPU), the critic sees its empty output, and the second draft, a
// complete dict, ends the loop. The loop's executions never see the unit test
// (it would fail the dict). The wall-clock limit is only a net, generous
// enough that no execution reaches it on a loaded machine: what stops the
// hang is CPU time, which does not grow with the load, so the second draft
// is never judged by how fast the machine is.
func TestLoopExecutionHangsThenGoesOn(t *testing.T) {
	root := mattoolstest.DataRoot(t, "for the prompts")
	python := os.Getenv("MATTOOLS_SANDBOX_PYTHON")
	if python == "" {
		python = "/opt/mattools-sandbox"
	}
	sb, err := sandbox.Open(context.Background(), "auto", sandbox.Options{Slots: 1, Python: python})
	if err != nil {
		if os.Getenv("CI") == "" && errors.Is(err, sandbox.ErrUnavailable) {
			t.Skipf("no sandbox: %v", err)
		}
		t.Fatal(err)
	}
	defer sb.Close()
	dataDir, err := os.MkdirTemp("", "loop-data-") // readable by the sandbox's uid, unlike t.TempDir's parent
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dataDir)
	os.Chmod(dataDir, 0o755)
	os.MkdirAll(dataDir+"/src/tool_source_code", 0o755)
	sc := &scoring.Scorer{Sandbox: sb, Root: dataDir, Limits: sandbox.Limits{Wall: 10 * time.Minute, CPU: 2 * time.Second}}
	prompts, err := systems.ObtainPrompts(context.Background(), root, "", systems.ExtractOptions{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	c := &corpus.Corpus{Source: 1, ID: "sha256:" + strings.Repeat("2", 64), Chunks: []corpus.Chunk{{ID: "a.py#0", Source: "a.py", Text: "def a(): pass"}}}
	bm, err := retrieval.NewBM25(context.Background(), c, retrieval.BM25Options{})
	if err != nil {
		t.Fatal(err)
	}
	sys, err := systems.New(results.SystemSelfReflectionRAG, systems.Params{RetrievalSource: 1})
	if err != nil {
		t.Fatal(err)
	}
	m := &loopModel{drafts: []string{"def f():\n    while True:\n        pass", "def f():\n    return {'a': 1}"}}
	q := &datasets.Question{ID: "test_loop", Text: "Return a.", UnitTest: "raise SystemExit(1)"}
	a, err := sys.Build(context.Background(), systems.Given{Search: bm, Execute: executorOf(sc)})
	if err != nil {
		t.Fatal(err)
	}
	g, err := a.Generate(context.Background(), q, systems.Env{LLM: m, Prompts: prompts})
	if err != nil {
		t.Fatal(err)
	}
	var execs []results.TraceStage
	for _, st := range g.Trace {
		if st.Stage == "execute" {
			execs = append(execs, st)
		}
	}
	// A process's CPU time never exceeds its wall time, so the killed draft
	// ran at least its 2 s of CPU; it printed nothing, and that is what the
	// one critic prompt shows.
	if len(execs) != 2 || execs[0].StopReason != "" || execs[0].Verdict != string(results.VerdictNotRunnable) || execs[0].LatencyMS < 2000 ||
		execs[1].StopReason != "complete-dict" || g.Code != "def f():\n    return {'a': 1}" || g.Calls != 6 {
		t.Errorf("executions %+v, final code %q, %d calls", execs, g.Code, g.Calls)
	}
	if len(m.critics) != 1 || !strings.Contains(m.critics[0], "{\n  \"stdout\": \"\",\n  \"stderr\": \"\"\n}") {
		t.Errorf("critic prompts %q; want one, showing the hang's empty output", m.critics)
	}
}
