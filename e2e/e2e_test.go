//go:build e2e

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"warren/agent"
)

const modelName = "warren-e2e-tiny"

var warrenBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "warren-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	warrenBin = filepath.Join(dir, "warren")
	if out, err := exec.Command("go", "build", "-o", warrenBin, "../cmd/warren").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building warren: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// need returns the path an environment variable names, or stops the suite saying how to set it.
func need(t *testing.T, name, what string) string {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		t.Fatalf("%s is not set: it names %s (`make e2e` prepares it)", name, what)
	}
	if _, err := os.Stat(v); err != nil {
		t.Fatalf("%s=%s: %v", name, v, err)
	}
	return v
}

// tinyModelInputs returns what a suite on the tiny model starts from: the ollama binary, the
// model's GGUF file and the repository root.
func tinyModelInputs(t *testing.T) (ollama, gguf, root string) {
	t.Helper()
	ollama = need(t, "WARREN_E2E_OLLAMA", "the ollama binary")
	gguf = need(t, "WARREN_E2E_MODEL", "the tiny model's GGUF file (go run ./e2e/tinymodel)")
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return ollama, gguf, root
}

type result struct {
	code           int
	stdout, stderr string
	took           time.Duration
}

// warren runs the binary with env and a deadline: a flow that outlives it has hung.
func warren(t *testing.T, deadline time.Duration, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within(t, deadline))
	defer cancel()
	cmd := exec.CommandContext(ctx, warrenBin, args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String(), took: time.Since(start)}
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Errorf("warren %s hung: no end within %s\nstderr:\n%s", strings.Join(args, " "), deadline, lastLines(r.stderr, 20))
		r.code = -1
	case errors.As(err, &exit):
		r.code = exit.ExitCode()
	case err != nil:
		t.Fatalf("warren %s: %v", strings.Join(args, " "), err)
	}
	return r
}

