package load

import (
	"os"
	"strconv"
	"strings"
)

// odtReader renders the text body of an OpenDocument text as Markdown.
type odtReader struct {
	numbered map[string]map[int]bool // list style → level (1-based) → numbered, not bulleted
	counters []int
	outline  map[int]numberLevel // outline level (0-based) → how headings count there
	headings headingNumbers
	md       mdDoc
	inNote   bool
}

func loadODTFile(doc *Document, f *os.File, size, limit int64) error {
	p, content, body, err := openODF(f, size, limit, doc.Source, "OpenDocument text", ".odt", "text")
	if err != nil {
		return err
	}
	r := &odtReader{numbered: map[string]map[int]bool{}, outline: map[int]numberLevel{}}
	r.listStyles(content)
	styles, err := p.readXML("styles.xml")
	if err != nil {
		return err
	}
	r.listStyles(styles)
	r.outlineStyle(styles)
	title, lang, err := coreProps(p, "meta.xml")
	if err != nil {
		return err
	}
	if lang == "" {
		lang = odfDefaultLanguage(styles)
	}
	r.blocks(body, "", 0)
	return finishOffice(doc, &r.md, title, lang)
}

// odfDefaultLanguage is the language of the default paragraph style, e.g. "de-DE".
func odfDefaultLanguage(styles *xnode) string {
	var found string
	var walk func(n *xnode)
	walk = func(n *xnode) {
		if n == nil || found != "" {
			return
		}
		if n.name == "default-style" && n.attr("family") == "paragraph" {
			if tp := n.child("text-properties"); tp != nil && tp.attr("language") != "" {
				found = tp.attr("language")
				if c := tp.attr("country"); c != "" {
					found += "-" + c
				}
			}
			return
		}
		for _, k := range n.kids {
			walk(k)
		}
	}
	walk(styles)
	return found
}

// outlineStyle records how the outline style numbers headings at each level.
func (r *odtReader) outlineStyle(root *xnode) {
	style := root.find("outline-style")
	if style == nil {
		return
	}
	for _, k := range style.kids {
		level, err := strconv.Atoi(k.attr("level"))
		if k.name != "outline-level-style" || err != nil || level < 1 || level > 9 {
			continue
		}
		nl := numberLevel{format: k.attr("num-format"), start: 1, shown: 1}
		if v, err := strconv.Atoi(k.attr("start-value")); err == nil {
			nl.start = v
		}
		if v, err := strconv.Atoi(k.attr("display-levels")); err == nil {
			nl.shown = v
		}
		r.outline[level-1] = nl
	}
}

// headingNumber is the number an office suite shows before a heading at level (1-based):
// the one written in the heading when there is one, else counted by the outline style.
func (r *odtReader) headingNumber(h *xnode, level int) string {
	if n := h.child("number"); n != nil {
		return strings.TrimRight(strings.TrimSpace(textOf(n)), ".)")
	}
	if h.attr("is-list-header") == "true" {
		return ""
	}
	return r.headings.next(level-1, r.outline)
}

// listStyles records which levels of each list style are numbered.
func (r *odtReader) listStyles(root *xnode) {
	var walk func(n *xnode)
	walk = func(n *xnode) {
		if n == nil {
			return
		}
		if n.name == "list-style" {
			lv := map[int]bool{}
			for _, k := range n.kids {
				if l, err := strconv.Atoi(k.attr("level")); err == nil {
					lv[l] = k.name == "list-level-style-number" && k.attr("num-format") != ""
				}
			}
			r.numbered[n.attr("name")] = lv
			return
		}
		for _, k := range n.kids {
			walk(k)
		}
	}
	walk(root)
}

// blocks renders block content; style and depth are those of the enclosing list, if any.
func (r *odtReader) blocks(n *xnode, style string, depth int) {
	for _, k := range n.kids {
		switch k.name {
		case "h":
			level, err := strconv.Atoi(k.attr("outline-level"))
			if err != nil || level < 1 {
				level = 1
			}
			r.md.headingLine(level, withNumber(r.headingNumber(k, level), r.inline(k)))
		case "p":
			r.md.para(r.inline(k))
		case "list":
			s := k.attr("style-name")
			if s == "" {
				s = style
			}
			r.list(k, s, depth+1)
		case "table":
			r.md.table(r.tableRows(k))
		case "section":
			r.blocks(k, style, depth)
		} // text:tracked-changes holds deleted text only: inserted text is in the body already
	}
}

// list renders the items of a list at depth (1 for a top-level list).
func (r *odtReader) list(l *xnode, style string, depth int) {
	for len(r.counters) < depth {
		r.counters = append(r.counters, 0)
	}
	r.counters = r.counters[:depth]
	r.counters[depth-1] = 0
	for _, item := range l.kids {
		if item.name != "list-item" && item.name != "list-header" {
			continue
		}
		marker := "-"
		if r.numbered[style][depth] {
			r.counters[depth-1]++
			marker = strconv.Itoa(r.counters[depth-1]) + "."
		}
		first := true
		for _, k := range item.kids {
			switch k.name {
			case "p", "h":
				if first {
					r.md.item(depth-1, marker, r.inline(k))
					first = false
				} else {
					r.md.item(depth, "", r.inline(k))
				}
			case "list":
				r.list(k, style, depth+1)
				r.counters = r.counters[:depth]
			case "table":
				r.md.table(r.tableRows(k))
			}
		}
	}
}

// inline is the text of a paragraph or heading: comments, tracked deletions' markers and
// note citations' own numbers left out, footnotes turned into references.
func (r *odtReader) inline(n *xnode) string {
	var b strings.Builder
	var walk func(n *xnode)
	walk = func(n *xnode) {
		for _, k := range n.kids {
			switch k.name {
			case "":
				b.WriteString(k.text)
			case "s":
				c, err := strconv.Atoi(k.attr("c"))
				if err != nil || c < 1 {
					c = 1
				}
				b.WriteString(strings.Repeat(" ", min(c, 100)))
			case "tab":
				b.WriteString(" ")
			case "line-break":
				b.WriteString("\n")
			case "annotation", "annotation-end", "note-citation", "tracked-changes", "change", "change-start", "change-end",
				"bookmark", "bookmark-start", "bookmark-end", "soft-page-break",
				"number": // a heading's number, put before its text by headingNumber
			case "note":
				if r.inNote {
					continue
				}
				r.inNote = true
				body := r.inline(k.child("note-body"))
				r.inNote = false
				b.WriteString(r.md.note(body))
			case "p", "h":
				walk(k)
				b.WriteString(" ")
			default:
				walk(k)
			}
		}
	}
	if n != nil {
		walk(n)
	}
	return b.String()
}

func (r *odtReader) tableRows(t *xnode) [][]string {
	var rows [][]string
	var walk func(n *xnode)
	walk = func(n *xnode) {
		for _, k := range n.kids {
			switch k.name {
			case "table-row":
				var cells []string
				for _, c := range k.kids {
					if c.name == "table-cell" || c.name == "covered-table-cell" {
						cells = append(cells, r.inline(c))
						if rep, err := strconv.Atoi(c.attr("number-columns-repeated")); err == nil && rep > 1 && strings.TrimSpace(cells[len(cells)-1]) != "" {
							for range min(rep, 64) - 1 {
								cells = append(cells, cells[len(cells)-1])
							}
						}
					}
				}
				rows = append(rows, cells)
			case "table-header-rows", "table-rows", "table-row-group":
				walk(k)
			}
		}
	}
	walk(t)
	return rows
}
