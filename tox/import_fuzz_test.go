package tox

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"warren/internal/shareddata"
)

// Fuzz targets for the toxicology import readers. They stop short of the store (a database per
// input would starve the fuzzer): a profile the readers accept is built as an import would
// build it, and it must be valid, and its canonical form must parse back to itself, since that
// is what the store saves and loads.

// checkStored asserts that p is what the store can save and load again unchanged.
func checkStored(t *testing.T, p *Profile, where string) {
	if err := p.Validate(); err != nil {
		t.Fatalf("%s: an accepted profile is invalid: %v", where, err)
	}
	canon, err := p.Canonical()
	if err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	back, err := Parse(canon)
	if err != nil {
		t.Fatalf("%s: the canonical form of an accepted profile doesn't parse: %v\n%s", where, err, canon)
	}
	again, err := back.Canonical()
	if err != nil || !bytes.Equal(again, canon) {
		t.Fatalf("%s: canonical form not stable:\n%s\n%s", where, canon, again)
	}
}

func FuzzReadJSONProfiles(f *testing.F) {
	data, err := os.ReadFile(shareddata.Project(f, "sample/tox/profiles.json"))
	if err != nil {
		f.Fatal(err)
	}
	var records []json.RawMessage
	if err := json.Unmarshal(data, &records); err != nil {
		f.Fatal(err)
	}
	for i, r := range records {
		if i < 4 {
			f.Add([]byte(r)) // one profile object
		}
	}
	f.Add([]byte("[" + string(records[0]) + ",\n" + string(records[1]) + "]"))
	f.Add([]byte("\ufeff [ ]"))
	f.Add([]byte(`[{"inci":"A"},{"inci":"a "}] x`))
	f.Add([]byte(`{"inci":"RETINOL","cas":"68-26-8","noael":[{"value":1e308,"unit":"mg/kg bw/day","type":"NOAEL","duration_days":-0}]}`))

	f.Fuzz(func(t *testing.T, data []byte) {
		items, errs := readJSONProfiles(data)
		if len(errs) == 0 && len(items) == 0 {
			t.Fatal("neither profiles nor errors")
		}
		if len(errs) > 0 {
			return // the file imports nothing
		}
		seen := map[string]bool{}
		for _, it := range items {
			if seen[Key(it.inci)] {
				t.Fatalf("%s occurs twice but was accepted", it.inci)
			}
			seen[Key(it.inci)] = true
			p, err := it.build(nil)
			if err != nil {
				t.Fatalf("%s: %v", it.where, err)
			}
			if p.INCI != it.inci {
				t.Fatalf("%s: built %q", it.inci, p.INCI)
			}
			checkStored(t, p, it.where)
		}
	})
}

// efsaRows turns the head of EFSA OpenFoodTox reference points into rows of the import format,
// so the seeds carry real names, species, routes, units and durations.
func efsaRows(f *testing.F) string {
	p := shareddata.Seeds(f, "tox/efsa-openfoodtox-2022/ReferencePoints_KJ_2022.csv")
	if p == "" {
		return ""
	}
	file, err := os.Open(p)
	if err != nil {
		f.Fatal(err)
	}
	defer file.Close()
	r := csv.NewReader(bufio.NewReader(file))
	r.FieldsPerRecord = -1
	head, err := r.Read()
	if err != nil {
		f.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[strings.TrimPrefix(h, "\ufeff")] = i
	}
	var b strings.Builder
	w := csv.NewWriter(&b)
	w.Write(CSVColumns)
	for n := 0; n < 12; n++ {
		rec, err := r.Read()
		if err != nil {
			break
		}
		get := func(h string) string {
			if i, ok := col[h]; ok && i < len(rec) {
				return rec[i]
			}
			return ""
		}
		route, _, _ := strings.Cut(strings.ToLower(get("Route")), ":") // "oral: feed" → "oral"
		if route != "" && !slices.Contains(Routes, route) {
			route = "other"
		}
		w.Write([]string{get("Substance"), "", get("value"), get("unit"), get("Species"), route, get("DurationDays"),
			get("Study") + " " + get("TestType"), get("Endpoint"), get("Author"), get("Author") + " " + get("Year")})
	}
	w.Flush()
	return b.String()
}

func FuzzReadCSVProfiles(f *testing.F) {
	header := strings.Join(CSVColumns, ",") + "\n"
	f.Add(header + "RETINOL,68-26-8,200,mg/kg bw/day,rat,oral,90,Subchronic,NOAEL,EFSA,EFSA 2022\n" +
		"RETINOL,,3,µg/kg bw/day,,,,,LOAEL,,New study 2024\nEUGENOL,97-53-0,,,,,,,,,\n")
	f.Add("\ufeffinci,value,unit,type\nA,1e-3,mg/kg bw/day,NOAEL\n a ,0x10,mg/kg bw/day,NOAEL\n")
	f.Add(header + "RETI\"NOL,,10,mg/kg bw/day,,,,,NOAEL,,\n")
	if s := efsaRows(f); s != "" {
		f.Add(s)
	}

	f.Fuzz(func(t *testing.T, data string) {
		groups, errs := readCSVProfiles(strings.NewReader(data))
		if len(errs) == 0 && len(groups) == 0 {
			t.Fatal("neither profiles nor errors")
		}
		if len(errs) > 0 {
			return
		}
		seen := map[string]bool{}
		for _, g := range groups {
			if seen[Key(g.inci)] {
				t.Fatalf("%s: two groups for one profile", g.inci)
			}
			seen[Key(g.inci)] = true
			rows := 0
			for _, r := range g.rows {
				if r.noael != nil {
					rows++
				}
			}
			p, err := g.build(nil)
			if err != nil {
				continue // an invalid profile is reported, and nothing is imported
			}
			if len(p.NOAEL) != rows || p.CAS != g.cas {
				t.Fatalf("%s: %d NOAEL entries from %d rows, CAS %q from %q", g.where(), len(p.NOAEL), rows, p.CAS, g.cas)
			}
			checkStored(t, p, g.where())
			// Importing the same rows onto the stored profile gives the same profile.
			existing, err := Parse(mustCanonical(t, p))
			if err != nil {
				t.Fatal(err)
			}
			q, err := g.build(existing)
			if err != nil {
				t.Fatalf("%s: rows accepted for a new profile are refused for the stored one: %v", g.where(), err)
			}
			if !bytes.Equal(mustCanonical(t, q), mustCanonical(t, p)) {
				t.Fatalf("%s: a second import changes the profile:\n%s\n%s", g.where(), mustCanonical(t, p), mustCanonical(t, q))
			}
		}
	})
}

func mustCanonical(t *testing.T, p *Profile) []byte {
	b, err := p.Canonical()
	if err != nil {
		t.Fatal(err)
	}
	return b
}
