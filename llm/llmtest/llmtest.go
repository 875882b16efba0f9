// Package llmtest is a loopback OpenAI-compatible chat-completions server for
// tests: scripted replies (each to be consumed exactly once, checked by
// Verify), a fallback responder, fault injection (429 with Retry-After, 500,
// a hang past the client's timeout, malformed JSON), and blocking after N
// answers to simulate a stuck endpoint. It records every request body as
// received, so tests can assert on the JSON the client sent.
//
// It also serves POST …/embeddings with deterministic vectors (Embedding: a
// hashed bag of words, L2-normalised), in the "float" or "base64"
// encoding_format, and embeddings-only faults (a wrong dimension, NaN, +Inf,
// a short list, indices out of order, a slow answer).
//
// It listens on 127.0.0.1 only.
package llmtest

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"
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
	// FaultEndlessBody answers 200 with the start of a JSON response, a
	// string value opened in it, then bytes streamed without end until the
	// client goes away or the server closes (of chat and embeddings
	// requests alike; not in AllFaults: a client reading it whole never
	// finishes).
	FaultEndlessBody Fault = "endless-body"
)

// Faults of embeddings requests only; a chat request drawing one of them
// is answered normally (and recorded with FaultNone).
const (
	// FaultWrongDimension answers with the last vector one component short.
	FaultWrongDimension Fault = "wrong-dimension"
	// FaultNaN answers with component 0 of the last vector NaN: a base64
	// float32 NaN, or the bare token NaN (invalid JSON, as Python's json
	// module writes it) in the "float" format.
	FaultNaN Fault = "nan"
	// FaultInf is FaultNaN with +Inf (bare Infinity in the "float" format).
	FaultInf Fault = "inf"
	// FaultShortList answers with the last vector missing.
	FaultShortList Fault = "short-list"
	// FaultIndexOrder answers with the first two vectors' indices swapped
	// (the vectors keep their positions); with one input, index 1.
	FaultIndexOrder Fault = "index-order"
	// FaultSlow answers normally after Options.SlowDelay.
	FaultSlow Fault = "slow"
)

// AllFaults lists every fault kind of chat requests (every kind can also
// hit an embeddings request).
var AllFaults = []Fault{FaultRateLimit, FaultServerError, FaultHang, FaultMalformed}

// EmbeddingFaults lists the faults of embeddings requests only.
var EmbeddingFaults = []Fault{FaultWrongDimension, FaultNaN, FaultInf, FaultShortList, FaultIndexOrder, FaultSlow}

// DefaultEmbeddingDims is the dimension of the fake's vectors unless
// Options.EmbeddingDims says otherwise.
const DefaultEmbeddingDims = 64

// Embedding returns the fake's vector for text, of dims components: each
// word (a maximal run of Unicode letters and digits, lowercased) adds ±1 at
// component FNV-1a-64(word) mod dims, the sign being bit 63 of the same
// hash; the sum is L2-normalised. A text with no word gets the unit vector
// e0. Equal word multisets give equal vectors, so cosine similarity grows
// with shared words.
func Embedding(text string, dims int) []float32 {
	v := make([]float64, dims)
	words := Words(text)
	for _, w := range words {
		h := fnv.New64a()
		h.Write([]byte(w))
		x := h.Sum64()
		if x>>63 == 1 {
			v[x%uint64(dims)]--
		} else {
			v[x%uint64(dims)]++
		}
	}
	var n float64
	for _, x := range v {
		n += x * x
	}
	out := make([]float32, dims)
	if n == 0 {
		out[0] = 1
		return out
	}
	n = math.Sqrt(n)
	for i, x := range v {
		out[i] = float32(x / n)
	}
	return out
}

