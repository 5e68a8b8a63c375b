package gas

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"warren/kb/chunk"
)

// The Page column of the Provenance sheet says where the source passage lies as a citation
// does ("p. 3", "slide 2", "p. 3, read by OCR, 91.5 % confidence"), with the confidence
// unrounded so that an import restores the cell exactly.

// pageText is a source's page as the Provenance sheet writes it; "" for none.
func pageText(p chunk.PageRef) string {
	parts := []string{}
	if n := (chunk.PageRef{Page: p.Page, Kind: p.Kind}).Label(); n != "" {
		parts = append(parts, n)
	}
	switch {
	case p.OCR && p.OCRConfidence > 0:
		parts = append(parts, "read by OCR, "+strconv.FormatFloat(p.OCRConfidence, 'f', -1, 64)+" % confidence")
	case p.OCR:
		parts = append(parts, "read by OCR")
	}
	return strings.Join(parts, ", ")
}

var pageTextPattern = regexp.MustCompile(`^(?:(p\.|slide) (\d+))?(?:(?:, )?(read by OCR)(?:, ([0-9.]+) % confidence)?)?$`)

// parsePageText reads what pageText wrote.
func parsePageText(s string) (chunk.PageRef, error) {
	s = strings.Join(strings.Fields(s), " ")
	m := pageTextPattern.FindStringSubmatch(s)
	if m == nil {
		return chunk.PageRef{}, fmt.Errorf("page %q isn't like \"p. 3\", \"slide 2\" or \"p. 3, read by OCR, 91 %% confidence\"", s)
	}
	var p chunk.PageRef
	if m[2] != "" {
		p.Page, _ = strconv.Atoi(m[2])
		p.Kind = chunk.KindPage
		if m[1] == "slide" {
			p.Kind = chunk.KindSlide
		}
	}
	p.OCR = m[3] != ""
	if m[4] != "" {
		x, err := strconv.ParseFloat(m[4], 64)
		if err != nil {
			return chunk.PageRef{}, fmt.Errorf("page %q: confidence %q isn't a number", s, m[4])
		}
		p.OCRConfidence = x
	}
	return p, nil
}
