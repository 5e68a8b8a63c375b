package tox

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"slices"
	"warren/kb"
)

func openStore(t *testing.T) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), kb.DBFileName)
	db, err := kb.OpenDB(path, slices.Concat(kb.Migrations, Migrations))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return &Store{DB: db}, path
}

func canon(t *testing.T, data []byte) string {
	t.Helper()
	c, err := Canonical(data)
	if err != nil {
		t.Fatal(err)
	}
	return string(c)
}

var (
	retinolV2 = strings.Replace(retinolJSON, `"value": 10, "unit"`, `"value": 200, "unit"`, 1)
	retinolV3 = strings.Replace(retinolJSON, `"value": 10, "unit"`, `"value": 5, "unit"`, 1)
)

const setNOAEL200 = `[{"op":"replace","path":"/noael/0/value","value":200}]`

func TestSaveLatestVersionHistoryList(t *testing.T) {
	ctx := context.Background()
	s, _ := openStore(t)
	v, err := s.Save(ctx, "RETINOL", 0, []byte(retinolJSON), nil, "first", EditImport, "")
	if err != nil || v != 1 {
		t.Fatalf("Save v1 = %d, %v", v, err)
	}
	v, err = s.Save(ctx, "retinol", 1, []byte(retinolV2), []byte(setNOAEL200), "Set NOAEL to 200", "NLI_EDIT", "b-1")
	if err != nil || v != 2 {
		t.Fatalf("Save v2 = %d, %v", v, err)
	}
	if _, err := s.Save(ctx, "AQUA", 0, []byte(`{"inci":"AQUA","cas":"7732-18-5"}`), nil, "water", EditImport, ""); err != nil {
		t.Fatal(err)
	}

	latest, err := s.Latest(ctx, "Retinol")
	if err != nil {
		t.Fatal(err)
	}
	if latest.Version != 2 || string(latest.Data) != canon(t, []byte(retinolV2)) || string(latest.Patch) != setNOAEL200 ||
		latest.EditType != "NLI_EDIT" || latest.BatchID != "b-1" || latest.Summary != "Set NOAEL to 200" || latest.INCI != "RETINOL" {
		t.Errorf("Latest = %+v", latest)
	}
	if p, err := latest.Profile(); err != nil || p.NOAEL[0].Value != 200 {
		t.Errorf("Latest.Profile() = %+v, %v", p, err)
	}
	v1, err := s.Version(ctx, "RETINOL", 1)
	if err != nil || string(v1.Data) != canon(t, []byte(retinolJSON)) || string(v1.Patch) != "[]" {
		t.Errorf("Version 1 = %+v, %v", v1, err)
	}
	if _, err := s.Version(ctx, "RETINOL", 3); !errors.Is(err, ErrNoVersion) {
		t.Errorf("Version 3: err = %v, want ErrNoVersion", err)
	}
	if _, err := s.Latest(ctx, "GLYCERIN"); !errors.Is(err, ErrNoProfile) {
		t.Errorf("Latest of an unknown profile: err = %v, want ErrNoProfile", err)
	}

	h, err := s.History(ctx, "RETINOL")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, i := range h {
		got = append(got, i.Summary+"/"+i.EditType)
		if i.CreatedAt.IsZero() || time.Since(i.CreatedAt) > time.Minute {
			t.Errorf("CreatedAt = %v", i.CreatedAt)
		}
	}
	if want := []string{"Set NOAEL to 200/NLI_EDIT", "first/import"}; !reflect.DeepEqual(got, want) || h[0].Version != 2 {
		t.Errorf("History = %v, want %v (newest first)", got, want)
	}

	list, err := s.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].INCI != "AQUA" || list[0].CAS != "7732-18-5" || list[0].Version != 1 ||
		list[1].INCI != "RETINOL" || list[1].Version != 2 || list[1].UpdatedAt != latest.CreatedAt {
		t.Errorf("List = %+v", list)
	}
}

