package gasfill

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"warren/config"
	"warren/gas"
	"warren/internal/testkb"
	"warren/kb"
	"warren/kb/load"
	"warren/llm"
	"warren/llm/llmkb"
	"warren/llm/llmtest"
)

// answerKey is sample/gas/hmis-sample-blanked.csv: the values left out of the sample table
// and the documents of the sample knowledge base that state them, by lower-case name and field.
type answerKey map[string]map[string]string

func loadAnswerKey(t testing.TB) answerKey {
	t.Helper()
	f, err := os.Open(filepath.Join(testkb.SampleDir(), "gas", "hmis-sample-blanked.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	records, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	key := answerKey{}
	for _, r := range records[1:] {
		field, ok := gas.MatchHeader(r[2])
		if !ok {
			t.Fatalf("answer key: unknown column %q", r[2])
		}
		name := strings.ToLower(r[0])
		if key[name] == nil {
			key[name] = map[string]string{}
		}
		v, err := gas.Normalize(field, r[3], "")
		if err != nil {
			t.Fatalf("answer key: %s %s: %v", r[0], r[2], err)
		}
		key[name][field.Name] = v
	}
	return key
}

type harness struct {
	srv    *llmtest.Server
	filler *Filler
	kb     *kb.Store
	tables *gas.Store
	table  *gas.Table
}

func newHarness(t testing.TB) *harness {
	t.Helper()
	ws, store, _ := testkb.Sample(t)
	srv := llmtest.New(t)
	cfg := config.Default()
	cfg.Ollama.Host = srv.URL
	cfg.Ollama.BackoffBase = 1e6
	cfg.Ollama.MaxConcurrency = 4
	g, err := llm.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	table, err := gas.ImportCSV(filepath.Join(testkb.SampleDir(), "gas", "hmis-sample.csv"))
	if err != nil {
		t.Fatal(err)
	}
	table.Name = "sample"
	tables := &gas.Store{DB: ws.DB}
	if err := tables.SaveTable(context.Background(), table); err != nil {
		t.Fatal(err)
	}
	f := &Filler{Gateway: g, Searcher: llmkb.Searcher(store, g, 0), Store: store, Options: DefaultOptions()}
	return &harness{srv: srv, filler: f, kb: store, tables: tables, table: table}
}

// fill runs a fill the way `warren gas fill` does: each row's changes saved as it finishes.
func (h *harness) fill(t testing.TB, rows ...int) []RowResult {
	t.Helper()
	ctx := context.Background()
	decisions, err := h.tables.Decisions(ctx, h.table.Name, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	h.filler.Rejected = RejectedValues(decisions)
	table, err := h.tables.LoadTable(ctx, h.table.Name)
	if err != nil {
		t.Fatal(err)
	}
	results, err := h.filler.Fill(ctx, table, rows, func(r *RowResult) error {
		changes := make([]gas.FillChange, len(r.Changes))
		for i, c := range r.Changes {
			changes[i] = gas.FillChange{Field: c.Field, Before: c.Before, After: c.After, Reason: "fill: " + c.Reason}
		}
		_, err := h.tables.SaveFillRow(ctx, 0, table.Name, r.Row, changes)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return results
}

// prompt is an extraction request taken apart.
type prompt struct {
	substance string
	fields    []string
	passages  []string // passage i+1
}

var passageStart = regexp.MustCompile(`(?m)^\[(\d+)\] `)

func parsePrompt(text string) prompt {
	var p prompt
	head, rest, _ := strings.Cut(text, "\nFields still empty:\n")
	p.substance, _, _ = strings.Cut(strings.TrimPrefix(head, "Substance: "), " (CAS")
	fieldList, passages, _ := strings.Cut(rest, "Passages:\n")
	for _, line := range strings.Split(fieldList, "\n") {
		if name, _, ok := strings.Cut(strings.TrimPrefix(line, "- "), ":"); ok {
			p.fields = append(p.fields, name)
		}
	}
	passages, _, _ = strings.Cut(passages, "\nFor each field that a passage states")
	idx := passageStart.FindAllStringIndex(passages, -1)
	for i, loc := range idx {
		end := len(passages)
		if i+1 < len(idx) {
			end = idx[i+1][0]
		}
		p.passages = append(p.passages, passages[loc[1]:end])
	}
	return p
}

// spellings are the ways a document may write a canonical value.
func spellings(v string) []string {
	out := []string{v}
	if strings.HasPrefix(v, "-") {
		out = append(out, "−"+v[1:])
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil && !strings.Contains(v, ".") {
		out = append(out, strconv.FormatFloat(f, 'f', 1, 64))
	}
	if strings.Contains(v, ".") {
		out = append(out, v+"0") // 17.10 °C
	}
	return out
}

// statedBy returns the value as a passage states it, "" when it does not: a pictogram by its
// code, H statements when every code is there, anything else in one of its spellings.
func statedBy(fd gas.Field, want, text string) string {
	switch {
	case fd.Kind == gas.KindBool && strings.HasPrefix(fd.Name, "ghs"):
		if code := strings.ToUpper(fd.Name[:5]); want == "yes" && strings.Contains(text, code) {
			return want
		}
		return ""
	case fd.Kind == gas.KindList:
		for _, code := range strings.Split(want, ";") {
			if !strings.Contains(text, strings.TrimSpace(code)) {
				return ""
			}
		}
		return want
	}
	for _, s := range spellings(want) {
		if wholeToken(s).MatchString(text) {
			return s
		}
	}
	return ""
}

// wholeToken matches a value standing on its own: 77 in "77 vol %", not in "7784-42-1";
// careful readers do not cite a passage for digits inside another number.
func wholeToken(s string) *regexp.Regexp {
	return regexp.MustCompile(`(^|[^\pL\pN.,\-−])` + regexp.QuoteMeta(s) + `($|[^\pL\pN.,-]|[.,]\D)`)
}

func reply(t testing.TB, v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// scriptReader answers extraction as a careful model would: each answer-key value that a
// passage offered states, from that passage. Besides, it returns what the rules must keep out:
// an out-of-range rating, a CAS number with a wrong check digit,
// and a low-confidence guess. (A field not asked for or a passage not offered cannot come back:
// the schema's enum and bounds refuse them before the fill sees the answer.)
// While off is set, the reader's extraction rule stands aside for a later one.
func scriptReader(t testing.TB, srv *llmtest.Server, key answerKey, off *atomic.Bool) {
	srv.Handle(&llmtest.Rule{Name: "sections", SchemaHas: "sections", Reply: func(c llmtest.Call) string {
		return reply(t, map[string]any{"sections": numbersListed(c.LastUser())})
	}})
	srv.Handle(&llmtest.Rule{Name: "paragraphs", SchemaHas: "paragraphs", Reply: func(c llmtest.Call) string {
		return reply(t, map[string]any{"paragraphs": numbersListed(c.LastUser())})
	}})
	srv.Handle(&llmtest.Rule{Name: "extract", SchemaHas: "values", Match: func(llmtest.Call) bool { return !off.Load() }, Reply: func(c llmtest.Call) string {
		p := parsePrompt(c.LastUser())
		var values []map[string]any
		add := func(field, value, unit string, confidence float64, source int) {
			values = append(values, map[string]any{"field": field, "value": value, "unit": unit, "confidence": confidence, "source": source})
		}
		known := key[strings.ToLower(p.substance)]
		for _, field := range p.fields {
			want, ok := known[field]
			if !ok {
				continue
			}
			fd, _ := gas.FieldByName(field)
		passages:
			for i, text := range p.passages {
				if evidence := statedBy(fd, want, text); evidence != "" {
					confidence := 0.9
					if fd.Kind == gas.KindPPM {
						confidence = 0.6 // exposure limits vary by jurisdiction: for review
					}
					add(field, evidence, fd.Unit, confidence, i+1)
					break passages
				}
			}
		}
		for _, field := range p.fields {
			switch field {
			case "hmis_health":
				add(field, "7", "", 0.95, 1)
			case "cas_number":
				add(field, "7803-62-4", "", 0.95, 1)
			case "odour":
				add(field, "faint", "", 0.2, 1)
			}
		}
		return reply(t, map[string]any{"values": values})
	}})
}

var bracketed = regexp.MustCompile(`(?m)^\[(\d+)\]`)

func numbersListed(text string) []int {
	var out []int
	for _, m := range bracketed.FindAllStringSubmatch(text, -1) {
		n, _ := strconv.Atoi(m[1])
		out = append(out, n)
	}
	return out
}

func TestFillOfTheSampleFollowsTheRules(t *testing.T) {
	h := newHarness(t)
	key := loadAnswerKey(t)
	scriptReader(t, h.srv, key, new(atomic.Bool))
	before := h.table
	results := h.fill(t)
	ctx := context.Background()
	after, err := h.tables.LoadTable(ctx, "sample")
	if err != nil {
		t.Fatal(err)
	}

	recovered, wrong, expected, unsupported := 0, 0, 0, 0
	for _, want := range key {
		expected += len(want)
	}
	var calls []int
	skippedTiers := 0
	for _, res := range results {
		calls = append(calls, res.Calls)
		if res.Err != "" {
			t.Errorf("row %d %s: %s", res.Row, res.Name, res.Err)
		}
		if !res.Grounded && (res.Calls != 0 || len(res.Changes) != 0) {
			t.Errorf("row %d %s is not grounded (%s) but made %d calls and %d changes", res.Row, res.Name, res.Identity, res.Calls, len(res.Changes))
		}
		if !res.Grounded {
			t.Logf("not grounded: %s: %s", res.Name, res.Identity)
		}
		for _, s := range res.Skipped {
			if s.Tier == "standards" || s.Tier == "regulatory" || s.Tier == "suppliers" {
				skippedTiers++
			}
		}
	}
	if skippedTiers == 0 {
		t.Error("no tier was skipped: the sample's regulatory tier names none of the gases, so some rows must skip it")
	}

	for _, old := range before.Rows {
		row := after.Row(old.ID)
		for _, fd := range gas.Fields() {
			was, now := old.Cells[fd.Name], row.Cells[fd.Name]
			if sameValue(was, now) {
				continue
			}
			where := row.Name() + " " + fd.Name
			switch {
			case fd.Name == "chemical_name":
				t.Errorf("%s: the chemical name was changed to %q", where, now.Value)
				continue
			case !was.IsEmpty():
				t.Errorf("%s: a %s cell %q was overwritten with %q", where, was.Status, was.Value, now.Value)
				continue
			}
			if now.Status == gas.StatusUnsupported {
				// Only the deliberate guess is stated by no passage: every value the careful
				// reader cites is found in its passage and filled.
				if fd.Name != "odour" || now.Value != "faint" {
					t.Errorf("%s: %q kept as unsupported: %s", where, now.Value, now.Note)
				}
				unsupported++
				continue
			}
			if again, err := gas.Normalize(fd, now.Value, now.Unit); err != nil || again != now.Value {
				t.Errorf("%s: filled value %q does not validate (%v)", where, now.Value, err)
			}
			wantStatus := gas.StatusReview
			if now.Confidence >= gas.HighConfidence && !strings.HasPrefix(now.Method, "general:") {
				wantStatus = gas.StatusFilled
			}
			if now.Status != wantStatus {
				t.Errorf("%s: status %q at confidence %.2f, want %q", where, now.Status, now.Confidence, wantStatus)
			}
			if now.Confidence < DefaultOptions().MinConfidence && !strings.HasPrefix(now.Method, "general:") {
				t.Errorf("%s: confidence %.2f below the fill bar, filled by %s", where, now.Confidence, now.Method)
			}
			chunks, err := h.kb.Chunks(ctx, []string{now.SourceChunk})
			if err != nil || len(chunks) != 1 || chunks[0].Doc != now.SourceDoc {
				t.Errorf("%s: source chunk %q of %q does not exist (%v)", where, now.SourceChunk, now.SourceDoc, err)
			}
			if want, ok := key[strings.ToLower(row.Name())][fd.Name]; ok {
				if want == now.Value {
					recovered++
				} else {
					wrong++
					t.Errorf("%s: filled %q, the answer key says %q", where, now.Value, want)
				}
			}
		}
	}
	for _, bad := range []struct{ field, value string }{{"hmis_health", "7"}, {"cas_number", "7803-62-4"}} {
		for _, row := range after.Rows {
			if row.Cells[bad.field].Value == bad.value {
				t.Errorf("%s: %s %q landed though the rules refuse it", row.Name(), bad.field, bad.value)
			}
		}
	}
	if recovered < expected*3/4 {
		t.Errorf("recovered %d of %d answer-key values; the sample knowledge base states them all", recovered, expected)
	}
	for name, fields := range key {
		row := after.RowByName(name)
		for field, want := range fields {
			if row == nil || row.Cells[field].Value != want {
				t.Logf("missed: %s %s = %s", name, field, want)
			}
		}
	}
	if unsupported == 0 {
		t.Error("the guess cited to a passage that does not state it was not kept as unsupported")
	}
	t.Logf("recovered %d of %d answer-key values (%d wrong, %d unsupported); model calls per row: %v", recovered, expected, wrong, unsupported, calls)
}

func sameValue(a, b gas.Cell) bool { return a.Value == b.Value && a.Status == b.Status }

// Analyst decisions survive a second fill by a model that proposes a value for every cell at
// high confidence, and a rejected value is not proposed again.
func TestSecondFillKeepsAnalystDecisions(t *testing.T) {
	h := newHarness(t)
	var readerOff atomic.Bool
	scriptReader(t, h.srv, loadAnswerKey(t), &readerOff)
	ctx := context.Background()
	rows := []int{1, 2, 3, 4, 5, 6, 7, 8}
	h.fill(t, rows...)
	first, err := h.tables.LoadTable(ctx, "sample")
	if err != nil {
		t.Fatal(err)
	}
	type ref struct {
		row   int
		field string
	}
	var filled []ref
	for _, id := range rows {
		for _, fd := range gas.Fields() {
			if c := first.Row(id).Cells[fd.Name]; c.Status == gas.StatusFilled || c.Status == gas.StatusReview {
				filled = append(filled, ref{id, fd.Name})
			}
		}
	}
	if len(filled) < 3 {
		t.Fatalf("the first fill set only %d cells of rows 1-8; the test needs three", len(filled))
	}
	approved, edited, rejected := filled[0], filled[1], filled[2]
	cell := func(r ref) gas.Cell { return first.Row(r.row).Cells[r.field] }
	a := cell(approved)
	a.Status = gas.StatusApproved
	e := gas.Cell{Value: "analyst text", Status: gas.StatusEdited}
	if fd, _ := gas.FieldByName(edited.field); fd.Kind != gas.KindString {
		e.Value = "1"
	}
	rejectedValue := cell(rejected).Value
	x := gas.Cell{Status: gas.StatusRejected, Note: "rejected by the analyst: was " + rejectedValue}
	for _, d := range []struct {
		r ref
		c gas.Cell
	}{{approved, a}, {edited, e}, {rejected, x}} {
		if err := h.tables.SetCell(ctx, "sample", d.r.row, d.r.field, d.c, "analyst"); err != nil {
			t.Fatal(err)
		}
	}

	// A greedy model: a valid-looking value for every field asked, at confidence 0.99, and the
	// rejected value again for the rejected cell.
	h.srv.Handle(&llmtest.Rule{Name: "greedy", SchemaHas: "values", Reply: func(c llmtest.Call) string {
		p := parsePrompt(c.LastUser())
		var values []map[string]any
		for _, field := range p.fields {
			v := "greedy"
			switch fd, _ := gas.FieldByName(field); fd.Kind {
			case gas.KindRating:
				v = "2"
			case gas.KindNumber, gas.KindTemperature, gas.KindPressure, gas.KindPercent, gas.KindPPM:
				v = "3"
			case gas.KindBool:
				v = "yes"
			}
			if field == rejected.field {
				v = rejectedValue
			}
			values = append(values, map[string]any{"field": field, "value": v, "unit": "", "confidence": 0.99, "source": 1})
		}
		return reply(t, map[string]any{"values": values})
	}})
	readerOff.Store(true)
	h.fill(t, rows...)
	second, err := h.tables.LoadTable(ctx, "sample")
	if err != nil {
		t.Fatal(err)
	}
	if got := second.Row(approved.row).Cells[approved.field]; got.Value != a.Value || got.Status != gas.StatusApproved {
		t.Errorf("approved cell %v changed to %+v", approved, got)
	}
	if got := second.Row(edited.row).Cells[edited.field]; got.Value != e.Value || got.Status != gas.StatusEdited {
		t.Errorf("edited cell %v changed to %+v", edited, got)
	}
	if got := second.Row(rejected.row).Cells[rejected.field]; got.Value == rejectedValue {
		t.Errorf("rejected value %q of %v was filled again", rejectedValue, rejected)
	}
	overwrote := 0
	for _, id := range rows {
		for _, fd := range gas.Fields() {
			was, now := first.Row(id).Cells[fd.Name], second.Row(id).Cells[fd.Name]
			if was.Value == now.Value || was.Value == "" {
				continue
			}
			r := ref{id, fd.Name}
			if r == approved || r == edited || r == rejected {
				continue
			}
			if was.Status != gas.StatusReview || now.Confidence < was.Confidence+DefaultOptions().OverwriteMargin {
				t.Errorf("%v: %s value %q (%.2f) replaced by %q (%.2f)", r, was.Status, was.Value, was.Confidence, now.Value, now.Confidence)
			}
			overwrote++
		}
	}
	if overwrote == 0 {
		t.Error("the second fill replaced no review value, though it proposed each at 0.99")
	}
	t.Logf("second fill replaced %d review values", overwrote)
}

func TestIdentityIsGroundedBeforeAnyCall(t *testing.T) {
	h := newHarness(t)
	scriptReader(t, h.srv, loadAnswerKey(t), new(atomic.Bool))
	table := &gas.Table{Name: "identity", Columns: []string{"Chemical Name", "CAS No."}, Rows: []*gas.Row{
		{ID: 1, Cells: map[string]gas.Cell{"chemical_name": {Value: "Phosphine", Status: gas.StatusOriginal}, "cas_number": {Value: "7784-42-1", Status: gas.StatusOriginal}}},
		{ID: 2, Cells: map[string]gas.Cell{"chemical_name": {Value: "Formaldehyde", Status: gas.StatusOriginal}, "cas_number": {Value: "50-00-0", Status: gas.StatusOriginal}}},
		{ID: 3, Cells: map[string]gas.Cell{"chemical_name": {Value: "Germane", Status: gas.StatusOriginal}}},
		{ID: 4, Cells: map[string]gas.Cell{"chemical_name": {Value: "Arsine", Status: gas.StatusOriginal}, "cas_number": {Value: "7784-42-1", Status: gas.StatusOriginal}}},
	}}
	results, err := h.filler.Fill(context.Background(), table, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		grounded bool
		why      string
	}{
		{false, "identity conflict"},
		{false, "no document in the knowledge base gives CAS 50-00-0"},
		{true, "CAS found by name"},
		{true, "CAS 7784-42-1 and the name found in"},
	}
	for i, w := range want {
		r := results[i]
		if r.Grounded != w.grounded || !strings.Contains(r.Identity, w.why) {
			t.Errorf("row %s: grounded %v (%s), want %v (%s)", r.Name, r.Grounded, r.Identity, w.grounded, w.why)
		}
		if !r.Grounded && r.Calls != 0 {
			t.Errorf("row %s: %d model calls for an ungrounded row", r.Name, r.Calls)
		}
	}
	if table.Rows[0].Cells["boiling_point_c"].Value != "" {
		t.Errorf("phosphine with arsine's CAS number was filled: %+v", table.Rows[0].Cells)
	}
	if got := table.Rows[3].Cells["boiling_point_c"].Value; got != "-62.5" {
		t.Errorf("arsine's boiling point = %q, want -62.5 from its supplier sheet", got)
	}
}

// A row without a chemical name is left alone: an empty name would match every passage, so any
// document that gives the row's CAS number, about whatever gases, would be read for it.
func TestRowWithoutANameIsNotFilled(t *testing.T) {
	h := newHarness(t)
	scriptReader(t, h.srv, loadAnswerKey(t), new(atomic.Bool))
	table := &gas.Table{Name: "nameless", Columns: []string{"Chemical Name", "CAS No."}, Rows: []*gas.Row{
		{ID: 1, Cells: map[string]gas.Cell{"cas_number": {Value: "7784-42-1", Status: gas.StatusOriginal}}},
		{ID: 2, Cells: map[string]gas.Cell{"chemical_name": {Value: " ", Status: gas.StatusOriginal}, "formula": {Value: "PH3", Status: gas.StatusOriginal}}},
	}}
	results, err := h.filler.Fill(context.Background(), table, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range results {
		if r.Grounded || r.Calls != 0 || len(r.Changes) != 0 || r.Err != "" || !strings.Contains(r.Identity, "no chemical name") {
			t.Errorf("row %d: grounded %v (%s), %d calls, %d changes, error %q", r.Row, r.Grounded, r.Identity, r.Calls, len(r.Changes), r.Err)
		}
		if n := len(table.Rows[i].Cells); n != i+1 {
			t.Errorf("row %d: %d cells after the fill: %+v", r.Row, n, table.Rows[i].Cells)
		}
	}
}

// A cell that a later tier fills again, more confidently, is one change of the row: counted
// once, saved against the cell as stored and logged as one decision.
func TestACellFilledTwiceInOneFillIsOneChange(t *testing.T) {
	h := newHarness(t)
	var calls atomic.Int32
	h.srv.Handle(&llmtest.Rule{Name: "sections", SchemaHas: "sections", Reply: func(c llmtest.Call) string {
		return reply(t, map[string]any{"sections": numbersListed(c.LastUser())})
	}})
	h.srv.Handle(&llmtest.Rule{Name: "twice", SchemaHas: "values", Reply: func(c llmtest.Call) string {
		confidence := 0.4 // the first tier: for review
		if calls.Add(1) > 1 {
			confidence = 0.95 // a later pass: a more confident value replaces it
		}
		return reply(t, map[string]any{"values": []map[string]any{
			// Passage 1 does not state it (a letterhead, a preface); passage 2 of each call does.
			{"field": "boiling_point_c", "value": "-62.5", "unit": "°C", "confidence": confidence, "source": 1}}})
	}})
	ctx := context.Background()
	arsine := h.table.RowByName("Arsine")
	if arsine == nil || !arsine.Cells["boiling_point_c"].IsEmpty() {
		t.Fatalf("the test needs arsine's boiling point empty in the sample: %+v", arsine)
	}
	results := h.fill(t, arsine.ID)
	if n := calls.Load(); n < 2 {
		t.Fatalf("%d extraction calls; the test needs two", n)
	}
	r := results[0]
	if r.Filled != 1 || len(r.Changes) != 1 {
		t.Fatalf("one cell filled, reported as %d filled in %d changes: %+v", r.Filled, len(r.Changes), r.Changes)
	}
	if c := r.Changes[0]; !c.Before.IsZero() || c.After.Confidence != 0.95 || !strings.Contains(c.Reason, "filled the empty cell") {
		t.Errorf("the change: before %+v, after %+v, reason %q", c.Before, c.After, c.Reason)
	}
	ds, err := h.tables.Decisions(ctx, "sample", arsine.ID, "boiling_point_c")
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 1 || ds[0].After.Confidence != 0.95 {
		t.Errorf("decisions logged for the cell: %+v", ds)
	}
}

// A row cut short by an interruption is not saved, and its result says it changed nothing:
// what a caller reports as filled must be what is stored.
func TestAnInterruptedRowReportsNothingFilled(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var calls atomic.Int32
	h.srv.Handle(&llmtest.Rule{Name: "sections", SchemaHas: "sections", Reply: func(c llmtest.Call) string {
		return reply(t, map[string]any{"sections": numbersListed(c.LastUser())})
	}})
	h.srv.Handle(&llmtest.Rule{Name: "then ctrl-c", SchemaHas: "values", Reply: func(c llmtest.Call) string {
		if calls.Add(1) > 1 {
			cancel() // Ctrl-C while the row's second extraction runs
			time.Sleep(100 * time.Millisecond)
		}
		return reply(t, map[string]any{"values": []map[string]any{
			{"field": "melting_point_c", "value": "-116", "unit": "°C", "confidence": 0.4, "source": 1}}})
	}})
	arsine := h.table.RowByName("Arsine")
	h.filler.Options.Concurrency = 1
	saved := 0
	results, err := h.filler.Fill(ctx, h.table, []int{arsine.ID}, func(*RowResult) error { saved++; return nil })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Fill returned %v, want the interruption", err)
	}
	if calls.Load() < 2 {
		t.Fatalf("%d extraction calls; the test needs the second one interrupted", calls.Load())
	}
	if r := results[0]; saved != 0 || r.Filled != 0 || len(r.Changes) != 0 {
		t.Errorf("an unsaved row (%d saves) reports %d filled, changes %+v", saved, r.Filled, r.Changes)
	}
}

func TestRejectedValuesLeaveOutUndoneRejections(t *testing.T) {
	was := gas.Cell{Value: "-62.5", Status: gas.StatusFilled}
	rejected := gas.Cell{Status: gas.StatusRejected}
	decisions := []gas.Decision{
		{ID: 1, Row: 2, Field: "boiling_point_c", Before: was, After: rejected},
		{ID: 2, Row: 2, Field: "boiling_point_c", Before: rejected, After: was, Undoes: 1},
		{ID: 3, Row: 3, Field: "boiling_point_c", Before: was, After: rejected},
	}
	got := RejectedValues(decisions)
	if got[gas.CellRef{Row: 2, Field: "boiling_point_c"}]["-62.5"] {
		t.Error("an undone rejection still blocks its value")
	}
	if !got[gas.CellRef{Row: 3, Field: "boiling_point_c"}]["-62.5"] {
		t.Error("a standing rejection does not block its value")
	}
}

// addArsineSOP adds a one-section SOP collection, embedded with the gateway's embed role.
func (h *harness) addArsineSOP(t *testing.T) {
	t.Helper()
	doc := &load.Document{ID: "sop/arsine-cylinder.md", Collection: "sop", Language: "en", Meta: map[string]string{},
		Sections: []load.Section{{Heading: "Arsine cylinder change", Text: "Arsine (CAS 7784-42-1): purge the pigtail with nitrogen before every change."}}}
	if _, err := h.kb.AddDocument(context.Background(), doc, llmkb.Embedder(h.filler.Gateway), load.DefaultChunkOptions, nil); err != nil {
		t.Fatal(err)
	}
}

// A row's query embeddings reach the fill's ledger under the node gasfill with the row's other
// calls, but are not counted as model calls of the row.
func TestRowQueryEmbeddingsAreInTheLedger(t *testing.T) {
	h := newHarness(t)
	scriptReader(t, h.srv, loadAnswerKey(t), new(atomic.Bool))
	ctx := context.Background()
	h.addArsineSOP(t)
	var mu sync.Mutex
	kinds := map[string]int{}
	h.filler.Ledger = func(e llm.LedgerEntry) {
		mu.Lock()
		defer mu.Unlock()
		if e.Node != "gasfill" {
			t.Errorf("a ledger entry of node %q", e.Node)
		}
		kinds[e.Kind]++
	}
	var arsine *gas.Row
	for _, r := range h.table.Rows {
		if r.Name() == "Arsine" {
			arsine = r
		}
	}
	res := h.filler.FillRow(ctx, llm.Call{}, arsine)
	if res.Err != "" {
		t.Fatal(res.Err)
	}
	if kinds["embed"] == 0 || res.Calls == 0 || res.Calls != kinds["structured"]+kinds["repair"]+kinds["length_retry"] {
		t.Errorf("the row's ledger holds %v; the row counts %d calls", kinds, res.Calls)
	}
}
