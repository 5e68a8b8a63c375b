package serve

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"warren/access"
	"warren/config"
	"warren/internal/schema"
	"warren/kb"
	"warren/service"
	"warren/service/jobs"
)

// benchServerEnv makes the test binary the server of BenchmarkServe20Watchers: the server
// runs in its own process so that its CPU time and memory are its own, not the clients'.
const benchServerEnv = "WARREN_SERVE_BENCH_SERVER"

func TestMain(m *testing.M) {
	if dir := os.Getenv(benchServerEnv); dir != "" {
		if err := benchServer(dir); err != nil {
			fmt.Fprintln(os.Stderr, "bench server:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// benchServer serves a workspace in dir where every analyst of dir/authorized_keys has a run
// that emits one event every 100 ms, each naming its number and when it was sent. It prints
// "READY addr" and serves until stdin closes.
func benchServer(dir string) error {
	ws := filepath.Join(dir, "ws")
	if _, err := kb.Init(ws, schema.All()); err != nil {
		return err
	}
	svc, err := service.Open(ws, config.Sources{Flags: map[string]string{"ollama.host": "127.0.0.1:9"}}, service.Options{Owner: "server"})
	if err != nil {
		return err
	}
	defer svc.Close()
	keys := filepath.Join(dir, "authorized_keys")
	analysts, err := access.Load(keys)
	if err != nil {
		return err
	}
	srv, err := New(svc, Options{HostKey: filepath.Join(dir, "host_ed25519"), AuthorizedKeys: keys, MaxSessions: 100})
	if err != nil {
		return err
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	for _, a := range analysts {
		run := "bench-" + a.Name
		if _, err := svc.As(a.Name, false).Jobs().Start(ctx, run, jobs.KindResearch, "a run that emits 10 events/s", tickingRun(run)); err != nil {
			return err
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	go srv.Serve(ln)
	fmt.Printf("READY %s\n", ln.Addr())
	io.Copy(io.Discard, os.Stdin)
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return srv.Shutdown(sctx)
}

// tickingRun is a job that works one node and says, ten times a second, what it does.
func tickingRun(run string) jobs.Work {
	return func(ctx context.Context, em *jobs.Emitter) (string, error) {
		em.Agent(service.RunEvent{Time: time.Now(), Run: run, Node: "execute", Kind: service.EventNodeStarted})
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for n := 1; ; n++ {
			select {
			case <-ctx.Done():
				return "", ctx.Err()
			case now := <-tick.C:
				em.Agent(service.RunEvent{Time: now, Run: run, Node: "execute", Kind: service.EventNote,
					Summary: fmt.Sprintf("tick %d sent %d", n, time.Now().UnixMicro())})
			}
		}
	}
}

var tickPattern = regexp.MustCompile(`tick (\d+) sent (\d+)`)

// watcher is one analyst's terminal that records when each tick first appears on its screen.
type watcher struct {
	screen *screen
	mu     sync.Mutex
	seen   map[int]bool
	delays []time.Duration // from sending the event to the frame showing it
}

func (w *watcher) Write(p []byte) (int, error) {
	n, err := w.screen.Write(p)
	at := time.Now()
	if m := tickPattern.FindStringSubmatch(w.screen.String()); m != nil {
		tick, _ := strconv.Atoi(m[1])
		sent, _ := strconv.ParseInt(m[2], 10, 64)
		w.mu.Lock()
		if !w.seen[tick] {
			w.seen[tick] = true
			w.delays = append(w.delays, at.Sub(time.UnixMicro(sent)))
		}
		w.mu.Unlock()
	}
	return n, err
}

// procStat reads a process's CPU time (user + system) and resident memory from /proc.
func procStat(pid int) (cpu time.Duration, rss int64, err error) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, err
	}
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
	utime, _ := strconv.ParseInt(fields[11], 10, 64)
	stime, _ := strconv.ParseInt(fields[12], 10, 64)
	cpu = time.Duration(utime+stime) * time.Second / 100 // USER_HZ is 100 on Linux
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	for _, line := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			kb, _ := strconv.ParseInt(strings.Fields(line)[1], 10, 64)
			rss = kb * 1024
		}
	}
	return cpu, rss, nil
}

// BenchmarkServe20Watchers: 20 analysts connected over SSH at once, each watching their own
// run that emits 10 events a second. Each iteration observes one second. It reports the server
// process's CPU use, its memory per session (resident memory with the sessions minus before
// them, divided by 20), and the p99 delay from an event to the frame that shows it on the
// client's terminal.
func BenchmarkServe20Watchers(b *testing.B) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		b.Skip("needs /proc to measure the server process")
	}
	const sessions = 20
	dir := b.TempDir()
	keys := filepath.Join(dir, "authorized_keys")
	signers := make([]gossh.Signer, sessions)
	for i := range signers {
		signers[i] = newSigner(b)
		if _, err := access.Add(keys, fmt.Sprintf("analyst%02d", i+1), signers[i].PublicKey(), false); err != nil {
			b.Fatal(err)
		}
	}
	server := exec.Command(os.Args[0], "-test.run=^$")
	server.Env = append(os.Environ(), benchServerEnv+"="+dir)
	stdin, _ := server.StdinPipe()
	stdout, _ := server.StdoutPipe()
	server.Stderr = os.Stderr
	if err := server.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		stdin.Close()
		server.Wait()
	}()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "READY ") {
		b.Fatalf("the server did not start: %q %v", line, err)
	}
	addr := strings.TrimSpace(strings.TrimPrefix(line, "READY "))
	time.Sleep(500 * time.Millisecond) // let the runs and the runtime settle
	_, rssBefore, err := procStat(server.Process.Pid)
	if err != nil {
		b.Fatal(err)
	}

	watchers := make([]*watcher, sessions)
	for i := range watchers {
		cfg := &gossh.ClientConfig{User: fmt.Sprintf("analyst%02d", i+1), Auth: []gossh.AuthMethod{gossh.PublicKeys(signers[i])},
			HostKeyCallback: gossh.InsecureIgnoreHostKey(), Timeout: 10 * time.Second}
		client, err := gossh.Dial("tcp", addr, cfg)
		if err != nil {
			b.Fatal(err)
		}
		defer client.Close()
		sess, err := client.NewSession()
		if err != nil {
			b.Fatal(err)
		}
		if err := sess.RequestPty("xterm-256color", 32, 110, gossh.TerminalModes{}); err != nil {
			b.Fatal(err)
		}
		in, _ := sess.StdinPipe()
		out, _ := sess.StdoutPipe()
		if err := sess.Shell(); err != nil {
			b.Fatal(err)
		}
		w := &watcher{screen: newScreen(110, 32), seen: map[int]bool{}}
		watchers[i] = w
		go io.Copy(w, out)
		go w.screen.answer(in)
	}
	// Every analyst lands in their run and sees it tick before the measurement starts.
	deadline := time.Now().Add(30 * time.Second)
	for _, w := range watchers {
		for {
			w.mu.Lock()
			n := len(w.seen)
			w.mu.Unlock()
			if n > 0 {
				break
			}
			if time.Now().After(deadline) {
				b.Fatalf("a watcher never saw its run tick:\n%s", w.screen.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	for _, w := range watchers {
		w.mu.Lock()
		w.delays = nil
		w.mu.Unlock()
	}
	cpuStart, _, _ := procStat(server.Process.Pid)
	start := time.Now()
	b.ResetTimer()
	for range b.N {
		time.Sleep(time.Second)
	}
	b.StopTimer()
	wall := time.Since(start)
	cpuEnd, rssWith, err := procStat(server.Process.Pid)
	if err != nil {
		b.Fatal(err)
	}
	var all []time.Duration
	for i, w := range watchers {
		w.mu.Lock()
		d := slices.Clone(w.delays)
		w.mu.Unlock()
		// Ten events a second reach every screen: at least half of them as their own frame.
		if want := int(wall.Seconds() * 10 / 2); len(d) < want {
			b.Fatalf("watcher %d saw %d ticks in %s, want at least %d", i+1, len(d), wall.Round(time.Millisecond), want)
		}
		all = append(all, d...)
	}
	slices.Sort(all)
	p := func(q float64) float64 { return float64(all[int(q*float64(len(all)-1))].Microseconds()) / 1000 }
	b.ReportMetric(p(0.5), "p50-ms")
	b.ReportMetric(p(0.99), "p99-ms")
	b.ReportMetric(float64(len(all)), "frames")
	b.ReportMetric(100*(cpuEnd-cpuStart).Seconds()/wall.Seconds(), "server-cpu-%")
	b.ReportMetric(float64(rssWith-rssBefore)/sessions/(1<<20), "MB/session")
	b.ReportMetric(float64(rssWith)/(1<<20), "server-MB")
}
