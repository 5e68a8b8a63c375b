package load

import (
	"testing"

	"warren/kb/load/loadtest"
)

// Word and OpenDocument number headings from their styles: the numbers are counted, not
// stored, and a section must carry them all the same.
func TestAutoNumberedHeadingsGetTheirNumbers(t *testing.T) {
	const w = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"`
	styles := `<?xml version="1.0"?><w:styles ` + w + `>` +
		`<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/><w:pPr><w:numPr><w:ilvl w:val="0"/><w:numId w:val="7"/></w:numPr><w:outlineLvl w:val="0"/></w:pPr></w:style>` +
		`<w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2"/><w:pPr><w:numPr><w:ilvl w:val="1"/><w:numId w:val="7"/></w:numPr><w:outlineLvl w:val="1"/></w:pPr></w:style>` +
		`<w:style w:type="paragraph" w:styleId="Annex"><w:name w:val="Annex"/><w:basedOn w:val="Heading1"/></w:style></w:styles>`
	numbering := `<?xml version="1.0"?><w:numbering ` + w + `><w:abstractNum w:abstractNumId="3">` +
		`<w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1."/></w:lvl>` +
		`<w:lvl w:ilvl="1"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1.%2"/></w:lvl>` +
		`</w:abstractNum><w:num w:numId="7"><w:abstractNumId w:val="3"/></w:num>` +
		`<w:abstractNum w:abstractNumId="4"><w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="upperLetter"/><w:lvlText w:val="Annex %1"/></w:lvl></w:abstractNum>` +
		`<w:num w:numId="8"><w:abstractNumId w:val="4"/></w:num></w:numbering>`
	body := loadtest.WordPara("Heading1", "Scope") + loadtest.WordPara("", "Gas cabinets of building C.") +
		loadtest.WordPara("Heading1", "Cylinder handling") +
		loadtest.WordPara("Heading2", "Storage") + loadtest.WordPara("", "Upright and chained.") +
		loadtest.WordPara("Heading2", "Leak checks") + loadtest.WordPara("", "Saffron tags mark a failed check.") +
		loadtest.WordPara("Heading1", "3. Records") + loadtest.WordPara("", "Numbered by hand as well.") + // not "3 3. Records"
		// A paragraph's own numbering wins over its style's; an unnumbered heading stays so.
		`<w:p><w:pPr><w:pStyle w:val="Annex"/><w:numPr><w:ilvl w:val="0"/><w:numId w:val="8"/></w:numPr></w:pPr><w:r><w:t>Forms</w:t></w:r></w:p>` +
		loadtest.WordPara("", "The log form.") +
		`<w:p><w:pPr><w:pStyle w:val="Heading1"/><w:numPr><w:numId w:val="0"/></w:numPr></w:pPr><w:r><w:t>Glossary</w:t></w:r></w:p>` +
		loadtest.WordPara("", "Terms.")
	docx := loadOffice(t, "sop.docx", loadtest.DOCX(body, map[string]string{"word/styles.xml": styles, "word/numbering.xml": numbering}), LoadOptions{})

	outline := `<text:outline-style style:name="Outline">` +
		`<text:outline-level-style text:level="1" style:num-format="1"/>` +
		`<text:outline-level-style text:level="2" style:num-format="1" text:display-levels="2"/>` +
		`<text:outline-level-style text:level="3" style:num-format="1" text:display-levels="3"/></text:outline-style>`
	odfStyles := `<?xml version="1.0"?><office:document-styles xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"><office:styles>` +
		outline + `</office:styles></office:document-styles>`
	odtBody := `<text:h text:outline-level="1">Scope</text:h><text:p>Gas cabinets of building C.</text:p>` +
		`<text:h text:outline-level="1">Cylinder handling</text:h>` +
		`<text:h text:outline-level="2">Storage</text:h><text:p>Upright and chained.</text:p>` +
		`<text:h text:outline-level="2">Leak checks</text:h><text:p>Saffron tags mark a failed check.</text:p>` +
		`<text:h text:outline-level="3">Bubbles</text:h><text:p>Snoop fluid.</text:p>` +
		`<text:h text:outline-level="1" text:is-list-header="true">Glossary</text:h><text:p>Terms.</text:p>` +
		`<text:h text:outline-level="1"><text:number>7.</text:number>Written number</text:h><text:p>As stored.</text:p>`
	odt := loadOffice(t, "sop.odt", loadtest.ODT(odtBody, "", map[string]string{"styles.xml": odfStyles}), LoadOptions{})

	for _, tc := range []struct {
		doc  *Document
		want map[string]string // section label → heading
	}{
		{docx, map[string]string{"1": "Scope", "2": "Cylinder handling", "2.1": "Storage", "2.2": "Leak checks", "3": "Records", "Annex A": "Forms", "Glossary": "Glossary"}},
		{odt, map[string]string{"1": "Scope", "2": "Cylinder handling", "2.1": "Storage", "2.2": "Leak checks", "2.2.1": "Bubbles", "Glossary": "Glossary", "7": "Written number"}},
	} {
		got := map[string]string{}
		for _, s := range tc.doc.Sections {
			got[s.Label()] = s.Heading
		}
		for label, heading := range tc.want {
			if got[label] != heading {
				t.Errorf("%s: section %q has heading %q, want %q (sections: %v)", tc.doc.Format, label, got[label], heading, got)
			}
		}
	}
}
