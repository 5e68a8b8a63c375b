package load

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"image"
	"image/jpeg"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"warren/kb/load/loadtest"
)

// The OCR tests run Tesseract and Poppler for real. Where they are not installed they skip,
// saying what to install; with WARREN_REQUIRE_OCR=1 (make e2e-docs) they fail instead.

// needOCR returns a Tesseract that can read PDF pages in German and English.
func needOCR(t testing.TB) *Tesseract {
	t.Helper()
	tess := &Tesseract{}
	st := tess.Status(context.Background(), DefaultOCRLanguages)
	if st.PDFProblem == "" {
		return tess
	}
	msg := fmt.Sprintf("OCR is not available (%s); install it with `%s`", st.PDFProblem, st.Fix)
	if os.Getenv("WARREN_REQUIRE_OCR") == "1" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return nil
}

var englishPage = []string{
	"Silane is a pyrophoric gas that ignites spontaneously in air. Cylinders",
	"must be stored in a ventilated gas cabinet with an exhaust rate of at",
	"least 200 feet per minute. Before any connection is opened, the line is",
	"purged with nitrogen three times and checked for leaks with a detector.",
	"Operators wear flame resistant clothing, gloves and a face shield.",
	"",
	"In case of fire, do not extinguish a leaking gas fire unless the leak",
	"can be stopped safely. The emergency shutoff valve is located next to",
	"the main door of the gas room; its position is checked every month.",
}

var germanPage = []string{
	"Gefährdungsbeurteilung für Tätigkeiten mit Gasen. Der Arbeitgeber muss",
	"prüfen, ob Beschäftigte gefährlichen Stoffen ausgesetzt sind. Größere",
	"Mengen dürfen nur in belüfteten Schränken gelagert werden. Die Prüfung",
	"der Dichtheit erfolgt vor jeder Inbetriebnahme der Leitung.",
	"",
	"Bei Störungen ist die Zufuhr sofort zu schließen und der Bereich zu",
	"räumen. Übungen für den Notfall finden jährlich statt; die Ergebnisse",
	"werden schriftlich dokumentiert. Äußerst wichtig: Schutzausrüstung und",
	"Atemschutz müssen getragen werden, auch bei kurzen Arbeiten.",
}

// textPDF writes a PDF whose one page draws lines as text.
func textPDF(t testing.TB, lines []string) string {
	t.Helper()
	return writeTB(t, "text.pdf", loadtest.Pages([]loadtest.Page{{Content: loadtest.TextLines(lines, 12)}}))
}

