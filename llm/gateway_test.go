package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"warren/config"
	"warren/llm"
	"warren/llm/llmtest"
)

// verdict is a small structured answer used across the tests.
type verdict struct {
	Decision   string  `json:"decision" schema:"enum=follow|skip"`
	Reason     string  `json:"reason" schema:"minLength=3"`
	Confidence float64 `json:"confidence" schema:"min=0,max=1"`
}

const goodVerdict = `{"decision":"follow","reason":"names a section of the same law","confidence":0.8}`

func testConfig(host string) *config.Config {
	c := config.Default()
	c.Ollama.Host = host
	c.Ollama.BackoffBase = time.Millisecond
	c.Ollama.BackoffMax = 5 * time.Millisecond
	c.Ollama.Timeout = 10 * time.Second
	return c
}

func newGateway(t testing.TB, host string, adjust ...func(*config.Config)) *llm.Gateway {
	t.Helper()
	c := testConfig(host)
	for _, a := range adjust {
		a(c)
	}
	g, err := llm.New(c)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// meter attaches a run with a ledger the test can read.
type meter struct {
	mu      sync.Mutex
	entries []llm.LedgerEntry
	run     *llm.Run
}

func newMeter(budget llm.Budget) *meter {
	m := &meter{}
	m.run = llm.NewRun("run-1", budget, func(e llm.LedgerEntry) {
		m.mu.Lock()
		defer m.mu.Unlock()
		m.entries = append(m.entries, e)
	})
	return m
}

func (m *meter) call() llm.Call {
	return llm.Call{Run: m.run, Node: "gate"}
}

func (m *meter) kinds() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for _, e := range m.entries {
		out = append(out, e.Kind+":"+e.Outcome)
	}
	return out
}

func TestStructuredHappyPathSendsSchemaAndRecordsLedger(t *testing.T) {
	srv := llmtest.New(t)
	srv.Handle(&llmtest.Rule{SchemaHas: "decision", Replies: []string{goodVerdict}})
	g := newGateway(t, srv.URL)
	m := newMeter(llm.Budget{})

	var v verdict
	if err := g.Structured(context.Background(), llm.Request{Call: m.call(), System: "You decide.", Prompt: "Follow § 6?"}, &v); err != nil {
		t.Fatal(err)
	}
	if v.Decision != "follow" || v.Confidence != 0.8 {
		t.Fatalf("decoded %+v", v)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("want 1 request, got %d", len(reqs))
	}
	var format map[string]any
	if err := json.Unmarshal(reqs[0].Format, &format); err != nil || format["type"] != "object" {
		t.Fatalf("format not sent as a JSON schema: %s", reqs[0].Format)
	}
	if reqs[0].Model != "qwen3:8b" || reqs[0].Messages[0].Role != "system" {
		t.Errorf("unexpected request: %+v", reqs[0])
	}
	m.mu.Lock()
	e := m.entries[0]
	m.mu.Unlock()
	if e.Run != "run-1" || e.Node != "gate" || e.Role != "chat" || e.Model != "qwen3:8b" || e.Attempts != 1 ||
		e.Outcome != "ok" || e.PromptTokens == 0 || e.CompletionTokens == 0 || e.Duration <= 0 {
		t.Errorf("ledger entry incomplete: %+v", e)
	}
	if u := m.run.Usage(); u.Calls != 1 || u.Tokens() != e.PromptTokens+e.CompletionTokens {
		t.Errorf("usage %+v does not match ledger %+v", u, e)
	}
}

func TestRecoversFromTwo503s(t *testing.T) {
	srv := llmtest.New(t)
	srv.Handle(&llmtest.Rule{Replies: []string{goodVerdict}})
	srv.FailNext(2, http.StatusServiceUnavailable)
	g := newGateway(t, srv.URL)
	m := newMeter(llm.Budget{})

	var v verdict
	if err := g.Structured(context.Background(), llm.Request{Call: m.call(), Prompt: "decide"}, &v); err != nil {
		t.Fatalf("should recover from 2× 503: %v", err)
	}
	if n := srv.Count("/api/chat"); n != 3 {
		t.Errorf("want 3 requests (2 failed, 1 ok), got %d", n)
	}
	if m.entries[0].Attempts != 3 || m.run.Usage().Calls != 1 {
		t.Errorf("the retries belong to one exchange: attempts %d, calls %d", m.entries[0].Attempts, m.run.Usage().Calls)
	}
}

