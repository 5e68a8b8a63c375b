package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"warren/internal/cli"
	"warren/internal/testkb"
	"warren/llm/llmtest"
	"warren/service"
	"warren/tox"
)

func toxEditWorkspace(t *testing.T) ([]string, *tox.Store) {
	t.Helper()
	ws, _, _ := testkb.Sample(t)
	st := &tox.Store{DB: ws.DB}
	if _, err := st.ImportJSON(context.Background(), filepath.Join(testkb.SampleDir(), "tox", "profiles.json")); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.New(t)
	return []string{"WARREN_WORKSPACE=" + ws.Dir, "OLLAMA_HOST=" + srv.URL}, st
}

func TestToxEditYesWaitingAndApprove(t *testing.T) {
	env, st := toxEditWorkspace(t)
	ctx := context.Background()
	r := warren(t, env, "tox", "edit", "coumarin", "Set NOAEL to 200 mg/kg bw/day", "--yes")
	for _, want := range []string{"instruction in words", "read without the model", "0 model calls", `+      "value": 200`, "Saved COUMARIN version 2"} {
		if r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Fatalf("edit --yes: want %q in %+v", want, r)
		}
	}
	// Without --yes and without a terminal: the proposal waits (exit 4) and approve saves it.
	r = warren(t, env, "tox", "edit", "COUMARIN", `{"dap":[{"value":10}]}`, "--json")
	var res service.ToxEditResult
	if r.code != cli.ExitWaiting || json.Unmarshal([]byte(r.stdout), &res) != nil || res.Status != "waiting" ||
		res.Proposal.EditType != service.ToxFormStructured || res.Proposal.BaseVersion != 2 {
		t.Fatalf("edit without --yes: %+v", r)
	}
	if v, _ := st.Latest(ctx, "COUMARIN"); v.Version != 2 {
		t.Fatalf("a waiting proposal was saved: version %d", v.Version)
	}
	if r = warren(t, env, "tox", "approve", res.Proposal.ID); r.code != 0 || !strings.Contains(r.stdout, "Saved COUMARIN version 3") {
		t.Fatalf("approve: %+v", r)
	}
	if r = warren(t, env, "tox", "edit", "COUMARIN", "hello"); r.code != 0 || !strings.Contains(r.stdout, "nothing to change") {
		t.Errorf("no edit: %+v", r)
	}
	if r = warren(t, env, "tox", "edit", "COUMARIN", `{"dap":[{"value":300}]}`, "--yes"); r.code != cli.ExitFailure || !strings.Contains(r.stderr, "couldn't edit COUMARIN: /dap/1/value") {
		t.Errorf("invalid payload: %+v", r)
	}
}

func TestToxBatchCLI(t *testing.T) {
	env, st := toxEditWorkspace(t)
	file := filepath.Join(t.TempDir(), "edits.jsonl")
	os.WriteFile(file, []byte(`{"inci":"COUMARIN","payload":{"dap":[{"value":3}]}}
{"inci":"VANILLIN"
{"inci":"BHT","instruction":"Set NOAEL to 26 mg/kg bw/day"}
`), 0o644)
	r := warren(t, env, "tox", "batch", file, "--yes")
	if r.code != cli.ExitPartial || !strings.Contains(r.stdout, "2 applied") || !strings.Contains(r.stdout, "1 failed") || !strings.Contains(r.stdout, "line 2") {
		t.Fatalf("batch: %+v", r)
	}
	if v, _ := st.Latest(context.Background(), "BHT"); v.Version != 2 || v.BatchID == "" {
		t.Errorf("BHT: version %d batch %q", v.Version, v.BatchID)
	}
	r = warren(t, env, "tox", "batch", file, "--json")
	var res service.ToxBatchResult
	if r.code != cli.ExitPartial || json.Unmarshal([]byte(r.stdout), &res) != nil || res.Proposed != 1 || res.NoChange != 1 || res.Failed != 1 {
		t.Fatalf("batch --json: %+v", r)
	}
}
