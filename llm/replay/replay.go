// Package replay is an OpenAI-compatible chat-completions server that
// answers from recorded OpenAI Batch files instead of a model: one batch is
// a request_bodies.jsonl (the Batch input) with its raw_responses.jsonl (the
// Batch output), as MatTools recorded its single-LLM GPT runs under
// src/pure_agent_test/roundN/<model>/ (docs/mattools.md §3.2).
//
// A request is matched on its model and messages (role and content, byte
// for byte) within the batch of one round: the round is chosen per request
// by a "/roundN" path prefix (base URL http://host/round2/v1), else by the
// X-Replay-Round header, else by the server's default round. The recorded
// response body is returned verbatim, usage (tokens) included. A request no
// recording matches gets 404 with an OpenAI-style error body saying why; a
// request whose other recorded parameters differ (temperature 0.7 in
// MatTools' batches) gets 400, so a replay also checks that the client sent
// what was recorded.
//
// It imports no project package.
package replay

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// The files of one recorded batch.
const (
	RequestsFile  = "request_bodies.jsonl"
	ResponsesFile = "raw_responses.jsonl"
)

// Entry is one recorded request and its response.
type Entry struct {
	CustomID string
	// Body is the recorded request body (model, messages, temperature, …).
	Body map[string]json.RawMessage
	// Status and Response are the recorded HTTP status and response body.
	Status   int
	Response json.RawMessage
}

// Batch is one recorded OpenAI Batch: the requests of one model in one round.
type Batch struct {
	Dir     string
	Model   string
	Round   int
	Entries []*Entry // in request file order
	byKey   map[string]*Entry
}

type message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// key returns the lookup key of a request: model and canonical messages.
func key(model string, msgs []message) string {
	b, _ := json.Marshal(msgs)
	return model + "\x00" + string(b)
}