// Words returns the lowercased maximal runs of Unicode letters and digits
// of text, in order: the fake's words for Embedding and its usage count.
func Words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// Message is one chat message of a request.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Request is one request as the server received it.
type Request struct {
	// Endpoint is "chat/completions" or "embeddings".
	Endpoint string
	Model    string
	Messages []Message   // of a chat request
	Inputs   []string    // of an embeddings request, in order
	Body     []byte      // the raw JSON body
	Header   http.Header // the request headers
	// URL is the request's path and query as received, e.g.
	// "/v1/chat/completions?api-version=1".
	URL   string
	Fault Fault // the fault injected instead of an answer, FaultNone if answered
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
	// FaultSequence gives the faults of the first len(FaultSequence)
	// requests in arrival order (FaultNone answers normally), e.g. {429}
	// for "429, then OK"; FaultRate applies to the requests after them.
	FaultSequence []Fault
	// EmbeddingDims is the dimension of embeddings (DefaultEmbeddingDims when 0).
	EmbeddingDims int
	// SlowDelay is how long FaultSlow waits before answering (2 s when 0).
	SlowDelay time.Duration

	// Quirks of local servers (llama.cpp's, docs/runner.md "Local servers"):

	// PerTokenEmbeddings answers embeddings with one vector per word of
	// each input ("embedding": [[…], …], at least one), as llama.cpp's
	// servers do for a model served without pooling.
	PerTokenEmbeddings bool
	// EmbeddingTokenLimit, when positive, cuts every embeddings input to
	// its first EmbeddingTokenLimit words before embedding and counting
	// it, as llama.cpp's servers cut inputs to n_batch tokens.
	EmbeddingTokenLimit int
	// ContextTokens, when positive, refuses a chat request whose prompt
	// words (the usage count) plus its max_tokens exceed it with HTTP 400
	// and llama-cpp-python's context_length_exceeded error body.
	ContextTokens int
	// NoUsage leaves "usage" out of chat answers.
	NoUsage bool
	// RejectJSONMode refuses a chat request with a response_format with
	// HTTP 400 naming response_format.
	RejectJSONMode bool
	// Addr is the address to listen on; "" means 127.0.0.1:0 (a free port).
	Addr string
	// Models, when not empty, are listed by GET …/models as OpenAI lists
	// models ({"object":"list","data":[{"id":…,"object":"model"}]}), as a
	// readiness check of a served model asks (vLLM, llama.cpp, Ollama).
	Models []string
	// Raw, when set, is asked first about every request: when it returns
	// ok, the server answers with that status and body (Content-Type
	// application/json), e.g. a recorded exchange of a real server.
	Raw func(Request) (status int, body []byte, ok bool)
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
	seqN       int // requests that took their fault from FaultSequence
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
	if opts.EmbeddingDims <= 0 {
		opts.EmbeddingDims = DefaultEmbeddingDims
	}
	if opts.SlowDelay <= 0 {
		opts.SlowDelay = 2 * time.Second
	}
	s := &Server{opts: opts, closing: make(chan struct{}), unblock: make(chan struct{}), scripts: map[string][]Reply{}}
	addr := opts.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		panic(fmt.Sprintf("llmtest: listen on %s: %v", addr, err))
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

// Answered returns the number of requests answered with a completion or
// with embeddings.
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

// nextFault draws the fault of the next request (FaultSequence first, then
// FaultRate). Call with s.mu held.
func (s *Server) nextFault() Fault {
	if s.seqN < len(s.opts.FaultSequence) {
		s.seqN++
		return s.opts.FaultSequence[s.seqN-1]
	}
	if s.faultAcc += s.opts.FaultRate; s.faultAcc >= 1-1e-9 {
		s.faultAcc--
		f := s.opts.Faults[s.faultN%len(s.opts.Faults)]
		s.faultN++
		return f
	}
	return FaultNone
}

func isEmbeddingFault(f Fault) bool {
	for _, e := range EmbeddingFaults {
		if f == e {
			return true
		}
	}
	return false
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/embeddings") {
		s.handleEmbeddings(w, r)
		return
	}
	if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models") && len(s.opts.Models) > 0 {
		data := make([]map[string]string, len(s.opts.Models))
		for i, m := range s.opts.Models {
			data[i] = map[string]string{"id": m, "object": "model", "owned_by": "llmtest"}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
		return
	}
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		writeError(w, http.StatusNotFound, "not_found", "llmtest: only POST …/chat/completions and …/embeddings are served")
		return
	}
	var body struct {
		Model          string          `json:"model"`
		Messages       []Message       `json:"messages"`
		MaxTokens      int             `json:"max_tokens"`
		ResponseFormat json.RawMessage `json:"response_format"`
	}
	raw, err := io.ReadAll(r.Body)
	if err == nil {
		err = json.Unmarshal(raw, &body)
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "llmtest: bad JSON body: "+err.Error())
		return
	}
	req := Request{Endpoint: "chat/completions", Model: body.Model, Messages: body.Messages, Body: raw, Header: r.Header.Clone(),
		URL: r.URL.RequestURI()}

	if s.raw(w, req) {
		return
	}
	if s.opts.RejectJSONMode && len(body.ResponseFormat) > 0 && string(body.ResponseFormat) != "null" {
		s.record(req)
		writeError(w, http.StatusBadRequest, "invalid_request_error", "llmtest: response_format is not supported")
		return
	}
	if n := promptWords(req.Messages); s.opts.ContextTokens > 0 && n+body.MaxTokens > s.opts.ContextTokens {
		s.record(req)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
			"message": fmt.Sprintf("This model's maximum context length is %d tokens. However, you requested %d tokens (%d in the messages, %d in the completion). Please reduce the length of the messages or completion.",
				s.opts.ContextTokens, n+body.MaxTokens, n, body.MaxTokens),
			"type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}})
		return
	}

	s.mu.Lock()
	if req.Fault = s.nextFault(); isEmbeddingFault(req.Fault) {
		req.Fault = FaultNone
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

	if s.commonFault(w, r, req.Fault, `{"id":"chatcmpl-llmtest","object":"chat.completion","choices":[{"index":0,"message":{"role":"assis`,
		`{"id":"chatcmpl-llmtest","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"`) {
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
		pt = promptWords(req.Messages)
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
	if s.opts.NoUsage {
		delete(resp, "usage")
	}
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(resp); err == nil {
		s.mu.Lock()
		s.answered++
		s.mu.Unlock()
	}
}

// promptWords is the fake's prompt token count: the whitespace-separated
// words of every message.
func promptWords(msgs []Message) int {
	n := 0
	for _, m := range msgs {
		n += len(strings.Fields(m.Content))
	}
	return n
}

// record appends req (answered without a fault) to the requests.
func (s *Server) record(req Request) {
	s.mu.Lock()
	s.requests = append(s.requests, req)
	s.mu.Unlock()
}

// raw answers req from Options.Raw when it says so, and reports whether it did.
func (s *Server) raw(w http.ResponseWriter, req Request) bool {
	if s.opts.Raw == nil {
		return false
	}
	status, body, ok := s.opts.Raw(req)
	if !ok {
		return false
	}
	s.record(req)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if _, err := w.Write(body); err == nil && status < 300 {
		s.mu.Lock()
		s.answered++
		s.mu.Unlock()
	}
	return true
}

// endless writes 200, prefix, then 'a' bytes in 64 KiB flushed chunks until
// the client goes away or the server closes.
func (s *Server) endless(w http.ResponseWriter, r *http.Request, prefix string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	if _, err := io.WriteString(w, prefix); err != nil {
		return
	}
	chunk := []byte(strings.Repeat("a", 64<<10))
	fl, _ := w.(http.Flusher)
	for {
		select {
		case <-r.Context().Done():
			return
		case <-s.closing:
			return
		default:
		}
		if _, err := w.Write(chunk); err != nil {
			return
		}
		if fl != nil {
			fl.Flush()
		}
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

// handleEmbeddings serves POST …/embeddings: input is a string or an array
// of strings; usage counts Words of every input as prompt tokens.
func (s *Server) handleEmbeddings(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Model          string          `json:"model"`
		Input          json.RawMessage `json:"input"`
		EncodingFormat string          `json:"encoding_format"`
	}
	raw, err := io.ReadAll(r.Body)
	if err == nil {
		err = json.Unmarshal(raw, &body)
	}
	var inputs []string
	if err == nil {
		if err = json.Unmarshal(body.Input, &inputs); err != nil {
			var one string
			if err = json.Unmarshal(body.Input, &one); err == nil {
				inputs = []string{one}
			}
		}
	}
	if err == nil && len(inputs) == 0 {
		err = fmt.Errorf("no input")
	}
	if err == nil && body.EncodingFormat != "" && body.EncodingFormat != "float" && body.EncodingFormat != "base64" {
		err = fmt.Errorf("encoding_format %q is neither float nor base64", body.EncodingFormat)
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "llmtest: bad embeddings request: "+err.Error())
		return
	}
	req := Request{Endpoint: "embeddings", Model: body.Model, Inputs: inputs, Body: raw, Header: r.Header.Clone(),
		URL: r.URL.RequestURI()}
	if s.raw(w, req) {
		return
	}
	if n := s.opts.EmbeddingTokenLimit; n > 0 {
		cut := make([]string, len(inputs))
		for i, in := range inputs {
			ws := Words(in)
			cut[i] = strings.Join(ws[:min(len(ws), n)], " ")
		}
		inputs = cut
	}
	if s.opts.PerTokenEmbeddings {
		s.record(req)
		s.perToken(w, req.Model, inputs)
		return
	}
	s.mu.Lock()
	req.Fault = s.nextFault()
	s.requests = append(s.requests, req)
	s.mu.Unlock()

	if s.commonFault(w, r, req.Fault, `{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.1,`,
		`{"object":"list","data":[{"object":"embedding","index":0,"embedding":"`) {
		return
	}
	switch req.Fault {
	case FaultSlow:
		t := time.NewTimer(s.opts.SlowDelay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done():
			return
		case <-s.closing:
			return
		}
	}

	vecs := make([][]float32, len(inputs))
	idx := make([]int, len(inputs))
	tokens := 0
	for i, in := range inputs {
		vecs[i] = Embedding(in, s.opts.EmbeddingDims)
		idx[i] = i
		tokens += len(Words(in))
	}
	last := len(vecs) - 1
	bare := "" // a bare non-JSON number token for the "float" format
	switch req.Fault {
	case FaultWrongDimension:
		vecs[last] = vecs[last][:len(vecs[last])-1]
	case FaultNaN, FaultInf:
		x, tok := float32(math.NaN()), "NaN"
		if req.Fault == FaultInf {
			x, tok = float32(math.Inf(1)), "Infinity"
		}
		vecs[last][0] = x
		bare = tok
	case FaultShortList:
		vecs, idx = vecs[:last], idx[:last]
	case FaultIndexOrder:
		if len(idx) > 1 {
			idx[0], idx[1] = idx[1], idx[0]
		} else {
			idx[0] = 1
		}
	}
	var b strings.Builder
	b.WriteString(`{"object":"list","data":[`)
	for i, v := range vecs {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"object":"embedding","index":%d,"embedding":`, idx[i])
		if body.EncodingFormat == "base64" {
			buf := make([]byte, 4*len(v))
			for j, x := range v {
				binary.LittleEndian.PutUint32(buf[4*j:], math.Float32bits(x))
			}
			b.WriteString(`"` + base64.StdEncoding.EncodeToString(buf) + `"`)
		} else {
			b.WriteByte('[')
			for j, x := range v {
				if j > 0 {
					b.WriteByte(',')
				}
				if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
					b.WriteString(bare)
				} else {
					b.WriteString(strconv.FormatFloat(float64(x), 'g', -1, 32))
				}
			}
			b.WriteByte(']')
		}
		b.WriteByte('}')
	}
	model, _ := json.Marshal(req.Model)
	fmt.Fprintf(&b, `],"model":%s,"usage":{"prompt_tokens":%d,"total_tokens":%d}}`, model, tokens, tokens)
	w.Header().Set("Content-Type", "application/json")
	if _, err := io.WriteString(w, b.String()); err == nil {
		s.mu.Lock()
		s.answered++
		s.mu.Unlock()
	}
}

// perToken answers with one float vector per word of each input (at least
// one), llama.cpp's answer without pooling.
func (s *Server) perToken(w http.ResponseWriter, model string, inputs []string) {
	type item struct {
		Object    string      `json:"object"`
		Embedding [][]float32 `json:"embedding"`
		Index     int         `json:"index"`
	}
	data := make([]item, len(inputs))
	tokens := 0
	for i, in := range inputs {
		ws := Words(in)
		if len(ws) == 0 {
			ws = []string{""}
		}
		data[i] = item{Object: "embedding", Index: i}
		for _, wd := range ws {
			data[i].Embedding = append(data[i].Embedding, Embedding(wd, s.opts.EmbeddingDims))
		}
		tokens += len(ws)
	}
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": model,
		"usage": map[string]any{"prompt_tokens": tokens, "total_tokens": tokens}}); err == nil {
		s.mu.Lock()
		s.answered++
		s.mu.Unlock()
	}
}

// commonFault answers the faults chat and embeddings requests share (429,
// 500, hang, a malformed body cut after malformed, an endless body after
// endlessPrefix) and reports whether it answered.
func (s *Server) commonFault(w http.ResponseWriter, r *http.Request, f Fault, malformed, endlessPrefix string) bool {
	switch f {
	case FaultRateLimit:
		w.Header().Set("Retry-After", s.opts.RetryAfter)
		writeError(w, http.StatusTooManyRequests, "rate_limit_error", "llmtest: injected rate limit")
	case FaultServerError:
		writeError(w, http.StatusInternalServerError, "server_error", "llmtest: injected server error")
	case FaultHang:
		select {
		case <-r.Context().Done():
		case <-s.closing:
		}
	case FaultMalformed:
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(malformed))
	case FaultEndlessBody:
		s.endless(w, r, endlessPrefix)
	default:
		return false
	}
	return true
}
