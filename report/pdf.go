package report

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/go-pdf/fpdf"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/gobolditalic"
	"golang.org/x/image/font/gofont/goitalic"
	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/sfnt"
)

// PDF page geometry in millimetres (A4) and type sizes in points.
const (
	pdfMargin  = 20.0
	pdfBottom  = 18.0
	pdfIndent  = 6.0
	pdfBody    = 10.0
	pdfLine    = 5.0
	pdfPad     = 1.2 // inside table cells and boxes
	pdfFamily  = "Go"
	pdfMono    = "GoMono"
	pdfFixedAt = "2000-01-01T00:00:00Z" // the file's date when the document gives none
)

// RGB colours the PDF uses, as in the other formats.
var (
	pdfInk     = [3]int{26, 26, 26}
	pdfLinkInk = [3]int{31, 78, 140}
	pdfFlagInk = [3]int{138, 28, 0}
	pdfFlagBg  = [3]int{255, 255, 0}
	pdfGrey    = [3]int{160, 160, 160}
	pdfCodeBg  = [3]int{242, 242, 242}
	pdfNoteBg  = [3]int{238, 243, 248}
	pdfNoteBar = [3]int{127, 159, 191}
	pdfWarnBg  = [3]int{251, 234, 234}
	pdfWarnBar = [3]int{192, 80, 77}
	pdfHeadBg  = [3]int{232, 232, 232}
)

// WritePDF writes d as a PDF with the Go fonts embedded (golang.org/x/image/font/gofont, under
// a BSD licence: a free family that covers German and the symbols of safety data, ä ö ü ß, µ,
// °, ≤), subset to the characters used, so it reads the same on any machine
// and its text can be searched and copied: headings in the outline, citations linked to
// their references, page numbers in the footer.
func WritePDF(d *Document) ([]byte, error) {
	p := &pdfWriter{pdf: fpdf.New("P", "mm", "A4", ""), links: map[int]int{}}
	f := p.pdf
	// fpdf writes into the font bytes it is given while it cuts the subset: each PDF gets its
	// own copy, or the next one (or one written at the same time) reads a changed font.
	f.AddUTF8FontFromBytes(pdfFamily, "", bytes.Clone(goregular.TTF))
	f.AddUTF8FontFromBytes(pdfFamily, "B", bytes.Clone(gobold.TTF))
	f.AddUTF8FontFromBytes(pdfFamily, "I", bytes.Clone(goitalic.TTF))
	f.AddUTF8FontFromBytes(pdfFamily, "BI", bytes.Clone(gobolditalic.TTF))
	f.AddUTF8FontFromBytes(pdfMono, "", bytes.Clone(gomono.TTF))
	at, _ := time.Parse(time.RFC3339, pdfFixedAt)
	if !d.Created.IsZero() {
		at = d.Created
	}
	f.SetCreationDate(at)
	f.SetModificationDate(at)
	f.SetCatalogSort(true) // a stable order of the catalogue's entries: the same bytes each time
	f.SetTitle(d.Title, true)
	if d.Author != "" {
		f.SetAuthor(d.Author, true)
	}
	f.SetCreator("warren", true)
	f.SetLang(langTag(d.Lang))
	f.SetMargins(pdfMargin, pdfMargin, pdfMargin)
	f.SetCellMargin(0)
	f.SetAutoPageBreak(false, pdfBottom) // lines are placed here, so a break never splits one
	f.AliasNbPages("{nb}")
	f.SetFooterFunc(func() {
		f.SetFont(pdfFamily, "", 8)
		p.color(pdfGrey)
		f.SetXY(pdfMargin, 297-pdfBottom+6)
		f.CellFormat(p.textWidth(), 4, fmt.Sprintf("%d / {nb}", f.PageNo()), "", 0, "C", false, 0, "")
	})
	f.AddPage()
	if d.Title != "" {
		p.paragraph([]Inline{Plain(d.Title)}, pdfBox{x: pdfMargin, w: p.textWidth(), size: 18, lh: 8.5, bold: true})
		p.space(2)
	}
	for _, m := range d.Meta {
		p.paragraph([]Inline{{Text: m.Label + ": ", Bold: true}, Plain(m.Value)}, pdfBox{x: pdfMargin, w: p.textWidth(), size: pdfBody, lh: pdfLine})
	}
	p.space(3)
	p.blocks(d.Blocks, pdfBox{x: pdfMargin, w: p.textWidth(), size: pdfBody, lh: pdfLine}, 0)
	var buf bytes.Buffer
	if err := f.Output(&buf); err != nil {
		return nil, fmt.Errorf("couldn't write the PDF: %w", err)
	}
	return buf.Bytes(), nil
}

