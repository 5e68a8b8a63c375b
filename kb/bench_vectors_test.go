package kb_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"warren/kb/vectors"
)

// BenchmarkDenseCrossover finds the collection size from which the graph answers faster
// than the exact scan: for each size, the same queries through the graph and by scan,
// interleaved (768 dimensions). kb/vectors' indexThreshold is set from it.
func BenchmarkDenseCrossover(b *testing.B) {
	gen := topical{seed: 11, dim: benchDim, perDoc: 100}
	for _, n := range []int{1000, 2000, 5000, 10_000, 20_000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			data := gen.corpus(n)
			ids := make([]string, n)
			for i := range ids {
				ids[i] = fmt.Sprintf("c%d", i)
			}
			if _, err := vectors.WriteCollection(dir, "x", benchDim, 1, data, ids, 1); err != nil {
				b.Fatal(err)
			}
			r, err := vectors.OpenCollection(dir, "x", 1)
			if err != nil || !r.HasGraph() {
				b.Fatalf("the graph must be read: %v", err)
			}
			var index, exact []time.Duration
			found, want, q := 0, 0, 0
			for b.Loop() {
				v := gen.query(q, n)
				q++
				t0 := time.Now()
				got := r.Search(v, 10)
				index = append(index, time.Since(t0))
				t1 := time.Now()
				truth := r.Exact(v, 10)
				exact = append(exact, time.Since(t1))
				found += overlap(got, truth)
				want += len(truth)
			}
			b.ReportMetric(float64(percentile(index, 0.5))/1e3, "index-p50-µs")
			b.ReportMetric(float64(percentile(exact, 0.5))/1e3, "exact-p50-µs")
			b.ReportMetric(float64(found)/float64(want), "recall@10")
		})
	}
}

const (
	millionChunks = 1_000_000
	millionDim    = 384
	millionProbe  = "WARREN_VECTOR_PROBE"
	millionQuery  = 100
)

// BenchmarkDense1M writes 1,000,000 chunks × 384 dimensions (clustered, deterministic) as a
// collection's vector files, builds and writes its graph, then opens the files in a fresh
// process (this test binary, running TestVectorProbe) that reports how long opening until
// searchable took, its resident memory, and query latency through the graph and by exact
// scan with the recall@10 of the one against the other. It takes minutes and gigabytes,
// so it runs only when WARREN_BENCH_1M is set (`make bench` sets it on its own line).
func BenchmarkDense1M(b *testing.B) {
	if os.Getenv("WARREN_BENCH_1M") == "" {
		b.Skip("set WARREN_BENCH_1M=1 to run (minutes, about 5 GB)")
	}
	gen := topical{seed: 13, dim: millionDim, perDoc: 100}
	dir := b.TempDir()
	data := gen.corpus(millionChunks)
	ids := make([]string, millionChunks)
	for i := range ids {
		ids[i] = fmt.Sprintf("doc%05d#%03d", i/100, i%100)
	}
	build, err := vectors.WriteCollection(dir, "million", millionDim, 1, data, ids, 0)
	if err != nil {
		b.Fatal(err)
	}
	data, ids = nil, nil
	var p probeResult
	for b.Loop() {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestVectorProbe$", "-test.count", "1")
		cmd.Env = append(os.Environ(), millionProbe+"="+dir)
		out, err := cmd.CombinedOutput()
		if err != nil {
			b.Fatalf("probe: %v\n%s", err, out)
		}
		if p, err = parseProbe(out); err != nil {
			b.Fatalf("%v\n%s", err, out)
		}
	}
	raw := float64(millionChunks * millionDim * 4)
	b.ReportMetric(build.Seconds(), "build-s")
	b.ReportMetric(p.OpenSeconds, "open-s")
	b.ReportMetric(p.RSS/1e6, "rss-MB")
	b.ReportMetric(p.RSS/raw, "rss/raw")
	b.ReportMetric(p.IndexP50*1e3, "index-p50-ms")
	b.ReportMetric(p.ExactP50*1e3, "exact-p50-ms")
	b.ReportMetric(p.IndexP50/p.ExactP50, "p50-ratio")
	b.ReportMetric(p.Recall, "recall@10")
}

type probeResult struct {
	OpenSeconds, RSS, IndexP50, ExactP50, Recall float64
}

func parseProbe(out []byte) (probeResult, error) {
	var p probeResult
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		if line, ok := strings.CutPrefix(sc.Text(), "PROBE "); ok {
			return p, json.Unmarshal([]byte(line), &p)
		}
	}
	return p, fmt.Errorf("the probe printed no result")
}

// TestVectorProbe is BenchmarkDense1M's fresh process; it does nothing in a test run.
func TestVectorProbe(t *testing.T) {
	dir := os.Getenv(millionProbe)
	if dir == "" {
		t.Skip("run by BenchmarkDense1M")
	}
	start := time.Now()
	r, err := vectors.OpenCollection(dir, "million", 1)
	if err != nil {
		t.Fatal(err)
	}
	if !r.HasGraph() || r.Rows() != millionChunks {
		t.Fatalf("the graph must be read from its file (rows %d)", r.Rows())
	}
	gen := topical{seed: 13, dim: millionDim, perDoc: 100}
	r.Search(gen.query(0, millionChunks), 10) // searchable: the first answer is in
	p := probeResult{OpenSeconds: time.Since(start).Seconds()}
	var index, exact []time.Duration
	found, want := 0, 0
	for q := range millionQuery {
		v := gen.query(q+1, millionChunks)
		t0 := time.Now()
		got := r.Search(v, 10)
		index = append(index, time.Since(t0))
		t1 := time.Now()
		truth := r.Exact(v, 10)
		exact = append(exact, time.Since(t1))
		found += overlap(got, truth)
		want += len(truth)
	}
	p.IndexP50, p.ExactP50 = percentile(index, 0.5).Seconds(), percentile(exact, 0.5).Seconds()
	p.Recall = float64(found) / float64(want)
	p.RSS = residentBytes(t)
	out, _ := json.Marshal(p)
	fmt.Printf("PROBE %s\n", out)
}

// residentBytes reads the process's resident set size from /proc.
func residentBytes(t *testing.T) float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("no /proc: resident memory is not measured here")
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kbytes, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			if err == nil {
				return kbytes * 1024
			}
		}
	}
	t.Fatal("no VmRSS in /proc/self/status")
	return 0
}
