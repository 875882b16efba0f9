package llm

// Tests of Embed: vectors, usage, both encodings, validation, retries and
// redaction, against the loopback fake.

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mattools-leaderboard/leaderboard/llm/llmtest"
)

func embedClient(t *testing.T, srv *llmtest.Server, cfg Config) *Client {
	t.Helper()
	cfg.BaseURL, cfg.Model = srv.URL, "chat-model"
	if cfg.Sleep == nil {
		cfg.Sleep = (&recordSleep{}).sleep
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestEmbedReturnsTheServersVectorsInOrderInBothEncodings(t *testing.T) {
	inputs := []string{"Structure.from_file reads a CIF", "defect formation energy", "?!"}
	for _, format := range []string{"float", "base64"} {
		t.Run(format, func(t *testing.T) {
			srv := llmtest.New(t, llmtest.Options{EmbeddingDims: 16})
			c := embedClient(t, srv, Config{EmbeddingFormat: format, Params: Params{Temperature: ptr(0.0)}})
			got, err := c.Embed(context.Background(), "emb-model", inputs)
			if err != nil {
				t.Fatal(err)
			}
			// Words: 6 + 3 + 0 = 9 prompt tokens.
			if got.PromptTokens != 9 || got.Attempts != 1 || got.Model != "emb-model" || len(got.Vectors) != 3 {
				t.Fatalf("got tokens %d attempts %d model %q, %d vectors", got.PromptTokens, got.Attempts, got.Model, len(got.Vectors))
			}
			for i, in := range inputs {
				want := llmtest.Embedding(in, 16)
				for j := range want {
					if got.Vectors[i][j] != want[j] {
						t.Fatalf("vector %d component %d = %v, want %v", i, j, got.Vectors[i][j], want[j])
					}
				}
			}
			// "?!" has no word: the unit vector e0.
			if got.Vectors[2][0] != 1 {
				t.Errorf("vector of a wordless input = %v, want e0", got.Vectors[2])
			}
			reqs := srv.Requests()
			var body map[string]any
			if err := json.Unmarshal(reqs[0].Body, &body); err != nil {
				t.Fatal(err)
			}
			if _, ok := body["temperature"]; ok || body["encoding_format"] != format || body["model"] != "emb-model" {
				t.Errorf("request body %s: want no sampling params, encoding_format %q, model emb-model", reqs[0].Body, format)
			}
			if reqs[0].Endpoint != "embeddings" || len(reqs[0].Inputs) != 3 {
				t.Errorf("recorded %+v", reqs[0])
			}
		})
	}
}

func TestEmbedWithoutInputsMakesNoRequest(t *testing.T) {
	srv := llmtest.New(t, llmtest.Options{})
	got, err := embedClient(t, srv, Config{}).Embed(context.Background(), "m", nil)
	if err != nil || len(got.Vectors) != 0 || len(srv.Requests()) != 0 {
		t.Fatalf("got %+v, %v, %d requests", got, err, len(srv.Requests()))
	}
}

func TestEmbedRejectsInvalidResponsesWithoutRetrying(t *testing.T) {
	tests := []struct {
		fault   llmtest.Fault
		format  string
		wantErr string
	}{
		{llmtest.FaultWrongDimension, "float", "vector 1 has 7 dimensions, vector 0 has 8"},
		{llmtest.FaultNaN, "base64", "vector 1 component 0 is NaN"},
		{llmtest.FaultInf, "base64", "vector 1 component 0 is +Inf"},
		{llmtest.FaultShortList, "float", "1 vectors for 2 inputs"},
		{llmtest.FaultIndexOrder, "float", "vector 0 has index 1"},
	}
	for _, tt := range tests {
		t.Run(string(tt.fault), func(t *testing.T) {
			srv := llmtest.New(t, llmtest.Options{EmbeddingDims: 8, FaultSequence: []llmtest.Fault{tt.fault}})
			_, err := embedClient(t, srv, Config{EmbeddingFormat: tt.format}).Embed(context.Background(), "m", []string{"a b", "c d"})
			var e *Error
			if !errors.As(err, &e) || !errors.Is(err, ErrInvalidEmbeddings) || e.Attempts != 1 || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want an *Error wrapping ErrInvalidEmbeddings after 1 attempt containing %q", err, tt.wantErr)
			}
			if n := len(srv.Requests()); n != 1 {
				t.Errorf("%d requests, want 1", n)
			}
		})
	}
}

func TestEmbedRetriesTransientFailures(t *testing.T) {
	tests := []struct {
		name   string
		faults []llmtest.Fault
		format string
	}{
		{"429 then OK", []llmtest.Fault{llmtest.FaultRateLimit}, "float"},
		{"500 then OK", []llmtest.Fault{llmtest.FaultServerError}, "float"},
		{"malformed then OK", []llmtest.Fault{llmtest.FaultMalformed}, "float"},
		{"bare NaN in float JSON is malformed, then OK", []llmtest.Fault{llmtest.FaultNaN}, "float"},
		{"slow past the timeout then OK", []llmtest.Fault{llmtest.FaultSlow}, "float"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.New(t, llmtest.Options{FaultSequence: tt.faults, RetryAfter: "7", SlowDelay: time.Minute}) // the slow answer never beats the timeout; the others arrive well within it
			rs := &recordSleep{}
			c := embedClient(t, srv, Config{Timeout: 2 * time.Second, Sleep: rs.sleep, EmbeddingFormat: tt.format, RetryTimeouts: ptr(true)})
			got, err := c.Embed(context.Background(), "m", []string{"x"})
			if err != nil || got.Attempts != 2 {
				t.Fatalf("got %+v, %v; want success on attempt 2", got, err)
			}
			if tt.faults[0] == llmtest.FaultRateLimit && (len(rs.delays) != 1 || rs.delays[0] != 7*time.Second) {
				t.Errorf("delays %v, want the Retry-After of 7s", rs.delays)
			}
		})
	}
}

func TestEmbedGivesUpAfterMaxRetriesAndRedactsTheKey(t *testing.T) {
	const key = "sk-secret-embed-key"
	srv, n := sequence(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(503)
		w.Write([]byte(`{"error":{"message":"overloaded for ` + strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ") + `","type":"x"}}`))
	})
	c, err := New(Config{BaseURL: srv.URL + "/v1", Model: "chat", APIKey: key, MaxRetries: 2, Sleep: (&recordSleep{}).sleep})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Embed(context.Background(), "emb", []string{"x"})
	var e *Error
	if !errors.As(err, &e) || e.Attempts != 3 || e.Status != 503 || e.Model != "emb" || *n != 3 {
		t.Fatalf("err = %#v after %d requests; want 3 attempts, status 503, model emb", err, *n)
	}
	if strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), "[REDACTED]") {
		t.Errorf("error %q leaks the key or lacks the redaction mark", err)
	}
}