func TestPersistent503EndsAsServerError(t *testing.T) {
	srv := llmtest.New(t)
	srv.Handle(&llmtest.Rule{Replies: []string{goodVerdict}})
	srv.FailNext(10, http.StatusServiceUnavailable)
	g := newGateway(t, srv.URL, func(c *config.Config) { c.Ollama.Retries = 2 })

	var v verdict
	err := g.Structured(context.Background(), llm.Request{Prompt: "decide"}, &v)
	var se *llm.ServerError
	if !errors.As(err, &se) || se.Status != 503 || se.Attempts != 3 {
		t.Fatalf("want ServerError after 3 attempts, got %v", err)
	}
	if n := srv.Count("/api/chat"); n != 3 {
		t.Errorf("retries must be bounded: %d requests", n)
	}
}

func TestRepairsOneInvalidJSON(t *testing.T) {
	srv := llmtest.New(t)
	srv.Handle(&llmtest.Rule{Replies: []string{`{"decision": "follow", "reason": "cut`, goodVerdict}})
	g := newGateway(t, srv.URL)
	m := newMeter(llm.Budget{})

	var v verdict
	if err := g.Structured(context.Background(), llm.Request{Call: m.call(), Prompt: "decide"}, &v); err != nil {
		t.Fatalf("repair tier should recover: %v", err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("want 2 exchanges, got %d", len(reqs))
	}
	repair := reqs[1].Messages
	last := repair[len(repair)-1]
	if repair[len(repair)-2].Role != "assistant" || !strings.Contains(repair[len(repair)-2].Content, `"reason": "cut`) ||
		!strings.Contains(last.Content, "not valid JSON") {
		t.Errorf("repair round must show the bad answer and the error, got %+v", repair)
	}
	if got := strings.Join(m.kinds(), ","); got != "structured:invalid,repair:ok" {
		t.Errorf("ledger kinds %s", got)
	}
}

func TestRepairsSchemaViolations(t *testing.T) {
	srv := llmtest.New(t)
	srv.Handle(&llmtest.Rule{Replies: []string{
		`{"decision":"maybe","reason":"ok then","confidence":1.7}`, goodVerdict}})
	g := newGateway(t, srv.URL)
	var v verdict
	if err := g.Structured(context.Background(), llm.Request{Prompt: "decide"}, &v); err != nil {
		t.Fatal(err)
	}
	repair := srv.Requests()[1].Messages
	msg := repair[len(repair)-1].Content
	for _, want := range []string{`$.decision: "maybe" is not one of ["follow","skip"]`, "$.confidence: 1.7 is above the maximum 1"} {
		if !strings.Contains(msg, want) {
			t.Errorf("repair prompt lacks %q:\n%s", want, msg)
		}
	}
}

func TestInvalidAfterRepairsKeepsRawAnswer(t *testing.T) {
	srv := llmtest.New(t)
	srv.Handle(&llmtest.Rule{Replies: []string{"I think you should follow it."}})
	g := newGateway(t, srv.URL, func(c *config.Config) { c.Ollama.RepairAttempts = 2 })

	var v verdict
	err := g.Structured(context.Background(), llm.Request{Prompt: "decide"}, &v)
	var ie *llm.InvalidOutputError
	if !errors.Is(err, llm.ErrInvalidOutput) || !errors.As(err, &ie) {
		t.Fatalf("want ErrInvalidOutput, got %v", err)
	}
	if ie.Raw != "I think you should follow it." || ie.Rounds != 3 || srv.Count("/api/chat") != 3 {
		t.Errorf("want 1 + 2 repair rounds with the raw answer kept, got %+v after %d requests", ie, srv.Count("/api/chat"))
	}
}

func TestTruncatedAnswerRetriesWithLargerNumPredict(t *testing.T) {
	srv := llmtest.New(t)
	srv.Handle(&llmtest.Rule{Replies: []string{goodVerdict}})
	srv.Inject(llmtest.Fault{Path: "/api/chat", Truncate: true})
	g := newGateway(t, srv.URL, func(c *config.Config) { c.Chat.NumPredict = 256 })
	m := newMeter(llm.Budget{})

	var v verdict
	if err := g.Structured(context.Background(), llm.Request{Call: m.call(), Prompt: "decide"}, &v); err != nil {
		t.Fatalf("should recover from one truncation: %v", err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[0].Options["num_predict"] != float64(256) || reqs[1].Options["num_predict"] != float64(512) {
		t.Fatalf("want a retry with doubled num_predict, got %d requests: %v / %v", len(reqs), reqs[0].Options, reqs[len(reqs)-1].Options)
	}
	if got := strings.Join(m.kinds(), ","); got != "structured:truncated,length_retry:ok" {
		t.Errorf("ledger kinds %s", got)
	}
}

// With no num_predict configured, a structured answer is still bounded, so a model lost inside
// a JSON string ends as a truncated answer instead of writing until its context is full.
func TestStructuredAnswerIsBoundedWithoutConfiguredNumPredict(t *testing.T) {
	srv := llmtest.New(t)
	srv.Handle(&llmtest.Rule{Replies: []string{goodVerdict}})
	srv.Inject(llmtest.Fault{Path: "/api/chat", Truncate: true})
	var v verdict
	if err := newGateway(t, srv.URL).Structured(context.Background(), llm.Request{Prompt: "decide"}, &v); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[0].Options["num_predict"] != float64(4096) || reqs[1].Options["num_predict"] != float64(8192) {
		t.Fatalf("want num_predict 4096, then 8192 after the truncation; got %d requests: %v / %v", len(reqs), reqs[0].Options, reqs[len(reqs)-1].Options)
	}
}

func TestTruncatedTwiceIsInvalid(t *testing.T) {
	srv := llmtest.New(t)
	srv.Handle(&llmtest.Rule{Replies: []string{goodVerdict}})
	srv.Inject(llmtest.Fault{Path: "/api/chat", Truncate: true, Count: 2})
	g := newGateway(t, srv.URL)
	var v verdict
	err := g.Structured(context.Background(), llm.Request{Prompt: "decide"}, &v)
	var ie *llm.InvalidOutputError
	if !errors.As(err, &ie) || !ie.Truncated || srv.Count("/api/chat") != 2 {
		t.Fatalf("want a truncated InvalidOutputError after exactly one retry, got %v (%d requests)", err, srv.Count("/api/chat"))
	}
}

func TestStreamDroppedMidAnswerIsRetried(t *testing.T) {
	srv := llmtest.New(t)
	long := "The gas cabinet procedure requires a purge with nitrogen before every cylinder change."
	srv.Handle(&llmtest.Rule{Replies: []string{long}})
	srv.Inject(llmtest.Fault{Path: "/api/chat", Drop: true})
	g := newGateway(t, srv.URL)

	var streamed strings.Builder
	restarts := 0
	ans, err := g.Text(context.Background(), llm.Request{Prompt: "summarise",
		OnToken:   func(s string) { streamed.WriteString(s) },
		OnRestart: func() { restarts++; streamed.Reset() }})
	if err != nil {
		t.Fatalf("a dropped stream should be retried: %v", err)
	}
	if ans.Text != long || streamed.String() != long {
		t.Errorf("want the whole answer once, got %q / streamed %q", ans.Text, streamed.String())
	}
	if restarts != 1 || srv.Count("/api/chat") != 2 {
		t.Errorf("want one restart and two requests, got %d and %d", restarts, srv.Count("/api/chat"))
	}
}

func TestStructuredStreamDroppedIsRetried(t *testing.T) {
	srv := llmtest.New(t)
	srv.Handle(&llmtest.Rule{Replies: []string{goodVerdict}})
	srv.Inject(llmtest.Fault{Path: "/api/chat", Drop: true})
	g := newGateway(t, srv.URL)
	var v verdict
	if err := g.Structured(context.Background(), llm.Request{Prompt: "decide"}, &v); err != nil || v.Decision != "follow" {
		t.Fatalf("got %+v, %v", v, err)
	}
}

func TestMissingModelIsTypedWithPullHint(t *testing.T) {
	srv := llmtest.New(t)
	srv.RemoveModel("qwen3:8b")
	g := newGateway(t, srv.URL)

	var v verdict
	err := g.Structured(context.Background(), llm.Request{Prompt: "decide"}, &v)
	if !errors.Is(err, llm.ErrModelMissing) {
		t.Fatalf("want ErrModelMissing, got %v", err)
	}
	if !strings.Contains(err.Error(), "ollama pull qwen3:8b") {
		t.Errorf("message should name the pull command: %v", err)
	}
	if n := srv.Count("/api/chat"); n != 1 {
		t.Errorf("a missing model is not retried: %d requests", n)
	}
}

func TestBudgetExhaustedBeforeSending(t *testing.T) {
	srv := llmtest.New(t)
	srv.Handle(&llmtest.Rule{Replies: []string{goodVerdict}})
	g := newGateway(t, srv.URL)
	m := newMeter(llm.Budget{Calls: 2})

	var v verdict
	for i := 0; i < 2; i++ {
		if err := g.Structured(context.Background(), llm.Request{Call: m.call(), Prompt: "decide"}, &v); err != nil {
			t.Fatal(err)
		}
	}
	err := g.Structured(context.Background(), llm.Request{Call: m.call(), Prompt: "decide"}, &v)
	var be *llm.BudgetError
	if !errors.Is(err, llm.ErrBudgetExhausted) || !errors.As(err, &be) || be.Resource != "calls" {
		t.Fatalf("want a calls BudgetError, got %v", err)
	}
	if n := srv.Count("/api/chat"); n != 2 {
		t.Errorf("the refused call must not be sent: %d requests", n)
	}
}

func TestRepairRoundsCountAgainstBudget(t *testing.T) {
	srv := llmtest.New(t)
	srv.Handle(&llmtest.Rule{Replies: []string{"not json", goodVerdict}})
	g := newGateway(t, srv.URL)
	m := newMeter(llm.Budget{Calls: 1})
	var v verdict
	err := g.Structured(context.Background(), llm.Request{Call: m.call(), Prompt: "decide"}, &v)
	if !errors.Is(err, llm.ErrBudgetExhausted) || srv.Count("/api/chat") != 1 {
		t.Fatalf("a repair round beyond the budget must be refused, got %v after %d requests", err, srv.Count("/api/chat"))
	}
}

func TestTokenBudgetCapsAndRefuses(t *testing.T) {
	srv := llmtest.New(t)
	srv.Handle(&llmtest.Rule{Replies: []string{goodVerdict}})
	g := newGateway(t, srv.URL, func(c *config.Config) { c.Chat.NumPredict = 4096 })
	m := newMeter(llm.Budget{Tokens: 400})

	var v verdict
	if err := g.Structured(context.Background(), llm.Request{Call: m.call(), Prompt: "decide"}, &v); err != nil {
		t.Fatal(err)
	}
	predict, _ := srv.Requests()[0].Options["num_predict"].(float64)
	if predict <= 0 || predict >= 400 {
		t.Errorf("num_predict should be capped below the token budget, got %v", predict)
	}
	// Spend the rest with long prompts until the gateway refuses.
	var err error
	for i := 0; i < 20 && err == nil; i++ {
		err = g.Structured(context.Background(), llm.Request{Call: m.call(), Prompt: strings.Repeat("context ", 60)}, &v)
	}
	var be *llm.BudgetError
	if !errors.As(err, &be) || be.Resource != "tokens" {
		t.Fatalf("want a tokens BudgetError, got %v", err)
	}
	if used := m.run.Usage().Tokens(); used > 400 {
		t.Errorf("token budget exceeded: %d > 400", used)
	}
}

func TestUnreachableHostIsTypedWithServeHint(t *testing.T) {
	addr := deadAddress(t)
	g := newGateway(t, "http://"+addr, func(c *config.Config) { c.Ollama.Retries = 2 })

	var v verdict
	err := g.Structured(context.Background(), llm.Request{Prompt: "decide"}, &v)
	var ue *llm.UnreachableError
	if !errors.Is(err, llm.ErrUnreachable) || !errors.As(err, &ue) {
		t.Fatalf("want ErrUnreachable, got %v", err)
	}
	if ue.Attempts != 3 || !strings.Contains(err.Error(), addr) || !strings.Contains(err.Error(), "ollama serve") {
		t.Errorf("message should name the host and `ollama serve` after 3 attempts: %v", err)
	}
}

func TestCancelDuringBackoffReturnsPromptly(t *testing.T) {
	srv := llmtest.New(t)
	srv.Handle(&llmtest.Rule{Replies: []string{goodVerdict}})
	srv.FailNext(100, http.StatusServiceUnavailable)
	g := newGateway(t, srv.URL, func(c *config.Config) {
		c.Ollama.BackoffBase, c.Ollama.BackoffMax, c.Ollama.Retries = time.Hour, time.Hour, 5
	})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		var v verdict
		errc <- g.Structured(ctx, llm.Request{Prompt: "decide"}, &v)
	}()
	for srv.Count("/api/chat") == 0 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("want context.Canceled, got %v", err)
	}
}

func TestPerHostConcurrencyLimit(t *testing.T) {
	srv := llmtest.New(t)
	var inFlight, peak atomic.Int32
	srv.Handle(&llmtest.Rule{Reply: func(llmtest.Call) string {
		n := inFlight.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(20 * time.Millisecond)
		inFlight.Add(-1)
		return goodVerdict
	}})
	g := newGateway(t, srv.URL, func(c *config.Config) { c.Ollama.MaxConcurrency = 2 })

	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var v verdict
			if err := g.Structured(context.Background(), llm.Request{Prompt: "decide"}, &v); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if p := peak.Load(); p != 2 {
		t.Errorf("want at most (and, with 8 callers, exactly) 2 requests in flight, saw %d", p)
	}
}

func TestEmbedBatches(t *testing.T) {
	srv := llmtest.New(t)
	g := newGateway(t, srv.URL, func(c *config.Config) { c.Ollama.EmbedBatchSize, c.Ollama.MaxConcurrency = 4, 1 }) // one batch at a time
	m := newMeter(llm.Budget{})
	texts := make([]string, 10)
	for i := range texts {
		texts[i] = strings.Repeat("silane ", i+1)
	}
	var progress []int
	vecs, err := g.Embed(context.Background(), m.call(), texts, func(done int) { progress = append(progress, done) })
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != 10 || len(vecs[0]) != 768 {
		t.Fatalf("got %d vectors of %d", len(vecs), len(vecs[0]))
	}
	if n := srv.Count("/api/embed"); n != 3 {
		t.Errorf("10 texts in batches of 4 need 3 requests, got %d", n)
	}
	if jsonText(progress) != "[4,8,10]" {
		t.Errorf("progress %v", progress)
	}
	if got := m.kinds(); len(got) != 3 || got[0] != "embed:ok" {
		t.Errorf("ledger %v", got)
	}
}

func TestEmbedMissingModel(t *testing.T) {
	srv := llmtest.New(t)
	srv.RemoveModel("nomic-embed-text")
	g := newGateway(t, srv.URL)
	_, err := g.Embed(context.Background(), llm.Call{}, []string{"x"}, nil)
	if !errors.Is(err, llm.ErrModelMissing) || !strings.Contains(err.Error(), "ollama pull nomic-embed-text") {
		t.Fatalf("want ErrModelMissing naming the pull command, got %v", err)
	}
}

func TestTextStripsThinkingFromStreamAndResult(t *testing.T) {
	srv := llmtest.New(t)
	srv.Handle(&llmtest.Rule{Replies: []string{"<think>Let me weigh § 6 against § 7.</think>Section 6 applies."}})
	g := newGateway(t, srv.URL)
	var streamed strings.Builder
	ans, err := g.Text(context.Background(), llm.Request{Prompt: "which?", OnToken: func(s string) { streamed.WriteString(s) }})
	if err != nil {
		t.Fatal(err)
	}
	if ans.Text != "Section 6 applies." || streamed.String() != "Section 6 applies." {
		t.Errorf("thinking leaked: %q / %q", ans.Text, streamed.String())
	}
}

func TestProbes(t *testing.T) {
	srv := llmtest.New(t)
	g := newGateway(t, srv.URL)
	ctx := context.Background()
	if v, err := g.HostVersion(ctx, srv.URL); err != nil || v == "" {
		t.Fatalf("version: %q %v", v, err)
	}
	for _, role := range config.Roles {
		if err := g.CheckModel(ctx, role); err != nil {
			t.Errorf("%s: %v", role, err)
		}
	}
	if dim, err := g.EmbedDimension(ctx); err != nil || dim != 768 {
		t.Errorf("dimension %d %v", dim, err)
	}
	srv.RemoveModel("qwen3:8b")
	if err := g.CheckModel(ctx, config.RoleFast); !errors.Is(err, llm.ErrModelMissing) {
		t.Errorf("fast falls back to the chat model, which is gone: %v", err)
	}
	dead := newGateway(t, "http://"+deadAddress(t))
	if _, err := dead.HostVersion(ctx, dead.Hosts(config.RoleChat)[0]); !errors.Is(err, llm.ErrUnreachable) {
		t.Errorf("want ErrUnreachable, got %v", err)
	}
}

func TestSameModel(t *testing.T) {
	cases := []struct {
		a, b string
		want bool
	}{
		{"nomic-embed-text", "nomic-embed-text:latest", true},
		{"qwen3:8b", "qwen3:8b", true},
		{"qwen3:8b", "qwen3:4b", false},
		{"library/llama3", "library/llama3:latest", true},
		{"host:5000/team/model", "host:5000/team/model:latest", true},
	}
	for _, tc := range cases {
		if got := llm.SameModel(tc.a, tc.b); got != tc.want {
			t.Errorf("SameModel(%q, %q) = %v", tc.a, tc.b, got)
		}
	}
}

// deadAddress returns a loopback address on which nothing listens.
func deadAddress(t testing.TB) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

func jsonText(v any) string {
	data, _ := json.Marshal(v)
	return string(data)
}

// A score under a clamp bound that the model gives off its scale in a readable way (a
// percentage on a 0–1 scale, a small overshoot) is read without a repair round; a score far
// off is repaired, and an unclamped overshoot always is. The clamp mark is never sent.
func TestClampedScoresNeedNoRepair(t *testing.T) {
	type scored struct {
		Coverage float64 `json:"coverage" schema:"min=0,max=1,clamp"`
		Quality  []int   `json:"quality" schema:"min=0,max=100,clamp"`
		Strict   float64 `json:"strict" schema:"min=0,max=1"`
	}
	cases := []struct {
		name, replies string // replies separated by |
		coverage      float64
		quality       []int
		requests      int
	}{
		{"percentage and small overshoots", `{"coverage":30,"quality":[150,40,-3],"strict":0.5}`, 0.3, []int{100, 40, 0}, 1},
		{"slightly below zero", `{"coverage":-0.4,"quality":[100],"strict":1}`, 0, []int{100}, 1},
		{"slightly above one", `{"coverage":1.5,"quality":[100],"strict":1}`, 1, []int{100}, 1},
		{"far off is repaired", `{"coverage":-94.69,"quality":[1],"strict":0}|{"coverage":0.2,"quality":[250],"strict":0}|{"coverage":0.2,"quality":[99],"strict":0}`, 0.2, []int{99}, 3},
		{"unclamped overshoot is repaired", `{"coverage":0.2,"quality":[1],"strict":1.5}|{"coverage":0.2,"quality":[1],"strict":1}`, 0.2, []int{1}, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := llmtest.New(t)
			srv.Handle(&llmtest.Rule{Replies: strings.Split(c.replies, "|")})
			var v scored
			if err := newGateway(t, srv.URL).Structured(context.Background(), llm.Request{Prompt: "score"}, &v); err != nil {
				t.Fatal(err)
			}
			if v.Coverage != c.coverage || !slices.Equal(v.Quality, c.quality) {
				t.Errorf("read coverage %v, quality %v; want %v, %v", v.Coverage, v.Quality, c.coverage, c.quality)
			}
			if n := srv.Count("/api/chat"); n != c.requests {
				t.Errorf("%d requests, want %d", n, c.requests)
			}
			if format := string(srv.Requests()[0].Format); strings.Contains(format, "clamp") {
				t.Errorf("the clamp mark is ours, not the server's: %s", format)
			}
		})
	}
}

// Ollama answers 500 to a format its grammar builder cannot read; sending it again cannot help.
func TestRefusedFormatIsNotRetried(t *testing.T) {
	srv := llmtest.New(t)
	srv.SetFallback(llmtest.Meaningless)
	// A type JSON schema does not have: a schema the grammar builder refuses.
	schema := &llm.Schema{Type: "array", Items: &llm.Schema{Type: "float"}}
	var out []any
	err := newGateway(t, srv.URL).Structured(context.Background(), llm.Request{Prompt: "x", Schema: schema}, &out)
	var se *llm.ServerError
	if !errors.As(err, &se) || se.Attempts != 1 || srv.Count("/api/chat") != 1 {
		t.Fatalf("want a ServerError after one attempt, got %v (%d requests)", err, srv.Count("/api/chat"))
	}
}
