package chunk

import (
	"fmt"
	"strings"
)

// Page kinds: what Chunk.Page (and PageRef.Page) counts.
const (
	KindPage  = "page"  // a page of a PDF or of a scan
	KindSlide = "slide" // a slide of a presentation
)

// PageRef places a passage on a paginated source: its page or slide, and whether its text
// was read by OCR. It is what a citation keeps of a chunk besides the document and section,
// so that a copy of the citation (a report's source, a gas cell's provenance) can say it.
type PageRef struct {
	Page          int     `json:"page,omitempty"`
	Kind          string  `json:"page_kind,omitempty"`
	OCR           bool    `json:"ocr,omitempty"`
	OCRConfidence float64 `json:"ocr_confidence,omitempty"`
}

// PageRef is where the chunk lies on a paginated source; zero for other sources.
func (c Chunk) PageRef() PageRef {
	return PageRef{Page: c.Page, Kind: c.PageKind, OCR: c.OCR, OCRConfidence: c.OCRConfidence}
}

// IsZero reports whether p places nothing: no page and no OCR.
func (p PageRef) IsZero() bool { return p == PageRef{} }

// Label names the page for a citation: "p. 3", "slide 2", "p. 3, read by OCR, 91 %
// confidence"; "" when there is nothing to say.
func (p PageRef) Label() string {
	var parts []string
	if n := p.number(); n != "" {
		parts = append(parts, n)
	}
	if o := p.ocrWords(); o != "" {
		parts = append(parts, o)
	}
	return strings.Join(parts, ", ")
}

func (p PageRef) number() string {
	switch {
	case p.Page <= 0:
		return ""
	case p.Kind == KindSlide:
		return fmt.Sprintf("slide %d", p.Page)
	}
	return fmt.Sprintf("p. %d", p.Page)
}

func (p PageRef) ocrWords() string {
	switch {
	case !p.OCR:
		return ""
	case p.OCRConfidence > 0:
		return fmt.Sprintf("read by OCR, %.0f %% confidence", p.OCRConfidence)
	}
	return "read by OCR"
}

// Place names a passage's place in its document for a citation: the section, then the page
// ("4.1, p. 3"). A slide's section already says "Slide 2", so its number is not repeated.
func Place(section string, p PageRef) string {
	var parts []string
	if section != "" {
		parts = append(parts, section)
	}
	if n := p.number(); n != "" && !strings.EqualFold(section, n) {
		parts = append(parts, n)
	}
	if o := p.ocrWords(); o != "" {
		parts = append(parts, o)
	}
	return strings.Join(parts, ", ")
}

// Place is the chunk's section with its page, as a citation names it (see Place).
func (c Chunk) Place() string { return Place(c.Section, c.PageRef()) }
