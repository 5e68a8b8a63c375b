package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"warren/internal/cli"
	"warren/internal/testkb"
	"warren/tox"
	"warren/tox/jsonpatch"
)

// toxWorkspace creates an empty workspace and returns the environment that points warren at it.
func toxWorkspace(t *testing.T) []string {
	t.Helper()
	env := []string{"WARREN_WORKSPACE=" + filepath.Join(t.TempDir(), "ws")}
	if r := warren(t, env, "init"); r.code != 0 {
		t.Fatalf("init: %+v", r)
	}
	return env
}

type toxImportJSON struct {
	Profiles, New, Updated, Unchanged int
	Results                           []tox.ImportResult
}

func toxImport(t *testing.T, env []string, path string) toxImportJSON {
	t.Helper()
	r := warren(t, env, "tox", "import", path, "--json")
	var res toxImportJSON
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &res) != nil {
		t.Fatalf("import %s: %+v", path, r)
	}
	return res
}

func TestToxImportListShowHistoryDiffRollback(t *testing.T) {
	env := toxWorkspace(t)
	sample := filepath.Join(testkb.SampleDir(), "tox", "profiles.json")

	res := toxImport(t, env, sample)
	if res.Profiles != 22 || res.New != 22 || res.Updated != 0 || res.Unchanged != 0 {
		t.Fatalf("first import: %+v", res)
	}

	r := warren(t, env, "tox", "list", "--json")
	var list []tox.ProfileInfo
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &list) != nil || len(list) != 22 {
		t.Fatalf("list --json: %+v", r)
	}
	if r = warren(t, env, "tox", "list"); r.code != 0 || !strings.Contains(r.stdout, "EUGENOL") || !strings.Contains(r.stdout, "97-53-0") {
		t.Errorf("list: %+v", r)
	}

	// show: readable, case-insensitive, and the stored document with --json.
	r = warren(t, env, "tox", "show", "eugenol")
	for _, want := range []string{"EUGENOL (CAS 97-53-0)", "version 1 of 1", "NOAEL (5)", "mg/kg bw/day", "rabbit", "730", "Annex III entry 71", "[r1] EFSA OpenFoodTox 2022"} {
		if r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Errorf("show lacks %q: %+v", want, r)
		}
	}
	r = warren(t, env, "tox", "show", "EUGENOL", "--json")
	var v1 tox.Profile
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &v1) != nil || v1.INCI != "EUGENOL" || len(v1.NOAEL) != 5 {
		t.Fatalf("show --json: %+v", r)
	}

	// Importing the same file again changes nothing.
	if res = toxImport(t, env, sample); res.Unchanged != 22 || res.New != 0 || res.Updated != 0 {
		t.Fatalf("second import: %+v", res)
	}

	// An edited copy of one profile makes version 2 of it and nothing else.
	edited := v1
	edited.NOAEL = append([]tox.NOAEL(nil), v1.NOAEL...)
	edited.NOAEL[0].Value = 123
	data, _ := json.Marshal(edited)
	path := filepath.Join(t.TempDir(), "eugenol.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	res = toxImport(t, env, path)
	if res.Updated != 1 || len(res.Results) != 1 || res.Results[0].Version != 2 || res.Results[0].Status != tox.ImportUpdated {
		t.Fatalf("import of the edited profile: %+v", res)
	}

	r = warren(t, env, "tox", "history", "EUGENOL", "--json")
	var hist []tox.VersionInfo
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &hist) != nil || len(hist) != 2 || hist[0].Version != 2 || hist[1].Version != 1 {
		t.Fatalf("history: %+v", r)
	}
	if r = warren(t, env, "tox", "history", "eugenol"); r.code != 0 || !strings.Contains(r.stdout, "2 versions") || !strings.Contains(r.stdout, "import") {
		t.Errorf("history: %+v", r)
	}

	r = warren(t, env, "tox", "diff", "EUGENOL", "1", "2")
	if r.code != 0 || !strings.Contains(r.stdout, "-      \"value\": 100") || !strings.Contains(r.stdout, "+      \"value\": 123") {
		t.Errorf("diff 1 2 should show the value change:\n%s%s", r.stdout, r.stderr)
	}
	r = warren(t, env, "tox", "diff", "EUGENOL", "1", "2", "--json")
	var ops jsonpatch.Patch
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &ops) != nil || len(ops) != 1 || ops[0].Op != "replace" || ops[0].Path != "/noael/0/value" || string(ops[0].Value) != "123" {
		t.Errorf("diff --json: %+v", r)
	}

	// Without a terminal and without --yes, a rollback is refused and saves nothing.
	r = warren(t, env, "tox", "rollback", "EUGENOL", "--to", "1")
	if r.code != cli.ExitUsage || !strings.Contains(r.stderr, "--yes") {
		t.Errorf("rollback without --yes outside a terminal: %+v", r)
	}
	if r = warren(t, append(env, "USER=bea"), "tox", "rollback", "EUGENOL", "--to", "1", "--yes", "--json"); r.code != 0 || !strings.Contains(r.stdout, `"version": 3`) {
		t.Fatalf("rollback --yes: %+v", r)
	}
	r = warren(t, env, "tox", "show", "EUGENOL", "--version", "3", "--json")
	var v3 tox.Profile
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &v3) != nil {
		t.Fatalf("show --version 3: %+v", r)
	}
	if a, b := mustJSON(v1), mustJSON(v3); string(a) != string(b) {
		t.Errorf("version 3 should equal version 1:\n%s\n%s", a, b)
	}
	if r = warren(t, env, "tox", "diff", "EUGENOL", "1", "3"); r.code != 0 || !strings.Contains(r.stdout, "identical") {
		t.Errorf("diff 1 3: %+v", r)
	}
	r = warren(t, env, "tox", "history", "EUGENOL", "--json")
	if json.Unmarshal([]byte(r.stdout), &hist) != nil || len(hist) != 3 || hist[0].EditType != tox.EditRollback || hist[0].By != "bea" || hist[1].By == "" {
		t.Errorf("history after the rollback names who saved each version: %+v", r)
	}
	if r = warren(t, env, "tox", "history", "EUGENOL"); r.code != 0 || !strings.Contains(r.stdout, "BY") || !strings.Contains(r.stdout, " bea ") {
		t.Errorf("history names who saved each version: %+v", r)
	}
	if r = warren(t, env, "tox", "rollback", "EUGENOL", "--to", "3", "--yes"); r.code == 0 || !strings.Contains(r.stderr, "already the latest") {
		t.Errorf("rollback to the latest version: %+v", r)
	}
	if r = warren(t, env, "tox", "show", "EUGENOL", "--version", "9"); r.code == 0 || !strings.Contains(r.stderr, "versions are 1 to 3") || !strings.Contains(r.stderr, "warren tox history") {
		t.Errorf("show of a missing version: %+v", r)
	}
}

