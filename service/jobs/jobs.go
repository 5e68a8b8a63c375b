// Package jobs runs warren's long operations (research runs, gas fills, ingests, toxicology
// batches) so that they outlive any one screen: each is recorded in warren.db with its owner,
// state and progress, and any number of subscribers attach to its events and detach again.
package jobs

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"warren/agent"
	"warren/kb"
)

var jobsMigration = kb.Migration{Version: 40, Name: "jobs", SQL: `
CREATE TABLE jobs (
	id         TEXT PRIMARY KEY,
	kind       TEXT NOT NULL,
	owner      TEXT NOT NULL,
	title      TEXT NOT NULL,
	state      TEXT NOT NULL,
	done       INTEGER NOT NULL DEFAULT 0,
	total      INTEGER NOT NULL DEFAULT 0,
	current    TEXT NOT NULL DEFAULT '',
	error      TEXT NOT NULL DEFAULT '',
	process    TEXT NOT NULL DEFAULT '',
	pid        INTEGER NOT NULL DEFAULT 0,
	created_at TEXT NOT NULL,
	updated_at TEXT NOT NULL
);
`}

// eventsMigration keeps each job's events, so that a process that does not run a job can
// follow it, and a screen that attaches late can list the steps it missed.
var eventsMigration = kb.Migration{Version: 41, Name: "job events", SQL: `
CREATE TABLE job_events (
	job_id TEXT NOT NULL,
	seq    INTEGER NOT NULL,
	event  TEXT NOT NULL,
	PRIMARY KEY (job_id, seq)
) WITHOUT ROWID;
ALTER TABLE jobs ADD COLUMN node TEXT NOT NULL DEFAULT '';
ALTER TABLE jobs ADD COLUMN node_started TEXT NOT NULL DEFAULT '';
ALTER TABLE jobs ADD COLUMN snapshot BLOB;
`}

// cancelMigration lets any process ask the one that runs a job to cancel it.
var cancelMigration = kb.Migration{Version: 42, Name: "job cancel requests", SQL: `
ALTER TABLE jobs ADD COLUMN cancel_requested INTEGER NOT NULL DEFAULT 0;
`}

// rateMigration keeps a running job's pace, so that `warren jobs list` in another process can
// say how long it has left.
var rateMigration = kb.Migration{Version: 43, Name: "job pace", SQL: `
ALTER TABLE jobs ADD COLUMN rate REAL NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN remaining_ns INTEGER NOT NULL DEFAULT 0;
`}

// Migrations are the job table's schema steps in warren.db (versions 40 to 49).
var Migrations = []kb.Migration{jobsMigration, eventsMigration, cancelMigration, rateMigration}

// Job kinds.
const (
	KindResearch = "research"
	KindGasFill  = "gasfill"
	KindIngest   = "ingest"
	KindToxBatch = "toxbatch"
)

// Job states.
const (
	JobRunning     = "running"
	JobWaiting     = "waiting"     // stopped at a question for the analyst; resumable
	JobDone        = "done"        // finished
	JobFailed      = "failed"      // stopped by an error; resumable where its kind allows
	JobCanceled    = "canceled"    // cancelled; resumable where its kind allows
	JobInterrupted = "interrupted" // its process died while it ran; resumable on request
)

// Progress is how far a job has come.
type Progress struct {
	Done    int    `json:"done"`
	Total   int    `json:"total"`
	Current string `json:"current,omitempty"` // what it works on now, in words
	// Rate is Done per second lately and Remaining the time the rest would take at it, for a
	// job that measures them (an ingest); 0 when not known, and once the job has ended.
	Rate      float64       `json:"rate,omitempty"`
	Remaining time.Duration `json:"remaining_ns,omitempty"`
}

// Job is one long operation.
type Job struct {
	ID       string    `json:"id"`
	Kind     string    `json:"kind"`
	Owner    string    `json:"owner"`
	Title    string    `json:"title"`
	State    string    `json:"state"`
	Progress Progress  `json:"progress"`
	Error    string    `json:"error,omitempty"`
	Created  time.Time `json:"created_at"`
	Updated  time.Time `json:"updated_at"`
	// Snapshot is the job's latest own state (a research run's state after its last step), so
	// a subscriber that attaches late can draw it before the live events arrive.
	Snapshot json.RawMessage `json:"snapshot,omitempty"`
	// Node is the step of the run in flight and since when, for a late subscriber's trail.
	Node        string    `json:"node,omitempty"`
	NodeStarted time.Time `json:"node_started,omitempty"`
}

