package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"warren/doctor"
	"warren/service"
	"warren/service/audit"
	"warren/service/grants"
)

// The fixture's analyst is no admin: the admin view stays out of every other snapshot.
func (fixture) IsAdmin() bool { return false }

// adminFixture is the fixture's workspace seen by an admin.
type adminFixture struct{ fixture }

func (adminFixture) IsAdmin() bool                      { return true }
func (adminFixture) Analyst() (name string, admin bool) { return "lead", true }

// adminFake is the access and audit desks, in memory, recording the changes asked of them.
type adminFake struct {
	calls   []string
	grants  []grants.Grant
	entries []audit.Entry
}

var adminAt = time.Date(2026, 11, 21, 10, 15, 0, 0, time.UTC)

func (f *adminFake) List(_ context.Context, analyst string) (service.AccessList, error) {
	return service.AccessList{Default: grants.Write, Grants: append([]grants.Grant(nil), f.grants...)}, nil
}

func (f *adminFake) Grant(_ context.Context, analyst, collection string, level grants.Level) (grants.Grant, error) {
	f.calls = append(f.calls, fmt.Sprintf("grant %s %s %s", analyst, collection, level))
	g := grants.Grant{Analyst: analyst, Collection: collection, Level: level, GrantedBy: "lead", At: adminAt}
	f.grants = append(f.grants, g)
	return g, nil
}

func (f *adminFake) Revoke(_ context.Context, analyst, collection string) (bool, error) {
	f.calls = append(f.calls, "revoke "+analyst+" "+collection)
	for i, g := range f.grants {
		if g.Analyst == analyst && g.Collection == collection {
			f.grants = append(f.grants[:i], f.grants[i+1:]...)
			return true, nil
		}
	}
	return false, nil
}

// adminTrailFake is adminFake's audit desk (its List is the trail's).
type adminTrailFake struct{ *adminFake }

func (f adminTrailFake) List(context.Context, audit.Filter) ([]audit.Entry, error) {
	return f.entries, nil
}
func (f adminTrailFake) ExportCSV(context.Context, audit.Filter) (string, int, error) {
	return "/work/lab/.warren/exports/audit-20261121-101500.csv", len(f.entries), nil
}

func adminDesks(f *adminFake, admin bool) Desks {
	var d Desks
	if admin {
		d = desksOf(adminFixture{}, noTox{})
	} else {
		d = desksOf(fixture{}, noTox{})
	}
	d.Access, d.Audit = f, adminTrailFake{f}
	return d
}

func adminSized(f *adminFake, admin bool, w, h int) *Model {
	m := New(adminDesks(f, admin))
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	m.Update(doctorMsg{report: doctor.Report{OK: true}})
	m.adminView.SetLocation(time.UTC)
	return m
}

var ctrlG = tea.KeyPressMsg{Code: 'g', Mod: tea.ModCtrl}

func adminFixtureData() *adminFake {
	return &adminFake{
		grants: []grants.Grant{
			{Analyst: "bob", Collection: "standards", Level: grants.Read, GrantedBy: "lead", At: adminAt},
			{Analyst: "carol", Collection: "suppliers", Level: grants.None, GrantedBy: "lead", At: adminAt.Add(-24 * time.Hour)},
		},
		entries: []audit.Entry{
			{Seq: 1, At: adminAt, Analyst: "bob", Action: "login", Target: "10.0.0.7:51234", Detail: `{"key":"SHA256:x1"}`, Outcome: "ok"},
			{Seq: 2, At: adminAt.Add(time.Minute), Analyst: "bob", Action: "search", Target: "silane purge", Outcome: "ok"},
			{Seq: 3, At: adminAt.Add(2 * time.Minute), Analyst: "lead", Action: "access", Target: "bob/standards",
				Detail: `{"change":"grant","level":"read"}`, Outcome: "ok"},
			{Seq: 4, At: adminAt.Add(3 * time.Minute), Analyst: "carol", Action: "ingest", Target: "confidential",
				Detail: `{"error":"carol may not ingest into confidential; an admin grants it: warren access grant carol confidential write"}`, Outcome: "failed"},
		},
	}
}

