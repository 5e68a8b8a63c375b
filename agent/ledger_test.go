package agent

import (
	"context"
	"testing"
	"time"

	"warren/llm"
)

// The ledger keeps which host answered each call, so a run served by several hosts shows
// where each answer came from after the process has gone.
func TestLedgerKeepsTheHostOfEachCall(t *testing.T) {
	s := testStore(t)
	ctx := context.Background()
	for _, host := range []string{"http://gpu1:11434", "http://gpu2:11434"} {
		e := llm.LedgerEntry{Run: "r", Time: time.Now(), Node: "plan", Role: "chat", Model: "qwen3:8b", Host: host,
			Kind: "structured", Attempts: 1, Outcome: "ok", Key: "k"}
		if err := s.RecordLedger(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Ledger(ctx, "r")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Host != "http://gpu1:11434" || got[1].Host != "http://gpu2:11434" {
		t.Errorf("ledger %+v", got)
	}
}
