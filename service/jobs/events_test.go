package jobs

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"warren/agent"
	"warren/kb"
)

// twoProcesses opens one workspace database twice, each with its own manager and connection
// pool, as two warren processes on one box have it.
func twoProcesses(t *testing.T) (here, there *Manager, db *sql.DB) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "warren.db")
	open := func() (*Manager, *sql.DB) {
		db, err := kb.OpenDB(path, slices.Concat(kb.Migrations, agent.Migrations, Migrations))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		m, err := New(context.Background(), db)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(m.Close)
		return m, db
	}
	here, _ = open()
	there, db = open()
	return here, there, db
}

// steps lists the steps of the finished-step events among evs.
func steps(evs []Event) []int {
	var out []int
	for _, e := range evs {
		if e.Agent != nil && e.Agent.Kind == agent.EventNodeFinished {
			out = append(out, e.Agent.Step)
		}
	}
	return out
}

func TestAJobRunByAnotherProcessIsFollowedToItsEnd(t *testing.T) {
	here, there, _ := twoProcesses(t)
	ctx := context.Background()
	work := make(chan int)
	_, own, err := there.StartAttached(ctx, "run-cli", KindResearch, "ana", "a question", stepper(work))
	if err != nil {
		t.Fatal(err)
	}
	work <- 1
	for done := 0; done < 1; { // its process has made the first step
		evs, _ := own.Next()
		for _, e := range evs {
			done = e.Job.Progress.Done
		}
	}
	own.Detach()
	there.log2db.flush()

	sub, err := here.Subscribe(ctx, "run-cli")
	if err != nil {
		t.Fatal(err)
	}
	evs, more := sub.Next()
	if !more || len(evs) == 0 || evs[0].Job.State != JobRunning || evs[0].Job.Progress.Done != 1 || string(evs[0].Job.Snapshot) != `{"step":1}` {
		t.Fatalf("the first event is not the job as its process recorded it: %+v", evs)
	}
	first := evs[0].Seq
	work <- 2
	work <- 3
	close(work)
	rest := append(evs[1:], collect(sub)...)
	if got := steps(rest); !slices.Equal(got, []int{2, 3}) {
		t.Fatalf("followed steps %v, want [2 3]", got)
	}
	last := rest[len(rest)-1]
	if last.Job.State != JobDone {
		t.Fatalf("the follower's last event is not the job's end: %+v", last.Job)
	}
	var finished *agent.Event
	for _, e := range rest {
		if e.Agent != nil && e.Agent.Kind == agent.EventNodeFinished {
			finished = e.Agent
		}
	}
	if string(finished.State) != `{"step":3}` {
		t.Errorf("the last finished step came without the job's state: %q", finished.State)
	}

	// What came before the follower attached is in the job's history, up to its first event.
	hist, err := here.History(ctx, "run-cli", first)
	if err != nil {
		t.Fatal(err)
	}
	if got := steps(hist); !slices.Equal(got, []int{1}) {
		t.Errorf("history up to the first event: steps %v, want [1]", got)
	}
	all, _ := here.History(ctx, "run-cli", 0)
	if got := steps(all); !slices.Equal(got, []int{1, 2, 3}) {
		t.Errorf("the whole history: steps %v, want [1 2 3]", got)
	}
	for i := 1; i < len(all); i++ {
		if all[i].Seq <= all[i-1].Seq {
			t.Fatalf("history out of order at %d: %d after %d", i, all[i].Seq, all[i-1].Seq)
		}
	}
}

