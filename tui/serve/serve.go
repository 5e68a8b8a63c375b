// Package serve serves the workbench over SSH to a team of analysts on one box: each connection
// gets its own workbench on one shared application service, so jobs outlive connections.
// Only public keys named in an authorized-keys file get in (package access); there is no shell,
// exec, subsystem or port forwarding.
package serve

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/ssh"
	"charm.land/wish/v2"
	bm "charm.land/wish/v2/bubbletea"
	gossh "golang.org/x/crypto/ssh"

	"warren/access"
	"warren/internal/atomicfile"
	"warren/service"
	"warren/service/jobs"
	"warren/tui"
)

// Options configure a server.
type Options struct {
	Listen         string // host:port
	HostKey        string // ed25519 private key (OpenSSH PEM); created on first start
	AuthorizedKeys string // the analysts' keys (package access)
	MaxSessions    int
	IdleTimeout    time.Duration
	MaxJobs        int // long jobs one analyst may have running at once (0: no limit)
	// LoginGrace is how long a connection has to authenticate and then to open the workbench
	// (default 30s); MaxStartups how many may be unauthenticated at once (default 10);
	// Keepalive how often a quiet client is asked if it is there (0: never).
	LoginGrace  time.Duration
	MaxStartups int
	Keepalive   time.Duration
	// Log receives the record of connections (who, from where, when); it never reaches a
	// client's screen.
	Log *slog.Logger
	// Inbox shapes the watcher of the ingest folders (zero: serve.inbox_poll and
	// serve.inbox_settle; serve.inbox_watch turns it off).
	Inbox service.InboxOptions
}

// Server is warren serve.
type Server struct {
	svc  *service.Service
	opts Options
	ssh  *ssh.Server
	log  *slog.Logger

	mu       sync.Mutex
	sessions map[*conn]bool
	lastSeen map[string]time.Time  // when each analyst's last connection ended
	drafts   map[string]tui.Drafts // what each analyst typed and had not sent when it ended
	stopping bool

	stopInbox func()        // ends the inbox's watcher
	inboxDone chan struct{} // closed once it has ended
}

// conn is one analyst's connection.
type conn struct {
	analyst   access.Analyst
	remote    string
	since     time.Time
	program   *tea.Program
	model     *tui.Model
	lastInput atomic.Int64 // unix nanoseconds of the last key, click or paste
	farewell  atomic.Pointer[string]
}

type ctxKey struct{}

// New prepares a server on an open service: the host key is created when missing, and the
// service's jobs are limited per analyst.
func New(svc *service.Service, opts Options) (*Server, error) {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if err := EnsureHostKey(opts.HostKey); err != nil {
		return nil, err
	}
	if _, err := access.Load(opts.AuthorizedKeys); err != nil {
		return nil, err
	}
	s := &Server{svc: svc, opts: opts, log: opts.Log, sessions: map[*conn]bool{}, lastSeen: map[string]time.Time{}, drafts: map[string]tui.Drafts{}}
	if err := access.CheckModes(s.guardedPaths()...); err != nil {
		return nil, fmt.Errorf("warren serve won't start: %w", err)
	}
	if opts.LoginGrace <= 0 {
		opts.LoginGrace = 30 * time.Second
	}
	if opts.MaxStartups <= 0 {
		opts.MaxStartups = 10
	}
	s.opts = opts
	g := &gatekeeper{grace: opts.LoginGrace, maxStartups: opts.MaxStartups, keepalive: opts.Keepalive, log: opts.Log, pending: map[*watched]struct{}{}}
	svc.Jobs().LimitPerAnalyst(opts.MaxJobs)
	srv, err := wish.NewServer(
		wish.WithAddress(opts.Listen),
		ssh.HostKeyFile(opts.HostKey),
		wish.WithPublicKeyAuth(s.authorize),
		wish.WithMiddleware(bm.MiddlewareWithProgramHandler(s.program), s.gate),
	)
	if err != nil {
		return nil, fmt.Errorf("couldn't set up the SSH server: %w", err)
	}
	// The workbench is the only thing served: a shell request runs it; exec, subsystems,
	// forwarding and every other channel or request are refused and recorded.
	srv.SessionRequestCallback = func(sess ssh.Session, kind string) bool {
		if kind != "shell" {
			a := analystOf(sess.Context())
			s.log.Info("refused", "what", kind, "analyst", a.Name, "key", a.Fingerprint, "from", sess.RemoteAddr().String(),
				"command", sess.RawCommand(), "why", "warren serve offers the workbench only, no "+kind)
			s.svc.Audit().RecordRefusal(sess.Context(), a.Name, sess.User(), sess.RemoteAddr().String(), kind,
				"warren serve offers the workbench only, no "+kind)
			return false
		}
		return true
	}
	srv.ConnCallback = g.admit
	srv.ServerConfigCallback = g.serverConfig
	srv.ConnectionFailedCallback = g.connectionFailed
	srv.ChannelHandlers = map[string]ssh.ChannelHandler{"session": ssh.DefaultSessionHandler, "default": g.refuseChannel}
	srv.RequestHandlers = map[string]ssh.RequestHandler{"default": g.refuseRequest}
	s.ssh = srv
	return s, nil
}

