package tablequery

import (
	"strconv"
	"testing"

	"warren/gas"
	"warren/internal/shareddata"
)

// sampleTable is sample/gas/hmis-sample.csv as `warren gas query` sees it (service.QuerySchema
// and QueryRows, which this package can't import): the HMIS fields, each typed by its kind and
// documented by its column label, the typed rows and their names. The sample is clean, so a
// value that doesn't parse fails the test rather than becoming nil.
func sampleTable(tb testing.TB) (Schema, []map[string]any, []string) {
	tb.Helper()
	table, err := gas.ImportCSV(shareddata.Project(tb, "sample/gas/hmis-sample.csv"))
	if err != nil {
		tb.Fatal(err)
	}
	var schema Schema
	for _, f := range gas.Fields() {
		typ := TypeString
		switch f.Kind {
		case gas.KindNumber, gas.KindTemperature, gas.KindPressure, gas.KindPercent, gas.KindPPM:
			typ = TypeNumber
		case gas.KindRating:
			typ = TypeInt
		case gas.KindBool:
			typ = TypeBool
		}
		schema = append(schema, Field{Name: f.Name, Type: typ, Unit: f.Unit, Doc: f.Label})
	}
	rows := make([]map[string]any, len(table.Rows))
	names := make([]string, len(table.Rows))
	for i, r := range table.Rows {
		names[i] = r.Name()
		m := map[string]any{}
		for _, f := range schema {
			v := r.Cells[f.Name].Value
			var err error
			switch {
			case v == "":
				m[f.Name] = nil
			case f.Type == TypeNumber:
				m[f.Name], err = strconv.ParseFloat(v, 64)
			case f.Type == TypeInt:
				m[f.Name], err = strconv.Atoi(v)
			case f.Type == TypeBool:
				m[f.Name] = v == "yes"
				if v != "yes" && v != "no" {
					err = strconv.ErrSyntax
				}
			default:
				m[f.Name] = v
			}
			if err != nil {
				tb.Fatalf("%s %s %q: %v", names[i], f.Name, v, err)
			}
		}
		rows[i] = m
	}
	return schema, rows, names
}
