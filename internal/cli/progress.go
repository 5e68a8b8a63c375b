package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"warren/internal/termsafe"
	"warren/kb"
)

// ProgressLine draws a one-line progress bar on a terminal and nothing elsewhere, so logs and
// pipes stay clean.
type ProgressLine struct {
	w       io.Writer
	enabled bool
	last    time.Time
	width   int
}

// NewProgressLine draws on w when w is a terminal. It draws on the terminal itself, past a
// sanitising writer (which would remove its carriage returns), and cleans what it draws.
func NewProgressLine(w io.Writer) *ProgressLine {
	p := &ProgressLine{w: w}
	if f, ok := File(w); ok {
		if info, err := f.Stat(); err == nil && info.Mode()&os.ModeCharDevice != 0 {
			p.w, p.enabled = f, true
		}
	}
	return p
}

// Ingest draws ingest progress: a bar over files, then chunks and embedding throughput.
func (p *ProgressLine) Ingest(pr kb.Progress) {
	if !p.enabled || time.Since(p.last) < 100*time.Millisecond && pr.FilesDone < pr.Files {
		return
	}
	p.last = time.Now()
	const barWidth = 24
	filled := 0
	if pr.Files > 0 {
		filled = barWidth * pr.FilesDone / pr.Files
	}
	rate := 0.0
	if s := pr.Elapsed.Seconds(); s > 0 {
		rate = float64(pr.Embedded) / s
	}
	line := fmt.Sprintf("[%s%s] %d/%d files · %d chunks · %.0f embeddings/s · %s",
		strings.Repeat("=", filled), strings.Repeat(" ", barWidth-filled), pr.FilesDone, pr.Files,
		pr.Chunks, rate, filepath.Base(pr.Current))
	p.Draw(line)
}

// Draw replaces the line with line (made safe with termsafe.Line, as it may name a file, and
// cut to 110 bytes).
func (p *ProgressLine) Draw(line string) {
	if !p.enabled {
		return
	}
	line = termsafe.Line(line)
	if len(line) > 110 {
		cut := 110
		for cut > 0 && !utf8.RuneStart(line[cut]) {
			cut-- // never inside a character
		}
		line = line[:cut]
	}
	pad := max(p.width-len(line), 0)
	fmt.Fprintf(p.w, "\r%s%s", line, strings.Repeat(" ", pad))
	p.width = len(line)
}

// Done clears the line.
func (p *ProgressLine) Done() {
	if p.enabled && p.width > 0 {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", p.width))
		p.width = 0
	}
}
