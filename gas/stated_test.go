package gas

import (
	"strings"
	"testing"
	"time"
)

func TestStated(t *testing.T) {
	letterhead := "Nordgas Spezialgase AG, Electronic Gases Division. Prepared for Kestrel Silicon GmbH, Fab K2."
	tests := []struct {
		field, value, passage string
		molar                 float64
		want                  string // the words that state it, "" when the passage does not
	}{
		{"boiling_point_c", "-62.5", "- Boiling point: −62.5 °C (210.67 K)", 0, "−62.5 °C"},
		{"boiling_point_c", "-62.5", "boiling point −62.48 °C (210.67 K)", 0, "−62.48 °C"}, // the field keeps one decimal
		{"boiling_point_c", "-62.5", "Siedepunkt: -62,5 °C", 0, "-62,5 °C"},
		{"boiling_point_c", "-62.5", "boils at 210.65 K", 0, "210.65 K"},
		{"boiling_point_c", "-62.5", letterhead, 0, ""},
		{"boiling_point_c", "62.5", "Boiling point: 162.5 °C", 0, ""},
		{"lel_vol_pct", "4", "Flammability limits in air: 4.0 to 77 vol %", 0, "4.0"},
		{"uel_vol_pct", "77", "Flammability limits in air: 4.0 to 77 vol %", 0, "77 vol %"},
		{"uel_vol_pct", "77", "| Arsine | 7784-42-1 | 2188 |", 0, ""},
		{"tlv_twa_ppm", "0.5", "TWA 0.05 ppm", 0, ""},
		{"tlv_twa_ppm", "0.005", "molar mass 77.95 g/mol; TWA 0.016 mg/m³", 0, "0.016 mg/m³"},
		{"tlv_twa_ppm", "0.005", "TWA 0.016 mg/m³", 77.95, "0.016 mg/m³"},
		{"molecular_weight", "77.95", "Molare Masse 77,95 g/mol", 0, "77,95 g/mol"},
		{"density_kg_m3", "1200", "density 1.2 g/cm³", 0, "1.2 g/cm³"},
		{"cas_number", "7784-42-1", "CAS number: 7784-42-1", 0, "7784-42-1"},
		{"cas_number", "7784-42-1", "EC 17784-42-1", 0, ""},
		{"un_number", "UN2188", "UN number: UN 2188", 0, "UN 2188"},
		{"un_number", "UN2188", "Sheet NSG-SDS-2188", 0, ""},
		{"hmis_health", "3", "HMIS: Health 3, Flammability 4, Physical 3", 0, "Health 3"},
		{"hmis_health", "3", "Store below 3 bar.", 0, ""},
		{"pyrophoric", "no", "- Not pyrophoric: the autoignition temperature is far above ambient.", 0, "Not pyrophoric"},
		{"pyrophoric", "no", letterhead, 0, ""}, // "no" is not in "Nordgas"
		{"pyrophoric", "yes", "Pyrophoric gas, category 1", 0, "Pyrophoric"},
		{"ghs02_flammable", "yes", "Pictograms: GHS02 (flame), GHS04", 0, "GHS02"},
		{"ghs05_corrosive", "no", "Pictograms: GHS02 (flame), GHS04", 0, ""}, // absence is no statement
		{"physical_state", "gas", "- State at 20 °C: gas", 0, "State at 20 °C: gas"},
		{"physical_state", "gas", letterhead + " Specialty gases.", 0, ""},
		{"physical_state", "gas", "supplied as a liquefied gas", 0, "liquefied gas"},
		{"signal_word", "Danger", "- Signal word: Danger", 0, "Signal word: Danger"},
		{"signal_word", "Danger", "Danger of explosion when heated.", 0, ""},
		{"hazard_class", "no harmonised classification", "CLP Annex VI | no harmonised classification |", 0, "no harmonised classification"},
		{"hazard_class", "no harmonised classification", letterhead, 0, ""},
		{"hazard_class", "Flam. Gas 1; Press. Gas", "Flam. Gas 1;\nPress. Gas; Acute Tox. 2", 0, "Flam. Gas 1;\nPress. Gas"},
		{"h_statements", "H220; H330", "H220 Extremely flammable gas. H280 … H330 Fatal if inhaled.", 0, "H220 Extremely flammable gas. H280 … H330"},
		{"h_statements", "H220; H330", "H2200 and H330", 0, ""},
		{"formula", "SiH4", "Formula: SiH₄", 0, "SiH₄"},
		{"flash_point_c", NotApplicable, "Flash point: not applicable (gas)", 0, "not applicable"},
	}
	for _, tt := range tests {
		f, ok := FieldByName(tt.field)
		if !ok {
			t.Fatalf("no field %s", tt.field)
		}
		sp, ok := Stated(f, tt.value, tt.passage, tt.molar)
		got := ""
		if ok {
			got = tt.passage[sp.Start:sp.End]
		}
		if got != tt.want {
			t.Errorf("Stated(%s = %q in %q) = %q, want %q", tt.field, tt.value, tt.passage, got, tt.want)
		}
	}
}

