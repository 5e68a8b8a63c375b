package gasfill

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"golang.org/x/sync/errgroup"

	"warren/agent"
	"warren/config"
	"warren/llm"
)

// aheadWindow bounds how far past the row a step waits for the fill works ahead, in multiples
// of the rows worked at once: finished rows wait there for the rows before them.
const aheadWindow = 4

// ahead works the rows of a fill run ahead of the step that waits for them: up to the
// gateway's capacity of rows at once, while each step still takes one row, saves it and is
// checkpointed, in the run's order. A row worked ahead and never taken (the run stopped first)
// is worked again by the resume, its completed model calls replayed from the journal.
type ahead struct {
	table string
	rows  []int // the run's rows when the pool started
	from  int   // the first position it works

	cancel   context.CancelFunc
	finished chan struct{} // closed when every worker has returned

	mu      sync.Mutex
	taken   int           // positions below this were taken by steps
	changed chan struct{} // closed and replaced when a row starts or is taken
	jobs    map[int]*rowJob
}

// rowJob is one row worked ahead, by its position in State.Rows.
type rowJob struct {
	done chan struct{}
	res  RowResult
	err  error // the row could not be loaded
}

// workers is how many rows a fill works at once: the chat role's capacity over the healthy
// hosts, read when the fill starts, and at most Options.Concurrency when that is set.
func (f *Filler) workers() int {
	n := f.Gateway.Capacity(config.RoleChat)
	if f.Options.Concurrency > 0 {
		n = min(n, f.Options.Concurrency)
	}
	return max(n, 1)
}

// startAhead starts working s's rows from s.Next on, their model calls made as call.
func (st *Steps) startAhead(ctx context.Context, call llm.Call, s *State) *ahead {
	k := st.Filler.workers()
	ctx, cancel := context.WithCancel(ctx)
	a := &ahead{table: s.Table, rows: slices.Clone(s.Rows), from: s.Next, cancel: cancel,
		finished: make(chan struct{}), taken: s.Next, changed: make(chan struct{}), jobs: map[int]*rowJob{}}
	total := len(a.rows)
	go func() {
		defer close(a.finished)
		var g errgroup.Group
		g.SetLimit(k) // Go waits while k rows are in work
		for pos := a.from; pos < total; pos++ {
			if !a.waitRoom(ctx, pos, k*aheadWindow) {
				break
			}
			job := &rowJob{done: make(chan struct{})}
			a.mu.Lock()
			a.jobs[pos] = job
			a.signal()
			a.mu.Unlock()
			g.Go(func() error {
				defer close(job.done)
				defer agent.Recover(&job.err) // a row that panics fails its step, not the process
				row, err := st.Row(ctx, a.table, a.rows[pos])
				if err != nil {
					job.err = fmt.Errorf("couldn't load row %d of gas table %q: %w", a.rows[pos], a.table, err)
					return nil
				}
				if st.Working != nil {
					st.Working(a.takenRows(), total, row.Name())
				}
				job.res = st.Filler.FillRow(ctx, call, row)
				return nil
			})
		}
		g.Wait()
	}()
	return a
}

// waitRoom waits until pos is within the window past the rows taken; false when ctx ends.
func (a *ahead) waitRoom(ctx context.Context, pos, window int) bool {
	for {
		a.mu.Lock()
		ok, changed := pos < a.taken+window, a.changed
		a.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return false
		}
	}
}

func (a *ahead) takenRows() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.taken
}

// fits reports whether the pool works the rows of s from s.Next.
func (a *ahead) fits(s *State) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.table == s.Table && slices.Equal(a.rows, s.Rows) && s.Next == a.taken
}

// wait returns the row at position pos once it is worked; nil when ctx ends first.
func (a *ahead) wait(ctx context.Context, pos int) *rowJob {
	for {
		a.mu.Lock()
		job, changed := a.jobs[pos], a.changed
		a.mu.Unlock()
		if job != nil {
			select {
			case <-job.done:
				return job
			case <-ctx.Done():
				return nil
			}
		}
		select { // not started yet
		case <-changed:
		case <-ctx.Done():
			return nil
		case <-a.finished:
			a.mu.Lock()
			job = a.jobs[pos]
			a.mu.Unlock()
			if job == nil {
				return nil
			}
		}
	}
}

// take marks the row at pos as taken by a step, making room for the rows after the window.
func (a *ahead) take(pos int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.jobs, pos)
	a.taken = pos + 1
	a.signal()
}

// signal wakes whoever waits for a change; the caller holds mu.
func (a *ahead) signal() {
	close(a.changed)
	a.changed = make(chan struct{})
}

// stop cancels the rows in work and waits for their workers.
func (a *ahead) stop() {
	a.cancel()
	<-a.finished
}
