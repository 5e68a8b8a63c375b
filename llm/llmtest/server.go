// Package llmtest is a scripted Ollama-compatible HTTP server for tests. It speaks /api/chat
// (streaming and not), /api/embed, /api/tags, /api/show and /api/version; answers chat requests
// by rules that match on message content or on the requested schema; injects latency and
// faults (error statuses, dropped streams, truncated answers, missing models, a crash); answers
// a limited number of requests at once, queueing the rest (SetSlots); and records every
// request so tests can assert on what was sent and when it was answered.
package llmtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
)

// Default model names, the same as warren's defaults.
const (
	ChatModel  = "qwen3:8b"
	EmbedModel = "nomic-embed-text"
)

// Server is a running scripted server. Its methods are safe for concurrent use.
type Server struct {
	URL string

	srv *httptest.Server

	mu        sync.Mutex
	models    map[string]Model
	rules     []*Rule
	faults    []*Fault
	latency   time.Duration
	requests  []Recorded
	unmatched []string
	dim       int
	fallback  func(Call) string
	dead      chan struct{} // closed by Kill and Close
	slots     slots
}

// Model is a model the server pretends to have.
type Model struct {
	Name      string
	Embedding bool // an embedding model: /api/show reports its dimension
}

// Recorded is one request the server received.
type Recorded struct {
	Path     string
	Model    string
	Messages []api.Message
	Format   json.RawMessage
	Options  map[string]any
	Stream   bool
	Input    []string // /api/embed
	Status   int      // what the server answered

	// Start and End bound the time a chat or embed request held one of the server's slots
	// (zero when it never got one); the next request in the queue starts no earlier than the
	// End that freed its slot. Answered says the whole answer was written: false for a
	// request cut off by Kill or by its client going away.
	Start, End time.Time
	Answered   bool
}

// New starts a server with the default chat and embed models and registers its shutdown with
// t.Cleanup.
func New(t testing.TB) *Server {
	s := Start()
	t.Cleanup(s.Close)
	return s
}

// Start starts a server on a loopback port; Close stops it. Use New in tests.
func Start() *Server {
	s := newServer()
	s.srv = httptest.NewServer(s.routes())
	s.URL = s.srv.URL
	return s
}

// StartAt starts a server on the given address (such as 127.0.0.1:11999), for driving the
// real binary from scripts.
func StartAt(addr string) (*Server, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("couldn't listen on %s: %w", addr, err)
	}
	s := newServer()
	s.srv = httptest.NewUnstartedServer(s.routes())
	s.srv.Listener.Close()
	s.srv.Listener = l
	s.srv.Start()
	s.URL = s.srv.URL
	return s, nil
}

func newServer() *Server {
	s := &Server{models: map[string]Model{}, dim: 768, dead: make(chan struct{}), slots: slots{n: DefaultSlots}}
	s.AddModel(Model{Name: ChatModel})
	s.AddModel(Model{Name: EmbedModel, Embedding: true})
	return s
}

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/chat", s.handleChat)
	mux.HandleFunc("POST /api/embed", s.handleEmbed)
	mux.HandleFunc("GET /api/tags", s.handleTags)
	mux.HandleFunc("POST /api/show", s.handleShow)
	mux.HandleFunc("GET /api/version", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"version": "0.17.4-llmtest"})
	})
	return mux
}

// SetModels replaces the available models.
func (s *Server) SetModels(models ...Model) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models = map[string]Model{}
	for _, m := range models {
		s.models[m.Name] = m
	}
}

// Close stops the server; requests still waiting or in progress end without an answer.
func (s *Server) Close() {
	s.mu.Lock()
	select {
	case <-s.dead:
	default:
		close(s.dead)
	}
	srv := s.srv
	s.mu.Unlock()
	srv.Close()
}

// AddModel makes a model available.
func (s *Server) AddModel(m Model) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models[m.Name] = m
}

// RemoveModel makes a model unavailable: requests for it answer 404 as Ollama does.
func (s *Server) RemoveModel(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.models, name)
	delete(s.models, name+":latest")
}

// SetLatency delays every answer (before its first byte) by d.
func (s *Server) SetLatency(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.latency = d
}

// SetDimension sets the embedding dimension (768 by default, as nomic-embed-text).
func (s *Server) SetDimension(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dim = n
}

// Requests returns every request received so far.
func (s *Server) Requests() []Recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Recorded(nil), s.requests...)
}

