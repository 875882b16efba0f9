package main

// Tests of the replay-llm command.

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
)

func TestServesRecordedAnswersAndStops(t *testing.T) {
	root := mattoolstest.DataRoot(t, "to serve the recorded batches")
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	var stdout, stderr bytes.Buffer
	done := make(chan int)
	go func() {
		done <- run(ctx, []string{"-data", root, "-addr", "127.0.0.1:0", "-rounds", "2", "-models", "gpt-4o-2024-08-06", "-quiet"}, &stdout, &stderr, ready)
	}()
	base := <-ready
	// A request with a prompt nobody recorded gets a 404 naming the mismatch.
	resp, err := http.Post(base+"/round2/v1/chat/completions", "application/json",
		strings.NewReader(`{"model":"gpt-4o-2024-08-06","messages":[{"role":"user","content":"hello"}],"temperature":0.7}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 404 || !strings.Contains(string(body), "replay_no_match") {
		t.Errorf("unknown prompt: %d %s", resp.StatusCode, body)
	}
	resp, _ = http.Get(base + "/round2/v1/models")
	body, _ = io.ReadAll(resp.Body)
	if !strings.Contains(string(body), "gpt-4o-2024-08-06") {
		t.Errorf("models: %s", body)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "round 2: gpt-4o-2024-08-06 (49 requests") {
		t.Errorf("stdout: %s", stdout.String())
	}
}

func TestRefusesNonLoopbackAddresses(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"-data", t.TempDir(), "-addr", "0.0.0.0:8765"}, &stdout, &stderr, nil); code != 2 ||
		!strings.Contains(stderr.String(), "not a loopback address") {
		t.Errorf("exit %d, stderr %s", code, stderr.String())
	}
}
