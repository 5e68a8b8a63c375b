package grants

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"warren/kb"
)

func openStore(t *testing.T) *Store {
	t.Helper()
	db, err := kb.OpenDB(filepath.Join(t.TempDir(), kb.DBFileName), append(kb.Migrations[:len(kb.Migrations):len(kb.Migrations)], Migrations...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return &Store{DB: db, Now: func() time.Time { return time.Date(2026, 11, 2, 9, 30, 0, 0, time.UTC) }}
}

// A second grant on the same analyst and collection replaces the first; removing it leaves the
// analyst's other grants.
func TestSetReplacesAndRemoveDrops(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	for _, g := range []Grant{
		{Analyst: "bob", Collection: "confidential", Level: Read, GrantedBy: "lead"},
		{Analyst: "bob", Collection: "confidential", Level: None, GrantedBy: "root"},
		{Analyst: "bob", Collection: "sds", Level: Write, GrantedBy: "lead"},
		{Analyst: "alice", Collection: "confidential", Level: Read, GrantedBy: "lead"},
	} {
		if _, err := s.Set(ctx, g); err != nil {
			t.Fatal(err)
		}
	}
	levels, err := s.Levels(ctx, "bob")
	if err != nil || len(levels) != 2 || levels["confidential"] != None || levels["sds"] != Write {
		t.Fatalf("bob's levels: %v %v", levels, err)
	}
	all, err := s.List(ctx, "")
	if err != nil || len(all) != 3 || all[0].Analyst != "alice" || all[1].GrantedBy != "root" || !all[1].At.Equal(time.Date(2026, 11, 2, 9, 30, 0, 0, time.UTC)) {
		t.Fatalf("every grant: %+v %v", all, err)
	}
	gone, ok, err := s.Remove(ctx, "bob", "confidential")
	if err != nil || !ok || gone.Level != None {
		t.Fatalf("remove: %+v %v %v", gone, ok, err)
	}
	if _, ok, err := s.Remove(ctx, "bob", "confidential"); err != nil || ok {
		t.Errorf("removing it again: %v %v", ok, err)
	}
	if left, _ := s.List(ctx, "bob"); len(left) != 1 || left[0].Collection != "sds" {
		t.Errorf("bob's grants after the removal: %+v", left)
	}
}

// The table itself refuses a level the code does not know: a typo in raw SQL never grants.
func TestUnknownLevelsAreRefused(t *testing.T) {
	s := openStore(t)
	if _, err := s.Set(context.Background(), Grant{Analyst: "bob", Collection: "x", Level: "admin", GrantedBy: "lead"}); err == nil {
		t.Error("Set took the level admin")
	}
	if _, err := s.DB.Exec(`INSERT INTO access_grants VALUES ('bob', 'x', 'all', 'lead', '2026-01-01T00:00:00Z')`); err == nil {
		t.Error("the table took the level all")
	}
	if _, err := ParseLevel(" Read "); err != nil {
		t.Errorf("ParseLevel(Read): %v", err)
	}
}

func TestLevelsIncludeTheLowerOnes(t *testing.T) {
	for _, tc := range []struct {
		have, want Level
		ok         bool
	}{{Write, Read, true}, {Write, Write, true}, {Read, Write, false}, {Read, Read, true}, {None, Read, false}, {"bogus", Read, false}, {None, None, true}} {
		if got := tc.have.Allows(tc.want); got != tc.ok {
			t.Errorf("%s allows %s: %v, want %v", tc.have, tc.want, got, tc.ok)
		}
	}
}