type pdfWriter struct {
	pdf     *fpdf.Fpdf
	links   map[int]int // reference number → link target
	outline int         // the level of the last outline entry, -1 before the first
	started bool
}

// pdfBox is where and how a run of text is set.
type pdfBox struct {
	x, w           float64 // the text's left edge and width
	size, lh       float64 // type size (pt) and line height (mm)
	bold, italic   bool
	mono           bool
	fill, bar      *[3]int // a background behind each line, a bar left of it
	align          Align
	ink            *[3]int
	barX, fillFrom float64 // where the bar is drawn and the fill begins
}

// pdfPiece is a run of one style on a line, measured.
type pdfPiece struct {
	text string
	in   Inline
	w    float64
}

func (p *pdfWriter) textWidth() float64 {
	w, _ := p.pdf.GetPageSize()
	return w - 2*pdfMargin
}

func (p *pdfWriter) color(c [3]int) { p.pdf.SetTextColor(c[0], c[1], c[2]) }

func (p *pdfWriter) space(mm float64) { p.pdf.SetY(p.pdf.GetY() + mm) }

func (p *pdfWriter) limit() float64 {
	_, h := p.pdf.GetPageSize()
	return h - pdfBottom
}

// need starts a new page unless h millimetres fit on this one.
func (p *pdfWriter) need(h float64) {
	if p.pdf.GetY()+h > p.limit() {
		p.pdf.AddPage()
	}
}

func (p *pdfWriter) blocks(bs []Block, box pdfBox, depth int) {
	for _, b := range bs {
		p.block(b, box, depth)
	}
}