func writeTB(t testing.TB, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// scanOf renders the first page of the PDF at path as pdftoppm does for OCR, in grey at
// 300 dpi: what a scanner would have made of the printed page.
func scanOf(t testing.TB, path string) *image.Gray {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	img, err := loadtest.Render(data, 300)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// scannedPDF is a PDF whose only page is the scan of lines printed: an image, no text layer.
func scannedPDF(t testing.TB, lines []string) string {
	t.Helper()
	scan := scanOf(t, textPDF(t, lines))
	return writeTB(t, "scan.pdf", loadtest.Pages([]loadtest.Page{{Image: scan}}))
}

// worn makes a clean rendering look scanned: the sheet lies skewed by deg degrees, the paper
// is grey and grainy (noise of ±grain levels) and dust leaves a black speck on one pixel in
// 2,000. The noise is seeded, so every run reads the same image.
func worn(img *image.Gray, deg float64, grain int) *image.Gray {
	out := image.NewGray(img.Rect)
	sin, cos := math.Sincos(deg * math.Pi / 180)
	cx, cy := float64(img.Rect.Dx())/2, float64(img.Rect.Dy())/2
	rng := rand.New(rand.NewPCG(28, 4))
	for y := range img.Rect.Dy() {
		for x := range img.Rect.Dx() {
			// Each pixel of the scan comes from where the skewed sheet put it.
			dx, dy := float64(x)-cx, float64(y)-cy
			sx, sy := int(math.Round(cx+dx*cos+dy*sin)), int(math.Round(cy-dx*sin+dy*cos))
			v := 255
			if (image.Point{sx, sy}).In(img.Rect) {
				v = int(img.GrayAt(sx, sy).Y)
			}
			v = v*215/255 + 20 + rng.IntN(2*grain+1) - grain // grey paper, grain
			if rng.IntN(2000) == 0 {
				v = 0
			}
			out.Pix[out.PixOffset(x, y)] = byte(min(max(v, 0), 255))
		}
	}
	return out
}

func withOCR(r PageReader) LoadOptions {
	return LoadOptions{OCR: OCROptions{Mode: OCRAuto, Reader: r}}
}

// docText is the text of a document's sections, white space folded.
func docText(doc *Document) string {
	var parts []string
	for _, s := range doc.Sections {
		parts = append(parts, s.Number, s.Heading, s.Text)
	}
	return strings.Join(strings.Fields(strings.Join(parts, " ")), " ")
}

func TestOCRCharacterErrorRate(t *testing.T) {
	needOCR(t)
	for _, tc := range []struct {
		name  string
		lines []string
		limit float64
	}{
		{"english", englishPage, 0.02},
		{"german", germanPage, 0.03},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Tesseract runs on one thread: the languages run side by side.
			t.Parallel()
			tess := &Tesseract{}
			ref, err := Load(textPDF(t, tc.lines), LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			want := docText(ref)
			if !strings.Contains(want, strings.Fields(tc.lines[0])[0]) {
				t.Fatalf("the text layer reads %q", want)
			}
			// The page as rendered, and as a worn scanner would have made it.
			clean := scanOf(t, textPDF(t, tc.lines))
			var doc *Document
			for _, scan := range []struct {
				kind string
				img  *image.Gray
			}{{"clean", clean}, {"worn", worn(clean, 0.8, 40)}} {
				before := tess.Calls.Load()
				var err error
				doc, err = Load(writeTB(t, "scan.pdf", loadtest.Pages([]loadtest.Page{{Image: scan.img}})), withOCR(tess))
				if err != nil {
					t.Fatal(err)
				}
				if n := tess.Calls.Load() - before; n != 1 {
					t.Errorf("tesseract ran %d times for one page", n)
				}
				got := docText(doc)
				rate := loadtest.CharErrorRate(got, want)
				t.Logf("%s, %s scan: character error rate %.2f %% over %d characters (mean word confidence %.1f)",
					tc.name, scan.kind, 100*rate, len([]rune(want)), doc.Sections[0].OCRConfidence)
				if rate > tc.limit {
					t.Errorf("%s scan: character error rate %.2f %% > %.0f %%\n got %q\nwant %q", scan.kind, 100*rate, 100*tc.limit, got, want)
				}
			}
			for _, s := range doc.Sections {
				if !s.OCR || s.OCRConfidence < 50 || s.OCRConfidence > 100 || s.Page != 1 || s.PageKind != "page" {
					t.Errorf("section %+v: want OCR on page 1 with its confidence", s)
				}
			}
			if tc.name == "german" && doc.Language != "de" || tc.name == "english" && doc.Language != "en" {
				t.Errorf("language %q", doc.Language)
			}
			if doc.Meta["ocr_pages"] != "page 1" {
				t.Errorf("meta %v", doc.Meta)
			}
		})
	}
}

// mixedPDF has a text page, a scanned page and another text page.
func mixedPDF(t testing.TB, scan *image.Gray) string {
	t.Helper()
	return writeTB(t, "mixed.pdf", loadtest.Pages([]loadtest.Page{
		{Content: loadtest.TextLines([]string{"Page one has a text layer about nitrogen purging."}, 12)},
		{Image: scan},
		{Content: loadtest.TextLines([]string{"Page three has a text layer about leak checks."}, 12)},
	}))
}

func TestOCRReadsOnlyPagesWithoutText(t *testing.T) {
	tess := needOCR(t)
	path := mixedPDF(t, scanOf(t, textPDF(t, englishPage)))
	doc, err := Load(path, withOCR(tess))
	if err != nil {
		t.Fatal(err)
	}
	if n := tess.Calls.Load(); n != 1 {
		t.Errorf("tesseract ran %d times; only page 2 has no text layer", n)
	}
	seen := map[int]bool{}
	for _, s := range doc.Sections {
		seen[s.Page] = true
		switch {
		case s.PageKind != "page":
			t.Errorf("section %+v has no page kind", s)
		case s.Page == 2 && (!s.OCR || s.OCRConfidence <= 0 || !strings.Contains(s.Text, "nitrogen three times")):
			t.Errorf("page 2 is read by OCR: %+v", s)
		case s.Page != 2 && (s.OCR || s.OCRConfidence != 0):
			t.Errorf("page %d has a text layer, yet is marked as read by OCR: %+v", s.Page, s)
		}
	}
	if !seen[1] || !seen[2] || !seen[3] || len(seen) != 3 {
		t.Errorf("pages of the sections: %v", seen)
	}
	if !strings.Contains(docText(doc), "Page one has a text layer") || !strings.Contains(docText(doc), "Page three has a text layer") {
		t.Errorf("text pages: %q", docText(doc))
	}
	if doc.Meta["ocr_pages"] != "page 2" || doc.Meta["pages_not_read"] != "" {
		t.Errorf("meta %v", doc.Meta)
	}
}

// grayPattern is an image with no text in it, for tests that never run OCR.
func grayPattern(w, h int) *image.Gray {
	img := image.NewGray(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = byte(i * 7)
	}
	return img
}

func TestOCROffSkipsScannedPagesWithTheReason(t *testing.T) {
	tess := &Tesseract{}
	path := mixedPDF(t, grayPattern(60, 80))
	for _, opts := range []LoadOptions{{OCR: OCROptions{Mode: OCROff}}, {OCR: OCROptions{Mode: OCROff, Reader: tess}}} {
		doc, err := Load(path, opts)
		if err != nil {
			t.Fatal(err)
		}
		if got := doc.Meta["pages_not_read"]; got != `page 2: no text layer, and OCR is off (kb.ocr = "off")` {
			t.Errorf("pages_not_read %q", got)
		}
		for _, s := range doc.Sections {
			if s.Page == 2 || s.OCR {
				t.Errorf("section %+v", s)
			}
		}
		if !strings.Contains(docText(doc), "Page one") || !strings.Contains(docText(doc), "Page three") {
			t.Errorf("the text pages are ingested: %q", docText(doc))
		}
	}
	if tess.Calls.Load() != 0 {
		t.Errorf("tesseract ran with OCR off")
	}
	scan := writeTB(t, "scan.pdf", loadtest.Pages([]loadtest.Page{{Image: grayPattern(60, 80)}}))
	_, err := Load(scan, LoadOptions{OCR: OCROptions{Mode: OCROff}})
	var skip *SkipError
	if !errors.As(err, &skip) || skip.Reason != `no text layer (scanned PDF?), and OCR is off (kb.ocr = "off")` {
		t.Errorf("a scanned PDF with OCR off: %v", err)
	}
	img := writeTB(t, "scan.png", pngBytes(t, grayPattern(60, 80)))
	if _, err := Load(img, LoadOptions{OCR: OCROptions{Mode: OCROff}}); !errors.As(err, &skip) || !strings.Contains(skip.Reason, "only OCR reads") {
		t.Errorf("an image with OCR off: %v", err)
	}
}

func TestOCRNotInstalledSaysWhatToInstall(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // no tesseract, no pdftoppm
	path := mixedPDF(t, grayPattern(60, 80))
	doc, err := Load(path, LoadOptions{OCR: OCROptions{Mode: OCRAuto}})
	if err != nil {
		t.Fatal(err)
	}
	want := "page 2: no text layer, and OCR is not installed (no tesseract program): " + OCRInstallLine
	if got := doc.Meta["pages_not_read"]; got != want {
		t.Errorf("pages_not_read\n got %q\nwant %q", got, want)
	}
	if len(doc.Sections) == 0 {
		t.Error("the text pages are ingested")
	}
	img := writeTB(t, "scan.png", pngBytes(t, grayPattern(60, 80)))
	var skip *SkipError
	if _, err := Load(img, LoadOptions{OCR: OCROptions{Mode: OCRAuto}}); !errors.As(err, &skip) || !strings.Contains(skip.Reason, OCRInstallLine) {
		t.Errorf("an image without OCR: %v", err)
	}
	st := CheckOCR(context.Background(), "deu+eng")
	if st.Problem == "" || st.Fix != OCRInstallLine {
		t.Errorf("status %+v", st)
	}
}

func TestOCRRefusesEnormousPagesQuickly(t *testing.T) {
	tess := needOCR(t)
	// A 20000 × 20000 pt page (7 m square) would be 1,736 million pixels at 150 dpi.
	huge := writeTB(t, "huge.pdf", loadtest.Pages([]loadtest.Page{{Image: grayPattern(100, 100), Width: 20000, Height: 20000}}))
	start := time.Now()
	_, err := Load(huge, withOCR(tess))
	var skip *SkipError
	if !errors.As(err, &skip) || !strings.Contains(skip.Reason, "page 1 measures 706 × 706 cm") || !strings.Contains(skip.Reason, "million pixels") {
		t.Errorf("an enormous page: %v", err)
	}
	// A letter page whose one image has 144 million pixels (compressed to 140 kB), with
	// the limit lowered to 100 million to keep the test small.
	tess.MaxImagePixels = 100_000_000
	bomb := writeTB(t, "bomb.pdf", loadtest.Pages([]loadtest.Page{{Blank: [2]int{12000, 12000}}}))
	_, err = Load(bomb, withOCR(tess))
	if !errors.As(err, &skip) || !strings.Contains(skip.Reason, "page 1 holds images of 144 million pixels in all (the largest 12000 × 12000)") {
		t.Errorf("an enormous image: %v", err)
	}
	if tess.Calls.Load() != 0 {
		t.Errorf("tesseract ran %d times on pages it refused", tess.Calls.Load())
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("refusing took %s", d)
	}
	// An image file is measured from its header, before anything runs.
	if _, err := Load(writeTB(t, "huge.png", pngHeader(20000, 20000)), withOCR(tess)); !errors.As(err, &skip) ||
		!strings.Contains(skip.Reason, "20000 × 20000 pixels, more than the 50 million OCR reads") {
		t.Errorf("an enormous PNG: %v", err)
	}
}

// pngHeader is the start of a PNG of w × h pixels: enough for its size to be read.
func pngHeader(w, h int) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr, uint32(w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(h))
	ihdr[8], ihdr[9] = 8, 0 // 8-bit grey
	binary.Write(&b, binary.BigEndian, uint32(len(ihdr)))
	chunk := append([]byte("IHDR"), ihdr...)
	b.Write(chunk)
	binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(chunk))
	return b.Bytes()
}

