package report

import (
	"fmt"
	"strings"
	"time"
)

// DOCX page geometry in twentieths of a point: A4 with 2 cm margins.
const (
	docxPageW   = 11906
	docxPageH   = 16838
	docxMargin  = 1134
	docxText    = docxPageW - 2*docxMargin
	docxIndent  = 567 // one level of list or quote indentation, 1 cm
	docxBullets = 1   // the one numbering instance every bullet list shares
)

// WriteDOCX writes d as an Office Open XML word-processing document (Word, LibreOffice):
// real heading styles, numbered and bulleted lists, tables with a repeated header row,
// citations linked to their numbered references, and the page number in the footer.
func WriteDOCX(d *Document) ([]byte, error) {
	w := &docxWriter{}
	body := w.document(d)
	a := newArchive()
	a.add("[Content_Types].xml", docxContentTypes, false)
	a.add("_rels/.rels", docxRootRels, false)
	a.add("docProps/core.xml", docxCore(d), false)
	a.add("docProps/app.xml", docxApp, false)
	a.add("word/document.xml", body, false)
	a.add("word/styles.xml", docxStyles(langTag(d.Lang)), false)
	a.add("word/numbering.xml", w.numbering(), false)
	a.add("word/settings.xml", docxSettings(langTag(d.Lang)), false)
	a.add("word/footer1.xml", docxFooter, false)
	a.add("word/_rels/document.xml.rels", docxDocRels, false)
	return a.bytes()
}

// docxList is one numbering instance: a bulleted list shares one, each ordered list has its
// own so that it starts at its own number.
type docxList struct {
	ordered bool
	level   int
	start   int
}

type docxWriter struct {
	b     strings.Builder
	lists []docxList // numbering instances from 2 on
}

// docxPara is how a paragraph is set: its style, its list numbering, its indentation.
type docxPara struct {
	style  string
	num    int // numbering instance; 0 for none
	level  int // list level of the numbering
	indent int // left indentation in twips, for a paragraph inside a list item or a quote
}

const docxNS = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"`

