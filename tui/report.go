package tui

import (
	"regexp"
	"strconv"
	"strings"

	"charm.land/glamour/v2"
	"github.com/charmbracelet/x/ansi"
)

// reportView shows a Markdown report rendered with glamour. The renderer is cached per width
// and the rendered lines per report, so drawing a frame only slices the visible lines.
type reportView struct {
	markdown      string
	dark          bool
	width, height int
	lines         []string
	renderedFor   int
	offset        int
	cites         []citeAt
	sel           int
	renderers     map[int]*glamour.TermRenderer
	streamed      strings.Builder
}

type citeAt struct{ line, n int }

var citeRE = regexp.MustCompile(`\[(\d+)\]`)

func (v *reportView) set(md string) {
	v.markdown, v.lines, v.offset, v.sel = md, nil, 0, -1
	v.streamed.Reset()
}

func (v *reportView) invalidate() { v.lines = nil; v.renderers = nil }

func (v *reportView) stream(text string) { v.streamed.WriteString(text) }

func (v *reportView) setSize(w, h int) {
	if w != v.width {
		v.lines = nil
	}
	v.width, v.height = w, max(h, 3)
}

func (v *reportView) render() {
	if v.lines != nil && v.renderedFor == v.width {
		return
	}
	width := max(v.width-2, 20)
	if v.renderers == nil {
		v.renderers = map[int]*glamour.TermRenderer{}
	}
	r, ok := v.renderers[width]
	if !ok {
		style := "light"
		if v.dark {
			style = "dark"
		}
		var err error
		if r, err = glamour.NewTermRenderer(glamour.WithStandardStyle(style), glamour.WithWordWrap(width)); err != nil {
			r = nil
		}
		v.renderers[width] = r
	}
	out := v.markdown
	if r != nil {
		if rendered, err := r.Render(v.markdown); err == nil {
			out = rendered
		}
	}
	v.lines = strings.Split(strings.Trim(out, "\n"), "\n")
	v.renderedFor = v.width
	v.cites = v.cites[:0]
	for i, l := range v.lines {
		for _, m := range citeRE.FindAllStringSubmatch(ansi.Strip(l), -1) {
			n, _ := strconv.Atoi(m[1])
			v.cites = append(v.cites, citeAt{line: i, n: n})
		}
	}
}

func (v *reportView) nextCitation(d int) {
	v.render()
	if len(v.cites) == 0 {
		return
	}
	v.sel = (v.sel + d + len(v.cites)) % len(v.cites)
	line := v.cites[v.sel].line
	if line < v.offset || line >= v.offset+v.height {
		v.offset = max(line-v.height/3, 0)
	}
}

func (v *reportView) selected() int {
	if v.sel < 0 || v.sel >= len(v.cites) {
		return 0
	}
	return v.cites[v.sel].n
}

func (v *reportView) scroll(k string, page int) {
	v.render()
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
	v.render()
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
