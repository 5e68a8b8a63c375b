package llm_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"warren/config"
	"warren/llm"
	"warren/llm/llmtest"
)

// hostsGateway is a gateway whose chat role is served by the given hosts.
func hostsGateway(t testing.TB, hosts []config.Host, adjust ...func(*config.Config)) *llm.Gateway {
	t.Helper()
	return newGateway(t, hosts[0].URL, append([]func(*config.Config){func(c *config.Config) { c.Chat.Hosts = hosts }}, adjust...)...)
}

// gate holds every chat request a server receives until the test lets it go.
type gate struct {
	arrived chan string
	release chan struct{}
}

func newGate(srv *llmtest.Server) *gate {
	g := &gate{arrived: make(chan string, 64), release: make(chan struct{}, 64)}
	srv.SetSlots(0) // the gateway's limits are under test, not the server's
	srv.Handle(&llmtest.Rule{Reply: func(c llmtest.Call) string {
		g.arrived <- c.LastUser()
		<-g.release
		return "answered"
	}})
	return g
}

// Each request goes to the host with the fewest requests in flight for its capacity, and a
// request that finds every slot taken waits for the next free one, wherever it is.
func TestRequestsGoToTheLeastBusyHostForItsCapacity(t *testing.T) {
	cases := []struct {
		name       string
		slotsA     int
		slotsB     int
		wantA      int
		wantB      int
		freeOnB    bool // which host frees a slot for the request that waits
		nextOnB    bool
		maxDefault int
		sent       int // requests sent; 0: one more than the slots, to see the last one wait
	}{
		{name: "fewest in flight for the capacity, not fewest in flight", slotsA: 2, slotsB: 4, sent: 3, wantA: 1, wantB: 2},
		{name: "one and three slots", slotsA: 1, slotsB: 3, wantA: 1, wantB: 3, freeOnB: true, nextOnB: true},
		{name: "two and two", slotsA: 2, slotsB: 2, wantA: 2, wantB: 2, freeOnB: false, nextOnB: false},
		{name: "max_concurrency for a host without #N", slotsA: 0, slotsB: 1, wantA: 3, wantB: 1, freeOnB: true, nextOnB: true, maxDefault: 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srvA, srvB := llmtest.New(t), llmtest.New(t)
			gateA, gateB := newGate(srvA), newGate(srvB)
			g := hostsGateway(t, []config.Host{{URL: srvA.URL, Slots: tc.slotsA}, {URL: srvB.URL, Slots: tc.slotsB}},
				func(c *config.Config) { c.Ollama.MaxConcurrency = max(tc.maxDefault, 1) })
			total := tc.wantA + tc.wantB
			capacity := max(tc.slotsA, tc.maxDefault, 1) + tc.slotsB
			if got := g.Capacity(config.RoleChat); got != capacity {
				t.Errorf("capacity %d, want %d", got, capacity)
			}
			sent := tc.sent
			if sent == 0 {
				sent = total + 1
			}
			var wg sync.WaitGroup
			for i := range sent {
				wg.Go(func() {
					if _, err := g.Text(context.Background(), llm.Request{Prompt: fmt.Sprint("q", i)}); err != nil {
						t.Error(err)
					}
				})
			}
			a, b := 0, 0
			for range total {
				select {
				case <-gateA.arrived:
					a++
				case <-gateB.arrived:
					b++
				}
			}
			if a != tc.wantA || b != tc.wantB {
				t.Errorf("%d on A, %d on B; want %d and %d", a, b, tc.wantA, tc.wantB)
			}
			defer wg.Wait()
			defer func() {
				for range sent {
					gateA.release <- struct{}{}
					gateB.release <- struct{}{}
				}
			}()
			if sent == total {
				return
			}
			freed, other := gateA, gateB
			if tc.freeOnB {
				freed, other = gateB, gateA
			}
			freed.release <- struct{}{}
			select {
			case <-freed.arrived:
				if tc.nextOnB != tc.freeOnB {
					t.Error("the waiting request went to the host that freed a slot, not the other")
				}
			case <-other.arrived:
				t.Error("the waiting request went to a host with no free slot")
			}
		})
	}
}

