package report

import (
	"regexp"
	"sort"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"

	"warren/internal/citation"
)

// MarkdownOptions say how a Markdown report becomes blocks.
type MarkdownOptions struct {
	// Shift moves every heading down this many levels, so that a report's own "#" sits
	// under the document's sections.
	Shift int
	// Mark begins the remark a check puts in parentheses after a sentence ("⚠ unsupported:");
	// the whole parenthesis is flagged. Empty: none.
	Mark string
	// Flagged are sentences to flag wherever they stand whole in one paragraph.
	Flagged []string
}

// GitHub's tables and strike-through are what models write besides CommonMark.
var parser = goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough)).Parser()

// FromMarkdown reads a Markdown report into blocks: headings, paragraphs with emphasis, lists
// (nested), tables, quotes and code; each citation [n] becomes a link to reference n. HTML in
// the report is kept as text, never interpreted.
func FromMarkdown(src string, opt MarkdownOptions) []Block {
	source := []byte(src)
	c := &mdConv{src: source, opt: opt}
	return c.blocks(parser.Parse(text.NewReader(source)))
}

type mdConv struct {
	src []byte
	opt MarkdownOptions
}

func (c *mdConv) blocks(parent ast.Node) []Block {
	var out []Block
	for n := parent.FirstChild(); n != nil; n = n.NextSibling() {
		if b, ok := c.block(n); ok {
			out = append(out, b)
		}
	}
	return out
}

func (c *mdConv) block(n ast.Node) (Block, bool) {
	switch n := n.(type) {
	case *ast.Heading:
		return Block{Kind: Heading, Level: min(max(n.Level+c.opt.Shift, 1), 6), Inlines: c.inlines(n)}, true
	case *ast.Paragraph, *ast.TextBlock:
		in := c.inlines(n)
		return Para(in...), len(in) > 0
	case *ast.ThematicBreak:
		return Block{Kind: Rule}, true
	case *ast.CodeBlock, *ast.FencedCodeBlock:
		return Block{Kind: Code, Text: strings.TrimRight(c.lines(n), "\n")}, true
	case *ast.HTMLBlock:
		// Shown as written: a report's HTML is text to the reader, not markup to obey.
		t := strings.TrimSpace(c.lines(n))
		return Para(Plain(t)), t != ""
	case *ast.Blockquote:
		return Block{Kind: Quote, Blocks: c.blocks(n)}, true
	case *ast.List:
		b := Block{Kind: List, Ordered: n.IsOrdered(), Start: n.Start}
		for item := n.FirstChild(); item != nil; item = item.NextSibling() {
			b.Items = append(b.Items, c.blocks(item))
		}
		return b, true
	case *east.Table:
		b := Block{Kind: Table}
		for _, a := range n.Alignments {
			b.Align = append(b.Align, map[east.Alignment]Align{east.AlignLeft: AlignLeft, east.AlignCenter: AlignCenter, east.AlignRight: AlignRight}[a])
		}
		for row := n.FirstChild(); row != nil; row = row.NextSibling() {
			var cells [][]Inline
			for cell := row.FirstChild(); cell != nil; cell = cell.NextSibling() {
				cells = append(cells, c.inlines(cell))
			}
			if _, head := row.(*east.TableHeader); head {
				b.Header = cells
			} else {
				b.Rows = append(b.Rows, cells)
			}
		}
		return b, true
	}
	return Block{}, false
}

// lines is the raw text of a block that keeps its lines (code, HTML).
func (c *mdConv) lines(n ast.Node) string {
	var b strings.Builder
	ls := n.Lines()
	for i := 0; i < ls.Len(); i++ {
		seg := ls.At(i)
		b.Write(seg.Value(c.src))
	}
	return b.String()
}

// inlines converts a block's inline content: styled runs, then citations and flags found in
// the text.
func (c *mdConv) inlines(n ast.Node) []Inline {
	var out []Inline
	c.walk(n, Inline{}, &out)
	out = citations(merge(out))
	out = merge(c.flag(out))
	return trimRuns(out)
}

func (c *mdConv) walk(n ast.Node, style Inline, out *[]Inline) {
	add := func(s string) {
		if s != "" {
			x := style
			x.Text = s
			*out = append(*out, x)
		}
	}
	for x := n.FirstChild(); x != nil; x = x.NextSibling() {
		switch x := x.(type) {
		case *ast.Text:
			add(string(x.Segment.Value(c.src)))
			switch {
			case x.HardLineBreak():
				*out = append(*out, Inline{Break: true})
			case x.SoftLineBreak():
				add(" ")
			}
		case *ast.String:
			add(string(x.Value))
		case *ast.Emphasis:
			st := style
			if x.Level >= 2 {
				st.Bold = true
			} else {
				st.Italic = true
			}
			c.walk(x, st, out)
		case *ast.CodeSpan:
			st := style
			st.Code = true
			c.walk(x, st, out)
		case *ast.Link:
			before := len(*out)
			c.walk(x, style, out)
			// The address is shown, not followed: warren fetches nothing, and a reader of the
			// printed page cannot click.
			if dest := string(x.Destination); dest != "" && !strings.HasPrefix(dest, "#") && PlainText((*out)[before:]) != dest {
				add(" (" + dest + ")")
			}
		case *ast.AutoLink:
			add(string(x.URL(c.src)))
		case *ast.RawHTML:
			for i := 0; i < x.Segments.Len(); i++ {
				seg := x.Segments.At(i)
				add(string(seg.Value(c.src)))
			}
		default: // images (their alt text), strike-through and what else holds text
			c.walk(x, style, out)
		}
	}
}

