package research

import (
	"context"
	"sync"
	"testing"

	"warren/agent"
	"warren/llm/llmtest"
)

// Every call is in the run's ledger, counted against its budget, before the model sees it:
// when a request arrives, the ledger already holds a row for it. A process killed then
// resumes with the call counted (see cmd/warren's TestKilledRunNeverSendsMoreThanItsBudget).
func TestCallsAreCountedBeforeTheyAreSent(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	var mu sync.Mutex
	var seen, uncounted int
	h.srv.Handle(&llmtest.Rule{Name: "watch", Match: func(c llmtest.Call) bool {
		used, err := h.store.Usage(ctx, "counted")
		mu.Lock()
		defer mu.Unlock()
		seen++
		if err != nil || used.Calls < seen {
			uncounted++
		}
		return false // the scripted rules answer
	}})
	scriptRefinement(h.srv, 0.2, []string{"a"})
	scriptWork(h.srv)
	scriptReport(h.srv)
	h.svc.Start(ctx, "counted", "Welche Pflichten gelten für die Einstufung von Gefahrstoffen?", Options{})
	if out, _, err := h.svc.Resume(ctx, "counted", []byte(`{"action":"approve"}`)); err != nil || out.Status != agent.StatusDone {
		t.Fatalf("%+v %v", out, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if seen == 0 || uncounted > 0 {
		t.Errorf("%d of %d requests reached the model before the ledger counted them", uncounted, seen)
	}
	ledger, _ := h.store.Ledger(ctx, "counted")
	for _, e := range ledger {
		if e.Outcome == agent.OutcomeSent {
			t.Errorf("a finished run keeps a row of a call in flight: %+v", e)
		}
	}
	if len(ledger) != h.srv.Count("/api/chat") {
		t.Errorf("%d ledger rows for %d requests", len(ledger), h.srv.Count("/api/chat"))
	}
}
