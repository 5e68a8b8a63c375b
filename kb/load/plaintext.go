package load

import (
	"bufio"
	"errors"
	"io"
	"regexp"
	"strings"
)

// Plain text is read page by page (form feeds separate pages, as in RFCs), so a large file is
// never held whole in memory. Running page headers and footers are dropped, and numbered
// headings at the start of a line ("4.1.  add", "Appendix A.  Examples") open sections.

var (
	textNumbered   = regexp.MustCompile(`^(\d{1,3}(?:\.\d{1,3})*)\.?[ \t]+(\S.{0,90})$`)
	textLetterNum  = regexp.MustCompile(`^([A-Z]\.\d{1,3}(?:\.\d{1,3})*)\.?[ \t]+(\S.{0,90})$`)
	textAppendix   = regexp.MustCompile(`^(Appendix|Anhang|Annex)[ \t]+([A-Z]|\d+|[IVX]+)\.?(?:[ \t]+(\S.{0,90}))?$`)
	columnGap      = regexp.MustCompile(`\S {3,}\S`)
	pageNumberLine = regexp.MustCompile(`(?i)(\[page \d+\]|page \d+( of \d+)?|^\s*-?\s*\d+\s*-?\s*$)`)
	digits         = regexp.MustCompile(`\d+`)
)

// textLine is one line of the source with its byte offset.
type textLine struct {
	text   string
	offset int
}

// pageWindow bounds what scanText holds of a page: a page longer than this (a file without
// form feeds) is handed on in windows, keeping its last lines back for footer detection.
const pageWindow = 256 << 10

// scanText reads plain text and calls emit for each section in order.
func scanText(r io.Reader, file string, emit func(Section) error) error {
	return scanSections(r, &textSections{file: file, emit: emit, prevBlank: true})
}

// scanPages is scanText over pages separated by form feeds (a PDF's extracted text) whose
// sections are cited by page: a section that goes on past a page break is emitted once per
// page, under the same number and heading, with Page and PageKind (kind) set.
func scanPages(r io.Reader, kind string, emit func(Section) error) error {
	return scanSections(r, &textSections{emit: emit, prevBlank: true, page: 1, pageKind: kind})
}

