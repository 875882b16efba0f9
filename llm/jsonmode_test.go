package llm

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/llm/llmtest"
)

// TestCompleteWithJSONMode: CompleteWith sends response_format json_object
// (as MatTools' agentic RAG does), Complete sends none, and the sampling
// parameters ride along either way.
func TestCompleteWithJSONMode(t *testing.T) {
	srv := llmtest.New(t, llmtest.Options{Responder: func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Content: `{"a": 1}`} }})
	temp := 0.7
	c, err := New(Config{BaseURL: srv.URL, Model: "m", Params: Params{Temperature: &temp}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CompleteWith(context.Background(), []Message{User("x")}, CallOptions{JSONObject: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Complete(context.Background(), []Message{User("y")}); err != nil {
		t.Fatal(err)
	}
	var bodies [2]struct {
		ResponseFormat *struct{ Type string } `json:"response_format"`
		Temperature    *float64               `json:"temperature"`
	}
	for i, r := range srv.Requests() {
		if err := json.Unmarshal(r.Body, &bodies[i]); err != nil {
			t.Fatal(err)
		}
	}
	if f := bodies[0].ResponseFormat; f == nil || f.Type != "json_object" || bodies[0].Temperature == nil || *bodies[0].Temperature != 0.7 {
		t.Errorf("JSON-mode request: %+v", bodies[0])
	}
	if bodies[1].ResponseFormat != nil {
		t.Errorf("plain request sent response_format %+v", bodies[1].ResponseFormat)
	}
}