// Two proposals from the same base: the second approval is refused and the first is kept.
func TestSaveRefusesAStaleBase(t *testing.T) {
	ctx := context.Background()
	s, _ := openStore(t)
	if _, err := s.Save(ctx, "RETINOL", 0, []byte(retinolJSON), nil, "", EditImport, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Save(ctx, "RETINOL", 1, []byte(retinolV2), nil, "first proposal", "NLI_EDIT", ""); err != nil {
		t.Fatal(err)
	}
	_, err := s.Save(ctx, "RETINOL", 1, []byte(retinolV3), nil, "second proposal", "NLI_EDIT", "")
	var stale *StaleError
	if !errors.Is(err, ErrStale) || !errors.As(err, &stale) || stale.Base != 1 || stale.Latest != 2 {
		t.Fatalf("second save: err = %v, want a StaleError 1 → 2", err)
	}
	if !strings.Contains(err.Error(), "profile RETINOL changed since version 1 (now at version 2, saved by an unknown analyst at ") {
		t.Errorf("message = %q", err)
	}
	latest, _ := s.Latest(ctx, "RETINOL")
	if latest.Version != 2 || string(latest.Data) != canon(t, []byte(retinolV2)) {
		t.Errorf("after the refused save Latest = v%d %s", latest.Version, latest.Data)
	}
	if h, _ := s.History(ctx, "RETINOL"); len(h) != 2 {
		t.Errorf("history has %d versions, want 2", len(h))
	}
	// A new profile must be saved from base 0, and a base from the future is refused too.
	for _, base := range []int{0, 3} {
		if _, err := s.Save(ctx, "RETINOL", base, []byte(retinolV3), nil, "", "NLI_EDIT", ""); !errors.Is(err, ErrStale) {
			t.Errorf("base %d: err = %v, want ErrStale", base, err)
		}
	}
	if _, err := s.Save(ctx, "AQUA", 1, []byte(`{"inci":"AQUA"}`), nil, "", "NLI_EDIT", ""); !errors.Is(err, ErrStale) {
		t.Errorf("base 1 of a new profile: err = %v, want ErrStale", err)
	}
}

func TestSaveRefusesBadInputAndWritesNothing(t *testing.T) {
	ctx := context.Background()
	s, _ := openStore(t)
	bad := mutate(t, func(p map[string]any) { noael(p)["unit"] = "mg/kg" })
	_, err := s.Save(ctx, "RETINOL", 0, bad, nil, "", EditImport, "")
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), `/noael/0/unit: "mg/kg" is not one of`) {
		t.Errorf("invalid data: err = %v", err)
	}
	if _, err := s.Save(ctx, "AQUA", 0, []byte(retinolJSON), nil, "", EditImport, ""); err == nil || !strings.Contains(err.Error(), `not "AQUA"`) {
		t.Errorf("another profile's data: err = %v", err)
	}
	if _, err := s.Save(ctx, "RETINOL", 0, []byte(retinolJSON), []byte(`{"op":"add"}`), "", EditImport, ""); err == nil {
		t.Error("a patch that isn't an array was accepted")
	}
	if _, err := s.Save(ctx, "RETINOL", 0, []byte(retinolJSON), nil, "", "", ""); err == nil {
		t.Error("an empty edit type was accepted")
	}
	if list, _ := s.List(ctx); len(list) != 0 {
		t.Errorf("refused saves left %+v", list)
	}
}

func TestRollbackAddsAVersionEqualToTheOldOne(t *testing.T) {
	ctx := context.Background()
	s, _ := openStore(t)
	for base, data := range []string{retinolJSON, retinolV2, retinolV3} {
		if _, err := s.Save(ctx, "RETINOL", base, []byte(data), nil, "", "NLI_EDIT", ""); err != nil {
			t.Fatal(err)
		}
	}
	v, err := s.Rollback(ctx, "retinol", 1, 3, "")
	if err != nil || v != 4 {
		t.Fatalf("Rollback = %d, %v", v, err)
	}
	latest, _ := s.Latest(ctx, "RETINOL")
	v1, _ := s.Version(ctx, "RETINOL", 1)
	if string(latest.Data) != string(v1.Data) || latest.EditType != EditRollback || latest.Summary != "rollback to version 1" {
		t.Errorf("after rollback Latest = %+v", latest)
	}
	if !strings.HasPrefix(string(latest.Patch), `[{"op":"replace","path":"","value":{"inci":"RETINOL"`) {
		t.Errorf("rollback patch = %s", latest.Patch)
	}
	for n, want := range map[int]string{2: retinolV2, 3: retinolV3} {
		if got, err := s.Version(ctx, "RETINOL", n); err != nil || string(got.Data) != canon(t, []byte(want)) {
			t.Errorf("version %d after rollback = %s, %v", n, got.Data, err)
		}
	}
	if _, err := s.Rollback(ctx, "RETINOL", 4, 4, ""); err == nil || !strings.Contains(err.Error(), "already the latest") {
		t.Errorf("rollback to the latest: err = %v", err)
	}
	if _, err := s.Rollback(ctx, "RETINOL", 9, 4, ""); !errors.Is(err, ErrNoVersion) {
		t.Errorf("rollback to version 9: err = %v", err)
	}
	if _, err := s.Rollback(ctx, "GLYCERIN", 1, 0, ""); !errors.Is(err, ErrNoProfile) {
		t.Errorf("rollback of an unknown profile: err = %v", err)
	}
	if h, _ := s.History(ctx, "RETINOL"); len(h) != 4 {
		t.Errorf("history has %d versions, want 4", len(h))
	}
}

func TestVersionsAreAppendOnly(t *testing.T) {
	ctx := context.Background()
	s, _ := openStore(t)
	if _, err := s.Save(ctx, "RETINOL", 0, []byte(retinolJSON), nil, "", EditImport, ""); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`UPDATE tox_versions SET data = '{}'`, `DELETE FROM tox_versions`} {
		if _, err := s.DB.ExecContext(ctx, q); err == nil || !strings.Contains(err.Error(), "append-only") {
			t.Errorf("%s: err = %v", q, err)
		}
	}
}

