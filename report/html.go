package report

import (
	"fmt"
	"html"
	"strings"
)

// WriteHTML writes d as one self-contained HTML page: UTF-8, its language declared, its
// styles in the page (no file or font is fetched), every text escaped, and a print style so
// that it prints as a document (A4, links shown as text, tables kept whole where they fit).
func WriteHTML(d *Document) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html lang=\"%s\">\n<head>\n<meta charset=\"utf-8\">\n", html.EscapeString(langTag(d.Lang)))
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	if d.Author != "" {
		fmt.Fprintf(&b, "<meta name=\"author\" content=\"%s\">\n", html.EscapeString(d.Author))
	}
	fmt.Fprintf(&b, "<title>%s</title>\n<style>\n%s</style>\n</head>\n<body>\n<article>\n", html.EscapeString(d.Title), htmlStyle)
	if d.Title != "" {
		fmt.Fprintf(&b, "<h1 class=\"title\">%s</h1>\n", html.EscapeString(d.Title))
	}
	if len(d.Meta) > 0 {
		b.WriteString("<table class=\"facts\">\n")
		for _, f := range d.Meta {
			fmt.Fprintf(&b, "<tr><th scope=\"row\" style=\"text-align:left\">%s</th><td>%s</td></tr>\n", html.EscapeString(f.Label), html.EscapeString(f.Value))
		}
		b.WriteString("</table>\n")
	}
	htmlBlocks(&b, d.Blocks)
	b.WriteString("</article>\n</body>\n</html>\n")
	return b.String()
}

func htmlBlocks(b *strings.Builder, bs []Block) {
	for _, x := range bs {
		htmlBlock(b, x)
	}
}

func htmlBlock(b *strings.Builder, x Block) {
	switch x.Kind {
	case Paragraph:
		fmt.Fprintf(b, "<p>%s</p>\n", htmlInlines(x.Inlines))
	case Heading:
		// The title is the page's h1; the document's headings sit under it.
		l := min(max(x.Level, 1)+1, 6)
		fmt.Fprintf(b, "<h%d>%s</h%d>\n", l, htmlInlines(x.Inlines), l)
	case Reference:
		fmt.Fprintf(b, "<p class=\"ref\" id=\"%s\"><span class=\"n\">[%d]</span> %s</p>\n", anchor(x.N), x.N, htmlInlines(x.Inlines))
	case Quote:
		b.WriteString("<blockquote>\n")
		htmlBlocks(b, x.Blocks)
		b.WriteString("</blockquote>\n")
	case Note:
		class := "note"
		if x.Warn {
			class = "note warn"
		}
		fmt.Fprintf(b, "<div class=\"%s\">\n", class)
		htmlBlocks(b, x.Blocks)
		b.WriteString("</div>\n")
	case Code:
		fmt.Fprintf(b, "<pre><code>%s</code></pre>\n", html.EscapeString(x.Text))
	case Rule:
		b.WriteString("<hr>\n")
	case List:
		tag := "ul"
		if x.Ordered {
			tag = "ol"
		}
		if x.Ordered && x.Start > 1 {
			fmt.Fprintf(b, "<ol start=\"%d\">\n", x.Start)
		} else {
			fmt.Fprintf(b, "<%s>\n", tag)
		}
		for _, item := range x.Items {
			// A one-paragraph item is written without its <p>, as lists usually are.
			if len(item) == 1 && item[0].Kind == Paragraph {
				fmt.Fprintf(b, "<li>%s</li>\n", htmlInlines(item[0].Inlines))
				continue
			}
			b.WriteString("<li>\n")
			htmlBlocks(b, item)
			b.WriteString("</li>\n")
		}
		fmt.Fprintf(b, "</%s>\n", tag)
	case Table:
		n := columns(x)
		// The border attributes are for readers that skip the style sheet (office suites).
		b.WriteString("<table class=\"data\" border=\"1\" cellspacing=\"0\" cellpadding=\"4\">\n")
		cell := func(tag string, i int, in []Inline) {
			style := ""
			if i < len(x.Align) {
				if a := map[Align]string{AlignLeft: "left", AlignCenter: "center", AlignRight: "right"}[x.Align[i]]; a != "" {
					style = ` style="text-align:` + a + `"`
				}
			}
			fmt.Fprintf(b, "<%s%s>%s</%s>", tag, style, htmlInlines(in), tag)
		}
		row := func(tag string, cells [][]Inline) {
			b.WriteString("<tr>")
			for i := 0; i < n; i++ {
				var in []Inline
				if i < len(cells) {
					in = cells[i]
				}
				cell(tag, i, in)
			}
			b.WriteString("</tr>\n")
		}
		if len(x.Header) > 0 {
			b.WriteString("<thead>")
			row("th", x.Header)
			b.WriteString("</thead>\n")
		}
		b.WriteString("<tbody>\n")
		for _, r := range x.Rows {
			row("td", r)
		}
		b.WriteString("</tbody>\n</table>\n")
	}
}

