package jobs

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"warren/agent"
)

// flushEvery is how long an event may wait before it is written to warren.db: what a follower
// in another process lags behind, at most, besides its own polling.
const flushEvery = 150 * time.Millisecond

// followEvery is how often a follower in another process reads a job's new events.
const followEvery = 200 * time.Millisecond

// eventLog writes the events of the jobs this process runs to warren.db in batches, one
// transaction each, so that a job never waits for the disk.
type eventLog struct {
	db     *sql.DB
	logger func() *slog.Logger

	mu      sync.Mutex
	pending []loggedEvent
	flushMu sync.Mutex // one flush at a time, in order
	wake    chan struct{}
	stop    chan struct{}
	stopped chan struct{}
	once    sync.Once
}

type loggedEvent struct {
	job      string
	event    Event
	snapshot bool // the job's snapshot changed with this event: the record keeps the new one
}

func newEventLog(db *sql.DB, logger func() *slog.Logger) *eventLog {
	l := &eventLog{db: db, logger: logger, wake: make(chan struct{}, 1), stop: make(chan struct{}), stopped: make(chan struct{})}
	go l.run()
	return l
}

// add queues an event of job. Streamed tokens are not kept: a follower elsewhere gets the
// finished step's state instead.
func (l *eventLog) add(job string, e Event, snapshot bool) {
	if e.Agent != nil && e.Agent.Kind == agent.EventToken && !snapshot {
		return
	}
	l.mu.Lock()
	l.pending = append(l.pending, loggedEvent{job: job, event: e, snapshot: snapshot})
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

func (l *eventLog) run() {
	defer close(l.stopped)
	for {
		select {
		case <-l.stop:
			l.flush()
			return
		case <-l.wake:
		}
		// Gather what arrives meanwhile into the same transaction.
		select {
		case <-l.stop:
			l.flush()
			return
		case <-time.After(flushEvery):
		}
		l.flush()
	}
}

// flush writes every queued event now, with each job's latest progress, step and snapshot.
func (l *eventLog) flush() {
	l.flushMu.Lock()
	defer l.flushMu.Unlock()
	l.mu.Lock()
	batch := l.pending
	l.pending = nil
	l.mu.Unlock()
	if len(batch) == 0 {
		return
	}
	if err := l.write(batch); err != nil {
		if log := l.logger(); log != nil {
			log.Warn("couldn't record job events; other processes following the job miss them", "err", err)
		}
	}
}

func (l *eventLog) write(batch []loggedEvent) error {
	tx, err := l.db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	latest := map[string]loggedEvent{}
	snapshots := map[string]json.RawMessage{}
	for _, le := range batch {
		e := le.event
		e.Job.Snapshot = nil
		if e.Agent != nil && len(e.Agent.State) > 0 {
			a := *e.Agent
			a.State = nil // the record's snapshot has it; a follower reads it from there
			e.Agent = &a
		}
		data, err := json.Marshal(e)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(`INSERT OR REPLACE INTO job_events (job_id, seq, event) VALUES (?, ?, ?)`, le.job, e.Seq, data); err != nil {
			return err
		}
		latest[le.job] = le
		if le.snapshot {
			snapshots[le.job] = le.event.Job.Snapshot
		}
	}
	for id, le := range latest {
		job := le.event.Job
		if job.State != JobRunning {
			continue // its end is recorded by finish
		}
		started := ""
		if !job.NodeStarted.IsZero() {
			started = job.NodeStarted.UTC().Format(time.RFC3339Nano)
		}
		if _, err := tx.Exec(`UPDATE jobs SET done = ?, total = ?, current = ?, rate = ?, remaining_ns = ?, node = ?, node_started = ?, updated_at = ? WHERE id = ? AND state = ?`,
			job.Progress.Done, job.Progress.Total, job.Progress.Current, job.Progress.Rate, int64(job.Progress.Remaining), job.Node, started,
			job.Updated.UTC().Format(time.RFC3339Nano), id, JobRunning); err != nil {
			return err
		}
	}
	for id, snap := range snapshots {
		if _, err := tx.Exec(`UPDATE jobs SET snapshot = ? WHERE id = ?`, []byte(snap), id); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// close writes what is queued and stops the writer.
func (l *eventLog) close() {
	l.once.Do(func() { close(l.stop) })
	<-l.stopped
}

// recorded reads a job's record, with the process that runs it and its latest event's number;
// withSnapshot also reads its latest state.
func (j *Manager) recorded(ctx context.Context, id string, withSnapshot bool) (job Job, pid int, seq int64, err error) {
	var snapshot []byte
	query := `SELECT ` + jobColumns + `, pid, snapshot FROM jobs WHERE id = ?`
	if !withSnapshot {
		query = `SELECT ` + jobColumns + `, pid, NULL FROM jobs WHERE id = ?`
	}
	job, err = scanJob(j.db.QueryRowContext(ctx, query, id), &pid, &snapshot)
	if errors.Is(err, sql.ErrNoRows) {
		return Job{}, 0, 0, fmt.Errorf("%w: %s", ErrNoJob, id)
	}
	if err != nil {
		return Job{}, 0, 0, fmt.Errorf("couldn't read job %s: %w", id, err)
	}
	if len(snapshot) > 0 {
		job.Snapshot = snapshot
	}
	if err := j.db.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) FROM job_events WHERE job_id = ?`, id).Scan(&seq); err != nil {
		return Job{}, 0, 0, fmt.Errorf("couldn't read the events of job %s: %w", id, err)
	}
	return job, pid, seq, nil
}

// follow passes on the events another process records for a job, from after seq, until the
// job ends there, its process is gone, or ctx ends.
func (j *Manager) follow(ctx context.Context, s *Subscription, id string, pid int, seq int64) {
	defer s.close()
	tick := time.NewTicker(followEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		evs, err := j.eventsAfter(ctx, id, seq)
		if err != nil {
			return
		}
		for _, e := range evs {
			seq = e.Seq
			s.push(e)
		}
		job, _, _, err := j.recorded(ctx, id, false)
		if err != nil {
			return
		}
		if job.State == JobRunning && !processAlive(pid) {
			// Its process died without a word: the job is interrupted, as the next start of
			// warren would find it.
			job.State, job.Error = JobInterrupted, "its process ended while it ran"
			_, _ = j.db.ExecContext(ctx, `UPDATE jobs SET state = ?, error = ?, updated_at = ? WHERE id = ? AND state = ?`,
				job.State, job.Error, j.now().UTC().Format(time.RFC3339Nano), id, JobRunning)
		}
		if job.State != JobRunning {
			// The events of its end came before the record's; read any that raced the check.
			evs, _ := j.eventsAfter(ctx, id, seq)
			for _, e := range evs {
				seq = e.Seq
				s.push(e)
			}
			if len(evs) == 0 || evs[len(evs)-1].Job.State == JobRunning {
				s.push(Event{Seq: seq, Job: job})
			}
			return
		}
	}
}

// eventsAfter reads a job's recorded events after seq. The last finished step of the batch
// gets the job's latest state, as a live subscriber would have it.
func (j *Manager) eventsAfter(ctx context.Context, id string, seq int64) ([]Event, error) {
	out, err := j.readEvents(ctx, `SELECT event FROM job_events WHERE job_id = ? AND seq > ? ORDER BY seq`, id, seq)
	if err != nil || len(out) == 0 {
		return out, err
	}
	for i := len(out) - 1; i >= 0; i-- {
		if a := out[i].Agent; a != nil && a.Kind == agent.EventNodeFinished {
			var snapshot []byte
			if err := j.db.QueryRowContext(ctx, `SELECT snapshot FROM jobs WHERE id = ?`, id).Scan(&snapshot); err == nil && len(snapshot) > 0 {
				a.State = snapshot
			}
			break
		}
	}
	return out, nil
}

// History is a job's recorded events up to and including seq (all of them when seq is 0), in
// order: the steps a screen that attached late did not see. Streamed tokens and the states
// after each step are not kept; the job's snapshot has the latest state.
func (j *Manager) History(ctx context.Context, id string, seq int64) ([]Event, error) {
	j.log2db.flush()
	if seq <= 0 {
		return j.readEvents(ctx, `SELECT event FROM job_events WHERE job_id = ? ORDER BY seq`, id)
	}
	return j.readEvents(ctx, `SELECT event FROM job_events WHERE job_id = ? AND seq <= ? ORDER BY seq`, id, seq)
}

func (j *Manager) readEvents(ctx context.Context, query string, args ...any) ([]Event, error) {
	rows, err := j.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("couldn't read job events: %w", err)
	}
	defer rows.Close()
	var out []Event
	for rows.Next() {
		var data []byte
		if err := rows.Scan(&data); err != nil {
			return nil, err
		}
		var e Event
		if err := json.Unmarshal(data, &e); err != nil {
			continue // an event this version can't read is not worth failing the screen
		}
		out = append(out, e)
	}
	return out, rows.Err()
}
