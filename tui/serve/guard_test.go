package serve

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"warren/access"
	"warren/config"
	"warren/internal/testkb"
	"warren/service"
)

// logBuffer collects a server's log lines for a test; the server writes from many goroutines.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// waitForLine waits until the log holds a line with every one of parts.
func (b *logBuffer) waitForLine(t *testing.T, parts ...string) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		for _, line := range strings.Split(b.String(), "\n") {
			all := true
			for _, p := range parts {
				all = all && strings.Contains(line, p)
			}
			if all {
				return line
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the log never held a line with %q; it holds:\n%s", parts, b.String())
	return ""
}

func loggedTeam(t *testing.T, opts Options) (*team, *logBuffer) {
	t.Helper()
	var log logBuffer
	opts.Listen = "127.0.0.1:0"
	opts.Log = slog.New(slog.NewTextHandler(&log, nil))
	return startTeam(t, opts), &log
}

func TestOnlyModernAlgorithmsAreOffered(t *testing.T) {
	tm, log := loggedTeam(t, Options{})
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	rsaSigner, err := gossh.NewSignerFromKey(rsaKey)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := access.Add(tm.srv.opts.AuthorizedKeys, "rsa-user", rsaSigner.PublicKey(), false); err != nil {
		t.Fatal(err)
	}
	withAlgorithms := func(s gossh.Signer, algos ...string) gossh.Signer {
		as, err := gossh.NewSignerWithAlgorithms(s.(gossh.AlgorithmSigner), algos)
		if err != nil {
			t.Fatal(err)
		}
		return as
	}
	cases := []struct {
		name   string
		config func(*gossh.ClientConfig)
		in     bool
	}{
		{"the defaults", func(*gossh.ClientConfig) {}, true},
		{"mlkem768x25519 only", func(c *gossh.ClientConfig) { c.KeyExchanges = []string{gossh.KeyExchangeMLKEM768X25519} }, true},
		{"diffie-hellman-group14-sha1", func(c *gossh.ClientConfig) { c.KeyExchanges = []string{gossh.InsecureKeyExchangeDH14SHA1} }, false},
		{"diffie-hellman-group14-sha256", func(c *gossh.ClientConfig) { c.KeyExchanges = []string{gossh.KeyExchangeDH14SHA256} }, false},
		{"aes128-ctr with hmac-sha1", func(c *gossh.ClientConfig) {
			c.Ciphers, c.MACs = []string{gossh.CipherAES128CTR}, []string{gossh.HMACSHA1}
		}, false},
		{"aes128-ctr with hmac-sha1-96", func(c *gossh.ClientConfig) {
			c.Ciphers, c.MACs = []string{gossh.CipherAES128CTR}, []string{gossh.InsecureHMACSHA196}
		}, false},
		{"aes128-ctr with hmac-sha2-256-etm", func(c *gossh.ClientConfig) {
			c.Ciphers, c.MACs = []string{gossh.CipherAES128CTR}, []string{gossh.HMACSHA256ETM}
		}, true},
		{"an RSA key signing with rsa-sha2-512", func(c *gossh.ClientConfig) {
			c.User, c.Auth = "rsa-user", []gossh.AuthMethod{gossh.PublicKeys(withAlgorithms(rsaSigner, gossh.KeyAlgoRSASHA512))}
		}, true},
		{"an RSA key signing with ssh-rsa (SHA-1)", func(c *gossh.ClientConfig) {
			c.User, c.Auth = "rsa-user", []gossh.AuthMethod{gossh.PublicKeys(withAlgorithms(rsaSigner, gossh.KeyAlgoRSA))}
		}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tm.config("alice")
			tc.config(cfg)
			c, err := gossh.Dial("tcp", tm.addr, cfg)
			if err == nil {
				c.Close()
			}
			if got := err == nil; got != tc.in {
				t.Errorf("authenticated: %v, want %v (%v)", got, tc.in, err)
			}
		})
	}
	log.waitForLine(t, "msg=refused", "what=connection", "no common algorithm for key exchange")
	log.waitForLine(t, "msg=refused", "what=key", `algorithm \"ssh-rsa\" not accepted`)
}

// silentConn opens a TCP connection that never says a word, and tells when the server closed it.
func silentConn(t *testing.T, addr string) (closed func() bool) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ended := make(chan struct{})
	go func() {
		io.Copy(io.Discard, c) // the server's version line, then EOF when it closes
		close(ended)
	}()
	return func() bool {
		select {
		case <-ended:
			return true
		default:
			return false
		}
	}
}