// LoadBatch reads the batch recorded in dir for the given round. Every
// request must have exactly one response (joined on custom_id), all requests
// must name one model, and no two requests may have the same messages;
// errors name the file and line.
func LoadBatch(dir string, round int) (*Batch, error) {
	b := &Batch{Dir: dir, Round: round, byKey: map[string]*Entry{}}
	byID := map[string]*Entry{}
	reqPath := filepath.Join(dir, RequestsFile)
	err := eachLine(reqPath, func(line int, raw []byte) error {
		var r struct {
			CustomID string                     `json:"custom_id"`
			Body     map[string]json.RawMessage `json:"body"`
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			return err
		}
		var model string
		var msgs []message
		if err := errors.Join(json.Unmarshal(r.Body["model"], &model), json.Unmarshal(r.Body["messages"], &msgs)); err != nil || model == "" {
			return fmt.Errorf("body needs a model and messages: %v", err)
		}
		if b.Model == "" {
			b.Model = model
		} else if model != b.Model {
			return fmt.Errorf("model %q differs from the batch's %q", model, b.Model)
		}
		if r.CustomID == "" || byID[r.CustomID] != nil {
			return fmt.Errorf("custom_id %q is empty or repeated", r.CustomID)
		}
		e := &Entry{CustomID: r.CustomID, Body: r.Body}
		k := key(model, msgs)
		if b.byKey[k] != nil {
			return fmt.Errorf("%s has the same messages as %s", r.CustomID, b.byKey[k].CustomID)
		}
		byID[r.CustomID], b.byKey[k] = e, e
		b.Entries = append(b.Entries, e)
		return nil
	})
	if err != nil {
		return nil, err
	}
	respPath := filepath.Join(dir, ResponsesFile)
	err = eachLine(respPath, func(line int, raw []byte) error {
		var r struct {
			CustomID string `json:"custom_id"`
			Response *struct {
				StatusCode int             `json:"status_code"`
				Body       json.RawMessage `json:"body"`
			} `json:"response"`
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			return err
		}
		e := byID[r.CustomID]
		if e == nil {
			return fmt.Errorf("custom_id %q has no request in %s", r.CustomID, RequestsFile)
		}
		if e.Response != nil {
			return fmt.Errorf("custom_id %q answered twice", r.CustomID)
		}
		if r.Response == nil || r.Response.StatusCode == 0 || len(r.Response.Body) == 0 {
			return fmt.Errorf("custom_id %q has no response (status_code and body)", r.CustomID)
		}
		e.Status, e.Response = r.Response.StatusCode, r.Response.Body
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, e := range b.Entries {
		if e.Response == nil {
			return nil, fmt.Errorf("%s: custom_id %s has no response", respPath, e.CustomID)
		}
	}
	if len(b.Entries) == 0 {
		return nil, fmt.Errorf("%s: no requests", reqPath)
	}
	return b, nil
}

func eachLine(path string, f func(line int, raw []byte) error) error {
	fh, err := os.Open(path)
	if err != nil {
		return err
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(nil, 64<<20)
	for n := 1; sc.Scan(); n++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		if err := f(n, sc.Bytes()); err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
	}
	return sc.Err()
}

// PureAgentDir is where MatTools keeps its single-LLM runs, relative to the data root.
const PureAgentDir = "src/pure_agent_test"

// LoadRecorded loads every batch recorded under root/PureAgentDir for the
// given rounds (nil: 1–3) and models (nil: every model folder holding both
// files). A requested model without recordings is an error.
func LoadRecorded(root string, rounds []int, models []string) ([]*Batch, error) {
	if rounds == nil {
		rounds = []int{1, 2, 3}
	}
	var out []*Batch
	for _, r := range rounds {
		rdir := filepath.Join(root, PureAgentDir, "round"+strconv.Itoa(r))
		names := models
		if names == nil {
			ents, err := os.ReadDir(rdir)
			if err != nil {
				return nil, err
			}
			for _, e := range ents {
				if _, err := os.Stat(filepath.Join(rdir, e.Name(), RequestsFile)); err == nil {
					names = append(names, e.Name())
				}
			}
		}
		for _, m := range names {
			b, err := LoadBatch(filepath.Join(rdir, m), r)
			if err != nil {
				return nil, err
			}
			out = append(out, b)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no recorded batches (request_bodies.jsonl + raw_responses.jsonl)", filepath.Join(root, PureAgentDir))
	}
	return out, nil
}

// Server answers chat completions from recorded batches. It is an
// http.Handler; create it with NewServer.
type Server struct {
	// DefaultRound serves requests that select no round (0: such requests
	// are an error).
	DefaultRound int
	// Log receives one line per request; nil discards.
	Log *slog.Logger

	batches map[int]map[string]*Batch // round → model → batch
	mu      sync.Mutex
	served  map[*Entry]int
}

// NewServer returns a server over the given batches; two batches of the
// same model and round are an error.
func NewServer(defaultRound int, batches ...*Batch) (*Server, error) {
	s := &Server{DefaultRound: defaultRound, batches: map[int]map[string]*Batch{}, served: map[*Entry]int{}}
	for _, b := range batches {
		if s.batches[b.Round] == nil {
			s.batches[b.Round] = map[string]*Batch{}
		}
		if s.batches[b.Round][b.Model] != nil {
			return nil, fmt.Errorf("two batches for model %s in round %d: %s and %s", b.Model, b.Round, s.batches[b.Round][b.Model].Dir, b.Dir)
		}
		s.batches[b.Round][b.Model] = b
	}
	return s, nil
}

// Served returns how many times each recorded request was answered, keyed
// "round/model/custom_id".
func (s *Server) Served() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]int{}
	for r, ms := range s.batches {
		for m, b := range ms {
			for _, e := range b.Entries {
				if n := s.served[e]; n > 0 {
					out[fmt.Sprintf("%d/%s/%s", r, m, e.CustomID)] = n
				}
			}
		}
	}
	return out
}

// Describe lists the loaded batches, one "round N: model (k requests)" per line.
func (s *Server) Describe() string {
	var lines []string
	for r, ms := range s.batches {
		for m, b := range ms {
			lines = append(lines, fmt.Sprintf("round %d: %s (%d requests, %s)", r, m, len(b.Entries), b.Dir))
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

var pathRE = regexp.MustCompile(`^(?:/round(\d+))?(/.*)?/(chat/completions|models)$`)

func (s *Server) log() *slog.Logger {
	if s.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return s.Log
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
		"message": msg, "type": "invalid_request_error", "code": code, "param": nil}})
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	m := pathRE.FindStringSubmatch(r.URL.Path)
	if m == nil {
		writeError(w, http.StatusNotFound, "replay_unknown_path",
			fmt.Sprintf("replay: %s is not served; use POST …/chat/completions (optionally under /roundN/)", r.URL.Path))
		return
	}
	round := s.DefaultRound
	if h := r.Header.Get("X-Replay-Round"); h != "" {
		round, _ = strconv.Atoi(h)
	}
	if m[1] != "" {
		round, _ = strconv.Atoi(m[1])
	}
	if m[3] == "models" {
		s.serveModels(w, round)
		return
	}
	if r.Method != http.MethodPost {
		writeError(w, http.StatusMethodNotAllowed, "replay_method", "replay: chat completions need POST")
		return
	}
	var req struct {
		Model    string    `json:"model"`
		Messages []message `json:"messages"`
		Stream   bool      `json:"stream"`
	}
	var raw map[string]json.RawMessage
	body, err := readBody(w, r)
	if err == nil {
		err = errors.Join(json.Unmarshal(body, &req), json.Unmarshal(body, &raw))
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, "replay_bad_json", "replay: the request body is not valid JSON: "+err.Error())
		return
	}
	if req.Stream {
		writeError(w, http.StatusBadRequest, "replay_stream", "replay: streaming is not supported; send stream=false")
		return
	}
	models := s.batches[round]
	if models == nil {
		writeError(w, http.StatusNotFound, "replay_no_round",
			fmt.Sprintf("replay: no recordings for round %d (loaded rounds: %v); select a round with a /roundN path prefix or the X-Replay-Round header", round, s.rounds()))
		return
	}
	b := models[req.Model]
	if b == nil {
		writeError(w, http.StatusNotFound, "replay_no_model",
			fmt.Sprintf("replay: no recordings of model %q in round %d (recorded models: %v)", req.Model, round, sortedKeys(models)))
		return
	}
	e := b.byKey[key(req.Model, req.Messages)]
	if e == nil {
		writeError(w, http.StatusNotFound, "replay_no_match",
			fmt.Sprintf("replay: no recorded request of model %q in round %d has these %d message(s) (%d requests recorded in %s); "+
				"the prompt differs from the recorded one", req.Model, round, len(req.Messages), len(b.Entries), b.Dir))
		s.log().Warn("no match", "round", round, "model", req.Model)
		return
	}
	for k, want := range e.Body {
		if k == "model" || k == "messages" {
			continue
		}
		if got, ok := raw[k]; !ok || !sameJSON(got, want) {
			writeError(w, http.StatusBadRequest, "replay_params_mismatch",
				fmt.Sprintf("replay: request %s of model %q in round %d was recorded with %s=%s, but this request has %s=%s",
					e.CustomID, req.Model, round, k, want, k, orAbsent(got, ok)))
			s.log().Warn("parameter mismatch", "round", round, "model", req.Model, "custom_id", e.CustomID, "param", k)
			return
		}
	}
	s.mu.Lock()
	s.served[e]++
	s.mu.Unlock()
	s.log().Info("replayed", "round", round, "model", req.Model, "custom_id", e.CustomID)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Replay-Custom-Id", e.CustomID)
	w.Header().Set("X-Replay-Round", strconv.Itoa(round))
	w.WriteHeader(e.Status)
	w.Write(e.Response)
}

func (s *Server) serveModels(w http.ResponseWriter, round int) {
	var data []map[string]any
	for _, m := range sortedKeys(s.batches[round]) {
		data = append(data, map[string]any{"id": m, "object": "model", "owned_by": "replay"})
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
}

func (s *Server) rounds() []int {
	var out []int
	for r := range s.batches {
		out = append(out, r)
	}
	sort.Ints(out)
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	return reflect.DeepEqual(x, y)
}

func orAbsent(v json.RawMessage, ok bool) string {
	if !ok {
		return "(absent)"
	}
	return string(v)
}

func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	defer r.Body.Close()
	var buf bytes.Buffer
	_, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, 64<<20))
	return buf.Bytes(), err
}
