package serve

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"charm.land/ssh"
	gossh "golang.org/x/crypto/ssh"
)

// The algorithms warren serve offers: no SHA-1 anywhere, no finite-field Diffie-Hellman, no CBC.
var (
	keyExchanges = []string{gossh.KeyExchangeMLKEM768X25519, gossh.KeyExchangeCurve25519,
		gossh.KeyExchangeECDHP256, gossh.KeyExchangeECDHP384, gossh.KeyExchangeECDHP521}
	ciphers = []string{gossh.CipherChaCha20Poly1305, gossh.CipherAES256GCM, gossh.CipherAES128GCM,
		gossh.CipherAES256CTR, gossh.CipherAES192CTR, gossh.CipherAES128CTR}
	macs = []string{gossh.HMACSHA256ETM, gossh.HMACSHA512ETM, gossh.HMACSHA256, gossh.HMACSHA512}
	// userKeyAlgorithms are the signatures an analyst's key may log in with: RSA keys sign
	// with SHA-2 (rsa-sha2-256/512), never with ssh-rsa's SHA-1.
	userKeyAlgorithms = []string{gossh.KeyAlgoED25519, gossh.KeyAlgoSKED25519,
		gossh.KeyAlgoECDSA256, gossh.KeyAlgoECDSA384, gossh.KeyAlgoECDSA521, gossh.KeyAlgoSKECDSA256,
		gossh.KeyAlgoRSASHA512, gossh.KeyAlgoRSASHA256}
)

// silentFor is how long a connection that has not authenticated must have sent nothing
// before a new connection may take its place when every startup slot is taken: a real client
// sends its version at once and answers within round trips.
const silentFor = time.Second

// gatekeeper watches every connection from its first byte: the login grace, the limit on
// unauthenticated connections and the keepalives.
type gatekeeper struct {
	grace       time.Duration
	maxStartups int
	keepalive   time.Duration
	log         *slog.Logger

	mu      sync.Mutex
	pending map[*watched]struct{} // connected, not yet authenticated
}

// watched is one TCP connection as the gatekeeper sees it.
type watched struct {
	net.Conn
	g        *gatekeeper
	remote   string
	opened   time.Time
	lastRead atomic.Int64 // unix nanoseconds of the last byte received (0: none)
	// recorded: a refusal of this connection's login is in the log already; user is the name
	// it logs in as.
	recorded atomic.Bool
	user     atomic.Pointer[string]

	mu          sync.Mutex
	authed      bool
	workbenches int         // workbenches open on it now
	timer       *time.Timer // closes it when the grace ends without a workbench
	pinging     bool
	closeOnce   sync.Once
}

type watchedKey struct{}

func watchedOf(ctx context.Context) *watched {
	w, _ := ctx.Value(watchedKey{}).(*watched)
	return w
}

// admit takes a new TCP connection, or drops it (nil) when too many are unauthenticated and
// none of them is silent.
func (g *gatekeeper) admit(ctx ssh.Context, c net.Conn) net.Conn {
	w := &watched{Conn: c, g: g, remote: c.RemoteAddr().String(), opened: time.Now()}
	g.mu.Lock()
	var evicted *watched
	if len(g.pending) >= g.maxStartups {
		evicted = g.mostSilentLocked()
		if evicted == nil {
			n := len(g.pending)
			g.mu.Unlock()
			g.log.Warn("refused", "what", "connection", "from", w.remote,
				"why", "too many connections are logging in at once", "unauthenticated", n, "limit", "serve.max_startups")
			return nil
		}
		delete(g.pending, evicted)
	}
	g.pending[w] = struct{}{}
	g.mu.Unlock()
	if evicted != nil {
		g.log.Warn("closed", "what", "connection", "from", evicted.remote,
			"why", "it sent nothing while every login slot was taken (serve.max_startups); a new connection took its place",
			"after", time.Since(evicted.opened).Round(time.Millisecond).String())
		evicted.recorded.Store(true)
		evicted.Close()
	}
	ctx.SetValue(watchedKey{}, w)
	w.mu.Lock()
	w.timer = time.AfterFunc(g.grace, w.graceEnded)
	w.mu.Unlock()
	return w
}

