//go:build e2e

package e2e

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// ollamaServer is a real `ollama serve` on a loopback port, with its models in a folder of the
// test's, and its log in a file the suite counts requests in.
type ollamaServer struct {
	bin, addr, models, home, logPath string
	cmd                              *exec.Cmd
	exited                           chan struct{}
}

func freeLoopbackAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func startOllama(t *testing.T, bin string) *ollamaServer {
	t.Helper()
	dir := t.TempDir()
	s := &ollamaServer{bin: bin, addr: freeLoopbackAddr(t), models: filepath.Join(dir, "models"),
		home: filepath.Join(dir, "home"), logPath: filepath.Join(dir, "ollama.log")}
	for _, d := range []string{s.models, s.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(s.kill) // whatever happens, the server stops with the suite
	s.start(t)
	return s
}

func (s *ollamaServer) env() []string {
	return append(os.Environ(), "OLLAMA_HOST="+s.addr, "OLLAMA_MODELS="+s.models, "HOME="+s.home,
		"OLLAMA_NOPRUNE=1", "OLLAMA_KEEP_ALIVE=30m")
}

// start runs the server (again, after kill) and waits until it answers.
func (s *ollamaServer) start(t *testing.T) {
	t.Helper()
	log, err := os.OpenFile(s.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	s.cmd = exec.Command(s.bin, "serve")
	s.cmd.Env = s.env()
	s.cmd.Stdout, s.cmd.Stderr = log, log
	// Its own process group, so that kill reaches the model runners it starts.
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := s.cmd.Start(); err != nil {
		log.Close()
		t.Fatalf("couldn't start %s serve: %v", s.bin, err)
	}
	if dir := os.Getenv("WARREN_E2E_PIDS"); dir != "" {
		os.WriteFile(filepath.Join(dir, fmt.Sprint(s.cmd.Process.Pid)), nil, 0o644)
	}
	s.exited = make(chan struct{})
	go func(cmd *exec.Cmd, done chan struct{}) {
		cmd.Wait()
		log.Close()
		close(done)
	}(s.cmd, s.exited)
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get("http://" + s.addr + "/api/version")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		select {
		case <-s.exited:
			t.Fatalf("ollama serve exited at start; its log:\n%s", tail(s.logPath, 40))
		case <-time.After(100 * time.Millisecond):
		}
	}
	t.Fatalf("ollama serve did not answer on %s within a minute; its log:\n%s", s.addr, tail(s.logPath, 40))
}

// kill stops the server and its runners at once, as a crash would.
func (s *ollamaServer) kill() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	select {
	case <-s.exited:
	case <-time.After(10 * time.Second):
	}
	if dir := os.Getenv("WARREN_E2E_PIDS"); dir != "" {
		os.Remove(filepath.Join(dir, fmt.Sprint(s.cmd.Process.Pid)))
	}
	s.cmd = nil
}

// createModel registers a GGUF file under name with `ollama create`, with more Modelfile lines
// (PARAMETER …) if given.
func (s *ollamaServer) createModel(t *testing.T, name, gguf string, lines ...string) {
	t.Helper()
	modelfile := filepath.Join(t.TempDir(), "Modelfile")
	text := strings.Join(append([]string{"FROM " + gguf}, lines...), "\n") + "\n"
	if err := os.WriteFile(modelfile, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.bin, "create", name, "-f", modelfile)
	cmd.Env = s.env()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ollama create %s: %v\n%s", name, err, out)
	}
}

// requests counts the requests to path in the server's log (gin writes one line per request,
// whatever its status).
func (s *ollamaServer) requests(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(s.logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	quoted := `"` + path + `"`
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		// A gin line may follow a runner's unfinished line, which ollama copies into the same log.
		if line := sc.Text(); strings.Contains(line, "[GIN]") && strings.Contains(line, "POST") && strings.HasSuffix(strings.TrimSpace(line), quoted) {
			n++
		}
	}
	return n
}

func tail(path string, lines int) string {
	data, _ := os.ReadFile(path)
	all := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(all) > lines {
		all = all[len(all)-lines:]
	}
	return strings.Join(all, "\n")
}
