package llmtest

import (
	"context"
	"fmt"
	"net"
	"net/http/httptest"
	"sync"
	"time"
)

// DefaultSlots is how many requests a new server answers at once: one, as a local Ollama on
// one GPU or CPU does unless OLLAMA_NUM_PARALLEL says otherwise. SetSlots changes it.
const DefaultSlots = 1

// slots is a FIFO semaphore standing for the model runner's parallel slots: n requests are
// answered at once and the others wait in the order they arrived, as Ollama queues them.
type slots struct {
	mu    sync.Mutex
	n     int // 0: unlimited
	busy  int
	peak  int
	queue []chan struct{}
}

// acquire waits for a slot; false when ctx ends or the server dies first.
func (sl *slots) acquire(ctx context.Context, dead <-chan struct{}) bool {
	sl.mu.Lock()
	if sl.n <= 0 || sl.busy < sl.n && len(sl.queue) == 0 {
		sl.take()
		sl.mu.Unlock()
		return true
	}
	ready := make(chan struct{})
	sl.queue = append(sl.queue, ready)
	sl.mu.Unlock()
	select {
	case <-ready:
		return true
	case <-ctx.Done():
	case <-dead:
	}
	sl.mu.Lock()
	defer sl.mu.Unlock()
	for i, q := range sl.queue {
		if q == ready {
			sl.queue = append(sl.queue[:i], sl.queue[i+1:]...)
			return false
		}
	}
	// The slot was handed over while giving up: pass it on.
	sl.releaseLocked()
	return false
}

// take counts a request into a slot; the caller holds mu.
func (sl *slots) take() {
	sl.busy++
	sl.peak = max(sl.peak, sl.busy)
}

func (sl *slots) release() {
	sl.mu.Lock()
	defer sl.mu.Unlock()
	sl.releaseLocked()
}

// releaseLocked hands the slot to the first waiter, or frees it.
func (sl *slots) releaseLocked() {
	sl.busy--
	sl.admitLocked()
}

// admitLocked lets waiters in while slots are free, first come first served.
func (sl *slots) admitLocked() {
	for len(sl.queue) > 0 && (sl.n <= 0 || sl.busy < sl.n) {
		sl.take()
		close(sl.queue[0])
		sl.queue = sl.queue[1:]
	}
}

// SetSlots sets how many chat and embed requests the server answers at once (0: any number);
// the others queue in arrival order and each holds its slot for the set latency, so figures
// measured against the server behave like a real Ollama with OLLAMA_NUM_PARALLEL=n. One pool
// serves every model, as one GPU would. A new server has DefaultSlots.
func (s *Server) SetSlots(n int) {
	s.slots.mu.Lock()
	defer s.slots.mu.Unlock()
	s.slots.n = max(n, 0)
	s.slots.admitLocked()
}

// PeakInFlight returns the most chat and embed requests the server has answered at once.
func (s *Server) PeakInFlight() int {
	s.slots.mu.Lock()
	defer s.slots.mu.Unlock()
	return s.slots.peak
}

// hold is one request's time in a slot.
type hold struct {
	s    *Server
	i    int // the request's record
	done bool
}

// holdSlot waits for a slot for the recorded request i and notes when it got it.
func (s *Server) holdSlot(ctx context.Context, dead <-chan struct{}, i int) (*hold, bool) {
	if !s.slots.acquire(ctx, dead) {
		return nil, false
	}
	s.mu.Lock()
	s.requests[i].Start = time.Now()
	s.mu.Unlock()
	return &hold{s: s, i: i}, true
}

// answering notes the request as answered just before its last bytes are written, so that
// a client that has read them finds the record complete.
func (h *hold) answering() {
	h.s.mu.Lock()
	h.s.requests[h.i].End = time.Now()
	h.s.requests[h.i].Answered = true
	h.s.mu.Unlock()
	h.done = true
}

// release gives the slot back; written says whether the last bytes reached the connection.
func (h *hold) release(written bool) {
	h.s.mu.Lock()
	r := &h.s.requests[h.i]
	if !h.done {
		r.End = time.Now()
	}
	r.Answered = h.done && written
	h.s.mu.Unlock()
	h.s.slots.release() // after End is noted, so the next request's Start is not before it
}

// Kill stops the server the way a crashed Ollama stops: it no longer accepts connections,
// every open connection is cut, and the requests in progress end without their answer (their
// records keep Answered false). Restart brings it back on the same address with the same
// rules, models and records.
func (s *Server) Kill() {
	s.mu.Lock()
	srv, dead := s.srv, s.dead
	select {
	case <-dead:
		s.mu.Unlock()
		return
	default:
	}
	close(dead)
	s.mu.Unlock()
	srv.Listener.Close()
	srv.CloseClientConnections()
	srv.Close()
}

// Restart starts a killed server again at its address.
func (s *Server) Restart() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.dead:
	default:
		return fmt.Errorf("llmtest: the server at %s is running", s.URL)
	}
	l, err := net.Listen("tcp", s.srv.Listener.Addr().String())
	if err != nil {
		return fmt.Errorf("couldn't listen again at %s: %w", s.URL, err)
	}
	s.srv = httptest.NewUnstartedServer(s.routes())
	s.srv.Listener.Close()
	s.srv.Listener = l
	s.srv.Start()
	s.dead = make(chan struct{})
	return nil
}

// deadChan is closed when the server is killed.
func (s *Server) deadChan() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dead
}
