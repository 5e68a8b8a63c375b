package load

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"warren/internal/realpath"
	"warren/kb/analysis"
	"warren/kb/chunk"
)

// DefaultMaxFileBytes is the largest file ingested unless kb.max_file_mb says otherwise.
const DefaultMaxFileBytes = 20 << 20

// LoadOptions tune loading.
type LoadOptions struct {
	MaxFileBytes int64 // larger files are skipped with a reason; 0 means DefaultMaxFileBytes
	// Confine, when set, lists the only folders (absolute, symbolic links resolved) whose files
	// may be read. Each file is checked once it is open, on the open file itself, so a name
	// swapped for a link after an earlier check is refused all the same.
	Confine []string
	// Within is one more folder (absolute, resolved) that every file read must lie in as well:
	// the folder an item was found in while walking, when links out of it are not followed.
	Within string
	// OCR says whether pages without a text layer and image files are read by OCR (the zero
	// value: when Tesseract is installed); see ocr.go.
	OCR OCROptions
	// ConvertTimeout bounds each step of a conversion (see LoadContext); 0 means
	// DefaultConvertTimeout.
	ConvertTimeout time.Duration
}

// ErrOutside means a file's real path, once symbolic links are followed, lies outside the
// folders it may be read from (LoadOptions.Confine and Within).
var ErrOutside = errors.New("outside the folders it may be read from")

// OutsideError is a file Load refused to read because its real path lies outside the folders
// it may be read from. It wraps ErrOutside; Reason says so without naming where it leads.
type OutsideError struct {
	Path   string
	Reason string
}

func (e *OutsideError) Error() string { return fmt.Sprintf("couldn't read %s: %s", e.Path, e.Reason) }

// Unwrap makes errors.Is(err, ErrOutside) hold.
func (e *OutsideError) Unwrap() error { return ErrOutside }

// guard says which files one load may read: with neither Confine nor Within, any. It also
// carries the load's converter (timeouts, OCR, temporary files); nil reads no page by OCR.
type guard struct {
	roots  []string
	within string
	conv   *converter
}

func (o LoadOptions) guard() guard { return guard{roots: o.Confine, within: o.Within} }

func (g guard) active() bool { return len(g.roots) > 0 || g.within != "" }

// check refuses real, the real path of path, when it lies outside what g allows.
func (g guard) check(path, real string) error {
	if len(g.roots) > 0 && !realpath.WithinAny(real, g.roots) {
		return &OutsideError{Path: path, Reason: "it leads outside the folders this ingest may read (through a symbolic link?)"}
	}
	if g.within != "" && !realpath.Within(real, g.within) {
		return &OutsideError{Path: path, Reason: "it leads out of the folder it was found in (through a symbolic link), so it was not read"}
	}
	return nil
}

// open opens path for reading; when g is active, the open file's real path is checked, so
// what is read is what was checked.
func (g guard) open(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("couldn't open %s: %w", path, err)
	}
	if !g.active() {
		return f, nil
	}
	real, err := realpath.OfOpen(f, path)
	if err == nil {
		err = g.check(path, real)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// readFile is os.ReadFile through open.
func (g guard) readFile(path string) ([]byte, error) {
	if !g.active() {
		return os.ReadFile(path)
	}
	f, err := g.open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("couldn't read %s: %w", path, err)
	}
	return data, nil
}

// Formats by file extension.
var formatByExt = map[string]string{
	".md": "markdown", ".markdown": "markdown", ".txt": "text", ".text": "text", "": "text",
	".pdf": "pdf", ".html": "html", ".htm": "html",
	".docx": "docx", ".odt": "odt", ".pptx": "pptx", ".odp": "odp",
	".xlsx": "xlsx", ".ods": "ods", ".csv": "csv", ".eml": "eml", ".mbox": "mbox",
	// Images are read by OCR only (images.go).
	".png": "image", ".jpg": "image", ".jpeg": "image", ".tif": "image", ".tiff": "image",
}

// FormatOf names the format warren reads a file of by its extension ("docx"); "" for one it
// does not read.
func FormatOf(path string) string {
	ext := strings.ToLower(filepath.Ext(path))
	if ext == "" {
		return ""
	}
	return formatByExt[ext]
}

// Reads reports whether warren reads files with the extension ext (".docx"; any case).
func Reads(ext string) bool {
	_, ok := formatByExt[strings.ToLower(ext)]
	return ok && ext != ""
}

// readsFormats names what warren reads, for the reason an unsupported file is skipped.
const readsFormats = ".md, .txt, .pdf, .html, .docx, .odt, .pptx, .odp, .xlsx, .ods, .csv, .eml, .mbox, and by OCR .png, .jpg, .tif"

