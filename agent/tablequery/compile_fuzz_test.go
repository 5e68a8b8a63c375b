package tablequery

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"
)

// FuzzCompile compiles an expression against the real gas-table schema. An expression is
// either refused with a *QueryError or runs on every row of the sample table without failing
// the run, and matching rows one at a time gives the same rows as matching them together.
func FuzzCompile(f *testing.F) {
	schema, rows, _ := sampleTable(f)
	rows = append(rows, map[string]any{}, nil) // a row with no values, and a missing one
	for _, e := range []string{
		`hazard_class contains "Flammable" and empty(cas_number)`,
		`has(flash_point_c) and flash_point_c < 0`,
		`hmis_health >= 3 or pyrophoric`,
		`not ghs06_toxic`,
		`chemical_name in ["Argon", "Hydrogen"]`,
		`lower(chemical_name) startsWith "ar" || formula endsWith "H4"`,
		`any_text contains "silane"`,
		`cas_number == nil`,
		`ghs02_flammable == true && !(hmis_flammability > 2)`,
		"```expr\nhmis_health > 1\n```",
		"`lel_vol_pct < 5`",
		`SELECT * FROM gases WHERE boiling_point_c < -100`,
		`boiling_point_c < -100 ? idlh_ppm < 1 : tlv_twa_ppm / molecular_weight > 0.1`,
		`len(filter(split(h_statements, "; "), # startsWith "H33")) > 1`,
		`chemical_name matches "^(?i)s.*ne$" and abs(critical_temperature_c) < 1e3`,
		`let x = hmis_health; x ?? 0 > 2`,
		`flash_point_c < "0"`,
		`chemical_nam == "Silane"`,
	} {
		f.Add(e)
	}
	// The expressions of the table-question tests, written for a smaller stand-in schema: their
	// names are unknown here, which exercises the did-you-mean path.
	f.Add(`health >= 3 or toxic`)
	f.Add(`name in ["Argon", "Hydrogen"]`)

	f.Fuzz(func(t *testing.T, expression string) {
		program, err := Compile(schema, expression)
		if err != nil {
			var qe *QueryError
			if !errors.As(err, &qe) || qe.Message == "" {
				t.Fatalf("Compile(%q): %T %v, want a *QueryError", expression, err, err)
			}
			return
		}
		// An expression that runs away (a huge range, say) would stall the fuzzer; it must be
		// saved as a finding instead.
		watchdog := time.AfterFunc(10*time.Second, func() { panic(fmt.Sprintf("Run(%q) still running after 10s", expression)) })
		all, err := Run(program, rows)
		var one []int
		for i, r := range rows {
			if hit, _ := Run(program, []map[string]any{r}); len(hit) == 1 {
				one = append(one, i)
			}
		}
		watchdog.Stop()
		if err != nil {
			return // the expression fails on every row: the caller reports that
		}
		for i, idx := range all {
			if idx < 0 || idx >= len(rows) || (i > 0 && all[i-1] >= idx) {
				t.Fatalf("Run(%q) gave row indexes %v for %d rows", expression, all, len(rows))
			}
		}
		if !reflect.DeepEqual(all, one) {
			t.Fatalf("%q matches rows %v together but %v one at a time", expression, all, one)
		}
	})
}
