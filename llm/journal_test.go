package llm_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"warren/llm"
	"warren/llm/llmtest"
)

type memJournal struct {
	mu sync.Mutex
	m  map[string]llm.JournalEntry
}

func (j *memJournal) Lookup(_ context.Context, key string) (llm.JournalEntry, bool, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	e, ok := j.m[key]
	return e, ok, nil
}

func (j *memJournal) Record(_ context.Context, key string, e llm.JournalEntry) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.m[key] = e
	return nil
}

func (j *memJournal) Forget(_ context.Context, key string, e llm.JournalEntry) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if cur, ok := j.m[key]; ok && cur.Content == e.Content && cur.DoneReason == e.DoneReason && cur.Predict == e.Predict {
		delete(j.m, key)
	}
	return nil
}

// A structured call that failed is not replayed: resumed, it asks the model again, and
// a model that answers well this time lets the run go on.
func TestFailedStructuredCallIsAskedAgainAfterResume(t *testing.T) {
	srv := llmtest.New(t)
	srv.Handle(&llmtest.Rule{Replies: []string{"prose, not JSON"}, Times: 3})
	srv.Handle(&llmtest.Rule{Replies: []string{goodVerdict}})
	g := newGateway(t, srv.URL) // two repair rounds: three requests fail
	j := &memJournal{m: map[string]llm.JournalEntry{}}
	ctx, call := context.Background(), llm.Call{Journal: j}
	var v verdict
	if err := g.Structured(ctx, llm.Request{Call: call, Prompt: "decide"}, &v); !errors.Is(err, llm.ErrInvalidOutput) {
		t.Fatalf("want ErrInvalidOutput, got %v", err)
	}
	if len(j.m) != 0 {
		t.Errorf("the failed call's %d answers are still in the journal", len(j.m))
	}
	if err := g.Structured(ctx, llm.Request{Call: call, Prompt: "decide"}, &v); err != nil || v.Decision != "follow" {
		t.Fatalf("asked again, the call succeeds: %+v %v", v, err)
	}
	if n := srv.Count("/api/chat"); n != 4 {
		t.Errorf("%d requests, want 3 failed and 1 new", n)
	}
}

func TestJournalReplaysCompletedCallsIncludingRepairs(t *testing.T) {
	srv := llmtest.New(t)
	srv.Handle(&llmtest.Rule{Replies: []string{"not json", goodVerdict}})
	srv.Handle(&llmtest.Rule{Reply: func(llmtest.Call) string { return "embedded?" }})
	g := newGateway(t, srv.URL)
	j := &memJournal{m: map[string]llm.JournalEntry{}}
	m := newMeter(llm.Budget{})
	ctx, call := context.Background(), m.call()
	call.Journal = j

	var first, replayed verdict
	if err := g.Structured(ctx, llm.Request{Call: call, Prompt: "decide"}, &first); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Embed(ctx, call, []string{"silane"}, nil); err != nil {
		t.Fatal(err)
	}
	chats, embeds, entries := srv.Count("/api/chat"), srv.Count("/api/embed"), len(m.kinds())
	if err := g.Structured(ctx, llm.Request{Call: call, Prompt: "decide"}, &replayed); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Embed(ctx, call, []string{"silane"}, nil); err != nil {
		t.Fatal(err)
	}
	if srv.Count("/api/chat") != chats || srv.Count("/api/embed") != embeds || len(m.kinds()) != entries {
		t.Errorf("a replay must not call the model or add ledger entries: chat %d→%d, embed %d→%d, ledger %d→%d",
			chats, srv.Count("/api/chat"), embeds, srv.Count("/api/embed"), entries, len(m.kinds()))
	}
	if replayed != first {
		t.Errorf("the replay returns the same answer, repaired the same way: %+v vs %+v", replayed, first)
	}
}

func TestJournalReplaysALengthRetryUnderATokenBudget(t *testing.T) {
	srv := llmtest.New(t)
	srv.Handle(&llmtest.Rule{Replies: []string{goodVerdict}})
	srv.Inject(llmtest.Fault{Path: "/api/chat", Truncate: true})
	g := newGateway(t, srv.URL)
	j := &memJournal{m: map[string]llm.JournalEntry{}}
	call := func() {
		m := newMeter(llm.Budget{Tokens: 3000}) // caps num_predict well below the default allowance
		var v verdict
		call := m.call()
		call.Journal = j
		if err := g.Structured(context.Background(), llm.Request{Call: call, Prompt: "decide"}, &v); err != nil {
			t.Fatal(err)
		}
	}
	call()
	sent := srv.Count("/api/chat")
	call() // a resumed run asks the same: the truncated answer and its retry both replay
	if srv.Count("/api/chat") != sent || sent != 2 {
		t.Errorf("want 2 requests and no more on replay, got %d then %d", sent, srv.Count("/api/chat"))
	}
}

// Identical calls of one run made at once are made once: the second waits for the first and
// replays its answer from the journal, as it would had it come later. So a run's calls do not
// depend on how many it makes at once.
func TestIdenticalCallsInFlightAreMadeOnce(t *testing.T) {
	srv := llmtest.New(t)
	srv.SetSlots(4)
	srv.SetLatency(20 * time.Millisecond)
	srv.Handle(&llmtest.Rule{Replies: []string{goodVerdict}})
	g := newGateway(t, srv.URL)
	call := llm.Call{Run: llm.NewRun("r", llm.Budget{}, nil), Journal: &memJournal{m: map[string]llm.JournalEntry{}}}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			var v verdict
			if err := g.Structured(context.Background(), llm.Request{Call: call, Prompt: "decide"}, &v); err != nil || v.Decision != "follow" {
				t.Errorf("%+v %v", v, err)
			}
		})
	}
	wg.Wait()
	if n, used := srv.Count("/api/chat"), call.Run.Usage().Calls; n != 1 || used != 1 {
		t.Errorf("four identical calls at once: %d requests, %d calls metered; want 1", n, used)
	}
}
