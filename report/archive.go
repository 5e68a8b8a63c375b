package report

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"strings"
	"time"
)

// archiveTime is every entry's time in a DOCX or ODT archive: a fixed one, so the same
// document gives the same file.
var archiveTime = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)

// archive is a zip written in the order its parts are added.
type archive struct {
	buf bytes.Buffer
	zw  *zip.Writer
	err error
}

func newArchive() *archive {
	a := &archive{}
	a.zw = zip.NewWriter(&a.buf)
	return a
}

// add writes one part; stored parts are not compressed (ODF's mimetype must not be).
func (a *archive) add(name, data string, stored bool) {
	if a.err != nil {
		return
	}
	h := &zip.FileHeader{Name: name, Method: zip.Deflate, Modified: archiveTime}
	if stored {
		h.Method = zip.Store
	}
	w, err := a.zw.CreateHeader(h)
	if err != nil {
		a.err = err
		return
	}
	_, a.err = w.Write([]byte(data))
}

func (a *archive) bytes() ([]byte, error) {
	if a.err != nil {
		return nil, a.err
	}
	if err := a.zw.Close(); err != nil {
		return nil, err
	}
	return a.buf.Bytes(), nil
}

// esc escapes text for XML content and attribute values; characters XML cannot hold become
// U+FFFD.
func esc(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

// langTag is the document's language with a region, as office suites pick their spelling
// dictionaries by it.
func langTag(lang string) string {
	switch strings.ToLower(lang) {
	case "de":
		return "de-DE"
	case "en", "":
		return "en-GB"
	}
	return lang
}

// splitTag is a language tag's language and country ("de-DE" gives "de", "DE").
func splitTag(tag string) (string, string) {
	l, c, _ := strings.Cut(tag, "-")
	return l, c
}

// columnWeights shares a table's width among its columns by the length of their longest
// cell, within bounds, and never less than their longest word, so a column of numbers stays
// narrow, one of sentences wide, and no word is broken.
func columnWeights(b Block) []float64 {
	n := columns(b)
	longest := make([]int, n)
	word := make([]int, n)
	measure := func(row [][]Inline) {
		for i, cell := range row {
			text := PlainText(cell)
			longest[i] = max(longest[i], len([]rune(text)))
			for _, w := range strings.Fields(text) {
				word[i] = max(word[i], len([]rune(w)))
			}
		}
	}
	measure(b.Header)
	for _, r := range b.Rows {
		measure(r)
	}
	w := make([]float64, n)
	var sum float64
	for i, l := range longest {
		w[i] = float64(max(min(max(l, 6), 60), min(word[i]+1, 30)))
		sum += w[i]
	}
	for i := range w {
		w[i] /= sum
	}
	return w
}

// columns is a table's column count.
func columns(b Block) int {
	n := len(b.Header)
	for _, r := range b.Rows {
		n = max(n, len(r))
	}
	return n
}
