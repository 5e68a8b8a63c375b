package load

import (
	"fmt"
	"io"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// htmlToMarkdown converts an HTML page to Markdown for the section parser: headings become
// "#" headings, lists become "- " and "1. " items, tables become pipe tables, pre blocks become
// fenced code, and page furniture (scripts, styles, navigation, page headers and footers, forms)
// is dropped. The title is the page's <title>, else its first rendered <h1>. The parser decodes entities
// and repairs broken markup, so only a failing reader makes this return an error.
func htmlToMarkdown(r io.Reader) (title string, markdown string, err error) {
	// The converter walks untrusted markup; a bug in it must cost one file, not the ingest.
	defer func() {
		if p := recover(); p != nil {
			title, markdown, err = "", "", fmt.Errorf("couldn't convert HTML: %v", p)
		}
	}()
	doc, err := html.Parse(r)
	if err != nil {
		return "", "", fmt.Errorf("couldn't parse HTML: %w", err)
	}
	root := findElement(doc, atom.Body)
	if root == nil {
		root = doc
	}
	if t := findElement(doc, atom.Title); t != nil {
		title = inlineText(t)
	}
	var w mdWriter
	w.children(root)
	if title == "" {
		title = w.h1
	}
	return title, w.String(), nil
}

// findElement returns the first HTML element with the given atom in document order. Elements in
// foreign content are skipped, so an SVG <title> is not taken for the page's.
func findElement(n *html.Node, a atom.Atom) *html.Node {
	if n.Type == html.ElementNode && n.DataAtom == a && n.Namespace == "" {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if f := findElement(c, a); f != nil {
			return f
		}
	}
	return nil
}

// inlineText renders the content of n on one line, for titles, headings and table cells.
func inlineText(n *html.Node) string {
	w := mdWriter{oneLine: true}
	w.children(n)
	return w.String()
}

// mdWriter accumulates Markdown. Line breaks are owed rather than written, so that nested blocks
// never produce more than one blank line and the output never ends in one.
type mdWriter struct {
	b       strings.Builder
	indent  string // the prefix of each new line inside a list item
	breaks  int    // newlines owed before the next text: 1 starts a line, 2 leaves a blank one
	space   bool   // whitespace was seen since the last text
	marker  bool   // a list marker was just written, and the item's text belongs on its line
	oneLine bool   // breaks become spaces: titles, headings, table cells
	h1      string // the first level-1 heading rendered, the title when the page has none
}

// String returns the Markdown with trailing spaces removed from every line.
func (w *mdWriter) String() string {
	lines := strings.Split(w.b.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return strings.Trim(strings.Join(lines, "\n"), "\n")
}

// brk owes n line breaks; it never lowers a debt already owed.
func (w *mdWriter) brk(n int) {
	if w.oneLine {
		w.space = true
		return
	}
	if !w.marker {
		w.breaks = max(w.breaks, n)
	}
}

// write puts s on the output after any owed breaks or pending space. s is written as is.
func (w *mdWriter) write(s string) {
	switch {
	case w.b.Len() == 0:
		w.b.WriteString(w.indent)
	case w.breaks > 0:
		w.b.WriteString(strings.Repeat("\n", w.breaks))
		w.b.WriteString(w.indent)
	case w.space && !w.marker:
		w.b.WriteByte(' ')
	}
	w.breaks, w.space, w.marker = 0, false, false
	w.b.WriteString(s)
}

// text writes inline text with its whitespace collapsed.
func (w *mdWriter) text(s string) {
	for s != "" {
		i := strings.IndexFunc(s, unicode.IsSpace)
		if i == 0 {
			w.space = true
			s = strings.TrimLeftFunc(s, unicode.IsSpace)
			continue
		}
		if i < 0 {
			i = len(s)
		}
		word := s[:i]
		// A '#' opening a line of body text would be read back as a heading.
		if strings.HasPrefix(word, "#") && !w.oneLine && (w.b.Len() == 0 || w.breaks > 0) {
			word = `\` + word
		}
		w.write(word)
		s = s[i:]
	}
}

// children renders the children of n in order.
func (w *mdWriter) children(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.node(c)
	}
}

// node renders one node and its subtree.
func (w *mdWriter) node(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		w.text(n.Data)
		return
	case html.ElementNode:
	default:
		return // comments and doctypes carry no content
	}
	if n.Namespace != "" || dropped(n) {
		return
	}
	switch n.DataAtom {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		t := inlineText(n)
		if w.oneLine || t == "" {
			w.text(t)
			return
		}
		if n.DataAtom == atom.H1 && w.h1 == "" {
			w.h1 = t // taken from the output so a site banner's dropped <h1> is not the title
		}
		w.brk(2)
		w.write(strings.Repeat("#", int(n.Data[1]-'0')) + " " + t)
		w.brk(2)
	case atom.Br:
		if w.oneLine {
			w.space = true
		} else if !w.marker {
			w.breaks = min(w.breaks+1, 2) // two <br> in a row are a paragraph break
		}
	case atom.Ul, atom.Ol:
		w.list(n)
	case atom.Li: // an item outside any list still reads as one
		w.item(n, "- ")
	case atom.Table:
		w.table(n)
	case atom.Pre:
		w.pre(n)
	case atom.Code, atom.Kbd, atom.Samp:
		w.code(n)
	case atom.A:
		start := w.b.Len()
		w.children(n)
		href, _ := attr(n, "href")
		href = strings.TrimSpace(href)
		if u, err := url.Parse(href); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" &&
			w.b.Len() > start && strings.TrimSpace(w.b.String()[start:]) != href {
			w.text(" (" + href + ")")
		}
	case atom.P, atom.Div, atom.Section, atom.Article, atom.Main, atom.Aside, atom.Blockquote,
		atom.Dl, atom.Dt, atom.Dd, atom.Figure, atom.Figcaption, atom.Address, atom.Hr, atom.Details,
		atom.Summary, atom.Center, atom.Header, atom.Footer, atom.Form, atom.Fieldset, atom.Caption,
		atom.Tr, atom.Td, atom.Th: // cells get here only when a table is flattened into one line
		w.brk(2)
		w.children(n)
		w.brk(2)
	default:
		w.children(n)
	}
}

// dropped reports whether n is page furniture whose text would only pollute search.
func dropped(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Nav, atom.Svg, atom.Math,
		atom.Iframe, atom.Object, atom.Embed, atom.Canvas, atom.Button, atom.Input, atom.Select,
		atom.Textarea, atom.Head, atom.Dialog:
		return true
	case atom.Header, atom.Footer:
		// A header inside an article holds the article's own heading; only the page's
		// banner and footer are boilerplate.
		for p := n.Parent; p != nil; p = p.Parent {
			if p.DataAtom == atom.Article || p.DataAtom == atom.Section || p.DataAtom == atom.Main {
				return false
			}
		}
		return true
	case atom.Form:
		// Some frameworks wrap the whole page in one form; that form is content, not a widget.
		return findElement(n, atom.P) == nil && findElement(n, atom.H1) == nil && findElement(n, atom.H2) == nil
	}
	_, hidden := attr(n, "hidden")
	aria, _ := attr(n, "aria-hidden")
	role, _ := attr(n, "role")
	return hidden || aria == "true" || role == "navigation"
}

// attr returns the value of n's attribute key and whether n has it.
func attr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

// list renders a ul or ol. A nested list follows its parent item's line directly, while a
// top-level list is a block of its own.
func (w *mdWriter) list(n *html.Node) {
	if w.oneLine {
		w.children(n)
		return
	}
	gap := 2
	if w.indent != "" { // inside a list item
		gap = 1
	}
	w.brk(gap)
	num := 1
	if s, ok := attr(n, "start"); ok {
		if v, err := strconv.Atoi(strings.TrimSpace(s)); err == nil {
			num = v
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode || c.DataAtom != atom.Li {
			w.node(c)
			continue
		}
		marker := "- "
		if n.DataAtom == atom.Ol {
			marker = strconv.Itoa(num) + ". "
			num++
		}
		w.item(c, marker)
	}
	w.brk(gap)
}

// item renders a list item; lines after its first are indented under the marker's text.
func (w *mdWriter) item(n *html.Node, marker string) {
	if w.oneLine {
		w.space = true
		w.children(n)
		return
	}
	w.brk(1)
	w.write(marker)
	w.marker = true
	outer := w.indent
	w.indent = outer + strings.Repeat(" ", len(marker))
	w.children(n)
	w.indent = outer
	w.marker = false // an empty item still ends its line
	w.brk(1)
}

// table renders a pipe table. Its header is the first row in <thead> or made of <th> cells,
// else the first row; cells hold their inner text on one line, and colspan is ignored.
func (w *mdWriter) table(n *html.Node) {
	if w.oneLine {
		w.children(n)
		return
	}
	var rows [][]string
	head, cols := -1, 0
	var collect func(n *html.Node, inHead bool)
	collect = func(n *html.Node, inHead bool) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch c.DataAtom {
			case atom.Thead, atom.Tbody, atom.Tfoot:
				collect(c, c.DataAtom == atom.Thead)
			case atom.Caption:
				w.brk(2)
				w.children(c)
				w.brk(2)
			case atom.Tr:
				var cells []string
				allTh := true
				for d := c.FirstChild; d != nil; d = d.NextSibling {
					if d.DataAtom == atom.Td || d.DataAtom == atom.Th {
						cells = append(cells, strings.ReplaceAll(inlineText(d), "|", `\|`))
						allTh = allTh && d.DataAtom == atom.Th
					}
				}
				if len(cells) > 0 && head < 0 && (inHead || allTh) {
					head = len(rows)
				}
				if len(cells) > 0 {
					rows, cols = append(rows, cells), max(cols, len(cells))
				}
			}
		}
	}
	collect(n, false)
	if len(rows) == 0 {
		return
	}
	head = max(head, 0)
	line := func(cells []string) {
		for len(cells) < cols {
			cells = append(cells, "")
		}
		w.brk(1)
		w.write("| " + strings.Join(cells, " | ") + " |")
	}
	w.brk(2)
	line(rows[head])
	line(slices.Repeat([]string{"---"}, cols))
	for i, r := range rows {
		if i != head {
			line(r)
		}
	}
	w.brk(2)
}

// pre renders a fenced code block with its text kept exactly, under a fence longer than any run
// of backticks inside it.
func (w *mdWriter) pre(n *html.Node) {
	var b strings.Builder
	rawText(n, &b)
	code := strings.TrimRight(strings.Trim(b.String(), "\n"), " \t\n")
	if w.oneLine || strings.TrimSpace(code) == "" {
		w.text(code)
		return
	}
	fence := "```"
	for strings.Contains(code, fence) {
		fence += "`"
	}
	w.brk(2)
	w.write(fence)
	for _, l := range strings.Split(code, "\n") {
		w.breaks = 1 // every line is written as is, blank ones included
		w.write(l)
	}
	w.breaks = 1
	w.write(fence)
	w.brk(2)
}

// rawText collects the text under n without collapsing whitespace; <br> is a newline.
func rawText(n *html.Node, b *strings.Builder) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch {
		case c.Type == html.TextNode:
			b.WriteString(c.Data)
		case c.Type == html.ElementNode && c.DataAtom == atom.Br:
			b.WriteByte('\n')
		case c.Type == html.ElementNode && !dropped(c):
			rawText(c, b)
		}
	}
}

// code renders inline code in backticks, doubled when the code holds one.
func (w *mdWriter) code(n *html.Node) {
	var b strings.Builder
	rawText(n, &b)
	if code := strings.Join(strings.Fields(b.String()), " "); strings.Contains(code, "`") {
		w.text("`` " + code + " ``")
	} else if code != "" {
		w.text("`" + code + "`")
	}
}
