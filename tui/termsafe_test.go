package tui

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"warren/doctor"
	"warren/kb"
	"warren/kb/chunk"
	"warren/retrieval"
	"warren/tui/knowledge"
)

// hostileDoc is a document that tries to drive the terminal: it sets the clipboard (OSC 52),
// colours its text, and does both again with 8-bit (C1) introducers; its file name holds an
// escape sequence and a line break.
const (
	hostileID   = "inbox/evil\x1b[31m\nname.md"
	hostileText = "Alarm \x1b[31mRED ALERT\x1b[0m purge the line \x1b]52;c;aGVsbG8=\x07 then \u009b31mC1 red\u009b0m and \u009d52;c;x\u009c done."
)

// hostileKB is the fixture with the hostile document in its knowledge base.
type hostileKB struct{ fixture }

func (hostileKB) Documents(context.Context, string) ([]kb.DocInfo, error) {
	return []kb.DocInfo{{ID: hostileID, Collection: "general", Chunks: 1, Title: "Red \x1b[31mtitle\x1b]0;pwned\x07"}}, nil
}

func (hostileKB) hostileChunk() chunk.Chunk {
	return chunk.Chunk{ID: hostileID + "#0000", Doc: hostileID, Collection: "general", Section: "1", SectionPath: "1 \x1b[2JPurge",
		Heading: "Purge \u009b31mnow", Text: hostileText}
}

func (b hostileKB) DocumentChunks(context.Context, string) ([]chunk.Chunk, error) {
	return []chunk.Chunk{b.hostileChunk()}, nil
}

func (b hostileKB) Search(context.Context, retrieval.Request) ([]retrieval.Result, error) {
	return []retrieval.Result{{Chunk: b.hostileChunk(), Score: 0.9}}, nil
}

// sgrOnly matches warren's own styling: SGR sequences.
var sgrOnly = regexp.MustCompile("\x1b\\[[0-9;:]*m")

// requireNothingDrives fails when view holds anything of the hostile document's sequences,
// or any escape sequence but SGR.
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

// TestKnowledgeTabShowsAHostileDocumentSafely: a document with OSC 52, colour codes and C1
// controls, searched and opened in the Knowledge tab, is shown as text: the panel draws none
// of its sequences (before the frame's own filter), and its words are still there.
func TestKnowledgeTabShowsAHostileDocumentSafely(t *testing.T) {
	m := New(desksOf(hostileKB{}, noTox{}))
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 30})
	m.Update(doctorMsg{report: doctor.Report{OK: true}})
	m.tab = 1 // the question field has the keys at first: 2 would be typed
	cols, _ := fixture{}.Collections(context.Background())
	docs, _ := hostileKB{}.Documents(context.Background(), "")
	settle(t, m, knowledge.ListMsg{Cols: cols, Docs: docs})

	screens := []struct {
		name  string
		open  func()
		shown string // how the document is named there
	}{
		{"documents", func() {}, "evil⏎name.md"},
		{"chunks", func() { press(t, m, "enter") }, "Chunks of inbox/evil⏎name.md"},
		{"results", func() {
			press(t, m, "esc", "/")
			settle(t, m, tea.PasteMsg{Content: "purge"})
			press(t, m, "enter")
		}, "Red title § 1 — Purge now"},
		{"passage", func() { press(t, m, "enter") }, "evil⏎name.md"},
	}
	for _, sc := range screens {
		sc.open()
		for _, w := range []int{80, 120} {
			m.Update(tea.WindowSizeMsg{Width: w, Height: 30})
			panel, frame := m.knowledge.View(), m.Render()
			where := fmt.Sprintf("%s at %d columns", sc.name, w)
			requireNothingDrives(t, where+", panel", panel)
			requireNothingDrives(t, where+", frame", frame)
			plain := ansi.Strip(frame)
			if !strings.Contains(plain, sc.shown) {
				t.Errorf("%s: the document is not named %q:\n%s", where, sc.shown, plain)
			}
			if sc.name != "passage" && sc.name != "chunks" {
				continue
			}
			for _, words := range []string{"RED ALERT", "purge the line", "C1 red"} {
				if !strings.Contains(strings.Join(strings.Fields(plain), " "), words) {
					t.Errorf("%s: the document's words %q are gone:\n%s", where, words, plain)
				}
			}
		}
	}
	if showing, _, _ := strings.Cut(m.knowledge.Screen(), "/"); showing != "passage" {
		t.Errorf("the flow ends on %q, not on the passage", showing)
	}
}

// TestTheFrameKeepsOnlyWarrensColours: whatever a view lets through, the frame that reaches
// the terminal holds no escape sequence but SGR (the status line here carries an error that
// quotes the document).
func TestTheFrameKeepsOnlyWarrensColours(t *testing.T) {
	m := New(desksOf(fixture{}, noTox{}))
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 24})
	settle(t, m, newStatus("couldn't read "+hostileID+": "+hostileText, true))
	frame := m.Render()
	requireNothingDrives(t, "frame", frame)
	if !strings.Contains(ansi.Strip(frame), "inbox/evil name.md: Alarm RED ALERT") { // the status line folds line breaks
		t.Errorf("the status line lost the name:\n%s", ansi.Strip(frame))
	}
	if !sgrOnly.MatchString(frame) {
		t.Error("the frame lost warren's own colours")
	}
}
