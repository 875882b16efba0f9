package replay

// Tests of the replay server on a small hand-made batch; the
// replay of MatTools' real batches through the runner is tested in
// runner/replay_test.go.

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/llm"
)

// writeBatch writes a two-request batch for model m whose answers name the round.
func writeBatch(t *testing.T, dir, m, round string) {
	t.Helper()
	os.MkdirAll(dir, 0o755)
	req := ""
	resp := ""
	for i, q := range []string{"What is 1+1?", "Name a metal."} {
		id := "task_" + string(rune('1'+i))
		b, _ := json.Marshal(map[string]any{"custom_id": id, "method": "POST", "url": "/v1/chat/completions",
			"body": map[string]any{"model": m, "messages": []map[string]string{{"role": "user", "content": q}}, "temperature": 0.7}})
		req += string(b) + "\n"
		content := "round " + round + " answer to " + q
		b, _ = json.Marshal(map[string]any{"id": "batch_req_" + id, "custom_id": id, "response": map[string]any{"status_code": 200,
			"body": map[string]any{"id": "chatcmpl-" + id, "object": "chat.completion", "model": m,
				"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": content}}},
				"usage":   map[string]any{"prompt_tokens": 11 + i, "completion_tokens": 7 + i, "total_tokens": 18 + 2*i}}}, "error": nil})
		resp = string(b) + "\n" + resp // responses in another order than the requests
	}
	os.WriteFile(filepath.Join(dir, RequestsFile), []byte(req), 0o644)
	os.WriteFile(filepath.Join(dir, ResponsesFile), []byte(resp), 0o644)
}

