package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/ollama/ollama/api"
)

// Call is a chat request as a rule sees it.
type Call struct {
	Model    string
	Messages []api.Message
	Format   json.RawMessage
	Options  map[string]any
}

// LastUser returns the content of the last user message.
func (c Call) LastUser() string {
	for i := len(c.Messages) - 1; i >= 0; i-- {
		if c.Messages[i].Role == "user" {
			return c.Messages[i].Content
		}
	}
	return ""
}

// Text returns every message's content, one per line.
func (c Call) Text() string {
	var b strings.Builder
	for _, m := range c.Messages {
		b.WriteString(m.Content)
		b.WriteByte('\n')
	}
	return b.String()
}

// SchemaProperties returns the top-level property names of the requested format, if any.
func (c Call) SchemaProperties() []string {
	var s struct {
		Properties json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(c.Format, &s) != nil || len(s.Properties) == 0 {
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(string(s.Properties)))
	var names []string
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return names
		}
		switch t := tok.(type) {
		case json.Delim:
			if t == '{' || t == '[' {
				depth++
			} else {
				depth--
			}
		case string:
			if depth == 1 {
				names = append(names, t)
				var skip json.RawMessage
				if dec.Decode(&skip) != nil {
					return names
				}
			}
		}
	}
}

// Rule answers chat requests that match all of its non-empty conditions.
type Rule struct {
	Name string // shown when a test fails

	Contains    string            // the last user message contains this
	AnyContains string            // any message contains this
	SchemaHas   string            // the requested schema has this top-level property
	Model       string            // the request is for this model
	Match       func(Call) bool   // custom condition
	Replies     []string          // answers in order; the last one repeats
	Reply       func(Call) string // computed answer (used when Replies is empty)
	Times       int               // the rule retires after this many answers (0: never)

	used int
}

func (r *Rule) matches(c Call) bool {
	if r.Times > 0 && r.used >= r.Times {
		return false
	}
	if r.Contains != "" && !strings.Contains(c.LastUser(), r.Contains) {
		return false
	}
	if r.AnyContains != "" && !strings.Contains(c.Text(), r.AnyContains) {
		return false
	}
	if r.Model != "" && !sameModel(r.Model, c.Model) {
		return false
	}
	if r.SchemaHas != "" {
		found := false
		for _, p := range c.SchemaProperties() {
			found = found || p == r.SchemaHas
		}
		if !found {
			return false
		}
	}
	return r.Match == nil || r.Match(c)
}

// take claims the rule's next answer. A fixed reply is returned as text; a computed one as a
// function to call after the server's lock is released, so slow rules do not serialise requests.
func (r *Rule) take() (string, func(Call) string) {
	defer func() { r.used++ }()
	if len(r.Replies) > 0 {
		return r.Replies[min(r.used, len(r.Replies)-1)], nil
	}
	return "", r.Reply
}

// Handle adds a rule; rules are tried in the order they were added.
func (s *Server) Handle(r *Rule) *Rule {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rules = append(s.rules, r)
	return r
}

// Fault is a failure the server injects into the next matching requests.
type Fault struct {
	Path     string // "/api/chat" or "/api/embed"; empty: both
	Count    int    // how many requests it hits
	Status   int    // answer with this HTTP status and an error body
	Drop     bool   // chat: stream half the answer, then cut the connection
	Truncate bool   // chat: stop at half the answer with done_reason "length"
}

func (f *Fault) message() string {
	if f.Status == http.StatusServiceUnavailable {
		return "server busy, please try again. maximum pending requests exceeded"
	}
	return fmt.Sprintf("llmtest injected status %d", f.Status)
}

// Inject queues a fault; queued faults apply in order.
func (s *Server) Inject(f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f.Count <= 0 {
		f.Count = 1
	}
	s.faults = append(s.faults, &f)
}

// FailNext makes the next n chat and embed requests answer with status.
func (s *Server) FailNext(n, status int) { s.Inject(Fault{Count: n, Status: status}) }

// takeFault claims the next queued fault for a request on path. Faults that only make sense
// for a streamed chat (drop, truncate) are left for chat requests.
func (s *Server) takeFault(path string, chat bool) *Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, f := range s.faults {
		if f.Path != "" && f.Path != path || (f.Drop || f.Truncate) && !chat {
			continue
		}
		f.Count--
		if f.Count <= 0 {
			s.faults = append(s.faults[:i], s.faults[i+1:]...)
		}
		return f
	}
	return nil
}

// admit claims the request's fault and answers the request when the fault sets a status or the
// model is unknown, recording it with that status; it reports whether the request goes on.
func (s *Server) admit(w http.ResponseWriter, rec Recorded, chat bool) (*Fault, bool) {
	fault := s.takeFault(rec.Path, chat)
	if fault != nil && fault.Status > 0 {
		s.refuse(w, rec, fault.Status, fault.message())
		return nil, false
	}
	if !s.hasModel(rec.Model) {
		rec.Status = http.StatusNotFound
		s.record(rec)
		notFound(w, rec.Model)
		return nil, false
	}
	return fault, true
}

// refuse records the request with status and answers it with an error.
func (s *Server) refuse(w http.ResponseWriter, rec Recorded, status int, msg string) {
	rec.Status = status
	s.record(rec)
	writeJSON(w, status, map[string]string{"error": msg})
}

