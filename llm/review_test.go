package llm_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"warren/config"
	"warren/llm"
	"warren/llm/llmtest"
)

func TestEmbedUnderTokenBudgetLeavesRoomForLaterCalls(t *testing.T) {
	srv := llmtest.New(t)
	srv.Handle(&llmtest.Rule{Replies: []string{goodVerdict}})
	g := newGateway(t, srv.URL)
	m := newMeter(llm.Budget{Tokens: 100_000})
	if _, err := g.Embed(context.Background(), m.call(), []string{"arsine", "phosphine"}, nil); err != nil {
		t.Fatal(err)
	}
	var v verdict
	if err := g.Structured(context.Background(), llm.Request{Call: m.call(), Prompt: "decide"}, &v); err != nil {
		t.Fatalf("an embed call must not hold on to the budget: %v", err)
	}
}

func TestParallelCallsUnderTokenBudgetWithoutNumPredict(t *testing.T) {
	srv := llmtest.New(t)
	srv.SetLatency(30 * time.Millisecond) // keep both calls in flight together
	srv.Handle(&llmtest.Rule{Replies: []string{goodVerdict}})
	g := newGateway(t, srv.URL) // the default config sets no num_predict
	m := newMeter(llm.Budget{Tokens: 1_000_000})
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var v verdict
			errs[i] = g.Structured(context.Background(), llm.Request{Call: m.call(), Prompt: "decide"}, &v)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("call %d refused: %v", i, err)
		}
	}
	for _, r := range srv.Requests() {
		if p, _ := r.Options["num_predict"].(float64); p <= 0 || p > 4096 {
			t.Errorf("each call gets a bounded allowance, not the whole budget: num_predict %v", r.Options["num_predict"])
		}
	}
}

func TestLengthRetryDoublesWhatWasSent(t *testing.T) {
	srv := llmtest.New(t)
	srv.Handle(&llmtest.Rule{Replies: []string{goodVerdict}})
	srv.Inject(llmtest.Fault{Path: "/api/chat", Truncate: true})
	g := newGateway(t, srv.URL) // no num_predict configured
	m := newMeter(llm.Budget{Tokens: 1_000_000})
	var v verdict
	if err := g.Structured(context.Background(), llm.Request{Call: m.call(), Prompt: "decide"}, &v); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	first, _ := reqs[0].Options["num_predict"].(float64)
	second, _ := reqs[1].Options["num_predict"].(float64)
	if first <= 0 || second != 2*first {
		t.Errorf("want the retry to double the sent num_predict: %v then %v", first, second)
	}
}

func TestNonModel404IsNotAMissingModel(t *testing.T) {
	plain := httptest.NewServer(http.NotFoundHandler()) // "404 page not found", as a wrong path gives
	defer plain.Close()
	g := newGateway(t, plain.URL)
	var v verdict
	err := g.Structured(context.Background(), llm.Request{Prompt: "decide"}, &v)
	if err == nil || errors.Is(err, llm.ErrModelMissing) || strings.Contains(err.Error(), "ollama pull") {
		t.Fatalf("a 404 without a model message must not suggest `ollama pull`: %v", err)
	}
}

func TestTimeoutIsNotReportedAsUnreachable(t *testing.T) {
	srv := llmtest.New(t)
	srv.SetLatency(2 * time.Second)
	srv.Handle(&llmtest.Rule{Replies: []string{goodVerdict}})
	g := newGateway(t, srv.URL, func(c *config.Config) { c.Ollama.Timeout = 50 * time.Millisecond })
	var v verdict
	err := g.Structured(context.Background(), llm.Request{Prompt: "decide"}, &v)
	var te *llm.TimeoutError
	if !errors.As(err, &te) || errors.Is(err, llm.ErrUnreachable) || srv.Count("/api/chat") != 1 {
		t.Fatalf("want one TimeoutError, not retries ending in 'unreachable': %v after %d requests", err, srv.Count("/api/chat"))
	}
}

func TestCallerMistakesSendNothing(t *testing.T) {
	srv := llmtest.New(t)
	srv.Handle(&llmtest.Rule{Replies: []string{goodVerdict}})
	g := newGateway(t, srv.URL)
	var v verdict
	if err := g.Structured(context.Background(), llm.Request{Prompt: "x"}, v); err == nil || errors.Is(err, llm.ErrInvalidOutput) {
		t.Errorf("a non-pointer must be refused as a caller error: %v", err)
	}
	if err := g.Structured(context.Background(), llm.Request{Role: "poet", Prompt: "x"}, &v); err == nil || !strings.Contains(err.Error(), "unknown model role") {
		t.Errorf("an unknown role must be refused: %v", err)
	}
	if n := srv.Count("/api/chat"); n != 0 {
		t.Errorf("caller mistakes must not reach the model: %d requests", n)
	}
}

func TestPanickingCallbackReleasesSlotAndBudget(t *testing.T) {
	srv := llmtest.New(t)
	srv.Handle(&llmtest.Rule{Replies: []string{"some text"}})
	g := newGateway(t, srv.URL, func(c *config.Config) { c.Ollama.MaxConcurrency = 1 })
	m := newMeter(llm.Budget{Tokens: 20_000})
	func() {
		defer func() { recover() }()
		g.Text(context.Background(), llm.Request{Call: m.call(), Prompt: "x", OnToken: func(string) { panic("consumer bug") }})
	}()
	done := make(chan error, 1)
	go func() {
		_, err := g.Text(context.Background(), llm.Request{Call: m.call(), Prompt: "x"})
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the slot and the reservation must be released: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the host slot leaked: the next call never ran")
	}
}

type Inner struct {
	Kind string `json:"kind" schema:"enum=a|b"`
}

type outer struct {
	Inner
	Name string `json:"name"`
}

func TestEmbeddedStructsAreFlattened(t *testing.T) {
	srv := llmtest.New(t)
	srv.Handle(&llmtest.Rule{Replies: []string{`{"kind":"b","name":"silane"}`}})
	g := newGateway(t, srv.URL)
	var o outer
	if err := g.Structured(context.Background(), llm.Request{Prompt: "x"}, &o); err != nil {
		t.Fatal(err)
	}
	if o.Kind != "b" || o.Name != "silane" {
		t.Errorf("decoded %+v", o)
	}
	s, _ := llm.SchemaOf(outer{})
	if s.Property("kind") == nil || s.Property("Inner") != nil {
		t.Errorf("the embedded fields belong at the top level: %+v", s.Properties)
	}
}