// packaged formats are zip packages of XML, read by their own loaders and never as text.
func packaged(format string) bool {
	switch format {
	case "docx", "odt", "pptx", "odp", "xlsx", "ods":
		return true
	}
	return false
}

// readAsText says whether a format is checked as UTF-8 text before it is read. E-mail is
// not: its parts declare their own charsets and transfer encodings.
func readAsText(format string) bool {
	return format != "pdf" && format != "eml" && format != "mbox" && !packaged(format) && format != "image"
}

// Load reads a file or a folder document. Files warren cannot or should not read come back as
// a *SkipError that says why, and files outside the folders opts confines it to as an
// *OutsideError; the caller reports either and goes on with the next file.
// A file is opened once and read through that handle; the sections of a text file are read on
// demand by EachSection (reopening it, and refusing it if it is another file by then), so
// large text files are streamed rather than held whole.
func Load(path string, opts LoadOptions) (*Document, error) {
	return LoadContext(context.Background(), path, opts)
}

// load is Load within cv (see LoadContext).
func load(cv *converter, path string, opts LoadOptions) (*Document, error) {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs // the stored source names the file wherever warren runs from
	}
	g := opts.guard()
	g.conv = cv
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("couldn't read %s: %w", path, err)
	}
	if info.IsDir() {
		if g.active() {
			real, err := realpath.Resolve(path) // absolute, as the folders it is checked against
			if err != nil {
				return nil, fmt.Errorf("couldn't read %s: %w", path, err)
			}
			if err := g.check(path, real); err != nil {
				return nil, err
			}
		}
		if !IsFolderDocument(path) {
			return nil, &SkipError{Path: path, Reason: "a folder, not a folder document (its Markdown files carry no section numbers)"}
		}
		return loadFolder(path, g)
	}
	limit := opts.MaxFileBytes
	if limit <= 0 {
		limit = DefaultMaxFileBytes
	}
	ext := strings.ToLower(filepath.Ext(path))
	format, ok := formatByExt[ext]
	if !ok {
		return nil, &SkipError{Path: path, Reason: fmt.Sprintf("unsupported format %q (warren reads %s)", ext, readsFormats)}
	}
	if !info.Mode().IsRegular() {
		// A pipe or device would block the ingest or never end.
		return nil, &SkipError{Path: path, Reason: "not a regular file"}
	}
	f, err := g.open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if info, err = f.Stat(); err != nil {
		return nil, fmt.Errorf("couldn't read %s: %w", path, err)
	}
	if !info.Mode().IsRegular() {
		return nil, &SkipError{Path: path, Reason: "not a regular file"}
	}
	if info.Size() == 0 {
		return nil, &SkipError{Path: path, Reason: "empty file"}
	}
	if info.Size() > limit {
		return nil, &SkipError{Path: path, Reason: fmt.Sprintf("%.1f MB is larger than the %.0f MB limit (raise kb.max_file_mb to ingest it)",
			float64(info.Size())/(1<<20), float64(limit)/(1<<20))}
	}
	doc, err := loadFile(f, path, format, info, limit, g, 0)
	if err == nil {
		// As stat found them on the file read: a later ingest that finds the same needs not
		// read it again.
		doc.Size, doc.ModTime = info.Size(), info.ModTime().UnixNano()
	}
	return doc, err
}

// loadFile reads an open regular file of a known format no larger than limit: a file Load
// opened, or an e-mail attachment written to a temporary file. depth counts the e-mail
// messages it came attached to (0 for a file on disk), so nesting stays bounded.
func loadFile(f *os.File, path, format string, info os.FileInfo, limit int64, g guard, depth int) (*Document, error) {
	if readAsText(format) {
		// Windows tools write text as UTF-16 with a byte-order mark; its NUL bytes would read
		// as binary, so it is decoded to UTF-8 first.
		if doc, ok, err := loadUTF16(f, path, format); ok || err != nil {
			return doc, err
		}
	}
	hash, err := checkFile(f, path, readAsText(format))
	if err != nil {
		return nil, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("couldn't read %s: %w", path, err)
	}
	doc := &Document{Source: path, Format: format, Hash: hash, Meta: map[string]string{},
		Title: strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))}
	switch format {
	case "markdown":
		err = loadMarkdownFile(doc, f)
	case "text":
		err = loadTextFile(doc, f, info, g)
	case "html":
		err = loadHTMLFile(doc, f)
	case "pdf":
		err = loadPDFFile(doc, f, g.conv)
	case "image":
		err = g.conv.loadImageFile(doc, f)
	case "docx":
		err = loadDOCXFile(doc, f, info.Size(), limit)
	case "odt":
		err = loadODTFile(doc, f, info.Size(), limit)
	case "pptx":
		err = loadPPTXFile(doc, f, info.Size(), limit)
	case "odp":
		err = loadODPFile(doc, f, info.Size(), limit)
	case "xlsx":
		err = loadXLSXFile(doc, f, limit)
	case "ods":
		err = loadODSFile(doc, f, info.Size(), limit)
	case "csv":
		err = loadCSVFile(doc, f)
	case "eml":
		err = loadEMLFile(doc, f, mailLoad{limit: limit, depth: depth, conv: g.conv})
	case "mbox":
		err = loadMBOXFile(doc, f, mailLoad{limit: limit, depth: depth, conv: g.conv})
	}
	if err != nil {
		return nil, err
	}
	return doc, nil
}