// within shortens a flow's deadline to what the test binary's -timeout leaves, less a minute
// for stopping the server and reporting, so a slow flow fails as a flow, not as a panic.
func within(t *testing.T, d time.Duration) time.Duration {
	if end, ok := t.Deadline(); ok {
		return max(min(d, time.Until(end)-time.Minute), time.Second)
	}
	return d
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// flow is what one flow did, as the closing figures report it.
type flow struct {
	Name         string  `json:"flow"`
	Seconds      float64 `json:"seconds"`
	Exit         int     `json:"exit"`
	Ended        string  `json:"ended"`
	Calls        int     `json:"model_calls"`    // chat exchanges in the ledger
	Attempts     int     `json:"attempts"`       // their attempts: each one is a request
	ChatRequests int     `json:"chat_requests"`  // POST /api/chat lines in the server's log
	Repairs      int     `json:"repairs"`        // repair rounds (answers that needed repair)
	LengthRetry  int     `json:"length_retries"` // answers cut at num_predict and asked again
	Embeds       int     `json:"embed_requests"` // POST /api/embed lines in the server's log
}

// suite is the shared state of the flows, run in order against one server and workspace.
type suite struct {
	t      *testing.T
	server *ollamaServer
	ws     string
	env    []string
	flows  []flow
}

type ledgerRow struct {
	id                        int64
	run, kind, outcome, error string
	attempts                  int
}

func (s *suite) ledger(after int64) []ledgerRow {
	s.t.Helper()
	return readLedger(s.t, s.ws, `id > ?`, after)
}

// readLedger reads the ledger rows of a workspace that meet a condition, in order.
func readLedger(t *testing.T, ws, where string, args ...any) []ledgerRow {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(ws, "warren.db")+"?mode=ro&_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT id, run, kind, outcome, error, attempts FROM ledger WHERE `+where+` ORDER BY id`, args...)
	if err != nil {
		t.Fatalf("reading the ledger: %v", err)
	}
	defer rows.Close()
	var out []ledgerRow
	for rows.Next() {
		var r ledgerRow
		if err := rows.Scan(&r.id, &r.run, &r.kind, &r.outcome, &r.error, &r.attempts); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// chatBounds is how many chat requests the server logs may hold for some ledger rows: every
// attempt, exactly, unless a call was left in flight or cancelled by a sibling's failure (or
// the server was killed: fault), whose request may or may not have gone out. Then at least
// the completed calls' attempts and at most every attempt, plus one for each call left "sent".
type chatBounds struct {
	min, max, attempts, calls int
	outcomes                  map[string]int
}

func chatBoundsOf(entries []ledgerRow, fault bool) chatBounds {
	b := chatBounds{outcomes: map[string]int{}}
	completed, mayHaveSent := 0, 0
	for _, e := range entries {
		if e.kind == "embed" {
			continue
		}
		b.calls++
		b.attempts += e.attempts
		b.outcomes[e.outcome]++
		switch {
		case e.outcome == agent.OutcomeSent:
			fault = true
			mayHaveSent++
		case e.outcome == "error" && strings.Contains(e.error, "context canceled"):
			fault = true
		case e.outcome != "error":
			completed += e.attempts
		}
	}
	b.min, b.max = b.attempts, b.attempts
	if fault {
		b.min, b.max = completed, b.attempts+mayHaveSent
	}
	return b
}

func (b chatBounds) holds(logged int) bool { return logged >= b.min && logged <= b.max }

func (b chatBounds) String() string {
	if b.min == b.max {
		return fmt.Sprintf("%d chat calls with %d attempts (outcomes %v)", b.calls, b.attempts, b.outcomes)
	}
	return fmt.Sprintf("%d chat calls with %d attempts, of which %d to %d may have reached a server (outcomes %v)",
		b.calls, b.attempts, b.min, b.max, b.outcomes)
}

func (s *suite) lastLedgerID() int64 {
	rows := s.ledger(0)
	if len(rows) == 0 {
		return 0
	}
	return rows[len(rows)-1].id
}

// measure runs one flow and checks what every flow must hold: the ledger's calls are the
// chat requests the server saw.
func (s *suite) measure(name string, do func() (result, string)) result {
	return s.measureFlow(name, false, do)
}

// measureFault is measure for a flow in which the server is killed: requests in flight then
// never reach its log, so the log holds at least the completed calls and at most every attempt.
func (s *suite) measureFault(name string, do func() (result, string)) result {
	return s.measureFlow(name, true, do)
}

func (s *suite) measureFlow(name string, fault bool, do func() (result, string)) result {
	s.t.Helper()
	chat0, embed0, ledger0 := s.server.requests(s.t, "/api/chat"), s.server.requests(s.t, "/api/embed"), s.lastLedgerID()
	r, ended := do()
	f := flow{Name: name, Seconds: r.took.Seconds(), Exit: r.code, Ended: ended}
	entries := s.ledger(ledger0)
	sent := 0
	for _, e := range entries {
		if e.kind != "embed" {
			sent += e.attempts
		}
	}
	// The server logs a request after its answer has gone out: give the last lines a moment.
	for wait := time.Now().Add(3 * time.Second); s.server.requests(s.t, "/api/chat")-chat0 < sent && time.Now().Before(wait); {
		time.Sleep(50 * time.Millisecond)
	}
	f.ChatRequests, f.Embeds = s.server.requests(s.t, "/api/chat")-chat0, s.server.requests(s.t, "/api/embed")-embed0
	bounds := chatBoundsOf(entries, fault)
	f.Calls, f.Attempts = bounds.calls, bounds.attempts
	for _, e := range entries {
		switch e.kind {
		case "repair":
			f.Repairs++
		case "length_retry":
			f.LengthRetry++
		}
	}
	if !bounds.holds(f.ChatRequests) {
		s.t.Errorf("%s: the server's log has %d chat requests; the ledger records %s", name, f.ChatRequests, bounds)
	}
	s.t.Logf("%s: %s in %.1fs, exit %d; %d model calls (%d repairs, %d length retries, outcomes %v), %d chat and %d embed requests at the server",
		name, ended, f.Seconds, f.Exit, f.Calls, f.Repairs, f.LengthRetry, bounds.outcomes, f.ChatRequests, f.Embeds)
	s.flows = append(s.flows, f)
	return r
}

// typedModelError names the gateway error an answer ended with, if stderr shows one with its fix.
var typedModelErrors = []struct{ name, text string }{
	{"ErrInvalidOutput", "does not match the requested JSON shape"},
	{"ErrInvalidOutput", "stopped at the length limit twice"},
	{"ErrBudgetExhausted", "run budget exhausted"},
	{"ErrUnreachable", "start it with `ollama serve`"},
	{"ErrModelMissing", "ollama pull"},
}

func typedModelError(stderr string) string {
	for _, e := range typedModelErrors {
		if strings.Contains(stderr, e.text) {
			return e.name
		}
	}
	return ""
}

func TestWarrenAgainstARealOllama(t *testing.T) {
	ollama, gguf, root := tinyModelInputs(t)
	s := &suite{t: t, server: startOllama(t, ollama), ws: filepath.Join(t.TempDir(), "ws")}
	s.server.createModel(t, modelName, gguf)
	s.env = []string{"WARREN_WORKSPACE=" + s.ws, "OLLAMA_HOST=" + s.server.addr,
		"WARREN_MODELS_CHAT_MODEL=" + modelName, "WARREN_MODELS_EMBED_MODEL=" + modelName,
		// The tiny model writes about 170 tokens a second; 192 ends a lost answer in a second or
		// two. The fast role takes the chat model but not its num_predict.
		"WARREN_MODELS_CHAT_NUM_PREDICT=192", "WARREN_MODELS_FAST_NUM_PREDICT=192"}
	if r := warren(t, time.Minute, s.env, "init", s.ws); r.code != 0 {
		t.Fatalf("init: %+v", r)
	}
	defer s.report()

	s.doctor("doctor")
	docs, chunks := s.ingest(root)
	s.research()
	s.gasFill(root)
	s.toxEdit(root)
	s.tableQuery()
	s.consistent(docs, chunks)
	s.missingModel()
	s.serverKilledMidResearch()
}

func (s *suite) doctor(name string) {
	t := s.t
	s.measure(name, func() (result, string) {
		r := warren(t, time.Minute, s.env, "doctor", "--json")
		var rep struct {
			OK     bool `json:"ok"`
			Checks []struct{ Name, Status, Detail string }
		}
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &rep) != nil || !rep.OK {
			t.Fatalf("%s: want every check passed: exit %d\n%s%s", name, r.code, r.stdout, r.stderr)
		}
		return r, "all checks passed"
	})
}

// ingest loads the sample workspace with the Ollama embedder and returns what it ingested.
func (s *suite) ingest(root string) (docs, chunks int) {
	t := s.t
	s.measure("ingest", func() (result, string) {
		r := warren(t, 10*time.Minute, s.env, "ingest", "--registry", filepath.Join(root, "sample", "registry.json"), "--embedder", "ollama", "--json")
		var rep struct {
			Files []struct {
				Doc, Status string
				Chunks      int
			}
		}
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &rep) != nil || len(rep.Files) == 0 {
			t.Fatalf("ingest: exit %d\n%s", r.code, lastLines(r.stderr, 20))
		}
		for _, f := range rep.Files {
			if f.Status != "ingested" {
				t.Errorf("ingest: %s ended %s", f.Doc, f.Status)
			}
			docs++
			chunks += f.Chunks
		}
		return r, fmt.Sprintf("%d documents, %d chunks", docs, chunks)
	})
	if n := s.flows[len(s.flows)-1].Embeds; n == 0 {
		t.Errorf("ingest with the Ollama embedder sent no /api/embed request")
	}
	return docs, chunks
}

type researchSummary struct {
	Run     string `json:"run"`
	Status  string `json:"status"`
	Calls   int    `json:"calls"`
	Report  string `json:"report"`
	Partial bool   `json:"partial"`
}

var savedRunRE = regexp.MustCompile("warren research --resume (\\S+)`")

// researchEnd reads how a research command ended: a report, or a typed model error with the
// run saved for --resume. It returns the run and a description.
func (s *suite) researchEnd(r result, budget int) (string, string) {
	t := s.t
	if r.code == 0 {
		var sum researchSummary
		if err := json.Unmarshal([]byte(r.stdout), &sum); err != nil || sum.Status != "done" {
			t.Fatalf("research: exit 0 without a finished run: %v\n%s", err, r.stdout)
		}
		report, err := os.ReadFile(sum.Report)
		if err != nil || len(report) == 0 {
			t.Errorf("research: the report %q is missing or empty: %v", sum.Report, err)
		}
		if sum.Calls > budget {
			t.Errorf("research: %d calls over a budget of %d", sum.Calls, budget)
		}
		ended := "report written"
		if sum.Partial {
			ended = "partial report written (budget)"
		}
		return sum.Run, ended
	}
	typed := typedModelError(r.stderr)
	m := savedRunRE.FindStringSubmatch(r.stderr)
	if r.code != 1 || typed == "" || m == nil {
		t.Fatalf("research: want a report, or a typed model error with the run saved; exit %d:\n%s", r.code, lastLines(r.stderr, 15))
	}
	return m[1], typed + " (run saved, resumable)"
}

func (s *suite) research() {
	const budget = 60
	var run string
	r := s.measure("research", func() (result, string) {
		r := warren(s.t, 10*time.Minute, s.env, "research", "Which purge sequence applies to silane cylinders before disconnecting?",
			"--yes", "--json", "--budget-calls", fmt.Sprint(budget))
		var ended string
		run, ended = s.researchEnd(r, budget)
		return r, ended
	})
	if r.code != 0 {
		// A run that a meaningless answer stopped goes on with --resume.
		s.resumeUntilDone("research --resume", run, budget)
	}
}

func (s *suite) gasFill(root string) {
	t := s.t
	if r := warren(t, time.Minute, s.env, "gas", "import", filepath.Join(root, "sample", "gas", "hmis-sample.csv")); r.code != 0 {
		t.Fatalf("gas import: %+v", r)
	}
	s.measure("gas fill (3 rows)", func() (result, string) {
		r := warren(t, 10*time.Minute, s.env, "gas", "fill", "--rows", "1-3", "--json")
		// Exit 3 is a partial fill: some rows ended with an error, and the summary (in the
		// same JSON object as the error) still lists every row.
		if r.code != 0 && r.code != 3 {
			if typedModelError(r.stderr) == "" {
				t.Fatalf("gas fill: exit %d without a typed error:\n%s", r.code, lastLines(r.stderr, 10))
			}
			return r, typedModelError(r.stderr)
		}
		var sum struct {
			Filled  int
			Results []struct {
				Name    string
				Err     string `json:"error"`
				Changes []struct {
					Field string
					After struct {
						Value       string
						SourceChunk string `json:"source_chunk"`
					}
				}
			}
		}
		if err := json.Unmarshal([]byte(r.stdout), &sum); err != nil || len(sum.Results) != 3 {
			t.Fatalf("gas fill: want 3 row results: %v\n%s", err, r.stdout)
		}
		failed := 0
		for _, row := range sum.Results {
			if row.Err != "" {
				failed++
				t.Logf("gas fill: %s ended with: %s", row.Name, row.Err)
			}
			for _, c := range row.Changes {
				if c.After.Value != "" && c.After.SourceChunk == "" {
					t.Errorf("gas fill: %s.%s = %q has no source passage", row.Name, c.Field, c.After.Value)
				}
			}
		}
		return r, fmt.Sprintf("3 rows done, %d cells filled, %d rows with a model error", sum.Filled, failed)
	})
}

func (s *suite) toxEdit(root string) {
	t := s.t
	if r := warren(t, time.Minute, s.env, "tox", "import", filepath.Join(root, "sample", "tox", "profiles.json")); r.code != 0 {
		t.Fatalf("tox import: %+v", r)
	}
	versions := func() int {
		r := warren(t, time.Minute, s.env, "tox", "history", "EUGENOL", "--json")
		var h []json.RawMessage
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &h) != nil {
			t.Fatalf("tox history: %+v", r)
		}
		return len(h)
	}
	before := versions()
	var saved bool
	s.measure("tox edit in words", func() (result, string) {
		// Words the built-in grammar does not read, so the model writes the patch.
		r := warren(t, 5*time.Minute, s.env, "tox", "edit", "EUGENOL",
			"The 2019 oral study in rats saw no adverse effects up to 150 mg/kg bw/day; record that as the NOAEL", "--yes", "--json")
		var res struct{ Status string }
		switch {
		case r.code == 0 && json.Unmarshal([]byte(r.stdout), &res) == nil:
			saved = res.Status == "saved"
			return r, "proposal " + res.Status
		case r.code == 1 && typedModelError(r.stderr) != "":
			return r, typedModelError(r.stderr) + ", nothing saved"
		case r.code == 1 && strings.Contains(r.stderr, "couldn't edit EUGENOL"):
			t.Logf("tox edit refused: %s", strings.TrimSpace(lastLines(r.stderr, 1)))
			return r, "the model's patch and its rewrite refused as invalid, nothing saved"
		}
		t.Fatalf("tox edit: exit %d, neither a proposal nor a clear refusal:\n%s%s", r.code, r.stdout, r.stderr)
		return r, ""
	})
	want := before
	if saved {
		want++
	}
	if got := versions(); got != want {
		t.Errorf("tox edit: EUGENOL has %d versions, want %d", got, want)
	}
}

