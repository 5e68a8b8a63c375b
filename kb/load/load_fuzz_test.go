package load

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/ledongthuc/pdf"

	"warren/internal/shareddata"
	"warren/kb/load/loadtest"
)

// Fuzz targets for the document loaders. Each writes the fuzz bytes to a file (Load takes a
// path) and checks that sections and chunks point at their text: a citation is only as good as
// its offsets.

// fuzzChunks are small so that short fuzz inputs are cut into several chunks.
var fuzzChunks = ChunkOptions{Size: 100, Overlap: 30}

// loadBytes writes data to a file with the given extension and loads it. A refused file must
// be refused with a reason (a *SkipError); the bool says whether a document came back.
func loadBytes(t *testing.T, data []byte, ext string) (*Document, bool) {
	path := filepath.Join(t.TempDir(), "doc"+ext)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	// A loader that never returns would stall the fuzzer; panicking on another goroutine ends
	// the worker, and the fuzzer keeps the input.
	watchdog := time.AfterFunc(20*time.Second, func() { panic(fmt.Sprintf("Load(%s) still running after 20s", ext)) })
	defer watchdog.Stop()
	// OCR is off: the fuzzer tests warren's own parsers, and a page OCR read would not be in
	// the text layer the offsets are checked against.
	doc, err := Load(path, LoadOptions{OCR: OCROptions{Mode: OCROff}})
	if err != nil {
		var skip *SkipError
		if !errors.As(err, &skip) || skip.Reason == "" {
			t.Fatalf("Load refused the file without a reason: %T %v", err, err)
		}
		return nil, false
	}
	if doc.Language != "" && doc.Language != "de" && doc.Language != "en" {
		t.Fatalf("language %q", doc.Language)
	}
	return doc, true
}

// sectionsOf reads every section of a document.
func sectionsOf(t *testing.T, doc *Document) []Section {
	var out []Section
	if err := doc.EachSection(func(s Section) error { out = append(out, s); return nil }); err != nil {
		t.Fatalf("EachSection: %v", err)
	}
	return out
}

// checkVerbatim asserts that each section's text stands at its offset in source, that sections
// come in order, and that the chunks of each section do too and cover all of its text.
func checkVerbatim(t *testing.T, source string, sections []Section) {
	last := 0
	for i, s := range sections {
		end := s.Offset + len(s.Text)
		if s.Offset < last || end > len(source) || source[s.Offset:end] != s.Text {
			t.Fatalf("section %d (%q) at %d..%d: not its text in the %d-byte source (previous ends at %d)",
				i, s.Label(), s.Offset, end, len(source), last)
		}
		last = end
		checkChunks(t, s, func(start, end int) string { return source[start:end] })
	}
}

// checkChunks asserts that the chunks of s are pieces of its text at their offsets (read via
// at), in order, and that together they hold every non-space byte of it.
func checkChunks(t *testing.T, s Section, at func(start, end int) string) {
	c := Chunker{Doc: "doc", Options: fuzzChunks}
	covered := make([]bool, len(s.Text))
	prev := -1
	for _, ch := range c.Section(s) {
		lo, hi := ch.Start-s.Offset, ch.End-s.Offset
		if lo < 0 || hi > len(s.Text) || lo >= hi || s.Text[lo:hi] != ch.Text || ch.Start <= prev {
			t.Fatalf("chunk %d..%d %q: not a piece of section %q at %d (%d bytes)", ch.Start, ch.End, ch.Text, s.Label(), s.Offset, len(s.Text))
		}
		if got := at(ch.Start, ch.End); got != ch.Text {
			t.Fatalf("chunk %d..%d is %q in the source, %q in the chunk", ch.Start, ch.End, got, ch.Text)
		}
		prev = ch.Start
		for i := lo; i < hi; i++ {
			covered[i] = true
		}
	}
	for i, ok := range covered {
		if !ok && !unicode.IsSpace(rune(s.Text[i])) {
			t.Fatalf("byte %d (%q) of section %q is in no chunk", i, s.Text[i], s.Label())
		}
	}
}

