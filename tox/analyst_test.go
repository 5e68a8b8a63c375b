package tox

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// as is a second store over the same database, acting for another analyst.
func as(s *Store, analyst string) *Store { return &Store{DB: s.DB, Analyst: analyst, Saved: s.Saved} }

func TestVersionsNameWhoSavedThem(t *testing.T) {
	ctx := context.Background()
	s, _ := openStore(t)
	var published []VersionInfo
	s.Saved = func(vs []VersionInfo) { published = append(published, vs...) }
	alice, bob := as(s, "alice"), as(s, "bob")

	file := filepath.Join(t.TempDir(), "retinol.json")
	if err := os.WriteFile(file, []byte(retinolJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := alice.ImportJSON(ctx, file); err != nil { // version 1
		t.Fatal(err)
	}
	if _, err := bob.Save(ctx, "RETINOL", 1, []byte(retinolV2), nil, "NOAEL 200", "NLI_EDIT", ""); err != nil { // 2
		t.Fatal(err)
	}
	if _, err := alice.Rollback(ctx, "RETINOL", 1, 2, ""); err != nil { // 3
		t.Fatal(err)
	}
	if _, err := s.Save(ctx, "RETINOL", 3, []byte(retinolV3), nil, "unnamed", "NLI_EDIT", ""); err != nil { // 4
		t.Fatal(err)
	}
	h, err := s.History(ctx, "RETINOL")
	if err != nil {
		t.Fatal(err)
	}
	var by []string
	for _, v := range h {
		by = append(by, v.EditType+":"+v.By)
	}
	if want := []string{"NLI_EDIT:", "rollback:alice", "NLI_EDIT:bob", "import:alice"}; !slices.Equal(by, want) {
		t.Errorf("history by %q, want %q", by, want)
	}
	if v, _ := s.Version(ctx, "RETINOL", 2); v.By != "bob" {
		t.Errorf("version 2 loaded names %q", v.By)
	}
	var seen []string
	for _, v := range published {
		seen = append(seen, v.INCI+":"+v.By)
	}
	if want := []string{"RETINOL:alice", "RETINOL:bob", "RETINOL:alice", "RETINOL:"}; !slices.Equal(seen, want) {
		t.Errorf("the hook saw %q, want %q", seen, want)
	}
}

func TestStaleRollbackIsRefused(t *testing.T) {
	ctx := context.Background()
	s, _ := openStore(t)
	alice, bob := as(s, "alice"), as(s, "bob")
	if _, err := alice.Save(ctx, "RETINOL", 0, []byte(retinolJSON), nil, "", EditImport, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := alice.Save(ctx, "RETINOL", 1, []byte(retinolV2), nil, "", "NLI_EDIT", ""); err != nil {
		t.Fatal(err)
	}
	// Bob looks at version 2 and asks to go back to 1; meanwhile alice saves version 3.
	if _, err := alice.Save(ctx, "RETINOL", 2, []byte(retinolV3), nil, "", "NLI_EDIT", ""); err != nil {
		t.Fatal(err)
	}
	_, err := bob.Rollback(ctx, "RETINOL", 1, 2, "")
	var stale *StaleError
	if !errors.Is(err, ErrStale) || !errors.As(err, &stale) || stale.Latest != 3 || stale.By != "alice" {
		t.Fatalf("bob's rollback on a stale view: %v (%+v)", err, stale)
	}
	if !strings.Contains(err.Error(), "saved by alice at ") {
		t.Errorf("the refusal doesn't say who saved the latest version: %v", err)
	}
	if h, _ := s.History(ctx, "RETINOL"); len(h) != 3 {
		t.Errorf("%d versions after the refused rollback, want 3", len(h))
	}
	if v, err := bob.Rollback(ctx, "RETINOL", 1, 3, ""); err != nil || v != 4 {
		t.Errorf("the rollback from the latest version: %d, %v", v, err)
	}
}