func (w *docxWriter) document(d *Document) string {
	w.b.WriteString(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n")
	w.b.WriteString(`<w:document ` + docxNS + `><w:body>` + "\n")
	if d.Title != "" {
		w.para(docxPara{style: "Title"}, []Inline{Plain(d.Title)})
	}
	for _, f := range d.Meta {
		w.para(docxPara{style: "Meta"}, []Inline{{Text: f.Label + ": ", Bold: true}, Plain(f.Value)})
	}
	w.blocks(d.Blocks, docxPara{style: "BodyText"}, 0)
	fmt.Fprintf(&w.b, `<w:sectPr><w:footerReference w:type="default" r:id="rIdFooter"/><w:pgSz w:w="%d" w:h="%d"/><w:pgMar w:top="%d" w:right="%d" w:bottom="%d" w:left="%d" w:header="567" w:footer="567" w:gutter="0"/></w:sectPr>`,
		docxPageW, docxPageH, docxMargin, docxMargin, docxMargin, docxMargin)
	w.b.WriteString("\n</w:body></w:document>\n")
	return w.b.String()
}

// blocks writes blocks as set by p; depth is the list nesting they stand in.
func (w *docxWriter) blocks(bs []Block, p docxPara, depth int) {
	for _, b := range bs {
		w.block(b, p, depth)
	}
}

func (w *docxWriter) block(b Block, p docxPara, depth int) {
	switch b.Kind {
	case Paragraph:
		w.para(p, b.Inlines)
	case Heading:
		w.para(docxPara{style: fmt.Sprintf("Heading%d", min(max(b.Level, 1), 6))}, b.Inlines)
	case Reference:
		fmt.Fprintf(&w.b, `<w:p><w:pPr><w:pStyle w:val="Reference"/></w:pPr><w:bookmarkStart w:id="%d" w:name="%s"/><w:r><w:t>[%d]</w:t></w:r><w:bookmarkEnd w:id="%d"/><w:r><w:tab/></w:r>`,
			b.N, anchor(b.N), b.N, b.N)
		w.runs(b.Inlines)
		w.b.WriteString("</w:p>\n")
	case Quote:
		q := p
		q.style, q.indent = "Quotation", p.indent+docxIndent
		w.blocks(b.Blocks, q, depth)
	case Note:
		n := p
		n.style = "Note"
		if b.Warn {
			n.style = "Warning"
		}
		w.blocks(b.Blocks, n, depth)
	case Code:
		c := p
		c.style = "Code"
		var in []Inline
		for i, line := range strings.Split(b.Text, "\n") {
			if i > 0 {
				in = append(in, Inline{Break: true})
			}
			in = append(in, Inline{Text: line})
		}
		w.para(c, in)
	case Rule:
		w.b.WriteString(`<w:p><w:pPr><w:pStyle w:val="Rule"/></w:pPr></w:p>` + "\n")
	case List:
		num := docxBullets
		if b.Ordered {
			w.lists = append(w.lists, docxList{ordered: true, level: min(depth, 8), start: max(b.Start, 1)})
			num = len(w.lists) + 1
		}
		for _, item := range b.Items {
			first := true
			for _, ib := range item {
				if ib.Kind == List {
					if first {
						// An item that opens with a nested list still shows its number.
						w.para(docxPara{style: "ListParagraph", num: num, level: min(depth, 8), indent: p.indent}, nil)
						first = false
					}
					w.block(ib, p, depth+1) // numbered a level deeper
					continue
				}
				ip := p
				ip.indent = p.indent + (depth+1)*docxIndent
				if ip.style == "BodyText" {
					ip.style = "ListParagraph"
				}
				if first && ib.Kind == Paragraph {
					ip.num, ip.level, ip.indent = num, min(depth, 8), p.indent
				} else if first {
					w.para(docxPara{style: "ListParagraph", num: num, level: min(depth, 8), indent: p.indent}, nil)
				}
				first = false
				w.block(ib, ip, depth+1)
			}
			if first {
				w.para(docxPara{style: "ListParagraph", num: num, level: min(depth, 8), indent: p.indent}, nil)
			}
		}
	case Table:
		w.table(b, p.indent)
	}
}

func (w *docxWriter) para(p docxPara, in []Inline) {
	w.b.WriteString(`<w:p><w:pPr>`)
	fmt.Fprintf(&w.b, `<w:pStyle w:val="%s"/>`, p.style)
	if p.num > 0 {
		fmt.Fprintf(&w.b, `<w:numPr><w:ilvl w:val="%d"/><w:numId w:val="%d"/></w:numPr>`, p.level, p.num)
	}
	if p.num == 0 && p.indent > 0 {
		fmt.Fprintf(&w.b, `<w:ind w:left="%d"/>`, p.indent)
	} else if p.num > 0 && p.indent > 0 {
		fmt.Fprintf(&w.b, `<w:ind w:left="%d" w:hanging="%d"/>`, p.indent+(p.level+1)*docxIndent, docxIndent/2)
	}
	w.b.WriteString(`</w:pPr>`)
	w.runs(in)
	w.b.WriteString("</w:p>\n")
}

func (w *docxWriter) runs(in []Inline) {
	for _, x := range in {
		if x.Break {
			w.b.WriteString(`<w:r><w:br/></w:r>`)
			continue
		}
		if x.Text == "" {
			continue
		}
		if x.Cite > 0 {
			fmt.Fprintf(&w.b, `<w:hyperlink w:anchor="%s" w:history="1">`, anchor(x.Cite))
		}
		w.b.WriteString(`<w:r>`)
		w.b.WriteString(docxRunProps(x))
		for i, part := range strings.Split(x.Text, "\t") {
			if i > 0 {
				w.b.WriteString(`<w:tab/>`)
			}
			if part != "" {
				w.b.WriteString(`<w:t xml:space="preserve">` + esc(part) + `</w:t>`)
			}
		}
		w.b.WriteString(`</w:r>`)
		if x.Cite > 0 {
			w.b.WriteString(`</w:hyperlink>`)
		}
	}
}

// docxRunProps are a run's properties, in the order the schema wants them.
func docxRunProps(x Inline) string {
	var b strings.Builder
	if x.Cite > 0 {
		b.WriteString(`<w:rStyle w:val="Hyperlink"/>`)
	} else if x.Code {
		b.WriteString(`<w:rStyle w:val="CodeChar"/>`)
	}
	if x.Bold {
		b.WriteString(`<w:b/><w:bCs/>`)
	}
	if x.Italic {
		b.WriteString(`<w:i/><w:iCs/>`)
	}
	if x.Flag {
		b.WriteString(`<w:color w:val="8A1C00"/><w:highlight w:val="yellow"/><w:u w:val="wave"/>`)
	}
	if b.Len() == 0 {
		return ""
	}
	return "<w:rPr>" + b.String() + "</w:rPr>"
}

func (w *docxWriter) table(b Block, indent int) {
	n := columns(b)
	if n == 0 {
		return
	}
	width := docxText - indent
	weights := columnWeights(b)
	w.b.WriteString(`<w:tbl><w:tblPr><w:tblStyle w:val="ReportTable"/>`)
	fmt.Fprintf(&w.b, `<w:tblW w:w="%d" w:type="dxa"/>`, width)
	if indent > 0 {
		fmt.Fprintf(&w.b, `<w:tblInd w:w="%d" w:type="dxa"/>`, indent)
	}
	w.b.WriteString(`<w:tblLayout w:type="fixed"/><w:tblLook w:val="04A0" w:firstRow="1" w:lastRow="0" w:firstColumn="0" w:lastColumn="0" w:noHBand="0" w:noVBand="1"/></w:tblPr><w:tblGrid>`)
	cols := make([]int, n)
	for i := range cols {
		cols[i] = int(weights[i] * float64(width))
		fmt.Fprintf(&w.b, `<w:gridCol w:w="%d"/>`, cols[i])
	}
	w.b.WriteString("</w:tblGrid>\n")
	row := func(cells [][]Inline, header bool) {
		w.b.WriteString(`<w:tr>`)
		if header {
			w.b.WriteString(`<w:trPr><w:tblHeader/></w:trPr>`)
		}
		for i := 0; i < n; i++ {
			var cell []Inline
			if i < len(cells) {
				cell = cells[i]
			}
			fmt.Fprintf(&w.b, `<w:tc><w:tcPr><w:tcW w:w="%d" w:type="dxa"/>`, cols[i])
			if header {
				w.b.WriteString(`<w:shd w:val="clear" w:color="auto" w:fill="E8E8E8"/>`)
			}
			w.b.WriteString(`</w:tcPr><w:p><w:pPr><w:pStyle w:val="TableText"/>`)
			if i < len(b.Align) {
				if jc := map[Align]string{AlignCenter: "center", AlignRight: "right"}[b.Align[i]]; jc != "" {
					fmt.Fprintf(&w.b, `<w:jc w:val="%s"/>`, jc)
				}
			}
			w.b.WriteString(`</w:pPr>`)
			if header {
				cell = bolden(cell)
			}
			w.runs(cell)
			w.b.WriteString(`</w:p></w:tc>`)
		}
		w.b.WriteString("</w:tr>\n")
	}
	if len(b.Header) > 0 {
		row(b.Header, true)
	}
	for _, r := range b.Rows {
		row(r, false)
	}
	// A paragraph after the table keeps two tables apart and gives the cursor a place.
	w.b.WriteString("</w:tbl>\n" + `<w:p><w:pPr><w:pStyle w:val="TableText"/></w:pPr></w:p>` + "\n")
}

// bolden sets a header cell's runs bold.
func bolden(in []Inline) []Inline {
	out := make([]Inline, len(in))
	for i, x := range in {
		x.Bold = true
		out[i] = x
	}
	return out
}

// numbering is word/numbering.xml: the bullet and decimal list definitions and one instance
// per ordered list, each starting at its own number.
func (w *docxWriter) numbering() string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n")
	b.WriteString(`<w:numbering ` + docxNS + `>` + "\n")
	bullets := []string{"•", "◦", "▪"}
	for id, ordered := range []bool{false, true} {
		fmt.Fprintf(&b, `<w:abstractNum w:abstractNumId="%d"><w:multiLevelType w:val="multilevel"/>`, id)
		for l := 0; l < 9; l++ {
			fmt.Fprintf(&b, `<w:lvl w:ilvl="%d"><w:start w:val="1"/>`, l)
			if ordered {
				fmt.Fprintf(&b, `<w:numFmt w:val="decimal"/><w:lvlText w:val="%%%d."/>`, l+1)
			} else {
				fmt.Fprintf(&b, `<w:numFmt w:val="bullet"/><w:lvlText w:val="%s"/>`, bullets[l%3])
			}
			fmt.Fprintf(&b, `<w:lvlJc w:val="left"/><w:pPr><w:ind w:left="%d" w:hanging="%d"/></w:pPr></w:lvl>`, (l+1)*docxIndent, docxIndent/2)
		}
		b.WriteString("</w:abstractNum>\n")
	}
	fmt.Fprintf(&b, `<w:num w:numId="%d"><w:abstractNumId w:val="0"/></w:num>`+"\n", docxBullets)
	for i, l := range w.lists {
		fmt.Fprintf(&b, `<w:num w:numId="%d"><w:abstractNumId w:val="1"/><w:lvlOverride w:ilvl="%d"><w:startOverride w:val="%d"/></w:lvlOverride></w:num>`+"\n",
			i+2, l.level, l.start)
	}
	b.WriteString("</w:numbering>\n")
	return b.String()
}

