package load

import (
	"os"
	"regexp"
	"strconv"
	"strings"
)

// wordStyle is what a paragraph style says about structure.
type wordStyle struct {
	name    string
	basedOn string
	outline int // outline level + 1; 0 when the style sets none
	numID   string
	ilvl    int
}

// docxReader renders word/document.xml as Markdown.
type docxReader struct {
	styles    map[string]wordStyle
	numFmt    map[string]map[string]string   // numId → ilvl → numFmt ("bullet", "decimal", …)
	numLevels map[string]map[int]numberLevel // numId → ilvl → how it counts, for headings
	abstract  map[string]string              // numId → abstractNumId: headings share its counts
	headings  map[string]*headingNumbers     // abstractNumId → running heading numbers
	counters  map[string][]int               // numId → running count per level
	footnotes map[string]*xnode
	endnotes  map[string]*xnode
	md        mdDoc
	inNote    bool
}

var headingStyleName = regexp.MustCompile(`(?i)^heading\s*([1-9])$`)

func loadDOCXFile(doc *Document, f *os.File, size, limit int64) error {
	p, err := openPackage(f, size, limit, doc.Source, "Word (.docx)")
	if err != nil {
		return err
	}
	if !p.has("word/document.xml") {
		return &SkipError{Path: doc.Source, Reason: "not a Word document (no word/document.xml in the package)"}
	}
	r := &docxReader{styles: map[string]wordStyle{}, numFmt: map[string]map[string]string{}, counters: map[string][]int{},
		numLevels: map[string]map[int]numberLevel{}, abstract: map[string]string{}, headings: map[string]*headingNumbers{}}
	lang := ""
	if st, err := p.readXML("word/styles.xml"); err != nil {
		return err
	} else if st != nil {
		lang = r.readStyles(st)
	}
	if num, err := p.readXML("word/numbering.xml"); err != nil {
		return err
	} else if num != nil {
		r.readNumbering(num)
	}
	if r.footnotes, err = notesOf(p, "word/footnotes.xml"); err != nil {
		return err
	}
	if r.endnotes, err = notesOf(p, "word/endnotes.xml"); err != nil {
		return err
	}
	title, coreLang, err := coreProps(p, "docProps/core.xml")
	if err != nil {
		return err
	}
	if coreLang != "" {
		lang = coreLang
	}
	body, err := p.readXML("word/document.xml")
	if err != nil {
		return err
	}
	r.blocks(body.find("body"))
	return finishOffice(doc, &r.md, title, lang)
}

// coreProps reads the title and language an office package declares about itself.
func coreProps(p *officePackage, part string) (title, lang string, err error) {
	core, err := p.readXML(part)
	if err != nil || core == nil {
		return "", "", err
	}
	return textOf(core.find("title")), strings.TrimSpace(textOf(core.find("language"))), nil
}

// textOf is the character data at or below n.
func textOf(n *xnode) string {
	if n == nil {
		return ""
	}
	if n.name == "" {
		return n.text
	}
	var b strings.Builder
	for _, k := range n.kids {
		b.WriteString(textOf(k))
	}
	return b.String()
}

func notesOf(p *officePackage, part string) (map[string]*xnode, error) {
	root, err := p.readXML(part)
	if err != nil || root == nil {
		return nil, err
	}
	out := map[string]*xnode{}
	for _, top := range root.kids {
		for _, n := range top.kids {
			if (n.name == "footnote" || n.name == "endnote") && n.attr("type") == "" { // not a separator
				out[n.attr("id")] = n
			}
		}
	}
	return out, nil
}

// readStyles records the paragraph styles and returns the document's default language.
func (r *docxReader) readStyles(root *xnode) string {
	lang := ""
	if defaults := root.find("docDefaults"); defaults != nil {
		if l := defaults.find("lang"); l != nil {
			lang = l.attr("val")
		}
	}
	for _, top := range root.kids {
		for _, s := range top.kids {
			if s.name != "style" {
				continue
			}
			st := wordStyle{}
			if n := s.child("name"); n != nil {
				st.name = n.attr("val")
			}
			if b := s.child("basedOn"); b != nil {
				st.basedOn = b.attr("val")
			}
			if o := s.child("pPr").child("outlineLvl"); o != nil {
				if v, err := strconv.Atoi(o.attr("val")); err == nil && v >= 0 && v < 9 {
					st.outline = v + 1
				}
			}
			st.numID, st.ilvl = numberingOf(s.child("pPr"))
			r.styles[s.attr("styleId")] = st
		}
	}
	return lang
}

