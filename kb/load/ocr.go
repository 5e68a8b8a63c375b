package load

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode"
)

// Scanned pages are read by OCR: Tesseract (Debian's tesseract-ocr with a language package
// each) run as a separate program, so warren's binary stays pure Go, with the pages of a PDF
// rendered to images by Poppler's pdftoppm first (poppler-utils). Only pages without a text
// layer are read so, also in a PDF that mixes both, and image files (PNG, JPEG, TIFF).

// OCR modes, the values of kb.ocr.
const (
	OCRAuto = "auto" // read pages without text by OCR when it is installed
	OCROff  = "off"  // never; such pages are skipped with that reason
)

// DefaultOCRLanguages are the Tesseract languages pages are read in unless kb.ocr_languages
// says otherwise.
const DefaultOCRLanguages = "deu+eng"

const (
	ocrDPI    = 300 // what Tesseract reads best at
	ocrMinDPI = 150 // below it, small print is lost: a page that needs less is refused
	// maxPagePixels bounds a page image (width × height) given to Tesseract, which holds a
	// few copies of it: 50 million is an A1 sheet at 200 dpi, and about 1 GB at most in
	// Tesseract. Larger pages are read at a lower resolution, down to ocrMinDPI.
	maxPagePixels = 50_000_000
	maxOCRText    = 32 << 20 // Tesseract's TSV for one page or image
	// maxImagePixels bounds the images drawn on one PDF page: pdftoppm decodes them whole
	// (in bounded memory, but a second or more per hundred million pixels), and a few
	// kilobytes of compressed data can claim billions. A 600 dpi A0 scan has 560 million.
	maxImagePixels = 1_000_000_000
)

// OCRInstallLine installs everything OCR needs on Debian and Ubuntu with the default
// languages.
const OCRInstallLine = "apt-get install tesseract-ocr tesseract-ocr-deu tesseract-ocr-eng poppler-utils"

// OCROptions say whether and how pages without a text layer are read.
type OCROptions struct {
	// Mode is OCRAuto or OCROff; "" means OCRAuto, kb.ocr's default.
	Mode string
	// Languages are Tesseract's, joined by "+" ("deu+eng"); "" means DefaultOCRLanguages.
	Languages string
	// Reader reads the pages; nil means Tesseract found on PATH.
	Reader PageReader
}

// PageReader reads text from page images. *Tesseract is the one warren uses.
type PageReader interface {
	// Status says what the reader can do with languages on this machine, and what to
	// install when it can't.
	Status(ctx context.Context, languages string) OCRStatus
	// Read reads one page of a PDF, or every page of an image file.
	Read(ctx context.Context, job OCRJob) ([]OCRPage, error)
}

// OCRJob is one read.
type OCRJob struct {
	Path      string // a PDF when Page > 0, else an image file (PNG, JPEG or TIFF)
	Page      int    // the PDF's page, from 1
	Languages string
	Timeout   time.Duration // for each program run
	Dir       string        // a private folder for intermediate files
}

// OCRPage is the text read from one page.
type OCRPage struct {
	Page       int     // the PDF's page, or the image's (a TIFF may hold several), from 1
	Text       string  // lines as read, paragraphs separated by a blank line
	Confidence float64 // mean word confidence, 0–100
	Words      int
}

// OCRStatus is what OCR can do on this machine.
type OCRStatus struct {
	Tesseract string   `json:"tesseract,omitempty"` // the program, "" when not found
	Version   string   `json:"version,omitempty"`
	Languages []string `json:"languages,omitempty"` // the languages it has
	Missing   []string `json:"missing,omitempty"`   // of those asked for, the ones it lacks
	PDFToPPM  string   `json:"pdftoppm,omitempty"`
	PDFInfo   string   `json:"pdfinfo,omitempty"`
	// Problem says why images cannot be read, PDFProblem why the pages of a PDF cannot;
	// "" when they can.
	Problem    string `json:"problem,omitempty"`
	PDFProblem string `json:"pdf_problem,omitempty"`
	Fix        string `json:"fix,omitempty"` // the apt-get line that installs what is missing
}

