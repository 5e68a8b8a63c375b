package load

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"unicode"

	"github.com/ledongthuc/pdf"
)

// errNoTextLayer is returned, with the (empty) pages, when no page of a PDF yields any text.
// Callers read the pages by OCR or turn it into a SkipError, so its message is written for the
// analyst.
var errNoTextLayer = errors.New("no text layer (scanned PDF?)")

// Layout thresholds, as fractions of the font size. They are deliberately loose: PDFs from
// word processors, LaTeX and browsers position glyphs very differently, and a missed space is
// worse for retrieval than an extra one.
const (
	// pdfBaselineTol is how far two baselines may differ and still be one line; it absorbs
	// super- and subscripts, which usually rise or drop by about a third of an em.
	pdfBaselineTol = 0.4
	// pdfSpaceGap is the horizontal gap that counts as a word break. A space in common fonts is
	// 0.25–0.33 em and kerning rarely exceeds 0.1 em.
	pdfSpaceGap = 0.15
	// pdfParaFactor is how much larger than the page's usual line pitch a vertical gap must be
	// to start a new paragraph.
	pdfParaFactor = 1.45
	// pdfEstGlyphWidth stands in for the width of a glyph whose font carries no /Widths (the
	// standard 14 fonts often do not), where the library reports zero.
	pdfEstGlyphWidth = 0.5
)

// extractPDF returns the text of each page of the PDF at path, pages[i] being page i+1. Lines
// are rebuilt from glyph positions rather than the content stream's order, so words drawn by
// separate operators do not run together. A PDF whose pages yield no text returns an error
// saying "no text layer (scanned PDF?)"; an encrypted, malformed or unreadable PDF returns an
// error too, and a panic inside the PDF library is recovered into one.
func extractPDF(path string) (pages []string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("couldn't open PDF: %w", err)
	}
	defer f.Close()
	return extractPDFFile(f)
}

// extractPDFFile is extractPDF on a file already open (and checked, see LoadOptions.Confine).
func extractPDFFile(f *os.File) (pages []string, err error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("couldn't open PDF: %w", err)
	}

	page := 0 // the page being read, so a recovered panic can say where it happened
	defer func() {
		if r := recover(); r != nil {
			pages = nil
			if page > 0 {
				err = fmt.Errorf("couldn't read page %d of PDF: malformed PDF: %v", page, r)
			} else {
				err = fmt.Errorf("couldn't read PDF: malformed PDF: %v", r)
			}
		}
	}()

	r, err := openPDF(f, fi.Size())
	if err != nil {
		if errors.Is(err, pdf.ErrInvalidPassword) {
			return nil, fmt.Errorf("couldn't read PDF: %w (password-protected files are not supported)", err)
		}
		return nil, fmt.Errorf("couldn't read PDF: %w", err)
	}
	n := r.NumPage()
	if n <= 0 {
		return nil, errors.New("couldn't read PDF: no pages (malformed page tree?)")
	}

	pages = make([]string, n)
	hasText := false
	for page = 1; page <= n; page++ {
		p := r.Page(page)
		if p.V.IsNull() {
			continue // a missing page keeps its slot so page numbers stay right
		}
		pages[page-1] = pdfLayoutPage(pdfGlyphs(p))
		if strings.TrimSpace(pages[page-1]) != "" {
			hasText = true
		}
	}
	if !hasText {
		return pages, errNoTextLayer // the empty pages, for OCR to read
	}
	return pages, nil
}

// pdfRun is a piece of text on one baseline whose extent is known.
type pdfRun struct {
	x, y, w, size float64
	s             string
	estimated     bool // w is a guess because the font has no widths
}

// pdfLine is a set of runs sharing a baseline.
type pdfLine struct {
	y, size float64
	runs    []pdfRun
}

