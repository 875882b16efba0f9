// Package llmtest is a loopback OpenAI-compatible chat-completions server for
// tests: scripted replies (each to be consumed exactly once, checked by
// Verify), a fallback responder, fault injection (429 with Retry-After, 500,
// a hang past the client's timeout, malformed JSON), and blocking after N
// answers to simulate a stuck endpoint. It records every request body as
// received, so tests can assert on the JSON the client sent.
//
// It listens on 127.0.0.1 only.
package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Fault is a failure the server can inject instead of an answer.
type Fault string

// The faults. FaultNone marks a request that was answered normally.
const (
	FaultNone Fault = ""
	// FaultRateLimit answers 429 with a Retry-After header (Options.RetryAfter).
	FaultRateLimit Fault = "429"
	// FaultServerError answers 500 with an OpenAI-style error body.
	FaultServerError Fault = "500"
	// FaultHang sends nothing until the client gives up (or the server closes).
	FaultHang Fault = "hang"
	// FaultMalformed answers 200 with a truncated JSON body.
	FaultMalformed Fault = "malformed"
)

// AllFaults lists every fault kind.
var AllFaults = []Fault{FaultRateLimit, FaultServerError, FaultHang, FaultMalformed}

// Message is one chat message of a request.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Request is one request as the server received it.
type Request struct {
	Model    string
	Messages []Message
	Body     []byte      // the raw JSON body
	Header   http.Header // the request headers
	Fault    Fault       // the fault injected instead of an answer, FaultNone if answered
}

// Prompt returns the content of the last message (the user prompt).
func (r Request) Prompt() string {
	if len(r.Messages) == 0 {
		return ""
	}
	return r.Messages[len(r.Messages)-1].Content
}

// Reply is a scripted answer.
type Reply struct {
	Content string
	// PromptTokens and CompletionTokens are reported as usage; when both are
	// 0 the server reports the whitespace-separated word counts of the
	// prompt messages and of Content.
	PromptTokens, CompletionTokens int
	FinishReason                   string // "stop" when empty
}

// Options configure a Server.
type Options struct {
	// Responder answers requests that no scripted reply matches; nil means
	// such requests get a 404 error (and Verify fails).
	Responder func(Request) Reply
	// FaultRate is the fraction (0–1) of requests answered with a fault,
	// exactly and evenly spread in arrival order (with 0.2, every fifth
	// request); the kinds cycle through Faults (AllFaults when empty), so
	// every kind occurs.
	FaultRate float64
	Faults    []Fault
	// RetryAfter is the Retry-After header of FaultRateLimit; "1" when empty.
	RetryAfter string
	// BlockAfter, when positive, makes every request after the first
	// BlockAfter answers block until Unblock is called or the client gives up.
	BlockAfter int
}

// Server is the fake. Create it with New.
type Server struct {
	// URL is the base URL to configure clients with: "http://127.0.0.1:<port>/v1".
	URL string

	opts    Options
	srv     *httptest.Server
	closing chan struct{}

	mu         sync.Mutex
	faultAcc   float64
	requests   []Request
	scripts    map[string][]Reply
	unexpected []string
	answered   int // requests answered with a completion
	admitted   int // requests let through to be answered (BlockAfter counts these)
	faultN     int
	blocked    int
	unblock    chan struct{}
}

// New starts a server on 127.0.0.1; it is closed when the test ends.
func New(t testing.TB, opts Options) *Server {
	t.Helper()
	s := NewServer(opts)
	t.Cleanup(s.Close)
	return s
}

// NewServer starts a server on 127.0.0.1 outside a test; call Close.
func NewServer(opts Options) *Server {
	if len(opts.Faults) == 0 {
		opts.Faults = AllFaults
	}
	if opts.RetryAfter == "" {
		opts.RetryAfter = "1"
	}
	s := &Server{opts: opts, closing: make(chan struct{}), unblock: make(chan struct{}), scripts: map[string][]Reply{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(fmt.Sprintf("llmtest: listen on 127.0.0.1: %v", err))
	}
	s.srv = &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.HandlerFunc(s.handle)}}
	s.srv.Start()
	s.URL = s.srv.URL + "/v1"
	return s
}

// Close releases blocked and hanging requests and stops the server.
func (s *Server) Close() {
	s.mu.Lock()
	select {
	case <-s.closing:
		s.mu.Unlock()
		return
	default:
		close(s.closing)
	}
	s.mu.Unlock()
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// Script adds a reply for one request whose last message content equals
// prompt. Replies to the same prompt are consumed in order.
func (s *Server) Script(prompt string, r Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scripts[prompt] = append(s.scripts[prompt], r)
}

// Verify fails t if a scripted reply was not consumed or a request matched
// neither a script nor the Responder.
func (s *Server) Verify(t testing.TB) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for p, rs := range s.scripts {
		if len(rs) > 0 {
			t.Errorf("llmtest: %d scripted repl(ies) not consumed for prompt %.80q", len(rs), p)
		}
	}
	for _, p := range s.unexpected {
		t.Errorf("llmtest: unexpected request with prompt %.80q", p)
	}
}

