package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"warren/gas"
	"warren/internal/cli"
	"warren/internal/testkb"
	"warren/llm/llmtest"
	"warren/service"
)

// scriptOdour answers extraction with an odour for every row that asks for one, from the first
// passage, and query questions with a fixed expression. The odour is a word the first passage
// states (its first long word), so that the fill's grounding check finds it there.
func scriptOdour(srv *llmtest.Server) {
	srv.Handle(&llmtest.Rule{Name: "extract", SchemaHas: "values", Reply: func(c llmtest.Call) string {
		values := []map[string]any{}
		if strings.Contains(c.LastUser(), "\n- odour:") {
			if m := firstPassageWord.FindStringSubmatch(c.LastUser()); m != nil {
				values = append(values, map[string]any{"field": "odour", "value": m[1], "unit": "", "confidence": 0.8, "source": 1})
			}
		}
		data, _ := json.Marshal(map[string]any{"values": values})
		return string(data)
	}})
	srv.Handle(&llmtest.Rule{Name: "narrow", SchemaHas: "sections", Replies: []string{`{"sections":[1,2,3]}`}})
	srv.Handle(&llmtest.Rule{Name: "query", SchemaHas: "expression", Replies: []string{
		`{"expression":"ghs02_flammable == true && empty(cas_number)","explanation":"flammable, no CAS number"}`}})
}

// firstPassageWord is the first word of five letters or more of passage [1] of an extraction
// prompt (after its "[1] document section:" line).
var firstPassageWord = regexp.MustCompile(`(?m)^\[1\] [^\n]*\n(?s:.*?)\b(\pL{5,})\b`)

// workspaceLedger reads a run's model calls from the workspace ledger, through the service.
func workspaceLedger(t *testing.T, env []string, run string) ([]service.LedgerEntry, error) {
	t.Helper()
	e, err := (&app{env: env, logger: slog.New(slog.DiscardHandler)}).open()
	if err != nil {
		return nil, err
	}
	defer e.Close()
	return e.Research().Ledger(context.Background(), run)
}