// pdfLayoutPage rebuilds the text of a page from its glyphs: runs are grouped into lines by
// baseline, lines are read top to bottom and runs left to right, a space goes where the gap
// between runs is wider than a fraction of the font size, and a blank line goes where the gap
// between lines is clearly wider than the page's usual line pitch.
func pdfLayoutPage(glyphs []pdf.Text) string {
	lines := pdfGroupLines(pdfMergeRuns(glyphs))
	if len(lines) == 0 {
		return ""
	}

	// The usual pitch, relative to font size, is the median of the gaps between lines; a page
	// with too few lines to judge assumes single spacing.
	var pitches []float64
	for i := 1; i < len(lines); i++ {
		pitches = append(pitches, (lines[i-1].y-lines[i].y)/math.Max(lines[i-1].size, lines[i].size))
	}
	pitch := 1.2
	if len(pitches) >= 3 {
		sorted := slices.Sorted(slices.Values(pitches))
		pitch = min(max(sorted[len(sorted)/2], 1.0), 2.5)
	}

	var b strings.Builder
	for i, ln := range lines {
		text := pdfLineText(ln)
		if text == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
			if pitches[i-1] > pdfParaFactor*pitch {
				b.WriteByte('\n')
			}
		}
		b.WriteString(text)
	}
	return b.String()
}

// pdfMergeRuns turns glyphs into runs. Glyphs that continue each other on the same baseline are
// joined, which keeps the order of a word even where sorting by x could not (glyphs of a font
// without widths all report the start position of their string).
func pdfMergeRuns(glyphs []pdf.Text) []pdfRun {
	var runs []pdfRun
	for _, g := range glyphs {
		// The library emits a "\n" after each TJ array; geometry decides line breaks instead.
		s := strings.Map(func(r rune) rune {
			if unicode.IsControl(r) {
				return -1
			}
			if unicode.IsSpace(r) {
				return ' '
			}
			return r
		}, g.S)
		if s == "" {
			continue
		}
		size := math.Abs(g.FontSize)
		if size < 1 {
			size = 10 // rotated or degenerate text matrices report no usable size
		}
		run := pdfRun{x: g.X, y: g.Y, w: g.W, size: size, s: s}
		if run.w <= 0 {
			run.w = pdfEstGlyphWidth * size * float64(len([]rune(s)))
			run.estimated = true
		}
		if k := len(runs) - 1; k >= 0 {
			prev := &runs[k]
			sameLine := math.Abs(prev.y-run.y) < 0.01*size && math.Abs(prev.size-size) < 0.01*size
			stacked := prev.estimated && run.estimated && math.Abs(prev.x-run.x) < 0.01*size
			adjacent := !prev.estimated && !run.estimated && math.Abs(prev.x+prev.w-run.x) < 0.05*size
			if sameLine && (stacked || adjacent) {
				prev.s += run.s
				prev.w += run.w
				continue
			}
		}
		runs = append(runs, run)
	}
	return runs
}

// pdfGroupLines sorts runs top to bottom and puts runs whose baselines are within a fraction of
// the font size of a line's first baseline into that line.
func pdfGroupLines(runs []pdfRun) []pdfLine {
	// A stable sort keeps content-stream order for runs at the same height, which is the
	// writer's own reading order.
	slices.SortStableFunc(runs, func(a, b pdfRun) int { return cmp.Compare(b.y, a.y) })
	var lines []pdfLine
	for _, r := range runs {
		if k := len(lines) - 1; k >= 0 {
			ln := &lines[k]
			if ln.y-r.y <= pdfBaselineTol*math.Max(ln.size, r.size) {
				ln.runs = append(ln.runs, r)
				ln.size = math.Max(ln.size, r.size)
				continue
			}
		}
		lines = append(lines, pdfLine{y: r.y, size: r.size, runs: []pdfRun{r}})
	}
	return lines
}

// pdfLineText joins the runs of a line left to right, adding a space where the gap between two
// runs is wide enough to be a word break and neither side already has one.
func pdfLineText(ln pdfLine) string {
	slices.SortStableFunc(ln.runs, func(a, b pdfRun) int { return cmp.Compare(a.x, b.x) })
	var b strings.Builder
	end := math.Inf(-1)
	for _, r := range ln.runs {
		gap := r.x - end
		if b.Len() > 0 && gap > pdfSpaceGap*r.size &&
			!strings.HasSuffix(b.String(), " ") && !strings.HasPrefix(r.s, " ") {
			b.WriteByte(' ')
		}
		b.WriteString(r.s)
		end = math.Max(end, r.x+r.w)
	}
	// Runs of spaces come from justified text drawn with space glyphs; one is enough.
	return strings.Join(strings.Fields(b.String()), " ")
}