// Requests returns a copy of every request received so far, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Answered returns the number of requests answered with a completion.
func (s *Server) Answered() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.answered
}

// Blocked returns the number of requests currently held by BlockAfter.
func (s *Server) Blocked() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.blocked
}

// FaultCounts returns how many requests got each fault.
func (s *Server) FaultCounts() map[Fault]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := map[Fault]int{}
	for _, r := range s.requests {
		if r.Fault != FaultNone {
			n[r.Fault]++
		}
	}
	return n
}

// Unblock releases the requests held by BlockAfter and stops blocking.
func (s *Server) Unblock() {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.unblock:
	default:
		close(s.unblock)
	}
}

func writeError(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": typ, "code": nil}})
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		writeError(w, http.StatusNotFound, "not_found", "llmtest: only POST …/chat/completions is served")
		return
	}
	var body struct {
		Model    string    `json:"model"`
		Messages []Message `json:"messages"`
	}
	raw, err := io.ReadAll(r.Body)
	if err == nil {
		err = json.Unmarshal(raw, &body)
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "llmtest: bad JSON body: "+err.Error())
		return
	}
	req := Request{Model: body.Model, Messages: body.Messages, Body: raw, Header: r.Header.Clone()}

	s.mu.Lock()
	if s.faultAcc += s.opts.FaultRate; s.faultAcc >= 1-1e-9 {
		s.faultAcc--
		req.Fault = s.opts.Faults[s.faultN%len(s.opts.Faults)]
		s.faultN++
	}
	s.requests = append(s.requests, req)
	block := false
	if req.Fault == FaultNone {
		if s.opts.BlockAfter > 0 && s.admitted >= s.opts.BlockAfter {
			select {
			case <-s.unblock:
			default:
				block = true
				s.blocked++
			}
		}
		if !block {
			s.admitted++
		}
	}
	s.mu.Unlock()

	switch req.Fault {
	case FaultRateLimit:
		w.Header().Set("Retry-After", s.opts.RetryAfter)
		writeError(w, http.StatusTooManyRequests, "rate_limit_error", "llmtest: injected rate limit")
		return
	case FaultServerError:
		writeError(w, http.StatusInternalServerError, "server_error", "llmtest: injected server error")
		return
	case FaultHang:
		select {
		case <-r.Context().Done():
		case <-s.closing:
		}
		return
	case FaultMalformed:
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"id":"chatcmpl-llmtest","object":"chat.completion","choices":[{"index":0,"message":{"role":"assis`))
		return
	}
	if block {
		select {
		case <-s.unblock:
		case <-r.Context().Done():
		case <-s.closing:
		}
		s.mu.Lock()
		s.blocked--
		s.mu.Unlock()
		if r.Context().Err() != nil {
			return
		}
		select {
		case <-s.closing:
			return
		default:
		}
	}

	s.mu.Lock()
	reply, ok := s.takeScript(req.Prompt())
	if !ok && s.opts.Responder == nil {
		s.unexpected = append(s.unexpected, req.Prompt())
		s.mu.Unlock()
		writeError(w, http.StatusNotFound, "not_found", "llmtest: no scripted reply for this prompt")
		return
	}
	s.mu.Unlock()
	if !ok {
		reply = s.opts.Responder(req)
	}
	pt, ct := reply.PromptTokens, reply.CompletionTokens
	if pt == 0 && ct == 0 {
		for _, m := range req.Messages {
			pt += len(strings.Fields(m.Content))
		}
		ct = len(strings.Fields(reply.Content))
	}
	fr := reply.FinishReason
	if fr == "" {
		fr = "stop"
	}
	resp := map[string]any{
		"id": "chatcmpl-llmtest", "object": "chat.completion", "created": 1741081304, "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": fr,
			"message": map[string]any{"role": "assistant", "content": reply.Content}}},
		"usage": map[string]any{"prompt_tokens": pt, "completion_tokens": ct, "total_tokens": pt + ct},
	}
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(resp); err == nil {
		s.mu.Lock()
		s.answered++
		s.mu.Unlock()
	}
}

func (s *Server) takeScript(prompt string) (Reply, bool) {
	rs := s.scripts[prompt]
	if len(rs) == 0 {
		return Reply{}, false
	}
	s.scripts[prompt] = rs[1:]
	return rs[0], true
}
