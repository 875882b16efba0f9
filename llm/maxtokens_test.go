package llm

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/llm/llmtest"
)

// TestCallOptionsMaxTokensOverridesParamsForOneCall: CallOptions.MaxTokens
// is sent as max_tokens for that call only, over the model's
// Params.MaxTokens; the other Params ride along, and without it the
// model's Params decide (here: no max_tokens, no temperature at all).
func TestCallOptionsMaxTokensOverridesParamsForOneCall(t *testing.T) {
	srv := llmtest.New(t, llmtest.Options{Responder: func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Content: "ok"} }})
	body := func(r llmtest.Request) map[string]json.RawMessage {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(r.Body, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	ctx := context.Background()

	c, err := New(Config{BaseURL: srv.URL, Model: "m", Params: Params{Temperature: ptr(0.5), MaxTokens: ptr(64)}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CompleteWith(ctx, []Message{User("a")}, CallOptions{MaxTokens: ptr(500)}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CompleteWith(ctx, []Message{User("b")}, CallOptions{}); err != nil {
		t.Fatal(err)
	}

	bare, err := New(Config{BaseURL: srv.URL, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bare.CompleteWith(ctx, []Message{User("c")}, CallOptions{MaxTokens: ptr(500)}); err != nil {
		t.Fatal(err)
	}
	if _, err := bare.Complete(ctx, []Message{User("d")}); err != nil {
		t.Fatal(err)
	}

	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	tests := []struct {
		name        string
		maxTokens   string // raw JSON, "" = absent
		temperature string
	}{
		{"override", "500", "0.5"},
		{"model params", "64", "0.5"},
		{"override without params", "500", ""},
		{"nothing", "", ""},
	}
	for i, tt := range tests {
		m := body(reqs[i])
		if got := string(m["max_tokens"]); got != tt.maxTokens {
			t.Errorf("%s: max_tokens = %q, want %q (body %s)", tt.name, got, tt.maxTokens, reqs[i].Body)
		}
		if got := string(m["temperature"]); got != tt.temperature {
			t.Errorf("%s: temperature = %q, want %q (body %s)", tt.name, got, tt.temperature, reqs[i].Body)
		}
	}
}