// mostSilentLocked is the unauthenticated connection that has sent nothing for longest, when
// that is at least silentFor.
func (g *gatekeeper) mostSilentLocked() *watched {
	var pick *watched
	var since time.Time
	for w := range g.pending {
		last := w.opened
		if n := w.lastRead.Load(); n != 0 {
			last = time.Unix(0, n)
		}
		if pick == nil || last.Before(since) {
			pick, since = w, last
		}
	}
	if pick == nil || time.Since(since) < silentFor {
		return nil
	}
	return pick
}

func (w *watched) Read(p []byte) (int, error) {
	n, err := w.Conn.Read(p)
	if n > 0 {
		w.lastRead.Store(time.Now().UnixNano())
	}
	return n, err
}

func (w *watched) Close() error {
	var err error
	w.closeOnce.Do(func() {
		w.mu.Lock()
		authed := w.authed
		w.mu.Unlock()
		if user := w.user.Load(); user != nil && !authed && !w.recorded.Load() {
			// The client gave up without offering anything warren takes: OpenSSH does not
			// even try a key whose algorithm the server does not list, such as ssh-rsa.
			w.g.log.Info("refused", "what", "connection", "user", *user, "from", w.remote,
				"why", "it offered no key warren serve accepts (keys only: ed25519, ECDSA, rsa-sha2-256/512)")
		}
		w.g.mu.Lock()
		delete(w.g.pending, w)
		w.g.mu.Unlock()
		w.mu.Lock()
		if w.timer != nil {
			w.timer.Stop()
		}
		w.mu.Unlock()
		err = w.Conn.Close()
	})
	return err
}

// graceEnded closes a connection that has no workbench open: it never authenticated, or it
// authenticated and never asked for one (ssh -N, a refused command), or its last workbench
// ended a grace ago.
func (w *watched) graceEnded() {
	w.mu.Lock()
	open, authed := w.workbenches, w.authed
	w.mu.Unlock()
	if open > 0 {
		return
	}
	why := "no authentication within serve.login_grace"
	if authed {
		why = "authenticated but no workbench within serve.login_grace"
	}
	user := ""
	if u := w.user.Load(); u != nil {
		user = *u // the name it logs in as, when it got that far
	}
	w.g.log.Info("closed", "what", "connection", "user", user, "from", w.remote, "why", why, "grace", w.g.grace.String())
	w.recorded.Store(true)
	w.Close()
}

// authenticated frees the connection's startup slot.
func (w *watched) authenticated() {
	w.g.mu.Lock()
	delete(w.g.pending, w)
	w.g.mu.Unlock()
	w.mu.Lock()
	w.authed = true
	w.mu.Unlock()
}

// workbenchOpened stops the grace while a workbench is open and starts the keepalives once;
// the returned func, when the workbench ends, starts the grace again.
func (w *watched) workbenchOpened(ctx ssh.Context) (ended func()) {
	w.mu.Lock()
	w.workbenches++
	w.timer.Stop()
	startPing := !w.pinging && w.g.keepalive > 0
	w.pinging = true
	w.mu.Unlock()
	if startPing {
		if conn, ok := ctx.Value(ssh.ContextKeyConn).(gossh.Conn); ok {
			go w.ping(ctx, conn)
		}
	}
	return func() {
		w.mu.Lock()
		w.workbenches--
		if w.workbenches == 0 {
			w.timer.Reset(w.g.grace)
		}
		w.mu.Unlock()
	}
}

// ping asks the client every keepalive interval whether it is there; three intervals without
// an answer close the connection, so a vanished client is noticed within four intervals.
func (w *watched) ping(ctx context.Context, conn gossh.Conn) {
	tick := time.NewTicker(w.g.keepalive)
	defer tick.Stop()
	answered := make(chan struct{}, 1)
	inFlight, missed := false, 0
	for {
		select {
		case <-ctx.Done():
			return
		case <-answered:
			inFlight, missed = false, 0
			continue
		case <-tick.C:
		}
		if inFlight {
			missed++
			if missed >= 3 {
				w.g.log.Info("closed", "what", "connection", "analyst", analystOf(ctx).Name, "from", w.remote,
					"why", "the client stopped answering keepalives", "keepalive", w.g.keepalive.String())
				w.Close()
				return
			}
			continue
		}
		inFlight = true
		go func() {
			// Any reply, success or failure, shows the client is there.
			if _, _, err := conn.SendRequest("keepalive@openssh.com", true, nil); err == nil {
				answered <- struct{}{}
			}
		}()
	}
}

