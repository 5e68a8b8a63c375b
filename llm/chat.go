package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/ollama/ollama/api"

	"warren/config"
)

// Message is one turn of a conversation.
type Message struct {
	Role    string `json:"role"` // system, user, assistant
	Content string `json:"content"`
}

// Request is one model call.
type Request struct {
	// Call is the run the call is made for: it meters, records and replays the call. The
	// zero Call makes a call outside any run.
	Call        Call
	Role        config.RoleName // chat when empty
	System      string
	History     []Message // earlier turns, sent before Prompt
	Prompt      string
	Schema      *Schema  // Structured: overrides the schema derived from the output type
	NumPredict  int      // overrides the role's num_predict
	Temperature *float64 // overrides the role's temperature

	// OnToken receives the visible answer as it streams (thinking removed).
	OnToken func(text string)
	// OnRestart tells a streaming consumer to discard what it received: the exchange failed
	// mid-answer and starts again.
	OnRestart func()
}

// Answer is the result of a text call.
type Answer struct {
	Text      string
	Truncated bool // the model stopped at its length limit
}

// answer is what one exchange brought back.
type answer struct {
	key              string // the request's journal key
	replayed         bool   // from the journal, not the model
	predict          int    // the num_predict sent (0: none)
	content          string
	doneReason       string
	promptTokens     int
	completionTokens int
}

// journalEntry is what the journal keeps of an answer.
func (a *answer) journalEntry() JournalEntry {
	return JournalEntry{Content: a.content, DoneReason: a.doneReason, Predict: a.predict,
		PromptTokens: a.promptTokens, CompletionTokens: a.completionTokens}
}

// exchange is one request/answer round with the model, retried on transient failures and
// metered against the run of the request's Call. judge, when given, inspects the answer and
// returns the ledger outcome; otherwise the outcome is "ok" or "truncated".
type exchange struct {
	kind       string
	messages   []api.Message
	format     json.RawMessage
	numPredict int
	req        *Request
	judge      func(a *answer) string
}

func (g *Gateway) target(role config.RoleName) (target, error) {
	if role == "" {
		role = config.RoleChat
	}
	t, ok := g.roles[role]
	if !ok {
		return target{}, fmt.Errorf("unknown model role %q (use chat, fast or embed)", role)
	}
	return t, nil
}

func (g *Gateway) send(ctx context.Context, t target, x exchange) (a answer, err error) {
	journal := x.req.Call.Journal
	key := requestKey(t.model, x.messages, x.format, x.numPredict, x.req.Temperature)
	done, err := g.flights.join(ctx, x.req.Call, key)
	if err != nil {
		return answer{}, err
	}
	defer done() // after the answer is journaled (deferred below)
	if journal != nil {
		if e, ok, err := journal.Lookup(ctx, key); err == nil && ok {
			a = answer{key: key, replayed: true, predict: e.Predict, content: e.Content, doneReason: e.DoneReason,
				promptTokens: e.PromptTokens, completionTokens: e.CompletionTokens}
			if x.judge != nil {
				x.judge(&a) // the caller reads its verdict from the judge, as for a live answer
			}
			if x.req.OnToken != nil {
				x.req.OnToken(StripThink(a.content))
			}
			g.log.Debug("model exchange replayed from the journal", "role", t.role, "kind", x.kind)
			return a, nil
		}
	}
	texts := []string{string(x.format)}
	for _, m := range x.messages {
		texts = append(texts, m.Content)
	}
	estimate := estimateTokens(texts...)
	run := x.req.Call.Run
	var res reservation
	if run != nil {
		if res, err = run.reserve(estimate, x.numPredict, true); err != nil {
			return answer{}, err
		}
	}
	a.key, a.predict = key, x.numPredict
	if res.allowance > 0 && (a.predict <= 0 || a.predict > res.allowance) {
		a.predict = res.allowance
	}
	opts := maps.Clone(t.options)
	if a.predict > 0 {
		opts["num_predict"] = a.predict
	}
	if x.req.Temperature != nil {
		opts["temperature"] = *x.req.Temperature
	}
	stream := true
	chatReq := &api.ChatRequest{Model: t.model, Messages: x.messages, Stream: &stream, Format: x.format,
		KeepAlive: t.keep, Options: opts}

	start := time.Now()
	attempts := 0
	var used *host // the host that answered, or was asked last
	// The ledger entry is written on every path, a panicking callback included, so the
	// reservation is always given back.
	defer func() {
		entry := LedgerEntry{Time: start, Node: x.req.Call.Node, Role: string(t.role), Model: t.model, Host: hostURL(used, t),
			Kind: x.kind, PromptTokens: a.promptTokens, CompletionTokens: a.completionTokens,
			Duration: time.Since(start), Attempts: attempts, Key: key}
		switch {
		case err != nil:
			entry.Outcome, entry.Error = "error", err.Error()
		case x.judge != nil:
			entry.Outcome = x.judge(&a)
		case a.doneReason == "length":
			entry.Outcome = "truncated"
		default:
			entry.Outcome = "ok"
		}
		if journal != nil && err == nil {
			if jerr := journal.Record(ctx, key, a.journalEntry()); jerr != nil {
				g.log.Warn("couldn't record a model answer in the journal", "error", jerr)
			}
		}
		if run != nil {
			run.settle(res, entry)
		}
		g.log.Debug("model exchange", "role", entry.Role, "model", entry.Model, "kind", entry.Kind,
			"outcome", entry.Outcome, "attempts", attempts, "duration", entry.Duration)
	}()
	attempts, used, err = g.withRetry(ctx, t, func(ctx context.Context, h *host) error {
		var content strings.Builder
		filter := thinkFilter{}
		done := false
		a = answer{key: key, predict: a.predict}
		err := h.streamChat(ctx, chatReq, func(r api.ChatResponse) {
			content.WriteString(r.Message.Content)
			if x.req.OnToken != nil {
				if visible := filter.Push(r.Message.Content); visible != "" {
					x.req.OnToken(visible)
				}
			}
			if r.Done {
				done = true
				a.doneReason, a.promptTokens, a.completionTokens = r.DoneReason, r.PromptEvalCount, r.EvalCount
			}
		})
		if err != nil {
			return err
		}
		if !done {
			return errStreamCut
		}
		if x.req.OnToken != nil {
			if rest := filter.Flush(); rest != "" {
				x.req.OnToken(rest)
			}
		}
		a.content = content.String()
		return nil
	}, x.req.OnRestart)
	return a, err
}

// Text streams a plain answer; thinking is removed from both the stream and the result.
func (g *Gateway) Text(ctx context.Context, req Request) (Answer, error) {
	t, err := g.target(req.Role)
	if err != nil {
		return Answer{}, err
	}
	a, err := g.send(ctx, t, exchange{kind: "text", messages: buildMessages(req), numPredict: predictFor(t, req), req: &req})
	if err != nil {
		return Answer{}, err
	}
	return Answer{Text: StripThink(a.content), Truncated: a.doneReason == "length"}, nil
}

func buildMessages(req Request) []api.Message {
	msgs := make([]api.Message, 0, len(req.History)+2)
	if req.System != "" {
		msgs = append(msgs, api.Message{Role: "system", Content: req.System})
	}
	for _, m := range req.History {
		msgs = append(msgs, api.Message{Role: m.Role, Content: m.Content})
	}
	if req.Prompt != "" {
		msgs = append(msgs, api.Message{Role: "user", Content: req.Prompt})
	}
	return msgs
}

func predictFor(t target, req Request) int {
	if req.NumPredict > 0 {
		return req.NumPredict
	}
	return t.predict
}