// Requests one after another take turns on hosts that are equally idle.
func TestIdleHostsTakeTurns(t *testing.T) {
	srvA, srvB := llmtest.New(t), llmtest.New(t)
	for _, s := range []*llmtest.Server{srvA, srvB} {
		s.Handle(&llmtest.Rule{Replies: []string{"ok"}})
	}
	g := hostsGateway(t, []config.Host{{URL: srvA.URL}, {URL: srvB.URL}})
	m := newMeter(llm.Budget{})
	for i := range 6 {
		if _, err := g.Text(context.Background(), llm.Request{Call: m.call(), Prompt: fmt.Sprint("q", i)}); err != nil {
			t.Fatal(err)
		}
	}
	if a, b := srvA.Count("/api/chat"), srvB.Count("/api/chat"); a != 3 || b != 3 {
		t.Errorf("%d on A, %d on B; want 3 each", a, b)
	}
	for _, e := range m.entries {
		if e.Host != srvA.URL && e.Host != srvB.URL {
			t.Errorf("the ledger names host %q", e.Host)
		}
	}
}

// One of two hosts dies while requests are in flight on it: they finish on the other, the
// ledger shows the switch, no answered call is asked again, and the run's budget (exactly one
// call per request) is enough. Brought back, the host serves again after its back-off.
func TestAHostKilledMidRunHandsItsWorkToTheOther(t *testing.T) {
	srvA, srvB := llmtest.New(t), llmtest.New(t)
	var onA atomic.Int32
	srvA.Handle(&llmtest.Rule{Reply: func(c llmtest.Call) string {
		if onA.Add(1) == 3 {
			go srvA.Kill() // while this request waits out its latency
		}
		return "from A: " + c.LastUser()
	}})
	srvB.Handle(&llmtest.Rule{Reply: func(c llmtest.Call) string { return "from B: " + c.LastUser() }})
	for _, s := range []*llmtest.Server{srvA, srvB} {
		s.SetLatency(20 * time.Millisecond)
	}
	g := hostsGateway(t, []config.Host{{URL: srvA.URL, Slots: 1}, {URL: srvB.URL, Slots: 1}})
	const calls = 12
	m := newMeter(llm.Budget{Calls: calls})
	j := &memJournal{m: map[string]llm.JournalEntry{}}
	call := m.call()
	call.Journal = j

	var wg sync.WaitGroup
	work := make(chan int)
	for range 3 {
		wg.Go(func() {
			for i := range work {
				if _, err := g.Text(context.Background(), llm.Request{Call: call, Prompt: fmt.Sprint("question ", i)}); err != nil {
					t.Errorf("question %d: %v", i, err)
				}
			}
		})
	}
	for i := range calls {
		work <- i
	}
	close(work)
	wg.Wait()

	if u := m.run.Usage(); u.Calls != calls || len(m.entries) != calls || len(j.m) != calls {
		t.Errorf("%d calls metered, %d ledger entries, %d journalled; want %d each", u.Calls, len(m.entries), len(j.m), calls)
	}
	answered := map[string]int{}
	for _, s := range []*llmtest.Server{srvA, srvB} {
		for _, r := range s.Requests() {
			if r.Answered {
				answered[r.Messages[len(r.Messages)-1].Content]++
			}
		}
	}
	for q, n := range answered {
		if n > 1 {
			t.Errorf("%q was answered %d times", q, n)
		}
	}
	if len(answered) != calls {
		t.Errorf("%d questions answered, want %d", len(answered), calls)
	}
	switched, fromA := false, 0
	for _, e := range m.entries {
		if e.Host == srvA.URL {
			fromA++
		}
		switched = switched || e.Host == srvB.URL && e.Attempts > 1
	}
	if !switched || fromA == 0 || fromA >= calls {
		t.Errorf("the ledger should show answers from A, then a call moved to B: %d from A, moved %v", fromA, switched)
	}

	if err := srvA.Restart(); err != nil {
		t.Fatal(err)
	}
	before := srvA.Count("/api/chat")
	for i := 0; srvA.Count("/api/chat") == before; i++ {
		if i == 1000 {
			t.Fatal("host A is not used again after it came back")
		}
		if _, err := g.Text(context.Background(), llm.Request{Prompt: fmt.Sprint("after ", i)}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Millisecond) // let the back-off pass and the probe land
	}
	if got := g.Capacity(config.RoleChat); got != 2 {
		t.Errorf("capacity with both hosts up: %d", got)
	}
}

