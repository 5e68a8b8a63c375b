package llm

import (
	"context"
	"sync"
)

// flights make identical exchanges of one run take turns: while one is in flight, an
// identical one waits for it to end and then finds its answer in the run's journal. Without
// them an identical request is replayed when the first has ended and paid again when it has
// not, so a run's calls would depend on how many it makes at once.
type flights struct {
	mu sync.Mutex
	m  map[flightKey]chan struct{}
}

type flightKey struct {
	run *Run
	key string
}

// join waits until no exchange of run with key is in flight and takes the turn; done ends it.
// Without a run or a journal there is nothing to share: it returns at once.
func (f *flights) join(ctx context.Context, call Call, key string) (done func(), err error) {
	if call.Run == nil || call.Journal == nil {
		return func() {}, nil
	}
	k := flightKey{call.Run, key}
	for {
		f.mu.Lock()
		ch, busy := f.m[k]
		if !busy {
			if f.m == nil {
				f.m = map[flightKey]chan struct{}{}
			}
			ch = make(chan struct{})
			f.m[k] = ch
			f.mu.Unlock()
			return func() {
				f.mu.Lock()
				delete(f.m, k)
				f.mu.Unlock()
				close(ch)
			}, nil
		}
		f.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}
