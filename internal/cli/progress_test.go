package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"warren/kb"
)

// drawn is each line a ProgressLine drew on its terminal, as the terminal shows it: what
// follows each carriage return.
func drawn(out string) []string {
	var lines []string
	for _, l := range strings.Split(out, "\r") {
		if l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// onTerminal is a ProgressLine as NewProgressLine makes it on a terminal of cols columns.
func onTerminal(cols int) (*ProgressLine, *bytes.Buffer) {
	var out bytes.Buffer
	return &ProgressLine{w: &out, enabled: true, cols: func() int { return cols }}, &out
}

// The line says the files done of all, the rate and the time left, fits an 80-column terminal
// with a long file name, and draws no escape sequence a file's name holds.
func TestIngestLineSaysThePaceAndFitsTheTerminal(t *testing.T) {
	p, out := onTerminal(80)
	name := "/data/sds/\x1b]0;pwned\x07safety-data-sheet-of-silane-from-nordgas-revision-2024-final-signed.pdf"
	p.Ingest(kb.Progress{Files: 3000, FilesDone: 1234, Chunks: 5000, Current: name, Rate: 85.2, Remaining: 2*time.Minute + 8*time.Second})
	lines := drawn(out.String())
	if len(lines) != 1 {
		t.Fatalf("drew %q, want one line", out.String())
	}
	line := lines[0]
	for _, want := range []string{"1,234 of 3,000 files", "85 files/s", "about 2m10s left", "[", " · safe", "…", ".pdf"} {
		if !strings.Contains(line, want) {
			t.Errorf("the line %q does not show %q", line, want)
		}
	}
	if w := ansi.StringWidth(line); w > 79 {
		t.Errorf("the line takes %d cells of 80 (one is left, or the cursor waits to wrap): %q", w, line)
	}
	if strings.ContainsAny(out.String(), "\x1b\x07") || strings.Contains(line, "pwned") && strings.Contains(line, "]0;") {
		t.Errorf("an escape sequence of the file's name reached the terminal: %q", out.String())
	}

	// A narrower terminal still gets the words whole: the name goes first, then the bar.
	for cols, bar := range map[int]bool{64: true, 50: false} {
		p, out = onTerminal(cols)
		p.Ingest(kb.Progress{Files: 3000, FilesDone: 1234, Current: name, Rate: 85.2, Remaining: 2 * time.Minute})
		line = drawn(out.String())[0]
		if w := ansi.StringWidth(line); w > cols-1 || !strings.HasSuffix(line, "about 2m left") || strings.HasPrefix(line, "[") != bar {
			t.Errorf("at %d columns: %q (%d cells)", cols, line, w)
		}
	}
}

// Until the ingest has measured its pace, the line says the files alone: no "0 files/s", no
// time left.
func TestIngestLineLeavesOutAPaceNotMeasured(t *testing.T) {
	p, out := onTerminal(80)
	p.Ingest(kb.Progress{Files: 3000, FilesDone: 3, Current: "a.txt"})
	line := drawn(out.String())[0]
	if !strings.Contains(line, "3 of 3,000 files · a.txt") || strings.Contains(line, "/s") || strings.Contains(line, "left") {
		t.Errorf("the line before a measure: %q", line)
	}
}

// A shorter line blanks what the longer one before it left, within the width; Done clears it.
func TestIngestLineRedrawsOverItselfAndClears(t *testing.T) {
	p, out := onTerminal(80)
	p.Ingest(kb.Progress{Files: 10, FilesDone: 1, Current: "a-rather-long-file-name-that-takes-room.txt", Rate: 2, Remaining: 5 * time.Second})
	p.Ingest(kb.Progress{Files: 10, FilesDone: 10, Current: "b.txt"}) // the last one is drawn unthrottled
	lines := drawn(out.String())
	if len(lines) != 2 {
		t.Fatalf("drew %q", out.String())
	}
	if ansi.StringWidth(lines[1]) != ansi.StringWidth(lines[0]) || ansi.StringWidth(lines[1]) > 79 {
		t.Errorf("the redraw does not cover the line before exactly: %q over %q", lines[1], lines[0])
	}
	out.Reset()
	p.Done()
	if got := out.String(); strings.TrimSpace(strings.ReplaceAll(got, "\r", "")) != "" || !strings.HasSuffix(got, "\r") {
		t.Errorf("Done wrote %q", got)
	}
}

// Off a terminal (a pipe, a file, a buffer) nothing is drawn, so logs stay clean.
func TestIngestLineDrawsNothingOffATerminal(t *testing.T) {
	var buf bytes.Buffer
	p := NewProgressLine(&buf)
	p.Ingest(kb.Progress{Files: 2, FilesDone: 2, Current: "a.txt", Rate: 3, Remaining: time.Second})
	p.Done()
	f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	q := NewProgressLine(f)
	q.Ingest(kb.Progress{Files: 2, FilesDone: 2, Current: "a.txt"})
	q.Draw("something")
	q.Done()
	if info, _ := f.Stat(); buf.Len() > 0 || info.Size() > 0 {
		t.Errorf("drew off a terminal: %q, %d bytes in a file", buf.String(), info.Size())
	}
}

// Once stopping, the line says so at once in place of a rate and a time left that no longer
// hold, and the progress that still comes keeps saying it.
func TestIngestLineSaysItIsStopping(t *testing.T) {
	p, out := onTerminal(80)
	p.Ingest(kb.Progress{Files: 3000, FilesDone: 1302, Current: "sds-1135.txt", Rate: 109, Remaining: 15 * time.Second})
	p.Stopping("stopping: saving what is done…")
	p.Ingest(kb.Progress{Files: 3000, FilesDone: 1310, Current: "sds-1140.txt", Rate: 100, Remaining: 16 * time.Second})
	lines := drawn(out.String())
	if len(lines) < 2 {
		t.Fatalf("drew %q", out.String())
	}
	for _, line := range lines[1:] {
		if !strings.Contains(line, "1,302 of 3,000 files · stopping: saving what is done…") && !strings.Contains(line, "1,310 of 3,000 files · stopping") ||
			strings.Contains(line, "files/s") || strings.Contains(line, "left") {
			t.Errorf("a line while stopping: %q", line)
		}
	}
}