// seedFiles adds the files of dir (in the project) with the given extension.
func seedFiles(f *testing.F, dir, ext string) {
	paths, err := filepath.Glob(filepath.Join(shareddata.Project(f, dir), "*"+ext))
	if err != nil {
		f.Fatal(err)
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

// sharedFiles returns up to n files from shared/data matching the glob, spread over the list.
func sharedFiles(f *testing.F, glob string, n int) [][]byte {
	root := shareddata.Seeds(f, "corpus")
	if root == "" {
		return nil
	}
	paths, err := filepath.Glob(filepath.Join(root, glob))
	if err != nil {
		f.Fatal(err)
	}
	sort.Strings(paths)
	var out [][]byte
	for i := 0; i < n && i < len(paths); i++ {
		data, err := os.ReadFile(paths[i*len(paths)/min(n, len(paths))])
		if err != nil {
			f.Fatal(err)
		}
		out = append(out, data)
	}
	return out
}

func FuzzLoadMarkdown(f *testing.F) {
	for _, dir := range []string{"sample/internal", "sample/regulatory", "sample/standards"} {
		seedFiles(f, dir, ".md")
	}
	for _, data := range sharedFiles(f, "gesetze/*/paragraphs/*.md", 12) {
		f.Add(data)
	}
	f.Add([]byte("\uFEFF---\r\ntitle: [a, b]\r\nlanguage: de\r\n...\r\n# § 6 Titel\n\n```\n# not a heading\n```\n## 6.1 Sub\ntext"))
	f.Add([]byte("---\nnumber: \"§ 6\"\n---"))
	f.Add([]byte("---\n: [\n---\nx"))

	f.Fuzz(func(t *testing.T, data []byte) {
		doc, ok := loadBytes(t, data, ".md")
		if !ok {
			return
		}
		// Offsets are into the file, byte-order mark included.
		checkVerbatim(t, string(data), sectionsOf(t, doc))
	})
}

func FuzzLoadText(f *testing.F) {
	seedFiles(f, "sample/standards", ".txt")
	for _, data := range sharedFiles(f, "rfc/*.txt", 3) {
		f.Add(data[:min(len(data), 6000)]) // the first pages, with form feeds and running headers
	}
	f.Add([]byte("Abstract\n\n1.  Intro\n\n   text\fRFC 1   Title   May 2000\n\n2.  Next\n\nmore [Page 2]\n\f"))

	f.Fuzz(func(t *testing.T, data []byte) {
		doc, ok := loadBytes(t, data, ".txt")
		if !ok {
			return
		}
		checkText(t, string(data), sectionsOf(t, doc))
	})
}

// checkText asserts the offsets of sections read from plain text, where running headers and
// footers may have been dropped from inside a section: each section starts at its offset, its
// lines all come from the source, and its chunks stay inside the source.
func checkText(t *testing.T, source string, sections []Section) {
	for i, s := range sections {
		if s.Text == "" {
			continue // a heading alone: its offset is never read (no chunks), and may point past a last line without newline
		}
		if s.Offset < 0 || s.Offset > len(source) {
			t.Fatalf("section %d (%q): offset %d outside the %d-byte source", i, s.Label(), s.Offset, len(source))
		}
		first, _, _ := strings.Cut(s.Text, "\n")
		if !strings.HasPrefix(strings.TrimLeftFunc(source[s.Offset:], unicode.IsSpace), first) {
			t.Fatalf("section %d (%q) at %d: the source there isn't its first line %q", i, s.Label(), s.Offset, first)
		}
		for _, line := range strings.Split(s.Text, "\n") {
			if !strings.Contains(source, line) {
				t.Fatalf("section %d (%q): line %q is not in the source", i, s.Label(), line)
			}
		}
		checkChunks(t, s, func(start, end int) string { return s.Text[start-s.Offset : end-s.Offset] })
	}
}

func FuzzLoadHTML(f *testing.F) {
	seedFiles(f, "sample/standards", ".html")
	f.Add([]byte("<html><head><title> Gas  Cabinet\nProcedure </title></head><body><h1>Scope</h1><p>Applies to silane.</p><h2>4.1 Purge</h2><h6>Note</h6></body></html>"))
	f.Add([]byte(`<ul><li>alpha<ul><li>beta</li></ul></li></ul><ol start="-3"><li><p>four</p></li></ol><table><tr><th>a|b</th><td colspan="9999999">wide</td></tr></table><pre>` + "# x\n```" + `</pre><svg><title>t</title></svg>`))
	f.Add([]byte("<h1>#1</h1><p>#2 <code>`a``</code></p><script>x</script><nav>menu</nav>"))

	f.Fuzz(func(t *testing.T, data []byte) {
		// Only a failing reader may make the conversion fail; it recovers from panics, so an
		// error here is a bug it hid.
		title, md, err := htmlToMarkdown(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("htmlToMarkdown: %v", err)
		}
		if strings.Contains(title, "\n") {
			t.Fatalf("title on more than one line: %q", title)
		}
		_, sections := parseMarkdown(md, 0, "", nil)
		checkVerbatim(t, md, sections)
		doc, ok := loadBytes(t, data, ".html")
		if !ok {
			return
		}
		loaded := sectionsOf(t, doc)
		if len(loaded) != len(sections) {
			t.Fatalf("Load gives %d sections, the Markdown rendering %d", len(loaded), len(sections))
		}
		for i := range loaded {
			if loaded[i].Offset != sections[i].Offset || loaded[i].Text != sections[i].Text {
				t.Fatalf("section %d: Load %+v, rendering %+v", i, loaded[i], sections[i])
			}
		}
	})
}

// fuzzPDF returns a minimal PDF with one page per text, each line drawn with Tj at its own
// baseline (loadtest.PDF takes a page's content stream; the fuzzer has lines).
func fuzzPDF(pages []string) []byte {
	contents := make([]string, len(pages))
	for p, text := range pages {
		var c strings.Builder
		for i, line := range strings.Split(text, "\n") {
			esc := strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`).Replace(line)
			fmt.Fprintf(&c, "BT /F1 10 Tf 72 %d Td (%s) Tj ET\n", 760-12*i, esc)
		}
		contents[p] = c.String()
	}
	return loadtest.PDF(contents, "")
}

func FuzzLoadPDF(f *testing.F) {
	data, err := os.ReadFile(shareddata.Project(f, "sample/standards/toxic-gas-monitoring-standard.txt"))
	if err != nil {
		f.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	f.Add(fuzzPDF([]string{strings.Join(lines[:min(30, len(lines))], "\n")}))
	for _, rfc := range sharedFiles(f, "rfc/rfc690*.txt", 2) {
		pages := strings.Split(string(rfc), "\f")
		f.Add(fuzzPDF(pages[:min(2, len(pages))]))
	}
	f.Add(fuzzPDF([]string{"1.  Scope\n\nThis (standard) applies.", "", "2.  Terms"}))

	f.Fuzz(func(t *testing.T, data []byte) {
		doc, ok := loadBytes(t, data, ".pdf")
		if !ok {
			return
		}
		// Offsets of a PDF refer to its extracted text, pages joined by form feeds.
		pages, err := extractPDF(doc.Source)
		if err != nil {
			t.Fatalf("the PDF loaded, but extracting it again fails: %v", err)
		}
		checkText(t, strings.Join(pages, "\f"), sectionsOf(t, doc))
	})
}

// FuzzPDFLayout lays out glyphs placed by the fuzzer: whatever their positions, sizes and
// widths, the page's text must hold every printed character of every glyph, once.
func FuzzPDFLayout(f *testing.F) {
	f.Add([]byte{10, 100, 0, 12, 20, 100, 0, 12, 10, 90, 30, 12}, "Sec|tion|4.1")
	f.Add([]byte{0, 0, 0, 0, 255, 255, 255, 255}, "a b\x00|\t\n")
	f.Add([]byte{5, 50, 6, 10, 5, 50, 6, 10, 5, 49, 6, 10, 5, 10, 6, 10}, "Pur|ge|the|line")

	f.Fuzz(func(t *testing.T, geometry []byte, text string) {
		parts := strings.Split(text, "|")
		var glyphs []pdf.Text
		for i := 0; i+4 <= len(geometry) && len(glyphs) < len(parts); i += 4 {
			g := geometry[i : i+4]
			glyphs = append(glyphs, pdf.Text{X: float64(int8(g[0])) * 3, Y: float64(int8(g[1])) * 3,
				W: float64(g[2]) / 4, FontSize: float64(int8(g[3])), S: parts[len(glyphs)]})
		}
		out := pdfLayoutPage(glyphs)
		// printed lists the printed characters of texts, sorted; each text is read on its own,
		// since two broken UTF-8 sequences joined may make a valid one.
		printed := func(texts ...string) string {
			var r []rune
			for _, s := range texts {
				for _, c := range s {
					if !unicode.IsSpace(c) && !unicode.IsControl(c) {
						r = append(r, c)
					}
				}
			}
			sort.Slice(r, func(i, j int) bool { return r[i] < r[j] })
			return string(r)
		}
		var in []string
		for _, g := range glyphs {
			in = append(in, g.S)
		}
		if printed(out) != printed(in...) {
			t.Fatalf("glyphs %+v laid out as %q: printed characters differ", glyphs, out)
		}
	})
}