func pngBytes(t testing.TB, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// tiffBytes is an uncompressed grey TIFF with one page per image.
func tiffBytes(pages ...*image.Gray) []byte {
	var b bytes.Buffer
	le := binary.LittleEndian
	b.WriteString("II*\x00")
	binary.Write(&b, le, uint32(8))
	for i, img := range pages {
		w, h := img.Rect.Dx(), img.Rect.Dy()
		const entries = 8
		dirLen := 2 + entries*12 + 4
		data := uint32(b.Len() + dirLen)
		next := uint32(0)
		if i+1 < len(pages) {
			next = data + uint32(w*h)
		}
		binary.Write(&b, le, uint16(entries))
		entry := func(tag, typ uint16, v uint32) {
			binary.Write(&b, le, tag)
			binary.Write(&b, le, typ)
			binary.Write(&b, le, uint32(1))
			binary.Write(&b, le, v)
		}
		entry(256, 4, uint32(w))   // ImageWidth
		entry(257, 4, uint32(h))   // ImageLength
		entry(258, 3, 8)           // BitsPerSample
		entry(259, 3, 1)           // no compression
		entry(262, 3, 1)           // BlackIsZero
		entry(273, 4, data)        // StripOffsets
		entry(278, 4, uint32(h))   // RowsPerStrip
		entry(279, 4, uint32(w*h)) // StripByteCounts
		binary.Write(&b, le, next)
		b.Write(img.Pix)
	}
	return b.Bytes()
}

func TestOCRReadsImageFiles(t *testing.T) {
	tess := needOCR(t)
	en, de := scanOf(t, textPDF(t, englishPage)), scanOf(t, textPDF(t, germanPage))
	var jpg bytes.Buffer
	if err := jpeg.Encode(&jpg, en, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		data  []byte
		pages int // sections are numbered by page only where an image has several
	}{
		{"scan.png", pngBytes(t, en), 0},
		{"scan.jpg", jpg.Bytes(), 0},
		{"scan.tiff", tiffBytes(en, de), 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := tess.Calls.Load()
			doc, err := Load(writeTB(t, tc.name, tc.data), withOCR(tess))
			if err != nil {
				t.Fatal(err)
			}
			if n := tess.Calls.Load() - before; n != 1 {
				t.Errorf("tesseract ran %d times", n)
			}
			text := docText(doc)
			if !strings.Contains(text, "pyrophoric gas") {
				t.Errorf("text %q", text)
			}
			pages := map[int]bool{}
			for _, s := range doc.Sections {
				if !s.OCR || s.OCRConfidence < 50 {
					t.Errorf("section %+v", s)
				}
				if tc.pages > 0 && s.PageKind != "page" || tc.pages == 0 && (s.Page != 0 || s.PageKind != "") {
					t.Errorf("section %+v", s)
				}
				pages[s.Page] = true
			}
			if tc.pages == 2 && (!pages[1] || !pages[2] || !strings.Contains(text, "Schränken")) {
				t.Errorf("a two-page TIFF: pages %v, text %q", pages, text)
			}
		})
	}
}