func docxCore(d *Document) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n")
	b.WriteString(`<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">`)
	fmt.Fprintf(&b, `<dc:title>%s</dc:title>`, esc(d.Title))
	if d.Author != "" {
		fmt.Fprintf(&b, `<dc:creator>%s</dc:creator>`, esc(d.Author))
	}
	fmt.Fprintf(&b, `<dc:language>%s</dc:language>`, esc(langTag(d.Lang)))
	if !d.Created.IsZero() {
		fmt.Fprintf(&b, `<dcterms:created xsi:type="dcterms:W3CDTF">%s</dcterms:created>`, d.Created.UTC().Format(time.RFC3339))
	}
	b.WriteString("</cp:coreProperties>\n")
	return b.String()
}

const docxContentTypes = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>
<Default Extension="xml" ContentType="application/xml"/>
<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>
<Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/>
<Override PartName="/word/numbering.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.numbering+xml"/>
<Override PartName="/word/settings.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.settings+xml"/>
<Override PartName="/word/footer1.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.footer+xml"/>
<Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/>
<Override PartName="/docProps/app.xml" ContentType="application/vnd.openxmlformats-officedocument.extended-properties+xml"/>
</Types>
`

const docxRootRels = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>
<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/>
<Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/extended-properties" Target="docProps/app.xml"/>
</Relationships>
`