// Active reports a job that still runs.
func (j Job) Active() bool { return j.State == JobRunning }

// Event is one thing that happened in a job: its new state or progress, or an event of the agent
// run it drives.
type Event struct {
	// Seq numbers a job's events from 1, across its starts; a subscription's first event has
	// the number of the latest event before it (History reads those).
	Seq   int64        `json:"seq"`
	Job   Job          `json:"job"`
	Agent *agent.Event `json:"agent,omitempty"`
}

// Work is what a job does. It reports through the emitter and returns when it ends; its state
// afterwards is the one it returns (JobDone, JobWaiting, …) or, with an error, JobFailed or,
// when ctx was cancelled, JobCanceled.
type Work func(ctx context.Context, em *Emitter) (state string, err error)

// Manager owns the workspace's jobs: it runs them, records them in warren.db and fans their events
// out to subscribers, which attach and detach without touching the job.
type Manager struct {
	db      *sql.DB
	process string // this process, so that a later one can tell our jobs from a dead one's
	now     func() time.Time

	mu       sync.Mutex
	log      *slog.Logger // where a job's panic is recorded; nil discards it
	live     map[string]*liveJob
	wg       sync.WaitGroup
	perOwner int  // live jobs one owner may have at once; 0: no limit
	stopping bool // Shutdown: jobs it stops are interrupted, to be resumed by the next process
	closed   bool // Close: no job starts afterwards

	log2db *eventLog // the events on their way to warren.db

	stopWatch chan struct{} // ends watchCancels
	stopOnce  sync.Once
	watchDone chan struct{}
}

type liveJob struct {
	job    Job
	seq    int64 // the latest event's number
	cancel context.CancelFunc
	subs   map[*Subscription]bool
	done   chan struct{}
}

// New opens the job table of a workspace database. Jobs recorded as running by a process
// that is gone are marked interrupted.
func New(ctx context.Context, db *sql.DB) (*Manager, error) {
	j := &Manager{db: db, process: agent.NewRunID("proc"), now: time.Now, live: map[string]*liveJob{}}
	if err := j.markOrphans(ctx); err != nil {
		return nil, err
	}
	j.log2db = newEventLog(db, j.logger)
	j.stopWatch, j.watchDone = make(chan struct{}), make(chan struct{})
	go j.watchCancels()
	return j, nil
}

// markOrphans marks interrupted the running jobs whose process no longer exists.
func (j *Manager) markOrphans(ctx context.Context) error {
	rows, err := j.db.QueryContext(ctx, `SELECT id, pid FROM jobs WHERE state = ?`, JobRunning)
	if err != nil {
		return fmt.Errorf("couldn't read the jobs: %w", err)
	}
	var gone []string
	for rows.Next() {
		var id string
		var pid int
		if err := rows.Scan(&id, &pid); err != nil {
			rows.Close()
			return err
		}
		if !processAlive(pid) {
			gone = append(gone, id)
		}
	}
	rows.Close()
	for _, id := range gone {
		if _, err := j.db.ExecContext(ctx, `UPDATE jobs SET state = ?, error = ?, updated_at = ? WHERE id = ?`,
			JobInterrupted, "its process ended while it ran", j.now().UTC().Format(time.RFC3339Nano), id); err != nil {
			return fmt.Errorf("couldn't mark job %s interrupted: %w", id, err)
		}
	}
	return nil
}

// SetLogger sets where the manager records what users must not see: the value and stack of
// a job that panicked. Without one they are discarded (never printed).
func (j *Manager) SetLogger(l *slog.Logger) {
	j.mu.Lock()
	j.log = l
	j.mu.Unlock()
}

func (j *Manager) logger() *slog.Logger {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.log
}

// ErrJobRunning means a job with that id already runs.
var ErrJobRunning = errors.New("the job is already running")

// ErrTooManyJobs means the owner already has as many jobs running as the limit allows.
var ErrTooManyJobs = errors.New("too many jobs running")

// LimitPerOwner caps the jobs one owner may have running at once (0: no cap).
func (j *Manager) LimitPerOwner(n int) {
	j.mu.Lock()
	j.perOwner = n
	j.mu.Unlock()
}

// ErrNoJob means there is no job with that id.
var ErrNoJob = errors.New("no such job")