// A host without the role's model is skipped after its first "not found", and the capacity
// counts only the hosts that have it; when no host has it the error names the pull command.
func TestAHostWithoutTheModelIsSkipped(t *testing.T) {
	srvA, srvB := llmtest.New(t), llmtest.New(t)
	srvA.RemoveModel(llmtest.ChatModel)
	srvB.Handle(&llmtest.Rule{Replies: []string{"ok"}})
	g := hostsGateway(t, []config.Host{{URL: srvA.URL, Slots: 2}, {URL: srvB.URL, Slots: 1}})
	m := newMeter(llm.Budget{})
	for i := range 4 {
		if _, err := g.Text(context.Background(), llm.Request{Call: m.call(), Prompt: fmt.Sprint("q", i)}); err != nil {
			t.Fatal(err)
		}
	}
	if a := srvA.Count("/api/chat"); a != 1 {
		t.Errorf("A was asked %d times; once is enough to learn it lacks the model", a)
	}
	if m.entries[0].Host != srvB.URL || m.entries[0].Attempts != 2 || m.run.Usage().Calls != 4 {
		t.Errorf("first call: %+v; usage %+v", m.entries[0], m.run.Usage())
	}
	if got := g.Capacity(config.RoleChat); got != 1 {
		t.Errorf("capacity %d, want B's 1", got)
	}
	srvB.RemoveModel(llmtest.ChatModel)
	_, err := g.Text(context.Background(), llm.Request{Prompt: "nobody has it"})
	var missing *llm.ModelMissingError
	if !errors.As(err, &missing) || missing.Host != srvA.URL+", "+srvB.URL {
		t.Errorf("want a ModelMissingError naming both hosts, got %v", err)
	}
	if err := g.CheckModel(context.Background(), config.RoleChat); !errors.Is(err, llm.ErrModelMissing) {
		t.Errorf("CheckModel: %v", err)
	}
	srvA.AddModel(llmtest.Model{Name: llmtest.ChatModel})
	if err := g.CheckModel(context.Background(), config.RoleChat); err != nil {
		t.Errorf("CheckModel after a pull on A: %v", err)
	}
	if got := g.Capacity(config.RoleChat); got != 2 {
		t.Errorf("capacity after a pull on A: %d, want A's 2", got)
	}
}

// Embedding batches spread over the embed role's hosts too.
func TestEmbedBatchesUseEveryHost(t *testing.T) {
	srvA, srvB := llmtest.New(t), llmtest.New(t)
	g := newGateway(t, srvA.URL, func(c *config.Config) {
		c.Embed.Hosts = []config.Host{{URL: srvA.URL}, {URL: srvB.URL}}
		c.Ollama.EmbedBatchSize = 2
	})
	if _, err := g.Embed(context.Background(), llm.Call{}, []string{"a", "b", "c", "d"}, nil); err != nil {
		t.Fatal(err)
	}
	if a, b := srvA.Count("/api/embed"), srvB.Count("/api/embed"); a != 1 || b != 1 {
		t.Errorf("%d batches on A, %d on B", a, b)
	}
}

// Two roles that list one host share its slots, and one host given two numbers is an error.
func TestHostSlotsAreOnePerAddress(t *testing.T) {
	c := testConfig("http://a:1")
	c.Chat.Hosts = []config.Host{{URL: "http://a:1", Slots: 4}}
	g, err := llm.New(c)
	if err != nil {
		t.Fatal(err)
	}
	if got := g.Capacity(config.RoleEmbed); got != 4 {
		t.Errorf("the embed role on the same host: capacity %d, want the host's 4", got)
	}
	c.Embed.Hosts = []config.Host{{URL: "http://a:1", Slots: 3}}
	if _, err := llm.New(c); err == nil {
		t.Error("a host given #4 and #3 should be refused")
	}
}
