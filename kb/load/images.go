package load

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	_ "image/jpeg" // DecodeConfig reads their headers
	_ "image/png"
	"io"
	"os"
	"strings"
)

// Image files (format "image": PNG, JPEG, TIFF) are read by OCR only: each page (a TIFF may
// hold several) is cut into sections as a PDF page is, every section marked as read by OCR.

// imageKind says from its first bytes what kind of image a file is: "png", "jpeg", "tiff", or
// "" for none of them, whatever its name says.
func imageKind(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n")):
		return "png"
	case bytes.HasPrefix(head, []byte{0xff, 0xd8, 0xff}):
		return "jpeg"
	case bytes.HasPrefix(head, []byte("II")) || bytes.HasPrefix(head, []byte("MM")):
		return "tiff"
	}
	return ""
}

func (c *converter) loadImageFile(doc *Document, f *os.File) error {
	head := make([]byte, 8)
	n, _ := io.ReadFull(f, head)
	kind := imageKind(head[:n])
	if kind == "" {
		return &SkipError{Path: doc.Source, Reason: "not a PNG, JPEG or TIFF image, whatever its name says"}
	}
	if err := checkImageSize(f, kind); err != nil {
		return &SkipError{Path: doc.Source, Reason: err.Error()}
	}
	if problem := c.ocrProblem(false); problem != "" {
		return &SkipError{Path: doc.Source, Reason: "an image, which only OCR reads, and " + problem}
	}
	src, err := c.copyToTemp(f, "image."+kind)
	if err != nil {
		return err
	}
	defer os.Remove(src)
	read, err := c.readOCR(src, 0)
	var te *TimeoutError
	switch {
	case c.ctx.Err() != nil:
		return fmt.Errorf("couldn't read %s: %w", doc.Source, c.ctx.Err())
	case errors.As(err, &te):
		return &SkipError{Path: doc.Source, Reason: te.Error()}
	case err != nil:
		return &SkipError{Path: doc.Source, Reason: "OCR could not read it: " + err.Error()}
	}
	// Pages are numbered only where there are several, as in a multi-page TIFF.
	paged := len(read) > 1
	var all strings.Builder
	for _, p := range read {
		if p.Words == 0 {
			continue
		}
		start := len(doc.Sections)
		kind := ""
		if paged {
			kind = "page"
		}
		if err := scanText(strings.NewReader(p.Text), "", func(s Section) error {
			s.OCR, s.OCRConfidence = true, p.Confidence
			if paged {
				s.Page, s.PageKind = p.Page, kind
			}
			doc.Sections = append(doc.Sections, s)
			return nil
		}); err != nil {
			return err
		}
		// Offsets refer to the text of the pages read, joined by form feeds.
		base := all.Len()
		if base > 0 {
			base++
			all.WriteString("\f")
		}
		for i := start; i < len(doc.Sections); i++ {
			doc.Sections[i].Offset += base
		}
		all.WriteString(p.Text)
	}
	if len(doc.Sections) == 0 {
		return &SkipError{Path: doc.Source, Reason: "an image in which OCR found no text"}
	}
	doc.Language = languageOf(nil, all.String())
	return nil
}

// checkImageSize refuses an image (of kind png, jpeg or tiff) any page of which has more than
// maxPagePixels, before Tesseract would hold it in memory; it reads only the headers.
func checkImageSize(f *os.File, kind string) error {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	var sizes [][2]int
	switch kind {
	case "tiff":
		var err error
		if sizes, err = tiffSizes(f); err != nil {
			return err
		}
	default:
		cfg, _, err := image.DecodeConfig(f)
		if err != nil {
			return fmt.Errorf("not a readable %s image: %v", strings.ToUpper(kind), err)
		}
		sizes = [][2]int{{cfg.Width, cfg.Height}}
	}
	for i, s := range sizes {
		if px := int64(s[0]) * int64(s[1]); px > maxPagePixels || s[0] <= 0 || s[1] <= 0 {
			where := "the image"
			if len(sizes) > 1 {
				where = fmt.Sprintf("page %d of the image", i+1)
			}
			return fmt.Errorf("%s is %d × %d pixels, more than the %d million OCR reads (it would take too long and too much memory)",
				where, s[0], s[1], maxPagePixels/1_000_000)
		}
	}
	return nil
}

const maxTIFFPages = 10_000

// tiffSizes reads the width and height of every page (image file directory) of a TIFF.
func tiffSizes(r io.ReaderAt) ([][2]int, error) {
	bad := errors.New("not a readable TIFF image")
	head := make([]byte, 8)
	if _, err := r.ReadAt(head, 0); err != nil {
		return nil, bad
	}
	var order binary.ByteOrder
	switch string(head[:2]) {
	case "II":
		order = binary.LittleEndian
	case "MM":
		order = binary.BigEndian
	default:
		return nil, bad
	}
	switch order.Uint16(head[2:]) {
	case 42:
	case 43:
		return nil, errors.New("a BigTIFF image, which OCR does not read")
	default:
		return nil, bad
	}
	var sizes [][2]int
	seen := map[uint32]bool{}
	for off := order.Uint32(head[4:]); off != 0; {
		if seen[off] || len(sizes) >= maxTIFFPages {
			return nil, fmt.Errorf("a TIFF image whose pages loop or number more than %d", maxTIFFPages)
		}
		seen[off] = true
		cnt := make([]byte, 2)
		if _, err := r.ReadAt(cnt, int64(off)); err != nil {
			return nil, bad
		}
		n := int(order.Uint16(cnt))
		dir := make([]byte, n*12+4)
		if _, err := r.ReadAt(dir, int64(off)+2); err != nil {
			return nil, bad
		}
		var w, h int
		for i := 0; i < n; i++ {
			e := dir[i*12:]
			tag, typ := order.Uint16(e), order.Uint16(e[2:])
			var v int
			switch typ {
			case 3: // SHORT
				v = int(order.Uint16(e[8:]))
			case 4: // LONG
				v = int(order.Uint32(e[8:]))
			default:
				continue
			}
			switch tag {
			case 256:
				w = v
			case 257:
				h = v
			}
		}
		sizes = append(sizes, [2]int{w, h})
		off = order.Uint32(dir[n*12:])
	}
	if len(sizes) == 0 {
		return nil, bad
	}
	return sizes, nil
}
