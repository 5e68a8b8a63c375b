package report

import (
	"fmt"
	"strings"
	"time"
)

// WriteODT writes d as an OpenDocument text (LibreOffice, Word): real heading styles with
// outline levels, numbered and bulleted lists, tables with a repeated header row, citations
// linked to bookmarks on their numbered references, and the page number in the footer.
func WriteODT(d *Document) ([]byte, error) {
	w := &odtWriter{}
	content := w.content(d)
	a := newArchive()
	a.add("mimetype", "application/vnd.oasis.opendocument.text", true) // first and stored, as ODF requires
	a.add("META-INF/manifest.xml", odtManifest, false)
	a.add("content.xml", content, false)
	a.add("styles.xml", odtStyles(langTag(d.Lang)), false)
	a.add("meta.xml", odtMeta(d), false)
	return a.bytes()
}

type odtWriter struct {
	b      strings.Builder
	auto   strings.Builder // automatic styles: the tables' columns
	tables int
}

const odtNS = `xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0" xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" office:version="1.3"`

// The text styles of runs: one automatic style per combination of bold, italic, code and flag.
const (
	odtBold = 1 << iota
	odtItalic
	odtCode
	odtFlag
)

func (w *odtWriter) content(d *Document) string {
	if d.Title != "" {
		w.b.WriteString(`<text:p text:style-name="Title">` + w.text([]Inline{Plain(d.Title)}) + "</text:p>\n")
	}
	for _, f := range d.Meta {
		w.b.WriteString(`<text:p text:style-name="Report_20_Facts">` + w.text([]Inline{{Text: f.Label + ": ", Bold: true}, Plain(f.Value)}) + "</text:p>\n")
	}
	w.blocks(d.Blocks, "Text_20_body")

	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	b.WriteString(`<office:document-content ` + odtNS + `>` + "\n")
	b.WriteString(odtFonts)
	b.WriteString("<office:automatic-styles>\n")
	for mask := 1; mask < 16; mask++ {
		fmt.Fprintf(&b, `<style:style style:name="T%d" style:family="text"><style:text-properties`, mask)
		if mask&odtBold != 0 {
			b.WriteString(` fo:font-weight="bold" style:font-weight-complex="bold"`)
		}
		if mask&odtItalic != 0 {
			b.WriteString(` fo:font-style="italic" style:font-style-complex="italic"`)
		}
		if mask&odtCode != 0 {
			b.WriteString(` style:font-name="Liberation Mono"`)
		}
		if mask&odtFlag != 0 {
			b.WriteString(` fo:color="#8a1c00" fo:background-color="#ffff00" style:text-underline-style="wave" style:text-underline-width="auto" style:text-underline-color="font-color"`)
		}
		b.WriteString("/></style:style>\n")
	}
	for _, a := range []string{"center", "end"} {
		fmt.Fprintf(&b, `<style:style style:name="Cell_%s" style:family="paragraph" style:parent-style-name="Table_20_Contents"><style:paragraph-properties fo:text-align="%s"/></style:style>`+"\n", a, a)
	}
	b.WriteString(`<style:style style:name="Cell" style:family="table-cell"><style:table-cell-properties fo:padding="0.1cm" fo:border="0.5pt solid #808080"/></style:style>` + "\n")
	b.WriteString(`<style:style style:name="HeadCell" style:family="table-cell"><style:table-cell-properties fo:padding="0.1cm" fo:border="0.5pt solid #808080" fo:background-color="#e8e8e8"/></style:style>` + "\n")
	b.WriteString(w.auto.String())
	b.WriteString("</office:automatic-styles>\n<office:body><office:text>\n")
	b.WriteString(w.b.String())
	b.WriteString("</office:text></office:body></office:document-content>\n")
	return b.String()
}

func (w *odtWriter) blocks(bs []Block, style string) {
	for _, b := range bs {
		w.block(b, style)
	}
}