// fakeTesseract is a tesseract that answers what it has and then hangs reading a page, with
// a child process holding its output open, as a stuck converter does.
func fakeTesseract(t *testing.T) *Tesseract {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in is a shell script")
	}
	path := filepath.Join(t.TempDir(), "tesseract")
	script := "#!/bin/sh\ncase \"$1\" in\n--version) echo 'tesseract 5.3.0 (stand-in)';;\n" +
		"--list-langs) printf 'List of available languages (2):\\ndeu\\neng\\n';;\n*) sleep 60; echo never;;\nesac\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return &Tesseract{TesseractPath: path}
}

func TestConvertTimeoutStopsAHangingConverter(t *testing.T) {
	tess := fakeTesseract(t)
	img := writeTB(t, "scan.png", pngBytes(t, grayPattern(60, 80)))
	opts := withOCR(tess)
	opts.ConvertTimeout = 300 * time.Millisecond
	start := time.Now()
	_, err := Load(img, opts)
	var skip *SkipError
	if !errors.As(err, &skip) || skip.Reason != "the converter (tesseract) took longer than kb.convert_timeout (300ms); skipped" {
		t.Errorf("a hanging converter: %v", err)
	}
	// Killing only the shell would leave sleep holding the output for WaitDelay (2s): the
	// whole process group goes.
	if d := time.Since(start); d > 1500*time.Millisecond {
		t.Errorf("stopping took %s", d)
	}
	if tess.Calls.Load() != 1 {
		t.Errorf("calls %d", tess.Calls.Load())
	}

	// Cancelling the ingest stops it as quickly.
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	opts.ConvertTimeout = time.Minute
	start = time.Now()
	_, err = LoadContext(ctx, img, opts)
	if !errors.Is(err, context.Canceled) || errors.As(err, &skip) {
		t.Errorf("a cancelled load: %v", err)
	}
	if d := time.Since(start); d > 1500*time.Millisecond {
		t.Errorf("cancelling took %s", d)
	}
}