func scanSections(r io.Reader, b *textSections) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var page []textLine
	pageBytes, offset, pageNo := 0, 0, 0
	lastHeader := ""
	startOfPage := true
	// flush hands lines on; header and footer say whether the page's first or last lines are
	// among them, so running headers and footers can be dropped.
	flush := func(lines []textLine, header, footer, lastPage bool, next *textLine) error {
		lines, lastHeader = dropFurniture(lines, header && pageNo > 0, footer, lastPage, lastHeader)
		for i, l := range lines {
			nextBlank := true
			switch {
			case i+1 < len(lines):
				nextBlank = strings.TrimSpace(lines[i+1].text) == ""
			case next != nil:
				nextBlank = strings.TrimSpace(next.text) == ""
			}
			if err := b.line(l, b.prevBlank, nextBlank); err != nil {
				return err
			}
			b.prevBlank = strings.TrimSpace(l.text) == ""
		}
		return nil
	}
	for {
		line, err := br.ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		for {
			ff := strings.IndexByte(line, '\f')
			part := line
			if ff >= 0 {
				part = line[:ff]
			}
			if part != "" {
				page = append(page, textLine{text: strings.TrimRight(part, "\r\n"), offset: offset})
				pageBytes += len(part)
			}
			offset += len(part)
			if ff < 0 {
				break
			}
			if e := flush(page, startOfPage, true, false, nil); e != nil {
				return e
			}
			if e := b.pageBreak(); e != nil {
				return e
			}
			b.prevBlank = true // a new page starts as after a blank line: its heading is one
			page, pageBytes, startOfPage = page[:0], 0, true
			pageNo++
			offset++ // the form feed
			line = line[ff+1:]
		}
		if pageBytes > pageWindow && len(page) > 16 {
			keep := page[len(page)-8:]
			if e := flush(page[:len(page)-8], startOfPage, false, false, &keep[0]); e != nil {
				return e
			}
			page = append(page[:0], keep...)
			pageBytes, startOfPage = 0, false
			for _, l := range page {
				pageBytes += len(l.text)
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
	}
	if err := flush(page, startOfPage, false, pageNo > 0, nil); err != nil {
		return err
	}
	return b.flush()
}

// dropFurniture removes a page's running header (its first non-blank line, when it looks like
// one: laid out in columns, or the same as the last header but for page numbers) and footer
// (its last non-blank line before a form feed, when it carries a page number or columns).
func dropFurniture(lines []textLine, hasHeader, hasFooter, lastPage bool, lastHeader string) ([]textLine, string) {
	first, last := -1, -1
	for i, l := range lines {
		if strings.TrimSpace(l.text) != "" {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return lines, lastHeader
	}
	drop := map[int]bool{}
	if t := lines[last].text; hasFooter && (pageNumberLine.MatchString(t) || columnGap.MatchString(strings.TrimSpace(t))) ||
		lastPage && pageNumberLine.MatchString(t) && columnGap.MatchString(strings.TrimSpace(t)) {
		drop[last] = true
	}
	if hasHeader {
		t := strings.TrimSpace(lines[first].text)
		norm := digits.ReplaceAllString(t, "#")
		if columnGap.MatchString(t) || norm == lastHeader {
			drop[first] = true
			lastHeader = norm
		}
	}
	if len(drop) == 0 {
		return lines, lastHeader
	}
	out := lines[:0:0]
	for i, l := range lines {
		if !drop[i] {
			out = append(out, l)
		}
	}
	return out, lastHeader
}

// textSections accumulates lines into sections.
type textSections struct {
	prevBlank bool
	file      string
	emit      func(Section) error
	cur       Section
	body      strings.Builder
	started   bool // cur has a body offset
	// page is the page being read (1-based) when sections are cited by page (pageKind set),
	// else 0.
	page     int
	pageKind string
	// continued: cur goes on from the previous page, so without text of its own it is not
	// emitted again.
	continued bool
}

// pageBreak ends a page: a section with text on it is emitted, and goes on in a new
// section of the same name, so that no section spans two pages. A heading with no text yet
// moves on to the page where its text starts.
func (b *textSections) pageBreak() error {
	if b.pageKind == "" {
		return nil
	}
	if b.started {
		next := Section{Number: b.cur.Number, Heading: b.cur.Heading, Path: b.cur.Path, File: b.file}
		if err := b.flush(); err != nil {
			return err
		}
		b.cur, b.continued = next, true
	}
	b.page++
	return nil
}

func (b *textSections) line(l textLine, prevBlank, nextBlank bool) error {
	if number, heading, ok := textHeading(l.text, prevBlank, nextBlank); ok {
		if err := b.flush(); err != nil {
			return err
		}
		b.cur = Section{Number: number, Heading: heading, Path: b.pathFor(number, heading), File: b.file,
			Offset: l.offset + len(l.text) + 1}
		return nil
	}
	if !b.started {
		if strings.TrimSpace(l.text) == "" {
			return nil
		}
		b.cur.Offset = l.offset
		b.started = true
	}
	b.body.WriteString(l.text)
	b.body.WriteByte('\n')
	return nil
}

func (b *textSections) flush() error {
	text := strings.TrimSpace(b.body.String())
	sec := b.cur
	b.body.Reset()
	b.started = false
	b.cur = Section{File: b.file}
	continued := b.continued
	b.continued = false
	if text == "" && (continued || sec.Number == "" && sec.Heading == "") {
		return nil
	}
	sec.Text = text
	if b.pageKind != "" {
		sec.Page, sec.PageKind = b.page, b.pageKind
	}
	return b.emit(sec)
}

// pathFor builds a section path from its number: "4.1" sits under "4", "A.1" under
// "Appendix A".
func (b *textSections) pathFor(number, heading string) []string {
	if number == "" {
		return []string{heading}
	}
	var path []string
	if strings.Contains(number, ".") {
		parts := strings.Split(number, ".")
		prefix := parts[0]
		if len(prefix) == 1 && prefix[0] >= 'A' && prefix[0] <= 'Z' {
			path = append(path, "Appendix "+prefix)
		} else {
			path = append(path, prefix)
		}
		for _, p := range parts[1 : len(parts)-1] {
			prefix += "." + p
			path = append(path, prefix)
		}
	}
	return append(path, number)
}

// textHeading recognises a heading line: a number at the start of the line followed by a short
// title, or a short unnumbered title standing alone between blank lines ("Abstract").
func textHeading(line string, prevBlank, nextBlank bool) (number, heading string, ok bool) {
	if line == "" || line[0] == ' ' || line[0] == '\t' || !prevBlank {
		return "", "", false
	}
	title := func(s string) bool {
		s = strings.TrimSpace(s)
		return s != "" && !strings.HasSuffix(s, ".") && !strings.HasSuffix(s, ",") && !columnGap.MatchString(s) &&
			!strings.Contains(s, " . . ")
	}
	if m := textAppendix.FindStringSubmatch(line); m != nil && (m[3] == "" || title(m[3])) {
		return m[1] + " " + m[2], strings.TrimSpace(m[3]), true
	}
	if m := textLetterNum.FindStringSubmatch(line); m != nil && title(m[2]) {
		return m[1], strings.TrimSpace(m[2]), true
	}
	if m := textNumbered.FindStringSubmatch(line); m != nil && title(m[2]) {
		return m[1], strings.TrimSpace(m[2]), true
	}
	t := strings.TrimSpace(line)
	if nextBlank && len(t) <= 60 && title(t) && startsUpper(t) && strings.Count(t, " ") <= 7 {
		return "", t, true
	}
	return "", "", false
}

func startsUpper(s string) bool {
	for _, r := range s {
		return r >= 'A' && r <= 'Z' || strings.ContainsRune("ÄÖÜ", r)
	}
	return false
}