func TestGasImportFillResumeQueryExportRoundTrip(t *testing.T) {
	ws, _, _ := testkb.Sample(t)
	srv := llmtest.New(t)
	scriptOdour(srv)
	env := []string{"WARREN_WORKSPACE=" + ws.Dir, "OLLAMA_HOST=" + srv.URL}
	sample := filepath.Join(testkb.SampleDir(), "gas", "hmis-sample.csv")

	r := warren(t, env, "gas", "import", sample, "--json")
	var imported struct {
		Table      string
		Rows       int
		EmptyCells int `json:"empty_cells"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &imported) != nil || imported.Table != "hmis-sample" || imported.Rows != 41 || imported.EmptyCells == 0 {
		t.Fatalf("import: %+v", r)
	}
	if r = warren(t, env, "gas", "import", sample); r.code == 0 || !strings.Contains(r.stderr, "--replace") {
		t.Errorf("a second import under the same name must refuse and say how: %+v", r)
	}

	// An interrupted fill that finished row 1: --resume does rows 2 and 3 only.
	st := &gas.Store{DB: ws.DB}
	ctx := context.Background()
	fill, err := st.StartFill(ctx, "hmis-sample", []int{1, 2, 3}, []string{"suppliers"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.SaveFillRow(ctx, fill, "hmis-sample", 1, nil); err != nil {
		t.Fatal(err)
	}
	r = warren(t, env, "gas", "fill", "--resume", "--json")
	var sum service.GasFillSummary
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &sum) != nil {
		t.Fatalf("fill --resume: %+v", r)
	}
	if len(sum.Results) != 2 || sum.Results[0].Row != 2 || sum.Results[1].Row != 3 {
		t.Errorf("--resume filled rows %+v, want 2 and 3", sum.Results)
	}
	// The fill's model calls are in the workspace ledger, each one the server answered.
	chatBefore := srv.Count("/api/chat")
	ledger, err := workspaceLedger(t, env, sum.LedgerRun)
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	for _, le := range ledger {
		if le.Kind != "embed" {
			calls++
		}
	}
	if sum.LedgerRun == "" || calls == 0 || calls != sum.Results[0].Calls+sum.Results[1].Calls || calls != chatBefore {
		t.Errorf("ledger run %q has %d model calls; the rows report %d and %d, the server answered %d",
			sum.LedgerRun, calls, sum.Results[0].Calls, sum.Results[1].Calls, chatBefore)
	}
	if r = warren(t, env, "gas", "fill", "--resume"); r.code == 0 || !strings.Contains(r.stderr, "no interrupted fill") {
		t.Errorf("a second --resume has nothing to go on with: %+v", r)
	}
	if r = warren(t, env, "gas", "fill", "--rows", "1-6"); r.code != 0 || !strings.Contains(r.stdout, "model calls per row") {
		t.Fatalf("fill: %+v", r)
	}

	table, err := st.LoadTable(ctx, "hmis-sample")
	if err != nil {
		t.Fatal(err)
	}
	var filled []*gas.Row
	for _, row := range table.Rows[:6] {
		if c := row.Cells["odour"]; c.Status == gas.StatusFilled {
			if c.SourceChunk == "" || c.Method == "" || c.Confidence != 0.8 {
				t.Errorf("%s: a filled cell without provenance: %+v", row.Name(), c)
			}
			filled = append(filled, row)
		}
	}
	if len(filled) < 2 {
		t.Fatalf("the fill set odour in %d of rows 1-6, want at least 2", len(filled))
	}
	// The analyst approves one and edits another.
	approved := filled[0].Cells["odour"]
	approved.Status = gas.StatusApproved
	if err := st.SetCell(ctx, "hmis-sample", filled[0].ID, "odour", approved, "approved"); err != nil {
		t.Fatal(err)
	}
	if err := st.SetCell(ctx, "hmis-sample", filled[1].ID, "odour", gas.Cell{Value: "rotten eggs", Status: gas.StatusEdited}, "edited"); err != nil {
		t.Fatal(err)
	}

	r = warren(t, env, "gas", "query", "--expr", "ghs02_flammable == true && empty(cas_number)", "--json")
	var q struct {
		Expression string
		Rows       []string
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &q) != nil || len(q.Rows) == 0 {
		t.Fatalf("query --expr: %+v", r)
	}
	for _, name := range q.Rows {
		row := table.RowByName(name)
		if row == nil || row.Cells["cas_number"].Value != "" || row.Cells["ghs02_flammable"].Value != "yes" {
			t.Errorf("query matched %q, which is not a flammable gas without a CAS number", name)
		}
	}
	r = warren(t, env, "gas", "query", "flammable gases without a CAS number", "--json")
	var asked struct {
		Expression string
		Calls      int
		LedgerRun  string `json:"ledger_run"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &asked) != nil || asked.Expression != "ghs02_flammable == true && empty(cas_number)" {
		t.Errorf("query: %+v", r)
	}
	if ledger, _ := workspaceLedger(t, env, asked.LedgerRun); asked.Calls != 1 || len(ledger) != asked.Calls {
		t.Errorf("the question's %d call(s) are in ledger run %q: %+v", asked.Calls, asked.LedgerRun, ledger)
	}
	if r = warren(t, env, "gas", "query", "--expr", "SELECT * FROM gases"); r.code == 0 {
		t.Errorf("SQL must be refused: %+v", r)
	}

	out := filepath.Join(t.TempDir(), "hmis.xlsx")
	if r = warren(t, env, "gas", "export", out); r.code != 0 {
		t.Fatalf("export: %+v", r)
	}
	want, err := st.LoadTable(ctx, "hmis-sample")
	if err != nil {
		t.Fatal(err)
	}
	got, err := gas.ImportXLSX(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Rows) != len(want.Rows) {
		t.Fatalf("the export holds %d rows, want %d", len(got.Rows), len(want.Rows))
	}
	for i, w := range want.Rows {
		for _, fd := range gas.Fields() {
			a, b := w.Cells[fd.Name], got.Rows[i].Cells[fd.Name]
			if a.Value != b.Value || a.Status != b.Status || a.SourceDoc != b.SourceDoc || a.SourceChunk != b.SourceChunk ||
				a.Confidence != b.Confidence || a.Method != b.Method {
				t.Errorf("%s %s: exported then imported %+v, stored %+v", w.Name(), fd.Name, b, a)
			}
		}
	}
	if c := got.Row(filled[0].ID).Cells["odour"]; c.Status != gas.StatusApproved {
		t.Errorf("the approval did not survive the round trip: %+v", c)
	}
	if c := got.Row(filled[1].ID).Cells["odour"]; c.Status != gas.StatusEdited || c.Value != "rotten eggs" {
		t.Errorf("the edit did not survive the round trip: %+v", c)
	}
	// A second fill never touches the analyst's cells.
	if r = warren(t, env, "gas", "fill", "--rows", "1-6"); r.code != 0 {
		t.Fatalf("second fill: %+v", r)
	}
	again, _ := st.LoadTable(ctx, "hmis-sample")
	if c := again.Row(filled[1].ID).Cells["odour"]; c.Value != "rotten eggs" || c.Status != gas.StatusEdited {
		t.Errorf("the second fill changed the edited cell: %+v", c)
	}
}