func (p *pdfWriter) block(b Block, box pdfBox, depth int) {
	switch b.Kind {
	case Paragraph:
		p.paragraph(b.Inlines, box)
		p.space(1.5)
	case Heading:
		l := min(max(b.Level, 1), 6)
		sizes := []float64{15, 13, 11.5, 10.5, 10, 10}
		h := box
		h.size, h.lh, h.bold, h.italic = sizes[l-1], sizes[l-1]*0.5, true, l >= 5
		p.space(4 - 0.4*float64(l))
		// A heading stays with the two lines that follow it.
		p.need(h.lh*float64(len(p.layout(b.Inlines, h))) + 2*pdfLine)
		level := min(l-1, p.outline+1)
		if !p.started {
			level = 0
		}
		p.pdf.SetFont(pdfFamily, "B", h.size)
		p.pdf.Bookmark(PlainText(b.Inlines), level, -1)
		p.outline, p.started = level, true
		p.paragraph(b.Inlines, h)
		p.space(1.5)
	case Reference:
		y := p.pdf.GetY()
		lines := p.layout(b.Inlines, pdfBox{x: box.x + 10, w: box.w - 10, size: box.size, lh: box.lh})
		p.need(box.lh * float64(min(len(lines), 2)))
		if p.pdf.GetY() != y {
			y = p.pdf.GetY()
		}
		p.pdf.SetLink(p.link(b.N), y, -1)
		p.pdf.SetFont(pdfFamily, "B", box.size)
		p.color(pdfInk)
		p.pdf.SetXY(box.x, y)
		p.pdf.CellFormat(10, box.lh, fmt.Sprintf("[%d]", b.N), "", 0, "L", false, 0, "")
		p.pdf.SetY(y)
		p.paragraph(b.Inlines, pdfBox{x: box.x + 10, w: box.w - 10, size: box.size, lh: box.lh})
		p.space(1)
	case Quote:
		q := box
		q.x, q.w, q.bar, q.barX, q.ink = box.x+pdfIndent, box.w-2*pdfIndent, &pdfGrey, box.x+pdfIndent-2.5, &[3]int{64, 64, 64}
		p.blocks(b.Blocks, q, depth)
	case Note:
		n := box
		n.x, n.w, n.fill, n.bar = box.x+3, box.w-6, &pdfNoteBg, &pdfNoteBar
		if b.Warn {
			n.fill, n.bar = &pdfWarnBg, &pdfWarnBar
		}
		n.barX, n.fillFrom = box.x, box.x
		p.space(1)
		p.blocks(b.Blocks, n, depth)
		p.space(1)
	case Code:
		c := box
		c.mono, c.size, c.lh, c.fill, c.fillFrom = true, 8.5, 4.2, &pdfCodeBg, box.x-1
		for _, line := range strings.Split(b.Text, "\n") {
			p.paragraph([]Inline{Plain(line)}, c)
		}
		p.space(1.5)
	case Rule:
		y := p.pdf.GetY() + 1.5
		p.pdf.SetDrawColor(pdfGrey[0], pdfGrey[1], pdfGrey[2])
		p.pdf.Line(box.x, y, box.x+box.w, y)
		p.space(4)
	case List:
		for i, item := range b.Items {
			marker := []string{"•", "◦", "▪"}[depth%3]
			if b.Ordered {
				marker = fmt.Sprintf("%d.", max(b.Start, 1)+i)
			}
			inner := box
			inner.x, inner.w = box.x+pdfIndent, box.w-pdfIndent
			p.need(box.lh)
			y := p.pdf.GetY()
			p.pdf.SetFont(pdfFamily, "", box.size)
			p.color(pdfInk)
			p.pdf.SetXY(box.x, y)
			p.pdf.CellFormat(pdfIndent, box.lh, marker, "", 0, "L", false, 0, "")
			p.pdf.SetY(y)
			for _, c := range item {
				if c.Kind == Paragraph {
					p.paragraph(c.Inlines, inner)
					p.space(0.5)
					continue
				}
				p.block(c, inner, depth+1)
			}
		}
		p.space(1)
	case Table:
		p.table(b, box)
	}
}

// paragraph sets inlines in box from the current line down, starting new pages as needed.
func (p *pdfWriter) paragraph(in []Inline, box pdfBox) {
	lines := p.layout(in, box)
	if len(lines) == 0 {
		lines = [][]pdfPiece{nil}
	}
	for _, line := range lines {
		p.need(box.lh)
		y := p.pdf.GetY()
		p.line(line, box, y)
		p.pdf.SetY(y + box.lh)
	}
}

// line draws one laid-out line at y: its background and bar, then its pieces.
func (p *pdfWriter) line(line []pdfPiece, box pdfBox, y float64) {
	f := p.pdf
	if box.fill != nil {
		from := box.x - 2
		if box.fillFrom > 0 {
			from = box.fillFrom
		}
		f.SetFillColor(box.fill[0], box.fill[1], box.fill[2])
		f.Rect(from, y, box.x+box.w+2-from, box.lh, "F")
	}
	if box.bar != nil {
		x := box.x - 2.5
		if box.barX > 0 {
			x = box.barX
		}
		f.SetFillColor(box.bar[0], box.bar[1], box.bar[2])
		f.Rect(x, y, 0.8, box.lh, "F")
	}
	var width float64
	for _, pc := range line {
		width += pc.w
	}
	x := box.x
	switch box.align {
	case AlignRight:
		x += box.w - width
	case AlignCenter:
		x += (box.w - width) / 2
	}
	for _, pc := range line {
		p.font(pc.in, box)
		ink := pdfInk
		if box.ink != nil {
			ink = *box.ink
		}
		link := 0
		switch {
		case pc.in.Flag:
			ink = pdfFlagInk
			f.SetFillColor(pdfFlagBg[0], pdfFlagBg[1], pdfFlagBg[2])
			f.Rect(x, y+0.3, pc.w, box.lh-0.6, "F")
		case pc.in.Cite > 0:
			ink, link = pdfLinkInk, p.link(pc.in.Cite)
		}
		p.color(ink)
		f.SetXY(x, y)
		f.CellFormat(pc.w, box.lh, pc.text, "", 0, "L", false, link, "")
		x += pc.w
	}
}