// A save that fails after writing its row leaves nothing: while it is in flight another
// connection still sees the previous version, and afterwards so does everyone.
func TestSaveIsAtomic(t *testing.T) {
	ctx := context.Background()
	s, path := openStore(t)
	if _, err := s.Save(ctx, "RETINOL", 0, []byte(retinolJSON), nil, "", EditImport, ""); err != nil {
		t.Fatal(err)
	}
	other, err := kb.OpenDB(path, slices.Concat(kb.Migrations, Migrations))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	var during ProfileVersion
	var inFlight, rows int
	testHookBeforeCommit = func(tx *sql.Tx) error {
		// The writer's own view: the new row is really there, uncommitted.
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM tox_versions`).Scan(&inFlight); err != nil {
			return err
		}
		var err error
		if during, err = (&Store{DB: other}).Latest(ctx, "RETINOL"); err != nil {
			return err
		}
		return errors.New("simulated crash")
	}
	defer func() { testHookBeforeCommit = nil }()
	_, err = s.Save(ctx, "RETINOL", 1, []byte(retinolV2), nil, "", "NLI_EDIT", "")
	if err == nil || !strings.Contains(err.Error(), "simulated crash") {
		t.Fatalf("Save = %v, want the simulated crash", err)
	}
	testHookBeforeCommit = nil
	if inFlight != 2 {
		t.Errorf("inside the save's transaction there were %d rows, want 2", inFlight)
	}
	if during.Version != 1 {
		t.Errorf("mid-save another connection saw version %d, want 1", during.Version)
	}
	if err := other.QueryRowContext(ctx, `SELECT COUNT(*) FROM tox_versions`).Scan(&rows); err != nil || rows != 1 {
		t.Errorf("after the failed save there are %d rows (%v), want 1", rows, err)
	}
	if v, err := s.Save(ctx, "RETINOL", 1, []byte(retinolV2), nil, "", "NLI_EDIT", ""); err != nil || v != 2 {
		t.Errorf("saving again from base 1 = %d, %v", v, err)
	}
}

// The helper process of TestKilledSaveLeavesThePreviousVersion: it starts a save and stops
// inside the transaction, after writing, until it is killed.
func TestHelperKilledSave(t *testing.T) {
	path := os.Getenv("TOXDB_HELPER_DB")
	if path == "" {
		t.Skip("helper process only")
	}
	db, err := kb.OpenDB(path, slices.Concat(kb.Migrations, Migrations))
	if err != nil {
		t.Fatal(err)
	}
	// One connection with a page cache of one page, so that SQLite spills the transaction's
	// uncommitted pages into the WAL file before the kill instead of keeping them in memory.
	db.SetMaxOpenConns(1)
	for _, q := range []string{`PRAGMA cache_size = 1`, `PRAGMA cache_spill = 1`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	s := &Store{DB: db}
	testHookBeforeCommit = func(*sql.Tx) error {
		os.Stdout.WriteString("inserted\n")
		time.Sleep(time.Hour)
		return nil
	}
	s.Save(context.Background(), "RETINOL", 1, []byte(retinolV2), nil, "", "NLI_EDIT", "")
	t.Fatal("the save finished; it should have been killed")
}

func TestKilledSaveLeavesThePreviousVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	ctx := context.Background()
	s, path := openStore(t)
	if _, err := s.Save(ctx, "RETINOL", 0, []byte(retinolJSON), nil, "", EditImport, ""); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperKilledSave$", "-test.v")
	cmd.Env = append(os.Environ(), "TOXDB_HELPER_DB="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	walBefore := fileSize(path + "-wal")
	sc := bufio.NewScanner(out)
	saw := false
	for sc.Scan() {
		if sc.Text() == "inserted" {
			saw = true
			break
		}
	}
	walDuring := fileSize(path + "-wal")
	cmd.Process.Kill()
	cmd.Wait()
	if !saw {
		t.Fatal("the helper never reached the middle of its save")
	}
	t.Logf("WAL: %d bytes before the save, %d when it was killed", walBefore, walDuring)
	// A fresh connection, as after a restart.
	db, err := kb.OpenDB(path, slices.Concat(kb.Migrations, Migrations))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var check string
	if err := db.QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Errorf("integrity_check = %q, %v", check, err)
	}
	after := &Store{DB: db}
	latest, err := after.Latest(ctx, "RETINOL")
	if err != nil || latest.Version != 1 || string(latest.Data) != canon(t, []byte(retinolJSON)) {
		t.Fatalf("after the kill Latest = v%d %s, %v", latest.Version, latest.Data, err)
	}
	if v, err := after.Save(ctx, "RETINOL", 1, []byte(retinolV2), nil, "", "NLI_EDIT", ""); err != nil || v != 2 {
		t.Errorf("saving after the kill = %d, %v", v, err)
	}
}

func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return -1
	}
	return fi.Size()
}
