package serve

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/vt"
	gossh "golang.org/x/crypto/ssh"

	"warren/access"
	"warren/config"
	"warren/internal/testkb"
	"warren/llm/llmtest"
	"warren/service"
	"warren/service/audit"
	"warren/service/jobs"
)

// team is a running warren serve over the sample workspace, a scripted model and three
// analysts: alice and bob (authorized) and eve (not).
type team struct {
	srv     *Server
	svc     *service.Service
	llm     *llmtest.Server
	addr    string
	hostKey gossh.PublicKey
	keys    map[string]gossh.Signer
}

func newSigner(t testing.TB) gossh.Signer {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func startTeam(t *testing.T, opts Options) *team {
	t.Helper()
	ws, _, _ := testkb.Sample(t)
	llm := llmtest.New(t)
	llm.SetFallback(llmtest.Meaningless)
	svc, err := service.Open(ws.Dir, config.Sources{Flags: map[string]string{"ollama.host": llm.URL}}, service.Options{Owner: "server"})
	if err != nil {
		t.Fatal(err)
	}
	tm := &team{svc: svc, llm: llm, keys: map[string]gossh.Signer{}}
	dir := t.TempDir()
	opts.HostKey = filepath.Join(dir, "host_ed25519")
	opts.AuthorizedKeys = filepath.Join(dir, "authorized_keys")
	for _, name := range []string{"alice", "bob", "eve"} {
		tm.keys[name] = newSigner(t)
		if name != "eve" {
			if _, err := access.Add(opts.AuthorizedKeys, name, tm.keys[name].PublicKey(), false); err != nil {
				t.Fatal(err)
			}
		}
	}
	tm.srv, err = New(svc, opts)
	if err != nil {
		t.Fatal(err)
	}
	pem, err := os.ReadFile(opts.HostKey)
	if err != nil {
		t.Fatal(err)
	}
	host, err := gossh.ParsePrivateKey(pem)
	if err != nil {
		t.Fatal(err)
	}
	tm.hostKey = host.PublicKey()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tm.addr = ln.Addr().String()
	served := make(chan error, 1)
	go func() { served <- tm.srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		tm.srv.Shutdown(ctx)
		<-served
		svc.Close()
	})
	return tm
}

func (tm *team) config(name string, auth ...gossh.AuthMethod) *gossh.ClientConfig {
	if len(auth) == 0 {
		auth = []gossh.AuthMethod{gossh.PublicKeys(tm.keys[name])}
	}
	return &gossh.ClientConfig{User: name, Auth: auth, HostKeyCallback: gossh.FixedHostKey(tm.hostKey), Timeout: 10 * time.Second}
}

// terminal is one analyst's ssh client with a terminal emulator that draws what it receives.
type terminal struct {
	t      *testing.T
	client *gossh.Client
	sess   *gossh.Session
	screen *screen
	stdin  io.Writer
	ended  chan error
}

// screen is a terminal emulator that one goroutine draws on (what the server sends) while the
// test reads it. vt.SafeEmulator guards its Write but not String, which it takes unguarded from
// the Emulator it embeds, so every use of the emulator here goes through one mutex.
type screen struct {
	mu  sync.Mutex
	emu *vt.Emulator
}

func newScreen(width, height int) *screen { return &screen{emu: vt.NewEmulator(width, height)} }

// Write draws what the server sent.
func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.emu.Write(p)
}

// Read returns the terminal's answers to the program's queries (cursor position, modes,
// colours). It must not take the mutex: Write, holding it, waits until its answer is read.
func (s *screen) Read(p []byte) (int, error) { return s.emu.Read(p) }

// String is the screen's text, row by row.
func (s *screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.emu.String()
}

// Resize is the window of the terminal changing size.
func (s *screen) Resize(width, height int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.emu.Resize(width, height)
}

// answer copies the terminal's answers to the server until the connection ends, then drops
// them, so that a Write answering a query after the end does not wait (holding the mutex) for a
// reader that has gone.
func (s *screen) answer(stdin io.Writer) {
	io.Copy(stdin, s)
	io.Copy(io.Discard, s)
}

// close ends answer: the answers to queries still on their way are dropped.
func (s *screen) close() { s.emu.InputPipe().(*io.PipeWriter).Close() }

func (tm *team) connect(t *testing.T, name string, width, height int) *terminal {
	t.Helper()
	return tm.connectWith(t, name, width, height, nil)
}

