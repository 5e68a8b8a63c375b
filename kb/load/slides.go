package load

import (
	"fmt"
	"os"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"warren/kb/chunk"
)

// slide is one slide as read: its title, its text in reading order and its speaker notes.
type slide struct {
	title, text, notes string
}

// slideSections makes each slide a section numbered "Slide N". Offsets refer to a rendering
// of the deck in which each slide is "Slide N: title", a blank line, then its text.
func slideSections(doc *Document, slides []slide, title, lang string) error {
	var all strings.Builder
	var sections []Section
	for i, s := range slides {
		number := fmt.Sprintf("Slide %d", i+1)
		text := strings.TrimSpace(s.text)
		if notes := strings.TrimSpace(s.notes); notes != "" {
			text = strings.TrimSpace(text + "\n\nNotes:\n" + notes)
		}
		heading := strings.Join(strings.Fields(s.title), " ")
		if text == "" && heading == "" {
			continue
		}
		if all.Len() > 0 {
			all.WriteString("\n\n")
		}
		all.WriteString(number)
		if heading != "" {
			all.WriteString(": " + heading)
		}
		all.WriteString("\n\n")
		sections = append(sections, Section{Number: number, Heading: heading, Path: []string{number}, Text: text, Offset: all.Len(),
			Page: i + 1, PageKind: chunk.KindSlide})
		all.WriteString(text)
	}
	if len(sections) == 0 {
		return &SkipError{Path: doc.Source, Reason: "no text on any slide"}
	}
	doc.Sections = sections
	switch {
	case strings.TrimSpace(title) != "":
		doc.Title = strings.Join(strings.Fields(title), " ")
	case sections[0].Heading != "":
		doc.Title = sections[0].Heading
	}
	if lang != "" {
		doc.Meta["language"] = lang
	}
	doc.Language = languageOf(map[string]string{"language": lang}, all.String())
	return nil
}

// relTargets reads a relationships part: id → part name, and type suffix → part names.
func relTargets(p *officePackage, part string) (byID map[string]string, byType map[string][]string, err error) {
	dir := path.Dir(path.Dir(part)) // "ppt/slides/_rels/slide1.xml.rels" → "ppt/slides"
	rels, err := p.readXML(part)
	if err != nil || rels == nil {
		return nil, nil, err
	}
	byID, byType = map[string]string{}, map[string][]string{}
	for _, top := range rels.kids {
		for _, r := range top.kids {
			if r.name != "Relationship" || r.attr("TargetMode") == "External" {
				continue
			}
			target := r.attr("Target")
			if strings.HasPrefix(target, "/") {
				target = strings.TrimPrefix(target, "/")
			} else {
				target = path.Join(dir, target)
			}
			byID[r.attr("Id")] = target
			t := r.attr("Type")
			t = t[strings.LastIndex(t, "/")+1:]
			byType[t] = append(byType[t], target)
		}
	}
	return byID, byType, nil
}

var slidePart = regexp.MustCompile(`^ppt/slides/slide(\d+)\.xml$`)

func loadPPTXFile(doc *Document, f *os.File, size, limit int64) error {
	p, err := openPackage(f, size, limit, doc.Source, "PowerPoint (.pptx)")
	if err != nil {
		return err
	}
	// Slides in the presentation's order; a package without that list in the order of their names.
	var parts []string
	pres, err := p.readXML("ppt/presentation.xml")
	if err != nil {
		return err
	}
	byID, _, err := relTargets(p, "ppt/_rels/presentation.xml.rels")
	if err != nil {
		return err
	}
	if list := pres.find("sldIdLst"); list != nil {
		for _, s := range list.kids {
			for _, a := range s.attrs {
				if a.Name.Local == "id" && strings.Contains(a.Name.Space, "relationships") && byID[a.Value] != "" {
					parts = append(parts, byID[a.Value])
				}
			}
		}
	}
	if len(parts) == 0 {
		for name := range p.files {
			if slidePart.MatchString(name) {
				parts = append(parts, name)
			}
		}
		sort.Slice(parts, func(i, j int) bool {
			a, _ := strconv.Atoi(slidePart.FindStringSubmatch(parts[i])[1])
			b, _ := strconv.Atoi(slidePart.FindStringSubmatch(parts[j])[1])
			return a < b
		})
	}
	if len(parts) == 0 {
		return &SkipError{Path: doc.Source, Reason: "not a PowerPoint presentation (no slides in the package)"}
	}
	var slides []slide
	for _, part := range parts {
		root, err := p.readXML(part)
		if err != nil {
			return err
		}
		if root == nil {
			continue
		}
		var s slide
		var body []string
		pptxShapes(root.find("spTree"), &s.title, &body, false)
		s.text = strings.Join(body, "\n\n")
		_, byType, err := relTargets(p, path.Join(path.Dir(part), "_rels", path.Base(part)+".rels"))
		if err != nil {
			return err
		}
		if notes := byType["notesSlide"]; len(notes) > 0 {
			nroot, err := p.readXML(notes[0])
			if err != nil {
				return err
			}
			var ntitle string
			var nbody []string
			pptxShapes(nroot.find("spTree"), &ntitle, &nbody, true)
			s.notes = strings.Join(nbody, "\n\n")
		}
		slides = append(slides, s)
	}
	title, lang, err := coreProps(p, "docProps/core.xml")
	if err != nil {
		return err
	}
	return slideSections(doc, slides, title, lang)
}

