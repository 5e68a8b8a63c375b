package research

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"warren/config"
	"warren/llm/llmtest"
)

// goroutineTB lets a helper that reports through testing.TB run in a goroutine of its own:
// Fatal and FailNow may only be called from the benchmark's goroutine, so failures are kept
// (a fatal one ends the goroutine) for the benchmark to report once the goroutine is done.
type goroutineTB struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (g *goroutineTB) Helper() {}

func (g *goroutineTB) Failed() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.errs) > 0
}

func (g *goroutineTB) Errorf(format string, args ...any) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.errs = append(g.errs, fmt.Sprintf(format, args...))
}

func (g *goroutineTB) Error(args ...any) { g.Errorf("%s", fmt.Sprint(args...)) }

func (g *goroutineTB) Fatalf(format string, args ...any) {
	g.Errorf(format, args...)
	runtime.Goexit()
}

func (g *goroutineTB) Fatal(args ...any) { g.Fatalf("%s", fmt.Sprint(args...)) }

func (g *goroutineTB) FailNow() {
	g.Errorf("FailNow")
	runtime.Goexit()
}

// benchSetup is a set of scripted hosts: one entry per host, the requests it answers at once.
type benchSetup struct {
	name  string
	slots []int
}

var benchSetups = []benchSetup{{"1x1", []int{1}}, {"2x1", []int{1, 1}}, {"1x2", []int{2}}, {"1x4", []int{4}}}

// hostsHarness is a harness whose chat and fast roles use one scripted server per entry of
// slots, each answering that many requests at once after latency; the gateway sends each as
// many at once. It returns the servers, the harness's own first. Every server gets the rules
// of first, then the others get the scenario's rules (runScenario gives them to the first).
func hostsHarness(b testing.TB, latency time.Duration, slots []int, first ...func(*llmtest.Server)) (*harness, []*llmtest.Server) {
	b.Helper()
	var extra []*llmtest.Server
	h := newHarness(b, func(c *config.Config) {
		c.Ollama.MaxConcurrency = 0 // the harness's Deps.Concurrency: no bound but the hosts'
		c.Chat.Hosts = []config.Host{{URL: c.Ollama.Host, Slots: slots[0]}}
		for _, n := range slots[1:] {
			srv := llmtest.New(b)
			srv.SetSlots(n)
			srv.SetLatency(latency)
			extra = append(extra, srv)
			c.Chat.Hosts = append(c.Chat.Hosts, config.Host{URL: srv.URL, Slots: n})
		}
	})
	h.srv.SetSlots(slots[0])
	h.srv.SetLatency(latency)
	for _, srv := range append([]*llmtest.Server{h.srv}, extra...) {
		for _, f := range first {
			f(srv)
		}
		scriptReportByContent(srv)
	}
	for _, srv := range extra {
		scriptRefinement(srv, 0.4, []string{"Erzeugnisse", "Tätigkeiten", "Fristen"})
		scriptWork(srv)
		scriptReport(srv)
	}
	return h, append([]*llmtest.Server{h.srv}, extra...)
}

// scriptReportByContent answers the report's calls as scriptReport does on one server, but
// from what each request says rather than from how many the server has answered: the first
// draft (asked without a focus) leaves a paragraph uncited and scores low, and remediation
// asks for a second draft that cites every paragraph and scores high. With several hosts,
// or several runs on one server, each run then gets the same answers whichever host takes
// which call. Added first, these rules answer before scriptReport's.
func scriptReportByContent(srv *llmtest.Server) {
	const uncited = "ohne dass hier eine Quelle genannt wird"
	srv.Handle(&llmtest.Rule{Name: "synthesis by content", Contains: "Write the research report", Reply: func(c llmtest.Call) string {
		if strings.Contains(c.LastUser(), "The previous draft fell short") {
			return "# Einstufung\n\nDie Einstufung richtet sich nach den Bestimmungen der Verordnung [1].\n\nDas Chemikaliengesetz regelt Übergänge und Zwecke [2]."
		}
		return "# Einstufung\n\nDie Einstufung richtet sich nach den Bestimmungen der Verordnung, " + uncited + ".\n\nKennzeichnung siehe [1]."
	}})
	srv.Handle(&llmtest.Rule{Name: "quality by content", SchemaHas: "factual_accuracy", Reply: func(c llmtest.Call) string {
		if strings.Contains(c.LastUser(), uncited) {
			return reply(map[string]any{"factual_accuracy": 50, "semantic_validity": 50, "structural_integrity": 40, "citation_correctness": 30, "query_relevance": 60, "issues": []string{"uncited paragraph"}})
		}
		return reply(map[string]any{"factual_accuracy": 90, "semantic_validity": 90, "structural_integrity": 90, "citation_correctness": 90, "query_relevance": 90, "issues": []string{}})
	}})
}

