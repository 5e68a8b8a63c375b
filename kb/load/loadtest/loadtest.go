// Package loadtest builds documents for the tests of the loaders and of ingest: a PDF is
// tedious to write by hand, and both kb/load and kb need ones with and without a text layer.
package loadtest

import (
	"bytes"
	"fmt"
	"strings"
)

// PDF returns a minimal, valid PDF with one page per content stream. Every page has two
// Helvetica fonts: /F1 without widths, as the standard 14 fonts often come, and /F2 with a flat
// width of 500/1000 em for the printable ASCII range. trailerExtra is added to the trailer
// dictionary, which is how a test makes the file encrypted.
func PDF(contents []string, trailerExtra string) []byte {
	var objs []string // objs[i] is object i+1
	add := func(s string) int { objs = append(objs, s); return len(objs) }

	catalog := add("") // filled in once the page tree's number is known
	pagesObj := add("")
	f1 := add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	widths := strings.TrimSpace(strings.Repeat("500 ", 126-32+1))
	f2 := add(fmt.Sprintf("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding"+
		" /FirstChar 32 /LastChar 126 /Widths [%s] >>", widths))
	var kids []string
	for _, c := range contents {
		stream := add(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(c)+1, c))
		page := add(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792]"+
			" /Resources << /Font << /F1 %d 0 R /F2 %d 0 R >> >> /Contents %d 0 R >>",
			pagesObj, f1, f2, stream))
		kids = append(kids, fmt.Sprintf("%d 0 R", page))
	}
	objs[catalog-1] = fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", pagesObj)
	objs[pagesObj-1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(kids))

	return Assemble(objs, catalog, trailerExtra)
}

// Assemble writes a PDF of objs (objs[i] is object i+1): the header, the objects, the
// cross-reference table and a trailer naming root as the catalog, with trailerExtra added to
// its dictionary.
func Assemble(objs []string, root int, trailerExtra string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off) // each entry is exactly 20 bytes
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root %d 0 R %s>>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, root, trailerExtra, xref)
	return b.Bytes()
}

// CharErrorRate is the edit distance between got and want, in characters (runes), over
// want's length: how OCR's reading of a page compares with the text it was rendered from.
func CharErrorRate(got, want string) float64 {
	a, b := []rune(got), []rune(want)
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return float64(prev[len(b)]) / float64(max(len(b), 1))
}