const docxDocRels = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rIdStyles" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>
<Relationship Id="rIdNumbering" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/numbering" Target="numbering.xml"/>
<Relationship Id="rIdSettings" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/settings" Target="settings.xml"/>
<Relationship Id="rIdFooter" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/footer" Target="footer1.xml"/>
</Relationships>
`

const docxApp = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties"><Application>warren</Application></Properties>
`

const docxFooter = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:ftr ` + docxNS + `><w:p><w:pPr><w:pStyle w:val="Footer"/><w:jc w:val="center"/></w:pPr><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve"> PAGE </w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>1</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r></w:p></w:ftr>
`

func docxSettings(lang string) string {
	return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:settings ` + docxNS + `><w:defaultTabStop w:val="567"/><w:characterSpacingControl w:val="doNotCompress"/><w:themeFontLang w:val="` + esc(lang) + `"/><w:compat><w:compatSetting w:name="compatibilityMode" w:uri="http://schemas.microsoft.com/office/word" w:val="15"/></w:compat></w:settings>
`
}

// docxStyles is word/styles.xml: the paragraph and character styles the body names. Arial
// and Courier New stand for what every office suite has (LibreOffice maps them to the
// metric-compatible Liberation fonts).
func docxStyles(lang string) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n")
	b.WriteString(`<w:styles ` + docxNS + `>` + "\n")
	fmt.Fprintf(&b, `<w:docDefaults><w:rPrDefault><w:rPr><w:rFonts w:ascii="Arial" w:hAnsi="Arial" w:eastAsia="Arial" w:cs="Arial"/><w:sz w:val="21"/><w:szCs w:val="21"/><w:lang w:val="%s" w:eastAsia="%s" w:bidi="ar-SA"/></w:rPr></w:rPrDefault><w:pPrDefault><w:pPr><w:spacing w:after="120" w:line="264" w:lineRule="auto"/></w:pPr></w:pPrDefault></w:docDefaults>`+"\n", esc(lang), esc(lang))
	para := func(id, name, basedOn, ppr, rpr string) {
		fmt.Fprintf(&b, `<w:style w:type="paragraph" w:styleId="%s"><w:name w:val="%s"/>`, id, name)
		if basedOn != "" {
			fmt.Fprintf(&b, `<w:basedOn w:val="%s"/>`, basedOn)
		}
		if id != "Normal" {
			b.WriteString(`<w:qFormat/>`)
		}
		if ppr != "" {
			b.WriteString("<w:pPr>" + ppr + "</w:pPr>")
		}
		if rpr != "" {
			b.WriteString("<w:rPr>" + rpr + "</w:rPr>")
		}
		b.WriteString("</w:style>\n")
	}
	b.WriteString(`<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/><w:qFormat/></w:style>` + "\n")
	para("BodyText", "Body Text", "Normal", "", "")
	para("Title", "Title", "Normal", `<w:keepNext/><w:spacing w:before="0" w:after="240"/>`, `<w:b/><w:bCs/><w:sz w:val="40"/><w:szCs w:val="40"/>`)
	para("Meta", "Report Facts", "Normal", `<w:spacing w:after="40"/>`, "")
	sizes := []int{32, 28, 24, 22, 21, 21}
	for l := 1; l <= 6; l++ {
		italic := ""
		if l >= 5 {
			italic = `<w:i/><w:iCs/>`
		}
		para(fmt.Sprintf("Heading%d", l), fmt.Sprintf("heading %d", l), "Normal",
			fmt.Sprintf(`<w:keepNext/><w:keepLines/><w:spacing w:before="%d" w:after="120"/><w:outlineLvl w:val="%d"/>`, 360-40*l, l-1),
			fmt.Sprintf(`<w:b/><w:bCs/>%s<w:sz w:val="%d"/><w:szCs w:val="%d"/>`, italic, sizes[l-1], sizes[l-1]))
	}
	para("ListParagraph", "List Paragraph", "Normal", `<w:spacing w:after="60"/>`, "")
	para("Quotation", "Quotations", "Normal", `<w:pBdr><w:left w:val="single" w:sz="18" w:space="8" w:color="A0A0A0"/></w:pBdr><w:ind w:left="567" w:right="567"/>`, `<w:color w:val="404040"/>`)
	para("Code", "Preformatted Text", "Normal", `<w:shd w:val="clear" w:color="auto" w:fill="F2F2F2"/><w:spacing w:after="120" w:line="240" w:lineRule="auto"/>`, `<w:rFonts w:ascii="Courier New" w:hAnsi="Courier New" w:cs="Courier New"/><w:sz w:val="18"/><w:szCs w:val="18"/>`)
	para("Note", "Note", "Normal", `<w:pBdr><w:top w:val="single" w:sz="4" w:space="4" w:color="7F9FBF"/><w:left w:val="single" w:sz="4" w:space="4" w:color="7F9FBF"/><w:bottom w:val="single" w:sz="4" w:space="4" w:color="7F9FBF"/><w:right w:val="single" w:sz="4" w:space="4" w:color="7F9FBF"/></w:pBdr><w:shd w:val="clear" w:color="auto" w:fill="EEF3F8"/><w:ind w:left="113" w:right="113"/>`, "")
	para("Warning", "Warning", "Normal", `<w:pBdr><w:top w:val="single" w:sz="8" w:space="4" w:color="C0504D"/><w:left w:val="single" w:sz="8" w:space="4" w:color="C0504D"/><w:bottom w:val="single" w:sz="8" w:space="4" w:color="C0504D"/><w:right w:val="single" w:sz="8" w:space="4" w:color="C0504D"/></w:pBdr><w:shd w:val="clear" w:color="auto" w:fill="FBEAEA"/><w:ind w:left="113" w:right="113"/>`, "")
	para("Reference", "Reference", "Normal", `<w:tabs><w:tab w:val="left" w:pos="567"/></w:tabs><w:spacing w:after="80"/><w:ind w:left="567" w:hanging="567"/>`, "")
	para("TableText", "Table Contents", "Normal", `<w:spacing w:before="40" w:after="40"/>`, "")
	para("Rule", "Horizontal Line", "Normal", `<w:pBdr><w:bottom w:val="single" w:sz="6" w:space="1" w:color="A0A0A0"/></w:pBdr>`, "")
	para("Footer", "footer", "Normal", `<w:spacing w:after="0"/>`, `<w:sz w:val="18"/><w:szCs w:val="18"/>`)
	b.WriteString(`<w:style w:type="character" w:styleId="Hyperlink"><w:name w:val="Hyperlink"/><w:rPr><w:color w:val="1F4E8C"/></w:rPr></w:style>` + "\n")
	b.WriteString(`<w:style w:type="character" w:styleId="CodeChar"><w:name w:val="Source Text"/><w:rPr><w:rFonts w:ascii="Courier New" w:hAnsi="Courier New" w:cs="Courier New"/></w:rPr></w:style>` + "\n")
	b.WriteString(`<w:style w:type="table" w:styleId="ReportTable"><w:name w:val="Report Table"/><w:tblPr><w:tblBorders><w:top w:val="single" w:sz="4" w:space="0" w:color="808080"/><w:left w:val="single" w:sz="4" w:space="0" w:color="808080"/><w:bottom w:val="single" w:sz="4" w:space="0" w:color="808080"/><w:right w:val="single" w:sz="4" w:space="0" w:color="808080"/><w:insideH w:val="single" w:sz="4" w:space="0" w:color="808080"/><w:insideV w:val="single" w:sz="4" w:space="0" w:color="808080"/></w:tblBorders><w:tblCellMar><w:left w:w="85" w:type="dxa"/><w:right w:w="85" w:type="dxa"/></w:tblCellMar></w:tblPr></w:style>` + "\n")
	b.WriteString("</w:styles>\n")
	return b.String()
}