func waitUntil(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %s: %s", within, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestSilentConnectionsNeitherStayNorLockAnAnalystOut(t *testing.T) {
	const grace = 3 * time.Second
	tm, log := loggedTeam(t, Options{LoginGrace: grace, MaxStartups: 10})
	var closed []func() bool
	for range 60 {
		closed = append(closed, silentConn(t, tm.addr))
	}
	// Beyond the ten login slots the silent ones are dropped at once.
	waitUntil(t, 2*time.Second, "50 of 60 silent connections dropped at once", func() bool {
		n := 0
		for _, c := range closed {
			if c() {
				n++
			}
		}
		return n >= 50
	})
	// Once they have been silent a second, an analyst takes a slot and opens the workbench.
	time.Sleep(silentFor + 100*time.Millisecond)
	alice := tm.connect(t, "alice", 80, 24)
	alice.waitFor("warren alice")
	waitUntil(t, grace+2*time.Second, "every silent connection closed after the grace", func() bool {
		for _, c := range closed {
			if !c() {
				return false
			}
		}
		return true
	})
	log.waitForLine(t, "msg=refused", "what=connection", "too many connections are logging in at once")
	log.waitForLine(t, "msg=closed", "what=connection", "no authentication within serve.login_grace")
	log.waitForLine(t, "msg=closed", "a new connection took its place")
	// The workbench outlives the grace.
	time.Sleep(grace)
	if got := tm.srv.Connections(); len(got) != 1 {
		t.Errorf("the analyst's workbench was closed with the silent ones: connections %v", got)
	}
}

func TestAConnectionWithoutAWorkbenchIsClosedAfterTheGrace(t *testing.T) {
	tm, log := loggedTeam(t, Options{LoginGrace: time.Second})
	// As ssh -N: authenticated, no session.
	client, err := gossh.Dial("tcp", tm.addr, tm.config("alice"))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	ended := make(chan error, 1)
	go func() { ended <- client.Wait() }()
	// A port forward is refused and recorded.
	if c, err := client.Dial("tcp", "127.0.0.1:22"); err == nil {
		c.Close()
		t.Fatal("port forwarding was allowed")
	}
	if _, err := client.Listen("tcp", "127.0.0.1:0"); err == nil {
		t.Fatal("a remote forward was allowed")
	}
	select {
	case <-ended:
	case <-time.After(5 * time.Second):
		t.Fatal("an authenticated connection without a workbench was not closed after the grace")
	}
	log.waitForLine(t, "msg=refused", "what=direct-tcpip", "analyst=alice", "key=SHA256:", "to=127.0.0.1:22", "no port forwarding")
	log.waitForLine(t, "msg=refused", "what=tcpip-forward", "analyst=alice", "no remote forwarding")
	log.waitForLine(t, "msg=closed", "what=connection", "authenticated but no workbench")
}

// freezer is a TCP relay in front of the server that can stop relaying, as a client whose
// network vanished without a word.
type freezer struct {
	ln     net.Listener
	mu     sync.Mutex
	frozen bool
}

func newFreezer(t *testing.T, target string) *freezer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &freezer{ln: ln}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				return
			}
			t.Cleanup(func() { c.Close(); s.Close() })
			go f.relay(s, c)
			go f.relay(c, s)
		}
	}()
	return f
}