// A loader in Go that takes longer than the timeout is abandoned, its file skipped with the
// reason: reading 8 MB of CSV takes far longer than a millisecond.
func TestConvertTimeoutAbandonsASlowLoader(t *testing.T) {
	csv := writeTB(t, "big.csv", bytes.Repeat([]byte("Silane,SiH4,pyrophoric,2.5\n"), 300_000))
	_, err := Load(csv, LoadOptions{ConvertTimeout: time.Millisecond})
	var skip *SkipError
	if !errors.As(err, &skip) || skip.Reason != "the converter (the CSV reader) took longer than kb.convert_timeout (1ms); skipped" {
		t.Errorf("a slow loader: %v", err)
	}
	if _, err := Load(csv, LoadOptions{}); err != nil {
		t.Errorf("with the default timeout: %v", err)
	}
}

func TestWatchdogWaitsForProgramsButNotForGo(t *testing.T) {
	w := newWatchdog(50 * time.Millisecond)
	w.pause()
	time.Sleep(100 * time.Millisecond)
	select {
	case <-w.fired:
		t.Fatal("fired while paused")
	default:
	}
	w.rearm()
	select {
	case <-w.fired:
	case <-time.After(time.Second):
		t.Fatal("never fired")
	}
}

func TestParseTesseractTSV(t *testing.T) {
	tsv := "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n" +
		"1\t1\t0\t0\t0\t0\t0\t0\t100\t100\t-1\t\n" +
		"5\t1\t1\t1\t1\t1\t0\t0\t1\t1\t90\tGefahr\n" +
		"5\t1\t1\t1\t1\t2\t0\t0\t1\t1\t80\tdurch\n" +
		"5\t1\t1\t1\t2\t1\t0\t0\t1\t1\t70\tGase.\n" +
		"5\t1\t1\t1\t2\t2\t0\t0\t1\t1\t95\t \n" +
		"5\t1\t2\t1\t1\t1\t0\t0\t1\t1\t60\tZweiter\n" +
		"4\t1\t2\t1\t1\t0\t0\t0\t1\t1\t-1\t\n" +
		"5\t2\t1\t1\t1\t1\t0\t0\t1\t1\t50\tSeite\n"
	got := parseTesseractTSV([]byte(tsv))
	want := []OCRPage{
		{Page: 1, Text: "Gefahr durch\nGase.\n\nZweiter", Confidence: 75, Words: 4},
		{Page: 2, Text: "Seite", Confidence: 50, Words: 1},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}

func TestPageDPI(t *testing.T) {
	for _, tc := range []struct {
		w, h float64
		dpi  int
		err  string
	}{
		{612, 792, 300, ""},
		{2384, 3370, 179, ""}, // A0: lower, within the pixel limit
		{20000, 20000, 0, "more than the 50 million OCR reads"},
		{0, 792, 0, "no usable size"},
	} {
		dpi, err := pageDPI(1, tc.w, tc.h)
		if dpi != tc.dpi || (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%g × %g: %d, %v", tc.w, tc.h, dpi, err)
		}
	}
}

func TestValidOCRLanguages(t *testing.T) {
	for s, ok := range map[string]bool{"deu+eng": true, "eng": true, "chi_sim+eng": true,
		"": false, "-l": false, "deu eng": false, "deu+": false, "--psm=0": false, "eng;rm": false} {
		if ValidOCRLanguages(s) != ok {
			t.Errorf("%q: want %v", s, ok)
		}
	}
	_, err := Load(writeTB(t, "scan.png", pngBytes(t, grayPattern(60, 80))), LoadOptions{OCR: OCROptions{Mode: OCRAuto, Languages: "--tessdata-dir /tmp"}})
	var skip *SkipError
	if !errors.As(err, &skip) || !strings.Contains(skip.Reason, "is not a list of Tesseract languages") {
		t.Errorf("an option in the languages: %v", err)
	}
}

func TestTIFFSizes(t *testing.T) {
	data := tiffBytes(grayPattern(30, 20), grayPattern(10, 40))
	sizes, err := tiffSizes(bytes.NewReader(data))
	if err != nil || fmt.Sprint(sizes) != "[[30 20] [10 40]]" {
		t.Errorf("sizes %v, %v", sizes, err)
	}
	loop := append([]byte{}, data...)
	binary.LittleEndian.PutUint32(loop[8+2+8*12:], 8) // the first page's next page is itself
	if _, err := tiffSizes(bytes.NewReader(loop)); err == nil || !strings.Contains(err.Error(), "loop") {
		t.Errorf("a looping TIFF: %v", err)
	}
	if _, err := tiffSizes(bytes.NewReader([]byte("II+\x00\x08\x00\x00\x00"))); err == nil || !strings.Contains(err.Error(), "BigTIFF") {
		t.Errorf("BigTIFF: %v", err)
	}
}

// BenchmarkOCRPage reads one scanned page (the English one, letter size at 300 dpi) per
// iteration, PDF rendering included, and reports pages per minute.
func BenchmarkOCRPage(b *testing.B) {
	tess := needOCR(b)
	path := scannedPDF(b, englishPage)
	start, pages := time.Now(), int64(0)
	for b.Loop() {
		pages++
		doc, err := Load(path, withOCR(tess))
		if err != nil {
			b.Fatal(err)
		}
		if !strings.Contains(docText(doc), "pyrophoric") {
			b.Fatalf("read %q", docText(doc))
		}
	}
	elapsed := time.Since(start)
	if n := tess.Calls.Load(); n != pages {
		b.Fatalf("tesseract ran %d times for %d pages", n, pages)
	}
	b.ReportMetric(float64(pages)/elapsed.Minutes(), "pages/min")
}

// FuzzOCRParsers feeds what programs and files claim to the code that reads it: Tesseract's
// TSV and a TIFF's page directories. Neither may panic, and every page read must have text
// exactly when it has words.
func FuzzOCRParsers(f *testing.F) {
	f.Add([]byte("level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n" +
		"5\t1\t1\t1\t1\t1\t0\t0\t1\t1\t90\tGefahr\n5\t2\t1\t1\t1\t1\t0\t0\t1\t1\t-1\tx\n"))
	f.Add(tiffBytes(grayPattern(3, 2), grayPattern(1, 4)))
	f.Add([]byte("MM\x00*\x00\x00\x00\x08\xff\xff"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, p := range parseTesseractTSV(data) {
			if (p.Words > 0) != (p.Text != "") || !(p.Confidence >= 0 && p.Confidence <= 100) || strings.ContainsRune(p.Text, '\f') {
				t.Fatalf("page %+v", p)
			}
		}
		if sizes, err := tiffSizes(bytes.NewReader(data)); err == nil && len(sizes) == 0 {
			t.Fatal("no pages and no error")
		}
	})
}
