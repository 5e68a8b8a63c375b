package research

import (
	"context"
	"fmt"
	"testing"
	"time"

	"warren/config"
)

// BenchmarkScenario runs the scripted scenario against llmtest with 200 ms per answer, once with
// one model call in flight and once with four, and reports the model calls, the tokens and
// both wall times with their ratio. Building the workspaces is not timed. Run it with
// -benchtime 1x.
func BenchmarkScenario(b *testing.B) {
	const latency = 200 * time.Millisecond
	walls := map[int]time.Duration{}
	concurrencies := []int{1, 4}
	for b.Loop() {
		// The workspaces and servers are built outside the timed part.
		b.StopTimer()
		harnesses := map[int]*harness{}
		for _, conc := range concurrencies {
			harnesses[conc] = newHarness(b, func(c *config.Config) { c.Ollama.MaxConcurrency = conc })
			harnesses[conc].srv.SetLatency(latency)
		}
		b.StartTimer()
		for _, conc := range concurrencies {
			h := harnesses[conc]
			run := fmt.Sprintf("bench-%d", conc)
			start := time.Now()
			runScenario(b, h, run)
			walls[conc] = time.Since(start)
			usage, err := h.store.Usage(context.Background(), run)
			if err != nil {
				b.Fatal(err)
			}
			if conc == 1 {
				b.ReportMetric(float64(usage.Calls), "calls")
				b.ReportMetric(float64(usage.PromptTokens), "prompt-tokens")
				b.ReportMetric(float64(usage.CompletionTokens), "completion-tokens")
			}
		}
	}
	b.ReportMetric(walls[1].Seconds(), "wall-s-c1")
	b.ReportMetric(walls[4].Seconds(), "wall-s-c4")
	b.ReportMetric(walls[1].Seconds()/walls[4].Seconds(), "speedup")
}
