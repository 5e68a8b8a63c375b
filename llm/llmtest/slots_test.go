package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"
)

// ask sends one non-streamed chat request and returns its status (0: no answer at all).
func ask(url, msg string) int {
	data, _ := json.Marshal(map[string]any{"model": ChatModel, "stream": false,
		"messages": []map[string]string{{"role": "user", "content": msg}}})
	resp, err := http.Post(url+"/api/chat", "application/json", bytes.NewReader(data))
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	var out map[string]any
	if json.NewDecoder(resp.Body).Decode(&out) != nil {
		return 0
	}
	return resp.StatusCode
}

// N slots answer N requests at once; the N+1th waits for one of them to end. The order is
// read from the server's record of when each request held a slot, not from a stopwatch.
func TestSlotsQueueTheRequestsBeyondThem(t *testing.T) {
	for _, n := range []int{1, 2, 3} {
		t.Run(fmt.Sprintf("%d slots", n), func(t *testing.T) {
			s := New(t)
			s.Handle(&Rule{Replies: []string{"ok"}})
			s.SetSlots(n)
			s.SetLatency(50 * time.Millisecond)
			var wg sync.WaitGroup
			for i := range n + 1 {
				wg.Go(func() {
					if code := ask(s.URL, fmt.Sprint("question ", i)); code != 200 {
						t.Errorf("request %d: status %d", i, code)
					}
				})
			}
			wg.Wait()
			recs := s.Requests()
			if len(recs) != n+1 {
				t.Fatalf("%d requests recorded, want %d", len(recs), n+1)
			}
			slices.SortFunc(recs, func(a, b Recorded) int { return a.Start.Compare(b.Start) })
			last := recs[n]
			ended := 0
			for _, r := range recs[:n] {
				if !r.Answered || r.Start.IsZero() || r.End.Before(r.Start) {
					t.Errorf("a request's slot is not recorded: %+v", r)
				}
				if !last.Start.Before(r.End) {
					ended++
				}
			}
			if ended == 0 {
				t.Errorf("request %d of %d started at %s, before any of the first %d ended: %v", n+1, n+1,
					last.Start.Format(time.StampMicro), n, spans(recs))
			}
			if got := s.PeakInFlight(); got != n {
				t.Errorf("%d requests held a slot at once, want %d", got, n)
			}
		})
	}
}

func spans(recs []Recorded) []string {
	var out []string
	for _, r := range recs {
		out = append(out, r.Start.Format(time.StampMicro)+"–"+r.End.Format(time.StampMicro))
	}
	return out
}

// A killed server cuts the request in progress (recorded as not answered), refuses new ones,
// and answers again after Restart at the same address.
func TestKillCutsRequestsAndRestartAnswersAgain(t *testing.T) {
	s := New(t)
	started := make(chan struct{}, 1)
	s.Handle(&Rule{Reply: func(Call) string { started <- struct{}{}; return "ok" }})
	s.SetLatency(time.Minute)
	done := make(chan int, 1)
	go func() { done <- ask(s.URL, "cut off") }()
	<-started
	s.Kill()
	if code := <-done; code != 0 {
		t.Errorf("the request in progress got status %d, want no answer", code)
	}
	if code := ask(s.URL, "refused"); code != 0 {
		t.Errorf("a killed server answered %d", code)
	}
	if recs := s.Requests(); len(recs) != 1 || recs[0].Answered {
		t.Errorf("the cut request is recorded as answered: %+v", recs)
	}
	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	s.SetLatency(0)
	go func() { <-started }()
	if code := ask(s.URL, "again"); code != 200 {
		t.Errorf("after Restart: status %d", code)
	}
	if recs := s.Requests(); len(recs) != 2 || !recs[1].Answered {
		t.Errorf("the answer after Restart is not recorded: %+v", recs)
	}
}