func sameStyle(a, b Inline) bool {
	return a.Bold == b.Bold && a.Italic == b.Italic && a.Code == b.Code && a.Flag == b.Flag &&
		a.Cite == 0 && b.Cite == 0 && !a.Break && !b.Break
}

// merge joins neighbouring runs of one style, so that a citation split by the parser ("[",
// "1", "]") is one text again.
func merge(in []Inline) []Inline {
	var out []Inline
	for _, x := range in {
		if n := len(out); n > 0 && sameStyle(out[n-1], x) {
			out[n-1].Text += x.Text
			continue
		}
		out = append(out, x)
	}
	return out
}

var citeNumber = regexp.MustCompile(`\d+`)

// citations splits each citation out of the text runs: its brackets and separators stay text,
// each number becomes a link to its reference ("[2, 5]" links 2 and 5).
func citations(in []Inline) []Inline {
	var out []Inline
	for _, x := range in {
		if x.Code || x.Break || x.Cite > 0 {
			out = append(out, x)
			continue
		}
		at := 0
		piece := func(s string, cite int) {
			if s != "" {
				y := x
				y.Text, y.Cite = s, cite
				out = append(out, y)
			}
		}
		for _, m := range citation.Locate(x.Text) {
			piece(x.Text[at:m[0]], 0)
			inner := x.Text[m[0]:m[1]]
			last := 0
			for _, d := range citeNumber.FindAllStringIndex(inner, -1) {
				piece(inner[last:d[0]], 0)
				piece(inner[d[0]:d[1]], atoi(inner[d[0]:d[1]]))
				last = d[1]
			}
			piece(inner[last:], 0)
			at = m[1]
		}
		piece(x.Text[at:], 0)
	}
	return out
}

func atoi(s string) int {
	n := 0
	for _, r := range s {
		n = n*10 + int(r-'0')
		if n > 1<<20 {
			return 0 // no report has that many sources: leave it unlinked
		}
	}
	return n
}

// flag marks the parentheses that begin with opt.Mark and the sentences of opt.Flagged.
func (c *mdConv) flag(in []Inline) []Inline {
	var whole strings.Builder
	for _, x := range in {
		whole.WriteString(x.Text)
	}
	s := whole.String()
	var ranges [][2]int
	for _, sentence := range c.opt.Flagged {
		if sentence = strings.TrimSpace(sentence); sentence == "" {
			continue
		}
		for from := 0; ; {
			i := strings.Index(s[from:], sentence)
			if i < 0 {
				break
			}
			ranges = append(ranges, [2]int{from + i, from + i + len(sentence)})
			from += i + len(sentence)
		}
	}
	if c.opt.Mark != "" {
		open := "(" + c.opt.Mark
		for from := 0; ; {
			i := strings.Index(s[from:], open)
			if i < 0 {
				break
			}
			start := from + i
			end := closing(s, start)
			ranges = append(ranges, [2]int{start, end})
			from = end
		}
	}
	if len(ranges) == 0 {
		return in
	}
	return flagRanges(in, ranges)
}

// closing is the offset after the parenthesis that opens at s[open], or the end of s.
func closing(s string, open int) int {
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return i + 1
			}
		}
	}
	return len(s)
}

// flagRanges splits the runs at the ranges' ends (byte offsets into their joined text) and
// flags what lies inside one.
func flagRanges(in []Inline, ranges [][2]int) []Inline {
	inside := func(p int) bool {
		for _, r := range ranges {
			if p >= r[0] && p < r[1] {
				return true
			}
		}
		return false
	}
	var out []Inline
	pos := 0
	for _, x := range in {
		start, end := pos, pos+len(x.Text)
		pos = end
		cuts := []int{start, end}
		for _, r := range ranges {
			for _, p := range r {
				if p > start && p < end {
					cuts = append(cuts, p)
				}
			}
		}
		sort.Ints(cuts)
		if x.Text == "" {
			out = append(out, x)
			continue
		}
		for i := 0; i+1 < len(cuts); i++ {
			a, b := cuts[i], cuts[i+1]
			if a == b {
				continue
			}
			y := x
			y.Text = x.Text[a-start : b-start]
			y.Flag = x.Flag || inside(a)
			out = append(out, y)
		}
	}
	return out
}

// trimRuns drops the spaces at a paragraph's ends and empty runs.
func trimRuns(in []Inline) []Inline {
	var out []Inline
	for _, x := range in {
		if x.Text != "" || x.Break {
			out = append(out, x)
		}
	}
	for len(out) > 0 && !out[0].Break {
		if out[0].Text = strings.TrimLeft(out[0].Text, " \t"); out[0].Text != "" {
			break
		}
		out = out[1:]
	}
	for len(out) > 0 && !out[len(out)-1].Break {
		n := len(out) - 1
		if out[n].Text = strings.TrimRight(out[n].Text, " \t"); out[n].Text != "" {
			break
		}
		out = out[:n]
	}
	return out
}