// A missing chat model stops the fill at once with the command that fixes it, and nothing is
// marked done, so --resume does every row.
func TestGasFillStopsOnAMissingModel(t *testing.T) {
	ws, _, _ := testkb.Sample(t)
	srv := llmtest.New(t)
	scriptOdour(srv)
	srv.RemoveModel(llmtest.ChatModel)
	env := []string{"WARREN_WORKSPACE=" + ws.Dir, "OLLAMA_HOST=" + srv.URL}
	if r := warren(t, env, "gas", "import", filepath.Join(testkb.SampleDir(), "gas", "hmis-sample.csv")); r.code != 0 {
		t.Fatalf("import: %+v", r)
	}
	r := warren(t, env, "gas", "fill", "--rows", "1-8")
	if r.code != cli.ExitFailure || !strings.Contains(r.stderr, "ollama pull") || !strings.Contains(r.stderr, "--resume") {
		t.Fatalf("want exit 1 naming `ollama pull` and --resume: %+v", r)
	}
	if n := srv.Count("/api/chat"); n > 4 {
		t.Errorf("the fill went on after the model was found missing: %d chat requests", n)
	}
	st := &gas.Store{DB: ws.DB}
	last, ok, err := st.LastFill(context.Background(), "hmis-sample")
	if err != nil || !ok || last.Finished || len(last.Done) != 0 {
		t.Errorf("no row may be marked done: %+v %v %v", last, ok, err)
	}
	ds, _ := st.Decisions(context.Background(), "hmis-sample", 0, "")
	if len(ds) != 0 {
		t.Errorf("a failed fill changed %d cells", len(ds))
	}
}

// --rows that name no row of the table are a usage error, not a fill of nothing reported as
// done; a query that falls back because the model is missing says so, with the fix.
func TestGasFillRowsMustExistAndQueryFallbackSaysWhy(t *testing.T) {
	ws, _, _ := testkb.Sample(t)
	srv := llmtest.New(t)
	scriptOdour(srv)
	env := []string{"WARREN_WORKSPACE=" + ws.Dir, "OLLAMA_HOST=" + srv.URL}
	if r := warren(t, env, "gas", "import", filepath.Join(testkb.SampleDir(), "gas", "hmis-sample.csv")); r.code != 0 {
		t.Fatalf("import: %+v", r)
	}
	r := warren(t, env, "gas", "fill", "--rows", "40-45")
	if r.code != cli.ExitUsage || !strings.Contains(r.stderr, "no row 42 (it has 41 rows)") {
		t.Errorf("fill of rows the table lacks: %+v", r)
	}
	if _, ok, _ := (&gas.Store{DB: ws.DB}).LastFill(context.Background(), "hmis-sample"); ok {
		t.Errorf("a refused fill was recorded")
	}
	// Tiers are collection names: the space after a comma is not part of one.
	if r := warren(t, env, "gas", "fill", "--rows", "1", "--tiers", "standards, suppliers"); r.code != 0 {
		t.Fatalf("fill --tiers: %+v", r)
	}
	if last, _, _ := (&gas.Store{DB: ws.DB}).LastFill(context.Background(), "hmis-sample"); !slices.Equal(last.Tiers, []string{"standards", "suppliers"}) {
		t.Errorf("--tiers \"standards, suppliers\" searched %q", last.Tiers)
	}

	srv.RemoveModel(llmtest.ChatModel)
	r = warren(t, env, "gas", "query", "silane")
	if r.code != 0 || !strings.Contains(r.stdout, "fallback word match") || !strings.Contains(r.stdout, "ollama pull") {
		t.Errorf("a fallback for a missing model must say so and how to fix it: %+v", r)
	}
	r = warren(t, env, "gas", "query", "silane", "--json")
	var q struct {
		Fallback bool
		Note     string
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &q) != nil || !q.Fallback || !strings.Contains(q.Note, "ollama pull") {
		t.Errorf("--json: %+v", r)
	}
}

