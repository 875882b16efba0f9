package llm_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/mattools-leaderboard/leaderboard/llm"
)

// bodyTransport answers every request with one status and body.
type bodyTransport struct {
	status int
	body   []byte
}

func (b bodyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: b.status, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(bytes.NewReader(b.body)), Request: r}, nil
}

// FuzzCompleteResponse feeds arbitrary response bodies (and statuses) to
// the chat-completion client, in process (no network, no retries): the
// model-response decoder. Invariants: no panic; bounded
// time; a failure is an error and no completion; a success has content
// from the body and the key never appears in the error or completion.
func FuzzCompleteResponse(f *testing.F) {
	f.Add(200, []byte(`{"id":"c1","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"<code>`+"```python\\nx\\n```"+`</code><name>f</name>"},"finish_reason":"stop"}],"usage":{"prompt_tokens":711,"completion_tokens":702,"total_tokens":1413}}`))
	f.Add(200, []byte(`{"choices":[]}`))
	f.Add(500, []byte(`{"error":{"message":"overloaded","type":"server_error"}}`))
	f.Add(200, []byte(`not json`))
	const key = "sk-fuzz-secret-key-0123456789"
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		if status < 100 || status > 999 {
			status = 200
		}
		c, err := llm.New(llm.Config{BaseURL: "http://127.0.0.1:9/v1", APIKey: key, Model: "m", MaxRetries: llm.NoRetries,
			Timeout: 5 * time.Second, HTTPClient: &http.Client{Transport: bodyTransport{status, body}}})
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		comp, err := c.Complete(context.Background(), []llm.Message{llm.User("q")})
		if d := time.Since(start); d > 10*time.Second {
			t.Fatalf("Complete took %v for %d bytes", d, len(body))
		}
		if err != nil {
			if comp != nil {
				t.Fatalf("error %v with a completion", err)
			}
			if bytes.Contains([]byte(err.Error()), []byte(key)) {
				t.Fatalf("the key appears in the error: %v", err)
			}
			return
		}
		if comp == nil || bytes.Contains([]byte(comp.Content), []byte(key)) {
			t.Fatalf("completion %+v", comp)
		}
	})
}
