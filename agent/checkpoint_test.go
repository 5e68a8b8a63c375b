package agent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// A run recorded without a checkpoint (its process killed before its first step ended) can be
// started again under its id; one with checkpoints cannot.
func TestCreateRunRestartsOnlyARunWithoutCheckpoints(t *testing.T) {
	s, ctx := testStore(t), context.Background()
	if err := s.CreateRun(ctx, "r1", "g", "first"); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateRun(ctx, "r1", "g", "again"); err != nil {
		t.Fatalf("a run without a checkpoint must start afresh: %v", err)
	}
	if err := s.Save(ctx, Checkpoint{Run: "r1", Step: 1, Node: "n", Next: "m", Status: StatusRunning, State: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	err := s.CreateRun(ctx, "r1", "g", "third")
	if err == nil || !strings.Contains(err.Error(), "resume it") {
		t.Errorf("a run with checkpoints must be resumed, not started again: %v", err)
	}
	runs, _ := s.Runs(ctx)
	if len(runs) != 1 || runs[0].Title != "again" || runs[0].Steps != 1 {
		t.Errorf("runs: %+v", runs)
	}
}
