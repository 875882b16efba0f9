package llm

// Tests of what local OpenAI-compatible servers (llama.cpp's, vLLM, Ollama)
// do differently from OpenAI, against the fake taught each quirk
// (docs/runner.md, "Local servers").

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mattools-leaderboard/leaderboard/llm/llmtest"
)

func TestPerTokenEmbeddingsAreAnErrorNamingThePoolingSetting(t *testing.T) {
	for _, format := range []string{"float", "base64"} {
		t.Run(format, func(t *testing.T) {
			srv := llmtest.New(t, llmtest.Options{EmbeddingDims: 8, PerTokenEmbeddings: true})
			_, err := embedClient(t, srv, Config{EmbeddingFormat: format}).Embed(context.Background(), "emb", []string{"two words", "and three words"})
			var e *Error
			if !errors.As(err, &e) || e.Attempts != 1 || len(srv.Requests()) != 1 {
				t.Fatalf("err = %v after %d requests; want an *Error after 1 attempt, not retried", err, len(srv.Requests()))
			}
			if !errors.Is(err, ErrInvalidEmbeddings) {
				t.Errorf("err = %v does not wrap ErrInvalidEmbeddings", err)
			}
			want := []string{"one vector per token", "--kv_overrides", "pooling_type=int:1", "--pooling mean"}
			if format == "base64" {
				want = []string{"encoding_format base64", `"float"`}
			} else if !errors.Is(err, ErrPerTokenEmbeddings) {
				t.Errorf("err = %v does not wrap ErrPerTokenEmbeddings", err)
			}
			for _, w := range want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not name %q", err, w)
				}
			}
		})
	}
}