// authorize lets in a key that the authorized-keys file names, when that line's options allow
// it from this address now and nobody but the server's user could have changed the file.
func (s *Server) authorize(ctx ssh.Context, key ssh.PublicKey) bool {
	from := ctx.RemoteAddr().String()
	if err := access.CheckModes(s.guardedPaths()...); err != nil {
		s.log.Error("refused", "what", "key", "user", ctx.User(), "key", gossh.FingerprintSHA256(key), "from", from,
			"why", "every key is refused until this is fixed: "+err.Error())
		return false
	}
	a, err := access.Authorize(s.opts.AuthorizedKeys, key, ctx.RemoteAddr(), time.Now())
	var refusal *access.Refusal
	switch {
	case errors.As(err, &refusal):
		s.log.Info("refused", "what", "key", "analyst", refusal.Analyst, "user", ctx.User(), "key", refusal.Fingerprint,
			"from", from, "why", refusal.Reason)
		// A key nobody's (an ssh client offers every key it has, a scanner any) stays in the log
		// only: the trail records refusals of an analyst's own key (expired, wrong address).
		if refusal.Analyst != "" {
			s.svc.Audit().RecordRefusal(ctx, refusal.Analyst, ctx.User(), from, "key", refusal.Reason)
		}
		return false
	case err != nil:
		s.log.Error("refused", "what", "key", "user", ctx.User(), "key", gossh.FingerprintSHA256(key), "from", from,
			"why", "couldn't read the analysts' keys; every key is refused until it is fixed: "+err.Error())
		return false
	}
	ctx.SetValue(ctxKey{}, a)
	return true
}

// guardedPaths are the files and folders that decide who gets in: nobody but the server's
// user (or root) may be able to change them, as sshd's StrictModes requires.
func (s *Server) guardedPaths() []string {
	paths := []string{s.opts.AuthorizedKeys, s.opts.HostKey}
	for _, dir := range []string{filepath.Dir(s.opts.AuthorizedKeys), filepath.Dir(s.opts.HostKey)} {
		if !slices.Contains(paths, dir) {
			paths = append(paths, dir)
		}
	}
	return paths
}

func analystOf(ctx context.Context) access.Analyst {
	a, _ := ctx.Value(ctxKey{}).(access.Analyst)
	return a
}