// Start runs work as the job id (a research run's id, say; a job started again under the same
// id, as a resumed run is, keeps its record). It returns once the job is recorded.
func (j *Manager) Start(ctx context.Context, id, kind, owner, title string, work Work) (Job, error) {
	job, _, err := j.start(ctx, id, kind, owner, title, work, false)
	return job, err
}

// StartAttached starts a job as Start does, with a subscription attached before its work
// begins, so that the caller sees every one of its events.
func (j *Manager) StartAttached(ctx context.Context, id, kind, owner, title string, work Work) (Job, *Subscription, error) {
	return j.start(ctx, id, kind, owner, title, work, true)
}

func (j *Manager) start(ctx context.Context, id, kind, owner, title string, work Work, attach bool) (Job, *Subscription, error) {
	// A job another live process runs is not started twice.
	var pid int
	err := j.db.QueryRowContext(ctx, `SELECT pid FROM jobs WHERE id = ? AND state = ?`, id, JobRunning).Scan(&pid)
	if err == nil && pid != os.Getpid() && processAlive(pid) {
		return Job{}, nil, fmt.Errorf("%w in process %d: %s", ErrJobRunning, pid, id)
	}
	// A job started again (a resumed run) numbers its events on from its last start's.
	var lastSeq int64
	if err := j.db.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) FROM job_events WHERE job_id = ?`, id).Scan(&lastSeq); err != nil {
		return Job{}, nil, fmt.Errorf("couldn't read the events of job %s: %w", id, err)
	}
	j.mu.Lock()
	if _, ok := j.live[id]; ok {
		j.mu.Unlock()
		return Job{}, nil, fmt.Errorf("%w: %s", ErrJobRunning, id)
	}
	if j.stopping || j.closed {
		j.mu.Unlock()
		return Job{}, nil, errors.New("warren is shutting down: start it again once the server is back")
	}
	if j.perOwner > 0 {
		var running []string
		for _, lj := range j.live {
			if lj.job.Owner == owner {
				running = append(running, lj.job.Title)
			}
		}
		if len(running) >= j.perOwner {
			j.mu.Unlock()
			return Job{}, nil, fmt.Errorf("%w: %s already has %d running (%s), the most allowed (serve.max_jobs_per_analyst); wait for one to end or cancel one",
				ErrTooManyJobs, owner, len(running), strings.Join(running, "; "))
		}
	}
	now := j.now().UTC()
	job := Job{ID: id, Kind: kind, Owner: owner, Title: title, State: JobRunning, Created: now, Updated: now}
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	lj := &liveJob{job: job, seq: lastSeq, cancel: cancel, subs: map[*Subscription]bool{}, done: make(chan struct{})}
	var sub *Subscription
	if attach {
		sub = j.attach(lj)
		sub.push(Event{Seq: lastSeq, Job: job})
	}
	j.live[id] = lj
	// Counted while the lock is held, so that Close either waits for this job or refuses it.
	j.wg.Add(1)
	j.mu.Unlock()
	if err := j.record(ctx, job); err != nil {
		j.mu.Lock()
		delete(j.live, id)
		j.mu.Unlock()
		cancel()
		j.wg.Done()
		return Job{}, nil, err
	}
	em := &Emitter{jobs: j, id: id}
	go func() {
		defer j.wg.Done()
		defer cancel()
		state, err := runWork(runCtx, work, em)
		j.finish(id, state, err, runCtx.Err() != nil)
	}()
	return job, sub, nil
}

// runWork runs a job's work; a panic in it becomes the job's error, so that it ends this job
// and no other.
func runWork(ctx context.Context, work Work, em *Emitter) (state string, err error) {
	defer agent.Recover(&err)
	return work(ctx, em)
}

// attach adds a subscription to a live job; j.mu is held.
func (j *Manager) attach(lj *liveJob) *Subscription {
	s := newSubscription()
	lj.subs[s] = true
	s.detach = func() {
		j.mu.Lock()
		if lj.subs != nil {
			delete(lj.subs, s)
		}
		j.mu.Unlock()
		s.close()
	}
	return s
}

func (j *Manager) record(ctx context.Context, job Job) error {
	_, err := j.db.ExecContext(context.WithoutCancel(ctx), `