// ValidOCRLanguages reports whether s is a list of Tesseract language names joined by "+"
// (letters, digits and "_"), so it can be passed to tesseract without being read as an
// option.
func ValidOCRLanguages(s string) bool { return len(s) <= 200 && ocrLanguagesRe.MatchString(s) }

var ocrLanguagesRe = regexp.MustCompile(`^[A-Za-z0-9_]+(\+[A-Za-z0-9_]+)*$`)

// Tesseract is the PageReader that runs tesseract, with pdftoppm and pdfinfo for PDFs.
type Tesseract struct {
	// The programs; "" looks each up on PATH. pdfimages, when found, measures the images of
	// a page before it is rendered.
	TesseractPath, PDFToPPMPath, PDFInfoPath, PDFImagesPath string
	// MaxImagePixels bounds the pixels of the images on one PDF page; 0 means 1,000 million.
	MaxImagePixels int64
	// Calls counts the runs of tesseract on a page or image, so a test can tell which pages
	// were read by OCR and a benchmark that it really ran.
	Calls atomic.Int64
}

var defaultTesseract = &Tesseract{}

// CheckOCR says what OCR can do on this machine with languages (kb.ocr_languages), for
// `warren doctor`.
func CheckOCR(ctx context.Context, languages string) OCRStatus {
	return defaultTesseract.Status(ctx, languages)
}

func lookProgram(path, name string) string {
	if path != "" {
		return path
	}
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	return ""
}

// Status implements PageReader.
func (t *Tesseract) Status(ctx context.Context, languages string) OCRStatus {
	if languages == "" {
		languages = DefaultOCRLanguages
	}
	st := OCRStatus{
		Tesseract: lookProgram(t.TesseractPath, "tesseract"),
		PDFToPPM:  lookProgram(t.PDFToPPMPath, "pdftoppm"),
		PDFInfo:   lookProgram(t.PDFInfoPath, "pdfinfo"),
	}
	wanted := strings.Split(languages, "+")
	var packages []string
	switch {
	case !ValidOCRLanguages(languages):
		st.Problem = fmt.Sprintf("kb.ocr_languages %q is not a list of Tesseract languages such as deu+eng", languages)
	case st.Tesseract == "":
		st.Problem = "OCR is not installed (no tesseract program)"
		packages = append(packages, "tesseract-ocr")
		for _, l := range wanted {
			packages = append(packages, languagePackage(l))
		}
	default:
		dir := os.TempDir()
		if out, err := runTool(ctx, 30*time.Second, dir, 1<<20, st.Tesseract, "--version"); err == nil {
			st.Version = strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0])
		}
		out, err := runTool(ctx, 30*time.Second, dir, 1<<20, st.Tesseract, "--list-langs")
		if err != nil {
			st.Problem = fmt.Sprintf("tesseract does not run: %v", err)
			break
		}
		for _, l := range strings.Split(string(out), "\n")[1:] { // the first line is a title
			if l = strings.TrimSpace(l); l != "" {
				st.Languages = append(st.Languages, l)
			}
		}
		for _, l := range wanted {
			if !slices.Contains(st.Languages, l) {
				st.Missing = append(st.Missing, l)
				packages = append(packages, languagePackage(l))
			}
		}
		if len(st.Missing) > 0 {
			st.Problem = fmt.Sprintf("tesseract lacks the language(s) %s of kb.ocr_languages", strings.Join(st.Missing, ", "))
		}
	}
	st.PDFProblem = st.Problem
	if st.PDFToPPM == "" || st.PDFInfo == "" {
		packages = append(packages, "poppler-utils")
		if st.PDFProblem == "" {
			st.PDFProblem = "OCR of PDF pages needs pdftoppm and pdfinfo, which are not installed"
		}
	}
	if len(packages) > 0 {
		st.Fix = "apt-get install " + strings.Join(packages, " ")
	}
	return st
}

