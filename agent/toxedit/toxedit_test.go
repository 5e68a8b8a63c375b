package toxedit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"warren/agent"
	"warren/config"
	"warren/internal/schema"
	"warren/internal/testkb"
	"warren/kb"
	"warren/llm"
	"warren/llm/llmtest"
	"warren/tox"
)

type harness struct {
	srv *llmtest.Server
	ed  *Editor
}

func newHarness(t testing.TB) *harness {
	t.Helper()
	db, err := kb.OpenDB(filepath.Join(t.TempDir(), kb.DBFileName), schema.All())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	profiles := &tox.Store{DB: db}
	if _, err := profiles.ImportJSON(context.Background(), filepath.Join(testkb.SampleDir(), "tox", "profiles.json")); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.New(t)
	cfg := config.Default()
	cfg.Ollama.Host = srv.URL
	cfg.Ollama.BackoffBase = 1e6
	g, err := llm.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &harness{srv: srv, ed: &Editor{Gateway: g, Profiles: profiles, Runs: &agent.Store{DB: db}}}
}

func reply(v any) string {
	data, _ := json.Marshal(v)
	return string(data)
}

// calls checks the model calls of a proposal three ways: the proposal, its ledger and the
// server.
func (h *harness) calls(t *testing.T, p *Proposal, want int) {
	t.Helper()
	ledger, err := h.ed.Runs.Ledger(context.Background(), p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if p.ModelCalls != want || len(ledger) != want || h.srv.Count("/api/chat") != want {
		t.Errorf("model calls: proposal %d, ledger %d, server %d; want %d", p.ModelCalls, len(ledger), h.srv.Count("/api/chat"), want)
	}
}

func TestClassify(t *testing.T) {
	for _, c := range []struct {
		in   string
		want EditType
	}{
		{`{"noael":[{"value":1,"unit":"mg/kg bw/day","type":"NOAEL"}]}`, FormStructured},
		{`[{"op":"replace","path":"/cas","value":"50-00-0"}]`, FormStructured},
		{`{"noael": [`, FormStructured}, // broken JSON: the analyst sees the JSON error
		{"NOAEL: 200 mg/kg bw/day\nSpecies: rat\nRoute: oral", FormRaw},
		{"Study: 90-day oral study\nReference: SCCS/1639/21", FormRaw},
		{"NOAEL: 200 mg/kg bw/day", FormRaw},
		{"Set NOAEL to 200 mg/kg bw/day", NLIEdit},
		{"add reference: SCCS/1639/21", NLIEdit},
		{"The rat NOAEL should be 150 instead of 400", NLIEdit},
		{"remove statement 2", NLIEdit},
		{"", NoEdit},
		{"  \n ", NoEdit},
		{"hello", NoEdit},
		{"Thanks!", NoEdit},
		{"What is the NOAEL of vanillin?", NoEdit},
		{"looks good to me", NoEdit},
	} {
		if got := Classify(c.in); got != c.want {
			t.Errorf("Classify(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestProposeRoutesEachEditType(t *testing.T) {
	h := newHarness(t)
	h.srv.Handle(&llmtest.Rule{Name: "form", SchemaHas: "noael", Replies: []string{reply(map[string]any{
		"noael": []map[string]any{{"value": 200, "unit": "mg/kg bw/day", "type": "NOAEL", "species": "rat", "route": "oral", "reference_citation": "SCCS/1600/19"}},
		"dap":   []any{}, "references": []any{}, "statements": []any{}})}})
	h.srv.Handle(&llmtest.Rule{Name: "patch", SchemaHas: "operations", Replies: []string{reply(map[string]any{"operations": []map[string]any{
		{"op": "test", "path": "/inci", "value": "VANILLIN"}, {"op": "replace", "path": "/noael/0/value", "value": 150}}})}})
	ctx := context.Background()
	for _, c := range []struct {
		inci, in string
		typ      EditType
		method   string
		calls    int
	}{
		{"COUMARIN", `{"dap":[{"value":10,"source":"SCCS"}]}`, FormStructured, MethodStructured, 0},
		{"VANILLIN", "NOAEL: 200 mg/kg bw/day\nSpecies: rat\nRoute: oral\nReference: SCCS/1600/19", FormRaw, MethodFormModel, 1},
		{"VANILLIN", "Lower the oral rat NOAEL to 150", NLIEdit, MethodModelPatch, 1},
		{"VANILLIN", "what is this?", NoEdit, MethodNone, 0},
	} {
		before := h.srv.Count("/api/chat")
		p, err := h.ed.Propose(ctx, c.inci, c.in)
		if err != nil {
			t.Fatalf("%q: %v", c.in, err)
		}
		if p.EditType != c.typ || p.Method != c.method || p.ModelCalls != c.calls || h.srv.Count("/api/chat")-before != c.calls {
			t.Errorf("%q: %s by %s with %d calls (server %d), want %s by %s with %d", c.in, p.EditType, p.Method, p.ModelCalls,
				h.srv.Count("/api/chat")-before, c.typ, c.method, c.calls)
		}
		if (c.typ == NoEdit) != p.Empty() || (c.typ == NoEdit && p.Note == "") {
			t.Errorf("%q: empty %v, note %q", c.in, p.Empty(), p.Note)
		}
		if c.typ == FormRaw && (!strings.Contains(p.Diff, `"value": 200`) || !strings.Contains(string(p.After), "SCCS/1600/19")) {
			t.Errorf("form: the rat oral NOAEL should become 200 with a new reference:\n%s", p.Diff)
		}
	}
}

func TestStructuredPathMakesNoModelCall(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	p, err := h.ed.Propose(ctx, "vanillin", `{"inci":"VANILLIN","noael":{"update":{"1":{"value":900}},"add":[{"value":50,"unit":"mg/kg bw/day","type":"LOAEL","species":"mouse","reference":"r4"}]},
		"references":[{"citation":"New study 2024"}],"statements":[{"text":"Reviewed.","date":"2024-05-01"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	h.calls(t, p, 0)
	if p.EditType != FormStructured || p.BaseVersion != 1 || !hasGuard(p.Patch, "VANILLIN") {
		t.Fatalf("%+v", p)
	}
	after, err := tox.Parse(p.After)
	if err != nil {
		t.Fatal(err)
	}
	if after.NOAEL[1].Value != 900 || len(after.NOAEL) != 3 || after.References[3].ID != "r4" || len(after.Statements) != 1 {
		t.Errorf("after: %+v", after)
	}
	v, err := h.ed.Approve(ctx, p, "")
	if err != nil || v != 2 {
		t.Fatalf("Approve = %d, %v", v, err)
	}
	h.calls(t, p, 0)

	// A JSON Patch array goes the same path; the guard is added.
	p, err = h.ed.Propose(ctx, "VANILLIN", `[{"op":"remove","path":"/statements/0"}]`)
	if err != nil || p.Method != MethodStructured || p.BaseVersion != 2 || p.Patch[0].Path != "/inci" {
		t.Fatalf("%+v, %v", p, err)
	}
	for _, bad := range []string{
		`{"noaels":[]}`, // unknown key
		`[{"op":"replace","path":"/inci","value":"X"}]`,            // the INCI can't change
		`[{"op":"replace","path":"/noael/0/value","value":"ten"}]`, // wrong kind
		`{"noael":{"remove":[7]}}`,                                 // no such entry
		`{"dap":[{"value":150}]}`,                                  // invalid result: > 100 %
		`{"noael": [`,                                              // not JSON
	} {
		if _, err := h.ed.Propose(ctx, "VANILLIN", bad); err == nil {
			t.Errorf("%s: want an error", bad)
		}
	}
	if n := h.srv.Count("/api/chat"); n != 0 {
		t.Errorf("%d model calls on the structured path", n)
	}
}

func TestParsedInstructionsMakeNoModelCall(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	for _, c := range []struct{ inci, in, want string }{
		{"COUMARIN", "Set NOAEL to 200 mg/kg bw/day", `"value":200`},
		{"COUMARIN", "set the NOAEL to 5 mg/kg bw", `"unit":"mg/kg bw"`},
		{"VANILLIN", "Change NOAEL 2 to 800", `"value":800`},
		{"COUMARIN", "set DAP to 10 %", `"dap":[{"value":10}]`},
		{"COUMARIN", "Set CAS to 50-00-0", `"cas":"50-00-0"`},
		{"COUMARIN", "add reference: SCCS/1639/21", `{"id":"r3","citation":"SCCS/1639/21"}`},
		{"COUMARIN", `Add statement: "No concern at 0.1 %."`, `"statements":[{"text":"No concern at 0.1 %."}]`},
		{"VANILLIN", "remove the last reference", `"references":[{"id":"r1"`},
	} {
		p, err := h.ed.Propose(ctx, c.inci, c.in)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if p.Method != MethodParsed || p.ModelCalls != 0 || !strings.Contains(string(p.After), c.want) {
			t.Errorf("%q: method %s, %d calls, after %s; want %s", c.in, p.Method, p.ModelCalls, p.After, c.want)
		}
		h.calls(t, p, 0)
	}
	if _, err := h.ed.Propose(ctx, "COUMARIN", "remove statement 2"); err == nil || !strings.Contains(err.Error(), "has 0") {
		t.Errorf("remove statement 2 of none: %v", err)
	}
}

func TestModelPatchAndRewrite(t *testing.T) {
	ctx := context.Background()
	t.Run("patch", func(t *testing.T) {
		h := newHarness(t)
		h.srv.Handle(&llmtest.Rule{Name: "patch", SchemaHas: "operations", Replies: []string{reply(map[string]any{"operations": []map[string]any{
			{"op": "test", "path": "/inci", "value": "VANILLIN"}, {"op": "replace", "path": "/noael/0/species", "value": "mouse"}}})}})
		p, err := h.ed.Propose(ctx, "VANILLIN", "The 91-day study was in mice, not rats")
		if err != nil {
			t.Fatal(err)
		}
		if p.EditType != NLIEdit || p.Method != MethodModelPatch || !strings.Contains(p.Diff, `+      "species": "mouse"`) {
			t.Errorf("%s %s\n%s", p.EditType, p.Method, p.Diff)
		}
		h.calls(t, p, 1)
	})
	// A patch that breaks the profile (an unknown unit) falls back to one rewrite.
	badPatch := reply(map[string]any{"operations": []map[string]any{
		{"op": "test", "path": "/inci", "value": "VANILLIN"}, {"op": "replace", "path": "/noael/0/unit", "value": "mg/kg/d"}}})
	rewrite := func(mutate func(p *tox.Profile)) string {
		h := newHarness(t)
		v, _ := h.ed.Profiles.Latest(ctx, "VANILLIN")
		p, _ := v.Profile()
		mutate(p)
		return reply(map[string]any{"profile": p})
	}
	t.Run("rewrite accepted", func(t *testing.T) {
		h := newHarness(t)
		h.srv.Handle(&llmtest.Rule{Name: "patch", SchemaHas: "operations", Replies: []string{badPatch}})
		h.srv.Handle(&llmtest.Rule{Name: "rewrite", SchemaHas: "profile", Replies: []string{rewrite(func(p *tox.Profile) {
			p.NOAEL[0].Value, p.NOAEL[0].Unit = 0.4, "mg/kg bw/day"
		})}})
		p, err := h.ed.Propose(ctx, "VANILLIN", "The subchronic NOAEL is 0.4 per kg and day")
		if err != nil {
			t.Fatal(err)
		}
		if p.Method != MethodRewrite || len(p.Patch) != 2 || p.Patch[1].Path != "/noael/0/value" || p.Note == "" {
			t.Errorf("%s %+v", p.Method, p.Patch)
		}
		h.calls(t, p, 2)
	})
	t.Run("rewrite rejected", func(t *testing.T) {
		h := newHarness(t)
		h.srv.Handle(&llmtest.Rule{Name: "patch", SchemaHas: "operations", Replies: []string{badPatch}})
		h.srv.Handle(&llmtest.Rule{Name: "rewrite", SchemaHas: "profile", Replies: []string{rewrite(func(p *tox.Profile) {
			p.NOAEL[0].Value, p.CAS = 0.4, "50-00-0"
		})}})
		_, err := h.ed.Propose(ctx, "VANILLIN", "The subchronic NOAEL is 0.4 per kg and day")
		if err == nil || !strings.Contains(err.Error(), "/cas") || !strings.Contains(err.Error(), "names /noael") {
			t.Fatalf("a rewrite touching /cas must be refused: %v", err)
		}
		if n := h.srv.Count("/api/chat"); n != 2 {
			t.Errorf("%d calls, want 2 (patch, rewrite)", n)
		}
		if v, _ := h.ed.Profiles.Latest(ctx, "VANILLIN"); v.Version != 1 {
			t.Errorf("nothing may be saved: version %d", v.Version)
		}
	})
	t.Run("missing guard", func(t *testing.T) {
		h := newHarness(t)
		h.srv.Handle(&llmtest.Rule{Name: "patch", SchemaHas: "operations", Replies: []string{reply(map[string]any{"operations": []map[string]any{
			{"op": "replace", "path": "/noael/0/value", "value": 1}}})}})
		h.srv.Handle(&llmtest.Rule{Name: "rewrite", SchemaHas: "profile", Replies: []string{rewrite(func(p *tox.Profile) { p.NOAEL[0].Value = 1 })}})
		p, err := h.ed.Propose(ctx, "VANILLIN", "The subchronic NOAEL is 1")
		if err != nil || p.Method != MethodRewrite {
			t.Fatalf("a patch without the INCI guard goes to the rewrite: %v", err)
		}
		if p.Method != MethodRewrite {
			t.Fatalf("method %s", p.Method)
		}
	})
}

func TestSecondApprovalFromSameBaseIsStale(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	first, err := h.ed.Propose(ctx, "COUMARIN", "Set NOAEL to 200 mg/kg bw/day")
	if err != nil {
		t.Fatal(err)
	}
	second, err := h.ed.Propose(ctx, "COUMARIN", "Set NOAEL to 300 mg/kg bw/day")
	if err != nil {
		t.Fatal(err)
	}
	if v, err := h.ed.Approve(ctx, first, "first"); err != nil || v != 2 {
		t.Fatalf("first: %d, %v", v, err)
	}
	_, err = h.ed.Approve(ctx, second, "second")
	if !errors.Is(err, tox.ErrStale) || !strings.Contains(err.Error(), "propose") {
		t.Fatalf("second approval: %v, want ErrStale that says to propose again", err)
	}
	v, _ := h.ed.Profiles.Latest(ctx, "COUMARIN")
	if v.Version != 2 || !strings.Contains(string(v.Data), `"value":200`) || v.Summary != "first" || v.EditType != string(NLIEdit) {
		t.Errorf("latest: %d %s %q", v.Version, v.Data, v.Summary)
	}
	// Proposed again from version 2, it goes through.
	again, err := h.ed.Propose(ctx, "COUMARIN", second.Input)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := h.ed.Approve(ctx, again, ""); err != nil || v != 3 {
		t.Fatalf("again: %d, %v", v, err)
	}
}

func TestProposalSurvivesRestartAndReject(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	p, err := h.ed.Propose(ctx, "COUMARIN", "add reference: SCCS/1639/21")
	if err != nil {
		t.Fatal(err)
	}
	// A new editor over the same stores, as after a restart.
	later := &Editor{Gateway: h.ed.Gateway, Profiles: h.ed.Profiles, Runs: h.ed.Runs}
	loaded, waiting, err := later.Load(ctx, p.ID)
	if err != nil || !waiting || loaded.Diff != p.Diff {
		t.Fatalf("Load: %v %v", waiting, err)
	}
	if err := later.Reject(ctx, loaded, "wrong citation"); err != nil {
		t.Fatal(err)
	}
	if _, waiting, _ := later.Load(ctx, p.ID); waiting {
		t.Error("a rejected proposal still waits")
	}
	if _, err := later.Approve(ctx, loaded, ""); err == nil {
		t.Error("a rejected proposal was approved")
	}
	if v, _ := h.ed.Profiles.Latest(ctx, "COUMARIN"); v.Version != 1 {
		t.Errorf("version %d after a rejection", v.Version)
	}
}

func TestBatchIsolatesLines(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	batch := strings.Join([]string{
		`{"inci":"COUMARIN","payload":{"dap":[{"value":3}]}}`,
		`{"inci":"VANILLIN","instruction":`, // malformed
		`{"inci":"NO SUCH THING","instruction":"Set NOAEL to 1 mg/kg bw/day"}`,
		``,
		`{"inci":"BHT","instruction":"Set NOAEL to 26 mg/kg bw/day"}`,
		`{"inci":"MENTHOL","payload":{"dap":[{"value":300}]}}`, // invalid value
		`{"inci":"GERANIOL","instruction":"hello"}`,
	}, "\n")
	var progress []int
	res, err := h.ed.BatchWith(ctx, strings.NewReader(batch), BatchOptions{Yes: true, Progress: func(done, total int) { progress = append(progress, done*10+total) }})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		line   int
		status string
	}{{1, StatusApplied}, {2, StatusFailed}, {3, StatusFailed}, {5, StatusApplied}, {6, StatusFailed}, {7, StatusNoChange}}
	if len(res.Lines) != len(want) {
		t.Fatalf("%d lines: %+v", len(res.Lines), res.Lines)
	}
	for i, w := range want {
		l := res.Lines[i]
		if l.Line != w.line || l.Status != w.status {
			t.Errorf("line %d: %d %s %q, want %d %s", i, l.Line, l.Status, l.Error, w.line, w.status)
		}
		if l.Status == StatusFailed && !strings.Contains(l.Error, fmt.Sprintf("line %d", w.line)) {
			t.Errorf("error without its line number: %q", l.Error)
		}
	}
	if res.Applied != 2 || res.Failed != 3 || res.NoChange != 1 || len(progress) != 6 || progress[5] != 66 {
		t.Errorf("%+v, progress %v", res, progress)
	}
	hist, _ := h.ed.Profiles.History(ctx, "BHT")
	if len(hist) != 2 || hist[0].BatchID != res.ID || hist[0].EditType != string(NLIEdit) {
		t.Errorf("BHT history: %+v", hist)
	}
	if h.srv.Count("/api/chat") != 0 {
		t.Error("model calls in a zero-model batch")
	}
}

// Parsed instructions read numbers and texts as typed: a leading zero is still a number, and a
// citation or statement keeps its final full stop.
func TestParsedInstructionsKeepWhatWasTyped(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	for _, c := range []struct{ inci, in, want string }{
		{"VANILLIN", "set NOAEL 1 to 050", `"value":50,"unit"`},
		{"VANILLIN", "set NOAEL 2 to 007.5 mg/kg bw/day", `"value":7.5,"unit"`},
		{"VANILLIN", "set DAP to 05 %", `"dap":[{"value":5}]`},
		{"VANILLIN", "add reference: Smith et al.", `"citation":"Smith et al."`},
		{"VANILLIN", "add statement: No concern at 0.1 %.", `"text":"No concern at 0.1 %."`},
		{"VANILLIN", `add statement: "Safe as used".`, `"text":"Safe as used"}`},
	} {
		p, err := h.ed.Propose(ctx, c.inci, c.in)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if p.Method != MethodParsed || !strings.Contains(string(p.After), c.want) {
			t.Errorf("%q: method %s, after %s; want %s", c.in, p.Method, p.After, c.want)
		}
	}
}

// Operations edited down to ones that change nothing are not saved as a version equal to the
// last one; with a run store and without, and the proposal can still be approved as proposed.
func TestApproveEditedOperationsThatChangeNothing(t *testing.T) {
	ctx := context.Background()
	for _, withRuns := range []bool{true, false} {
		h := newHarness(t)
		if !withRuns {
			h.ed.Runs = nil
		}
		p, err := h.ed.Propose(ctx, "COUMARIN", "Set NOAEL to 200 mg/kg bw/day")
		if err != nil {
			t.Fatal(err)
		}
		edited := *p
		edited.Patch = append(edited.Patch[:1:1], edited.Patch[0]) // the guard, twice: no change
		if v, err := h.ed.Approve(ctx, &edited, ""); err == nil {
			t.Errorf("runs %v: edited operations that change nothing saved version %d", withRuns, v)
		}
		if v, _ := h.ed.Profiles.Latest(ctx, "COUMARIN"); v.Version != 1 {
			t.Errorf("runs %v: latest is version %d, want 1", withRuns, v.Version)
		}
		if v, err := h.ed.Approve(ctx, p, ""); err != nil || v != 2 {
			t.Errorf("runs %v: the proposal as proposed: %d, %v", withRuns, v, err)
		}
	}
}