func TestAResumedJobNumbersItsEventsOn(t *testing.T) {
	jobs, _ := openJobs(t)
	ctx := context.Background()
	for range 2 {
		work := make(chan int)
		if _, err := jobs.Start(ctx, "run-1", KindResearch, "ana", "q", stepper(work)); err != nil {
			t.Fatal(err)
		}
		work <- 1
		close(work)
		jobs.Wait(ctx, "run-1")
	}
	all, err := jobs.History(ctx, "run-1", 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := steps(all); !slices.Equal(got, []int{1, 1}) {
		t.Fatalf("both starts' steps are kept: %v", got)
	}
	for i := 1; i < len(all); i++ {
		if all[i].Seq != all[i-1].Seq+1 {
			t.Fatalf("event numbers %d then %d", all[i-1].Seq, all[i].Seq)
		}
	}
}

func TestAFollowedJobWhoseProcessDiedIsInterrupted(t *testing.T) {
	here, there, db := twoProcesses(t)
	ctx := context.Background()
	work := make(chan int)
	defer close(work)
	if _, err := there.Start(ctx, "fill-1", KindGasFill, "ana", "fill", stepper(work)); err != nil {
		t.Fatal(err)
	}
	// The record names a process that is gone (no pid is this large), as after a kill -9.
	if _, err := db.Exec(`UPDATE jobs SET pid = 2147483600 WHERE id = 'fill-1'`); err != nil {
		t.Fatal(err)
	}
	sub, err := here.Subscribe(ctx, "fill-1")
	if err != nil {
		t.Fatal(err)
	}
	evs := collect(sub)
	if last := evs[len(evs)-1].Job; last.State != JobInterrupted {
		t.Fatalf("a job whose process died: %+v", last)
	}
}

func TestDetachStopsFollowingAnotherProcess(t *testing.T) {
	here, there, _ := twoProcesses(t)
	ctx := context.Background()
	work := make(chan int)
	defer close(work)
	if _, err := there.Start(ctx, "run-2", KindResearch, "ana", "q", stepper(work)); err != nil {
		t.Fatal(err)
	}
	sub, err := here.Subscribe(ctx, "run-2")
	if err != nil {
		t.Fatal(err)
	}
	sub.Detach()
	if evs := collect(sub); len(evs) > 1 {
		t.Fatalf("events after detach: %+v", evs)
	}
	if got, _ := there.Get(ctx, "run-2"); got.State != JobRunning {
		t.Fatalf("detaching stopped the job: %s", got.State)
	}
}

func TestAJobOfAnotherProcessIsCancelledFromHere(t *testing.T) {
	here, there, _ := twoProcesses(t)
	ctx := context.Background()
	work := make(chan int)
	defer close(work)
	if _, err := there.Start(ctx, "fill-2", KindGasFill, "ana", "fill", stepper(work)); err != nil {
		t.Fatal(err)
	}
	sub, err := here.Subscribe(ctx, "fill-2")
	if err != nil {
		t.Fatal(err)
	}
	if err := here.Cancel("fill-2"); err != nil {
		t.Fatalf("asking another process to cancel: %v", err)
	}
	evs := collect(sub) // the follower sees the job end there
	if last := evs[len(evs)-1].Job; last.State != JobCanceled {
		t.Fatalf("the job after a cancel from another process: %+v", last)
	}
	if err := here.Cancel("fill-2"); !errors.Is(err, ErrNoJob) {
		t.Fatalf("cancelling an ended job of another process: %v", err)
	}
	// Started again, the job does not inherit the old request.
	again := make(chan int)
	if _, err := there.Start(ctx, "fill-2", KindGasFill, "ana", "fill", stepper(again)); err != nil {
		t.Fatal(err)
	}
	again <- 1
	close(again)
	there.Wait(ctx, "fill-2")
	if got, _ := there.Get(ctx, "fill-2"); got.State != JobDone {
		t.Fatalf("a restarted job was cancelled by the old request: %s", got.State)
	}
}

// A running job's pace (an ingest's files per second and time left) reaches another
// process's list through warren.db, and an ended job has none.
func TestAnotherProcessListsARunningJobsPace(t *testing.T) {
	here, there, _ := twoProcesses(t)
	ctx := context.Background()
	step, stop := make(chan struct{}), make(chan struct{})
	work := func(ctx context.Context, em *Emitter) (string, error) {
		em.Progress(Progress{Done: 12, Total: 1000, Rate: 85, Remaining: 12 * time.Second})
		close(step)
		<-stop
		return JobDone, nil
	}
	if _, err := there.Start(ctx, "ingest-1", KindIngest, "ana", "ingest of 1000 file(s)", work); err != nil {
		t.Fatal(err)
	}
	<-step
	there.log2db.flush()
	listed := func() Progress {
		t.Helper()
		list, err := here.List(ctx)
		if err != nil || len(list) != 1 {
			t.Fatalf("list: %+v, %v", list, err)
		}
		return list[0].Progress
	}
	if p := listed(); p.Done != 12 || p.Rate != 85 || p.Remaining != 12*time.Second {
		t.Fatalf("another process lists the running job as %+v, want 12 done at 85/s, 12s left", p)
	}
	close(stop)
	if err := there.Wait(ctx, "ingest-1"); err != nil {
		t.Fatal(err)
	}
	if p := listed(); p.Done != 12 || p.Rate != 0 || p.Remaining != 0 {
		t.Errorf("the ended job is listed with a pace: %+v", p)
	}
}

// Wait returns only once the job's end is in warren.db, so that another process's list read
// after it shows the job ended (a wait that came between the job leaving the live ones and
// its end being written returned at once, and the list showed it running; seen in CI).
func TestWaitReturnsOnceTheEndIsRecorded(t *testing.T) {
	here, there, db := twoProcesses(t)
	ctx := context.Background()
	stop := make(chan struct{})
	work := func(ctx context.Context, em *Emitter) (string, error) {
		<-stop
		return JobDone, nil
	}
	if _, err := there.Start(ctx, "ingest-2", KindIngest, "ana", "ingest", work); err != nil {
		t.Fatal(err)
	}
	// Another writer holds warren.db while the job ends, so its end waits to be written.
	release := holdWriteLock(t, db)
	close(stop)
	time.Sleep(50 * time.Millisecond) // the job is ending, its end not yet written
	waited := make(chan error, 1)
	go func() { waited <- there.Wait(ctx, "ingest-2") }()
	early := false
	select {
	case <-waited:
		early = true
		t.Error("Wait returned while the job's end could not be written yet")
	case <-time.After(100 * time.Millisecond):
	}
	release()
	if !early {
		<-waited
	}
	list, err := here.List(ctx)
	if err != nil || len(list) != 1 || list[0].State != JobDone {
		t.Fatalf("after Wait another process lists %+v, %v", list, err)
	}
}
