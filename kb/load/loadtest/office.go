package loadtest

import (
	"archive/zip"
	"bytes"
	"fmt"
	"html"
	"sort"
	"strings"
)

// Part is one file in a zip package.
type Part struct {
	Name, Data string
}

// Zip returns a zip archive of the parts, in order, deflated.
func Zip(parts ...Part) []byte {
	var b bytes.Buffer
	w := zip.NewWriter(&b)
	for _, p := range parts {
		f, err := w.Create(p.Name)
		if err != nil {
			panic(err)
		}
		if _, err := f.Write([]byte(p.Data)); err != nil {
			panic(err)
		}
	}
	if err := w.Close(); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// withDefaults returns the default parts, replaced or added to by extra, in a stable order.
func withDefaults(defaults, extra map[string]string) []Part {
	all := map[string]string{}
	for k, v := range defaults {
		all[k] = v
	}
	for k, v := range extra {
		all[k] = v
	}
	names := make([]string, 0, len(all))
	for k := range all {
		names = append(names, k)
	}
	sort.Strings(names)
	parts := make([]Part, 0, len(names))
	for _, n := range names {
		if all[n] != "" { // an empty part in extra removes a default
			parts = append(parts, Part{n, all[n]})
		}
	}
	return parts
}

const wordNS = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"`

// WordStyles has Heading 1–3 (by style name, as LibreOffice and Word write them) and a
// default language of lang.
func WordStyles(lang string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<?xml version="1.0" encoding="UTF-8"?><w:styles %s><w:docDefaults><w:rPrDefault><w:rPr><w:lang w:val="%s"/></w:rPr></w:rPrDefault></w:docDefaults>`, wordNS, lang)
	b.WriteString(`<w:style w:type="paragraph" w:styleId="Normal"><w:name w:val="Normal"/></w:style>`)
	for i := 1; i <= 3; i++ {
		fmt.Fprintf(&b, `<w:style w:type="paragraph" w:styleId="Heading%d"><w:name w:val="heading %d"/><w:basedOn w:val="Normal"/></w:style>`, i, i)
	}
	b.WriteString(`</w:styles>`)
	return b.String()
}

// DOCX returns a Word document whose w:body holds body; extra adds or replaces parts
// ("word/footnotes.xml", "docProps/core.xml", …).
func DOCX(body string, extra map[string]string) []byte {
	return Zip(withDefaults(map[string]string{
		"[Content_Types].xml": `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`,
		"word/document.xml":   `<?xml version="1.0" encoding="UTF-8"?><w:document ` + wordNS + `><w:body>` + body + `</w:body></w:document>`,
		"word/styles.xml":     WordStyles("en-US"),
	}, extra)...)
}

// WordPara is a w:p with an optional paragraph style, its text in one run.
func WordPara(style, text string) string {
	ppr := ""
	if style != "" {
		ppr = `<w:pPr><w:pStyle w:val="` + style + `"/></w:pPr>`
	}
	return `<w:p>` + ppr + `<w:r><w:t xml:space="preserve">` + html.EscapeString(text) + `</w:t></w:r></w:p>`
}

// WordFootnotes is a footnotes part with the separator Word writes and the given notes by id.
func WordFootnotes(notes map[string]string) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0"?><w:footnotes ` + wordNS + `><w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:footnote>`)
	ids := make([]string, 0, len(notes))
	for id := range notes {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		fmt.Fprintf(&b, `<w:footnote w:id="%s"><w:p><w:r><w:footnoteRef/></w:r><w:r><w:t>%s</w:t></w:r></w:p></w:footnote>`, id, html.EscapeString(notes[id]))
	}
	b.WriteString(`</w:footnotes>`)
	return b.String()
}

// CoreProps is a docProps/core.xml with a title and language.
func CoreProps(title, lang string) string {
	return `<?xml version="1.0"?><cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>` +
		html.EscapeString(title) + `</dc:title><dc:language>` + lang + `</dc:language></cp:coreProperties>`
}

const odfNS = `xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0"`

// ODFStyles is a styles.xml whose default paragraph style has the given language and country.
func ODFStyles(lang, country string) string {
	return `<?xml version="1.0"?><office:document-styles ` + odfNS + `><office:styles><style:default-style style:family="paragraph"><style:text-properties fo:language="` +
		lang + `" fo:country="` + country + `"/></style:default-style></office:styles></office:document-styles>`
}

// ODFMeta is a meta.xml with a title (none when empty).
func ODFMeta(title string) string {
	t := ""
	if title != "" {
		t = `<dc:title>` + html.EscapeString(title) + `</dc:title>`
	}
	return `<?xml version="1.0"?><office:document-meta ` + odfNS + `><office:meta>` + t + `</office:meta></office:document-meta>`
}

func odf(mime, content string, extra map[string]string) []byte {
	parts := withDefaults(map[string]string{
		"content.xml": content,
		"styles.xml":  ODFStyles("en", "US"),
		"meta.xml":    ODFMeta(""),
	}, extra)
	// The mimetype comes first, as ODF requires.
	return Zip(append([]Part{{"mimetype", mime}}, parts...)...)
}

