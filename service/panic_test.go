package service

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"warren/agent"
	"warren/agent/research"
	"warren/kb"
	"warren/service/jobs"
)

// brokenIndex is a knowledge base whose collection listing has a bug: it panics, or, while
// hold is set, waits for the caller to give up.
type brokenIndex struct {
	kb.Backend
	hold atomic.Bool
}

func (b *brokenIndex) Collections(ctx context.Context) ([]kb.CollectionInfo, error) {
	if b.hold.Load() {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	panic("the index is corrupt")
}

type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// interruptedRun records alice's research run as a dead process left it: checkpointed before
// its retrieve step, its job interrupted.
func interruptedRun(t *testing.T, s *Service, run string) {
	t.Helper()
	ctx := context.Background()
	store := s.RunStore()
	if err := store.CreateRun(ctx, run, research.GraphName, "silane purge"); err != nil {
		t.Fatal(err)
	}
	state, _ := json.Marshal(research.State{Question: "Which purge sequence applies to silane?", Queries: []string{"silane purge"}})
	if err := store.Save(ctx, agent.Checkpoint{Run: run, Step: 1, Node: "generate_queries", Next: "retrieve", Status: agent.StatusRunning, State: state}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ws.DB.ExecContext(ctx, `INSERT INTO jobs (id, kind, owner, title, state, created_at, updated_at)
VALUES (?, 'research', 'alice', 'silane purge', 'interrupted', '', '')`, run); err != nil {
		t.Fatal(err)
	}
}

func waitForState(t *testing.T, s *Service, id, state string) jobs.Job {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		j, err := s.jobs.Get(context.Background(), id)
		if err == nil && j.State == state {
			return j
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s never became %s: %+v %v", id, state, j, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// restart gives s a new job manager on the same database, as the next server would have.
func restart(t *testing.T, s *Service) {
	t.Helper()
	next, err := jobs.New(context.Background(), s.ws.DB)
	if err != nil {
		t.Fatal(err)
	}
	next.SetLogger(s.log)
	s.jobs = next
}

func TestAResumeThatPanicsFailsOnceAndIsNotResumedAgain(t *testing.T) {
	s := openService(t)
	ctx := context.Background()
	var log lockedBuffer
	s.log = slog.New(slog.NewTextHandler(&log, nil))
	s.jobs.SetLogger(s.log)
	index := &brokenIndex{Backend: s.store}
	index.hold.Store(true)
	s.store = index
	t.Cleanup(func() { s.store = index.Backend })
	const run = "run-broken"
	interruptedRun(t, s, run)

	// A clean shutdown while the resume works leaves the run interrupted: the next start
	// resumes it again.
	resumed, err := s.Jobs().ResumeInterrupted(ctx)
	if err != nil || len(resumed) != 1 || resumed[0].ID != run {
		t.Fatalf("first start resumed %+v, %v", resumed, err)
	}
	waitForState(t, s, run, jobs.JobRunning)
	s.jobs.Shutdown()
	if j := waitForState(t, s, run, jobs.JobInterrupted); j.Owner != "alice" {
		t.Fatalf("after the shutdown: %+v", j)
	}

	// The next start resumes it, and its retrieve step panics: the run fails, logged, and the
	// step before it stays checkpointed.
	restart(t, s)
	index.hold.Store(false)
	resumed, err = s.Jobs().ResumeInterrupted(ctx)
	if err != nil || len(resumed) != 1 {
		t.Fatalf("the start after the shutdown resumed %+v, %v", resumed, err)
	}
	j := waitForState(t, s, run, jobs.JobFailed)
	if !strings.Contains(j.Error, "job run-broken failed: internal error in step retrieve (panic: the index is corrupt); it was logged and the server goes on") {
		t.Errorf("the failed job says %q", j.Error)
	}
	cp, err := s.RunStore().Latest(ctx, run)
	if err != nil || cp.Status != agent.StatusFailed || cp.Next != "retrieve" || !strings.Contains(string(cp.State), "silane purge") {
		t.Errorf("the run's checkpoint after the panic: %+v %v", cp, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(log.String(), "a resumed job stopped") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	for _, want := range []string{"a job panicked", "job=run-broken", "the index is corrupt", "panic_test.go", "a resumed job stopped"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the log lacks %q:\n%s", want, log.String())
		}
	}
	steps := countCheckpoints(t, s, run)

	// The start after that leaves it alone.
	s.jobs.Shutdown()
	restart(t, s)
	resumed, err = s.Jobs().ResumeInterrupted(ctx)
	if err != nil || len(resumed) != 0 {
		t.Fatalf("a run that failed at the last start was resumed again: %+v %v", resumed, err)
	}
	if j, _ := s.jobs.Get(ctx, run); j.State != jobs.JobFailed || countCheckpoints(t, s, run) != steps {
		t.Fatalf("the third start touched the run: %+v", j)
	}
}

func countCheckpoints(t *testing.T, s *Service, run string) int {
	t.Helper()
	cps, err := s.RunStore().Checkpoints(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	return len(cps)
}

func TestAResumeThatFailsBeforeItRunsIsNotTriedAgain(t *testing.T) {
	s := openService(t)
	ctx := context.Background()
	// A gas fill's job with no run to say which table it fills.
	if _, err := s.ws.DB.ExecContext(ctx, `INSERT INTO jobs (id, kind, owner, title, state, created_at, updated_at)
VALUES ('gasfill-7', 'gasfill', 'bob', 'gas fill of lab', 'interrupted', '', '')`); err != nil {
		t.Fatal(err)
	}
	resumed, err := s.Jobs().ResumeInterrupted(ctx)
	if err != nil || len(resumed) != 0 {
		t.Fatalf("resumed %+v, %v", resumed, err)
	}
	j, _ := s.jobs.Get(ctx, "gasfill-7")
	if j.State != jobs.JobFailed || !strings.Contains(j.Error, "couldn't resume it when the server started") {
		t.Fatalf("a fill that could not be resumed: %+v", j)
	}
	restart(t, s)
	if resumed, _ := s.Jobs().ResumeInterrupted(ctx); len(resumed) != 0 {
		t.Fatalf("the next start tried it again: %+v", resumed)
	}
}

func TestAPanicOutsideTheStepsFailsTheCallAndTheJobAlike(t *testing.T) {
	s := openService(t)
	ctx := context.Background()
	bob := s.As("bob", false)
	svc, err := bob.researchAgent(0, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var events []agent.Event
	sink := func(e agent.Event) { events = append(events, e) }
	svc.Sink = sink
	out, st, err := bob.InJob(ctx, "run-x", "a question", svc, func(ctx context.Context) (agent.Outcome, *research.State, error) {
		svc.Sink(agent.Event{Run: "run-x", Node: "plan", Kind: agent.EventNodeStarted})
		panic("between the steps")
	})
	want := "job run-x failed: internal error (panic: between the steps); it was logged and the server goes on"
	var pe *agent.PanicError
	if err == nil || err.Error() != want || !errors.As(err, &pe) || out.Status != agent.StatusFailed || st != nil {
		t.Fatalf("the call: %+v %v", out, err)
	}
	if j, _ := s.jobs.Get(ctx, "run-x"); j.State != jobs.JobFailed || j.Error != want {
		t.Fatalf("the job: %+v", j)
	}
	if n := len(events); n == 0 || events[n-1].Kind != agent.EventError || events[n-1].Node != "plan" {
		t.Errorf("the caller's sink never heard the step failed: %+v", events)
	}
	// Someone who opens the run afterwards is told the same.
	if _, _, err := s.As("alice", false).Research().Watch(ctx, "run-x", nil); err == nil || err.Error() != want {
		t.Errorf("watching it: %v", err)
	}
}