func TestTruncatedEmbeddingInputsAreDetectedFromTheTokenCount(t *testing.T) {
	long := strings.Repeat("lattice parameter ", 20) // 40 words
	srv := llmtest.New(t, llmtest.Options{EmbeddingDims: 8, EmbeddingTokenLimit: 16})
	c := embedClient(t, srv, Config{})
	_, err := c.Embed(context.Background(), "emb", []string{"short input", long})
	if !errors.Is(err, ErrEmbeddingsTruncated) || !errors.Is(err, ErrInvalidEmbeddings) || len(srv.Requests()) != 1 {
		t.Fatalf("err = %v after %d requests; want ErrEmbeddingsTruncated, not retried", err, len(srv.Requests()))
	}
	for _, w := range []string{"counted 18 input tokens", "at least 42 words", "the longest: 40 words", "--n_batch"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
	// Inputs within the server's limit pass, counted as usual.
	got, err := c.Embed(context.Background(), "emb", []string{"short input", "sixteen words or fewer pass"})
	if err != nil || got.PromptTokens != 7 {
		t.Fatalf("within the limit: %+v, %v; want 7 tokens and no error", got, err)
	}
}

func TestEmbeddingsWithoutUsageAreNotCheckedForTruncation(t *testing.T) {
	body := []byte(`{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.6,0.8]}],"model":"emb"}`)
	srv := llmtest.New(t, llmtest.Options{Raw: func(llmtest.Request) (int, []byte, bool) { return 200, body, true }})
	got, err := embedClient(t, srv, Config{}).Embed(context.Background(), "emb", []string{strings.Repeat("word ", 600)})
	if err != nil || got.PromptTokens != 0 || len(got.Vectors) != 1 || got.Vectors[0][1] != 0.8 {
		t.Fatalf("got %+v, %v; want the vector, 0 (unknown) tokens, no error", got, err)
	}
}

func TestContextLengthRefusalsAreClassifiedAndNotRetried(t *testing.T) {
	t.Run("llama-cpp-python (the fake)", func(t *testing.T) {
		srv := llmtest.New(t, llmtest.Options{ContextTokens: 10, Responder: func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Content: "ok"} }})
		c, err := New(Config{BaseURL: srv.URL, Model: "m", Params: Params{MaxTokens: ptr(4)}, Sleep: (&recordSleep{}).sleep})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Complete(context.Background(), []Message{User("one two three four five six seven")})
		var e *Error
		if !errors.As(err, &e) || !errors.Is(err, ErrContextLength) || e.Attempts != 1 || e.Status != 400 || len(srv.Requests()) != 1 {
			t.Fatalf("err = %#v after %d requests; want ErrContextLength, HTTP 400, 1 attempt", err, len(srv.Requests()))
		}
		if !strings.Contains(err.Error(), "maximum context length is 10 tokens") {
			t.Errorf("error %q lost the server's message", err)
		}
		// A prompt that fits is answered.
		if comp, err := c.Complete(context.Background(), []Message{User("one two")}); err != nil || comp.Content != "ok" {
			t.Fatalf("short prompt: %+v, %v", comp, err)
		}
	})
	// Other servers' refusals (their documented or observed bodies), and
	// 400s that are not about the context.
	tests := []struct {
		name   string
		status int
		body   string
		want   bool
	}{
		{"vLLM", 400, `{"object":"error","message":"This model's maximum context length is 2048 tokens. However, you requested 4000 tokens (3900 in the messages, 100 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}`, true},
		{"vLLM newer", 400, `{"error":{"message":"The decoder prompt (length 5000) is longer than the maximum model length of 4096. Make sure that max_model_len is no smaller than the number of text tokens.","type":"BadRequestError","param":null,"code":400}}`, true},
		{"llama-server", 400, `{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":5000,"n_ctx":4096}}`, true},
		{"OpenAI", 400, `{"error":{"message":"This model's maximum context length is 8192 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`, true},
		{"other 400", 400, `{"error":{"message":"'messages' is a required property","type":"invalid_request_error"}}`, false},
		{"context words in a 500 are retried", 500, `{"error":{"message":"context window full","type":"server_error"}}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := []byte(tt.body)
			srv := llmtest.New(t, llmtest.Options{Raw: func(llmtest.Request) (int, []byte, bool) { return tt.status, body, true }})
			c, err := New(Config{BaseURL: srv.URL, Model: "m", MaxRetries: 1, Sleep: (&recordSleep{}).sleep})
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Complete(context.Background(), []Message{User("q")})
			if errors.Is(err, ErrContextLength) != tt.want {
				t.Fatalf("err = %v: ErrContextLength %v, want %v", err, !tt.want, tt.want)
			}
			want := 1 // a refusal is not retried
			if tt.status >= 500 {
				want = 2 // a 500 is, once (MaxRetries 1)
			}
			if len(srv.Requests()) != want {
				t.Errorf("%d requests, want %d", len(srv.Requests()), want)
			}
		})
	}
}

func TestMissingUsageIsUnknownNotZero(t *testing.T) {
	for _, noUsage := range []bool{true, false} {
		srv := llmtest.New(t, llmtest.Options{NoUsage: noUsage, Responder: func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Content: "three word answer"} }})
		c, err := New(Config{BaseURL: srv.URL, Model: "m"})
		if err != nil {
			t.Fatal(err)
		}
		audit := &UsageAudit{}
		comp, err := c.Complete(WithUsageAudit(context.Background(), audit), []Message{User("a b")})
		if err != nil {
			t.Fatal(err)
		}
		if noUsage && (!comp.UsageMissing || comp.PromptTokens != 0 || comp.CompletionTokens != 0 || audit.Missing() != 1) {
			t.Errorf("without usage: %+v, audit %d; want UsageMissing, 0 tokens, counted once", comp, audit.Missing())
		}
		if !noUsage && (comp.UsageMissing || comp.PromptTokens != 2 || comp.CompletionTokens != 3 || audit.Missing() != 0) {
			t.Errorf("with usage: %+v, audit %d; want 2 and 3 tokens, not missing", comp, audit.Missing())
		}
	}
	// "usage": null, and a usage object without counts, are missing too; a
	// usage of zeros is not.
	for body, missing := range map[string]bool{
		`{"choices":[{"message":{"content":"x"},"finish_reason":"stop"}],"usage":null}`:                                      true,
		`{"choices":[{"message":{"content":"x"},"finish_reason":"stop"}],"usage":{}}`:                                        true,
		`{"choices":[{"message":{"content":"x"},"finish_reason":"stop"}],"usage":{"prompt_tokens":0,"completion_tokens":0}}`: false,
	} {
		b := []byte(body)
		srv := llmtest.New(t, llmtest.Options{Raw: func(llmtest.Request) (int, []byte, bool) { return 200, b, true }})
		c, _ := New(Config{BaseURL: srv.URL, Model: "m"})
		comp, err := c.Complete(context.Background(), []Message{User("q")})
		if err != nil || comp.UsageMissing != missing {
			t.Errorf("%s: %+v, %v; want UsageMissing %v", body, comp, err, missing)
		}
	}
}

func TestJSONModeRefusalNamesThePlansFallback(t *testing.T) {
	srv := llmtest.New(t, llmtest.Options{RejectJSONMode: true, Responder: func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Content: `{"a":1}`} }})
	c, err := New(Config{BaseURL: srv.URL, Model: "m", Sleep: (&recordSleep{}).sleep})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.CompleteWith(context.Background(), []Message{User("q")}, CallOptions{JSONObject: true})
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, ErrJSONModeUnsupported) || e.Attempts != 1 || !strings.Contains(err.Error(), "json_mode = false") {
		t.Fatalf("err = %v; want ErrJSONModeUnsupported after 1 attempt naming json_mode = false", err)
	}
	// The fallback: the same call without JSON mode is answered.
	if comp, err := c.Complete(context.Background(), []Message{User("q")}); err != nil || comp.Content != `{"a":1}` {
		t.Fatalf("without JSON mode: %+v, %v", comp, err)
	}
	// A 400 naming response_format is not a JSON-mode refusal of a call
	// that sent none.
	b := []byte(`{"error":{"message":"unknown field response_format","type":"invalid_request_error"}}`)
	srv2 := llmtest.New(t, llmtest.Options{Raw: func(llmtest.Request) (int, []byte, bool) { return 400, b, true }})
	c2, _ := New(Config{BaseURL: srv2.URL, Model: "m"})
	if _, err := c2.Complete(context.Background(), []Message{User("q")}); err == nil || errors.Is(err, ErrJSONModeUnsupported) {
		t.Errorf("plain call: err = %v; want a plain 400", err)
	}
}

func TestTimeoutsOfALocalServerAreNotRetriedByDefault(t *testing.T) {
	for _, tt := range []struct {
		name     string
		retry    *bool
		requests int
		wantErr  string
	}{
		{"local default", nil, 1, "not retried (the server is local"},
		{"RetryTimeouts on", ptr(true), 3, "request timeout of 200ms"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.New(t, llmtest.Options{FaultRate: 1, Faults: []llmtest.Fault{llmtest.FaultHang}})
			c, err := New(Config{BaseURL: srv.URL, Model: "m", Timeout: 200 * time.Millisecond, MaxRetries: 2, RetryTimeouts: tt.retry, Sleep: (&recordSleep{}).sleep})
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Complete(context.Background(), []Message{User("q")})
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || len(srv.Requests()) != tt.requests {
				t.Fatalf("err = %v after %d requests; want %d requests and %q", err, len(srv.Requests()), tt.requests, tt.wantErr)
			}
		})
	}
	for u, want := range map[string]bool{
		"http://127.0.0.1:8080/v1": true, "http://localhost:11434/v1": true, "http://[::1]:8000/v1": true,
		"http://127.1.2.3/v1": true, "http://api.localhost/v1": true,
		"https://api.openai.com/v1": false, "http://10.0.0.5:8000/v1": false, "http://192.168.1.2/v1": false,
	} {
		if IsLocal(u) != want {
			t.Errorf("IsLocal(%q) = %v, want %v", u, !want, want)
		}
	}
}