// gate admits a connection (a terminal, room under the limit), records it, and says goodbye.
func (s *Server) gate(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		a := analystOf(sess.Context())
		from := sess.RemoteAddr().String()
		defer jobs.Recover(s.log, "a connection's handler panicked", "analyst", a.Name, "from", from)
		if _, _, ok := sess.Pty(); !ok {
			s.log.Info("refused", "what", "session without a terminal", "analyst", a.Name, "key", a.Fingerprint, "from", from,
				"why", "the workbench needs a terminal (ssh -t)")
			s.svc.Audit().RecordRefusal(sess.Context(), a.Name, sess.User(), from, "session without a terminal", "the workbench needs a terminal (ssh -t)")
			wish.Fatalln(sess, "warren serve shows the workbench and needs a terminal: connect with ssh -t")
			return
		}
		if w := watchedOf(sess.Context()); w != nil {
			defer w.workbenchOpened(sess.Context())()
		}
		c := &conn{analyst: a, remote: from, since: time.Now()}
		c.lastInput.Store(time.Now().UnixNano())
		if err := s.admit(c); err != nil {
			s.log.Info("refused", "what", "connection", "analyst", a.Name, "key", a.Fingerprint, "from", from, "why", err.Error())
			s.svc.Audit().RecordRefusal(sess.Context(), a.Name, sess.User(), from, "connection", err.Error())
			wish.Fatalln(sess, "warren serve: "+err.Error())
			return
		}
		// Deferred after the goodbye below: a shutdown closes the connections once none is
		// left, and a panic must not keep the slot.
		defer s.leave(c)
		s.log.Info("connected", "analyst", a.Name, "admin", a.Admin, "from", from, "key", a.Fingerprint)
		s.svc.Audit().RecordLogin(sess.Context(), a.Name, from, a.Fingerprint)
		ctx := context.WithValue(sess.Context(), connKey{}, c)
		stopIdle := s.watchIdle(ctx, c)
		s.runWorkbench(next, &sessionWithContext{Session: sess, ctx: ctx}, c)
		stopIdle()
		s.mu.Lock()
		m := c.model
		s.mu.Unlock()
		if m != nil {
			s.mu.Lock()
			s.drafts[a.Name] = m.Drafts() // given back at the next connection
			s.mu.Unlock()
			m.Close() // its subscriptions to the service end with the connection
		}
		if f := c.farewell.Load(); f != nil {
			wish.Println(sess, wrapWords(*f, termWidth(sess))) // the terminal would break words
		}
		s.log.Info("disconnected", "analyst", a.Name, "from", from, "after", time.Since(c.since).Round(time.Second).String())
	}
}

// runWorkbench runs the analyst's workbench; a panic in it ends this connection only, with
// the panic and its stack in the log and a word to the analyst.
func (s *Server) runWorkbench(next ssh.Handler, sess ssh.Session, c *conn) {
	err := jobs.Guard(s.log, "a workbench panicked; its connection ends and the server goes on",
		func() { next(sess) }, "analyst", c.analyst.Name, "from", c.remote)
	if err != nil {
		bye := "warren serve: your workbench stopped on an internal error, which was logged; your jobs go on — connect again to come back to them."
		c.farewell.Store(&bye)
	}
}

type connKey struct{}

// sessionWithContext hands the connection record to the program handler.
type sessionWithContext struct {
	ssh.Session
	ctx context.Context
}

func (s *sessionWithContext) Context() ssh.Context {
	return &carrier{Context: s.Session.Context(), extra: s.ctx}
}

// carrier is the session's ssh.Context with one more value.
type carrier struct {
	ssh.Context
	extra context.Context
}

func (c *carrier) Value(key any) any {
	if _, ok := key.(connKey); ok {
		return c.extra.Value(key)
	}
	return c.Context.Value(key)
}

func (s *Server) admit(c *conn) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopping {
		return errors.New("the server is stopping; connect again when it is back")
	}
	if s.opts.MaxSessions > 0 && len(s.sessions) >= s.opts.MaxSessions {
		return fmt.Errorf("%d of %d connections are open, the most allowed (serve.max_sessions); try again later", len(s.sessions), s.opts.MaxSessions)
	}
	s.sessions[c] = true
	return nil
}

func (s *Server) leave(c *conn) {
	s.mu.Lock()
	delete(s.sessions, c)
	s.lastSeen[c.analyst.Name] = time.Now()
	s.mu.Unlock()
}

