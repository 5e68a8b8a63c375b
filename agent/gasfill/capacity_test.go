package gasfill

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"warren/agent"
	"warren/config"
	"warren/gas"
	"warren/llm"
	"warren/llm/llmkb"
	"warren/llm/llmtest"
)

// useHosts points the harness's filler at one scripted server per entry of slots, each
// answering that many requests at once after latency, and returns the servers (the harness's
// own first). The gateway sends each host as many requests at once as it answers.
func (h *harness) useHosts(t testing.TB, latency time.Duration, slots ...int) []*llmtest.Server {
	t.Helper()
	cfg := config.Default()
	cfg.Ollama.BackoffBase = 1e6
	var servers []*llmtest.Server
	total := 0
	for i, n := range slots {
		srv := h.srv
		if i > 0 {
			srv = llmtest.New(t)
		}
		srv.SetSlots(n)
		srv.SetLatency(latency)
		servers = append(servers, srv)
		cfg.Chat.Hosts = append(cfg.Chat.Hosts, config.Host{URL: srv.URL, Slots: n})
		total += n
	}
	g, err := llm.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h.filler.Gateway, h.filler.Searcher = g, llmkb.Searcher(h.filler.Searcher.Store, g, 0)
	if got := g.Capacity(config.RoleChat); got != total {
		t.Fatalf("the gateway's capacity is %d, want %d", got, total)
	}
	return servers
}

// A fill run works as many rows at once as the gateway can send, and ends in the same state
// and the same table whatever that number: rows are taken, saved and checkpointed in order.
func TestFillRunIsTheSameAtAnyCapacity(t *testing.T) {
	type outcome struct {
		state, table string
		checkpoints  int
	}
	var got []outcome
	for _, slots := range [][]int{{1}, {2, 1}} { // capacity 1, and 3 over two hosts
		h := newHarness(t)
		servers := h.useHosts(t, 20*time.Millisecond, slots...)
		for _, srv := range servers {
			scriptReader(t, srv, loadAnswerKey(t), new(atomic.Bool))
		}
		var rows []int
		for _, r := range h.table.Rows {
			rows = append(rows, r.ID)
		}
		r := h.runner(t, nil)
		state := h.startState(t, rows)
		r.Call = journaled(h, "fill-c")
		out, err := r.Start(context.Background(), "fill-c", "test fill", state)
		if err != nil || out.Status != agent.StatusDone {
			t.Fatalf("hosts %v: %+v %v", slots, out, err)
		}
		for i, srv := range servers {
			if peak := srv.PeakInFlight(); peak != slots[i] {
				t.Errorf("hosts %v: host %d answered at most %d requests at once, want %d", slots, i+1, peak, slots[i])
			}
		}
		cps, err := r.Store.Checkpoints(context.Background(), "fill-c")
		if err != nil {
			t.Fatal(err)
		}
		table, err := h.tables.LoadTable(context.Background(), h.table.Name)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, outcome{state: stateJSON(t, state), table: tableJSON(t, table), checkpoints: len(cps)})
	}
	one, three := got[0], got[1]
	if one.checkpoints != three.checkpoints {
		t.Errorf("checkpoints: %d at capacity 1, %d at capacity 3; want one per row", one.checkpoints, three.checkpoints)
	}
	if one.state != three.state {
		t.Errorf("the run's state differs between capacity 1 and 3:\n%s\n%s", one.state, three.state)
	}
	if one.table != three.table {
		t.Errorf("the filled table differs between capacity 1 and 3:\n%s\n%s", one.table, three.table)
	}
}

// stateJSON is the state with the times of its cells left out.
func stateJSON(t testing.TB, s *State) string {
	t.Helper()
	c := *s
	c.Results = nil
	for _, r := range s.Results {
		r.Changes = append([]CellChange(nil), r.Changes...)
		for i := range r.Changes {
			r.Changes[i].Before.UpdatedAt, r.Changes[i].After.UpdatedAt = time.Time{}, time.Time{}
		}
		c.Results = append(c.Results, r)
	}
	data, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// tableJSON is the table with the times of its cells left out.
func tableJSON(t testing.TB, tab *gas.Table) string {
	t.Helper()
	for _, r := range tab.Rows {
		for f, c := range r.Cells {
			c.UpdatedAt = time.Time{}
			r.Cells[f] = c
		}
	}
	data, err := json.Marshal(tab)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