// serverConfig is each connection's SSH configuration: the modern algorithms only, and a log
// of authentication that frees the startup slot and records refused methods.
func (g *gatekeeper) serverConfig(ctx ssh.Context) *gossh.ServerConfig {
	cfg := &gossh.ServerConfig{
		Config:                  gossh.Config{KeyExchanges: keyExchanges, Ciphers: ciphers, MACs: macs},
		PublicKeyAuthAlgorithms: userKeyAlgorithms,
	}
	w := watchedOf(ctx)
	cfg.AuthLogCallback = func(meta gossh.ConnMetadata, method string, err error) {
		if w != nil {
			user := meta.User()
			w.user.Store(&user)
			if err != nil && method != "none" {
				w.recorded.Store(true)
			}
		}
		switch {
		case err == nil:
			if w != nil {
				w.authenticated()
			}
		case method == "password" || method == "keyboard-interactive":
			g.log.Info("refused", "what", method, "user", meta.User(), "from", meta.RemoteAddr().String(),
				"why", "warren serve takes keys only")
		case method == "publickey" && strings.Contains(err.Error(), "not accepted"):
			// The key itself was never looked at: its signature algorithm is not offered.
			g.log.Info("refused", "what", "key", "user", meta.User(), "from", meta.RemoteAddr().String(),
				"why", strings.TrimPrefix(err.Error(), "ssh: ")+" (warren serve takes ed25519, ECDSA and rsa-sha2-256/512)")
		}
	}
	return cfg
}

// connectionFailed records a connection that ended in its handshake: no common algorithm, or
// no key that authenticated.
func (g *gatekeeper) connectionFailed(c net.Conn, err error) {
	var auth *gossh.ServerAuthError
	switch {
	case errors.Is(err, net.ErrClosed), errors.As(err, &auth):
		return // closed by the gatekeeper, or refused at authentication: recorded then
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return // gone before a word
	}
	g.log.Info("refused", "what", "connection", "from", c.RemoteAddr().String(), "why", strings.TrimPrefix(err.Error(), "ssh: "))
}

// refuseChannel refuses every channel but the session: port forwards (ssh -L, ssh -D) and
// anything else a client may open.
func (g *gatekeeper) refuseChannel(_ *ssh.Server, _ *gossh.ServerConn, ch gossh.NewChannel, ctx ssh.Context) {
	what := ch.ChannelType()
	attrs := []any{"what", what, "analyst", analystOf(ctx).Name, "key", analystOf(ctx).Fingerprint, "from", remoteOf(ctx)}
	if what == "direct-tcpip" {
		var target struct {
			Host       string
			Port       uint32
			OriginHost string
			OriginPort uint32
		}
		if gossh.Unmarshal(ch.ExtraData(), &target) == nil {
			attrs = append(attrs, "to", net.JoinHostPort(target.Host, strconv.FormatUint(uint64(target.Port), 10)))
		}
		what = "port forwarding"
	}
	g.log.Info("refused", append(attrs, "why", "warren serve offers the workbench only, no "+what)...)
	_ = ch.Reject(gossh.Prohibited, "warren serve offers the workbench only")
}

// refuseRequest refuses the connection-wide requests: remote forwards (ssh -R) are recorded;
// keepalives and the client's own housekeeping are answered no without a word.
func (g *gatekeeper) refuseRequest(ctx ssh.Context, _ *ssh.Server, req *gossh.Request) (bool, []byte) {
	switch req.Type {
	case "keepalive@openssh.com", "no-more-sessions@openssh.com", "hostkeys-prove-00@openssh.com":
		return false, nil
	}
	attrs := []any{"what", req.Type, "analyst", analystOf(ctx).Name, "key", analystOf(ctx).Fingerprint, "from", remoteOf(ctx)}
	if req.Type == "tcpip-forward" {
		var bind struct {
			Addr string
			Port uint32
		}
		if gossh.Unmarshal(req.Payload, &bind) == nil {
			attrs = append(attrs, "to", net.JoinHostPort(bind.Addr, strconv.FormatUint(uint64(bind.Port), 10)))
		}
	}
	g.log.Info("refused", append(attrs, "why", "warren serve offers the workbench only, no remote forwarding")...)
	return false, nil
}

func remoteOf(ctx ssh.Context) string {
	if a := ctx.RemoteAddr(); a != nil {
		return a.String()
	}
	return ""
}