func (p *pdfWriter) link(n int) int {
	id, ok := p.links[n]
	if !ok {
		id = p.pdf.AddLink()
		p.links[n] = id
	}
	return id
}

// font sets the font of a run in box.
func (p *pdfWriter) font(in Inline, box pdfBox) {
	if in.Code || box.mono {
		p.pdf.SetFont(pdfMono, "", box.size*0.95)
		return
	}
	style := ""
	if in.Bold || box.bold {
		style += "B"
	}
	if in.Italic || box.italic {
		style += "I"
	}
	p.pdf.SetFont(pdfFamily, style, box.size)
}

// layout breaks inlines into lines of box's width, at spaces, a word too long for a line
// at any character.
func (p *pdfWriter) layout(in []Inline, box pdfBox) [][]pdfPiece {
	type word struct {
		pieces []pdfPiece
		w      float64
		space  bool // a space between words
		brk    bool // a line break
	}
	var words []word
	var cur word
	flush := func() {
		if len(cur.pieces) > 0 {
			words = append(words, cur)
		}
		cur = word{}
	}
	measure := func(text string, x Inline) pdfPiece {
		p.font(x, box)
		return pdfPiece{text: text, in: x, w: p.pdf.GetStringWidth(text)}
	}
	for _, x := range in {
		if x.Break {
			flush()
			words = append(words, word{brk: true})
			continue
		}
		var run strings.Builder
		emit := func() {
			if run.Len() > 0 {
				pc := measure(run.String(), x)
				cur.pieces = append(cur.pieces, pc)
				cur.w += pc.w
				run.Reset()
			}
		}
		for _, r := range covered(x.Text, x.Code || box.mono) {
			switch r {
			case ' ', '\t':
				emit()
				flush()
				sp := measure(" ", x)
				words = append(words, word{pieces: []pdfPiece{sp}, w: sp.w, space: true})
			case '\n':
				emit()
				flush()
				words = append(words, word{brk: true})
			default:
				run.WriteRune(r)
			}
		}
		emit()
	}
	flush()

	var lines [][]pdfPiece
	var line []pdfPiece
	var lineW float64
	var pending []pdfPiece // spaces waiting for the next word on the line
	var pendingW float64
	end := func() {
		lines = append(lines, line)
		line, lineW, pending, pendingW = nil, 0, nil, 0
	}
	for _, wd := range words {
		switch {
		case wd.brk:
			end()
			continue
		case wd.space:
			if len(line) > 0 {
				pending = append(pending, wd.pieces...)
				pendingW += wd.w
			}
			continue
		}
		if len(line) > 0 && lineW+pendingW+wd.w > box.w {
			end()
		}
		if len(line) == 0 && wd.w > box.w {
			// Longer than a line: cut it where it no longer fits.
			for _, pc := range wd.pieces {
				for _, r := range pc.text {
					piece := measure(string(r), pc.in)
					if lineW+piece.w > box.w && len(line) > 0 {
						end()
					}
					line = appendPiece(line, piece)
					lineW += piece.w
				}
			}
			continue
		}
		for _, pc := range pending {
			line = appendPiece(line, pc)
		}
		lineW += pendingW
		pending, pendingW = nil, 0
		for _, pc := range wd.pieces {
			line = appendPiece(line, pc)
		}
		lineW += wd.w
	}
	if len(line) > 0 {
		lines = append(lines, line)
	}
	return lines
}

// appendPiece adds a piece to a line, joining it to the last one of the same style so that
// a line is drawn in few runs (and its text extracts as words, not letters).
func appendPiece(line []pdfPiece, pc pdfPiece) []pdfPiece {
	if n := len(line); n > 0 && line[n-1].in.Bold == pc.in.Bold && line[n-1].in.Italic == pc.in.Italic &&
		line[n-1].in.Code == pc.in.Code && line[n-1].in.Flag == pc.in.Flag && line[n-1].in.Cite == pc.in.Cite {
		line[n-1].text += pc.text
		line[n-1].w += pc.w
		return line
	}
	return append(line, pc)
}