func (w *odtWriter) block(b Block, style string) {
	switch b.Kind {
	case Paragraph:
		fmt.Fprintf(&w.b, `<text:p text:style-name="%s">%s</text:p>`+"\n", style, w.text(b.Inlines))
	case Heading:
		l := min(max(b.Level, 1), 6)
		fmt.Fprintf(&w.b, `<text:h text:style-name="Heading_20_%d" text:outline-level="%d">%s</text:h>`+"\n", l, l, w.text(b.Inlines))
	case Reference:
		fmt.Fprintf(&w.b, `<text:p text:style-name="Reference"><text:bookmark text:name="%s"/>[%d]<text:tab/>%s</text:p>`+"\n", anchor(b.N), b.N, w.text(b.Inlines))
	case Quote:
		w.blocks(b.Blocks, "Quotations")
	case Note:
		if b.Warn {
			w.blocks(b.Blocks, "Warning")
		} else {
			w.blocks(b.Blocks, "Note")
		}
	case Code:
		var in []Inline
		for i, line := range strings.Split(b.Text, "\n") {
			if i > 0 {
				in = append(in, Inline{Break: true})
			}
			in = append(in, Inline{Text: line})
		}
		fmt.Fprintf(&w.b, `<text:p text:style-name="Preformatted_20_Text">%s</text:p>`+"\n", w.text(in))
	case Rule:
		w.b.WriteString(`<text:p text:style-name="Horizontal_20_Line"/>` + "\n")
	case List:
		name := "Bullets"
		if b.Ordered {
			name = "Numbers"
		}
		fmt.Fprintf(&w.b, `<text:list text:style-name="%s">`+"\n", name)
		for i, item := range b.Items {
			if i == 0 && b.Ordered && b.Start > 1 {
				fmt.Fprintf(&w.b, `<text:list-item text:start-value="%d">`, b.Start)
			} else {
				w.b.WriteString(`<text:list-item>`)
			}
			if len(item) == 0 || item[0].Kind != Paragraph {
				w.b.WriteString(`<text:p text:style-name="List_20_Contents"/>`)
			}
			inner := style
			if inner == "Text_20_body" {
				inner = "List_20_Contents"
			}
			w.blocks(item, inner)
			w.b.WriteString("</text:list-item>\n")
		}
		w.b.WriteString("</text:list>\n")
	case Table:
		w.table(b)
	}
}

func (w *odtWriter) table(b Block) {
	n := columns(b)
	if n == 0 {
		return
	}
	w.tables++
	name := fmt.Sprintf("Table%d", w.tables)
	fmt.Fprintf(&w.auto, `<style:style style:name="%s" style:family="table"><style:table-properties style:width="17cm" table:align="margins" fo:margin-bottom="0.2cm"/></style:style>`+"\n", name)
	weights := columnWeights(b)
	fmt.Fprintf(&w.b, `<table:table table:name="%s" table:style-name="%s">`+"\n", name, name)
	for i := 0; i < n; i++ {
		col := fmt.Sprintf("%s.C%d", name, i+1)
		fmt.Fprintf(&w.auto, `<style:style style:name="%s" style:family="table-column"><style:table-column-properties style:column-width="%.2fcm"/></style:style>`+"\n", col, 17*weights[i])
		fmt.Fprintf(&w.b, `<table:table-column table:style-name="%s"/>`, col)
	}
	w.b.WriteString("\n")
	row := func(cells [][]Inline, header bool) {
		w.b.WriteString(`<table:table-row>`)
		for i := 0; i < n; i++ {
			var cell []Inline
			if i < len(cells) {
				cell = cells[i]
			}
			cellStyle, para := "Cell", "Table_20_Contents"
			if header {
				cellStyle, para, cell = "HeadCell", "Table_20_Heading", bolden(cell)
			}
			if !header && i < len(b.Align) {
				switch b.Align[i] {
				case AlignCenter:
					para = "Cell_center"
				case AlignRight:
					para = "Cell_end"
				}
			}
			fmt.Fprintf(&w.b, `<table:table-cell table:style-name="%s" office:value-type="string"><text:p text:style-name="%s">%s</text:p></table:table-cell>`, cellStyle, para, w.text(cell))
		}
		w.b.WriteString("</table:table-row>\n")
	}
	if len(b.Header) > 0 {
		w.b.WriteString("<table:table-header-rows>")
		row(b.Header, true)
		w.b.WriteString("</table:table-header-rows>\n")
	}
	for _, r := range b.Rows {
		row(r, false)
	}
	w.b.WriteString("</table:table>\n")
}

// text writes inline runs: spans for styles, links for citations, and the elements ODF wants
// for repeated spaces, tabs and line breaks.
func (w *odtWriter) text(in []Inline) string {
	var b strings.Builder
	for _, x := range in {
		if x.Break {
			b.WriteString("<text:line-break/>")
			continue
		}
		t := odtSpaces(x.Text)
		mask := 0
		if x.Bold {
			mask |= odtBold
		}
		if x.Italic {
			mask |= odtItalic
		}
		if x.Code {
			mask |= odtCode
		}
		if x.Flag {
			mask |= odtFlag
		}
		if mask != 0 {
			t = fmt.Sprintf(`<text:span text:style-name="T%d">%s</text:span>`, mask, t)
		}
		if x.Cite > 0 {
			t = fmt.Sprintf(`<text:a xlink:type="simple" xlink:href="#%s" text:style-name="Internet_20_link">%s</text:a>`, anchor(x.Cite), t)
		}
		b.WriteString(t)
	}
	return b.String()
}

