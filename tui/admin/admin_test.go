package admin

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"warren/kb"
	"warren/service"
	"warren/service/audit"
	"warren/service/grants"
	"warren/tui/component"
	"warren/tui/styles"
)

// fakeDesks records the calls the view makes and answers from memory.
type fakeDesks struct {
	mu      sync.Mutex
	calls   []string
	grants  []grants.Grant
	entries []audit.Entry // oldest first, as the desk returns them
	filters []audit.Filter
	refuse  error // every call fails with it
}

func (f *fakeDesks) call(s string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, s)
}

func (f *fakeDesks) List(_ context.Context, analyst string) (service.AccessList, error) {
	f.call("list " + analyst)
	if f.refuse != nil {
		return service.AccessList{}, f.refuse
	}
	return service.AccessList{Default: grants.Write, Grants: append([]grants.Grant(nil), f.grants...)}, nil
}

func (f *fakeDesks) Grant(_ context.Context, analyst, collection string, level grants.Level) (grants.Grant, error) {
	f.call("grant " + analyst + " " + collection + " " + string(level))
	if f.refuse != nil {
		return grants.Grant{}, f.refuse
	}
	g := grants.Grant{Analyst: analyst, Collection: collection, Level: level, GrantedBy: "alice", At: time.Date(2026, 11, 21, 10, 15, 0, 0, time.UTC)}
	f.grants = append(f.grants, g)
	return g, nil
}

func (f *fakeDesks) Revoke(_ context.Context, analyst, collection string) (bool, error) {
	f.call("revoke " + analyst + " " + collection)
	if f.refuse != nil {
		return false, f.refuse
	}
	for i, g := range f.grants {
		if g.Analyst == analyst && g.Collection == collection {
			f.grants = append(f.grants[:i], f.grants[i+1:]...)
			return true, nil
		}
	}
	return false, nil
}

func (f *fakeDesks) Collections(context.Context) ([]kb.CollectionInfo, error) {
	return []kb.CollectionInfo{{Name: "standards"}, {Name: "suppliers"}}, nil
}

// fakeTrail is the audit desk of fakeDesks (its List differs from the access desk's).
type fakeTrail struct{ *fakeDesks }

func (f fakeTrail) List(_ context.Context, flt audit.Filter) ([]audit.Entry, error) {
	f.mu.Lock()
	f.filters = append(f.filters, flt)
	f.mu.Unlock()
	if f.refuse != nil {
		return nil, f.refuse
	}
	var out []audit.Entry
	for _, e := range f.entries {
		if flt.Analyst == "" || e.Analyst == flt.Analyst {
			out = append(out, e)
		}
	}
	return out, nil
}

func (f fakeTrail) ExportCSV(_ context.Context, flt audit.Filter) (string, int, error) {
	f.call("export " + flt.Analyst)
	return "/ws/exports/audit-20261121-101500.csv", len(f.entries), nil
}

func newView(t *testing.T, f *fakeDesks) *Model {
	t.Helper()
	m := New(Desks{Access: f, Trail: fakeTrail{f}, Collections: f}, styles.New(true))
	m.SetLocation(time.UTC)
	m.SetSize(80, 20)
	settle(t, m, m.Open())
	return m
}

// settle runs a command and feeds what it produces back to the view, as the program does, and
// returns the status messages shown.
func settle(t *testing.T, m *Model, cmd tea.Cmd) []component.StatusMsg {
	t.Helper()
	var status []component.StatusMsg
	queue := []tea.Cmd{cmd}
	for steps := 0; len(queue) > 0; steps++ {
		if steps > 100 {
			t.Fatal("the messages never settle")
		}
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case component.StatusMsg:
			status = append(status, msg)
		case nil:
		default:
			queue = append(queue, m.Update(msg))
		}
	}
	return status
}

