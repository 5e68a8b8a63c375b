package gas

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"warren/internal/shareddata"
)

// Fuzz targets for the gas-table importers. Both write the fuzz bytes to a file (the importers
// take paths), check what any imported table must satisfy, and export it and import it again:
// an export must give back the cells the import read.

// headLines returns the first n lines of a file.
func headLines(f *testing.F, path string, n int) []byte {
	data, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	return bytes.Join(lines[:min(n, len(lines))], nil)
}

// csvSeeds are the sample tables and heads of the shared chemical tables (tab-separated,
// kelvin headers, other column names), read at setup, never copied.
func csvSeeds(f *testing.F) [][]byte {
	var out [][]byte
	for _, name := range []string{"hmis-sample.csv", "hmis-sample-blanked.csv"} {
		p := shareddata.Project(f, filepath.Join("sample", "gas", name))
		out = append(out, headLines(f, p, 6))
	}
	out = append(out, headLines(f, shareddata.Project(f, "sample/gas/hmis-sample.csv"), 1000))
	for _, rel := range []string{"chem/calebbell/NFPA 497 2008.tsv", "chem/calebbell/IS IEC 60079-20-1 2010.tsv",
		"chem/calebbell/Yaws Boiling Points.tsv", "chem/echa-clp/clp.csv"} {
		if p := shareddata.Seeds(f, rel); p != "" {
			out = append(out, headLines(f, p, 8))
		}
	}
	return out
}

func FuzzImportCSV(f *testing.F) {
	for _, s := range csvSeeds(f) {
		f.Add(s)
	}
	f.Add([]byte("\xef\xbb\xbfChemical Name;CAS-Nr.;Siedepunkt (°C);UEG (%);H-Sätze\r\nSilan;7803-62-5;-111,9;1,37;\"H220; H250\"\r\n"))
	f.Add([]byte("Name,Boiling point [K],,Cabinet\nSilane,161,x,GC-3\nSilane,\"12\"\" cyl\",,\n"))
	f.Add([]byte("Chemical Name,Chemical Name,Boiling Point (°C)\n\"unterminated"))

	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "gases.csv")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		tab, err := ImportCSV(path)
		if err != nil {
			return
		}
		checkImported(t, tab, "gases")
		roundTrip(t, tab)
	})
}

func FuzzImportXLSX(f *testing.F) {
	dir := f.TempDir()
	// A workbook warren exported (with a Provenance sheet), from the sample table.
	csvPath := filepath.Join(dir, "sample.csv")
	if err := os.WriteFile(csvPath, headLines(f, shareddata.Project(f, "sample/gas/hmis-sample.csv"), 5), 0o644); err != nil {
		f.Fatal(err)
	}
	tab, err := ImportCSV(csvPath)
	if err != nil {
		f.Fatal(err)
	}
	tab.Rows[0].Set("boiling_point_c", Cell{Value: "-111.9", Unit: "°C", Status: StatusFilled, Confidence: 0.85,
		Method: "extract", SourceDoc: "sds-silane", Excerpt: "Boiling point: -111.9 °C", UpdatedAt: time.Date(2026, 3, 1, 12, 30, 15, 0, time.UTC)})
	tab.Rows[1].Set("lel_vol_pct", Cell{Status: StatusRejected, Note: "wrong gas"})
	exported := filepath.Join(dir, "export.xlsx")
	if err := ExportXLSX(tab, exported); err != nil {
		f.Fatal(err)
	}
	data, err := os.ReadFile(exported)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	// A plain workbook with a title row, from the shared NFPA 497 table.
	if p := shareddata.Seeds(f, "chem/calebbell/NFPA 497 2008.tsv"); p != "" {
		wb := excelize.NewFile()
		wb.SetCellValue("Sheet1", "A1", "NFPA 497 (2008), temperatures in K")
		for i, line := range strings.Split(string(headLines(f, p, 6)), "\n") {
			for j, v := range strings.Split(strings.TrimRight(line, "\r"), "\t") {
				cell, _ := excelize.CoordinatesToCellName(j+1, i+3)
				wb.SetCellValue("Sheet1", cell, v)
			}
		}
		var buf bytes.Buffer
		if err := wb.Write(&buf); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes())
	}

	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "gases.xlsx")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		tab, err := ImportXLSX(path)
		if err != nil {
			return
		}
		checkImported(t, tab, "")
		roundTrip(t, tab)
	})
}

// checkImported asserts what every imported table satisfies: rows numbered from 1, unique
// column names, cells only for known fields with a valid status, and original values already in
// canonical form. name is the table's expected name ("" when a workbook may set its own).
func checkImported(t *testing.T, tab *Table, name string) {
	if name != "" && tab.Name != name {
		t.Fatalf("table name %q, want %q", tab.Name, name)
	}
	cols := map[string]bool{}
	for _, c := range tab.Columns {
		if cols[strings.ToLower(c)] {
			t.Fatalf("column %q twice in %q", c, tab.Columns)
		}
		cols[strings.ToLower(c)] = true
	}
	for i, r := range tab.Rows {
		if r.ID != i+1 {
			t.Fatalf("row %d has ID %d", i+1, r.ID)
		}
		for fn, c := range r.Cells {
			f, ok := FieldByName(fn)
			if !ok || !c.Status.Valid() || c.IsZero() {
				t.Fatalf("row %d: bad cell %s %+v", r.ID, fn, c)
			}
			if c.Status == StatusOriginal {
				if v, err := Normalize(f, c.Value, ""); err != nil || v != c.Value {
					t.Fatalf("row %d %s: original value %q isn't canonical (%q, %v)", r.ID, fn, c.Value, v, err)
				}
			}
		}
		for h := range r.Extra {
			if !cols[strings.ToLower(h)] {
				t.Fatalf("row %d: extra value under %q, which is no column of %q", r.ID, h, tab.Columns)
			}
		}
	}
}

// roundTrip exports the table and imports the export: every row must come back with the same
// cells and extra values.
func roundTrip(t *testing.T, tab *Table) {
	path := filepath.Join(t.TempDir(), "export.xlsx")
	if err := ExportXLSX(tab, path); err != nil {
		t.Fatalf("export: %v", err)
	}
	got, err := ImportXLSX(path)
	if err != nil {
		t.Fatalf("an export doesn't import: %v", err)
	}
	if got.Name != tab.Name || len(got.Rows) != len(tab.Rows) {
		t.Fatalf("export and import: name %q, %d rows; want %q, %d rows", got.Name, len(got.Rows), tab.Name, len(tab.Rows))
	}
	for i, w := range tab.Rows {
		g := got.Rows[i]
		for _, f := range Fields() {
			if gc, wc := g.Cells[f.Name], w.Cells[f.Name]; !sameCell(gc, wc) {
				t.Fatalf("row %d %s after export and import:\n got %+v\nwant %+v", w.ID, f.Name, gc, wc)
			}
		}
		if len(g.Extra) != len(w.Extra) {
			t.Fatalf("row %d extra after export and import: %q, want %q", w.ID, g.Extra, w.Extra)
		}
		for h, v := range w.Extra {
			if g.Extra[h] != v {
				t.Fatalf("row %d extra %q after export and import: %q, want %q", w.ID, h, g.Extra[h], v)
			}
		}
	}
}