func (r *docxReader) readNumbering(root *xnode) {
	abstract := map[string]map[string]string{}
	levels := map[string]map[int]numberLevel{}
	for _, top := range root.kids {
		for _, a := range top.kids {
			if a.name != "abstractNum" {
				continue
			}
			lv := map[string]string{}
			nl := map[int]numberLevel{}
			for _, l := range a.kids {
				if l.name != "lvl" {
					continue
				}
				level := numberLevel{start: 1}
				if f := l.child("numFmt"); f != nil {
					lv[l.attr("ilvl")] = f.attr("val")
					level.format = f.attr("val")
				}
				if st := l.child("start"); st != nil {
					if v, err := strconv.Atoi(st.attr("val")); err == nil {
						level.start = v
					}
				}
				if t := l.child("lvlText"); t != nil {
					level.text = t.attr("val")
				}
				if level.text == "" {
					level.format = "none" // Word shows nothing for a level without text
				}
				if i, err := strconv.Atoi(l.attr("ilvl")); err == nil {
					nl[i] = level
				}
			}
			abstract[a.attr("abstractNumId")] = lv
			levels[a.attr("abstractNumId")] = nl
		}
		for _, n := range top.kids {
			if n.name == "num" {
				if a := n.child("abstractNumId"); a != nil {
					r.numFmt[n.attr("numId")] = abstract[a.attr("val")]
					r.numLevels[n.attr("numId")] = levels[a.attr("val")]
					r.abstract[n.attr("numId")] = a.attr("val")
				}
			}
		}
	}
}

// headingLevel is a style's heading level (1…9), following basedOn; 0 for body text.
func (r *docxReader) headingLevel(id string) int {
	for range 10 {
		st, ok := r.styles[id]
		if !ok {
			if m := headingStyleName.FindStringSubmatch(id); m != nil { // a style used but not defined
				return int(m[1][0] - '0')
			}
			return 0
		}
		if st.outline > 0 {
			return st.outline
		}
		if m := headingStyleName.FindStringSubmatch(st.name); m != nil {
			return int(m[1][0] - '0')
		}
		if st.basedOn == "" {
			return 0
		}
		id = st.basedOn
	}
	return 0
}

// blocks renders the block-level content of the body (or of a content control inside it).
func (r *docxReader) blocks(n *xnode) {
	if n == nil {
		return
	}
	for _, k := range n.kids {
		switch k.name {
		case "p":
			r.paragraph(k)
		case "tbl":
			r.md.table(r.tableRows(k))
		case "sdt", "sdtContent", "ins", "moveTo", "customXml":
			r.blocks(k)
		}
	}
}

func (r *docxReader) paragraph(p *xnode) {
	ppr := p.child("pPr")
	level := 0
	if s := ppr.child("pStyle"); s != nil {
		level = r.headingLevel(s.attr("val"))
	}
	if o := ppr.child("outlineLvl"); o != nil {
		if v, err := strconv.Atoi(o.attr("val")); err == nil {
			level = 0 // 9 means body text
			if v >= 0 && v < 9 {
				level = v + 1
			}
		}
	}
	var b strings.Builder
	r.inline(p, &b)
	text := b.String()
	if level > 0 {
		r.md.headingLine(level, withNumber(r.headingNumber(ppr), text))
		return
	}
	if num := ppr.child("numPr"); num != nil {
		id := ""
		if n := num.child("numId"); n != nil {
			id = n.attr("val")
		}
		ilvl := 0
		if l := num.child("ilvl"); l != nil {
			ilvl, _ = strconv.Atoi(l.attr("val"))
			ilvl = min(max(ilvl, 0), 8)
		}
		if id != "" && id != "0" && strings.TrimSpace(text) != "" {
			r.md.item(ilvl, r.marker(id, ilvl), text)
			return
		}
	}
	r.md.para(text)
}