func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	var req api.ChatRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	stream := req.Stream == nil || *req.Stream
	rec := Recorded{Path: r.URL.Path, Model: req.Model, Messages: req.Messages, Format: req.Format,
		Options: req.Options, Stream: stream}
	fault, ok := s.admit(w, rec, true)
	if !ok {
		return
	}
	if msg := checkFormat(req.Format); msg != "" {
		s.refuse(w, rec, http.StatusInternalServerError, msg)
		return
	}
	call := Call{Model: req.Model, Messages: req.Messages, Format: req.Format, Options: req.Options}
	reply, ok := s.reply(call)
	if !ok {
		s.refuse(w, rec, http.StatusInternalServerError,
			fmt.Sprintf("llmtest: no rule matches the request (last user message: %.120q)", call.LastUser()))
		return
	}
	slot, dead, ok := s.begin(r.Context(), rec)
	if !ok {
		return
	}
	written := false
	defer func() { slot.release(written) }() // also when a dropped stream panics out
	prompt := 0
	for _, m := range req.Messages {
		prompt += tokenCount(m.Content)
	}
	doneReason := "stop"
	if fault != nil && fault.Truncate {
		reply = reply[:len(reply)/2]
		doneReason = "length"
	}
	final := api.ChatResponse{Model: req.Model, CreatedAt: time.Now(), Done: true, DoneReason: doneReason,
		Message: api.Message{Role: "assistant"},
		Metrics: api.Metrics{PromptEvalCount: prompt, EvalCount: tokenCount(reply)}}
	rc := http.NewResponseController(w)
	if !stream {
		final.Message.Content = reply
		slot.answering()
		writeJSON(w, http.StatusOK, final)
		written = rc.Flush() == nil
		return
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	enc := json.NewEncoder(w)
	pieces := split(reply)
	for i, piece := range pieces {
		if fault != nil && fault.Drop && i >= len(pieces)/2 || isClosed(dead) {
			rc.Flush()
			panic(http.ErrAbortHandler) // cuts the connection without ending the stream
		}
		enc.Encode(api.ChatResponse{Model: req.Model, CreatedAt: time.Now(),
			Message: api.Message{Role: "assistant", Content: piece}})
		rc.Flush()
	}
	if fault != nil && fault.Drop || isClosed(dead) {
		panic(http.ErrAbortHandler)
	}
	slot.answering()
	written = enc.Encode(final) == nil && rc.Flush() == nil
}

func (s *Server) reply(c Call) (string, bool) {
	s.mu.Lock()
	var text string
	var compute func(Call) string
	found := false
	for _, r := range s.rules {
		if r.matches(c) {
			text, compute = r.take()
			found = true
			break
		}
	}
	if !found && s.fallback != nil {
		compute, found = s.fallback, true
	}
	if !found {
		s.unmatched = append(s.unmatched, c.LastUser())
	}
	s.mu.Unlock()
	if compute != nil {
		text = compute(c)
	}
	return text, found
}

// split cuts an answer into stream pieces of a few characters, as a tokenizer would.
func split(s string) []string {
	var out []string
	for len(s) > 0 {
		n := min(len(s), 7)
		for n < len(s) && (s[n]&0xC0) == 0x80 { // never split a UTF-8 sequence
			n++
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	if len(out) == 0 {
		out = []string{""}
	}
	return out
}

// checkFormat refuses a format the way Ollama does, with its message: anything but "json" or
// a schema object, and a schema its grammar builder cannot read. That builder (llama.cpp's
// json-schema-to-grammar) rejects a (sub)schema that has keywords but none it can build from.
func checkFormat(format json.RawMessage) string {
	text := strings.TrimSpace(string(format))
	switch {
	case text == "" || text == "null" || text == `""` || text == `"json"`:
		return ""
	case !strings.HasPrefix(text, "{"):
		return fmt.Sprintf("invalid format: %q; expected \"json\" or a valid JSON Schema object", text)
	}
	var schema map[string]any
	if json.Unmarshal(format, &schema) != nil || !grammarCanRead(schema) {
		return "invalid JSON schema in format"
	}
	return ""
}

func grammarCanRead(schema map[string]any) bool {
	if len(schema) == 0 {
		return true // read as any object
	}
	if t, ok := schema["type"]; ok && !knownTypes(t) {
		return false
	}
	recognised := false
	for _, k := range []string{"type", "$ref", "oneOf", "anyOf", "allOf", "const", "enum", "properties", "items", "pattern"} {
		if _, ok := schema[k]; ok {
			recognised = true
		}
	}
	if !recognised {
		return false
	}
	sub := func(v any) bool {
		m, ok := v.(map[string]any)
		return !ok || grammarCanRead(m)
	}
	if props, ok := schema["properties"].(map[string]any); ok {
		for _, p := range props {
			if !sub(p) {
				return false
			}
		}
	}
	if !sub(schema["items"]) {
		return false
	}
	for _, k := range []string{"oneOf", "anyOf", "allOf"} {
		if list, ok := schema[k].([]any); ok {
			for _, v := range list {
				if !sub(v) {
					return false
				}
			}
		}
	}
	return true
}

// knownTypes says whether a schema's type (a name or a list of names) is one JSON schema has.
func knownTypes(t any) bool {
	known := func(v any) bool {
		switch v {
		case "string", "number", "integer", "boolean", "object", "array", "null":
			return true
		}
		return false
	}
	if list, ok := t.([]any); ok {
		for _, v := range list {
			if !known(v) {
				return false
			}
		}
		return len(list) > 0
	}
	return known(t)
}