INSERT INTO jobs (id, kind, owner, title, state, done, total, current, error, process, pid, created_at, updated_at)
VALUES (?, ?, ?, ?, ?, 0, 0, '', '', ?, ?, ?, ?)
ON CONFLICT(id) DO UPDATE SET owner = excluded.owner, state = excluded.state, error = '', current = '',
	node = '', node_started = '', cancel_requested = 0, process = excluded.process, pid = excluded.pid, updated_at = excluded.updated_at`,
		job.ID, job.Kind, job.Owner, job.Title, job.State, j.process, os.Getpid(),
		job.Created.Format(time.RFC3339Nano), job.Updated.Format(time.RFC3339Nano))
	if err != nil {
		return fmt.Errorf("couldn't record job %s: %w", job.ID, err)
	}
	return nil
}

// finish records how a job ended and closes its subscriptions.
func (j *Manager) finish(id, state string, err error, canceled bool) {
	// The job stays live until its end is recorded: Wait and Get go by the live jobs, and one
	// that waited must find the end in warren.db.
	j.mu.Lock()
	lj := j.live[id]
	j.mu.Unlock()
	if lj == nil {
		return
	}
	job := lj.job
	j.mu.Lock()
	stopping := j.stopping
	j.mu.Unlock()
	var (
		panicked   *agent.PanicError
		panicEvent *agent.Event
	)
	switch {
	case errors.As(err, &panicked):
		// A bug, not a stop: the job fails, even in a shutdown, so that it is not resumed
		// into the same panic at the next start.
		job.State, job.Error = JobFailed, PanicFailure(id, err).Error()
		LogPanic(j.logger(), "a job panicked; it failed and the server goes on", panicked,
			"job", id, "kind", job.Kind, "owner", job.Owner)
		if job.Node != "" {
			// A step still in flight was not reported failed (the runner reports its own):
			// it is, here, so that a screen following the job marks it.
			panicEvent = &agent.Event{Time: j.now(), Run: id, Node: job.Node, Kind: agent.EventError, Summary: job.Error}
		}
	case stopping && err != nil && (canceled || errors.Is(err, context.Canceled)):
		job.State, job.Error = JobInterrupted, "the server stopped while it ran; it resumes when the server starts again"
	case err != nil && (canceled || errors.Is(err, context.Canceled)):
		job.State, job.Error = JobCanceled, err.Error()
	case err != nil:
		job.State, job.Error = JobFailed, err.Error()
	case state == "":
		job.State = JobDone
	default:
		job.State = state
	}
	job.Updated = j.now().UTC()
	job.Node = ""
	job.Progress.Rate, job.Progress.Remaining = 0, 0 // an ended job has no time left
	j.mu.Lock()
	var last []Event
	if panicEvent != nil {
		lj.seq++
		last = append(last, Event{Seq: lj.seq, Job: job, Agent: panicEvent})
	}
	lj.seq++
	last = append(last, Event{Seq: lj.seq, Job: job})
	j.mu.Unlock()
	// The events reach warren.db before the job's end does, so that a follower in another
	// process has them all when it sees the job ended.
	for _, e := range last {
		j.log2db.add(id, e, false)
	}
	j.log2db.flush()
	if _, dbErr := j.db.Exec(`UPDATE jobs SET state = ?, error = ?, done = ?, total = ?, current = ?, rate = 0, remaining_ns = 0, node = '', updated_at = ? WHERE id = ?`,
		job.State, job.Error, job.Progress.Done, job.Progress.Total, job.Progress.Current, job.Updated.Format(time.RFC3339Nano), id); dbErr != nil {
		job.Error = errors.Join(errors.New(job.Error), dbErr).Error()
	}
	j.mu.Lock()
	subs := lj.subs
	lj.subs = nil
	lj.job = job
	delete(j.live, id)
	j.mu.Unlock()
	for s := range subs {
		for _, e := range last {
			e.Job = job
			s.push(e)
		}
		s.close()
	}
	close(lj.done)
}

// FailInterrupted records as failed, with reason, a job that is still interrupted: one whose
// resume at start-up failed, so that the next start does not resume it into the same failure.
// A job that runs here, or any job once Shutdown began (a resume a shutdown stopped is tried
// again at the next start), is left as it is; ok reports a job marked.
func (j *Manager) FailInterrupted(ctx context.Context, id, reason string) (ok bool, err error) {
	j.mu.Lock()
	_, live := j.live[id]
	stopping := j.stopping
	j.mu.Unlock()
	if live || stopping {
		return false, nil
	}
	res, err := j.db.ExecContext(context.WithoutCancel(ctx), `UPDATE jobs SET state = ?, error = ?, updated_at = ? WHERE id = ? AND state = ?`,
		JobFailed, reason, j.now().UTC().Format(time.RFC3339Nano), id, JobInterrupted)
	if err != nil {
		return false, fmt.Errorf("couldn't mark job %s failed: %w", id, err)
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// Subscribe attaches to a job's events. The subscription's first event is the job as it is now
// (with its snapshot); live events follow until the job ends or Detach is called. A job that is
// not running gives its recorded state and ends at once.
//
// A job another warren process runs (a `warren research` in a shell, another server) is
// followed through warren.db: its events arrive as that process records them, within a
// fraction of a second.
func (j *Manager) Subscribe(ctx context.Context, id string) (*Subscription, error) {
	j.mu.Lock()
	if lj, ok := j.live[id]; ok {
		s := j.attach(lj)
		s.push(Event{Seq: lj.seq, Job: lj.job})
		j.mu.Unlock()
		return s, nil
	}
	j.mu.Unlock()
	job, pid, seq, err := j.recorded(ctx, id, true)
	if err != nil {
		return nil, err
	}
	s := newSubscription()
	s.push(Event{Seq: seq, Job: job})
	if job.State != JobRunning {
		s.close()
		s.detach = func() {}
		return s, nil
	}
	follow, stop := context.WithCancel(context.WithoutCancel(ctx))
	s.detach = func() { stop(); s.close() }
	go j.follow(follow, s, id, pid, seq)
	return s, nil
}

// Cancel stops a running job; it ends at a consistent point and stays resumable where its kind
// allows. A job another warren process runs is asked to stop through warren.db: that process
// cancels it within a second (cancelEvery).
func (j *Manager) Cancel(id string) error {
	j.mu.Lock()
	lj, ok := j.live[id]
	j.mu.Unlock()
	if ok {
		lj.cancel()
		return nil
	}
	var pid int
	err := j.db.QueryRow(`SELECT pid FROM jobs WHERE id = ? AND state = ?`, id, JobRunning).Scan(&pid)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && !processAlive(pid)) {
		return fmt.Errorf("%w running: %s", ErrNoJob, id)
	}
	if err != nil {
		return fmt.Errorf("couldn't read job %s: %w", id, err)
	}
	if _, err := j.db.Exec(`UPDATE jobs SET cancel_requested = 1 WHERE id = ? AND state = ?`, id, JobRunning); err != nil {
		return fmt.Errorf("couldn't ask job %s to stop: %w", id, err)
	}
	return nil
}

// cancelEvery is how often a process looks for requests to cancel the jobs it runs.
const cancelEvery = 300 * time.Millisecond

// watchCancels cancels the jobs running here that another process asked to stop.
func (j *Manager) watchCancels() {
	defer close(j.watchDone)
	tick := time.NewTicker(cancelEvery)
	defer tick.Stop()
	for {
		select {
		case <-j.stopWatch:
			return
		case <-tick.C:
		}
		j.mu.Lock()
		n := len(j.live)
		j.mu.Unlock()
		if n == 0 {
			continue
		}
		rows, err := j.db.Query(`SELECT id FROM jobs WHERE cancel_requested = 1 AND state = ?`, JobRunning)
		if err != nil {
			continue
		}
		var asked []string
		for rows.Next() {
			var id string
			if rows.Scan(&id) == nil {
				asked = append(asked, id)
			}
		}
		rows.Close()
		j.mu.Lock()
		for _, id := range asked {
			if lj, ok := j.live[id]; ok {
				lj.cancel()
			}
		}
		j.mu.Unlock()
	}
}

// Wait blocks until the job ends (at once when it is not running here).
func (j *Manager) Wait(ctx context.Context, id string) error {
	j.mu.Lock()
	lj, ok := j.live[id]
	j.mu.Unlock()
	if !ok {
		return nil
	}
	select {
	case <-lj.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close cancels every running job and waits for them to end.
func (j *Manager) Close() {
	j.mu.Lock()
	j.closed = true
	for _, lj := range j.live {
		lj.cancel()
	}
	j.mu.Unlock()
	j.wg.Wait()
	j.stopOnce.Do(func() { close(j.stopWatch) })
	<-j.watchDone
	j.log2db.close()
}

// Shutdown stops every running job as Close does, but records them as interrupted rather than
// cancelled, so that the next process resumes them; no job starts afterwards.
func (j *Manager) Shutdown() {
	j.mu.Lock()
	j.stopping = true
	j.mu.Unlock()
	j.Close()
}

// Get returns a job: the live one if it runs here, else its record.
func (j *Manager) Get(ctx context.Context, id string) (Job, error) {
	j.mu.Lock()
	if lj, ok := j.live[id]; ok {
		job := lj.job
		j.mu.Unlock()
		return job, nil
	}
	j.mu.Unlock()
	job, _, _, err := j.recorded(ctx, id, false)
	return job, err
}

// List returns the recorded jobs, newest first, live ones with their current progress.
func (j *Manager) List(ctx context.Context) ([]Job, error) {
	rows, err := j.db.QueryContext(ctx, `SELECT `+jobColumns+` FROM jobs ORDER BY created_at DESC`)
	if err != nil {
		return nil, fmt.Errorf("couldn't list the jobs: %w", err)
	}
	defer rows.Close()
	var out []Job
	for rows.Next() {
		job, err := scanJob(rows)
		if err != nil {
			return nil, err
		}
		j.mu.Lock()
		if lj, ok := j.live[job.ID]; ok {
			job = lj.job
		}
		j.mu.Unlock()
		out = append(out, job)
	}
	return out, rows.Err()
}

type scanner interface{ Scan(...any) error }

// jobColumns are what scanJob reads, in its order.
const jobColumns = `id, kind, owner, title, state, done, total, current, error, created_at, updated_at, node, node_started, rate, remaining_ns`

func scanJob(s scanner, more ...any) (Job, error) {
	var job Job
	var created, updated, nodeStarted string
	if err := s.Scan(append([]any{&job.ID, &job.Kind, &job.Owner, &job.Title, &job.State, &job.Progress.Done, &job.Progress.Total,
		&job.Progress.Current, &job.Error, &created, &updated, &job.Node, &nodeStarted, &job.Progress.Rate, &job.Progress.Remaining}, more...)...); err != nil {
		return Job{}, err
	}
	job.Created, _ = time.Parse(time.RFC3339Nano, created)
	job.Updated, _ = time.Parse(time.RFC3339Nano, updated)
	job.NodeStarted, _ = time.Parse(time.RFC3339Nano, nodeStarted)
	if job.State != JobRunning {
		job.Progress.Rate, job.Progress.Remaining = 0, 0 // one whose process died kept its last pace
	}
	return job, nil
}

// Emitter is a job's voice: progress, a new snapshot, and the events of the run it drives.
type Emitter struct {
	jobs *Manager
	id   string
}

// update changes the live job and sends the result (with e) to every subscriber.
func (em *Emitter) update(change func(*Job), agentEvent *agent.Event) {
	j := em.jobs
	j.mu.Lock()
	lj, ok := j.live[em.id]
	if !ok {
		j.mu.Unlock()
		return
	}
	if change != nil {
		change(&lj.job)
		lj.job.Updated = j.now().UTC()
	}
	lj.seq++
	ev := Event{Seq: lj.seq, Job: lj.job, Agent: agentEvent}
	ev.Job.Snapshot = nil // sent once, on attach; events carry their own state
	subs := make([]*Subscription, 0, len(lj.subs))
	for s := range lj.subs {
		subs = append(subs, s)
	}
	// The record's copy of the snapshot changes only when the job's does: with a step's state.
	newSnapshot := agentEvent != nil && len(agentEvent.State) > 0
	if newSnapshot {
		ev.Job.Snapshot = lj.job.Snapshot
	}
	j.mu.Unlock()
	j.log2db.add(em.id, ev, newSnapshot)
	ev.Job.Snapshot = nil
	for _, s := range subs {
		s.push(ev)
	}
}

// Progress reports how far the job has come.
func (em *Emitter) Progress(p Progress) { em.update(func(j *Job) { j.Progress = p }, nil) }

// Agent passes on an event of the run the job drives; a finished step's state becomes the
// job's snapshot.
func (em *Emitter) Agent(e agent.Event) {
	em.update(func(j *Job) {
		if len(e.State) > 0 {
			j.Snapshot = e.State
		}
		switch e.Kind {
		case agent.EventNodeStarted:
			j.Node, j.NodeStarted = e.Node, e.Time
		case agent.EventNodeFinished:
			j.Node = ""
		case agent.EventError:
			if e.Node == j.Node {
				j.Node = "" // the step in flight failed
			}
		}
		if e.Kind == agent.EventNodeStarted || e.Kind == agent.EventNote {
			j.Progress.Current = e.Node
			if e.Kind == agent.EventNote {
				j.Progress.Current = e.Summary
			}
		}
	}, &e)
}

// processAlive reports whether a process with that id exists (on this machine).
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if pid == os.Getpid() {
		return true
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	return p.Signal(syscallZero) == nil
}