// numberingOf reads a paragraph's (or style's) numbering reference; "" when it has none.
func numberingOf(ppr *xnode) (numID string, ilvl int) {
	num := ppr.child("numPr")
	if num == nil {
		return "", 0
	}
	if n := num.child("numId"); n != nil {
		numID = n.attr("val")
	}
	if l := num.child("ilvl"); l != nil {
		ilvl, _ = strconv.Atoi(l.attr("val"))
		ilvl = min(max(ilvl, 0), 8)
	}
	return numID, ilvl
}

// headingNumber is the number Word shows before a heading numbered by its paragraph or its
// style ("2.1"), counted through the document; "" for a heading without one.
func (r *docxReader) headingNumber(ppr *xnode) string {
	numID, ilvl := numberingOf(ppr)
	if numID == "" {
		if s := ppr.child("pStyle"); s != nil {
			id := s.attr("val")
			for range 10 { // the numbering may come from a style it is based on
				st, ok := r.styles[id]
				if !ok {
					break
				}
				if st.numID != "" {
					numID, ilvl = st.numID, st.ilvl
					break
				}
				id = st.basedOn
			}
		}
	}
	if numID == "" || numID == "0" || r.numLevels[numID] == nil {
		return ""
	}
	counts := r.headings[r.abstract[numID]]
	if counts == nil {
		counts = &headingNumbers{}
		r.headings[r.abstract[numID]] = counts
	}
	return counts.next(ilvl, r.numLevels[numID])
}

// marker is a list item's bullet or its running number at its level.
func (r *docxReader) marker(id string, ilvl int) string {
	f := r.numFmt[id][strconv.Itoa(ilvl)]
	if f == "" || f == "bullet" || f == "none" {
		return "-"
	}
	c := r.counters[id]
	for len(c) <= ilvl {
		c = append(c, 0)
	}
	c[ilvl]++
	for i := ilvl + 1; i < len(c); i++ {
		c[i] = 0 // a deeper list starts over under each item
	}
	r.counters[id] = c
	return strconv.Itoa(c[ilvl]) + "."
}

// inline collects the text of a paragraph as accepted: insertions kept, deletions, field
// codes, comments and fallback copies of drawings left out.
func (r *docxReader) inline(n *xnode, b *strings.Builder) {
	for _, k := range n.kids {
		switch k.name {
		case "":
		case "t":
			b.WriteString(textOf(k))
		case "tab":
			b.WriteString(" ")
		case "br", "cr":
			b.WriteString("\n")
		case "noBreakHyphen":
			b.WriteString("-")
		case "p": // a paragraph inside a table cell or a text box
			r.inline(k, b)
			b.WriteString(" ")
		case "pPr", "rPr", "del", "moveFrom", "delText", "instrText", "delInstrText", "Fallback",
			"commentReference", "commentRangeStart", "commentRangeEnd":
		case "footnoteReference", "endnoteReference":
			notes := r.footnotes
			if k.name == "endnoteReference" {
				notes = r.endnotes
			}
			if note := notes[k.attr("id")]; note != nil && !r.inNote { // a note citing a note would loop
				r.inNote = true
				var nb strings.Builder
				for _, p := range note.kids {
					if p.name == "p" {
						r.inline(p, &nb)
						nb.WriteString(" ")
					}
				}
				r.inNote = false
				b.WriteString(r.md.note(nb.String()))
			}
		default:
			r.inline(k, b)
		}
	}
}

// tableRows reads a table's rows; a cell's paragraphs (and any table nested in it) become
// one line.
func (r *docxReader) tableRows(tbl *xnode) [][]string {
	var rows [][]string
	var walkRows func(n *xnode)
	walkRows = func(n *xnode) {
		for _, tr := range n.kids {
			switch tr.name {
			case "tr":
				var cells []string
				for _, tc := range tr.kids {
					if tc.name == "tc" {
						var b strings.Builder
						r.inline(tc, &b)
						cells = append(cells, b.String())
					}
				}
				rows = append(rows, cells)
			case "sdt", "sdtContent", "ins", "customXml":
				walkRows(tr)
			}
		}
	}
	walkRows(tbl)
	return rows
}
