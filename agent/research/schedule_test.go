package research

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"warren/llm/llmtest"
)

// The scripted scenario ends in the same state and report whether one task is worked at a
// time (one host of one slot) or three (two hosts, of two slots and one): the tasks of a wave
// are merged in plan order whatever the timing. Its re-evaluations here add a task and keep
// one open for another pass, so that the plan is worked in several waves.
func TestScenarioIsTheSameAtAnyCapacity(t *testing.T) {
	var states []string
	var reports []string
	for _, slots := range [][]int{{1}, {2, 1}} {
		h, servers := hostsHarness(t, 10*time.Millisecond, slots, scriptReevaluation)
		s := runScenario(t, h, "capacity")
		added, passes := 0, 0
		for _, task := range s.Plan {
			if task.Added {
				added++
			}
			passes = max(passes, task.Passes)
		}
		if added == 0 || passes < 2 {
			t.Errorf("hosts %v: %d tasks added, at most %d passes of a task; want some and two", slots, added, passes)
		}
		for i, srv := range servers {
			if peak := srv.PeakInFlight(); peak != slots[i] {
				t.Errorf("hosts %v: host %d answered at most %d requests at once, want %d", slots, i+1, peak, slots[i])
			}
		}
		if len(s.Plan) < 3 || len(s.Findings) == 0 || len(s.References) == 0 {
			t.Fatalf("hosts %v: the scenario worked too little to compare: %d tasks, %d findings, %d references",
				slots, len(s.Plan), len(s.Findings), len(s.References))
		}
		reports = append(reports, s.Report)
		s.ElapsedNS = 0 // wall time
		for i := range s.Decisions {
			s.Decisions[i].At = time.Time{}
		}
		data, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		states = append(states, string(data))
	}
	if reports[0] != reports[1] {
		t.Errorf("the report differs between capacity 1 and 3:\n%s\n---\n%s", reports[0], reports[1])
	}
	if states[0] != states[1] {
		t.Errorf("the final state differs between capacity 1 and 3:\n%s\n---\n%s", states[0], states[1])
	}
}

// scriptReevaluation answers re-evaluations before scriptWork does: the assessment task adds a
// task, and the transition task stays open until it has six findings.
func scriptReevaluation(srv *llmtest.Server) {
	srv.Handle(&llmtest.Rule{Name: "re-evaluate in waves", SchemaHas: "task_done", Reply: func(c llmtest.Call) string {
		p := c.LastUser()
		switch {
		case strings.Contains(p, "Task: Schutzmaßnahmen"):
			return reply(map[string]any{"task_done": true, "new_tasks": []map[string]string{
				{"query": "Ersatzstoffe Substitution Prüfung", "rationale": "aus der Beurteilung", "done_when": "Prüfung bekannt"}}})
		case strings.Contains(p, "Task: Übergangsregelung") && strings.Count(p, "\n- ") < 6:
			return reply(map[string]any{"task_done": false, "new_tasks": []any{}, "next_query": "Übergangsvorschriften Chemikaliengesetz"})
		}
		return `{"task_done":true,"new_tasks":[]}`
	}})
}

// The tasks of a wave share its call slots: however many items their parallel steps run, no
// more calls than slots are made at once, a call inside an item holds no second slot, and a
// serial call waits for one like the rest.
func TestCallSlotsBoundTheCallsOfAWave(t *testing.T) {
	slots := newCallSlots(2)
	var mu sync.Mutex
	in, peak := 0, 0
	call := func(ctx context.Context, c caller) error {
		_, release, err := holdCallSlot(ctx, c) // as structured does: free inside an item
		if err != nil {
			return err
		}
		defer release()
		mu.Lock()
		in++
		peak = max(peak, in)
		mu.Unlock()
		time.Sleep(5 * time.Millisecond)
		mu.Lock()
		in--
		mu.Unlock()
		return nil
	}
	err := parallel(context.Background(), caller{}, 3, 3, func(ctx context.Context, c caller, task int) error { // three tasks at once
		c = slots.on(c, task)
		for range 3 {
			if err := parallel(ctx, c, 4, 4, func(ctx context.Context, c caller, i int) error { return call(ctx, c) }); err != nil {
				return err
			}
			if err := call(ctx, c); err != nil { // a serial call, as a re-evaluation
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if peak != 2 {
		t.Errorf("at most %d calls at once, want the 2 slots used and never exceeded", peak)
	}
}

// A free call slot goes to the waiting call of the task earliest in the wave, first come first
// served within a task.
func TestCallSlotsServeEarlierTasksFirst(t *testing.T) {
	slots := newCallSlots(1)
	ctx := context.Background()
	first, second, third := slots.on(caller{}, 0), slots.on(caller{}, 1), slots.on(caller{}, 2)
	hold, release, err := holdCallSlot(ctx, first) // the one slot is busy
	if err != nil || !hold.held {
		t.Fatalf("the first call gets the free slot: %v", err)
	}
	var mu sync.Mutex
	var served []string
	var wg sync.WaitGroup
	waiting := func() int {
		slots.mu.Lock()
		defer slots.mu.Unlock()
		return len(slots.waiting)
	}
	queue := func(name string, c caller) {
		before := waiting()
		wg.Go(func() {
			_, release, err := holdCallSlot(ctx, c)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			served = append(served, name)
			mu.Unlock()
			release()
		})
		for waiting() == before { // queued in this order
			time.Sleep(time.Millisecond)
		}
	}
	queue("t3 call", third)
	queue("t2 call", second)
	queue("t3 second call", third)
	queue("t1 call", first)
	queue("t2 second call", second)
	queue("t1 second call", first)
	release()
	wg.Wait()
	want := "t1 call|t1 second call|t2 call|t2 second call|t3 call|t3 second call"
	if got := strings.Join(served, "|"); got != want {
		t.Errorf("served\n%s\nwant\n%s", got, want)
	}
}
