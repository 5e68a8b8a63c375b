package jobs

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"warren/agent"
)

// syncBuffer is a log that goroutines write to while the test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// panicsAtStep is work that starts a step, waits for go and then panics in it.
func panicsAtStep(run string, start <-chan struct{}) Work {
	return func(ctx context.Context, em *Emitter) (string, error) {
		em.Agent(agent.Event{Run: run, Node: "execute", Kind: agent.EventNodeStarted})
		<-start
		var m map[string]int
		m["boom"]++ // a nil map: the kind of bug a node may have
		return JobDone, nil
	}
}

func TestAPanickingJobFailsAloneAndIsLogged(t *testing.T) {
	jobs, _ := openJobs(t)
	var log syncBuffer
	jobs.SetLogger(slog.New(slog.NewTextHandler(&log, nil)))
	ctx := context.Background()
	steps := make(chan int)
	if _, err := jobs.Start(ctx, "steady", KindResearch, "alice", "her run", stepper(steps)); err != nil {
		t.Fatal(err)
	}
	start := make(chan struct{})
	_, sub, err := jobs.StartAttached(ctx, "boom", KindResearch, "bob", "his run", panicsAtStep("boom", start))
	if err != nil {
		t.Fatal(err)
	}
	steps <- 1
	close(start)
	evs := collect(sub)

	// His job failed, in words for him, and the screen following it hears of the step that
	// failed.
	last := evs[len(evs)-1].Job
	if last.State != JobFailed || !strings.Contains(last.Error, "job boom failed: internal error (panic: assignment to entry in nil map)") ||
		!strings.Contains(last.Error, "it was logged and the server goes on") {
		t.Fatalf("the job's last event: %+v", last)
	}
	var marked bool
	for _, e := range evs {
		if e.Agent != nil && e.Agent.Kind == agent.EventError && e.Agent.Node == "execute" && e.Agent.Summary == last.Error {
			marked = true
		}
	}
	if !marked {
		t.Errorf("no error event for the step in flight: %+v", evs)
	}
	if got, _ := jobs.Get(ctx, "boom"); got.State != JobFailed || got.Error != last.Error {
		t.Errorf("the job's record: %+v", got)
	}
	// The log has the panic and its stack; the analyst's words have no stack.
	logged := log.String()
	for _, want := range []string{"a job panicked", "job=boom", "owner=bob", "assignment to entry in nil map", "panic_test.go", "panicsAtStep"} {
		if !strings.Contains(logged, want) {
			t.Errorf("the log lacks %q:\n%s", want, logged)
		}
	}
	if strings.Contains(last.Error, "goroutine") || strings.Contains(last.Error, ".go:") {
		t.Errorf("the analyst's error carries the stack: %s", last.Error)
	}

	// Her job went on, and ends done.
	steps <- 2
	close(steps)
	jobs.Wait(ctx, "steady")
	if got, _ := jobs.Get(ctx, "steady"); got.State != JobDone {
		t.Fatalf("her job beside the panic: %+v", got)
	}
}

func TestAPanicInAShutdownFailsTheJobRatherThanInterruptingIt(t *testing.T) {
	jobs, _ := openJobs(t)
	ctx := context.Background()
	work := func(ctx context.Context, em *Emitter) (string, error) {
		<-ctx.Done()
		panic("stopping went wrong")
	}
	if _, err := jobs.Start(ctx, "run-1", KindResearch, "ana", "run", work); err != nil {
		t.Fatal(err)
	}
	jobs.Shutdown()
	// Interrupted, it would be resumed into the same panic at the next start.
	if got, _ := jobs.Get(ctx, "run-1"); got.State != JobFailed || !strings.Contains(got.Error, "panic: stopping went wrong") {
		t.Fatalf("a job that panicked as the server stopped: %+v", got)
	}
}

func TestFailInterruptedMarksOnlyAnInterruptedJobOutsideAShutdown(t *testing.T) {
	jobs, db := openJobs(t)
	ctx := context.Background()
	for _, id := range []string{"left", "kept"} {
		if _, err := db.ExecContext(ctx, `INSERT INTO jobs (id, kind, owner, title, state, created_at, updated_at)
VALUES (?, 'research', 'ana', 'q', 'interrupted', '', '')`, id); err != nil {
			t.Fatal(err)
		}
	}
	steps := make(chan int)
	if _, err := jobs.Start(ctx, "live", KindResearch, "ana", "run", stepper(steps)); err != nil {
		t.Fatal(err)
	}
	if ok, err := jobs.FailInterrupted(ctx, "left", "its resume failed"); !ok || err != nil {
		t.Fatalf("an interrupted job: %v %v", ok, err)
	}
	if got, _ := jobs.Get(ctx, "left"); got.State != JobFailed || got.Error != "its resume failed" {
		t.Fatalf("after FailInterrupted: %+v", got)
	}
	if ok, _ := jobs.FailInterrupted(ctx, "live", "no"); ok {
		t.Fatal("a running job was marked failed")
	}
	jobs.Shutdown()
	if ok, _ := jobs.FailInterrupted(ctx, "kept", "no"); ok {
		t.Fatal("a job was marked failed during a shutdown")
	}
	if got, _ := jobs.Get(ctx, "kept"); got.State != JobInterrupted {
		t.Fatalf("the job left alone in the shutdown: %+v", got)
	}
}

func TestPanicFailureWordsOnlyPanics(t *testing.T) {
	plain := errors.New("model unreachable")
	if got := PanicFailure("run-1", plain); got != plain {
		t.Errorf("a plain error was changed: %v", got)
	}
	if PanicFailure("run-1", nil) != nil {
		t.Error("nil became an error")
	}
	err := PanicFailure("run-1", &agent.PanicError{Node: "plan", Value: "boom"})
	want := "job run-1 failed: internal error in step plan (panic: boom); it was logged and the server goes on"
	if err.Error() != want || PanicFailure("run-1", err) != err {
		t.Errorf("got %q, want %q once", err, want)
	}
	var pe *agent.PanicError
	if !errors.Is(err, agent.ErrPanicked) || !errors.As(err, &pe) || pe.Value != "boom" {
		t.Errorf("the worded error lost its kind: %#v", err)
	}
}

func TestGuardAndRecoverLogAPanicAndGoOn(t *testing.T) {
	var log syncBuffer
	l := slog.New(slog.NewTextHandler(&log, nil))
	err := Guard(l, "a handler panicked", func() { panic("in the handler") }, "analyst", "bob")
	var pe *agent.PanicError
	if !errors.As(err, &pe) || pe.Value != "in the handler" || len(pe.Stack) == 0 {
		t.Fatalf("Guard: %#v", err)
	}
	if Guard(l, "fine", func() {}) != nil {
		t.Fatal("Guard without a panic returned an error")
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer Recover(l, "a goroutine panicked", "analyst", "alice")
		panic("in the goroutine")
	}()
	<-done
	logged := log.String()
	for _, want := range []string{"a handler panicked", "analyst=bob", "in the handler", "a goroutine panicked", "analyst=alice", "in the goroutine", "panic_test.go"} {
		if !strings.Contains(logged, want) {
			t.Errorf("the log lacks %q:\n%s", want, logged)
		}
	}
}
