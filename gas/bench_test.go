package gas

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// benchTable builds rows × 47 columns: every cell has a value, about 40 % of them filled or
// for review with full provenance, the rest original.
func benchTable(rows int) *Table {
	t := &Table{Name: "bench"}
	for _, f := range fields {
		t.Columns = append(t.Columns, f.Label)
	}
	samples := map[Kind]string{KindString: "Flam. Gas 1; Press. Gas", KindCAS: "7803-62-5", KindUN: "UN2203", KindNumber: "1.11",
		KindTemperature: "-111.9", KindPressure: "48.4", KindPercent: "1.37", KindPPM: "5", KindRating: "3", KindBool: "yes",
		KindList: "H220; H250; H280"}
	for i := range rows {
		r := &Row{ID: i + 1, Cells: map[string]Cell{}}
		for j, f := range fields {
			v := samples[f.Kind]
			if f.Kind == KindEnum {
				v = f.Enum[0]
			}
			if f.Name == "chemical_name" {
				v = fmt.Sprintf("Gas %d", i+1)
			}
			c := Cell{Value: v, Unit: unitFor(f, v), Status: StatusOriginal}
			if j > 0 && (i*47+j)%5 < 2 { // 40 %
				c.Status, c.Confidence = StatusFilled, 0.82
				if (i+j)%2 == 0 {
					c.Status, c.Confidence = StatusReview, 0.45
				}
				c.Method, c.SourceDoc, c.SourceSection, c.SourceChunk = "extract", "sds-silane", "9.1 Physical properties", "sds-silane#12"
				c.Excerpt, c.UpdatedAt = "Boiling point: -111.9 °C at 1013 hPa", at
			}
			r.Cells[f.Name] = c
		}
		t.Rows = append(t.Rows, r)
	}
	return t
}

func BenchmarkExportXLSX2000(b *testing.B) {
	t := benchTable(2000)
	path := filepath.Join(b.TempDir(), "bench.xlsx")
	b.ResetTimer()
	for b.Loop() {
		if err := ExportXLSX(t, path); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/export")
	if info, err := os.Stat(path); err == nil {
		b.ReportMetric(float64(info.Size())/1e6, "MB")
	}
}

func BenchmarkImportXLSX2000(b *testing.B) {
	path := filepath.Join(b.TempDir(), "bench.xlsx")
	if err := ExportXLSX(benchTable(2000), path); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := ImportXLSX(path); err != nil {
			b.Fatal(err)
		}
	}
}