func TestANonAdminNeverReachesTheAdminView(t *testing.T) {
	m := adminSized(adminFixtureData(), false, 80, 24)
	m.tab = 1
	before := string(screen(m))
	m.Update(ctrlG) // its command is the timer that clears the status line
	if m.adminOpen {
		t.Fatal("ctrl+g opened the admin view for an analyst who is no admin")
	}
	after := string(screen(m))
	if !strings.Contains(after, "only an admin may") {
		t.Errorf("no word of why:\n%s", after)
	}
	// Nothing else changed: the same tab, and only the status line differs.
	b, a := strings.Split(before, "\n"), strings.Split(after, "\n")
	for i := range b {
		if i != len(b)-2 && b[i] != a[i] {
			t.Errorf("line %d changed: %q → %q", i+1, b[i], a[i])
		}
	}
	if m.tab != 1 {
		t.Errorf("tab %d", m.tab)
	}
	m.showHelp = true
	if strings.Contains(string(screen(m)), "ctrl+g") {
		t.Error("the help names the admin view to an analyst who is no admin")
	}
	// An admin whose workbench has no access desk does not reach it either.
	d := desksOf(adminFixture{}, noTox{})
	m = New(d)
	m.Update(ctrlG)
	if m.adminOpen {
		t.Error("the admin view opened without its desks")
	}
}

func TestTheAdminViewGrantsAndEscGoesBackToTheTab(t *testing.T) {
	f := adminFixtureData()
	m := adminSized(f, true, 80, 24)
	m.tab = 1
	settle(t, m, ctrlG)
	if !m.adminOpen || !strings.Contains(string(screen(m)), "Access to collections") {
		t.Fatalf("ctrl+g did not open the admin view:\n%s", screen(m))
	}
	m.showHelp = true
	if !strings.Contains(string(screen(m)), "ctrl+g") {
		t.Errorf("the help does not name ctrl+g:\n%s", screen(m))
	}
	m.showHelp = false
	// q in the analyst's field types q; → picks the next collection; enter grants.
	if run(t, m, "g", "q", "ctrl+u", "dave", "enter", "right", "enter", "w") {
		t.Fatal("q in the grant form quit warren")
	}
	status := press(t, m, "enter")
	if len(f.calls) != 1 || f.calls[0] != "grant dave suppliers write" {
		t.Fatalf("calls %q", f.calls)
	}
	if !hasStatus(status, "dave may now read and ingest into suppliers") || !strings.Contains(string(screen(m)), "dave may now") {
		t.Errorf("status %q:\n%s", status, screen(m))
	}
	// Stray keys change nothing; esc esc goes back to the Knowledge tab.
	press(t, m, "z", "%", "esc")
	if m.tab != 1 || m.adminOpen {
		t.Fatalf("after esc: tab %d, admin open %v", m.tab, m.adminOpen)
	}
	if out := string(screen(m)); !strings.Contains(out, "Collections") || strings.Contains(out, "Access to collections") {
		t.Errorf("esc did not go back to the Knowledge tab:\n%s", out)
	}
	// From a typing field, ctrl+g opens it too; a tab chosen closes it.
	m.tab = researchTabIndex
	settle(t, m, ctrlG)
	if !m.adminOpen {
		t.Fatal("ctrl+g from the question field did not open the admin view")
	}
	press(t, m, "alt+3")
	if m.adminOpen || m.tab != gasTabIndex {
		t.Errorf("alt+3 from the admin view: tab %d, open %v", m.tab, m.adminOpen)
	}
}

func TestTheAdminViewRevokesAfterYes(t *testing.T) {
	f := adminFixtureData()
	m := adminSized(f, true, 80, 24)
	settle(t, m, ctrlG)
	press(t, m, "x")
	if !strings.Contains(string(screen(m)), "Revoke bob's read on standards?") {
		t.Fatalf("no question:\n%s", screen(m))
	}
	status := press(t, m, "y")
	if len(f.calls) != 1 || f.calls[0] != "revoke bob standards" || !hasStatus(status, "bob no longer has a grant on standards") {
		t.Errorf("calls %q, status %q", f.calls, status)
	}
}

func TestGoldenAdmin(t *testing.T) {
	sizes := [][2]int{{80, 24}, {120, 40}}
	setups := map[string][]string{
		"grants":  nil,
		"form":    {"g", "dave", "enter"},
		"confirm": {"x"},
		"trail":   {"t", "down"},
	}
	for name, keys := range setups {
		for _, sz := range sizes {
			t.Run(fmt.Sprintf("%s-%dx%d", name, sz[0], sz[1]), func(t *testing.T) {
				m := adminSized(adminFixtureData(), true, sz[0], sz[1])
				m.tab = 1
				settle(t, m, ctrlG)
				press(t, m, keys...)
				out := screen(m)
				if lines := strings.Count(string(out), "\n") + 1; lines != sz[1] {
					t.Errorf("the frame has %d lines, the terminal %d", lines, sz[1])
				}
				for i, line := range strings.Split(string(out), "\n") {
					if w := ansi.StringWidth(line); w > sz[0] {
						t.Errorf("line %d is %d cells wide: %q", i+1, w, line)
					}
				}
				requireWholeHelp(t, out, sz[0])
				golden.RequireEqual(t, out)
			})
		}
	}
}
