package load

import (
	"archive/zip"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// Office documents (OOXML and ODF) are zip packages of XML parts, read with the standard
// library only: no converter process to run, time out or install. What an office file may
// cost is bounded here, since its sizes are whatever the file claims.
const (
	maxZipEntries = 10000   // more parts than any real document has
	maxXMLDepth   = 256     // nesting deeper than this is not a document
	maxXMLNodes   = 2 << 20 // elements kept in memory per part
)

// officePackage reads the parts of one zip package within a budget of uncompressed bytes
// shared by all the parts read.
type officePackage struct {
	path   string
	files  map[string]*zip.File
	budget int64 // uncompressed bytes still allowed
	limit  int64
}

// openODF opens an OpenDocument package, what it is ("OpenDocument text") with its extension,
// and returns the package, its content.xml and the element of office:body that holds its
// content (body: "text", "spreadsheet", "presentation"); a package without it is skipped with
// the reason.
func openODF(f *os.File, size, limit int64, path, what, ext, body string) (p *officePackage, content, el *xnode, err error) {
	if p, err = openPackage(f, size, limit, path, what+" ("+ext+")"); err != nil {
		return nil, nil, nil, err
	}
	if content, err = p.readXML("content.xml"); err != nil {
		return nil, nil, nil, err
	}
	if el = content.find("body").child(body); el == nil {
		return nil, nil, nil, &SkipError{Path: path, Reason: fmt.Sprintf("not an %s (no office:%s in content.xml)", what, body)}
	}
	return p, content, el, nil
}

func openPackage(f *os.File, size, limit int64, path, kind string) (*officePackage, error) {
	r, err := zip.NewReader(f, size)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) { // parts are only looked up by name
		return nil, &SkipError{Path: path, Reason: fmt.Sprintf("not a readable %s file (not a zip package: %v)", kind, err)}
	}
	if len(r.File) > maxZipEntries {
		return nil, &SkipError{Path: path, Reason: fmt.Sprintf("a %s package with %d parts (more than %d)", kind, len(r.File), maxZipEntries)}
	}
	p := &officePackage{path: path, files: make(map[string]*zip.File, len(r.File)), budget: limit, limit: limit}
	for _, zf := range r.File {
		if _, dup := p.files[zf.Name]; !dup {
			p.files[zf.Name] = zf
		}
	}
	return p, nil
}

func (p *officePackage) has(name string) bool { _, ok := p.files[name]; return ok }

// read returns a part's bytes, or nil when the package has no such part. The header's sizes
// are not trusted: the part is read through a limit and counted against the budget.
func (p *officePackage) read(name string) ([]byte, error) {
	zf := p.files[name]
	if zf == nil {
		return nil, nil
	}
	rc, err := zf.Open()
	if err != nil {
		return nil, &SkipError{Path: p.path, Reason: fmt.Sprintf("unreadable part %s: %v", name, err)}
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, p.budget+1))
	if int64(len(data)) > p.budget {
		return nil, &SkipError{Path: p.path, Reason: fmt.Sprintf("it expands past the %.0f MB limit when unpacked (a zip bomb?; raise kb.max_file_mb to ingest it)",
			float64(p.limit)/(1<<20))}
	}
	if err != nil {
		return nil, &SkipError{Path: p.path, Reason: fmt.Sprintf("unreadable part %s: %v", name, err)}
	}
	p.budget -= int64(len(data))
	return data, nil
}

// xnode is an XML element: names are local (prefixes differ between writers, the parts of a
// package do not mix vocabularies in ways that matter here).
type xnode struct {
	name  string
	attrs []xml.Attr
	kids  []*xnode
	text  string // character data for a text node (name == "")
}

func (n *xnode) attr(local string) string {
	for _, a := range n.attrs {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// child returns the first child element named local, or nil.
func (n *xnode) child(local string) *xnode {
	if n == nil {
		return nil
	}
	for _, k := range n.kids {
		if k.name == local {
			return k
		}
	}
	return nil
}

// find returns the first element named local at or below n, depth first.
func (n *xnode) find(local string) *xnode {
	if n == nil {
		return nil
	}
	if n.name == local {
		return n
	}
	for _, k := range n.kids {
		if f := k.find(local); f != nil {
			return f
		}
	}
	return nil
}

// parseXML reads a part into a tree. A DOCTYPE is refused outright: office parts never have
// one, and its entity declarations are how XML is made to expand.
func parseXML(data []byte, path, part string) (*xnode, error) {
	refuse := func(why string) error {
		return &SkipError{Path: path, Reason: fmt.Sprintf("part %s: %s", part, why)}
	}
	d := xml.NewDecoder(strings.NewReader(string(data)))
	d.Strict = true
	root := &xnode{}
	stack := []*xnode{root}
	nodes := 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, refuse("not well-formed XML: " + err.Error())
		}
		top := stack[len(stack)-1]
		switch t := tok.(type) {
		case xml.Directive:
			return nil, refuse("XML with a DOCTYPE or entity declarations, which office files do not have")
		case xml.StartElement:
			if nodes++; nodes > maxXMLNodes {
				return nil, refuse(fmt.Sprintf("more than %d XML elements", maxXMLNodes))
			}
			if len(stack) > maxXMLDepth {
				return nil, refuse(fmt.Sprintf("XML nested deeper than %d", maxXMLDepth))
			}
			n := &xnode{name: t.Name.Local, attrs: t.Attr}
			top.kids = append(top.kids, n)
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(top.kids) > 0 && top.kids[len(top.kids)-1].name == "" {
				top.kids[len(top.kids)-1].text += string(t)
			} else {
				top.kids = append(top.kids, &xnode{text: string(t)})
			}
		}
	}
	return root, nil
}

