package tox

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const aquaJSON = `{"inci": "AQUA", "cas": "7732-18-5"}`

func TestImportJSONRoundTrip(t *testing.T) {
	ctx := context.Background()
	s, _ := openStore(t)
	path := writeFile(t, "profiles.json", "[\n"+retinolJSON+",\n"+aquaJSON+"\n]\n")
	res, err := s.ImportJSON(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	want := []ImportResult{{"RETINOL", 1, ImportNew}, {"AQUA", 1, ImportNew}}
	if !reflect.DeepEqual(res, want) {
		t.Errorf("first import = %+v, want %+v", res, want)
	}
	for inci, src := range map[string]string{"RETINOL": retinolJSON, "AQUA": aquaJSON} {
		v, err := s.Latest(ctx, inci)
		if err != nil || string(v.Data) != canon(t, []byte(src)) || v.EditType != EditImport || v.Summary != "imported from profiles.json" {
			t.Errorf("%s after import = %+v, %v", inci, v, err)
		}
	}
	// The same file again changes nothing; a changed profile gets a new version.
	if res, err = s.ImportJSON(ctx, path); err != nil || res[0].Status != ImportUnchanged || res[1].Status != ImportUnchanged {
		t.Errorf("second import = %+v, %v", res, err)
	}
	single := writeFile(t, "retinol.json", retinolV2)
	if res, err = s.ImportJSON(ctx, single); err != nil || !reflect.DeepEqual(res, []ImportResult{{"RETINOL", 2, ImportUpdated}}) {
		t.Errorf("import of a changed profile = %+v, %v", res, err)
	}
	v2, _ := s.Latest(ctx, "RETINOL")
	if string(v2.Data) != canon(t, []byte(retinolV2)) || !strings.HasPrefix(string(v2.Patch), `[{"op":"replace","path":""`) {
		t.Errorf("RETINOL v2 = %s (patch %s)", v2.Data, v2.Patch)
	}
	if h, _ := s.History(ctx, "AQUA"); len(h) != 1 {
		t.Errorf("AQUA has %d versions, want 1", len(h))
	}
}

func TestImportCSVRoundTrip(t *testing.T) {
	ctx := context.Background()
	s, _ := openStore(t)
	// Columns in another order, a quoted field with a comma, a Greek mu, a row that only names
	// a profile, and a citation shared by two rows.
	csvText := "\ufeffinci,cas,value,unit,species,route,duration_days,study,type,source,reference_citation\n" +
		"RETINOL,68-26-8,10,mg/kg bw/day,rat,oral,90,\"90-day study, oral\",NOAEL,EFSA OpenFoodTox 2022,EFSA 2022\n" +
		"retinol,,2.5,\u03bcg/kg bw/day,human,oral,,volunteers,LOAEL,EFSA OpenFoodTox 2022,EFSA 2022\n" +
		"Retinol,,500,mg/kg bw,rat,dermal,1,acute,LD50,,Smith 1990\n" +
		"AQUA,7732-18-5,,,,,,,,,\n"
	path := writeFile(t, "noael.csv", csvText)
	res, err := s.ImportCSV(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if want := []ImportResult{{"RETINOL", 1, ImportNew}, {"AQUA", 1, ImportNew}}; !reflect.DeepEqual(res, want) {
		t.Errorf("import = %+v, want %+v", res, want)
	}
	v, _ := s.Latest(ctx, "RETINOL")
	got, err := v.Profile()
	if err != nil {
		t.Fatal(err)
	}
	ninety, one := 90, 1
	want := &Profile{INCI: "RETINOL", CAS: "68-26-8",
		NOAEL: []NOAEL{
			{Value: 10, Unit: "mg/kg bw/day", Species: "rat", Route: "oral", DurationDays: &ninety, Study: "90-day study, oral", Type: "NOAEL", Source: "EFSA OpenFoodTox 2022", Reference: "r1"},
			{Value: 2.5, Unit: "µg/kg bw/day", Species: "human", Route: "oral", Study: "volunteers", Type: "LOAEL", Source: "EFSA OpenFoodTox 2022", Reference: "r1"},
			{Value: 500, Unit: "mg/kg bw", Species: "rat", Route: "dermal", DurationDays: &one, Study: "acute", Type: "LD50", Reference: "r2"},
		},
		DAP: []DAP{}, AnnexEntries: []AnnexEntry{}, Statements: []Statement{},
		References: []Reference{{"r1", "EFSA 2022"}, {"r2", "Smith 1990"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("RETINOL from CSV =\n%+v\nwant\n%+v", got, want)
	}
	if a, _ := s.Latest(ctx, "AQUA"); string(a.Data) != canon(t, []byte(aquaJSON)) {
		t.Errorf("AQUA from CSV = %s", a.Data)
	}
	if res, err := s.ImportCSV(ctx, path); err != nil || res[0].Status != ImportUnchanged || res[1].Status != ImportUnchanged {
		t.Errorf("second import = %+v, %v", res, err)
	}
}

// A CSV carries only NOAELs: importing it into a stored profile replaces the NOAEL list and
// keeps everything else.
func TestImportCSVKeepsTheRestOfAStoredProfile(t *testing.T) {
	ctx := context.Background()
	s, _ := openStore(t)
	if _, err := s.Save(ctx, "RETINOL", 0, []byte(retinolJSON), nil, "", EditImport, ""); err != nil {
		t.Fatal(err)
	}
	path := writeFile(t, "noael.csv", "inci,value,unit,type,reference_citation\nRETINOL,200,mg/kg bw/day,NOAEL,EFSA 2022\nRETINOL,3,mg/kg bw/day,LOAEL,New study 2024\n")
	res, err := s.ImportCSV(ctx, path)
	if err != nil || !reflect.DeepEqual(res, []ImportResult{{"RETINOL", 2, ImportUpdated}}) {
		t.Fatalf("import = %+v, %v", res, err)
	}
	v, _ := s.Latest(ctx, "RETINOL")
	p, err := v.Profile()
	if err != nil {
		t.Fatal(err)
	}
	if p.CAS != "68-26-8" || len(p.DAP) != 1 || len(p.AnnexEntries) != 1 || len(p.Statements) != 1 {
		t.Errorf("the import lost parts of the profile: %s", v.Data)
	}
	if len(p.NOAEL) != 2 || p.NOAEL[0].Value != 200 || p.NOAEL[0].Reference != "r1" || p.NOAEL[1].Reference != "r3" ||
		len(p.References) != 3 || p.References[2].Citation != "New study 2024" {
		t.Errorf("NOAELs and references after the import: %s", v.Data)
	}
}

func TestImportRefusesMalformedFilesAndImportsNothing(t *testing.T) {
	header := "inci,cas,value,unit,species,route,duration_days,study,type,source,reference_citation\n"
	good := "AQUA,7732-18-5,1,mg/L,,,,,NOAEL,,\n"
	cases := []struct {
		name, file, content string
		want                []string
	}{
		{"json syntax", "p.json", "[\n" + aquaJSON + ",\n{\"inci\": \"X\",\n \"cas\" 1}\n]", []string{"p.json", "record 2 (line 3)", "line 4, column 8"}},
		{"json invalid record", "p.json", "[\n" + aquaJSON + ",\n" + strings.ReplaceAll(retinolJSON, `"unit": "mg/kg bw/day"`, `"unit": "mg/kg"`) + "\n]",
			[]string{"p.json", "record 2 (line 3)", `/noael/0/unit: "mg/kg" is not one of`}},
		{"json unknown key", "p.json", `{"inci": "AQUA", "cass": "7732-18-5"}`, []string{"p.json", "/cass: unknown key"}},
		{"json object syntax", "p.json", "\ufeff\n{\"inci\": \"AQUA\",\n\"cas\": }", []string{"p.json", "line 3, column 8"}},
		{"json duplicate", "p.json", "[" + aquaJSON + ",\n" + aquaJSON + "]", []string{"record 2 (line 2, AQUA): profile AQUA occurs twice in the file (first in record 1 (line 1, AQUA))"}},
		{"json not a profile", "p.json", `"AQUA"`, []string{"p.json", "not a profile object or an array"}},
		{"json empty array", "p.json", `[]`, []string{"holds no profiles"}},
		{"json truncated", "p.json", "[" + aquaJSON, []string{"p.json", "unexpected end"}},
		{"csv unknown column", "n.csv", "inci,valeu,unit,type\n", []string{"n.csv", `line 1: unknown column "valeu"`}},
		{"csv missing column", "n.csv", "inci,value,type\n", []string{"n.csv", `line 1: column "unit" is missing`}},
		{"csv empty", "n.csv", "", []string{"n.csv", "the file is empty"}},
		{"csv bad number", "n.csv", header + good + "RETINOL,,ten,mg/kg bw/day,,,,,NOAEL,,\n", []string{"n.csv", `line 3: value "ten" is not a number`}},
		{"csv bad duration", "n.csv", header + good + "RETINOL,,10,mg/kg bw/day,,,90.5,,NOAEL,,\n", []string{`line 3: duration_days "90.5" is not a whole number`}},
		{"csv bad unit", "n.csv", header + good + "RETINOL,,10,mg/kg bw/day,,,,,NOAEL,,\nRETINOL,,10,mg/kg,,,,,NOAEL,,\n",
			[]string{"n.csv", "RETINOL (lines 3, 4)", `/noael/1/unit: "mg/kg" is not one of mg/kg bw/day`, "(line 4)"}},
		{"csv bad cas", "n.csv", header + "RETINOL,68-26-9,10,mg/kg bw/day,,,,,NOAEL,,\n", []string{"RETINOL (line 2)", `/cas: "68-26-9" fails the CAS check digit`}},
		{"csv cas conflict", "n.csv", header + "RETINOL,68-26-8,10,mg/kg bw/day,,,,,NOAEL,,\nRETINOL,7732-18-5,1,mg/L,,,,,NOAEL,,\n", []string{`line 3: cas "7732-18-5" of RETINOL differs from "68-26-8" on line 2`}},
		{"csv field count", "n.csv", header + good + "RETINOL,10,mg/kg bw/day\n", []string{"n.csv", "line 3", "wrong number of fields"}},
		{"csv stray quote", "n.csv", header + good + "RETI\"NOL,,10,mg/kg bw/day,,,,,NOAEL,,\n", []string{"n.csv", "line 3"}},
		{"csv no inci", "n.csv", header + good + ",,10,mg/kg bw/day,,,,,NOAEL,,\n", []string{"line 3: inci is empty"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			s, _ := openStore(t)
			path := writeFile(t, c.file, c.content)
			var err error
			if strings.HasSuffix(c.file, ".json") {
				_, err = s.ImportJSON(ctx, path)
			} else {
				_, err = s.ImportCSV(ctx, path)
			}
			if err == nil {
				t.Fatal("the import succeeded")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error = %q\nwant it to contain %q", err, w)
				}
			}
			if list, _ := s.List(ctx); len(list) != 0 {
				t.Errorf("a refused import stored %+v", list)
			}
		})
	}
}

func TestImportErrorUnwrapsToValidationErrors(t *testing.T) {
	s, _ := openStore(t)
	path := writeFile(t, "p.json", `{"inci": "AQUA", "cas": "1-2-3"}`)
	_, err := s.ImportJSON(context.Background(), path)
	var ie *ImportError
	if !errors.As(err, &ie) || !errors.Is(err, ErrInvalid) || ie.File != path {
		t.Errorf("err = %#v", err)
	}
}