// ODT returns an OpenDocument text whose office:text holds body; automatic holds
// office:automatic-styles content (list styles).
func ODT(body, automatic string, extra map[string]string) []byte {
	content := `<?xml version="1.0" encoding="UTF-8"?><office:document-content ` + odfNS + `><office:automatic-styles>` + automatic +
		`</office:automatic-styles><office:body><office:text>` + body + `</office:text></office:body></office:document-content>`
	return odf("application/vnd.oasis.opendocument.text", content, extra)
}

// Slide is one slide for PPTX and ODP: a title, text blocks (lines separated by "\n") and
// speaker notes.
type Slide struct {
	Title string
	Body  []string
	Notes string
}

const pmlNS = `xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"`

func pmlShape(phType, text string) string {
	ph := `<p:ph/>`
	if phType != "" {
		ph = `<p:ph type="` + phType + `"/>`
	}
	var paras strings.Builder
	for _, line := range strings.Split(text, "\n") {
		paras.WriteString(`<a:p><a:r><a:rPr lang="en-US"/><a:t>` + html.EscapeString(line) + `</a:t></a:r></a:p>`)
	}
	return `<p:sp><p:nvSpPr><p:cNvPr id="2" name="s"/><p:cNvSpPr/><p:nvPr>` + ph + `</p:nvPr></p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/>` + paras.String() + `</p:txBody></p:sp>`
}

// PPTX returns a presentation of the slides, listed in presentation.xml in reverse part-name
// order (slide parts need not be numbered in showing order), each with a slide number
// placeholder and, if it has notes, a notes page.
func PPTX(slides []Slide, extra map[string]string) []byte {
	parts := map[string]string{
		"[Content_Types].xml": `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`,
	}
	var ids, rels strings.Builder
	n := len(slides)
	for i, s := range slides {
		part := n - i // the first slide shown is the last part
		fmt.Fprintf(&ids, `<p:sldId id="%d" r:id="rId%d"/>`, 256+i, 10+i)
		fmt.Fprintf(&rels, `<Relationship Id="rId%d" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide" Target="slides/slide%d.xml"/>`, 10+i, part)
		var tree strings.Builder
		if s.Title != "" {
			tree.WriteString(pmlShape("title", s.Title))
		}
		for _, b := range s.Body {
			tree.WriteString(pmlShape("", b))
		}
		tree.WriteString(pmlShape("sldNum", fmt.Sprint(i+1)))
		parts[fmt.Sprintf("ppt/slides/slide%d.xml", part)] = `<?xml version="1.0"?><p:sld ` + pmlNS + `><p:cSld><p:spTree>` + tree.String() + `</p:spTree></p:cSld></p:sld>`
		if s.Notes != "" {
			parts[fmt.Sprintf("ppt/slides/_rels/slide%d.xml.rels", part)] = `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
				fmt.Sprintf(`<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/notesSlide" Target="../notesSlides/notesSlide%d.xml"/>`, part) + `</Relationships>`
			parts[fmt.Sprintf("ppt/notesSlides/notesSlide%d.xml", part)] = `<?xml version="1.0"?><p:notes ` + pmlNS + `><p:cSld><p:spTree>` +
				pmlShape("sldImg", "") + pmlShape("body", s.Notes) + pmlShape("sldNum", fmt.Sprint(i+1)) + `</p:spTree></p:cSld></p:notes>`
		}
	}
	parts["ppt/presentation.xml"] = `<?xml version="1.0"?><p:presentation ` + pmlNS + `><p:sldIdLst>` + ids.String() + `</p:sldIdLst></p:presentation>`
	parts["ppt/_rels/presentation.xml.rels"] = `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` + rels.String() + `</Relationships>`
	return Zip(withDefaults(parts, extra)...)
}

func odfFrame(class, text string) string {
	var paras strings.Builder
	for _, line := range strings.Split(text, "\n") {
		paras.WriteString(`<text:p>` + html.EscapeString(line) + `</text:p>`)
	}
	return `<draw:frame presentation:class="` + class + `"><draw:text-box>` + paras.String() + `</draw:text-box></draw:frame>`
}

// ODP returns an OpenDocument presentation of the slides, each with a thumbnail frame on its
// notes page as LibreOffice writes it.
func ODP(slides []Slide, extra map[string]string) []byte {
	var pages strings.Builder
	for i, s := range slides {
		fmt.Fprintf(&pages, `<draw:page draw:name="page%d">`, i+1)
		if s.Title != "" {
			pages.WriteString(odfFrame("title", s.Title))
		}
		for _, b := range s.Body {
			pages.WriteString(odfFrame("outline", b))
		}
		pages.WriteString(`<draw:frame presentation:class="page-number"><draw:text-box><text:p>` + fmt.Sprint(i+1) + `</text:p></draw:text-box></draw:frame>`)
		if s.Notes != "" {
			pages.WriteString(`<presentation:notes><draw:page-thumbnail presentation:class="page"/>` + odfFrame("notes", s.Notes) + `</presentation:notes>`)
		}
		pages.WriteString(`</draw:page>`)
	}
	content := `<?xml version="1.0" encoding="UTF-8"?><office:document-content ` + odfNS + `><office:body><office:presentation>` + pages.String() +
		`</office:presentation></office:body></office:document-content>`
	return odf("application/vnd.oasis.opendocument.presentation", content, extra)
}
