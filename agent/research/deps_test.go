package research

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"warren/llm"
)

func TestParallelFillsEverySlotWithinTheLimit(t *testing.T) {
	const n, limit = 40, 3
	out := make([]int, n)
	var running, peak atomic.Int32
	err := parallel(context.Background(), caller{}, n, limit, func(ctx context.Context, _ caller, i int) error {
		now := running.Add(1)
		defer running.Add(-1)
		for p := peak.Load(); now > p && !peak.CompareAndSwap(p, now); p = peak.Load() {
		}
		time.Sleep(time.Millisecond)
		out[i] = i * i
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range out {
		if v != i*i {
			t.Fatalf("slot %d holds %d", i, v)
		}
	}
	if p := peak.Load(); p > limit || p < 1 {
		t.Errorf("%d items ran at once, limit %d", p, limit)
	}
	if err := parallel(context.Background(), caller{}, 3, 0, func(context.Context, caller, int) error { return nil }); err != nil {
		t.Errorf("a limit below one runs one at a time: %v", err)
	}
}

func TestParallelFirstErrorStopsTheOthers(t *testing.T) {
	boom := errors.New("boom")
	var started atomic.Int32
	err := parallel(context.Background(), caller{}, 100, 2, func(ctx context.Context, _ caller, i int) error {
		started.Add(1)
		if i == 1 {
			return boom
		}
		<-ctx.Done() // the others wait until the error stops them
		return ctx.Err()
	})
	if !errors.Is(err, boom) {
		t.Errorf("want the item's error, not the cancellations it caused: %v", err)
	}
	if n := started.Load(); n > 3 {
		t.Errorf("%d items started after the first error", n)
	}
}

func TestParallelBudgetErrorWins(t *testing.T) {
	other := errors.New("model answered nonsense")
	for range 20 {
		started, release := make(chan struct{}), make(chan struct{})
		err := parallel(context.Background(), caller{}, 2, 2, func(ctx context.Context, _ caller, i int) error {
			if i == 0 {
				<-started
				defer close(release)
				return other
			}
			close(started)
			<-release // fails after the other error stopped the group
			return fmt.Errorf("extract: %w", llm.ErrBudgetExhausted)
		})
		if !errors.Is(err, llm.ErrBudgetExhausted) {
			t.Fatalf("the budget error decides what the run does next: %v", err)
		}
	}
}

func TestParallelReportsTheCallersCancellation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var ran atomic.Int32
	err := parallel(ctx, caller{}, 10, 1, func(ctx context.Context, _ caller, i int) error {
		ran.Add(1)
		if i == 2 {
			cancel()
		}
		return nil // items that ignore the cancellation still leave the results incomplete
	})
	if !errors.Is(err, context.Canceled) || ran.Load() >= 10 {
		t.Errorf("want the cancellation after %d of 10 items: %v", ran.Load(), err)
	}
}