// press sends keys ("enter", "esc", arrows, or text typed a rune at a time) and settles each.
func press(t *testing.T, m *Model, names ...string) []component.StatusMsg {
	t.Helper()
	special := map[string]tea.Key{"enter": {Code: tea.KeyEnter}, "esc": {Code: tea.KeyEscape}, "up": {Code: tea.KeyUp},
		"down": {Code: tea.KeyDown}, "left": {Code: tea.KeyLeft}, "right": {Code: tea.KeyRight}}
	var status []component.StatusMsg
	for _, n := range names {
		if k, ok := special[n]; ok {
			status = append(status, settle(t, m, m.Update(tea.KeyPressMsg(k)))...)
			continue
		}
		for _, r := range n {
			status = append(status, settle(t, m, m.Update(tea.KeyPressMsg{Code: r, Text: string(r)}))...)
		}
	}
	return status
}

func statusHas(status []component.StatusMsg, part string, isErr bool) bool {
	for _, s := range status {
		if strings.Contains(s.Text, part) && s.Err == isErr {
			return true
		}
	}
	return false
}

func (f *fakeDesks) called(s string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.calls {
		if c == s {
			return true
		}
	}
	return false
}

func TestGrantCallsTheDeskWithWhatWasChosen(t *testing.T) {
	f := &fakeDesks{}
	m := newView(t, f)
	// g opens the form; q types into the analyst's name; → picks the next collection; w the level.
	press(t, m, "g")
	if m.Field() != component.FieldActive {
		t.Fatal("the grant form does not have the keyboard")
	}
	press(t, m, "bobq", "enter")
	press(t, m, "right", "enter")
	status := press(t, m, "w", "enter")
	if !f.called("grant bobq suppliers write") {
		t.Fatalf("calls %q", f.calls)
	}
	if !statusHas(status, "bobq may now read and ingest into suppliers", false) {
		t.Errorf("status %v", status)
	}
	if m.view != viewGrants || len(m.list.Grants) != 1 || m.Field() != component.NoField {
		t.Errorf("after the grant: view %v, %d grants listed", m.view, len(m.list.Grants))
	}
	if out := ansi.Strip(m.View()); !strings.Contains(out, "bobq") || !strings.Contains(out, "suppliers") {
		t.Errorf("the new grant is not listed:\n%s", out)
	}
}

func TestChangingAGrantKeepsItsAnalystAndCollection(t *testing.T) {
	f := &fakeDesks{grants: []grants.Grant{{Analyst: "bob", Collection: "standards", Level: grants.Read, GrantedBy: "alice"}}}
	m := newView(t, f)
	press(t, m, "enter") // on the level row: ← goes from read to none
	press(t, m, "left", "enter")
	if !f.called("grant bob standards none") {
		t.Fatalf("calls %q", f.calls)
	}
}

func TestRevokeAsksFirst(t *testing.T) {
	f := &fakeDesks{grants: []grants.Grant{{Analyst: "bob", Collection: "standards", Level: grants.Read, GrantedBy: "alice"}}}
	m := newView(t, f)
	press(t, m, "x")
	if out := ansi.Strip(m.View()); !strings.Contains(out, "Revoke bob's read on standards?") {
		t.Fatalf("no question:\n%s", out)
	}
	status := press(t, m, "n")
	if f.called("revoke bob standards") || !statusHas(status, "nothing was revoked", false) {
		t.Fatalf("n revoked: calls %q, status %v", f.calls, status)
	}
	press(t, m, "x")
	status = press(t, m, "y")
	if !f.called("revoke bob standards") {
		t.Fatalf("calls %q", f.calls)
	}
	if !statusHas(status, "bob no longer has a grant on standards: the default applies (write)", false) || len(m.list.Grants) != 0 {
		t.Errorf("status %v, %d grants", status, len(m.list.Grants))
	}
}

