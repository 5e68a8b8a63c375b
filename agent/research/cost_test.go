package research

import (
	"context"
	"fmt"
	"testing"
	"time"

	"warren/internal/citation"
)

// scenarioCost is what a run of the scripted scenario did and paid.
type scenarioCost struct {
	calls     int // in the run's ledger
	requests  int // chat requests the scripted servers answered
	tasksDone int
	followed  int
	citations int // distinct sources the final report cites
	findings  int
}

func (c scenarioCost) work() string {
	return fmt.Sprintf("%d tasks done, %d references followed, %d sources cited, %d findings", c.tasksDone, c.followed, c.citations, c.findings)
}

func costOf(t testing.TB, h *harness, run string, s *State) scenarioCost {
	t.Helper()
	usage, err := h.store.Usage(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	c := scenarioCost{calls: usage.Calls, findings: len(s.Findings)}
	for _, task := range s.Plan {
		if task.Status == "done" {
			c.tasksDone++
		}
	}
	for _, r := range s.References {
		if r.State == RefFollowed {
			c.followed++
		}
	}
	cited := map[int]bool{}
	for _, n := range citation.Numbers(s.Report) {
		cited[n] = true
	}
	c.citations = len(cited)
	return c
}

// The scripted scenario makes the same model calls at capacity 1, 2 and 4, and at most 80 of
// them (120 before the reading of a passage and its reference detection shared a call and
// the gates were asked per passage), with the work it did before: 3 tasks done, 2 references
// followed, 2 sources cited, 21 findings.
func TestScenarioCallsDoNotDependOnCapacity(t *testing.T) {
	const want = "3 tasks done, 2 references followed, 2 sources cited, 21 findings"
	var first scenarioCost
	for i, slots := range [][]int{{1}, {2}, {4}} {
		h, servers := hostsHarness(t, 2*time.Millisecond, slots)
		run := fmt.Sprint("capacity-", slots[0])
		s := runScenario(t, h, run)
		c := costOf(t, h, run, s)
		for _, srv := range servers {
			c.requests += srv.Count("/api/chat")
		}
		t.Logf("capacity %d: %d calls; %s", slots[0], c.calls, c.work())
		if c.requests != c.calls {
			t.Errorf("capacity %d: the servers answered %d requests, the ledger holds %d calls", slots[0], c.requests, c.calls)
		}
		if c.work() != want {
			t.Errorf("capacity %d: %s, want %s", slots[0], c.work(), want)
		}
		if c.calls > 80 {
			t.Errorf("capacity %d: %d calls, want at most 80", slots[0], c.calls)
		}
		if i == 0 {
			first = c
		} else if c.calls != first.calls {
			t.Errorf("capacity %d made %d calls, capacity 1 made %d", slots[0], c.calls, first.calls)
		}
	}
}

// Tasks that read the same passages make no fewer calls one at a time than at once: each
// task's reading of a passage is its own call, and identical calls of a run are made once
// whatever the timing (before, a passage's reference detection, asked without the task, was
// replayed from the journal when the tasks took turns and paid for again when they ran at once).
func TestOverlappingTasksCostTheSameAtAnyCapacity(t *testing.T) {
	calls := map[int]int{}
	for _, slots := range [][]int{{1}, {4}} {
		h, _ := hostsHarness(t, 2*time.Millisecond, slots)
		scriptRefinement(h.srv, 0.2, []string{"a"})
		scriptWork(h.srv)
		scriptReport(h.srv)
		// The same task twice and a third that finds the same passages.
		s := runOneTask(t, h, "overlap", "Einstufung Kennzeichnung", "Einstufung Kennzeichnung", "Kennzeichnung Einstufung")
		if len(s.Findings) == 0 {
			t.Fatalf("capacity %d: nothing read", slots[0])
		}
		usage, err := h.store.Usage(context.Background(), "overlap")
		if err != nil {
			t.Fatal(err)
		}
		calls[slots[0]] = usage.Calls
	}
	if calls[1] != calls[4] {
		t.Errorf("capacity 1 made %d calls, capacity 4 %d", calls[1], calls[4])
	}
}