func (p *pdfWriter) table(b Block, box pdfBox) {
	n := columns(b)
	if n == 0 {
		return
	}
	weights := columnWeights(b)
	widths := make([]float64, n)
	for i := range widths {
		widths[i] = weights[i] * box.w
	}
	cellBox := func(i int, header bool, x float64) pdfBox {
		c := pdfBox{x: x + pdfPad, w: widths[i] - 2*pdfPad, size: 9, lh: 4.4, bold: header}
		if !header && i < len(b.Align) {
			c.align = b.Align[i]
		}
		return c
	}
	measureRow := func(cells [][]Inline, header bool) ([][][]pdfPiece, float64) {
		laid := make([][][]pdfPiece, n)
		h := 0.0
		x := box.x
		for i := 0; i < n; i++ {
			var cell []Inline
			if i < len(cells) {
				cell = cells[i]
			}
			laid[i] = p.layout(cell, cellBox(i, header, x))
			h = max(h, float64(max(len(laid[i]), 1))*4.4)
			x += widths[i]
		}
		return laid, h + 2*pdfPad
	}
	drawRow := func(laid [][][]pdfPiece, h float64, header bool) {
		y := p.pdf.GetY()
		x := box.x
		p.pdf.SetDrawColor(128, 128, 128)
		p.pdf.SetLineWidth(0.2)
		for i := 0; i < n; i++ {
			style := "D"
			if header {
				p.pdf.SetFillColor(pdfHeadBg[0], pdfHeadBg[1], pdfHeadBg[2])
				style = "FD"
			}
			p.pdf.Rect(x, y, widths[i], h, style)
			cb := cellBox(i, header, x)
			for j, line := range laid[i] {
				p.line(line, cb, y+pdfPad+float64(j)*cb.lh)
			}
			x += widths[i]
		}
		p.pdf.SetY(y + h)
	}
	var head [][][]pdfPiece
	var headH float64
	if len(b.Header) > 0 {
		head, headH = measureRow(b.Header, true)
		first := headH
		if len(b.Rows) > 0 {
			_, first = measureRow(b.Rows[0], false)
			first += headH
		}
		p.need(first)
		drawRow(head, headH, true)
	}
	for _, r := range b.Rows {
		laid, h := measureRow(r, false)
		if p.pdf.GetY()+h > p.limit() {
			p.pdf.AddPage()
			if head != nil {
				drawRow(head, headH, true) // the header again on the new page
			}
		}
		drawRow(laid, h, false)
	}
	p.space(3)
}

// The runes each embedded font has a glyph for, read once.
var (
	coverOnce          sync.Once
	coverText, coverMo func(rune) bool
)

// substitutes stand for runes the Go fonts lack, in words a reader understands.
var substitutes = map[rune]string{'⚠': "(!)", '✓': "+", '✗': "x", '\u00a0': " "}

// covered replaces the runes the font cannot draw: with a substitute, else "?", so that no
// character silently vanishes from the page.
func covered(s string, mono bool) string {
	coverOnce.Do(func() {
		coverText, coverMo = glyphs(goregular.TTF), glyphs(gomono.TTF)
	})
	has := coverText
	if mono {
		has = coverMo
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t' || has(r):
			b.WriteRune(r)
		case substitutes[r] != "":
			b.WriteString(substitutes[r])
		case r < ' ' || r == 0xfeff || r == 0x200b:
			// control and zero-width characters draw nothing
		default:
			b.WriteByte('?')
		}
	}
	return b.String()
}

func glyphs(ttf []byte) func(rune) bool {
	f, err := sfnt.Parse(ttf)
	if err != nil {
		return func(r rune) bool { return r < 0x80 }
	}
	var buf sfnt.Buffer
	var mu sync.Mutex
	return func(r rune) bool {
		mu.Lock()
		defer mu.Unlock()
		i, err := f.GlyphIndex(&buf, r)
		return err == nil && i != 0
	}
}