// checkFile hashes an open file in one streaming pass and, for text formats, refuses binary
// content and invalid UTF-8 with a reason that says how to fix it.
func checkFile(f *os.File, path string, text bool) (string, error) {
	h := sha256.New()
	buf := make([]byte, 64<<10)
	var carry []byte // an incomplete UTF-8 sequence at the end of the previous block
	var offset int64
	nonBlank := false
	for {
		n, err := f.Read(buf)
		if n > 0 {
			block := buf[:n]
			h.Write(block)
			if text {
				if i := bytes.IndexByte(block, 0); i >= 0 {
					return "", &SkipError{Path: path, Reason: fmt.Sprintf("binary file (NUL byte at %d); warren reads text, Markdown, HTML, PDF, Word, OpenDocument, slides, spreadsheets and e-mail", offset+int64(i))}
				}
				data := append(carry, block...)
				valid, rest := validPrefix(data)
				if !valid {
					return "", &SkipError{Path: path, Reason: "not valid UTF-8 text; convert it first, e.g. `iconv -f latin1 -t utf-8`"}
				}
				carry = append(carry[:0], rest...)
				nonBlank = nonBlank || len(bytes.TrimSpace(block)) > 0
			}
			offset += int64(n)
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", fmt.Errorf("couldn't read %s: %w", path, err)
		}
	}
	if text && len(carry) > 0 {
		return "", &SkipError{Path: path, Reason: "not valid UTF-8 text (it ends inside a character)"}
	}
	if text && !nonBlank {
		return "", &SkipError{Path: path, Reason: "empty file (only white space)"}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// validPrefix checks data as UTF-8, allowing an incomplete sequence at the very end, which it
// returns to be completed by the next block.
func validPrefix(data []byte) (bool, []byte) {
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 {
			if !utf8.FullRune(data[i:]) && len(data)-i < utf8.UTFMax {
				return true, data[i:]
			}
			return false, nil
		}
		i += size
	}
	return true, nil
}

func loadMarkdownFile(doc *Document, f *os.File) error {
	data, err := io.ReadAll(f)
	if err != nil {
		return fmt.Errorf("couldn't read %s: %w", doc.Source, err)
	}
	return loadMarkdown(doc, data)
}

func loadMarkdown(doc *Document, data []byte) error {
	// A byte-order mark some editors write must not hide the front matter. Offsets stay
	// offsets into the file, which has the mark.
	text, base := string(data), 0
	if strings.HasPrefix(text, "\uFEFF") {
		text, base = text[3:], 3
	}
	meta, body, err := splitFrontMatter(text)
	if err != nil {
		return &SkipError{Path: doc.Source, Reason: err.Error()}
	}
	doc.Meta = flattenMeta(meta)
	title, sections := parseMarkdown(text[body:], base+body, "", nil)
	doc.Sections = sections
	switch {
	case doc.Meta["title"] != "":
		doc.Title = doc.Meta["title"]
	case title != "":
		doc.Title = title
	}
	doc.Language = languageOf(doc.Meta, text[body:])
	return nil
}

func loadTextFile(doc *Document, f *os.File, info os.FileInfo, g guard) error {
	sample := make([]byte, 16<<10)
	n, _ := io.ReadFull(f, sample)
	doc.Language = languageOf(nil, string(sample[:n]))
	doc.stream = func(emit func(Section) error) error {
		f, err := g.open(doc.Source)
		if err != nil {
			return err
		}
		defer f.Close()
		// The hash and the checks were made on the file Load opened: text from another file
		// put in its place meanwhile must not be stored under them.
		if now, err := f.Stat(); err != nil || !os.SameFile(now, info) {
			return fmt.Errorf("couldn't read %s: it was replaced while being ingested; ingest it again", doc.Source)
		}
		return scanText(f, "", emit)
	}
	return nil
}

func loadHTMLFile(doc *Document, f io.Reader) error {
	title, md, err := htmlToMarkdown(f)
	if err != nil {
		return &SkipError{Path: doc.Source, Reason: "unreadable HTML: " + err.Error()}
	}
	// Offsets of an HTML document refer to its Markdown rendering, which is what is cited.
	mdTitle, sections := parseMarkdown(md, 0, "", nil)
	doc.Sections = sections
	if title == "" {
		title = mdTitle
	}
	if title != "" {
		doc.Title = title
	}
	doc.Language = languageOf(nil, md)
	return nil
}

func loadPDFFile(doc *Document, f *os.File, cv *converter) error {
	// Pages without a text layer are read by OCR when it is on (ocr.go).
	pages, scans, err := cv.pdfPages(doc, f)
	if err != nil {
		return err
	}
	sections, text, err := pageSections(pages, chunk.KindPage)
	if err != nil {
		return err
	}
	scans.mark(sections)
	if len(sections) == 0 {
		return &SkipError{Path: doc.Source, Reason: "no text layer (scanned PDF?)"}
	}
	doc.Sections = sections
	doc.Language = languageOf(nil, text)
	return nil
}

// pageSections cuts the text of each page (pages[i] is page i+1) at the numbered headings it
// contains, a section going on onto the next page becoming a second section there, each
// with its page. Offsets refer to text, the pages joined by form feeds.
func pageSections(pages []string, kind string) (sections []Section, text string, err error) {
	text = strings.Join(pages, "\f")
	err = scanPages(strings.NewReader(text), kind, func(s Section) error {
		sections = append(sections, s)
		return nil
	})
	return sections, text, err
}

func languageOf(meta map[string]string, text string) string {
	for _, k := range []string{"language", "lang"} {
		if v := strings.ToLower(meta[k]); strings.HasPrefix(v, "de") || strings.HasPrefix(v, "en") {
			return v[:2]
		}
	}
	if len(text) > 16<<10 {
		text = text[:16<<10]
	}
	return analysis.DetectLanguage(text)
}

// EachSection calls fn for every section in document order, reading streamed formats as it
// goes.
func (d *Document) EachSection(fn func(Section) error) error {
	if d.stream != nil {
		return d.stream(fn)
	}
	for _, s := range d.Sections {
		if err := fn(s); err != nil {
			return err
		}
	}
	return nil
}

// loadUTF16 reads a text file that starts with a UTF-16 byte-order mark (little or big
// endian) as the UTF-8 text it encodes; ok is false, and f is back at its start, for any
// other file. The hash is the file's own; offsets refer to the decoded text.
func loadUTF16(f *os.File, path, format string) (doc *Document, ok bool, err error) {
	head := make([]byte, 2)
	n, _ := io.ReadFull(f, head)
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, false, fmt.Errorf("couldn't read %s: %w", path, err)
	}
	var order binary.ByteOrder
	switch {
	case n == 2 && head[0] == 0xFF && head[1] == 0xFE:
		order = binary.LittleEndian
	case n == 2 && head[0] == 0xFE && head[1] == 0xFF:
		order = binary.BigEndian
	default:
		return nil, false, nil
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, true, fmt.Errorf("couldn't read %s: %w", path, err)
	}
	if len(data)%2 != 0 {
		return nil, true, &SkipError{Path: path, Reason: "not valid UTF-16 text (an odd number of bytes); convert it first, e.g. `iconv -f utf-16 -t utf-8`"}
	}
	units := make([]uint16, 0, len(data)/2-1)
	for i := 2; i+1 < len(data); i += 2 {
		units = append(units, order.Uint16(data[i:]))
	}
	text := string(utf16.Decode(units)) // unpaired surrogates become U+FFFD
	switch {
	case strings.ContainsRune(text, 0):
		return nil, true, &SkipError{Path: path, Reason: "binary file (a NUL character in its UTF-16 text); warren reads text, Markdown, HTML, PDF, Word, OpenDocument, slides, spreadsheets and e-mail"}
	case strings.TrimSpace(text) == "":
		return nil, true, &SkipError{Path: path, Reason: "empty file (only white space)"}
	}
	sum := sha256.Sum256(data)
	doc = &Document{Source: path, Format: format, Hash: hex.EncodeToString(sum[:]), Meta: map[string]string{},
		Title: strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))}
	switch format {
	case "markdown":
		err = loadMarkdown(doc, []byte(text))
	case "html":
		err = loadHTMLFile(doc, strings.NewReader(text))
	case "csv":
		err = loadCSV(doc, []byte(text))
	default:
		doc.Language = languageOf(nil, text)
		err = scanText(strings.NewReader(text), "", func(s Section) error {
			doc.Sections = append(doc.Sections, s)
			return nil
		})
	}
	if err != nil {
		return nil, true, err
	}
	return doc, true, nil
}
