package audit

import (
	"context"
	"path/filepath"
	"strings"
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
	return &Store{DB: db}
}

// The trail is append-only below the code too: raw SQL can neither change nor remove an entry.
func TestTriggersRefuseUpdateAndDelete(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	if _, err := s.Record(ctx, Entry{Analyst: "ana", Action: ActionSearch, Target: "sds"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB.Exec(`UPDATE audit SET analyst = 'eve'`); err == nil || !strings.Contains(err.Error(), "append-only") {
		t.Errorf("UPDATE: %v", err)
	}
	if _, err := s.DB.Exec(`DELETE FROM audit`); err == nil || !strings.Contains(err.Error(), "append-only") {
		t.Errorf("DELETE: %v", err)
	}
	got, err := s.List(ctx, Filter{})
	if err != nil || len(got) != 1 || got[0].Analyst != "ana" || got[0].Outcome != OK {
		t.Errorf("after the refused changes: %+v %v", got, err)
	}
}

func TestListFiltersBySinceAnalystAndLimit(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	base := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	// .1s and .12s: a text order of RFC3339Nano would put the first after the second.
	for i, e := range []Entry{
		{At: base.Add(100 * time.Millisecond), Analyst: "ana", Action: ActionLogin},
		{At: base.Add(120 * time.Millisecond), Analyst: "bob", Action: ActionSearch},
		{At: base.Add(time.Hour), Analyst: "ana", Action: ActionExport},
	} {
		if got, err := s.Record(ctx, e); err != nil || got.Seq != int64(i+1) {
			t.Fatalf("record %d: %+v %v", i, got, err)
		}
	}
	actions := func(f Filter) string {
		t.Helper()
		es, err := s.List(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range es {
			out = append(out, e.Analyst+":"+e.Action)
		}
		return strings.Join(out, " ")
	}
	for _, c := range []struct {
		f    Filter
		want string
	}{
		{Filter{}, "ana:login bob:search ana:export"},
		{Filter{Since: base.Add(110 * time.Millisecond)}, "bob:search ana:export"},
		{Filter{Analyst: "ana"}, "ana:login ana:export"},
		{Filter{Limit: 2}, "bob:search ana:export"},
		{Filter{Since: base.Add(2 * time.Hour)}, ""},
	} {
		if got := actions(c.f); got != c.want {
			t.Errorf("%+v: %q, want %q", c.f, got, c.want)
		}
	}
	if _, err := s.Record(ctx, Entry{Action: ActionLogin}); err == nil {
		t.Error("an entry without an analyst was recorded")
	}
}

func TestHashQueryMatchesEqualQueriesAndHidesTheText(t *testing.T) {
	a, b := HashQuery("Arsine  TLV"), HashQuery(" arsine tlv ")
	if a != b {
		t.Errorf("equal queries hash apart: %s %s", a, b)
	}
	if a == HashQuery("arsine idlh") || strings.Contains(strings.ToLower(a), "arsine") || !strings.HasPrefix(a, "sha256:") || len(a) != len("sha256:")+64 {
		t.Errorf("hash %q", a)
	}
}
