//go:build e2e

package e2e

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestResearchOverTwoOllamaHosts starts two real Ollama servers on two loopback ports with the
// same tiny model and runs one research run with models.chat.hosts naming both (the fast role
// follows the chat hosts): `warren doctor` checks each, both answer chat requests, the ledger
// names both, and the two servers' logs together hold exactly the attempts the ledger counts.
func TestResearchOverTwoOllamaHosts(t *testing.T) {
	ollama, gguf, root := tinyModelInputs(t)
	servers := []*ollamaServer{startOllama(t, ollama), startOllama(t, ollama)}
	var urls []string
	for _, srv := range servers {
		srv.createModel(t, modelName, gguf)
		urls = append(urls, "http://"+srv.addr)
	}
	ws := filepath.Join(t.TempDir(), "ws")
	env := []string{"WARREN_WORKSPACE=" + ws, "OLLAMA_HOST=" + servers[0].addr,
		"WARREN_MODELS_CHAT_HOSTS=" + strings.Join(urls, ","),
		"WARREN_MODELS_CHAT_MODEL=" + modelName, "WARREN_MODELS_EMBED_MODEL=" + modelName,
		"WARREN_MODELS_CHAT_NUM_PREDICT=192", "WARREN_MODELS_FAST_NUM_PREDICT=192"}
	if r := warren(t, time.Minute, env, "init", ws); r.code != 0 {
		t.Fatalf("init: %+v", r)
	}

	r := warren(t, time.Minute, env, "doctor", "--json")
	var rep struct {
		OK     bool `json:"ok"`
		Checks []struct{ Name, Status, Detail string }
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &rep) != nil || !rep.OK {
		t.Fatalf("doctor: want every check passed: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, u := range urls {
		if !strings.Contains(r.stdout, u) {
			t.Errorf("doctor does not check host %s:\n%s", u, r.stdout)
		}
	}

	// The built-in embedder keeps the knowledge base quick to build: the run's model calls
	// are what this test is about.
	r = warren(t, 10*time.Minute, env, "ingest", "--registry", filepath.Join(root, "sample", "registry.json"), "--embedder", "builtin")
	if r.code != 0 {
		t.Fatalf("ingest: exit %d\n%s", r.code, lastLines(r.stderr, 20))
	}
	t.Logf("ingest with the built-in embedder: %.1f s", r.took.Seconds())

	// A small budget keeps the run short on CPU; a run that spends it ends with a partial
	// report, as done as any other.
	const budget = 30
	args := []string{"research", "Which purge sequence applies to silane cylinders before disconnecting?",
		"--yes", "--json", "--budget-calls", fmt.Sprint(budget)}
	run := ""
	for sitting := 1; ; sitting++ {
		r := warren(t, 10*time.Minute, env, args...)
		t.Logf("research sitting %d: exit %d in %.1f s", sitting, r.code, r.took.Seconds())
		if r.code == 0 {
			var sum researchSummary
			if err := json.Unmarshal([]byte(r.stdout), &sum); err != nil || sum.Status != "done" || sum.Calls > budget {
				t.Fatalf("research: want a finished run within %d calls: %v\n%s", budget, err, r.stdout)
			}
			run = sum.Run
			break
		}
		// The meaningless model may fail a node (ErrInvalidOutput, the run saved): go on.
		m := savedRunRE.FindStringSubmatch(r.stderr)
		if typedModelError(r.stderr) != "ErrInvalidOutput" || m == nil || sitting == budget {
			t.Fatalf("research (sitting %d): want a report, or a meaningless answer with the run saved; exit %d:\n%s", sitting, r.code, lastLines(r.stderr, 15))
		}
		args = []string{"research", "--resume", m[1], "--yes", "--json"}
	}

	db, err := sql.Open("sqlite", "file:"+filepath.Join(ws, "warren.db")+"?mode=ro&_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT host, count(*) FROM ledger WHERE run = ? AND kind != 'embed' GROUP BY host`, run)
	if err != nil {
		t.Fatalf("reading the ledger: %v", err)
	}
	defer rows.Close()
	calls := map[string]int{}
	for rows.Next() {
		var host string
		var n int
		if err := rows.Scan(&host, &n); err != nil {
			t.Fatal(err)
		}
		calls[host] = n
	}
	logged := func() int {
		n := 0
		for _, srv := range servers {
			n += srv.requests(t, "/api/chat")
		}
		return n
	}
	// A server logs a request after its answer has gone out: give the last lines a moment.
	bounds := chatBoundsOf(readLedger(t, ws, `run = ?`, run), false)
	for wait := time.Now().Add(3 * time.Second); logged() < bounds.max && time.Now().Before(wait); {
		time.Sleep(50 * time.Millisecond)
	}
	for i, srv := range servers {
		n := srv.requests(t, "/api/chat")
		t.Logf("host %d (%s): %d chat requests in its log, %d calls in the ledger", i+1, urls[i], n, calls[urls[i]])
		if n == 0 || calls[urls[i]] == 0 {
			t.Errorf("host %s did not answer: %d chat requests in its log, %d ledger calls", urls[i], n, calls[urls[i]])
		}
	}
	if n := logged(); !bounds.holds(n) {
		t.Errorf("the servers' logs hold %d chat requests; the ledger records %s", n, bounds)
	}
}