// program builds the analyst's own workbench over a view of the service that acts for them.
func (s *Server) program(sess ssh.Session) *tea.Program {
	c, _ := sess.Context().Value(connKey{}).(*conn)
	if c == nil {
		return nil
	}
	s.mu.Lock()
	since := s.lastSeen[c.analyst.Name]
	drafts, kept := s.drafts[c.analyst.Name]
	if !kept {
		// A dropped connection is often noticed only later: the text typed there is taken
		// from its workbench, still open, as of its last key.
		var latest *conn
		for o := range s.sessions {
			if o != c && o.analyst.Name == c.analyst.Name && o.model != nil && (latest == nil || o.since.After(latest.since)) {
				latest = o
			}
		}
		if latest != nil {
			drafts = latest.model.PublishedDrafts()
		}
	}
	delete(s.drafts, c.analyst.Name)
	s.mu.Unlock()
	m := tui.New(tui.DesksOf(s.svc.As(c.analyst.Name, c.analyst.Admin).Served()))
	m.Served(since)
	m.RestoreDrafts(drafts)
	// The server owns the process's signals: a workbench must not take SIGTERM for itself.
	opts := append(bm.MakeOptions(sess), tea.WithoutSignalHandler(), tea.WithFilter(func(_ tea.Model, msg tea.Msg) tea.Msg {
		switch msg.(type) {
		case tea.KeyPressMsg, tea.MouseClickMsg, tea.MouseWheelMsg, tea.PasteMsg:
			c.lastInput.Store(time.Now().UnixNano())
		case tea.SuspendMsg:
			return tea.ResumeMsg{} // there is no shell to suspend to
		}
		return msg
	}))
	p := tea.NewProgram(m, opts...)
	s.mu.Lock()
	c.program, c.model = p, m
	s.mu.Unlock()
	return p
}

// watchIdle closes the workbench of a connection without input for the idle timeout; the
// analyst's jobs go on.
func (s *Server) watchIdle(ctx context.Context, c *conn) (stop func()) {
	if s.opts.IdleTimeout <= 0 {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		tick := time.NewTicker(min(s.opts.IdleTimeout/4, 30*time.Second))
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				if time.Since(time.Unix(0, c.lastInput.Load())) < s.opts.IdleTimeout {
					continue
				}
				bye := fmt.Sprintf("warren serve closed this connection after %s without input; your jobs go on — connect again to come back to them.", s.opts.IdleTimeout)
				c.farewell.Store(&bye)
				s.log.Info("closed an idle connection", "analyst", c.analyst.Name, "from", c.remote)
				s.quit(c)
				return
			}
		}
	}()
	return cancel
}

func (s *Server) quit(c *conn) {
	s.mu.Lock()
	p := c.program
	s.mu.Unlock()
	if p != nil {
		p.Quit()
	}
}

// Serve answers connections on ln until Shutdown; interrupted jobs are resumed first.
func (s *Server) Serve(ln net.Listener) error {
	resumed, err := s.svc.Jobs().ResumeServed(context.Background(), s.isAdmin)
	if err != nil {
		return err
	}
	for _, j := range resumed {
		s.log.Info("resumed an interrupted job", "job", j.ID, "kind", j.Kind, "owner", j.Owner)
	}
	s.watchInbox()
	s.log.Info("serving", "listen", ln.Addr().String(), "workspace", s.svc.WorkspaceDir())
	err = s.ssh.Serve(ln)
	if errors.Is(err, ssh.ErrServerClosed) {
		return nil
	}
	return err
}

// isAdmin reports whether the authorized-keys file names analyst an admin now (on a key
// that is not refused); a file that can't be read names no one.
func (s *Server) isAdmin(analyst string) bool {
	list, err := access.Load(s.opts.AuthorizedKeys)
	if err != nil {
		return false
	}
	for _, a := range list {
		if a.Name == analyst && a.Admin && a.RefusedAt(time.Now()) == "" {
			return true
		}
	}
	return false
}

// watchInbox starts the watcher of the ingest folders (service.WatchInbox) unless the server
// is stopping; Shutdown ends it.
func (s *Server) watchInbox() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopping || s.stopInbox != nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	s.stopInbox, s.inboxDone = cancel, done
	go func() {
		defer close(done)
		// The watcher recovers its own rounds; this keeps a bug in its start from ending the server.
		defer jobs.Recover(s.log, "the inbox watcher panicked")
		if err := s.svc.WatchInbox(ctx, s.opts.Inbox); err != nil {
			s.log.Warn("the inbox is not watched", "error", err)
		}
	}()
}

