package knowledge

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"warren/kb"
	"warren/service"
	"warren/tui/component"
	"warren/tui/styles"
)

// slowIngest is a knowledge desk whose ingest reports progress, then waits to be cancelled
// and says what it kept.
type slowIngest struct {
	Service
	progress kb.Progress
}

func (slowIngest) Collections(context.Context) ([]kb.CollectionInfo, error) { return nil, nil }
func (slowIngest) Documents(context.Context, string) ([]kb.DocInfo, error)  { return nil, nil }

func (s slowIngest) Ingest(ctx context.Context, _ []kb.Item, opts service.IngestOptions) (*kb.IngestReport, error) {
	opts.Progress(s.progress)
	<-ctx.Done()
	return &kb.IngestReport{Ingested: s.progress.FilesDone, Canceled: true}, nil
}

// The tab's progress says the files done of all, the rate and the time left in words, on
// lines that fit 80 columns even with a long file name; esc cancels, keeping what is stored.
func TestIngestProgressShowsThePaceAndFits80Columns(t *testing.T) {
	long := "/data/sds/safety-data-sheet-of-silane-from-nordgas-revision-2024-final-signed\x1b[31m.pdf"
	k := New(slowIngest{progress: kb.Progress{Files: 1000, FilesDone: 12, Chunks: 340, Current: long,
		Rate: 85, Remaining: 12 * time.Second}}, styles.New(true))
	k.SetSize(80, 24)
	batch, ok := k.startIngest("/data/sds")().(tea.BatchMsg)
	if !ok || len(batch) != 2 {
		t.Fatalf("startIngest: %T", batch)
	}
	done := make(chan tea.Msg, 1)
	go func() { done <- batch[0]() }() // the ingest, until cancelled
	k.Update(batch[1]())               // its first progress
	view := k.View()
	t.Log("\n" + ansi.Strip(view))
	for _, want := range []string{"12 of 1,000 files · 85 files/s · about 10s left", "340 chunks", "safety-data", "esc cancels, keeping what is stored"} {
		if !strings.Contains(ansi.Strip(view), want) {
			t.Errorf("the view does not show %q:\n%s", want, view)
		}
	}
	for i, line := range strings.Split(view, "\n") {
		if w := ansi.StringWidth(line); w > 80 {
			t.Errorf("line %d takes %d cells of 80: %q", i+1, w, ansi.Strip(line))
		}
	}
	if strings.Contains(view, "\x1b[31m") {
		t.Errorf("the file's name put its escape sequence on screen: %q", view)
	}

	// Before a measure the pace is left out rather than shown as 0.
	k.progress = kb.Progress{Files: 1000, FilesDone: 3}
	if v := ansi.Strip(k.View()); !strings.Contains(v, "3 of 1,000 files") || strings.Contains(v, "files/s") || strings.Contains(v, "left") {
		t.Errorf("the view before a measure:\n%s", v)
	}

	k.progress = kb.Progress{Files: 1000, FilesDone: 12, Rate: 85, Remaining: 12 * time.Second}
	k.key(tea.KeyPressMsg{Code: tea.KeyEscape})
	// Stopping, the pace no longer holds: the tab says it stops, and keeps what is done.
	if v := ansi.Strip(k.View()); !strings.Contains(v, "12 of 1,000 files · stopping") || strings.Contains(v, "files/s") || !strings.Contains(v, "saving what is done") {
		t.Errorf("the view while stopping:\n%s", v)
	}
	select {
	case msg := <-done:
		cmd := k.Update(msg)
		var status component.StatusMsg
		for _, m := range drainBatch(cmd) {
			if s, ok := m.(component.StatusMsg); ok {
				status = s
			}
		}
		if !strings.Contains(status.Text, "ingest cancelled, what is done is kept (the same ingest again goes on): ingested 12") {
			t.Errorf("after esc the status says %q", status.Text)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("esc did not cancel the ingest")
	}
	if k.ingesting() || strings.Contains(k.View(), "files/s") {
		t.Error("the progress stays after the ingest ended")
	}
}

// drainBatch runs cmd and the commands of a batch it returns.
func drainBatch(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	batch, ok := msg.(tea.BatchMsg)
	if !ok {
		return []tea.Msg{msg}
	}
	var out []tea.Msg
	for _, c := range batch {
		if c != nil {
			out = append(out, c())
		}
	}
	return out
}
