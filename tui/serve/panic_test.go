package serve

import (
	"context"
	"strings"
	"testing"
	"time"

	"warren/service"
	"warren/service/jobs"
)

// brokenRun is a job that starts a step, waits for go and then panics in it, as a node with a
// bug would.
func brokenRun(run string, start <-chan struct{}) jobs.Work {
	return func(ctx context.Context, em *jobs.Emitter) (string, error) {
		em.Agent(service.RunEvent{Time: time.Now(), Run: run, Node: "execute", Kind: service.EventNodeStarted})
		select {
		case <-start:
		case <-ctx.Done():
			return "", ctx.Err()
		}
		var seen map[string]bool
		seen[run] = true // a nil map
		return jobs.JobDone, nil
	}
}

func TestAJobThatPanicsFailsAloneAndTheServerGoesOn(t *testing.T) {
	tm := startTeam(t, Options{Listen: "127.0.0.1:0"})
	tm.llm.SetLatency(100 * time.Millisecond) // her refinement takes several calls: it is in flight
	alice := tm.connect(t, "alice", 110, 32)
	alice.waitFor("Research question")
	alice.send("Which purge sequence applies to silane?\r")
	alice.waitFor("run:")
	hers := waitForJob(t, tm, "alice", jobs.JobRunning)

	// Bob's job runs and his workbench follows it.
	const run = "bob-broken"
	start := make(chan struct{})
	if _, err := tm.svc.As("bob", false).Jobs().Start(context.Background(), run, jobs.KindResearch, "a run with a bug", brokenRun(run, start)); err != nil {
		t.Fatal(err)
	}
	bob := tm.connect(t, "bob", 110, 32)
	bob.waitFor("went on while you were away")
	close(start)

	failed := waitForJob(t, tm, "bob", jobs.JobFailed)
	if failed.ID != run || !strings.Contains(failed.Error, "job bob-broken failed: internal error (panic: assignment to entry in nil map); it was logged and the server goes on") {
		t.Fatalf("his job: %+v", failed)
	}
	bob.waitFor("job bob-broken failed: internal error")

	// Her run goes on to its questions, and the server answers a new connection.
	if j := waitForJob(t, tm, "alice", jobs.JobWaiting); j.ID != hers.ID {
		t.Fatalf("the run that waits is %s, hers is %s", j.ID, hers.ID)
	}
	alice.waitFor("Refinement, round 1")
	again := tm.connect(t, "bob", 110, 32)
	again.waitFor("warren bob")
}