func TestARefusalIsShownAsAnError(t *testing.T) {
	f := &fakeDesks{refuse: service.ErrAccessAdminsOnly}
	m := New(Desks{Access: f, Trail: fakeTrail{f}, Collections: f}, styles.New(true))
	m.SetSize(80, 20)
	status := settle(t, m, m.Open())
	if !statusHas(status, "only an admin may see or change", true) {
		t.Errorf("status %v", status)
	}
	status = press(t, m, "g", "bob", "enter", "enter", "enter")
	if !statusHas(status, "nothing was granted: only an admin", true) {
		t.Errorf("status %v", status)
	}
	if m.view != viewForm || m.analyst.Value() != "bob" {
		t.Errorf("a refused grant leaves the form as it was: view %v, analyst %q", m.view, m.analyst.Value())
	}
	// Esc cancels the form, a second esc leaves the view.
	press(t, m, "esc")
	if m.view != viewGrants || m.TakeClosed() {
		t.Fatal("esc in the form left the view")
	}
	press(t, m, "esc")
	if !m.TakeClosed() {
		t.Fatal("esc on the grants did not leave the view")
	}
}

func TestTheTrailIsNewestFirstFilteredAndExported(t *testing.T) {
	at := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	f := &fakeDesks{entries: []audit.Entry{
		{Seq: 1, At: at, Analyst: "bob", Action: "search", Target: "silane\x1b]52;c;aGk=\x07", Outcome: "ok"},
		{Seq: 2, At: at.Add(time.Minute), Analyst: "alice", Action: "access", Target: "bob/standards", Detail: `{"change":"grant","level":"read"}`, Outcome: "ok"},
	}}
	m := newView(t, f)
	press(t, m, "t")
	out := m.View()
	if strings.Contains(out, "\x1b]52") {
		t.Error("an escape sequence from the store reached the screen")
	}
	plain := ansi.Strip(out)
	if i, j := strings.Index(plain, "access"), strings.Index(plain, "search"); i < 0 || j < 0 || i > j {
		t.Errorf("not newest first:\n%s", plain)
	}
	press(t, m, "a")
	if m.Field() != component.FieldActive {
		t.Fatal("a does not open the analyst filter")
	}
	press(t, m, "bob", "enter")
	if len(m.entries) != 1 || m.entries[0].Analyst != "bob" {
		t.Errorf("filtered to %v", m.entries)
	}
	status := press(t, m, "s", "xyz", "enter")
	if !statusHas(status, "since xyz: allowed is", true) || m.filterFor != "since" {
		t.Errorf("a bad since: status %v, field %q", status, m.filterFor)
	}
	press(t, m, "esc", "s", "7d", "enter")
	last := f.filters[len(f.filters)-1]
	if last.Analyst != "bob" || time.Since(last.Since) < 7*24*time.Hour-time.Minute || time.Since(last.Since) > 7*24*time.Hour+time.Minute {
		t.Errorf("the trail was read with %+v", last)
	}
	status = press(t, m, "e")
	if !f.called("export bob") || !statusHas(status, "wrote exports/audit-20261121-101500.csv (2 audit entries)", false) {
		t.Errorf("calls %q, status %v", f.calls, status)
	}
	press(t, m, "esc")
	if m.view != viewGrants || m.TakeClosed() {
		t.Error("esc on the trail goes back to the grants, not out")
	}
}

func TestItFitsWhenResized(t *testing.T) {
	f := &fakeDesks{grants: []grants.Grant{{Analyst: "a-very-long-analyst-name", Collection: "a-collection-with-a-long-name", Level: grants.Write, GrantedBy: "root"}}}
	m := newView(t, f)
	for _, w := range []int{40, 60, 80, 120} {
		m.SetSize(w, 12)
		for _, v := range []string{"", "t", "g"} {
			if v != "" {
				press(t, m, v)
			}
			for i, line := range strings.Split(m.View(), "\n") {
				if ansi.StringWidth(line) > w {
					t.Errorf("width %d, view %q: line %d is %d wide", w, v, i, ansi.StringWidth(line))
				}
			}
			if v == "g" {
				press(t, m, "esc")
			} else if v == "t" {
				press(t, m, "esc")
			}
		}
	}
}