func htmlInlines(in []Inline) string {
	var b strings.Builder
	for _, x := range in {
		if x.Break {
			b.WriteString("<br>")
			continue
		}
		t := html.EscapeString(x.Text)
		if x.Code {
			t = "<code>" + t + "</code>"
		}
		if x.Italic {
			t = "<em>" + t + "</em>"
		}
		if x.Bold {
			t = "<strong>" + t + "</strong>"
		}
		if x.Flag {
			t = "<mark class=\"flag\">" + t + "</mark>"
		}
		if x.Cite > 0 {
			t = fmt.Sprintf("<a href=\"#%s\">%s</a>", anchor(x.Cite), t)
		}
		b.WriteString(t)
	}
	return b.String()
}

const htmlStyle = `body { margin: 0; background: #fff; color: #1a1a1a; font: 11pt/1.45 "Liberation Sans", Arial, Helvetica, sans-serif; }
article { max-width: 46em; margin: 2em auto; padding: 0 1.5em; }
h1.title { font-size: 1.8em; margin: 0 0 .5em; }
h2 { font-size: 1.4em; margin: 1.4em 0 .5em; border-bottom: 1px solid #ccc; }
h3 { font-size: 1.2em; margin: 1.2em 0 .4em; }
h4, h5, h6 { font-size: 1em; margin: 1em 0 .3em; }
h2, h3, h4, h5, h6 { page-break-after: avoid; break-after: avoid; }
table.facts { border-collapse: collapse; margin: 0 0 1.5em; }
table.facts th { text-align: left; padding: .1em 1em .1em 0; vertical-align: top; white-space: nowrap; }
table.facts td { padding: .1em 0; }
table.data { border-collapse: collapse; width: 100%; margin: .5em 0 1em; }
table.data th, table.data td { border: 1px solid #808080; padding: .25em .4em; vertical-align: top; text-align: left; }
table.data thead th { background: #e8e8e8; }
tr { page-break-inside: avoid; break-inside: avoid; }
blockquote { margin: .5em 1.5em; padding-left: .8em; border-left: 3px solid #a0a0a0; color: #404040; }
pre { background: #f2f2f2; padding: .5em; white-space: pre-wrap; font-size: .9em; }
code { font-family: "Liberation Mono", "Courier New", monospace; }
.note { border: 1px solid #7f9fbf; background: #eef3f8; padding: .3em .8em; margin: .8em 0; }
.note.warn { border-color: #c0504d; background: #fbeaea; }
mark.flag { background: #ffff00; color: #8a1c00; text-decoration: underline wavy; }
p.ref { margin: .3em 0 .3em 2.5em; text-indent: -2.5em; }
p.ref .n { display: inline-block; min-width: 2.5em; text-indent: 0; }
a { color: #1f4e8c; }
@page { size: A4; margin: 2cm; }
@media print {
  body { font-size: 10.5pt; }
  article { max-width: none; margin: 0; padding: 0; }
  a { color: inherit; text-decoration: none; }
  mark.flag { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
}
`
