package loadtest

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// Page is one page of a PDF that Pages builds: text drawn by a content stream (with the fonts
// of PDF), or an image filling the page, as a scanner makes them, or both.
type Page struct {
	Content string      // a content stream; /F1 and /F2 are Helvetica as in PDF
	Image   *image.Gray // drawn over the whole page, 8-bit /DeviceGray, /FlateDecode
	// Blank, when Image is nil, is the width and height in pixels of a white image drawn over
	// the page instead, compressed row by row so an enormous one costs no memory.
	Blank [2]int
	// Width and Height are the MediaBox in points; 0 means US Letter (612 × 792).
	Width, Height float64
}

// Pages returns a PDF with the pages given.
func Pages(pages []Page) []byte {
	var objs []string // objs[i] is object i+1
	add := func(s string) int { objs = append(objs, s); return len(objs) }

	catalog := add("")
	pagesObj := add("")
	f1 := add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	widths := strings.TrimSpace(strings.Repeat("500 ", 126-32+1))
	f2 := add(fmt.Sprintf("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding"+
		" /FirstChar 32 /LastChar 126 /Widths [%s] >>", widths))
	var kids []string
	for _, p := range pages {
		w, h := p.Width, p.Height
		if w == 0 || h == 0 {
			w, h = 612, 792
		}
		content := p.Content
		xobjects := ""
		if p.Image != nil || p.Blank != [2]int{} {
			var data []byte
			var iw, ih int
			if p.Image != nil {
				iw, ih = p.Image.Rect.Dx(), p.Image.Rect.Dy()
				data = deflateGray(p.Image)
			} else {
				iw, ih = p.Blank[0], p.Blank[1]
				data = deflateBlank(iw, ih)
			}
			img := add(fmt.Sprintf("<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray"+
				" /BitsPerComponent 8 /Filter /FlateDecode /Length %d >>\nstream\n%s\nendstream", iw, ih, len(data)+1, data))
			xobjects = fmt.Sprintf(" /XObject << /Im1 %d 0 R >>", img)
			// The image is drawn first, under any text, scaled to the whole page.
			content = strings.TrimSpace(fmt.Sprintf("q %g 0 0 %g 0 0 cm /Im1 Do Q\n%s", w, h, content))
		}
		stream := add(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content)+1, content))
		page := add(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 %g %g]"+
			" /Resources << /Font << /F1 %d 0 R /F2 %d 0 R >>%s >> /Contents %d 0 R >>",
			pagesObj, w, h, f1, f2, xobjects, stream))
		kids = append(kids, fmt.Sprintf("%d 0 R", page))
	}
	objs[catalog-1] = fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", pagesObj)
	objs[pagesObj-1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(kids))

	return Assemble(objs, catalog, "")
}

func deflateGray(img *image.Gray) []byte {
	var b bytes.Buffer
	z := zlib.NewWriter(&b)
	for y := img.Rect.Min.Y; y < img.Rect.Max.Y; y++ {
		i := img.PixOffset(img.Rect.Min.X, y)
		z.Write(img.Pix[i : i+img.Rect.Dx()])
	}
	z.Close()
	return b.Bytes()
}

func deflateBlank(w, h int) []byte {
	row := bytes.Repeat([]byte{0xff}, w)
	var b bytes.Buffer
	z, _ := zlib.NewWriterLevel(&b, zlib.BestCompression)
	for range h {
		z.Write(row)
	}
	z.Close()
	return b.Bytes()
}

// TextLines is a content stream that writes lines of text in Helvetica (/F1) at size points,
// from the top left of a US Letter page down, each line size × 1.4 below the one before.
// Letters outside ASCII are written in WinAnsiEncoding, which has German's umlauts and ß.
func TextLines(lines []string, size float64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "BT /F1 %g Tf %g TL 72 720 Td\n", size, size*1.4)
	for _, l := range lines {
		b.WriteString("(")
		for _, r := range l {
			switch {
			case r == '(' || r == ')' || r == '\\':
				b.WriteByte('\\')
				b.WriteRune(r)
			case r < 0x80:
				b.WriteRune(r)
			case r <= 0xff: // Latin-1 letters sit where WinAnsi has them
				fmt.Fprintf(&b, "\\%03o", r)
			default:
				b.WriteByte('?')
			}
		}
		b.WriteString(") Tj T*\n")
	}
	b.WriteString("ET")
	return b.String()
}

// Render renders the first page of a PDF as pdftoppm does for OCR, in grey at dpi: what a
// scanner would make of the printed page. It needs pdftoppm (Debian: poppler-utils).
func Render(pdf []byte, dpi int) (*image.Gray, error) {
	dir, err := os.MkdirTemp("", "loadtest-render-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	in, out := filepath.Join(dir, "in.pdf"), filepath.Join(dir, "out")
	if err := os.WriteFile(in, pdf, 0o600); err != nil {
		return nil, err
	}
	if msg, err := exec.Command("pdftoppm", "-r", strconv.Itoa(dpi), "-f", "1", "-l", "1", "-gray", "-png", "-singlefile", in, out).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("pdftoppm: %v %s", err, msg)
	}
	f, err := os.Open(out + ".png")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return nil, err
	}
	g := image.NewGray(img.Bounds())
	draw.Draw(g, g.Rect, img, img.Bounds().Min, draw.Src)
	return g, nil
}
