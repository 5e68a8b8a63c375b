package gas

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestImportCSV(t *testing.T) {
	cases := []struct {
		name, content string
	}{
		{"semicolons with BOM", "\xef\xbb\xbfChemical Name;CAS-Nr.;Siedepunkt (°C);UEG (%);H-Sätze;Bemerkung\r\n" +
			"Silan;7803-62-5;-111,9;1,37;\"H220; H250; H280\";\"Schrank 3; trocken\"\r\n" +
			";;;;;\r\n" +
			"Wasserstoff;1333-74-0;-252,9;4;H220, H280;\r\n"},
		{"commas without BOM", "Chemical Name,CAS-Nr.,Siedepunkt (°C),UEG (%),H-Sätze,Bemerkung\n" +
			"Silan,7803-62-5,\"-111,9\",\"1,37\",H220; H250; H280,Schrank 3; trocken\n" +
			"\n" +
			"Wasserstoff,1333-74-0,-252.9,4,\"H220, H280\",\n"},
		{"tabs", "Chemical Name\tCAS-Nr.\tSiedepunkt (°C)\tUEG (%)\tH-Sätze\tBemerkung\n" +
			"Silan\t7803-62-5\t-111.9\t1.37\tH220; H250; H280\tSchrank 3; trocken\n" +
			"Wasserstoff\t1333-74-0\t-252.9\t4\tH220 H280\t\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "gases.csv")
			if err := os.WriteFile(path, []byte(c.content), 0o644); err != nil {
				t.Fatal(err)
			}
			tab, err := ImportCSV(path)
			if err != nil {
				t.Fatal(err)
			}
			wantCols := []string{"Chemical Name", "CAS-Nr.", "Siedepunkt (°C)", "UEG (%)", "H-Sätze", "Bemerkung"}
			if tab.Name != "gases" || !reflect.DeepEqual(tab.Columns, wantCols) || len(tab.Rows) != 2 {
				t.Fatalf("name %q, columns %q, %d rows", tab.Name, tab.Columns, len(tab.Rows))
			}
			want := []map[string]string{
				{"chemical_name": "Silan", "cas_number": "7803-62-5", "boiling_point_c": "-111.9", "lel_vol_pct": "1.37", "h_statements": "H220; H250; H280"},
				{"chemical_name": "Wasserstoff", "cas_number": "1333-74-0", "boiling_point_c": "-252.9", "lel_vol_pct": "4", "h_statements": "H220; H280"},
			}
			for i, w := range want {
				r := tab.Rows[i]
				if r.ID != i+1 || len(r.Cells) != len(w) {
					t.Errorf("row %d: ID %d, cells %v", i, r.ID, r.Cells)
				}
				for fn, v := range w {
					if c := r.Cells[fn]; c.Value != v || c.Status != StatusOriginal {
						t.Errorf("row %d %s = %+v, want %q", i+1, fn, c, v)
					}
				}
			}
			if got := tab.Rows[0].Extra["Bemerkung"]; got != "Schrank 3; trocken" {
				t.Errorf("extra %q", got)
			}
			if tab.Rows[1].Extra != nil {
				t.Errorf("empty extra %q", tab.Rows[1].Extra)
			}
		})
	}
}

// A stray quote inside a field is tolerated; an unterminated quoted field is an error (see
// TestImportMalformedFiles).
func TestImportCSVStrayQuote(t *testing.T) {
	path := filepath.Join(t.TempDir(), "inch.csv")
	if err := os.WriteFile(path, []byte("Chemical Name;Remarks\nSilane;12\" cylinder\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tab, err := ImportCSV(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := tab.Rows[0].Extra["Remarks"]; got != `12" cylinder` {
		t.Errorf("remarks %q", got)
	}
}