// languagePackage is the Debian package of a Tesseract language: chi_sim → tesseract-ocr-chi-sim.
func languagePackage(lang string) string {
	return "tesseract-ocr-" + strings.ReplaceAll(strings.ToLower(lang), "_", "-")
}

// Read implements PageReader. A PDF page is measured first (pdfinfo) and refused when even
// at ocrMinDPI its image would exceed maxPagePixels; else it is rendered in grey (pdftoppm)
// at ocrDPI, or lower for a large page, and read (tesseract). Each program runs within
// job.Timeout.
func (t *Tesseract) Read(ctx context.Context, job OCRJob) ([]OCRPage, error) {
	if !ValidOCRLanguages(job.Languages) {
		return nil, fmt.Errorf("kb.ocr_languages %q is not a list of Tesseract languages such as deu+eng", job.Languages)
	}
	tess := lookProgram(t.TesseractPath, "tesseract")
	if tess == "" {
		return nil, errors.New("OCR is not installed (no tesseract program): " + OCRInstallLine)
	}
	image, dpi := job.Path, 0
	if job.Page > 0 {
		var err error
		if image, dpi, err = t.render(ctx, job); err != nil {
			return nil, err
		}
		defer os.Remove(image)
	}
	args := []string{image, "stdout", "-l", job.Languages}
	if dpi > 0 {
		args = append(args, "--dpi", strconv.Itoa(dpi))
	}
	args = append(args, "tsv")
	t.Calls.Add(1)
	out, err := runTool(ctx, job.Timeout, job.Dir, maxOCRText, tess, args...)
	if err != nil {
		return nil, onPage(err, job.Page)
	}
	pages := parseTesseractTSV(out)
	if job.Page > 0 {
		// One image, whatever number Tesseract gave it: the page is the PDF's.
		if len(pages) == 0 {
			return []OCRPage{{Page: job.Page}}, nil
		}
		pages[0].Page = job.Page
		return pages[:1], nil
	}
	return pages, nil
}

// onPage adds the page to a timeout, which becomes the reason the file is skipped.
func onPage(err error, page int) error {
	var te *TimeoutError
	if page > 0 && errors.As(err, &te) {
		return &TimeoutError{Converter: fmt.Sprintf("%s on page %d", te.Converter, page), Timeout: te.Timeout}
	}
	return err
}

var pdfInfoSizeRe = regexp.MustCompile(`(?m)^Page\s+(\d+)\s+size:\s+([0-9.]+)\s+x\s+([0-9.]+)\s+pts`)

// render measures page job.Page and renders it to a grey PNG in job.Dir, returning the image
// and its resolution.
func (t *Tesseract) render(ctx context.Context, job OCRJob) (string, int, error) {
	info := lookProgram(t.PDFInfoPath, "pdfinfo")
	ppm := lookProgram(t.PDFToPPMPath, "pdftoppm")
	if info == "" || ppm == "" {
		return "", 0, errors.New("OCR of PDF pages needs pdftoppm and pdfinfo: apt-get install poppler-utils")
	}
	page := strconv.Itoa(job.Page)
	out, err := runTool(ctx, job.Timeout, job.Dir, 1<<20, info, "-f", page, "-l", page, job.Path)
	if err != nil {
		return "", 0, onPage(err, job.Page)
	}
	m := pdfInfoSizeRe.FindSubmatch(out)
	if m == nil {
		return "", 0, fmt.Errorf("pdfinfo did not give the size of page %d", job.Page)
	}
	w, _ := strconv.ParseFloat(string(m[2]), 64)
	h, _ := strconv.ParseFloat(string(m[3]), 64)
	dpi, err := pageDPI(job.Page, w, h)
	if err != nil {
		return "", 0, err
	}
	if err := t.checkImages(ctx, job); err != nil {
		return "", 0, err
	}
	base := filepath.Join(job.Dir, fmt.Sprintf("page-%d", job.Page))
	if _, err := runTool(ctx, job.Timeout, job.Dir, 1<<20, ppm, "-r", strconv.Itoa(dpi), "-f", page, "-l", page,
		"-cropbox", "-gray", "-png", "-singlefile", job.Path, base); err != nil {
		return "", 0, onPage(err, job.Page)
	}
	image := base + ".png"
	fi, err := os.Stat(image)
	if err != nil {
		return "", 0, fmt.Errorf("pdftoppm made no image of page %d", job.Page)
	}
	// A grey pixel is a byte before compression: anything much larger is not the page measured.
	if fi.Size() > maxPagePixels+1<<20 {
		os.Remove(image)
		return "", 0, fmt.Errorf("the image of page %d is %d MB, larger than its size allows; not read", job.Page, fi.Size()>>20)
	}
	return image, dpi, nil
}