func TestToxImportRefusesMalformedFilesNamingThem(t *testing.T) {
	env := toxWorkspace(t)
	dir := t.TempDir()
	bad := filepath.Join(dir, "broken.json")
	if err := os.WriteFile(bad, []byte("[\n  {\"inci\": \"CAFFEINE\",\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := warren(t, env, "tox", "import", bad)
	if r.code != cli.ExitFailure || !strings.Contains(r.stderr, bad) || !strings.Contains(r.stderr, "nothing was imported") {
		t.Errorf("malformed JSON: %+v", r)
	}

	// Two bad records are both listed; the good one is not imported either.
	mixed := filepath.Join(dir, "mixed.json")
	if err := os.WriteFile(mixed, []byte(`[{"inci":"CAFFEINE"},{"inci":"A","noael":[{"value":1,"unit":"mg","type":"NOAEL"}]},{"inci":"B","cas":"1-2-3"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	r = warren(t, env, "tox", "import", mixed, "--json")
	var out struct {
		Imported bool
		Errors   []struct{ Where, Error string }
	}
	if r.code != cli.ExitFailure || json.Unmarshal([]byte(r.stdout), &out) != nil || out.Imported || len(out.Errors) != 2 || !strings.Contains(r.stderr, "2 bad records") {
		t.Errorf("bad records: %+v", r)
	}
	if r = warren(t, env, "tox", "list", "--json"); strings.TrimSpace(r.stdout) != "[]" {
		t.Errorf("nothing should be imported: %+v", r)
	}

	if r = warren(t, env, "tox", "import", filepath.Join(dir, "profiles.xlsx")); r.code != cli.ExitUsage || !strings.Contains(r.stderr, ".json or .csv") {
		t.Errorf("wrong extension: %+v", r)
	}
}

func TestToxUnknownINCISaysHowToFindNames(t *testing.T) {
	env := toxWorkspace(t)
	if r := warren(t, env, "tox", "show", "EUGENOL"); r.code == 0 || !strings.Contains(r.stderr, "warren tox import") {
		t.Errorf("an empty store: %+v", r)
	}
	toxImport(t, env, filepath.Join(testkb.SampleDir(), "tox", "profiles.json"))
	for _, args := range [][]string{{"show", "NOPE"}, {"history", "NOPE"}, {"diff", "NOPE", "1", "2"}, {"rollback", "NOPE", "--to", "1", "--yes"}} {
		r := warren(t, env, append([]string{"tox"}, args...)...)
		if r.code != cli.ExitFailure || !strings.Contains(r.stderr, `no toxicology profile "NOPE"`) || !strings.Contains(r.stderr, "warren tox list") {
			t.Errorf("%v: %+v", args, r)
		}
	}
	// A name that differs only by case and spacing is suggested.
	if r := warren(t, env, "tox", "show", "ci16035"); r.code == 0 || !strings.Contains(r.stderr, `did you mean "CI 16035"`) {
		t.Errorf("suggestion: %+v", r)
	}
	if r := warren(t, env, "tox", "show", "Methyl  Salicylate"); r.code == 0 || !strings.Contains(r.stderr, `did you mean "METHYL SALICYLATE"`) {
		t.Errorf("suggestion: %+v", r)
	}
	if r := warren(t, env, "tox", "diff", "EUGENOL", "one", "2"); r.code != cli.ExitUsage {
		t.Errorf("a version that isn't a number: %+v", r)
	}
	if r := warren(t, env, "tox", "rollback", "EUGENOL"); r.code != cli.ExitUsage || !strings.Contains(r.stderr, "--to") {
		t.Errorf("rollback without --to: %+v", r)
	}
}

func mustJSON(v any) json.RawMessage {
	data, _ := json.Marshal(v)
	return data
}
