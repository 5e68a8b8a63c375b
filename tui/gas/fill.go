package gas

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"warren/gas"
	"warren/service"
	"warren/service/jobs"
	"warren/tui/component"
)

// gasFill is the fill the Gas tab started or resumed, while it runs. Its events arrive on its
// own queue; the root hands them to the Log tab and to this tab.
type gasFill struct {
	table      string
	queue      *component.Queue[service.RunEvent]
	cancel     context.CancelFunc
	resumed    bool
	done       int // rows worked
	total      int
	current    string // the row being worked
	cancelling bool
	watching   bool   // a fill that runs elsewhere (another connection, or before a drop)
	owner      string // who started a watched fill
	run        string // the fill's run, once its events name it
}

// gasFillDoneMsg is how a Start or Resume call of a fill ended.
type gasFillDoneMsg struct {
	table   string
	res     service.GasFillResult
	resumed bool
	err     error
	watched *jobs.Job // set when the fill was watched, not run, here
}

// filling reports a fill in flight.
func (g *Model) filling() bool { return g.fill != nil }

// Owns reports whether a queue carries a fill's events (the root routes them here).
func (g *Model) Owns(q *component.Queue[service.RunEvent]) bool { return q != nil && g.queues[q] }

// startFill fills the table's empty cells, or resumes the table's unfinished fill: rows are
// worked one checkpointed step at a time in the background, and the grid follows them.
func (g *Model) startFill() tea.Cmd {
	if g.fill != nil {
		return component.SetStatus("a fill is running: esc cancels it (finished rows stay saved)", false)
	}
	table, resume := g.table.Name, g.unfinished
	var rows []int // the rows the desk's rule picks, as the grid shows them: for the progress line
	if !resume {
		var err error
		if rows, err = service.GasFillRows(g.table); err != nil {
			return component.SetStatus(err.Error(), false)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	q := component.NewQueue[service.RunEvent]()
	if g.queues == nil {
		g.queues = map[*component.Queue[service.RunEvent]]bool{}
	}
	g.queues[q] = true
	g.fill = &gasFill{table: table, queue: q, cancel: cancel, resumed: resume, total: len(rows)}
	be := g.be
	run := func() tea.Msg {
		defer cancel()
		var res service.GasFillResult
		var err error
		if resume {
			res, err = be.ResumeFill(ctx, table, q.Push)
		} else {
			res, err = be.StartFill(ctx, table, nil, nil, q.Push) // no rows: the desk picks them
		}
		q.Close()
		return gasFillDoneMsg{table: table, res: res, resumed: resume, err: err}
	}
	status := fmt.Sprintf("filling the empty cells of %d rows: esc cancels", len(rows))
	if resume {
		status = "resuming the unfinished fill: esc cancels"
	}
	return tea.Batch(q.Wait(), run, component.SetStatus(status, false))
}

// watchingEvent tells the tab whose fill it follows (not an agent event: it never leaves the tab).
const watchingEvent = "watching"

// watchFill follows the table's fill when one runs as a job: the grid follows its rows as if
// it had been started here. With none running, nothing shows.
func (g *Model) watchFill(table string) tea.Cmd {
	if g.fill != nil {
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	q := component.NewQueue[service.RunEvent]()
	if g.queues == nil {
		g.queues = map[*component.Queue[service.RunEvent]]bool{}
	}
	g.queues[q] = true
	g.fill = &gasFill{table: table, queue: q, cancel: cancel, watching: true}
	be := g.be
	return tea.Batch(q.Wait(), func() tea.Msg {
		defer cancel()
		attached := func(j jobs.Job) {
			q.Push(service.RunEvent{Time: time.Now(), Kind: watchingEvent, Run: j.ID, Summary: j.Owner + "'s fill"})
		}
		job, err := be.WatchFill(ctx, table, attached, q.Push)
		q.Close()
		return gasFillDoneMsg{table: table, err: err, watched: &job}
	})
}

// watchedDone words how a watched fill ended.
func (g *Model) watchedDone(msg gasFillDoneMsg) tea.Cmd {
	switch {
	case errors.Is(msg.err, jobs.ErrNoJob):
		return nil // none was running
	case errors.Is(msg.err, service.ErrDetached):
		return component.SetStatus("stopped following the fill; it goes on", false)
	case errors.Is(msg.err, context.Canceled):
		g.unfinished = true
		return component.SetStatus("the fill was cancelled; finished rows are saved (F resumes)", false)
	case msg.err != nil:
		g.unfinished = true
		return component.SetStatus("the fill stopped: "+msg.err.Error()+" (F resumes)", true)
	}
	g.unfinished = false
	return component.SetStatus(fmt.Sprintf("%s by %s finished", msg.watched.Title, msg.watched.Owner), false)
}

// cancelFill stops the fill after the row in flight; the rows done stay saved. A watched fill
// is cancelled when it is the analyst's own (or they are an admin), else only left.
func (g *Model) cancelFill() tea.Cmd {
	if g.fill.cancelling {
		return nil
	}
	if f := g.fill; f.watching {
		run, be := f.run, g.be
		f.cancelling = true
		return func() tea.Msg {
			if run != "" {
				if err := be.Cancel(context.Background(), run); err == nil {
					return component.NewStatus("cancelling the fill: finished rows stay saved", false)
				}
			}
			f.cancel()
			return component.NewStatus("stopped following the fill; it goes on", false)
		}
	}
	g.fill.cancelling = true
	g.fill.cancel()
	return component.SetStatus("cancelling the fill: finished rows stay saved", false)
}

// fillEvents follows a fill's events: the row it works, and the rows it finished (the grid is
// reloaded to show their cells).
func (g *Model) fillEvents(msg component.Drained[service.RunEvent]) tea.Cmd {
	var cmds []tea.Cmd
	if msg.More {
		cmds = append(cmds, msg.Queue.Wait()) // the queue always closes, so this ends
	} else {
		delete(g.queues, msg.Queue)
	}
	f := g.fill
	if f == nil || f.queue != msg.Queue {
		return tea.Batch(cmds...)
	}
	reload := false
	for _, e := range msg.Items {
		if e.Run != "" {
			f.run = e.Run
		}
		switch {
		case e.Kind == watchingEvent:
			f.owner = strings.TrimSuffix(e.Summary, "'s fill")
		case e.Kind == service.EventNote && e.Node == service.GasFillNodeRow:
			if _, name, ok := strings.Cut(e.Summary, ": "); ok {
				f.current = name
			}
			var at, total int
			if n, _ := fmt.Sscanf(e.Summary, "filling row %d of %d:", &at, &total); n == 2 {
				f.done, f.total = at-1, total
			}
		case e.Kind == service.EventNodeFinished && len(e.State) > 0:
			var s service.GasFillState
			if json.Unmarshal(e.State, &s) == nil {
				f.done, f.total = s.Next, len(s.Rows)
				reload = true
			}
		}
	}
	if reload && g.table != nil && g.table.Name == f.table && !g.loading {
		cmds = append(cmds, g.load(f.table, nil))
	}
	return tea.Batch(cmds...)
}

// fillDone reports how the fill ended and shows the table as it is now.
func (g *Model) fillDone(msg gasFillDoneMsg) tea.Cmd {
	g.fill = nil
	var cmds []tea.Cmd
	if g.table != nil && g.table.Name == msg.table && !errors.Is(msg.err, jobs.ErrNoJob) {
		cmds = append(cmds, g.load(msg.table, nil))
	}
	if msg.watched != nil {
		return tea.Batch(append(cmds, g.watchedDone(msg))...)
	}
	filled, review, failed := 0, 0, 0
	for _, r := range msg.res.Results {
		filled += r.Filled
		for _, c := range r.Changes {
			if c.After.Status == gas.StatusReview {
				review++
			}
		}
		if r.Err != "" {
			failed++
		}
	}
	did := fmt.Sprintf("%d rows worked, %d cells filled (%d to review)", len(msg.res.Results), filled, review)
	switch {
	case errors.Is(msg.err, service.ErrGasNothingToFill): // the stored table has none left to fill
		g.unfinished = false
		cmds = append(cmds, component.SetStatus(msg.err.Error(), false))
	case errors.Is(msg.err, service.ErrNoUnfinishedFill):
		g.unfinished = false
		cmds = append(cmds, component.SetStatus("the fill has already finished: F starts a new one", false))
	case errors.Is(msg.err, context.Canceled):
		g.unfinished = true
		cmds = append(cmds, component.SetStatus("fill cancelled: "+did+", saved; F resumes", false))
	case msg.err != nil:
		g.unfinished = true
		cmds = append(cmds, component.SetStatus("the fill stopped: "+msg.err.Error()+" (finished rows are saved; F resumes)", true))
	case msg.res.AlreadyDone:
		g.unfinished = false
		cmds = append(cmds, component.SetStatus("every row of the unfinished fill was already done", false))
	case failed > 0:
		g.unfinished = true
		cmds = append(cmds, component.SetStatus(fmt.Sprintf("fill done: %s; %d rows failed (the Log tab says why): F retries them", did, failed), true))
	default:
		g.unfinished = false
		cmds = append(cmds, component.SetStatus("fill done: "+did, false))
	}
	return tea.Batch(cmds...)
}

// fillLine is the fill's progress above the grid.
func (g *Model) fillLine() string {
	f := g.fill
	name := "fill"
	if f.watching && f.owner != "" {
		name = "fill by " + f.owner
	}
	text := fmt.Sprintf("%s: %d/%d rows done", name, f.done, f.total)
	if f.total == 0 {
		text = name + ": resuming…"
	}
	if f.current != "" && !f.cancelling {
		text += " · now " + f.current
	}
	hint := " · esc cancels"
	if f.cancelling {
		hint = " · cancelling after the row in flight…"
	}
	return g.st.Unresolved.Render(component.SafeLine(text)) + g.st.Subtle.Render(hint) // the owner and the row's name
}