// connectWith is connect whose received bytes also go to also, when it is not nil.
func (tm *team) connectWith(t *testing.T, name string, width, height int, also io.Writer) *terminal {
	t.Helper()
	client, err := gossh.Dial("tcp", tm.addr, tm.config(name))
	if err != nil {
		t.Fatalf("%s couldn't connect: %v", name, err)
	}
	sess, err := client.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.RequestPty("xterm-256color", height, width, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	stdin, _ := sess.StdinPipe()
	stdout, _ := sess.StdoutPipe()
	stderr, _ := sess.StderrPipe() // a terminal shows both
	if err := sess.Shell(); err != nil {
		t.Fatal(err)
	}
	term := &terminal{t: t, client: client, sess: sess, screen: newScreen(width, height), stdin: stdin, ended: make(chan error, 1)}
	drawn := make(chan struct{})
	var draw io.Writer = term.screen
	if also != nil {
		draw = io.MultiWriter(also, term.screen)
	}
	go func() {
		defer close(drawn)
		io.Copy(draw, io.MultiReader(stdout, stderr))
	}()
	go term.screen.answer(stdin) // the terminal's answers to the program's queries
	go func() { term.ended <- sess.Wait() }()
	t.Cleanup(func() {
		term.hangUp()
		select { // nothing draws on the screen after its test
		case <-drawn:
		case <-time.After(10 * time.Second):
			t.Errorf("%s's terminal still receives after the hang-up", name)
		}
		term.screen.close()
	})
	return term
}

// hangUp drops the connection as a lost network would: no goodbye.
func (c *terminal) hangUp() { c.client.Close() }

func (c *terminal) text() string { return c.screen.String() }

func (c *terminal) waitFor(text string) {
	c.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if strings.Contains(c.text(), text) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	c.t.Fatalf("the screen never showed %q; it shows:\n%s", text, c.text())
}

func (c *terminal) send(keys string) {
	c.t.Helper()
	if _, err := io.WriteString(c.stdin, keys); err != nil {
		c.t.Fatal(err)
	}
}

func TestAnAuthorizedAnalystSeesTheirWorkbench(t *testing.T) {
	tm := startTeam(t, Options{Listen: "127.0.0.1:0"})
	alice := tm.connect(t, "alice", 100, 30)
	alice.waitFor("warren alice")
	alice.waitFor("Research question")
	if got := tm.srv.Connections(); len(got) != 1 || got[0] != "alice" {
		t.Errorf("connections: %v", got)
	}
	// The login is in the audit trail, in her name.
	es, err := tm.svc.Audit().List(context.Background(), audit.Filter{Analyst: "alice"})
	if err != nil || len(es) != 1 || es[0].Action != audit.ActionLogin || es[0].Outcome != audit.OK {
		t.Errorf("alice's trail: %+v %v", es, err)
	}
}

func TestStrangersPasswordsAndCommandsAreRefused(t *testing.T) {
	tm := startTeam(t, Options{Listen: "127.0.0.1:0"})
	if c, err := gossh.Dial("tcp", tm.addr, tm.config("eve")); err == nil {
		c.Close()
		t.Fatal("an unknown key got in")
	}
	if c, err := gossh.Dial("tcp", tm.addr, tm.config("alice", gossh.Password("secret"))); err == nil {
		c.Close()
		t.Fatal("a password got in")
	}
	ki := gossh.KeyboardInteractive(func(string, string, []string, []bool) ([]string, error) { return []string{"secret"}, nil })
	if c, err := gossh.Dial("tcp", tm.addr, tm.config("alice", ki)); err == nil {
		c.Close()
		t.Fatal("keyboard-interactive got in")
	}
	client, err := gossh.Dial("tcp", tm.addr, tm.config("alice"))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	sess, err := client.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	out, err := sess.CombinedOutput("cat /etc/passwd")
	if err == nil || strings.Contains(string(out), "root:") {
		t.Fatalf("an exec request ran: %q %v", out, err)
	}
	sub, _ := client.NewSession()
	if err := sub.RequestSubsystem("sftp"); err == nil {
		t.Fatal("the sftp subsystem was granted")
	}
	if c, err := client.Dial("tcp", tm.addr); err == nil {
		c.Close()
		t.Fatal("port forwarding was allowed")
	}
	noPTY, _ := client.NewSession()
	var said strings.Builder
	noPTY.Stdout, noPTY.Stderr = &said, &said
	if err := noPTY.Shell(); err != nil {
		t.Fatal(err)
	}
	if err := noPTY.Wait(); err == nil {
		t.Error("a shell without a terminal ended successfully")
	}
	if out := said.String(); !strings.Contains(out, "needs a terminal") {
		t.Errorf("a shell without a terminal was not told why it ends: %q", out)
	}
	// The exec, the subsystem and the shell without a terminal are refusals on record in
	// alice's name; eve's unknown key stays in the log only. Nobody logged in.
	var got []string
	es, err := tm.svc.Audit().List(context.Background(), audit.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		got = append(got, e.Analyst+" "+e.Action+" "+e.Outcome)
	}
	if want := "alice refused refused|alice refused refused|alice refused refused"; strings.Join(got, "|") != want {
		t.Errorf("the trail: %q, want %q", strings.Join(got, "|"), want)
	}
}

func TestAResizeRelaysTheScreen(t *testing.T) {
	tm := startTeam(t, Options{Listen: "127.0.0.1:0"})
	alice := tm.connect(t, "alice", 80, 24)
	alice.waitFor("Research question")
	helpRow := func() int {
		lines := strings.Split(alice.text(), "\n")
		for i := len(lines) - 1; i >= 0; i-- {
			if strings.Contains(lines[i], "quit") {
				return i
			}
		}
		return -1
	}
	if got := helpRow(); got != 23 {
		t.Fatalf("at 80×24 the help line is on row %d, want 23:\n%s", got, alice.text())
	}
	alice.screen.Resize(120, 40)
	if err := alice.sess.WindowChange(40, 120); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for helpRow() != 39 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if got := helpRow(); got != 39 {
		t.Fatalf("after the resize to 120×40 the help line is on row %d, want 39:\n%s", got, alice.text())
	}
}

// askAndWaitForQuestions starts a run from the analyst's terminal and waits until the server
// has it waiting at the refinement questions; it returns the run's job.
func askAndWaitForQuestions(t *testing.T, tm *team, c *terminal, owner string) jobs.Job {
	t.Helper()
	c.waitFor("Research question")
	c.send("Which purge sequence applies to silane?\r")
	c.waitFor("run:")
	return waitForJob(t, tm, owner, jobs.JobWaiting)
}

func waitForJob(t *testing.T, tm *team, owner, state string) jobs.Job {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		list, err := tm.svc.Jobs().List(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, j := range list {
			if j.Owner == owner && j.Kind == jobs.KindResearch && j.State == state {
				return j
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	list, _ := tm.svc.Jobs().List(context.Background())
	t.Fatalf("no research job of %s became %s: %+v", owner, state, list)
	return jobs.Job{}
}

// The welcome of a run still working when its analyst comes back stays when the run reaches its
// questions a moment later (it once went with the screen it was shown on).
func TestTheWelcomeOutlivesTheScreenItWasShownOn(t *testing.T) {
	tm := startTeam(t, Options{Listen: "127.0.0.1:0"})
	tm.llm.SetLatency(400 * time.Millisecond)
	alice := tm.connect(t, "alice", 110, 32)
	alice.waitFor("Research question")
	alice.send("Which purge sequence applies to silane?\r")
	alice.waitFor("run:")
	waitForJob(t, tm, "alice", jobs.JobRunning)
	alice.hangUp()

	back := tm.connect(t, "alice", 110, 32)
	back.waitFor("went on while you were away")
	if j := waitForJob(t, tm, "alice", jobs.JobWaiting); j.ID == "" {
		t.Fatal("the run never reached its questions")
	}
	back.waitFor("Refinement, round 1")
	if !strings.Contains(back.text(), "welcome back") {
		t.Fatalf("the welcome went when the run reached its questions:\n%s", back.text())
	}
}

func TestAReconnectLandsInTheRunThatWentOn(t *testing.T) {
	tm := startTeam(t, Options{Listen: "127.0.0.1:0"})
	tm.llm.SetLatency(150 * time.Millisecond) // the refinement takes several calls: seconds
	alice := tm.connect(t, "alice", 110, 32)
	alice.waitFor("Research question")
	alice.send("Which purge sequence applies to silane?\r")
	alice.waitFor("run:")
	running := waitForJob(t, tm, "alice", jobs.JobRunning)
	callsAtDrop := tm.llm.Count("/api/chat")
	alice.hangUp()

	// The run goes on without her and stops at its questions.
	waiting := waitForJob(t, tm, "alice", jobs.JobWaiting)
	if waiting.ID != running.ID {
		t.Fatalf("the run that waits is %s, the one she started %s", waiting.ID, running.ID)
	}
	if tm.llm.Count("/api/chat") <= callsAtDrop {
		t.Fatalf("no model call after the connection dropped (%d then)", callsAtDrop)
	}
	back := tm.connect(t, "alice", 110, 32)
	back.waitFor("welcome back")
	back.waitFor("Refinement, round 1")
	back.send("Silane in a gas")
	back.waitFor("Silane in a gas")
	back.hangUp() // dropped again, in the middle of her answer

	// What she typed comes back with the question it answers.
	back = tm.connect(t, "alice", 110, 32)
	back.waitFor("Refinement, round 1")
	back.waitFor("Silane in a gas")
	back.send(" cabinet.")
	back.send("\x13") // ctrl+s sends the answer
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if j, _ := tm.svc.Jobs().Get(context.Background(), running.ID); j.State == jobs.JobWaiting && strings.Contains(back.text(), "round 2") {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("her answer did not take the same run on; screen:\n%s", back.text())
}

func TestASecondAnalystWatchesButCannotDecide(t *testing.T) {
	tm := startTeam(t, Options{Listen: "127.0.0.1:0"})
	alice := tm.connect(t, "alice", 110, 32)
	run := askAndWaitForQuestions(t, tm, alice, "alice")

	bob := tm.connect(t, "bob", 110, 32)
	bob.waitFor("warren bob")
	bob.send("\x0f") // ctrl+o: sessions
	bob.waitFor("alice")
	bob.send("\r")
	bob.waitFor("watching alice's run")
	bob.waitFor("Refinement, round 1")
	bob.send("I would answer for her.")
	bob.send("\x13")
	bob.waitFor("only alice (or an admin)")
	if j, _ := tm.svc.Jobs().Get(context.Background(), run.ID); j.State != jobs.JobWaiting {
		t.Fatalf("bob's answer moved alice's run: %+v", j)
	}
	// The service refuses it too, whatever the screen does.
	_, _, err := tm.svc.As("bob", false).Research().Resume(context.Background(), run.ID, []byte(`"mine"`), nil)
	if !errors.Is(err, service.ErrNotOwner) {
		t.Fatalf("bob answering alice's run: %v", err)
	}
	if err := tm.svc.As("bob", false).Jobs().Cancel(context.Background(), run.ID); !errors.Is(err, service.ErrNotOwner) {
		t.Fatalf("bob cancelling alice's run: %v", err)
	}
}

func TestTheSessionLimitRefusesWithAMessage(t *testing.T) {
	tm := startTeam(t, Options{Listen: "127.0.0.1:0", MaxSessions: 1})
	alice := tm.connect(t, "alice", 80, 24)
	alice.waitFor("warren alice")
	bob := tm.connect(t, "bob", 80, 24)
	select {
	case <-bob.ended:
	case <-time.After(10 * time.Second):
		t.Fatal("a connection over the limit was not closed")
	}
	bob.waitFor("the most allowed")
}

func TestAShutdownTellsTheAnalystAndTheNextServerResumesTheRun(t *testing.T) {
	tm := startTeam(t, Options{Listen: "127.0.0.1:0"})
	tm.llm.SetLatency(200 * time.Millisecond)
	alice := tm.connect(t, "alice", 110, 32)
	alice.waitFor("Research question")
	alice.send("Which purge sequence applies to silane?\r")
	run := waitForJob(t, tm, "alice", jobs.JobRunning)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := tm.srv.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case <-alice.ended:
	case <-time.After(10 * time.Second):
		t.Fatal("her connection stayed open after the shutdown")
	}
	alice.waitFor("warren serve stopped")
	if j, _ := tm.svc.Jobs().Get(context.Background(), run.ID); j.State != jobs.JobInterrupted {
		t.Fatalf("her run after the shutdown: %+v", j)
	}

	// The next server, on the same workspace, goes on with it as hers.
	logPath := filepath.Join(t.TempDir(), "next.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	next, err := service.Open(tm.svc.WorkspaceDir(), config.Sources{Flags: map[string]string{"ollama.host": tm.llm.URL}},
		service.Options{Owner: "server", Logger: slog.New(slog.NewTextHandler(logFile, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	defer next.Close()
	srv, err := New(next, Options{HostKey: tm.srv.opts.HostKey, AuthorizedKeys: tm.srv.opts.AuthorizedKeys})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	defer srv.Shutdown(context.Background())
	began := time.Now()
	deadline := began.Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if j, _ := next.Jobs().Get(context.Background(), run.ID); j.State == jobs.JobWaiting {
			if j.Owner != "alice" {
				t.Fatalf("the resumed run belongs to %q", j.Owner)
			}
			ledger, _ := next.Research().Ledger(context.Background(), run.ID)
			t.Logf("the next server took the run to its questions in %s (%d model calls in its ledger)", time.Since(began).Round(time.Millisecond), len(ledger))
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	j, _ := next.Jobs().Get(context.Background(), run.ID)
	cp, cpErr := next.RunStore().Latest(context.Background(), run.ID)
	logged, _ := os.ReadFile(logPath)
	t.Fatalf("the next server did not take the run on to its questions: %+v\ncheckpoint: status %s at %s (next %s), error %q %v\nunmatched model requests: %v\nits log:\n%s",
		j, cp.Status, cp.Node, cp.Next, cp.Error, cpErr, tm.llm.Unmatched(), logged)
}

func TestAnIdleConnectionIsClosedAndItsRunGoesOn(t *testing.T) {
	tm := startTeam(t, Options{Listen: "127.0.0.1:0", IdleTimeout: 400 * time.Millisecond})
	tm.llm.SetLatency(200 * time.Millisecond)
	alice := tm.connect(t, "alice", 110, 32)
	alice.waitFor("Research question")
	alice.send("Which purge sequence applies to silane?\r")
	run := waitForJob(t, tm, "alice", jobs.JobRunning)
	select {
	case <-alice.ended:
	case <-time.After(10 * time.Second):
		t.Fatal("an idle connection stayed open")
	}
	alice.waitFor("without input")
	if j := waitForJob(t, tm, "alice", jobs.JobWaiting); j.ID != run.ID {
		t.Fatalf("another run waits: %s, not %s", j.ID, run.ID)
	}
}

func TestAFillGoesOnAndEveryoneFollowsItOnTheGasTab(t *testing.T) {
	tm := startTeam(t, Options{Listen: "127.0.0.1:0"})
	ctx := context.Background()
	imported, err := tm.svc.Gas().Import(ctx, filepath.Join(testkb.SampleDir(), "gas", "hmis-sample.csv"), "", false)
	if err != nil {
		t.Fatal(err)
	}
	tm.llm.SetLatency(300 * time.Millisecond)
	fillDone := make(chan error, 1)
	go func() {
		_, err := tm.svc.As("alice", false).Gas().StartFill(ctx, imported.Table, nil, nil, nil)
		fillDone <- err
	}()
	var fill jobs.Job
	deadline := time.Now().Add(20 * time.Second)
	for fill.ID == "" && time.Now().Before(deadline) {
		list, _ := tm.svc.Jobs().List(ctx)
		for _, j := range list {
			if j.Kind == jobs.KindGasFill && j.State == jobs.JobRunning {
				fill = j
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	if fill.ID == "" {
		t.Fatal("the fill never ran")
	}

	bob := tm.connect(t, "bob", 120, 32)
	bob.waitFor("warren bob")
	bob.send("\t\t") // to the Gas tab
	bob.waitFor("fill by alice:")
	bob.send("\x1b")
	bob.waitFor("stopped following the fill; it goes on")
	if j, _ := tm.svc.Jobs().Get(ctx, fill.ID); j.State != jobs.JobRunning {
		t.Fatalf("bob leaving stopped alice's fill: %+v", j)
	}

	alice := tm.connect(t, "alice", 120, 32)
	alice.waitFor("warren alice")
	alice.send("\t\t")
	alice.waitFor("fill by alice:")
	alice.send("\x1b") // hers: esc cancels it
	select {
	case err := <-fillDone:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("the fill ended with %v, want cancelled", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("alice's esc did not cancel her fill")
	}
	alice.waitFor("F resumes")
}

func TestADecisionOnAStaleViewIsRefusedOverSSH(t *testing.T) {
	tm := startTeam(t, Options{Listen: "127.0.0.1:0"})
	if _, err := tm.svc.Gas().Import(context.Background(), filepath.Join(testkb.SampleDir(), "gas", "hmis-sample.csv"), "", false); err != nil {
		t.Fatal(err)
	}
	alice := tm.connect(t, "alice", 160, 40)
	bob := tm.connect(t, "bob", 160, 40)
	for _, c := range []*terminal{alice, bob} {
		c.waitFor("Research question")
		c.send("\t\t")                      // the Gas tab, on the first row's first field
		c.waitFor("Gas table hmis-sample")  // loaded (the Knowledge tab on the way names silane too)
		c.send("lllll")                     // to its synonyms
		c.waitFor("Other names of the gas") // the detail of the synonyms cell (the header always names it)
	}
	bob.send("e")
	bob.waitFor("Edit Synonyms")
	bob.send("\x15") // ctrl+u clears the field
	bob.send("monosilane")
	alice.send("x") // she rejects the cell bob is editing
	bob.waitFor("alice rejected row 1")
	bob.send("\r")
	bob.waitFor("your view is refreshed — decide again")
	bob.waitFor(": monosilane") // his typed value is still there
}
