package research

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"warren/service"
	"warren/tui/styles"
)

// TestXChoosesTheFormatAndTheStatusNamesTheFile: on a finished report x opens the chooser,
// which the header and the help line show; a format's key exports at once, enter the one
// shown, esc leaves it; the status line names the file written.
func TestXChoosesTheFormatAndTheStatusNamesTheFile(t *testing.T) {
	r := New(stub{}, styles.New(true))
	r.SetSize(120, 30)
	r.run, r.view = "run-1", viewReport
	r.state = &service.ResearchState{Report: "Silan ist pyrophor [1]."}
	r.report.set(service.ResearchReport(r.state))

	settleAll(r, r.Update(keyPress("x")))
	if !r.exportPick {
		t.Fatal("x did not open the chooser")
	}
	if v := ansi.Strip(r.View()); !strings.Contains(v, "Export as") || !strings.Contains(v, "d DOCX") || !strings.Contains(v, "p PDF") {
		t.Errorf("the chooser is not shown:\n%s", v)
	}
	r.SetSize(80, 24) // the formats fit the narrowest screen
	if v := ansi.Strip(r.View()); !strings.Contains(strings.Split(v, "\n")[0], "h HTML") {
		t.Errorf("at 80 columns the chooser cuts the formats:\n%s", v)
	}
	if h := helpText(r); !strings.Contains(h, "d DOCX") || !strings.Contains(h, "h HTML") || !strings.Contains(h, "esc cancel") {
		t.Errorf("the help line does not offer the formats: %s", h)
	}
	status := settleAll(r, r.Update(keyPress("d")))
	if r.exportPick || len(status) == 0 || status[len(status)-1] != "report exported: exports/research-run-1.docx (docx)" {
		t.Errorf("d: chooser open %v, status %q", r.exportPick, status)
	}

	// Enter exports the format shown, which ←/→ change; the last one chosen is shown first.
	settleAll(r, r.Update(keyPress("x")))
	settleAll(r, r.Update(keyPress("right")))
	status = settleAll(r, r.Update(keyPress("enter")))
	if len(status) == 0 || !strings.HasSuffix(status[len(status)-1], "research-run-1.odt (odt)") {
		t.Errorf("enter after →: %q", status)
	}

	// Esc leaves the chooser without exporting; the report's keys work again.
	settleAll(r, r.Update(keyPress("x")))
	status = settleAll(r, r.Update(keyPress("esc")))
	if r.exportPick || r.view != viewReport || len(status) != 1 || status[0] != "not exported" {
		t.Errorf("esc: chooser open %v, view %d, status %q", r.exportPick, r.view, status)
	}
	if v := ansi.Strip(r.View()); !strings.Contains(v, "Report  run run-1") {
		t.Errorf("after esc the report's title is back:\n%s", v)
	}
}