func (s *suite) tableQuery() {
	t := s.t
	s.measure("gas table question", func() (result, string) {
		r := warren(t, 5*time.Minute, s.env, "gas", "query", "which flammable gases are heavier than air?", "--json")
		var q struct {
			Expression string
			Fallback   bool
			Calls      int
			Rows       []string
		}
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &q) != nil || q.Expression == "" {
			t.Fatalf("gas query: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		if q.Calls > 6 {
			t.Errorf("gas query: %d calls, at most 6 allowed", q.Calls)
		}
		if q.Fallback {
			return r, fmt.Sprintf("labelled word-match fallback, %d rows", len(q.Rows))
		}
		return r, fmt.Sprintf("model's expression, %d rows", len(q.Rows))
	})
}

// consistent checks the stores agree after every flow: doctor passes and the knowledge base
// holds what was ingested.
func (s *suite) consistent(docs, chunks int) {
	t := s.t
	s.doctor("doctor again")
	r := warren(t, time.Minute, s.env, "kb", "list", "--json")
	var kb struct {
		Collections []struct {
			Embedder string
			Chunks   int
		}
		Documents []struct{ ID string }
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &kb) != nil {
		t.Fatalf("kb list: %+v", r)
	}
	n := 0
	for _, c := range kb.Collections {
		n += c.Chunks
		if c.Embedder != "ollama:"+modelName {
			t.Errorf("collection embedded by %q, want the Ollama model", c.Embedder)
		}
	}
	if len(kb.Documents) != docs || n != chunks {
		t.Errorf("kb list: %d documents, %d chunks; the ingest stored %d and %d", len(kb.Documents), n, docs, chunks)
	}
}

