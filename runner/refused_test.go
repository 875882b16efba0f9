package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/llm"
)

// TestNothingAnsweringEndpointFailsTheRunWithOneLine: a run whose
// endpoint has nothing listening, with 8 workers asking at once, fails with
// one log line naming the base URL (no retry warnings), after at most
// llm.RefusedAttempts dials per worker (counted, not timed).
func TestNothingAnsweringEndpointFailsTheRunWithOneLine(t *testing.T) {
	const workers = 8
	root := mattoolstest.NewRoot(t).Dir
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String() + "/v1"
	ln.Close()
	abs, _ := filepath.Abs("testdata/qa20.json")
	p := mustPlan(t, fmt.Sprintf(`rounds = 1
concurrency = %d
benchmarks = ["qa-code"]
[qa_sets.qa-code]
path = %q
name = "sample-20"
[[models]]
name = "gpt-x-2025-01-01"
display_name = "GPT X"
base_url = %q
`, workers, abs, base))

	var dials atomic.Int64
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy, tr.DisableKeepAlives = nil, true
	var d net.Dialer
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		dials.Add(1)
		return d.DialContext(ctx, network, addr)
	}
	var logs bytes.Buffer
	res, err := Run(context.Background(), Options{Plan: p, DataRoot: root, PromptsCache: t.TempDir(), OutDir: t.TempDir(),
		HTTPClient: &http.Client{Transport: tr}, Log: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if !errors.Is(err, llm.ErrNothingAnswers) {
		t.Fatalf("error %v, want llm.ErrNothingAnswers", err)
	}
	want := "nothing answers at " + base + " (connection refused): is the server running?"
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error %q, want it to say %q", err, want)
	}
	if len(res) != 1 || res[0].Status != StatusFailed || res[0].Model != "GPT X" {
		t.Errorf("results %+v, want one failed run of GPT X", res)
	}
	if n := dials.Load(); n < llm.RefusedAttempts || n > workers*llm.RefusedAttempts {
		t.Errorf("%d dials, want %d to %d", n, llm.RefusedAttempts, workers*llm.RefusedAttempts)
	}
	var naming, retrying int
	for _, l := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		if strings.Contains(l, base) {
			naming++
			if !strings.Contains(l, `model="GPT X"`) || !strings.Contains(l, want) {
				t.Errorf("line naming the base URL: %s", l)
			}
		}
		if strings.Contains(l, "retrying") {
			retrying++
		}
	}
	if naming != 1 || retrying != 0 {
		t.Errorf("%d log lines name the base URL and %d are retries, want 1 and 0:\n%s", naming, retrying, logs.String())
	}
	t.Logf("%d dials by %d workers; the log:\n%s", dials.Load(), workers, logs.String())
}
