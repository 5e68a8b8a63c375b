package research

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"warren/config"
	"warren/kb/chunk"
	"warren/service"
	"warren/service/jobs"
	"warren/tui/styles"
)

// stub is a service with no runs, no jobs and no passages.
type stub struct{}

func (stub) Start(context.Context, string, string, service.ResearchOptions, service.RunSink) (service.RunOutcome, *service.ResearchState, error) {
	return service.RunOutcome{}, nil, nil
}
func (stub) Resume(context.Context, string, json.RawMessage, service.RunSink) (service.RunOutcome, *service.ResearchState, error) {
	return service.RunOutcome{}, nil, nil
}
func (stub) Runs(context.Context) ([]service.RunInfo, error) { return nil, nil }
func (stub) Budgets() config.Budgets                         { return config.Default().Budgets }
func (stub) Watch(_ context.Context, run string, _ service.RunSink) (service.RunOutcome, *service.ResearchState, error) {
	return service.RunOutcome{Run: run}, nil, nil
}
func (stub) Analyst() (string, bool)                  { return "analyst", false }
func (stub) List(context.Context) ([]jobs.Job, error) { return nil, nil }
func (stub) Live(context.Context, time.Time) (jobs.Job, bool, error) {
	return jobs.Job{}, false, nil
}
func (stub) Cancel(context.Context, string) error { return nil }
func (stub) RunState(context.Context, string) (service.RunCheckpoint, *service.ResearchState, error) {
	return service.RunCheckpoint{}, nil, nil
}
func (stub) Ledger(context.Context, string) ([]service.LedgerEntry, error) { return nil, nil }
func (stub) GoesOn(context.Context, string) bool                           { return false }
func (stub) History(context.Context, string, int64) ([]service.RunEvent, error) {
	return nil, nil
}
func (stub) Export(_ context.Context, run, format, _ string) (string, error) {
	return "exports/research-" + run + "." + format, nil
}
func (stub) Chunks(context.Context, []string) ([]chunk.Chunk, error) { return nil, nil }

// blocking runs until it is cancelled, like a slow model.
type blocking struct{ stub }

func (blocking) Start(ctx context.Context, run, q string, o service.ResearchOptions, sink service.RunSink) (service.RunOutcome, *service.ResearchState, error) {
	<-ctx.Done()
	return service.RunOutcome{Run: run, Status: service.RunCanceled}, nil, ctx.Err()
}

// drain runs a command and returns the messages it produced (batches flattened).
func drain(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	if batch, ok := msg.(tea.BatchMsg); ok {
		var out []tea.Msg
		for _, c := range batch {
			out = append(out, drain(c)...)
		}
		return out
	}
	return []tea.Msg{msg}
}

func TestARunCannotBeOrphaned(t *testing.T) {
	r := New(blocking{}, styles.New(true))
	r.question.SetValue("How are cylinders purged?")
	cmd := r.key(tea.KeyPressMsg{Code: tea.KeyEnter})
	if !r.running() || cmd == nil {
		t.Fatal("the run should be running")
	}
	queue := r.queue
	// Opening a session or starting another run while one runs is refused with a reason.
	for _, c := range []tea.Cmd{r.openRun("another"), r.startRun("second question")} {
		msgs := drain(c)
		if len(msgs) != 1 || !strings.Contains(msgs[0].(statusMsg).Text, "Esc cancels it") {
			t.Fatalf("want a refusal, got %+v", msgs)
		}
	}
	if r.queue != queue {
		t.Fatal("the running run was replaced")
	}
	r.cancel()
	var done runDoneMsg
	for _, c := range []tea.Cmd{cmd} {
		for _, msg := range drain(c) {
			if d, ok := msg.(runDoneMsg); ok {
				done = d
			}
		}
	}
	r.Update(done)
	if r.running() || r.status != "cancelled" {
		t.Errorf("the cancelled run must end: running %v, status %q", r.running(), r.status)
	}
}

func TestAddingToAnEmptyPlanDoesNotPanic(t *testing.T) {
	r := New(stub{}, styles.New(true))
	r.view, r.plan = viewPlan, nil
	r.key(tea.KeyPressMsg{Code: 'a', Text: "a"})
	r.edit.SetValue("a first task")
	r.key(tea.KeyPressMsg{Code: tea.KeyEnter})
	if len(r.plan) != 1 || r.plan[0].Query != "a first task" {
		t.Errorf("plan: %+v", r.plan)
	}
}

func TestCitationsWithListsAndRanges(t *testing.T) {
	var v reportView
	v.setSize(80, 20)
	v.set("Claim [1, 3].\n\nOther claim [2–4].\n\n## Sources\n\n[1] a\n[2] b")
	var got []int
	for _, c := range v.cites {
		got = append(got, c.n)
	}
	if len(got) != 5 || got[0] != 1 || got[1] != 3 || got[4] != 4 {
		t.Errorf("cited numbers %v (the source list must not count)", got)
	}
	v.nextCitation(-1)
	if v.selected() != 4 {
		t.Errorf("going back first selects the last citation, got %d", v.selected())
	}
}

// TestAReportIsMadeSafeBeforeGlamour: glamour passes escape sequences in Markdown through, so
// a model's report that holds them is cleaned before it is rendered.
func TestAReportIsMadeSafeBeforeGlamour(t *testing.T) {
	v := &reportView{}
	v.setSize(100, 20)
	v.set("# Report\n\nThe line is purged [1]. " + hostileText + "\n\n## Sources\n\n[1] " + hostileID + "\n")
	msg, ok := v.renderCmd()().(reportRenderedMsg)
	if !ok {
		t.Fatal("no rendered report")
	}
	v.took(msg)
	if !v.rendered {
		t.Fatal("the rendered lines were not taken")
	}
	view := v.view()
	requireNothingDrives(t, "report", view)
	if plain := strings.Join(strings.Fields(ansi.Strip(view)), " "); !strings.Contains(plain, "RED ALERT purge the line") || !strings.Contains(plain, "evil⏎name.md") && !strings.Contains(plain, "evil name.md") {
		t.Errorf("the report lost its words:\n%s", plain)
	}
}

// A report that tries to drive the terminal: it sets the clipboard (OSC 52), colours its text,
// and does both again with 8-bit (C1) introducers; the file it cites has an escape sequence
// and a line break in its name.
const (
	hostileID   = "inbox/evil\x1b[31m\nname.md"
	hostileText = "Alarm \x1b[31mRED ALERT\x1b[0m purge the line \x1b]52;c;aGVsbG8=\x07 then \u009b31mC1 red\u009b0m and \u009d52;c;x\u009c done."
)

// sgrOnly matches warren's own styling: SGR sequences.
var sgrOnly = regexp.MustCompile("\x1b\\[[0-9;:]*m")

// requireNothingDrives fails when view holds anything of the hostile text's sequences, or any
// escape sequence but SGR.
func requireNothingDrives(t *testing.T, where, view string) {
	t.Helper()
	for _, bad := range []string{"]52", "]0;", "\x07", "\u009b", "\u009d", "\u009c", "\x1b[31mRED", "\x1b[31mtitle", "\x1b[2J", "\n" + "name.md"} {
		if strings.Contains(view, bad) {
			t.Errorf("%s holds %q:\n%q", where, bad, view)
		}
	}
	if rest := sgrOnly.ReplaceAllString(view, ""); strings.ContainsRune(rest, 0x1b) {
		t.Errorf("%s holds an escape sequence other than warren's colours:\n%q", where, view)
	}
}