func (s *suite) missingModel() {
	t := s.t
	env := append(append([]string{}, s.env...), "WARREN_MODELS_CHAT_MODEL=no-such-model:latest")
	s.measure("missing model", func() (result, string) {
		r := warren(t, time.Minute, env, "doctor")
		if r.code == 0 || !strings.Contains(r.stdout+r.stderr, "ollama pull no-such-model:latest") {
			t.Errorf("doctor with a missing model: want a failure naming `ollama pull`: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		r = warren(t, 2*time.Minute, env, "research", "Which purge sequence applies to silane?", "--yes")
		if r.code != 1 || typedModelError(r.stderr) != "ErrModelMissing" {
			t.Errorf("research with a missing model: want the `ollama pull` hint: exit %d\n%s", r.code, lastLines(r.stderr, 5))
		}
		return r, "ErrModelMissing with the `ollama pull` hint"
	})
}

// serverKilledMidResearch kills the server while a research run works, then restarts it and
// resumes the run.
func (s *suite) serverKilledMidResearch() {
	t := s.t
	const budget = 80
	args := []string{"research", "What must the gas cabinet exhaust monitoring do when arsine is detected?",
		"--yes", "--budget-calls", fmt.Sprint(budget)}
	var run string
	for sitting := 1; ; sitting++ {
		var killed bool
		var r result
		s.measureFault(fmt.Sprintf("research, server killed (sitting %d)", sitting), func() (result, string) {
			r, killed = s.researchKillingTheServer(args)
			if killed {
				m := savedRunRE.FindStringSubmatch(r.stderr)
				if r.code != 1 || typedModelError(r.stderr) != "ErrUnreachable" || m == nil {
					t.Fatalf("with the server gone: want ErrUnreachable and a resumable run; exit %d:\n%s", r.code, lastLines(r.stderr, 10))
				}
				run = m[1]
				return r, "ErrUnreachable, run saved"
			}
			// The run ended before a first answer was in; a meaningless answer can do that.
			m := savedRunRE.FindStringSubmatch(r.stderr)
			if r.code != 1 || typedModelError(r.stderr) != "ErrInvalidOutput" || m == nil || sitting == 3 {
				t.Fatalf("the run ended before the server could be killed: exit %d\n%s", r.code, lastLines(r.stderr, 10))
			}
			args = []string{"research", "--resume", m[1], "--yes"}
			return r, "ErrInvalidOutput before the kill (run saved, resumed in the next sitting)"
		})
		if killed {
			break
		}
	}
	show := warren(t, time.Minute, s.env, "sessions", "show", run, "--json")
	var cp struct {
		Checkpoint struct{ Status, Node, Next string }
	}
	if show.code != 0 || json.Unmarshal([]byte(show.stdout), &cp) != nil || cp.Checkpoint.Status == "done" {
		t.Fatalf("sessions show %s: want a checkpoint that is not done: %+v", run, show)
	}
	t.Logf("checkpoint after the kill: status %s at %s (next %s)", cp.Checkpoint.Status, cp.Checkpoint.Node, cp.Checkpoint.Next)

	s.server.start(t)
	s.resumeUntilDone("research --resume after restart", run, budget)
}

// resumeUntilDone resumes a run until it finishes. The meaningless model may fail a node
// again (ErrInvalidOutput, the run saved); each sitting asks anew under the run's own budget,
// so the run ends, with a report or, once the budget is spent, a partial one.
func (s *suite) resumeUntilDone(name, run string, budget int) {
	t := s.t
	for i := 1; i <= budget; i++ { // every failed sitting spends at least one call
		var r result
		s.measure(fmt.Sprintf("%s (sitting %d)", name, i), func() (result, string) {
			r = warren(t, 10*time.Minute, s.env, "research", "--resume", run, "--yes", "--json")
			resumed, ended := s.researchEnd(r, budget)
			if resumed != run {
				t.Errorf("--resume %s went on with run %s", run, resumed)
			}
			return r, ended
		})
		if r.code == 0 {
			return
		}
		if e := typedModelError(r.stderr); e != "ErrInvalidOutput" {
			t.Fatalf("the resumed run ended with %s, not a meaningless answer:\n%s", e, lastLines(r.stderr, 10))
		}
	}
	t.Errorf("run %s did not finish within its budget of %d calls", run, budget)
}

// researchKillingTheServer runs warren with args and kills the server once a first answer is
// in, while the run has more to ask. It says whether the kill happened before the run ended.
func (s *suite) researchKillingTheServer(args []string) (result, bool) {
	t := s.t
	ctx, cancel := context.WithTimeout(context.Background(), within(t, 10*time.Minute))
	defer cancel()
	cmd := exec.CommandContext(ctx, warrenBin, args...)
	cmd.Env = append(os.Environ(), s.env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd.Stdout = &out
	start := time.Now()
	chat0 := s.server.requests(t, "/api/chat")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var errText strings.Builder
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	killed := false
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
read:
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				break read
			}
			errText.WriteString(line + "\n")
		case <-tick.C:
			if !killed && s.server.requests(t, "/api/chat") > chat0 {
				s.server.kill()
				killed = true
			}
		}
	}
	err = cmd.Wait()
	r := result{stdout: out.String(), stderr: errText.String(), took: time.Since(start)}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		r.code = exit.ExitCode()
	}
	if ctx.Err() != nil {
		t.Fatalf("the run hung after the server was killed:\n%s", lastLines(r.stderr, 10))
	}
	if killed && r.code == 0 {
		t.Fatalf("the run finished although the server was killed:\n%s", lastLines(r.stderr, 10))
	}
	return r, killed
}

// report writes the flows' figures where WARREN_E2E_REPORT says, and to the test log.
func (s *suite) report() {
	var b strings.Builder
	fmt.Fprintf(&b, "%-46s %7s %4s %6s %7s %7s %8s %6s  %s\n", "flow", "seconds", "exit", "calls", "repairs", "length", "requests", "embeds", "ended")
	for _, f := range s.flows {
		fmt.Fprintf(&b, "%-46s %7.1f %4d %6d %7d %7d %8d %6d  %s\n", f.Name, f.Seconds, f.Exit, f.Calls, f.Repairs, f.LengthRetry, f.ChatRequests, f.Embeds, f.Ended)
	}
	s.t.Logf("figures (%s, %d cores):\n%s", runtime.GOOS, runtime.NumCPU(), b.String())
	if path := os.Getenv("WARREN_E2E_REPORT"); path != "" {
		data, _ := json.MarshalIndent(s.flows, "", "  ")
		if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
			s.t.Errorf("writing %s: %v", path, err)
		}
	}
}