// Connections lists who is connected now, for the log and tests.
func (s *Server) Connections() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for c := range s.sessions {
		out = append(out, c.analyst.Name)
	}
	return out
}

// Shutdown stops the server: every connected analyst is told, every job is checkpointed and
// recorded as interrupted (the next warren serve resumes it), and the connections close.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.stopping = true
	conns := make([]*conn, 0, len(s.sessions))
	for c := range s.sessions {
		conns = append(conns, c)
	}
	stopInbox, inboxDone := s.stopInbox, s.inboxDone
	s.mu.Unlock()
	s.log.Info("stopping", "connections", len(conns))
	if stopInbox != nil {
		// Before the jobs stop: the watcher's ingest ends as cancelled, not as a failure it reports.
		stopInbox()
		select {
		case <-inboxDone:
		case <-ctx.Done():
		}
	}
	for _, c := range conns {
		s.mu.Lock()
		p := c.program
		s.mu.Unlock()
		if p != nil {
			p.Send(tui.NoticeMsg{Text: "warren serve is stopping: jobs are checkpointed and resume when it is back", Err: true}) // fits 80 columns
		}
	}
	s.svc.Jobs().Shutdown()
	bye := "warren serve stopped. Your jobs were checkpointed and resume when it starts again; nothing you approved is lost."
	for _, c := range conns {
		c.farewell.Store(&bye)
		s.quit(c)
	}
	// Each workbench ends and says goodbye; then the connections close, whether or not their
	// clients hang up.
	for len(s.Connections()) > 0 && ctx.Err() == nil {
		time.Sleep(20 * time.Millisecond)
	}
	err := s.ssh.Close()
	if errors.Is(err, ssh.ErrServerClosed) {
		return nil
	}
	return err
}

// EnsureHostKey creates an ed25519 host key at path (mode 0600) unless one is there; an
// existing key that others may read is refused, as OpenSSH refuses such keys.
func EnsureHostKey(path string) error {
	fi, err := os.Stat(path)
	switch {
	case err == nil:
		if fi.Mode().Perm()&0o077 != 0 {
			return fmt.Errorf("host key %s may be read by others (mode %04o): chmod 600 %s", path, fi.Mode().Perm(), path)
		}
		return nil
	case !errors.Is(err, os.ErrNotExist):
		return err
	}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return err
	}
	block, err := gossh.MarshalPrivateKey(priv, "warren serve host key")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, pem.EncodeToMemory(block), 0o600)
}

// Run serves until ctx ends (Ctrl-C, SIGTERM), then shuts down as Shutdown does. It says on out
// where it listens, for whom, and how it stopped.
func Run(ctx context.Context, svc *service.Service, opts Options, out io.Writer) error {
	srv, err := New(svc, opts)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", opts.Listen)
	if err != nil {
		return fmt.Errorf("couldn't listen on %s: %w (another warren serve? choose another address with --listen)", opts.Listen, err)
	}
	analysts, _ := access.Load(opts.AuthorizedKeys)
	host, port, _ := net.SplitHostPort(ln.Addr().String())
	fmt.Fprintf(out, "warren serve: listening on %s for %d analyst(s) in %s\n", ln.Addr(), len(analysts), opts.AuthorizedKeys)
	if len(analysts) == 0 {
		fmt.Fprintln(out, "No analyst can connect yet: add one with `warren users add NAME KEYFILE`.")
	}
	fmt.Fprintf(out, "Connect with: ssh -p %s -t NAME@%s   ·   ctrl+c or SIGTERM stops it (jobs are checkpointed)\n", port, host)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	fmt.Fprintln(out, "Stopping: checkpointing every job and telling each analyst…")
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return err
	}
	<-done
	fmt.Fprintln(out, "Stopped. The next `warren serve` resumes the interrupted jobs.")
	return nil
}