// BenchmarkScenario runs the scripted scenario against scripted servers that answer after
// 200 ms and one request per slot at a time, as a real Ollama does, in four setups: one host
// of one slot, two hosts of one slot each, one host of two slots and one of four. For each it
// times one run alone, and two runs at once through one gateway (two analysts of one warren
// serve), and reports the model calls and tokens of a run, the calls at capacity 1, 2 and 4,
// the wall times and their speedups over the first setup. One run alone is bounded by its
// serial steps (refinement, then the report and its check, one call after another); two runs
// fill each other's gaps. Building the workspaces and servers is not timed. The benchmark
// fails unless every host answered, the servers answered the calls the ledgers hold, and
// every setup made the same calls for the same work (tasks done, references followed,
// sources cited, findings). Run it with -benchtime 1x.
func BenchmarkScenario(b *testing.B) {
	const latency = 200 * time.Millisecond
	walls := map[string]time.Duration{}
	calls := map[string]int{} // of one run alone, per setup
	var work string           // what the first setup's run did
	for b.Loop() {
		for _, setup := range benchSetups {
			for _, runs := range []int{1, 2} {
				b.StopTimer()
				h, servers := hostsHarness(b, latency, setup.slots)
				harnesses := []*harness{h}
				if runs == 2 {
					// A second service over the same gateway, store and servers, as the
					// service layer makes one per run.
					d := *h.svc.Deps
					svc := *h.svc
					svc.Deps = &d
					harnesses = append(harnesses, &harness{srv: h.srv, store: h.store, svc: &svc})
				}
				key := fmt.Sprintf("%s-%d", setup.name, runs)
				b.StartTimer()

				start := time.Now()
				var wg sync.WaitGroup
				failures := make([]*goroutineTB, len(harnesses))
				states := make([]*State, len(harnesses))
				for i, hh := range harnesses {
					failures[i] = &goroutineTB{TB: b}
					wg.Go(func() { states[i] = runScenario(failures[i], hh, fmt.Sprintf("bench-%s-%d", key, i)) })
				}
				wg.Wait()
				walls[key] += time.Since(start)
				for i, f := range failures {
					if len(f.errs) > 0 {
						b.Fatalf("%s, run %d: %s", key, i+1, strings.Join(f.errs, "; "))
					}
				}

				b.StopTimer()
				usage, err := h.store.Usage(context.Background(), fmt.Sprintf("bench-%s-0", key))
				if err != nil {
					b.Fatal(err)
				}
				var answered []string
				requests, ledgered := 0, 0
				for i, srv := range servers {
					n := srv.Count("/api/chat")
					if n == 0 {
						b.Fatalf("%s: host %d answered no request", key, i+1)
					}
					requests += n
					answered = append(answered, fmt.Sprint(n))
				}
				for i := range harnesses {
					run := fmt.Sprintf("bench-%s-%d", key, i)
					c := costOf(b, h, run, states[i])
					ledgered += c.calls
					switch {
					case work == "":
						work = c.work()
					case c.work() != work:
						b.Fatalf("%s, run %d: %s; the first setup's run: %s", key, i+1, c.work(), work)
					}
				}
				if requests != ledgered {
					b.Fatalf("%s: the servers answered %d requests, the runs' ledgers hold %d calls", key, requests, ledgered)
				}
				if runs == 1 {
					calls[setup.name] = usage.Calls
				}
				b.Logf("%s (%d run(s) at once): %.1f s, %d calls in the first run, chat requests per host %s",
					setup.name, runs, walls[key].Seconds(), usage.Calls, strings.Join(answered, " + "))
				if key == "1x1-1" {
					b.ReportMetric(float64(usage.Calls), "calls")
					b.ReportMetric(float64(usage.PromptTokens), "prompt-tokens")
					b.ReportMetric(float64(usage.CompletionTokens), "completion-tokens")
					// Sentences of the final report whose numbers no cited passage states.
					b.ReportMetric(float64(len(states[0].Quality.Unsupported)), "unsupported-sentences")
				}
				b.StartTimer()
			}
		}
	}
	for _, setup := range benchSetups {
		if calls[setup.name] != calls["1x1"] {
			b.Fatalf("%s made %d calls, one host of one slot %d", setup.name, calls[setup.name], calls["1x1"])
		}
	}
	b.ReportMetric(float64(calls["1x1"]), "calls-capacity-1")
	b.ReportMetric(float64(calls["1x2"]), "calls-capacity-2")
	b.ReportMetric(float64(calls["1x4"]), "calls-capacity-4")
	for _, setup := range benchSetups {
		b.ReportMetric(walls[setup.name+"-1"].Seconds()/float64(b.N), "wall-s-"+setup.name)
		b.ReportMetric(walls[setup.name+"-2"].Seconds()/float64(b.N), "wall-s-2runs-"+setup.name)
	}
	for _, name := range []string{"2x1", "1x2", "1x4"} {
		b.ReportMetric(walls["1x1-1"].Seconds()/walls[name+"-1"].Seconds(), "speedup-"+name)
		b.ReportMetric(walls["1x1-2"].Seconds()/walls[name+"-2"].Seconds(), "speedup-2runs-"+name)
	}
}
