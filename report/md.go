package report

import (
	"fmt"
	"strings"
)

// Markdown writes d as Markdown: the title as "#", its facts in bold, headings a level below.
// Citations stay [n] and the references "[n] …", so the text reads as a research report's does.
func Markdown(d *Document) string {
	var b strings.Builder
	if d.Title != "" {
		fmt.Fprintf(&b, "# %s\n\n", mdEscape(d.Title))
	}
	for _, f := range d.Meta {
		fmt.Fprintf(&b, "**%s:** %s  \n", mdEscape(f.Label), mdEscape(f.Value))
	}
	if len(d.Meta) > 0 {
		b.WriteString("\n")
	}
	mdBlocks(&b, d.Blocks, "")
	return strings.TrimRight(b.String(), "\n") + "\n"
}

func mdBlocks(b *strings.Builder, bs []Block, prefix string) {
	for _, x := range bs {
		mdBlock(b, x, prefix)
	}
}

// mdBlock writes one block, each line after prefix (a quote's "> ", a list item's indent).
func mdBlock(b *strings.Builder, x Block, prefix string) {
	line := func(s string) { b.WriteString(strings.TrimRight(prefix+s, " ") + "\n") }
	switch x.Kind {
	case Paragraph:
		line(mdInlines(x.Inlines))
	case Heading:
		line(strings.Repeat("#", min(max(x.Level, 1)+1, 6)) + " " + mdInlines(x.Inlines))
	case Reference:
		line(fmt.Sprintf("[%d] %s", x.N, mdInlines(x.Inlines)))
	case Quote, Note:
		var sub strings.Builder
		mdBlocks(&sub, x.Blocks, "")
		for _, l := range strings.Split(strings.TrimRight(sub.String(), "\n"), "\n") {
			line("> " + l)
		}
	case Code:
		line("```")
		for _, l := range strings.Split(x.Text, "\n") {
			b.WriteString(prefix + l + "\n")
		}
		line("```")
	case Rule:
		line("---")
	case List:
		for i, item := range x.Items {
			marker := "- "
			if x.Ordered {
				marker = fmt.Sprintf("%d. ", max(x.Start, 1)+i)
			}
			for j, c := range item {
				var sub strings.Builder
				mdBlock(&sub, c, "")
				for k, l := range strings.Split(strings.TrimRight(sub.String(), "\n"), "\n") {
					switch {
					case j == 0 && k == 0:
						line(marker + l)
					case l == "":
						line("")
					default:
						line(strings.Repeat(" ", len(marker)) + l)
					}
				}
			}
		}
	case Table:
		n := columns(x)
		row := func(cells [][]Inline) {
			parts := make([]string, n)
			for i := range parts {
				if i < len(cells) {
					parts[i] = strings.ReplaceAll(mdInlines(cells[i]), "|", `\|`)
				}
			}
			line("| " + strings.Join(parts, " | ") + " |")
		}
		header := x.Header
		if header == nil {
			header = make([][]Inline, n)
		}
		row(header)
		rule := make([]string, n)
		for i := range rule {
			rule[i] = "---"
			if i < len(x.Align) {
				rule[i] = map[Align]string{AlignNone: "---", AlignLeft: ":--", AlignCenter: ":-:", AlignRight: "--:"}[x.Align[i]]
			}
		}
		line("| " + strings.Join(rule, " | ") + " |")
		for _, r := range x.Rows {
			row(r)
		}
	}
	b.WriteString(strings.TrimRight(prefix, " ") + "\n")
}

func mdInlines(in []Inline) string {
	var b strings.Builder
	for _, x := range in {
		if x.Break {
			b.WriteString("  \n")
			continue
		}
		// Emphasis and code marks go around the text, its outer spaces outside them, or
		// Markdown would not read them as marks.
		core := strings.TrimSpace(x.Text)
		if core == "" {
			b.WriteString(x.Text)
			continue
		}
		lead := x.Text[:strings.Index(x.Text, core)]
		trail := x.Text[len(lead)+len(core):]
		t := core
		if x.Code {
			t = "`" + t + "`"
		} else if x.Cite == 0 {
			t = mdEscape(t)
		}
		if x.Italic {
			t = "*" + t + "*"
		}
		if x.Bold {
			t = "**" + t + "**"
		}
		b.WriteString(lead + t + trail)
	}
	return b.String()
}

// mdEscape keeps text from being read as emphasis, code or HTML; brackets stay, so that
// citations read as they were written.
var mdEscaper = strings.NewReplacer(`\`, `\\`, "*", `\*`, "_", `\_`, "`", "\\`", "<", `\<`)

func mdEscape(s string) string { return mdEscaper.Replace(s) }