// odtSpaces escapes text and keeps its spaces: ODF folds a run of spaces into one unless the
// rest are written as <text:s/>.
func odtSpaces(s string) string {
	var b strings.Builder
	spaces := 0
	flush := func() {
		if spaces > 0 {
			b.WriteByte(' ')
			if spaces > 1 {
				fmt.Fprintf(&b, `<text:s text:c="%d"/>`, spaces-1)
			}
			spaces = 0
		}
	}
	for _, r := range s {
		switch r {
		case ' ':
			spaces++
			continue
		case '\t':
			flush()
			b.WriteString("<text:tab/>")
			continue
		case '\n':
			flush()
			b.WriteString("<text:line-break/>")
			continue
		}
		flush()
		b.WriteString(esc(string(r)))
	}
	flush()
	return b.String()
}

func odtMeta(d *Document) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	b.WriteString(`<office:document-meta ` + odtNS + `><office:meta><meta:generator>warren</meta:generator>`)
	fmt.Fprintf(&b, `<dc:title>%s</dc:title><dc:language>%s</dc:language>`, esc(d.Title), esc(langTag(d.Lang)))
	if d.Author != "" {
		fmt.Fprintf(&b, `<meta:initial-creator>%s</meta:initial-creator>`, esc(d.Author))
	}
	if !d.Created.IsZero() {
		fmt.Fprintf(&b, `<meta:creation-date>%s</meta:creation-date>`, d.Created.UTC().Format(time.RFC3339))
	}
	b.WriteString("</office:meta></office:document-meta>\n")
	return b.String()
}

const odtManifest = `<?xml version="1.0" encoding="UTF-8"?>
<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3">
<manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/>
<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>
<manifest:file-entry manifest:full-path="styles.xml" manifest:media-type="text/xml"/>
<manifest:file-entry manifest:full-path="meta.xml" manifest:media-type="text/xml"/>
</manifest:manifest>
`

const odtFonts = `<office:font-face-decls><style:font-face style:name="Liberation Sans" svg:font-family="'Liberation Sans'" style:font-family-generic="swiss" style:font-pitch="variable"/><style:font-face style:name="Liberation Mono" svg:font-family="'Liberation Mono'" style:font-family-generic="modern" style:font-pitch="fixed"/></office:font-face-decls>
`

