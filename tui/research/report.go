package research

import (
	"fmt"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"
	"charm.land/glamour/v2"
	"github.com/charmbracelet/x/ansi"

	"warren/internal/citation"
)

// reportView shows a Markdown report rendered with glamour. Rendering a long report takes a
// while, so it runs in a command: until it is done the view shows the Markdown as it is.
// Renderers are cached per width and the rendered lines per report and width, so drawing a
// frame only slices the visible lines.
type reportView struct {
	markdown      string
	dark          bool
	width, height int
	lines         []string // rendered for renderedFor, or the raw Markdown until then
	rendered      bool
	renderedFor   int
	offset        int
	cites         []citeAt
	sel           int
	streamed      strings.Builder
	cache         *rendererCache
}

// rendererCache keeps one glamour renderer per width and style; commands use it from their
// own goroutines. A glamour renderer is not safe for two renders at once, so each render holds
// the cache's lock; the cache keeps the few most recent widths.
type rendererCache struct {
	mu    sync.Mutex
	m     map[string]*glamour.TermRenderer
	order []string
}

// render renders md at a width, one render at a time.
func (c *rendererCache) render(md string, width int, dark bool) (string, error) {
	r := c.get(width, dark)
	if r == nil {
		return md, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return r.Render(md)
}

func (c *rendererCache) get(width int, dark bool) *glamour.TermRenderer {
	style := "light"
	if dark {
		style = "dark"
	}
	key := fmt.Sprintf("%s/%d", style, width)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]*glamour.TermRenderer{}
	}
	if r, ok := c.m[key]; ok {
		return r
	}
	r, err := glamour.NewTermRenderer(glamour.WithStandardStyle(style), glamour.WithWordWrap(width))
	if err != nil {
		r = nil
	}
	c.m[key] = r
	c.order = append(c.order, key)
	if len(c.order) > 4 { // a window dragged through many widths keeps only the last few
		delete(c.m, c.order[0])
		c.order = c.order[1:]
	}
	return r
}

type citeAt struct{ line, n int }

// reportRenderedMsg brings rendered lines back to the view.
type reportRenderedMsg struct {
	markdown string
	width    int
	lines    []string
}

// set shows a report. Its Markdown is made safe before glamour renders it (see safe): glamour
// passes escape sequences in the text through.
func (v *reportView) set(md string) {
	md = safe(md)
	// A sentence whose numbers its sources do not state carries the research agent's mark
	// (research.UnsupportedMark); set in bold, it stands out of the prose.
	md = strings.ReplaceAll(md, "(⚠ unsupported:", "(**⚠ unsupported:**")
	v.markdown, v.offset, v.sel = md, 0, -1
	v.setLines(strings.Split(md, "\n"), false)
	v.streamed.Reset()
}

func (v *reportView) invalidate() { v.rendered = false }

func (v *reportView) stream(text string) { v.streamed.WriteString(text) }

func (v *reportView) setSize(w, h int) {
	if w != v.width {
		v.rendered = false
	}
	v.width, v.height = w, max(h, 3)
}

// renderCmd renders the report for the current width in the background, when needed.
func (v *reportView) renderCmd() tea.Cmd {
	if v.rendered && v.renderedFor == v.width || v.markdown == "" {
		return nil
	}
	if v.cache == nil {
		v.cache = &rendererCache{}
	}
	md, width, dark, cache := v.markdown, v.width, v.dark, v.cache
	return func() tea.Msg {
		out := md
		if rendered, err := cache.render(md, max(width-2, 20), dark); err == nil {
			out = rendered
		}
		return reportRenderedMsg{markdown: md, width: width, lines: strings.Split(strings.Trim(out, "\n"), "\n")}
	}
}

// took accepts rendered lines if they are still for this report and width.
func (v *reportView) took(msg reportRenderedMsg) {
	if msg.markdown == v.markdown && msg.width == v.width {
		v.setLines(msg.lines, true)
	}
}

func (v *reportView) setLines(lines []string, rendered bool) {
	v.lines, v.rendered, v.renderedFor = lines, rendered, v.width
	v.cites = v.cites[:0]
	for i, l := range v.lines {
		plain := ansi.Strip(l)
		if strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(plain), "#")) == "Sources" {
			break // the source list repeats numbers; citations are in the report above it
		}
		for _, n := range citation.Numbers(plain) {
			v.cites = append(v.cites, citeAt{line: i, n: n})
		}
	}
	if v.sel >= len(v.cites) {
		v.sel = -1
	}
}

// nextCitation selects the next (d = 1) or previous (d = −1) citation; false when there is none.
func (v *reportView) nextCitation(d int) bool {
	if len(v.cites) == 0 {
		return false
	}
	if v.sel < 0 && d < 0 {
		v.sel = 0 // so that going back first selects the last
	}
	v.sel = (v.sel + d + len(v.cites)) % len(v.cites)
	line := v.cites[v.sel].line
	if line < v.offset || line >= v.offset+v.height {
		v.offset = max(line-v.height/3, 0)
	}
	return true
}

func (v *reportView) selected() int {
	if v.sel < 0 || v.sel >= len(v.cites) {
		return 0
	}
	return v.cites[v.sel].n
}

func (v *reportView) scroll(k string, page int) {
	last := max(len(v.lines)-v.height, 0)
	switch k {
	case "up", "k":
		v.offset--
	case "down", "j":
		v.offset++
	case "pgup", "b":
		v.offset -= page
	case "pgdown", "f", "space":
		v.offset += page
	case "home", "g":
		v.offset = 0
	case "end", "G":
		v.offset = last
	}
	v.offset = min(max(v.offset, 0), last)
}

// view draws the visible part, marking the line of the selected citation.
func (v *reportView) view() string {
	end := min(v.offset+v.height, len(v.lines))
	selLine := -1
	if v.sel >= 0 && v.sel < len(v.cites) {
		selLine = v.cites[v.sel].line
	}
	var b strings.Builder
	for i := v.offset; i < end; i++ {
		if i == selLine {
			b.WriteString("▶")
		} else {
			b.WriteString(" ")
		}
		b.WriteString(v.lines[i])
		if i < end-1 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}