// checkImages refuses a page whose images have more than MaxImagePixels in all, as
// pdfimages lists them (without decoding them); without pdfimages it lets the page pass.
func (t *Tesseract) checkImages(ctx context.Context, job OCRJob) error {
	prog := lookProgram(t.PDFImagesPath, "pdfimages")
	if prog == "" {
		return nil
	}
	limit := t.MaxImagePixels
	if limit <= 0 {
		limit = maxImagePixels
	}
	page := strconv.Itoa(job.Page)
	out, err := runTool(ctx, job.Timeout, job.Dir, 4<<20, prog, "-list", "-f", page, "-l", page, job.Path)
	if err != nil {
		return onPage(err, job.Page)
	}
	var total, most int64
	var mw, mh int64
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 5 || f[0] != page {
			continue
		}
		w, err1 := strconv.ParseInt(f[3], 10, 64)
		h, err2 := strconv.ParseInt(f[4], 10, 64)
		if err1 != nil || err2 != nil || w <= 0 || h <= 0 || w > 1<<31 || h > 1<<31 {
			continue
		}
		total += w * h
		if w*h > most {
			most, mw, mh = w*h, w, h
		}
	}
	if total > limit {
		return fmt.Errorf("page %d holds images of %.0f million pixels in all (the largest %d × %d), more than the %d million OCR decodes for a page; not read",
			job.Page, float64(total)/1e6, mw, mh, limit/1_000_000)
	}
	return nil
}

// pageDPI is the resolution page n (w × h points) is rendered at: ocrDPI, or less for a large
// page so its image stays within maxPagePixels; a page that would need less than ocrMinDPI is
// refused.
func pageDPI(n int, w, h float64) (int, error) {
	if !(w > 0 && h > 0) || math.IsInf(w*h, 0) {
		return 0, fmt.Errorf("page %d has no usable size (%g × %g points)", n, w, h)
	}
	pixels := func(dpi float64) float64 { return (w / 72 * dpi) * (h / 72 * dpi) }
	if pixels(ocrDPI) <= maxPagePixels {
		return ocrDPI, nil
	}
	dpi := math.Floor(72 * math.Sqrt(maxPagePixels/(w*h)))
	if dpi >= ocrMinDPI {
		return int(dpi), nil
	}
	return 0, fmt.Errorf("page %d measures %.0f × %.0f cm: even at %d dpi its image would have %.0f million pixels, more than the %d million OCR reads (it would take too long and too much memory); not read",
		n, w/72*2.54, h/72*2.54, ocrMinDPI, pixels(ocrMinDPI)/1e6, maxPagePixels/1_000_000)
}