// odtStyles is styles.xml: the named paragraph styles the body uses, the two list styles,
// and an A4 page with the page number in its footer.
func odtStyles(tag string) string {
	lang, country := splitTag(tag)
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	b.WriteString(`<office:document-styles ` + odtNS + `>` + "\n")
	b.WriteString(odtFonts)
	b.WriteString("<office:styles>\n")
	fmt.Fprintf(&b, `<style:default-style style:family="paragraph"><style:paragraph-properties fo:margin-bottom="0.2cm" fo:line-height="115%%"/><style:text-properties style:font-name="Liberation Sans" fo:font-size="10.5pt" fo:language="%s" fo:country="%s"/></style:default-style>`+"\n", esc(lang), esc(country))
	para := func(name, display, parent, class, ppr, tpr string) {
		fmt.Fprintf(&b, `<style:style style:name="%s" style:display-name="%s" style:family="paragraph"`, name, display)
		if parent != "" {
			fmt.Fprintf(&b, ` style:parent-style-name="%s"`, parent)
		}
		if class != "" {
			fmt.Fprintf(&b, ` style:class="%s"`, class)
		}
		b.WriteString(">")
		if ppr != "" {
			b.WriteString("<style:paragraph-properties " + ppr + "/>")
		}
		if tpr != "" {
			b.WriteString("<style:text-properties " + tpr + "/>")
		}
		b.WriteString("</style:style>\n")
	}
	para("Standard", "Standard", "", "text", "", "")
	para("Text_20_body", "Text body", "Standard", "text", `fo:margin-top="0cm" fo:margin-bottom="0.21cm"`, "")
	para("Title", "Title", "Standard", "chapter", `fo:margin-bottom="0.42cm" fo:keep-with-next="always"`, `fo:font-size="20pt" fo:font-weight="bold" style:font-weight-complex="bold"`)
	para("Report_20_Facts", "Report Facts", "Standard", "text", `fo:margin-bottom="0.07cm"`, "")
	para("Heading", "Heading", "Standard", "text", `fo:margin-top="0.42cm" fo:margin-bottom="0.21cm" fo:keep-with-next="always"`, `fo:font-weight="bold" style:font-weight-complex="bold"`)
	sizes := []string{"16pt", "14pt", "12pt", "11pt", "10.5pt", "10.5pt"}
	for l := 1; l <= 6; l++ {
		italic := ""
		if l >= 5 {
			italic = ` fo:font-style="italic"`
		}
		fmt.Fprintf(&b, `<style:style style:name="Heading_20_%d" style:display-name="Heading %d" style:family="paragraph" style:parent-style-name="Heading" style:next-style-name="Text_20_body" style:default-outline-level="%d" style:class="text"><style:text-properties fo:font-size="%s"%s/></style:style>`+"\n",
			l, l, l, sizes[l-1], italic)
	}
	para("List_20_Contents", "List Contents", "Standard", "list", `fo:margin-bottom="0.1cm"`, "")
	para("Quotations", "Quotations", "Standard", "html", `fo:margin-left="1cm" fo:margin-right="1cm" fo:padding-left="0.2cm" fo:border-left="1.5pt solid #a0a0a0"`, `fo:color="#404040"`)
	para("Preformatted_20_Text", "Preformatted Text", "Standard", "html", `fo:background-color="#f2f2f2" fo:margin-bottom="0.21cm" fo:line-height="100%"`, `style:font-name="Liberation Mono" fo:font-size="9pt"`)
	para("Note", "Note", "Standard", "text", `fo:padding="0.15cm" fo:border="0.5pt solid #7f9fbf" fo:background-color="#eef3f8"`, "")
	para("Warning", "Warning", "Standard", "text", `fo:padding="0.15cm" fo:border="1pt solid #c0504d" fo:background-color="#fbeaea"`, "")
	para("Reference", "Reference", "Standard", "text", `fo:margin-left="1cm" fo:text-indent="-1cm" fo:margin-bottom="0.14cm"`, "")
	para("Table_20_Contents", "Table Contents", "Standard", "extra", `fo:margin-bottom="0cm"`, "")
	para("Table_20_Heading", "Table Heading", "Table_20_Contents", "extra", "", `fo:font-weight="bold" style:font-weight-complex="bold"`)
	para("Horizontal_20_Line", "Horizontal Line", "Standard", "html", `fo:padding-bottom="0.05cm" fo:border-bottom="0.5pt solid #a0a0a0"`, "")
	para("Footer", "Footer", "Standard", "extra", `fo:text-align="center"`, `fo:font-size="9pt"`)
	b.WriteString(`<style:style style:name="Internet_20_link" style:display-name="Internet link" style:family="text"><style:text-properties fo:color="#1f4e8c"/></style:style>` + "\n")
	bullets := []string{"•", "◦", "▪"}
	for _, list := range []string{"Bullets", "Numbers"} {
		fmt.Fprintf(&b, `<text:list-style style:name="%s">`, list)
		for l := 1; l <= 10; l++ {
			ind := fmt.Sprintf(`<style:list-level-properties text:list-level-position-and-space-mode="label-alignment"><style:list-level-label-alignment text:label-followed-by="listtab" text:list-tab-stop-position="%.1fcm" fo:text-indent="-0.5cm" fo:margin-left="%.1fcm"/></style:list-level-properties>`, float64(l), float64(l))
			if list == "Bullets" {
				fmt.Fprintf(&b, `<text:list-level-style-bullet text:level="%d" text:bullet-char="%s">%s</text:list-level-style-bullet>`, l, bullets[(l-1)%3], ind)
			} else {
				fmt.Fprintf(&b, `<text:list-level-style-number text:level="%d" style:num-suffix="." style:num-format="1">%s</text:list-level-style-number>`, l, ind)
			}
		}
		b.WriteString("</text:list-style>\n")
	}
	b.WriteString("</office:styles>\n")
	b.WriteString(`<office:automatic-styles><style:page-layout style:name="Page"><style:page-layout-properties fo:page-width="21cm" fo:page-height="29.7cm" fo:margin-top="2cm" fo:margin-bottom="1.5cm" fo:margin-left="2cm" fo:margin-right="2cm"/><style:footer-style><style:header-footer-properties fo:min-height="0.6cm" fo:margin-top="0.3cm"/></style:footer-style></style:page-layout></office:automatic-styles>` + "\n")
	b.WriteString(`<office:master-styles><style:master-page style:name="Standard" style:page-layout-name="Page"><style:footer><text:p text:style-name="Footer"><text:page-number text:select-page="current">1</text:page-number></text:p></style:footer></style:master-page></office:master-styles>` + "\n")
	b.WriteString("</office:document-styles>\n")
	return b.String()
}
