package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/x/ansi"

	"warren/internal/termsafe"
	"warren/kb"
	"warren/service"
)

// ProgressLine draws a one-line progress bar on a terminal and nothing elsewhere, so logs and
// pipes stay clean. Its methods may be called from several goroutines.
type ProgressLine struct {
	w       io.Writer
	enabled bool
	cols    func() int // the terminal's width, asked at each draw: it may be resized

	mu       sync.Mutex
	last     time.Time
	width    int // cells drawn by the last draw, to blank what a shorter line leaves
	ingest   *kb.Progress
	stopping string
}

// NewProgressLine draws on w when w is a terminal. It draws on the terminal itself, past a
// sanitising writer (which would remove its carriage returns), and cleans what it draws.
func NewProgressLine(w io.Writer) *ProgressLine {
	p := &ProgressLine{w: w}
	if f, ok := File(w); ok {
		if info, err := f.Stat(); err == nil && info.Mode()&os.ModeCharDevice != 0 {
			p.w, p.enabled = f, true
			p.cols = func() int { return TerminalWidth(f, 80) }
		}
	}
	return p
}

// Ingest draws ingest progress: the bar over files, the files done of all, the rate and the
// time left once the ingest has measured them, and as much of the current file's name as the
// terminal has room for.
func (p *ProgressLine) Ingest(pr kb.Progress) {
	if !p.enabled {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ingest = &pr
	if time.Since(p.last) < 100*time.Millisecond && pr.FilesDone < pr.Files {
		return
	}
	p.last = time.Now()
	p.drawIngest()
}

// Stopping says, in place of the rate and the time left (which no longer hold), that the work
// is stopping and how: "stopping: saving what is done…". It draws at once.
func (p *ProgressLine) Stopping(words string) {
	if !p.enabled {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stopping = words
	// The terminal echoes ^C where the cursor is, after the line: this draw and the next ones
	// blank the rest of the line, wherever the echo landed.
	p.width = p.room()
	if p.ingest == nil {
		p.draw(words)
		return
	}
	p.drawIngest()
}

func (p *ProgressLine) drawIngest() {
	pr := *p.ingest
	room := p.room()
	words := service.IngestProgressWords(pr.FilesDone, pr.Files, pr.Rate, pr.Remaining)
	if p.stopping != "" {
		words = service.IngestProgressWords(pr.FilesDone, pr.Files, 0, 0) + " · " + p.stopping
	}
	// The words come first; the bar gives way to them and to 20 cells of the name down to 8
	// cells, and goes on a terminal too narrow for both. Its width is set by the longest words
	// this ingest may show, so that it does not jump as the rate and the time left change.
	longest := max(ansi.StringWidth(words), ansi.StringWidth(service.IngestProgressWords(pr.Files-1, pr.Files, 999, 59*time.Minute)))
	line := words
	if barWidth := min(24, room-longest-3-20); room-ansi.StringWidth(words)-3 >= 8 {
		barWidth = max(barWidth, 8)
		filled := 0
		if pr.Files > 0 {
			filled = min(barWidth, barWidth*pr.FilesDone/pr.Files)
		}
		line = fmt.Sprintf("[%s%s] %s", strings.Repeat("=", filled), strings.Repeat(" ", barWidth-filled), words)
	}
	// The name is cleaned before it is measured and cut: an escape sequence in it would count
	// cells it does not take.
	if left := room - ansi.StringWidth(line) - 3; pr.Current != "" && p.stopping == "" && left >= 8 {
		line += " · " + shortName(termsafe.Line(filepath.Base(pr.Current)), left)
	}
	p.draw(line)
}

// shortName cuts name to width cells in its middle, so that its beginning and its extension
// stay: "safety-data-sheet-…-2024.pdf".
func shortName(name string, width int) string {
	if ansi.StringWidth(name) <= width {
		return name
	}
	tail := (width - 1) / 2
	head := width - 1 - tail
	runes := []rune(name)
	end := ""
	for i := len(runes) - 1; i >= 0 && ansi.StringWidth(string(runes[i])+end) <= tail; i-- {
		end = string(runes[i]) + end
	}
	return ansi.Truncate(name, head, "") + "…" + end
}

// room is how many cells a line may take: one less than the terminal's width, as a line
// that fills it would leave the cursor waiting to wrap.
func (p *ProgressLine) room() int {
	cols := 80
	if p.cols != nil {
		cols = p.cols()
	}
	return max(cols-1, 10)
}

// Draw replaces the line with line, made safe with termsafe.Line (it may name a file) and cut
// to the terminal's width.
func (p *ProgressLine) Draw(line string) {
	if !p.enabled {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.draw(line)
}

func (p *ProgressLine) draw(line string) {
	line = ansi.Truncate(termsafe.Line(line), p.room(), "…")
	width := ansi.StringWidth(line)
	pad := max(p.width-width, 0)
	fmt.Fprintf(p.w, "\r%s%s", line, strings.Repeat(" ", pad))
	p.width = width
}

// Done clears the line.
func (p *ProgressLine) Done() {
	if !p.enabled {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.width > 0 {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", p.width))
		p.width = 0
	}
}