// A row without a chemical name is not filled, and the summary names it by its number.
func TestGasFillLeavesANamelessRowAlone(t *testing.T) {
	ws, _, _ := testkb.Sample(t)
	srv := llmtest.New(t)
	scriptOdour(srv)
	env := []string{"WARREN_WORKSPACE=" + ws.Dir, "OLLAMA_HOST=" + srv.URL}
	csv := filepath.Join(t.TempDir(), "gases.csv")
	if err := os.WriteFile(csv, []byte("Chemical Name,CAS No.,Odour\nArsine,7784-42-1,\n,7784-42-1,\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := warren(t, env, "gas", "import", csv); r.code != 0 {
		t.Fatalf("import: %+v", r)
	}
	r := warren(t, env, "gas", "fill")
	if r.code != 0 || !strings.Contains(r.stdout, "not filled: row 2 (the row has no chemical name)") {
		t.Errorf("fill: %+v", r)
	}
	table, err := (&gas.Store{DB: ws.DB}).LoadTable(context.Background(), "gases")
	if err != nil {
		t.Fatal(err)
	}
	if c := table.Row(1).Cells["odour"]; c.Value == "" || c.Status != gas.StatusFilled {
		t.Errorf("arsine's odour: %+v", c)
	}
	if c := table.Row(2).Cells["odour"]; !c.IsZero() {
		t.Errorf("the nameless row was filled: %+v", c)
	}
}

// A yes/no field whose value is unknown (n/a, or sheet text that didn't validate) is missing
// for a query, not "no": asking for the gases that are not pyrophoric must not list it.
func TestGasQueryReadsAnUnknownYesNoAsMissing(t *testing.T) {
	ws, _, _ := testkb.Sample(t)
	env := []string{"WARREN_WORKSPACE=" + ws.Dir}
	csv := filepath.Join(t.TempDir(), "gases.csv")
	if err := os.WriteFile(csv, []byte("Chemical Name,Pyrophoric\nSilane,yes\nNitrogen,no\nMix A,unknown\nMix B,n/a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := warren(t, env, "gas", "import", csv); r.code != 0 {
		t.Fatalf("import: %+v", r)
	}
	for expression, want := range map[string][]string{
		"pyrophoric == false": {"Nitrogen"},
		"empty(pyrophoric)":   {"Mix A", "Mix B"},
	} {
		r := warren(t, env, "gas", "query", "--expr", expression, "--json")
		var q struct{ Rows []string }
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &q) != nil || !slices.Equal(q.Rows, want) {
			t.Errorf("%s: %+v, want rows %q", expression, r, want)
		}
	}
}

func TestGasImportReplaceStartsAFreshHistory(t *testing.T) {
	ws, _, _ := testkb.Sample(t)
	env := []string{"WARREN_WORKSPACE=" + ws.Dir, "OLLAMA_HOST=127.0.0.1:1"}
	sample := filepath.Join(testkb.SampleDir(), "gas", "hmis-sample.csv")
	if r := warren(t, env, "gas", "import", sample); r.code != 0 {
		t.Fatalf("import: %+v", r)
	}
	st := &gas.Store{DB: ws.DB}
	ctx := context.Background()
	if err := st.SetCell(ctx, "hmis-sample", 1, "formula", gas.Cell{Status: gas.StatusRejected, Note: "no"}, "rejected"); err != nil {
		t.Fatal(err)
	}
	if r := warren(t, env, "gas", "import", sample, "--replace"); r.code != 0 {
		t.Fatalf("import --replace: %+v", r)
	}
	if ds, err := st.Decisions(ctx, "hmis-sample", 0, ""); err != nil || len(ds) != 0 {
		t.Errorf("the replaced table kept %d decisions (%v)", len(ds), err)
	}
	tab, err := st.LoadTable(ctx, "hmis-sample")
	if err != nil || tab.Row(1).Cells["formula"].Value != "SiH4" {
		t.Errorf("the replacement is not the imported sheet: %v", err)
	}
}