// parseTesseractTSV rebuilds the text of each page from Tesseract's TSV: words (level 5)
// joined by spaces within a line, lines by newlines, and blocks and paragraphs by a blank
// line; the confidence is the mean of the words' (Tesseract gives -1 to what is not a word).
func parseTesseractTSV(data []byte) []OCRPage {
	var pages []OCRPage
	var b strings.Builder
	var sum float64
	var prevPar, prevLine [2]int
	flush := func() {
		if k := len(pages) - 1; k >= 0 {
			pages[k].Text = b.String()
			if pages[k].Words > 0 {
				pages[k].Confidence = math.Round(sum/float64(pages[k].Words)*10) / 10
			}
		}
		b.Reset()
		sum = 0
	}
	for i, line := range bytes.Split(data, []byte("\n")) {
		f := strings.Split(strings.TrimRight(string(line), "\r"), "\t")
		if i == 0 || len(f) < 12 || f[0] != "5" {
			continue
		}
		num := func(j int) int { n, _ := strconv.Atoi(f[j]); return n }
		page, block, par, ln := num(1), num(2), num(3), num(4)
		// No control characters: a form feed would read as a page break.
		word := strings.TrimSpace(strings.Map(func(r rune) rune {
			if unicode.IsControl(r) {
				return -1
			}
			return r
		}, strings.ToValidUTF8(strings.Join(f[11:], " "), "\uFFFD")))
		conf, err := strconv.ParseFloat(f[10], 64)
		if word == "" || err != nil || !(conf >= 0) { // -1 (not a word), or NaN
			continue
		}
		if len(pages) == 0 || pages[len(pages)-1].Page != page {
			flush()
			pages = append(pages, OCRPage{Page: page})
			prevPar, prevLine = [2]int{-1, -1}, [2]int{-1, -1}
		}
		switch {
		case b.Len() == 0:
		case [2]int{block, par} != prevPar:
			b.WriteString("\n\n")
		case [2]int{par, ln} != prevLine:
			b.WriteString("\n")
		default:
			b.WriteString(" ")
		}
		prevPar, prevLine = [2]int{block, par}, [2]int{par, ln}
		b.WriteString(word)
		sum += min(conf, 100)
		pages[len(pages)-1].Words++
	}
	flush()
	return pages
}

// reader is the load's PageReader.
func (c *converter) reader() PageReader {
	if c.ocr.Reader != nil {
		return c.ocr.Reader
	}
	return defaultTesseract
}

func (c *converter) languages() string {
	if c.ocr.Languages == "" {
		return DefaultOCRLanguages
	}
	return c.ocr.Languages
}

// ocrProblem is why this load cannot read pages by OCR ("" when it can): a PDF's pages when
// pdf is true, else image files. A nil converter (an e-mail attachment's) reads none.
func (c *converter) ocrProblem(pdf bool) string {
	if c == nil || c.ocr.Mode != OCRAuto && c.ocr.Mode != "" {
		return `OCR is off (kb.ocr = "off")`
	}
	if c.status == nil {
		c.wd.pause()
		st := c.reader().Status(c.ctx, c.languages())
		c.wd.rearm()
		c.status = &st
	}
	p := c.status.Problem
	if pdf {
		p = c.status.PDFProblem
	}
	if p != "" && c.status.Fix != "" {
		p += ": " + c.status.Fix
	}
	return p
}

// readOCR runs one job; the watchdog waits meanwhile, since every program has its own timeout.
func (c *converter) readOCR(path string, page int) ([]OCRPage, error) {
	dir, err := c.tempDir()
	if err != nil {
		return nil, err
	}
	c.wd.pause()
	defer c.wd.rearm()
	return c.reader().Read(c.ctx, OCRJob{Path: path, Page: page, Languages: c.languages(), Timeout: c.timeout, Dir: dir})
}

// pageScans holds the mean word confidence of each page read by OCR.
type pageScans map[int]float64

