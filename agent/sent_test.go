package agent

import (
	"context"
	"testing"
	"time"

	"warren/llm"
)

// A call recorded before it is sent counts against the run at once; its entry takes the
// place of a "sent" row when it ends, and a row left by a process that died stays counted.
func TestSentCallsCountUntilSettled(t *testing.T) {
	s := testStore(t)
	ctx := context.Background()
	for range 3 {
		if err := s.RecordSend(ctx, "r"); err != nil {
			t.Fatal(err)
		}
	}
	if u, _ := s.Usage(ctx, "r"); u.Calls != 3 {
		t.Fatalf("three calls in flight count as three: %+v", u)
	}
	for _, key := range []string{"a", "b"} {
		e := llm.LedgerEntry{Run: "r", Time: time.Now(), Node: "plan", Role: "chat", Model: "m", Kind: "structured",
			PromptTokens: 10, CompletionTokens: 5, Attempts: 1, Outcome: "ok", Key: key}
		if err := s.SettleLedger(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	u, _ := s.Usage(ctx, "r")
	ledger, _ := s.Ledger(ctx, "r")
	if u.Calls != 3 || u.Tokens() != 30 || len(ledger) != 3 || ledger[0].Outcome != OutcomeSent || ledger[1].Key != "a" || ledger[2].Key != "b" {
		t.Errorf("two settled, one still in flight (the oldest, as a dead process leaves it): %+v %+v", u, ledger)
	}
}
