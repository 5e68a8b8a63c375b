package jobs

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"slices"
	"warren/agent"
	"warren/kb"
)

func openJobs(t *testing.T) (*Manager, *sql.DB) {
	t.Helper()
	db, err := kb.OpenDB(filepath.Join(t.TempDir(), "warren.db"), slices.Concat(kb.Migrations, agent.Migrations, Migrations))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	jobs, err := New(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(jobs.Close)
	return jobs, db
}

// stepper is work that takes one step per value sent on steps, emitting the step as a node
// finished with its state.
func stepper(steps <-chan int) Work {
	return func(ctx context.Context, em *Emitter) (string, error) {
		for {
			select {
			case n, ok := <-steps:
				if !ok {
					return JobDone, nil
				}
				state, _ := json.Marshal(map[string]int{"step": n})
				em.Agent(agent.Event{Kind: agent.EventNodeFinished, Node: "step", Step: n, State: state})
				em.Progress(Progress{Done: n, Total: 5})
			case <-ctx.Done():
				return "", ctx.Err()
			}
		}
	}
}

// collect reads a subscription to its end.
func collect(s *Subscription) []Event {
	var out []Event
	for {
		evs, more := s.Next()
		out = append(out, evs...)
		if !more {
			return out
		}
	}
}

func TestLateSubscriberGetsTheStateThenEveryLaterEvent(t *testing.T) {
	jobs, _ := openJobs(t)
	ctx := context.Background()
	steps := make(chan int)
	if _, err := jobs.Start(ctx, "run-1", KindResearch, "ana", "a question", stepper(steps)); err != nil {
		t.Fatal(err)
	}
	first, err := jobs.Subscribe(ctx, "run-1")
	if err != nil {
		t.Fatal(err)
	}
	steps <- 1
	steps <- 2
	// Once the first subscriber has seen the second step's progress, a second subscriber
	// attaches: its first event is the job as it is now.
	for done := 0; done < 2; {
		evs, _ := first.Next()
		for _, e := range evs {
			done = e.Job.Progress.Done
		}
	}
	second, err := jobs.Subscribe(ctx, "run-1")
	if err != nil {
		t.Fatal(err)
	}
	evs, _ := second.Next()
	if len(evs) == 0 || evs[0].Agent != nil || evs[0].Job.Progress.Done != 2 || string(evs[0].Job.Snapshot) != `{"step":2}` {
		t.Fatalf("the late subscriber's first event is not the current state: %+v", evs)
	}
	// The first detaches; the job goes on to the end and the second sees every later step.
	first.Detach()
	steps <- 3
	steps <- 4
	close(steps)
	rest := append(evs[1:], collect(second)...)
	var seen []int
	for _, e := range rest {
		if e.Agent != nil {
			seen = append(seen, e.Agent.Step)
		}
	}
	if len(seen) != 2 || seen[0] != 3 || seen[1] != 4 {
		t.Fatalf("the second subscriber saw steps %v, want [3 4]", seen)
	}
	if last := rest[len(rest)-1]; last.Job.State != JobDone {
		t.Fatalf("the last event is not the job's end: %+v", last.Job)
	}
	got, err := jobs.Get(ctx, "run-1")
	if err != nil || got.State != JobDone || got.Progress.Done != 4 || got.Owner != "ana" {
		t.Fatalf("the record after the end: %+v, %v", got, err)
	}
	// The detached subscriber got no event after it left.
	for _, e := range collect(first) {
		if e.Agent != nil && e.Agent.Step > 2 {
			t.Fatalf("a detached subscriber still got step %d", e.Agent.Step)
		}
	}
}

func TestCancelEndsAJobAsCanceled(t *testing.T) {
	jobs, _ := openJobs(t)
	ctx := context.Background()
	steps := make(chan int)
	jobs.Start(ctx, "fill-1", KindGasFill, "ana", "fill", stepper(steps))
	if _, err := jobs.Start(ctx, "fill-1", KindGasFill, "bo", "fill", stepper(steps)); !errors.Is(err, ErrJobRunning) {
		t.Fatalf("a running job was started twice: %v", err)
	}
	if err := jobs.Cancel("fill-1"); err != nil {
		t.Fatal(err)
	}
	jobs.Wait(ctx, "fill-1")
	got, _ := jobs.Get(ctx, "fill-1")
	if got.State != JobCanceled {
		t.Fatalf("state %q after cancel", got.State)
	}
	if err := jobs.Cancel("fill-1"); !errors.Is(err, ErrNoJob) {
		t.Fatalf("cancelling an ended job: %v", err)
	}
}

func TestAJobOfADeadProcessIsInterrupted(t *testing.T) {
	jobs, db := openJobs(t)
	ctx := context.Background()
	now := time.Now().UTC().Format(time.RFC3339Nano)
	// A job recorded as running by a process that no longer exists (no pid is this large).
	if _, err := db.ExecContext(ctx, `INSERT INTO jobs (id, kind, owner, title, state, pid, created_at, updated_at)
VALUES ('run-dead', 'research', 'ana', 'q', 'running', 2147483600, ?, ?)`, now, now); err != nil {
		t.Fatal(err)
	}
	jobs.Close()
	again, err := New(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	got, err := again.Get(ctx, "run-dead")
	if err != nil || got.State != JobInterrupted {
		t.Fatalf("a dead process's job: %+v, %v", got, err)
	}
	list, _ := again.List(ctx)
	if len(list) != 1 || list[0].ID != "run-dead" {
		t.Fatalf("list: %+v", list)
	}
}

func TestShutdownLeavesJobsInterruptedAndStartsNoMore(t *testing.T) {
	jobs, db := openJobs(t)
	ctx := context.Background()
	steps := make(chan int)
	if _, err := jobs.Start(ctx, "run-1", KindResearch, "ana", "run", stepper(steps)); err != nil {
		t.Fatal(err)
	}
	steps <- 1
	jobs.Shutdown()
	got, _ := jobs.Get(ctx, "run-1")
	if got.State != JobInterrupted {
		t.Fatalf("a job stopped by a shutdown is %q, want interrupted (so the next server resumes it)", got.State)
	}
	if _, err := jobs.Start(ctx, "run-2", KindResearch, "ana", "run", stepper(steps)); err == nil {
		t.Fatal("a job started during the shutdown")
	}
	// A new manager on the same database (the next server) sees it interrupted too.
	next, err := New(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := next.Get(ctx, "run-1"); got.State != JobInterrupted {
		t.Fatalf("the next process sees %q", got.State)
	}
}

// A job that starts while a shutdown begins is waited for: Shutdown never returns with it
// still running (found by the race detector in CI). The job's record is held up by another
// writer, so that the shutdown comes between the job being taken on and its record.
func TestAShutdownWaitsForAJobItMetWhileStarting(t *testing.T) {
	jobs, db := openJobs(t)
	ctx := context.Background()
	release := holdWriteLock(t, db)
	blockUntilCancelled := func(ctx context.Context, em *Emitter) (string, error) {
		<-ctx.Done()
		return "", ctx.Err()
	}
	startErr := make(chan error, 1)
	go func() {
		_, err := jobs.Start(ctx, "run-1", KindResearch, "ana", "run", blockUntilCancelled)
		startErr <- err
	}()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		if got, _ := jobs.Get(ctx, "run-1"); got.State == JobRunning {
			break // taken on, its record waiting for the writer
		}
		if time.Now().After(deadline) {
			t.Fatal("the job was never taken on")
		}
	}
	shutDown := make(chan struct{})
	go func() {
		jobs.Shutdown()
		close(shutDown)
	}()
	time.Sleep(50 * time.Millisecond) // the shutdown reaches its wait for the jobs
	release()
	if err := <-startErr; err != nil {
		t.Fatalf("the job taken on before the shutdown was refused: %v", err)
	}
	<-shutDown
	if got, _ := jobs.Get(ctx, "run-1"); got.State != JobInterrupted {
		t.Fatalf("the job is %q after the shutdown returned, want interrupted", got.State)
	}
}

func TestTheLimitPerOwnerCountsOnlyTheirRunningJobs(t *testing.T) {
	jobs, _ := openJobs(t)
	ctx := context.Background()
	jobs.LimitPerOwner(2)
	steps := make(chan int)
	for _, id := range []string{"a", "b"} {
		if _, err := jobs.Start(ctx, id, KindResearch, "ana", "run "+id, stepper(steps)); err != nil {
			t.Fatal(err)
		}
	}
	_, err := jobs.Start(ctx, "c", KindGasFill, "ana", "fill", stepper(steps))
	if !errors.Is(err, ErrTooManyJobs) || !strings.Contains(err.Error(), "run a") {
		t.Fatalf("ana's third job: %v", err)
	}
	if _, err := jobs.Start(ctx, "d", KindResearch, "bo", "bo's run", stepper(steps)); err != nil {
		t.Fatalf("another analyst is not limited by ana's jobs: %v", err)
	}
	jobs.Cancel("a")
	jobs.Wait(ctx, "a")
	if _, err := jobs.Start(ctx, "c", KindGasFill, "ana", "fill", stepper(steps)); err != nil {
		t.Fatalf("after one of her jobs ended: %v", err)
	}
}

// holdWriteLock takes warren.db's write lock on a connection of its own, as another writer
// would, until release is called: writes of the code under test wait for it meanwhile.
func holdWriteLock(t *testing.T, db *sql.DB) (release func()) {
	t.Helper()
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		conn.Close()
		t.Fatal(err)
	}
	released := false
	t.Cleanup(func() {
		if !released {
			conn.ExecContext(ctx, "ROLLBACK")
		}
		conn.Close()
	})
	return func() {
		released = true
		if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
			t.Fatal(err)
		}
	}
}
