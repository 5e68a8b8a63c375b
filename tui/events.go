package tui

import (
	"sync"

	tea "charm.land/bubbletea/v2"

	"warren/agent"
)

// eventQueue carries agent events into the program. Push never blocks the agent; the program
// drains whatever has arrived in one message, so a burst of events costs one update.
type eventQueue struct {
	mu     sync.Mutex
	items  []agent.Event
	notify chan struct{}
	closed bool
}

func newEventQueue() *eventQueue { return &eventQueue{notify: make(chan struct{}, 1)} }

// Push adds an event; safe from any goroutine.
func (q *eventQueue) Push(e agent.Event) {
	q.mu.Lock()
	q.items = append(q.items, e)
	q.mu.Unlock()
	select {
	case q.notify <- struct{}{}:
	default:
	}
}

// Close ends the queue after the events already pushed.
func (q *eventQueue) Close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	select {
	case q.notify <- struct{}{}:
	default:
	}
}

// eventsMsg is a batch of events; more reports whether the queue is still open.
type eventsMsg struct {
	queue  *eventQueue
	events []agent.Event
	more   bool
}

// wait is the command re-issued after each batch.
func (q *eventQueue) wait() tea.Cmd {
	return func() tea.Msg {
		for {
			q.mu.Lock()
			items, closed := q.items, q.closed
			q.items = nil
			q.mu.Unlock()
			if len(items) > 0 || closed {
				return eventsMsg{queue: q, events: items, more: !closed}
			}
			<-q.notify
		}
	}
}