// An unsupported value is kept for review but never stands as a value: a fill may replace it
// like an empty cell, the table counts it apart from the filled ones, and an export writes it
// only in the note.
func TestUnsupportedCell(t *testing.T) {
	u := Cell{Value: "-62.5", Unit: "°C", Status: StatusUnsupported, Confidence: 0.95, Method: "tier:suppliers",
		SourceDoc: "nordgas-arsine", Note: "the model read \"-62.5\" from nordgas-arsine, which does not state it", UpdatedAt: time.Now().UTC()}
	if !u.Fillable() || u.IsEmpty() {
		t.Errorf("fillable %v, empty %v: an unsupported cell is fillable and not empty", u.Fillable(), u.IsEmpty())
	}
	got, changed, reason := Merge(u, Cell{Value: "-62.5", Confidence: 0.5}, DefaultMinConfidence, DefaultOverwriteMargin)
	if !changed || got.Status != StatusReview || !strings.Contains(reason, "no passage stated") {
		t.Errorf("a stated value did not replace the unsupported one: %+v, %v, %q", got, changed, reason)
	}

	tab := &Table{Name: "t", Columns: []string{"Chemical Name", "Boiling Point (°C)"}, Rows: []*Row{{ID: 1, Cells: map[string]Cell{
		"chemical_name": {Value: "Arsine", Status: StatusOriginal}, "boiling_point_c": u}}}}
	if c := tab.Counts(); c[StatusUnsupported] != 1 || c[StatusFilled] != 0 {
		t.Errorf("counts %v", c)
	}
	found := false
	for _, ref := range tab.EmptyCells() {
		found = found || ref.Field == "boiling_point_c"
	}
	if !found {
		t.Error("a fill does not ask for the unsupported cell")
	}

	f, path := exportOpen(t, tab)
	if v, _ := f.GetCellValue(SheetHMIS, "B2"); v != "" {
		t.Errorf("the sheet holds %q for an unsupported value", v)
	}
	rows, err := f.GetRows(SheetProvenance)
	if err != nil || len(rows) != 2 {
		t.Fatalf("provenance rows %q (%v)", rows, err)
	}
	col := map[string]int{}
	for j, h := range rows[0] {
		col[h] = j
	}
	rec := rows[1]
	if rec[col["Value"]] != "" || rec[col["Status"]] != string(StatusUnsupported) || !strings.Contains(rec[col["Note"]], `unsupported value "-62.5"`) {
		t.Errorf("provenance record %q", rec)
	}
	comments, err := f.GetComments(SheetHMIS)
	text := ""
	for _, c := range comments {
		text += c.Text
		for _, p := range c.Paragraph {
			text += p.Text
		}
	}
	if err != nil || len(comments) != 1 || !strings.Contains(text, "warren: unsupported") || strings.Contains(text, "-62.5 °C") {
		t.Errorf("comments %q (%v)", text, err)
	}
	// Back in: still unsupported, no value, the reason kept.
	back, err := ImportXLSX(path)
	if err != nil {
		t.Fatal(err)
	}
	c := back.Rows[0].Cells["boiling_point_c"]
	if c.Value != "" || c.Status != StatusUnsupported || !strings.Contains(c.Note, "does not state it") {
		t.Errorf("after the round trip: %+v", c)
	}
}