// pptxShapes collects the text of a shape tree in its order: the title placeholder's text as
// title, every other shape's and table's text as a block. On a notes page only the notes body
// counts (the rest is the slide's image and its number).
func pptxShapes(tree *xnode, title *string, body *[]string, notes bool) {
	if tree == nil {
		return
	}
	for _, k := range tree.kids {
		switch k.name {
		case "sp":
			ph := k.find("nvSpPr").find("ph")
			kind := ""
			if ph != nil {
				kind = ph.attr("type")
			}
			// On a notes page the notes are the body placeholder or, as LibreOffice writes
			// them, a plain text box; the slide image and page furniture are not.
			if notes && ph != nil && kind != "body" {
				continue
			}
			switch kind {
			case "sldNum", "dt", "ftr", "hdr", "sldImg":
				continue
			}
			text := drawingText(k.child("txBody"))
			if (kind == "title" || kind == "ctrTitle") && *title == "" {
				*title = strings.Join(strings.Fields(text), " ")
			} else if strings.TrimSpace(text) != "" {
				*body = append(*body, text)
			}
		case "grpSp":
			pptxShapes(k, title, body, notes)
		case "graphicFrame":
			if tbl := k.find("tbl"); tbl != nil && !notes {
				var rows [][]string
				for _, tr := range tbl.kids {
					if tr.name != "tr" {
						continue
					}
					var cells []string
					for _, tc := range tr.kids {
						if tc.name == "tc" {
							cells = append(cells, drawingText(tc.child("txBody")))
						}
					}
					rows = append(rows, cells)
				}
				var m mdDoc
				m.table(rows)
				if t := m.String(); t != "" {
					*body = append(*body, t)
				}
			}
		case "AlternateContent":
			if c := k.child("Choice"); c != nil {
				pptxShapes(c, title, body, notes)
			}
		}
	}
}

// drawingText is the text of a DrawingML text body, a line per paragraph.
func drawingText(tb *xnode) string {
	if tb == nil {
		return ""
	}
	var lines []string
	for _, p := range tb.kids {
		if p.name != "p" {
			continue
		}
		var b strings.Builder
		var walk func(n *xnode)
		walk = func(n *xnode) {
			for _, k := range n.kids {
				switch k.name {
				case "t":
					b.WriteString(textOf(k))
				case "br":
					b.WriteString(" ")
				case "pPr", "rPr", "endParaRPr":
				default:
					walk(k)
				}
			}
		}
		walk(p)
		if l := strings.Join(strings.Fields(b.String()), " "); l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}

func loadODPFile(doc *Document, f *os.File, size, limit int64) error {
	p, _, pres, err := openODF(f, size, limit, doc.Source, "OpenDocument presentation", ".odp", "presentation")
	if err != nil {
		return err
	}
	var slides []slide
	for _, page := range pres.kids {
		if page.name != "page" {
			continue
		}
		var s slide
		var body, notes []string
		odpFrames(page, &s.title, &body)
		if n := page.child("notes"); n != nil {
			var t string
			odpFrames(n, &t, &notes)
		}
		s.text, s.notes = strings.Join(body, "\n\n"), strings.Join(notes, "\n\n")
		slides = append(slides, s)
	}
	styles, err := p.readXML("styles.xml")
	if err != nil {
		return err
	}
	title, lang, err := coreProps(p, "meta.xml")
	if err != nil {
		return err
	}
	if lang == "" {
		lang = odfDefaultLanguage(styles)
	}
	return slideSections(doc, slides, title, lang)
}

// odpFrames collects the text of a page's frames and shapes in document order; the title
// frame's text is the title, page furniture is left out.
func odpFrames(n *xnode, title *string, body *[]string) {
	for _, k := range n.kids {
		switch k.name {
		case "frame", "custom-shape", "rect", "ellipse", "polygon":
			switch k.attr("class") {
			case "page", "page-number", "footer", "header", "date-time":
				continue
			}
			r := &odtReader{numbered: map[string]map[int]bool{}, md: mdDoc{tight: true}}
			direct := false // a shape holds its paragraphs itself, a frame in a text box
			for _, c := range k.kids {
				switch c.name {
				case "text-box":
					r.blocks(c, "", 0)
				case "table":
					r.md.table(r.tableRows(c))
				case "p", "list":
					direct = true
				}
			}
			if direct {
				r.blocks(k, "", 0)
			}
			text := r.md.String()
			if k.attr("class") == "title" && *title == "" {
				*title = strings.Join(strings.Fields(text), " ")
			} else if strings.TrimSpace(text) != "" {
				*body = append(*body, text)
			}
		case "g":
			odpFrames(k, title, body)
		}
	}
}
