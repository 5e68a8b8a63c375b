package tui

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"warren/service"
	researchpanel "warren/tui/research"
)

// bigState has a 2,000-line report and a reference tree of about 500 nodes.
func bigState() *service.ResearchState {
	s := fixtureState()
	var report strings.Builder
	report.WriteString("# A long report\n\n")
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(&report, "Paragraph %d states a finding about purge sequences and alarm set points [%d].\n\n", i, i%40+1)
	}
	s.Report = report.String()
	s.Sources = nil
	for n := 1; n <= 40; n++ {
		s.Sources = append(s.Sources, service.ResearchSource{N: n, ChunkID: fmt.Sprintf("doc#%04d", n), Doc: "standards/gcp.md", Section: fmt.Sprint(n)})
	}
	s.Findings, s.References = nil, nil
	for i := 0; i < 250; i++ {
		id := fmt.Sprintf("standards/gcp.md#%04d", i)
		s.Findings = append(s.Findings, service.ResearchFinding{Task: "t1", ChunkID: id, Doc: "standards/gcp.md", Section: fmt.Sprint(i % 9),
			Depth: i % 3, Information: "a finding", Excerpt: "an excerpt of the passage"})
		s.References = append(s.References, service.ResearchRef{Task: "t1", FromChunk: id, Text: "Section 4.2", State: service.RefFollowed, Reason: "relevant"})
	}
	return s
}

// minSamples is the fewest timings a percentile is reported from: with fewer, a "p99" would
// be the maximum of a handful.
const minSamples = 100

// durations times f n times and returns the timings in order.
func durations(b *testing.B, n int, f func(i int)) []time.Duration {
	out := make([]time.Duration, 0, n)
	for i := 0; i < n; i++ {
		start := time.Now()
		f(i)
		out = append(out, time.Since(start))
	}
	return out
}

// percentile is the nearest-rank percentile p (0-100) of sorted timings.
func percentile(d []time.Duration, p int) time.Duration {
	return d[max((len(d)*p+99)/100-1, 0)]
}

// reportPercentiles reports p50 and p99 of timings, and how many there were; it fails the
// benchmark with fewer than minSamples. Call it after the b.Loop loop, over the timings of
// every iteration.
func reportPercentiles(b *testing.B, d []time.Duration, prefix string) {
	b.Helper()
	d = slices.Clone(d)
	slices.Sort(d)
	if len(d) < minSamples {
		b.Fatalf("%s percentiles from %d samples: at least %d are needed", prefix, len(d), minSamples)
	}
	ms := func(x time.Duration) float64 { return float64(x) / float64(time.Millisecond) }
	b.ReportMetric(ms(percentile(d, 50)), prefix+"p50-ms")
	b.ReportMetric(ms(percentile(d, 99)), prefix+"p99-ms")
	b.ReportMetric(float64(len(d)), prefix+"samples")
}

// BenchmarkResearchView draws the Research tab's report (2,000 lines) and tree (about 500
// nodes) frame after frame while the analyst scrolls and moves, after the first render.
func BenchmarkResearchView(b *testing.B) {
	m := sized(120, 40)
	s := bigState()
	r := m.research
	r.SetUp(researchpanel.Fixture{State: s, Run: "bench", View: "run", Report: service.ResearchReport(s)})
	r.Update(key1("t")) // builds the tree
	r.Update(key1("r")) // back to the report
	// Rendering runs once per width, in a command, off the frame path: the median of five
	// first renders, each with a new renderer as a new width has.
	renders := make([]time.Duration, 5)
	for i := range renders {
		r.ForgetRendering()
		first := time.Now()
		m.Update(r.Reflow()())
		renders[i] = time.Since(first)
	}
	slices.Sort(renders)
	firstRender := renders[len(renders)/2]
	if n := r.Snapshot().ReportLines; n < 2000 {
		b.Fatalf("the report has %d lines, want 2,000+", n)
	}
	if n := r.Snapshot().TreeNodes; n < 500 {
		b.Fatalf("the tree has %d nodes, want 500+", n)
	}
	var report, tree []time.Duration
	for b.Loop() {
		report = append(report, durations(b, 300, func(i int) {
			if i%3 == 0 {
				r.Update(key1("n"))
			} else {
				r.Update(tea.KeyPressMsg{Code: tea.KeyPgDown})
			}
			m.Render()
		})...)
		r.Update(key1("t"))
		tree = append(tree, durations(b, 300, func(i int) {
			for range 7 {
				r.Update(tea.KeyPressMsg{Code: tea.KeyDown})
			}
			if i%10 == 0 {
				r.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
			}
			m.Render()
		})...)
		r.Update(key1("r"))
	}
	reportPercentiles(b, report, "report-")
	reportPercentiles(b, tree, "tree-")
	b.ReportMetric(float64(firstRender)/float64(time.Millisecond), "background-render-ms") // b.Loop drops metrics reported before it
}

// key1 is a key press of one letter.
func key1(k string) tea.KeyPressMsg { return tea.KeyPressMsg{Code: rune(k[0]), Text: k} }

// BenchmarkEventAbsorption feeds the program batches of agent events, as a busy run does,
// and presses a key between batches: events per second absorbed, and how long a key takes
// (p50 and p99 over every key of every iteration, 200 per iteration).
func BenchmarkEventAbsorption(b *testing.B) {
	m := sized(120, 40)
	m.research.SetUp(researchpanel.Fixture{Run: "bench", View: "run"})
	state, _ := json.Marshal(fixtureState())
	var batch []service.RunEvent
	for i := 0; i < 100; i++ {
		switch i % 10 {
		case 0:
			batch = append(batch, service.RunEvent{Run: "bench", Kind: service.EventNodeStarted, Node: "execute"})
		case 1:
			batch = append(batch, service.RunEvent{Run: "bench", Kind: service.EventNodeFinished, Node: "execute", State: state})
		default:
			batch = append(batch, service.RunEvent{Run: "bench", Kind: service.EventLedger, Ledger: &service.LedgerEntry{Node: "execute", Role: "fast", Kind: "structured", PromptTokens: 300, CompletionTokens: 40}})
		}
	}
	var events int
	var spent time.Duration
	var keys []time.Duration
	for b.Loop() {
		for range 200 {
			start := time.Now()
			m.Update(eventsMsg{Items: batch})
			spent += time.Since(start)
			events += len(batch)
			k := time.Now()
			m.Update(tea.KeyPressMsg{Code: 't'})
			m.Render()
			keys = append(keys, time.Since(k))
			m.research.Update(tea.KeyPressMsg{Code: tea.KeyEscape}) // from the tree back to the run view
		}
	}
	b.ReportMetric(float64(events)/spent.Seconds(), "events/s")
	reportPercentiles(b, keys, "key-")
}

// BenchmarkFirstFrame is the time from building the workbench to its first frame, p50 and
// p99 over 100 workbenches per iteration.
func BenchmarkFirstFrame(b *testing.B) {
	var all []time.Duration
	for b.Loop() {
		all = append(all, durations(b, 100, func(int) {
			m := New(desksOf(fixture{}, noTox{}))
			m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
			if m.Render() == "" {
				b.Fatal("empty frame")
			}
		})...)
	}
	reportPercentiles(b, all, "frame-")
}
