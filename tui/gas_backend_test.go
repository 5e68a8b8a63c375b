package tui

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"warren/config"
	"warren/doctor"
	"warren/gas"
	"warren/internal/schema"
	"warren/kb"
	"warren/kb/chunk"
	"warren/llm/llmtest"
	"warren/service"
)

// gasBackend is the fixture with a real gas desk behind it: the service over a fresh
// workspace (SQLite, migrated as warren opens it), its tables saved there, and table questions
// and fills asked of a scripted Ollama server (none: no model is reachable).
type gasBackend struct {
	fixture
	svc   *service.Service
	store *gas.Store // the workspace's tables, to read and change behind the desk's back
}

func newGasBackend(t *testing.T, srv *llmtest.Server, tables ...*gas.Table) *gasBackend {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ws")
	if _, err := kb.Init(dir, schema.All()); err != nil {
		t.Fatal(err)
	}
	host := "127.0.0.1:9" // nothing listens there
	if srv != nil {
		host = srv.URL
	}
	flags := map[string]string{"ollama.host": host, "kb.embedder": "builtin",
		"ollama.backoff_base": "1ms", "ollama.backoff_max": "5ms", "ollama.timeout": "10s"}
	svc, err := service.Open(dir, config.Sources{Flags: flags}, service.Options{Owner: "analyst"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	be := &gasBackend{svc: svc, store: svc.GasStore()}
	for _, tab := range tables {
		if err := be.store.SaveTable(context.Background(), tab); err != nil {
			t.Fatal(err)
		}
	}
	return be
}

// desks is the fixture's workbench with the service's own gas desk (and jobs, to cancel a fill).
func (b *gasBackend) desks() Desks {
	d := desksOf(b.fixture, noTox{})
	d.Gas, d.Jobs = b.svc.Gas(), b.svc.Jobs()
	return d
}

var fixedTime = time.Date(2026, 11, 21, 10, 15, 0, 0, time.UTC)

// withPage puts the source passage of c on a page of a scanned PDF.
func withPage(c gas.Cell, p chunk.PageRef) gas.Cell {
	c.SourcePage = p
	return c
}

// gasFixture is a small table with a cell of every status: original values from the sheet,
// values filled at high and at low confidence (review), approved, edited and rejected ones.
func gasFixture() *gas.Table {
	orig := func(v string) gas.Cell { return gas.Cell{Value: v, Status: gas.StatusOriginal} }
	origU := func(v, unit string) gas.Cell { return gas.Cell{Value: v, Unit: unit, Status: gas.StatusOriginal} }
	fill := func(v, unit string, conf float64, doc, section, excerpt string) gas.Cell {
		st := gas.StatusFilled
		if conf < gas.HighConfidence {
			st = gas.StatusReview
		}
		return gas.Cell{Value: v, Unit: unit, Status: st, Confidence: conf, Method: "extract", SourceDoc: doc,
			SourceSection: section, SourceChunk: doc + "#0003", Excerpt: excerpt, UpdatedAt: fixedTime}
	}
	silane := "suppliers/nordgas-silane.md"
	arsine := "suppliers/nordgas-arsine.md"
	inert := "suppliers/nordgas-inert-gases.md"
	rows := []map[string]gas.Cell{
		{
			"chemical_name": orig("Silane"), "cas_number": orig("7803-62-5"), "formula": orig("SiH4"),
			"un_number": fill("UN2203", "", 0.88, silane, "14 Transport information", "UN number: UN2203. Proper shipping name: SILANE, COMPRESSED."),
			"boiling_point_c": fill("-112", "°C", 0.92, silane, "9 Physical and chemical properties",
				"Boiling point: -112 °C at 1013 hPa. Melting point: -185 °C. Silane ignites spontaneously in air; releases must be treated as fires."),
			"autoignition_c": gas.Cell{Value: "21", Unit: "°C", Status: gas.StatusReview, Confidence: 0.45, Method: "extract", SourceDoc: "standards/gas-cabinet-procedure.md",
				SourceSection: "5.3", Excerpt: "Pyrophoric gases such as silane ignite below room temperature (about 21 °C).", Note: "general pass: confidence below 0.7", UpdatedAt: fixedTime},
			"lel_vol_pct":       {Value: "1.37", Unit: "vol %", Status: gas.StatusApproved, Confidence: 0.9, Method: "extract", SourceDoc: silane, SourceSection: "9", UpdatedAt: fixedTime},
			"uel_vol_pct":       {Value: "96", Unit: "vol %", Status: gas.StatusEdited, Method: "analyst", Note: "edited by the analyst: was 100 vol % (source " + silane + ")", UpdatedAt: fixedTime},
			"flash_point_c":     {Status: gas.StatusRejected, Note: "rejected by the analyst: was -50 °C (source " + silane + ")", UpdatedAt: fixedTime},
			"hmis_flammability": fill("4", "", 0.8, silane, "2 Hazards identification", "HMIS: health 2, flammability 4, physical hazard 3."),
			"physical_state":    orig("gas"), "pyrophoric": orig("yes"), "ghs02_flammable": orig("yes"),
		},
		{
			"chemical_name": orig("Arsine"), "cas_number": orig("7784-42-1"), "formula": orig("AsH3"),
			"un_number":       fill("UN2188", "", 0.4, arsine, "14", "UN2188 ARSINE, 2.3 (2.1)"),
			"boiling_point_c": fill("-62.5", "°C", 0.55, arsine, "9", "Boiling point -62.5 °C"),
			"idlh_ppm":        fill("3", "ppm", 0.85, arsine, "8", "IDLH 3 ppm"),
			"tlv_twa_ppm":     fill("0.005", "ppm", 0.75, arsine, "8", "TLV-TWA 0.005 ppm"),
			"physical_state":  orig("gas"), "pyrophoric": orig("no"),
		},
		{
			"chemical_name": orig("Nitrogen"), "cas_number": orig("7727-37-9"), "formula": orig("N2"),
			"boiling_point_c":        fill("-195.8", "°C", 0.9, inert, "9", "Boiling point: -195.8 °C"),
			"melting_point_c":        {Value: "-210", Unit: "°C", Status: gas.StatusFilled, Confidence: 0.65, Method: "extract", SourceDoc: inert, UpdatedAt: fixedTime},
			"critical_temperature_c": fill("-147", "°C", 0.8, inert, "9", "Critical temperature -147 °C"),
			"odour":                  fill("odourless", "", 0.5, inert, "9", "Odour: none"),
			"physical_state":         orig("gas"), "lel_vol_pct": orig("n/a"),
		},
		{
			"chemical_name": orig("Hydrogen"), "cas_number": orig("1333-74-0"), "formula": orig("H2"),
			"boiling_point_c": origU("-252.9", "°C"), "hmis_flammability": orig("4"), "physical_state": orig("gas"),
		},
		{
			"chemical_name": orig("Phosphine"), "cas_number": orig("7803-51-2"), "formula": orig("PH3"),
			"hazard_class": withPage(fill("Flam. Gas 1; Acute Tox. 1", "", 0.6, "suppliers/veridian-phosphine.pdf", "2", "Flam. Gas 1, Acute Tox. 1 (inhalation)"),
				chunk.PageRef{Page: 3, Kind: chunk.KindPage, OCR: true, OCRConfidence: 88}),
		},
	}
	t := &gas.Table{Name: "fab-k2"}
	for _, f := range gas.Fields() {
		t.Columns = append(t.Columns, f.Label)
	}
	for i, cells := range rows {
		t.Rows = append(t.Rows, &gas.Row{ID: i + 1, Cells: cells})
	}
	return t
}

// gasDesk opens the workbench at a size on the Gas tab with the backend's first table loaded.
func gasDesk(t *testing.T, be *gasBackend, w, h int) *Model {
	t.Helper()
	m := New(be.desks())
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	m.Update(doctorMsg{report: doctor.Report{OK: true}})
	m.OpenGas("")
	settle(t, m, drain(m.gas.Load())...)
	if m.gas.Snapshot().Table == nil {
		t.Fatal("no gas table loaded")
	}
	return m
}

// settle feeds messages to the workbench and runs the commands they return, as the program
// does, except the status line's expiry timer. It returns the status texts shown.
func settle(t *testing.T, m *Model, msgs ...tea.Msg) []string {
	t.Helper()
	var status []string
	for steps := 0; len(msgs) > 0; steps++ {
		if steps > 100 {
			t.Fatal("the messages never settle")
		}
		msg := msgs[0]
		msgs = msgs[1:]
		if msg == nil {
			continue
		}
		_, cmd := m.Update(msg)
		if s, ok := msg.(statusMsg); ok {
			status = append(status, s.Text) // its command is the timer that clears it
			continue
		}
		msgs = append(msgs, drain(cmd)...)
	}
	return status
}

// keys turns "a", "enter", "ctrl+u" and the like into key presses; type sends text.
func keys(names ...string) []tea.Msg {
	special := map[string]tea.Key{"enter": {Code: tea.KeyEnter}, "esc": {Code: tea.KeyEscape}, "up": {Code: tea.KeyUp},
		"down": {Code: tea.KeyDown}, "left": {Code: tea.KeyLeft}, "right": {Code: tea.KeyRight},
		"ctrl+u": {Code: 'u', Mod: tea.ModCtrl}, "home": {Code: tea.KeyHome},
		"ctrl+x": {Code: 'x', Mod: tea.ModCtrl}, "ctrl+o": {Code: 'o', Mod: tea.ModCtrl}, "ctrl+s": {Code: 's', Mod: tea.ModCtrl},
		"alt+1": {Code: '1', Mod: tea.ModAlt}, "alt+2": {Code: '2', Mod: tea.ModAlt}, "alt+3": {Code: '3', Mod: tea.ModAlt},
		"alt+4": {Code: '4', Mod: tea.ModAlt}, "alt+5": {Code: '5', Mod: tea.ModAlt}}
	var out []tea.Msg
	for _, n := range names {
		if k, ok := special[n]; ok {
			out = append(out, tea.KeyPressMsg(k))
			continue
		}
		for _, r := range n {
			out = append(out, tea.KeyPressMsg{Code: r, Text: string(r)})
		}
	}
	return out
}

// press sends keys one at a time, each settled before the next.
func press(t *testing.T, m *Model, names ...string) []string {
	t.Helper()
	var status []string
	for _, k := range keys(names...) {
		status = append(status, settle(t, m, k)...)
	}
	return status
}