func newTestServer(t *testing.T) (*httptest.Server, *Server, string) {
	t.Helper()
	root := t.TempDir()
	for _, r := range []string{"1", "2"} {
		writeBatch(t, filepath.Join(root, PureAgentDir, "round"+r, "gpt-x"), "gpt-x", r)
	}
	batches, err := LoadRecorded(root, []int{1, 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewServer(1, batches...)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s)
	t.Cleanup(hs.Close)
	return hs, s, root
}

func complete(t *testing.T, baseURL, model, prompt string, temp float64) (*llm.Completion, error) {
	t.Helper()
	c, err := llm.New(llm.Config{BaseURL: baseURL, Model: model, Params: llm.Params{Temperature: &temp}, MaxRetries: llm.NoRetries})
	if err != nil {
		t.Fatal(err)
	}
	return c.Complete(context.Background(), []llm.Message{llm.User(prompt)})
}

func TestReplayAnswersFromTheSelectedRound(t *testing.T) {
	hs, s, _ := newTestServer(t)
	for _, tt := range []struct{ base, want string }{
		{hs.URL + "/v1", "round 1 answer to Name a metal."}, // default round
		{hs.URL + "/round2/v1", "round 2 answer to Name a metal."},
		{hs.URL + "/round1/v1", "round 1 answer to Name a metal."},
	} {
		c, err := complete(t, tt.base, "gpt-x", "Name a metal.", 0.7)
		if err != nil {
			t.Fatal(err)
		}
		// usage comes from the recording: task_2 has 12 prompt and 8 completion tokens.
		if c.Content != tt.want || c.PromptTokens != 12 || c.CompletionTokens != 8 {
			t.Errorf("%s: %+v, want %q with 12/8 tokens", tt.base, c, tt.want)
		}
	}
	if got := s.Served(); got["1/gpt-x/task_2"] != 2 || got["2/gpt-x/task_2"] != 1 || len(got) != 2 {
		t.Errorf("served %v", got)
	}
}

func TestReplayRoundHeader(t *testing.T) {
	hs, _, _ := newTestServer(t)
	req, _ := http.NewRequest("POST", hs.URL+"/v1/chat/completions",
		strings.NewReader(`{"model":"gpt-x","messages":[{"role":"user","content":"What is 1+1?"}],"temperature":0.7}`))
	req.Header.Set("X-Replay-Round", "2")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.Contains(string(body), "round 2 answer to What is 1+1?") || resp.Header.Get("X-Replay-Custom-Id") != "task_1" {
		t.Errorf("%d %s", resp.StatusCode, body)
	}
}

func TestReplayRejectsUnknownRequestsWithClearErrors(t *testing.T) {
	hs, _, _ := newTestServer(t)
	tests := []struct {
		name, base, model, prompt string
		temp                      float64
		status                    int
		want                      string
	}{
		{"other prompt", hs.URL + "/v1", "gpt-x", "What is 2+2?", 0.7, 404, `no recorded request of model "gpt-x" in round 1 has these 1 message(s)`},
		{"other model", hs.URL + "/v1", "gpt-y", "What is 1+1?", 0.7, 404, `no recordings of model "gpt-y" in round 1 (recorded models: [gpt-x])`},
		{"other round", hs.URL + "/round7/v1", "gpt-x", "What is 1+1?", 0.7, 404, "no recordings for round 7 (loaded rounds: [1 2])"},
		{"other temperature", hs.URL + "/v1", "gpt-x", "What is 1+1?", 0, 400, "recorded with temperature=0.7, but this request has temperature=0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := complete(t, tt.base, tt.model, tt.prompt, tt.temp)
			var e *llm.Error
			if !errors.As(err, &e) || e.Status != tt.status || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want HTTP %d mentioning %q", err, tt.status, tt.want)
			}
		})
	}
	resp, _ := http.Post(hs.URL+"/round2/v1/chat/completions", "application/json",
		strings.NewReader(`{"model":"gpt-x","messages":[{"role":"user","content":"unknown"}],"temperature":0.7}`))
	body, _ := io.ReadAll(resp.Body)
	var nb struct {
		Error struct{ Message, Code, Type string }
	}
	if resp.StatusCode != 404 || json.Unmarshal(body, &nb) != nil || nb.Error.Code != "replay_no_match" || nb.Error.Type != "invalid_request_error" {
		t.Errorf("unknown request: %d %s, want a 404 OpenAI error body with code replay_no_match", resp.StatusCode, body)
	}
	resp, _ = http.Get(hs.URL + "/v2/embeddings")
	body, _ = io.ReadAll(resp.Body)
	var eb struct {
		Error struct{ Message, Code string }
	}
	if resp.StatusCode != 404 || json.Unmarshal(body, &eb) != nil || eb.Error.Code != "replay_unknown_path" {
		t.Errorf("unknown path: %d %s", resp.StatusCode, body)
	}
}

func TestReplayListsModels(t *testing.T) {
	hs, _, _ := newTestServer(t)
	resp, err := http.Get(hs.URL + "/round2/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(body), `"id":"gpt-x"`) {
		t.Errorf("models: %s", body)
	}
}

func TestLoadBatchErrorsNameFileAndLine(t *testing.T) {
	dir := t.TempDir()
	writeBatch(t, dir, "gpt-x", "1")
	p := filepath.Join(dir, ResponsesFile)
	data, _ := os.ReadFile(p)
	lines := strings.SplitAfter(string(data), "\n")
	os.WriteFile(p, []byte(lines[0]), 0o644) // drop one response
	if _, err := LoadBatch(dir, 1); err == nil || !strings.Contains(err.Error(), "has no response") {
		t.Errorf("missing response: %v", err)
	}
	os.WriteFile(p, []byte(lines[0]+lines[0]+lines[1]), 0o644)
	if _, err := LoadBatch(dir, 1); err == nil || !strings.Contains(err.Error(), p+":2: custom_id \"task_2\" answered twice") {
		t.Errorf("duplicate response: %v", err)
	}
	if _, err := LoadRecorded(t.TempDir(), []int{1}, []string{"gpt-x"}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing recording: %v", err)
	}
}
