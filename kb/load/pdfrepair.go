package load

import (
	"bytes"
	"io"
	"regexp"

	"github.com/ledongthuc/pdf"
)

// openPDF opens a PDF for reading. Poppler's pdfunite, among other tools, writes a trailer whose
// /Size is smaller than its cross-reference table; the PDF library trusts /Size and loses every
// object past it, pages and their text included. Readers such as Poppler trust the table, and
// so does warren: the PDF is read with the /Size of its last trailer raised past any table
// (a larger /Size changes nothing for a correct file).
func openPDF(f io.ReaderAt, size int64) (*pdf.Reader, error) {
	if fixed, ok := raisedTrailerSize(f, size); ok {
		return pdf.NewReader(fixed, fixed.size())
	}
	return pdf.NewReader(f, size)
}

var trailerSize = regexp.MustCompile(`/Size\s+(\d+)`)

// patchedTail reads as a file whose bytes from start on are tail instead.
type patchedTail struct {
	f     io.ReaderAt
	start int64
	tail  []byte
}

func (p *patchedTail) size() int64 { return p.start + int64(len(p.tail)) }

func (p *patchedTail) ReadAt(b []byte, off int64) (int, error) {
	n := 0
	if off < p.start {
		m, err := p.f.ReadAt(b[:min(int64(len(b)), p.start-off)], off)
		n += m
		if err != nil && err != io.EOF {
			return n, err
		}
		if m < int(min(int64(len(b)), p.start-off)) {
			return n, io.ErrUnexpectedEOF
		}
	}
	if n < len(b) {
		at := off + int64(n) - p.start
		if at >= int64(len(p.tail)) {
			return n, io.EOF
		}
		n += copy(b[n:], p.tail[at:])
	}
	if n < len(b) {
		return n, io.EOF
	}
	return n, nil
}

// raisedTrailerSize serves the PDF with the /Size of its last trailer set larger than any
// table. Only the file's tail changes, after the cross-reference table, so no offset the file
// records moves. ok is false for a PDF without a classic trailer in its last 4 KB (one with a
// cross-reference stream, whose /Size the library reads elsewhere).
func raisedTrailerSize(f io.ReaderAt, size int64) (*patchedTail, bool) {
	const tailLen = 4096
	start := max(size-tailLen, 0)
	tail := make([]byte, size-start)
	if n, err := f.ReadAt(tail, start); n != len(tail) || err != nil && err != io.EOF {
		return nil, false
	}
	at := bytes.LastIndex(tail, []byte("trailer"))
	if at < 0 {
		return nil, false
	}
	loc := trailerSize.FindSubmatchIndex(tail[at:])
	if loc == nil {
		return nil, false
	}
	patched := append([]byte{}, tail[:at+loc[2]]...)
	patched = append(patched, "99999999"...)
	patched = append(patched, tail[at+loc[3]:]...)
	return &patchedTail{f: f, start: start, tail: patched}, true
}