func (f *freezer) relay(dst, src net.Conn) {
	buf := make([]byte, 32*1024)
	for {
		n, err := src.Read(buf)
		f.mu.Lock()
		frozen := f.frozen
		f.mu.Unlock()
		if frozen {
			continue // swallowed: nothing reaches the other side any more
		}
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (f *freezer) freeze() { f.mu.Lock(); f.frozen = true; f.mu.Unlock() }

func TestKeepalivesCloseAVanishedClient(t *testing.T) {
	tm, log := loggedTeam(t, Options{Keepalive: 200 * time.Millisecond})
	relay := newFreezer(t, tm.addr)
	direct := tm.addr
	tm.addr = relay.ln.Addr().String()
	alice := tm.connect(t, "alice", 80, 24)
	tm.addr = direct
	alice.waitFor("warren alice")
	time.Sleep(time.Second) // answered keepalives keep it open
	if got := tm.srv.Connections(); len(got) != 1 {
		t.Fatalf("a client that answers its keepalives was closed: %v", got)
	}
	relay.freeze()
	waitUntil(t, 5*time.Second, "the vanished client's connection closed", func() bool { return len(tm.srv.Connections()) == 0 })
	log.waitForLine(t, "msg=closed", "analyst=alice", "stopped answering keepalives")
}

func TestKeysAreReadAsSshdReadsThem(t *testing.T) {
	tm, log := loggedTeam(t, Options{})
	path := tm.srv.opts.AuthorizedKeys
	add := func(name string, opts access.KeyOptions) {
		tm.keys[name] = newSigner(t)
		if _, err := access.AddWithOptions(path, name, tm.keys[name].PublicKey(), opts); err != nil {
			t.Fatal(err)
		}
	}
	add("carol", access.KeyOptions{From: "10.9.9.9"})
	add("dave", access.KeyOptions{Expires: time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)})
	add("frank", access.KeyOptions{From: "127.0.0.0/8,!10.0.0.0/8"})
	tm.keys["erin"] = newSigner(t)
	line := `command="cat /etc/passwd" ` + strings.TrimSpace(string(gossh.MarshalAuthorizedKey(tm.keys["erin"].PublicKey()))) + " erin\n"
	appendTo(t, path, line)
	for _, tc := range []struct {
		name, why string
		in        bool
	}{
		{"carol", "from", false},
		{"dave", "expir", false},
		{"erin", "command", false},
		{"frank", "", true},
		{"alice", "", true},
	} {
		c, err := gossh.Dial("tcp", tm.addr, tm.config(tc.name))
		if err == nil {
			c.Close()
		}
		if got := err == nil; got != tc.in {
			t.Errorf("%s authenticated: %v, want %v (%v)", tc.name, got, tc.in, err)
		}
		if !tc.in {
			log.waitForLine(t, "msg=refused", "what=key", "analyst="+tc.name, "key=SHA256:", "from=127.0.0.1:", tc.why)
		}
	}
	// A file that others may write lets nobody in, and says why.
	if err := os.Chmod(path, 0o666); err != nil {
		t.Fatal(err)
	}
	if c, err := gossh.Dial("tcp", tm.addr, tm.config("alice")); err == nil {
		c.Close()
		t.Error("alice got in while the authorized-keys file was world-writable")
	}
	log.waitForLine(t, "msg=refused", "what=key", "mode 0666", "chmod 600")
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := gossh.Dial("tcp", tm.addr, tm.config("alice"))
	if err != nil {
		t.Fatalf("alice was refused once the file was safe again: %v", err)
	}
	c.Close()
}

func appendTo(t *testing.T, path, line string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(line); err != nil {
		t.Fatal(err)
	}
}

func TestServeWontStartOnFilesOthersMayWrite(t *testing.T) {
	ws, _, _ := testkb.Sample(t)
	svc, err := service.Open(ws.Dir, config.Sources{}, service.Options{Owner: "server"})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	for _, tc := range []struct {
		name string
		mode func(dir, keys string) error
		want string
	}{
		{"authorized_keys 0666", func(dir, keys string) error { return os.Chmod(keys, 0o666) }, "authorized_keys may be written by group or others (mode 0666)"},
		{"authorized_keys 0620", func(dir, keys string) error { return os.Chmod(keys, 0o620) }, "(mode 0620)"},
		{"the serve folder 0777", func(dir, keys string) error { return os.Chmod(dir, 0o777) }, "chmod 700 " + "DIR"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "serve")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			keys := filepath.Join(dir, "authorized_keys")
			if _, err := access.Add(keys, "alice", newSigner(t).PublicKey(), false); err != nil {
				t.Fatal(err)
			}
			opts := Options{Listen: "127.0.0.1:0", HostKey: filepath.Join(dir, "host_ed25519"), AuthorizedKeys: keys}
			if _, err := New(svc, opts); err != nil {
				t.Fatalf("a safe serve folder was refused: %v", err)
			}
			if err := tc.mode(dir, keys); err != nil {
				t.Fatal(err)
			}
			_, err := New(svc, opts)
			want := strings.ReplaceAll(tc.want, "DIR", dir)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("New: %v, want an error with %q", err, want)
			}
		})
	}
}