// mark flags the sections of the pages read by OCR (by their Page) with their confidence.
func (s pageScans) mark(sections []Section) {
	for i := range sections {
		if conf, ok := s[sections[i].Page]; ok && sections[i].Page > 0 {
			sections[i].OCR, sections[i].OCRConfidence = true, conf
		}
	}
}

// pdfPages returns the text of each page of the PDF f, pages[i] being page i+1, reading pages
// without a text layer by OCR when it is on and can run; scans says which pages were read so.
// Pages that could not be read are named with the reason in doc.Meta["pages_not_read"]; a PDF
// none of whose pages has text is skipped with the reason.
func (c *converter) pdfPages(doc *Document, f *os.File) (pages []string, scans pageScans, err error) {
	pages, err = extractPDFFile(f)
	noLayer := errors.Is(err, errNoTextLayer)
	if err != nil && !noLayer {
		return nil, nil, &SkipError{Path: doc.Source, Reason: err.Error()}
	}
	var empty []int
	for i, p := range pages {
		if strings.TrimSpace(p) == "" {
			empty = append(empty, i+1)
		}
	}
	if len(empty) == 0 {
		return pages, nil, nil
	}
	if problem := c.ocrProblem(true); problem != "" {
		if noLayer || len(empty) == len(pages) {
			return nil, nil, &SkipError{Path: doc.Source, Reason: errNoTextLayer.Error() + ", and " + problem}
		}
		doc.Meta["pages_not_read"] = fmt.Sprintf("%s: no text layer, and %s", pageList(empty), problem)
		return pages, nil, nil
	}
	src, err := c.copyToTemp(f, "document.pdf")
	if err != nil {
		return nil, nil, err
	}
	defer os.Remove(src)
	scans = pageScans{}
	var unread []string
	for _, n := range empty {
		read, err := c.readOCR(src, n)
		var te *TimeoutError
		switch {
		case c.ctx.Err() != nil:
			return nil, nil, fmt.Errorf("couldn't read %s: %w", doc.Source, c.ctx.Err())
		case errors.As(err, &te):
			return nil, nil, &SkipError{Path: doc.Source, Reason: te.Error()}
		case err != nil:
			unread = append(unread, err.Error())
		case len(read) == 0 || read[0].Words == 0:
			// An empty page, as scans have between chapters: nothing to index.
		default:
			pages[n-1], scans[n] = read[0].Text, read[0].Confidence
		}
	}
	if len(unread) > 0 {
		doc.Meta["pages_not_read"] = joinReasons(unread)
	}
	if len(scans) > 0 {
		nums := make([]int, 0, len(scans))
		for n := range scans {
			nums = append(nums, n)
		}
		slices.Sort(nums)
		doc.Meta["ocr_pages"] = pageList(nums)
	}
	if len(scans) == 0 && (noLayer || len(empty) == len(pages)) {
		reason := fmt.Sprintf("%s, and OCR found no text on its %d page(s)", errNoTextLayer, len(empty))
		if len(unread) > 0 {
			reason = errNoTextLayer.Error() + ", and OCR could not read it: " + joinReasons(unread)
		}
		return nil, nil, &SkipError{Path: doc.Source, Reason: reason}
	}
	return pages, scans, nil
}

// joinReasons joins the first few reasons, counting the rest.
func joinReasons(rs []string) string {
	const most = 3
	if len(rs) <= most {
		return strings.Join(rs, "; ")
	}
	return fmt.Sprintf("%s; and %d more", strings.Join(rs[:most], "; "), len(rs)-most)
}

// pageList names sorted pages compactly: "page 3", "pages 1–4, 7".
func pageList(pages []int) string {
	var parts []string
	for i := 0; i < len(pages); {
		j := i
		for j+1 < len(pages) && pages[j+1] == pages[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, strconv.Itoa(pages[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d–%d", pages[i], pages[j]))
		}
		i = j + 1
	}
	if len(pages) == 1 {
		return "page " + parts[0]
	}
	return "pages " + strings.Join(parts, ", ")
}