// Count returns how many requests reached a path ("/api/chat").
func (s *Server) Count(path string) int {
	n := 0
	for _, r := range s.Requests() {
		if r.Path == path {
			n++
		}
	}
	return n
}

// Unmatched returns the last user message of every chat request no rule answered.
func (s *Server) Unmatched() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.unmatched...)
}

// record keeps a request and returns its index in the records.
func (s *Server) record(r Recorded) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, r)
	return len(s.requests) - 1
}

func (s *Server) hasModel(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for n := range s.models {
		if sameModel(n, name) {
			return true
		}
	}
	return false
}

func sameModel(a, b string) bool {
	norm := func(s string) string {
		if !strings.Contains(s[strings.LastIndex(s, "/")+1:], ":") {
			return s + ":latest"
		}
		return s
	}
	return norm(a) == norm(b)
}

// begin records the request with status 200, holds one of the server's slots and waits out
// its latency; false when the client or the server gave up first, the slot released then.
func (s *Server) begin(ctx context.Context, rec Recorded) (*hold, <-chan struct{}, bool) {
	rec.Status = http.StatusOK
	dead := s.deadChan()
	slot, ok := s.holdSlot(ctx, dead, s.record(rec))
	if !ok {
		return nil, nil, false
	}
	if !s.wait(ctx, dead) {
		slot.release(false)
		return nil, nil, false
	}
	return slot, dead, true
}

// wait applies the configured latency, giving up when the client goes away or the server
// is killed.
func (s *Server) wait(ctx context.Context, dead <-chan struct{}) bool {
	s.mu.Lock()
	d := s.latency
	s.mu.Unlock()
	if d <= 0 {
		select {
		case <-dead:
			return false
		default:
			return true
		}
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	case <-dead:
		return false
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func notFound(w http.ResponseWriter, model string) {
	writeJSON(w, http.StatusNotFound, map[string]string{
		"error": fmt.Sprintf("model %q not found, try pulling it first", model)})
}

func (s *Server) handleTags(w http.ResponseWriter, r *http.Request) {
	s.record(Recorded{Path: r.URL.Path, Status: http.StatusOK})
	s.mu.Lock()
	var list api.ListResponse
	for _, m := range s.models {
		list.Models = append(list.Models, api.ListModelResponse{Name: m.Name, Model: m.Name,
			ModifiedAt: time.Unix(1_700_000_000, 0), Size: 1 << 20, Digest: "llmtest"})
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, list)
}

func (s *Server) handleShow(w http.ResponseWriter, r *http.Request) {
	var req api.ShowRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	name := req.Model
	if name == "" {
		name = req.Name
	}
	s.record(Recorded{Path: r.URL.Path, Model: name})
	if !s.hasModel(name) {
		notFound(w, name)
		return
	}
	s.mu.Lock()
	m := s.models[name]
	dim := s.dim
	s.mu.Unlock()
	info := map[string]any{"general.architecture": "llama", "llama.context_length": 32768}
	if m.Embedding {
		info = map[string]any{"general.architecture": "nomic-bert", "nomic-bert.embedding_length": dim}
	}
	writeJSON(w, http.StatusOK, map[string]any{"details": map[string]any{"format": "gguf"}, "model_info": info})
}

func (s *Server) handleEmbed(w http.ResponseWriter, r *http.Request) {
	var req api.EmbedRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	var inputs []string
	switch in := req.Input.(type) {
	case string:
		inputs = []string{in}
	case []any:
		for _, x := range in {
			str, _ := x.(string)
			inputs = append(inputs, str)
		}
	}
	rec := Recorded{Path: r.URL.Path, Model: req.Model, Input: inputs}
	if _, ok := s.admit(w, rec, false); !ok {
		return
	}
	slot, _, ok := s.begin(r.Context(), rec)
	if !ok {
		return
	}
	written := false
	defer func() { slot.release(written) }()
	s.mu.Lock()
	dim := s.dim
	s.mu.Unlock()
	resp := api.EmbedResponse{Model: req.Model}
	for _, in := range inputs {
		resp.Embeddings = append(resp.Embeddings, Embed(in, dim))
		resp.PromptEvalCount += tokenCount(in)
	}
	data, _ := json.Marshal(resp)
	w.Header().Set("Content-Type", "application/json")
	slot.answering()
	_, err := w.Write(append(data, '\n'))
	written = err == nil && http.NewResponseController(w).Flush() == nil
}

// isClosed says whether the server was killed.
func isClosed(dead <-chan struct{}) bool {
	select {
	case <-dead:
		return true
	default:
		return false
	}
}