// readXML reads and parses a part; a missing part is a nil tree.
func (p *officePackage) readXML(name string) (*xnode, error) {
	data, err := p.read(name)
	if err != nil || data == nil {
		return nil, err
	}
	return parseXML(data, p.path, name)
}

// mdDoc assembles the Markdown rendering of an office document, from which parseMarkdown
// cuts sections exactly as for a Markdown file. Footnotes cited in a section are written at
// its end, before the next heading, so they stay with the text that cites them.
type mdDoc struct {
	b       strings.Builder
	inList  bool
	notes   []string
	noteNum int
	heading string // the first heading, a title candidate
	tight   bool   // paragraphs on consecutive lines, as in a slide's text box
}

func (m *mdDoc) gap(list bool) {
	if m.b.Len() == 0 {
		return
	}
	if list && m.inList || m.tight {
		m.b.WriteString("\n")
	} else {
		m.b.WriteString("\n\n")
	}
	m.inList = list
}

// escapeLine keeps a line of body text from being read back as a heading or a code fence.
func escapeLine(line string) string {
	t := strings.TrimLeft(line, " \t")
	if strings.HasPrefix(t, "#") || strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
		return `\` + t
	}
	return line
}

func tidy(s string) string {
	lines := strings.Split(s, "\n")
	out := lines[:0]
	for _, l := range lines {
		l = strings.Join(strings.Fields(l), " ")
		if l != "" {
			out = append(out, escapeLine(l))
		}
	}
	return strings.Join(out, "\n")
}

func (m *mdDoc) headingLine(level int, text string) {
	text = strings.Join(strings.Fields(text), " ")
	if text == "" {
		return
	}
	// Notes cited by earlier text end that section; one cited in this heading stays with it.
	var own []string
	for _, n := range m.notes {
		if strings.Contains(text, n[:strings.Index(n, ":")]) {
			own = append(own, n)
		}
	}
	m.notes = slices.DeleteFunc(m.notes, func(n string) bool { return slices.Contains(own, n) })
	m.flushNotes()
	m.notes = own
	if m.heading == "" {
		m.heading = text
	}
	m.gap(false)
	m.b.WriteString(strings.Repeat("#", min(max(level, 1), 6)) + " " + text)
}

func (m *mdDoc) para(text string) {
	if text = tidy(text); text != "" {
		m.gap(false)
		m.b.WriteString(text)
	}
}

func (m *mdDoc) item(depth int, marker, text string) {
	text = strings.Join(strings.Fields(text), " ")
	if text == "" {
		return
	}
	m.gap(true)
	m.b.WriteString(strings.Repeat("  ", min(depth, 8)) + marker + " " + text)
}

// table writes a pipe table with the first row as its header.
func (m *mdDoc) table(rows [][]string) {
	cols := 0
	for _, r := range rows {
		cols = max(cols, len(r))
	}
	if cols == 0 {
		return
	}
	m.gap(false)
	for i, r := range rows {
		cells := make([]string, cols)
		for j := range cells {
			if j < len(r) {
				cells[j] = strings.ReplaceAll(strings.Join(strings.Fields(r[j]), " "), "|", `\|`)
			}
		}
		if i > 0 {
			m.b.WriteString("\n")
		}
		m.b.WriteString("| " + strings.Join(cells, " | ") + " |")
		if i == 0 {
			m.b.WriteString("\n|" + strings.Repeat(" --- |", cols))
		}
	}
}

// note queues a footnote's text and returns its marker for the citing text.
func (m *mdDoc) note(text string) string {
	m.noteNum++
	mark := fmt.Sprintf("[^%d]", m.noteNum)
	m.notes = append(m.notes, mark+": "+strings.Join(strings.Fields(text), " "))
	return mark
}

func (m *mdDoc) flushNotes() {
	for _, n := range m.notes {
		m.para(n)
	}
	m.notes = nil
}

func (m *mdDoc) String() string {
	m.flushNotes()
	return m.b.String()
}

// finishOffice cuts the rendering into sections and settles title and language: the
// package's own title, else the first heading, else the file name (already set).
func finishOffice(doc *Document, md *mdDoc, title, lang string) error {
	text := md.String()
	if strings.TrimSpace(text) == "" {
		return &SkipError{Path: doc.Source, Reason: "no text in the document"}
	}
	// Offsets of an office document refer to this Markdown rendering, as for HTML.
	mdTitle, sections := parseMarkdown(text, 0, "", nil)
	doc.Sections = sections
	switch {
	case strings.TrimSpace(title) != "":
		doc.Title = strings.Join(strings.Fields(title), " ")
	case mdTitle != "":
		doc.Title = mdTitle
	case md.heading != "":
		doc.Title = md.heading
	}
	if lang != "" {
		doc.Meta["language"] = lang
	}
	doc.Language = languageOf(map[string]string{"language": lang}, text)
	return nil
}
