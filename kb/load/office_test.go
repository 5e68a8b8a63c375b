package load

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"warren/kb/chunk"
	"warren/kb/load/loadtest"
)

// loadOffice writes data under name and loads it with opts; it fails the test on an error.
func loadOffice(t *testing.T, name string, data []byte, opts LoadOptions) *Document {
	t.Helper()
	doc, err := Load(writeTestFile(t, name, data), opts)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// skipReason loads data under name and returns the reason it was skipped.
func skipReason(t *testing.T, name string, data []byte, opts LoadOptions) string {
	t.Helper()
	_, err := Load(writeTestFile(t, name, data), opts)
	var skip *SkipError
	if !errors.As(err, &skip) {
		t.Fatalf("%s: want a *SkipError, got %T %v", name, err, err)
	}
	return skip.Reason
}

func bySection(doc *Document) map[string]Section {
	out := map[string]Section{}
	for _, s := range doc.Sections {
		out[s.Label()] = s
	}
	return out
}

const wordNumbering = `<?xml version="1.0"?><w:numbering xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">` +
	`<w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="0"><w:numFmt w:val="bullet"/></w:lvl></w:abstractNum>` +
	`<w:abstractNum w:abstractNumId="1"><w:lvl w:ilvl="0"><w:numFmt w:val="decimal"/></w:lvl></w:abstractNum>` +
	`<w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num><w:num w:numId="2"><w:abstractNumId w:val="1"/></w:num></w:numbering>`

func wordItem(numID, text string) string {
	return `<w:p><w:pPr><w:numPr><w:ilvl w:val="0"/><w:numId w:val="` + numID + `"/></w:numPr></w:pPr><w:r><w:t>` + text + `</w:t></w:r></w:p>`
}

func TestDOCXSectionsTablesListsNotesAndTrackedChanges(t *testing.T) {
	body := loadtest.WordPara("Heading1", "Gefahrstoffverordnung") +
		`<w:p><w:pPr><w:pStyle w:val="Heading2"/></w:pPr><w:r><w:t>§ 6 Informationsermittlung</w:t></w:r><w:r><w:footnoteReference w:id="2"/></w:r></w:p>` +
		`<w:p><w:commentRangeStart w:id="0"/><w:r><w:t xml:space="preserve">Der Arbeitgeber </w:t></w:r>` +
		`<w:ins w:id="1" w:author="a"><w:r><w:t xml:space="preserve">ermittelt </w:t></w:r></w:ins>` +
		`<w:del w:id="2" w:author="a"><w:r><w:delText>prüft nicht </w:delText></w:r></w:del>` +
		`<w:r><w:t>die Gefährdungen.</w:t></w:r><w:commentRangeEnd w:id="0"/><w:r><w:commentReference w:id="0"/></w:r>` +
		`<w:r><w:footnoteReference w:id="1"/></w:r></w:p>` +
		wordItem("1", "alpha") + wordItem("1", "beta") + wordItem("2", "first") + wordItem("2", "second") +
		// An outline level on the paragraph itself makes a heading too.
		`<w:p><w:pPr><w:outlineLvl w:val="1"/></w:pPr><w:r><w:t>4.1 Scope</w:t></w:r></w:p>` +
		`<w:tbl><w:tblPr/><w:tr><w:tc><w:p><w:r><w:t>Gas</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>TLV</w:t></w:r></w:p></w:tc></w:tr>` +
		`<w:tr><w:tc><w:p><w:r><w:t>Silane</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>5 ppm</w:t></w:r></w:p><w:p><w:r><w:t>a|b</w:t></w:r></w:p></w:tc></w:tr></w:tbl>` +
		loadtest.WordPara("", "# not a heading")
	doc := loadOffice(t, "gefstoff.docx", loadtest.DOCX(body, map[string]string{
		"word/numbering.xml": wordNumbering,
		"word/footnotes.xml": loadtest.WordFootnotes(map[string]string{"1": "Siehe § 7 Absatz 1.", "2": "Geändert 2021."}),
		"word/comments.xml":  `<?xml version="1.0"?><w:comments xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:comment w:id="0"><w:p><w:r><w:t>SECRET REMARK</w:t></w:r></w:p></w:comment></w:comments>`,
		"docProps/core.xml":  loadtest.CoreProps("GefStoffV (Auszug)", "de-DE"),
	}), LoadOptions{})

	if doc.Format != "docx" || doc.Title != "GefStoffV (Auszug)" || doc.Language != "de" {
		t.Fatalf("format %q, title %q, language %q", doc.Format, doc.Title, doc.Language)
	}
	s := bySection(doc)
	sec6, scope := s["§ 6"], s["4.1"]
	if sec6.Heading != "Informationsermittlung[^1]" || sec6.PathString() != "Gefahrstoffverordnung › § 6" {
		t.Fatalf("§ 6: %+v", sec6)
	}
	for _, want := range []string{"Der Arbeitgeber ermittelt die Gefährdungen.[^2]", "- alpha\n- beta", "1. first\n2. second", "[^1]: Geändert 2021.\n\n[^2]: Siehe § 7 Absatz 1."} {
		if !strings.Contains(sec6.Text, want) {
			t.Errorf("§ 6 text lacks %q:\n%s", want, sec6.Text)
		}
	}
	if strings.Contains(sec6.Text, "prüft") || strings.Contains(sec6.Text, "SECRET") {
		t.Errorf("§ 6 keeps deleted text or a comment:\n%s", sec6.Text)
	}
	if scope.Heading != "Scope" || scope.PathString() != "Gefahrstoffverordnung › 4.1" {
		t.Fatalf("4.1: %+v", scope)
	}
	table := "| Gas | TLV |\n| --- | --- |\n| Silane | 5 ppm a\\|b |"
	if !strings.Contains(scope.Text, table) || !strings.Contains(scope.Text, `\# not a heading`) {
		t.Errorf("4.1 text:\n%s\nwant the table\n%s", scope.Text, table)
	}
	if len(doc.Sections) != 3 {
		t.Errorf("want 3 sections, got %d", len(doc.Sections))
	}
}

func TestDOCXTitleFallsBackToTheFirstHeadingThenTheFileName(t *testing.T) {
	doc := loadOffice(t, "sop.docx", loadtest.DOCX(loadtest.WordPara("Heading2", "4 Purge")+loadtest.WordPara("", "Purge the line with nitrogen."), nil), LoadOptions{})
	if doc.Title != "4 Purge" || doc.Language != "en" {
		t.Errorf("title %q, language %q", doc.Title, doc.Language)
	}
	doc = loadOffice(t, "memo.docx", loadtest.DOCX(loadtest.WordPara("", "Nur Text ohne Überschrift."), map[string]string{"word/styles.xml": ""}), LoadOptions{})
	if doc.Title != "memo" || len(doc.Sections) != 1 || doc.Sections[0].Text != "Nur Text ohne Überschrift." {
		t.Errorf("title %q, sections %+v", doc.Title, doc.Sections)
	}
}

func TestODTSectionsTablesListsNotesAndTrackedChanges(t *testing.T) {
	auto := `<text:list-style style:name="L1"><text:list-level-style-number text:level="1" style:num-format="1"/></text:list-style>`
	body := `<text:tracked-changes><text:changed-region text:id="c1"><text:deletion><text:p>GELÖSCHTER SATZ</text:p></text:deletion></text:changed-region>` +
		`<text:changed-region text:id="c2"><text:insertion/></text:changed-region></text:tracked-changes>` +
		`<text:h text:outline-level="1">Gefahrstoffverordnung</text:h>` +
		`<text:h text:outline-level="2">§ 6 Informationsermittlung</text:h>` +
		`<text:p>Der Arbeitgeber<text:s/><text:change-start text:change-id="c2"/>ermittelt<text:change-end text:change-id="c2"/> <text:change text:change-id="c1"/>die Gefährdungen.` +
		`<office:annotation><dc:creator>x</dc:creator><text:p>SECRET REMARK</text:p></office:annotation>` +
		`<text:note text:note-class="footnote"><text:note-citation>1</text:note-citation><text:note-body><text:p>Siehe § 7 Absatz 1.</text:p></text:note-body></text:note></text:p>` +
		`<text:list text:style-name="L1"><text:list-item><text:p>first</text:p></text:list-item><text:list-item><text:p>second</text:p>` +
		`<text:list><text:list-item><text:p>nested</text:p></text:list-item></text:list></text:list-item></text:list>` +
		`<text:h text:outline-level="2">4.1 Scope</text:h>` +
		`<table:table><table:table-header-rows><table:table-row><table:table-cell><text:p>Gas</text:p></table:table-cell><table:table-cell><text:p>TLV</text:p></table:table-cell></table:table-row></table:table-header-rows>` +
		`<table:table-row><table:table-cell><text:p>Silane</text:p></table:table-cell><table:table-cell><text:p>5 ppm</text:p></table:table-cell></table:table-row></table:table>`
	doc := loadOffice(t, "gefstoff.odt", loadtest.ODT(body, auto, map[string]string{"styles.xml": loadtest.ODFStyles("de", "DE")}), LoadOptions{})
	if doc.Format != "odt" || doc.Title != "Gefahrstoffverordnung" || doc.Language != "de" {
		t.Fatalf("format %q, title %q, language %q", doc.Format, doc.Title, doc.Language)
	}
	s := bySection(doc)
	sec6, scope := s["§ 6"], s["4.1"]
	if sec6.Heading != "Informationsermittlung" || sec6.PathString() != "Gefahrstoffverordnung › § 6" {
		t.Fatalf("§ 6: %+v", sec6)
	}
	for _, want := range []string{"Der Arbeitgeber ermittelt die Gefährdungen.[^1]", "1. first\n2. second\n  - nested", "[^1]: Siehe § 7 Absatz 1."} {
		if !strings.Contains(sec6.Text, want) {
			t.Errorf("§ 6 text lacks %q:\n%s", want, sec6.Text)
		}
	}
	if strings.Contains(sec6.Text, "GELÖSCHT") || strings.Contains(sec6.Text, "SECRET") {
		t.Errorf("§ 6 keeps deleted text or a comment:\n%s", sec6.Text)
	}
	if scope.PathString() != "Gefahrstoffverordnung › 4.1" || scope.Text != "| Gas | TLV |\n| --- | --- |\n| Silane | 5 ppm |" {
		t.Errorf("4.1: %+v", scope)
	}
}

func TestSlidesAreSectionsWithTheirNotes(t *testing.T) {
	slides := []loadtest.Slide{
		{Title: "Silane safety", Body: []string{"Pyrophoric gas\nPurge before disconnect"}, Notes: "Mention the 2019 incident."},
		{Title: "Cabinet checks", Body: []string{"Check the exhaust flow.", "Marker sentence on slide two."}},
	}
	for _, c := range []struct {
		name string
		data []byte
	}{{"training.pptx", loadtest.PPTX(slides, map[string]string{"docProps/core.xml": loadtest.CoreProps("Gas training", "")})},
		{"training.odp", loadtest.ODP(slides, map[string]string{"meta.xml": loadtest.ODFMeta("Gas training")})}} {
		t.Run(c.name, func(t *testing.T) {
			doc := loadOffice(t, c.name, c.data, LoadOptions{})
			if doc.Title != "Gas training" || doc.Language != "en" || len(doc.Sections) != 2 {
				t.Fatalf("title %q, language %q, sections %+v", doc.Title, doc.Language, doc.Sections)
			}
			one, two := doc.Sections[0], doc.Sections[1]
			if one.Number != "Slide 1" || one.Heading != "Silane safety" || one.PathString() != "Slide 1" ||
				one.Text != "Pyrophoric gas\nPurge before disconnect\n\nNotes:\nMention the 2019 incident." {
				t.Errorf("slide 1: %+v", one)
			}
			if two.Number != "Slide 2" || two.Heading != "Cabinet checks" || two.Text != "Check the exhaust flow.\n\nMarker sentence on slide two." {
				t.Errorf("slide 2: %+v", two)
			}
			// Cited by slide: the chunks carry the slide's number.
			for i, s := range doc.Sections {
				if s.Page != i+1 || s.PageKind != chunk.KindSlide {
					t.Errorf("slide %d is cited as %s %d", i+1, s.PageKind, s.Page)
				}
			}
			ch := Chunker{Doc: "training", Options: DefaultChunkOptions}
			if c := ch.Section(two); len(c) != 1 || c[0].Page != 2 || c[0].PageKind != chunk.KindSlide || c[0].Place() != "Slide 2" {
				t.Errorf("the chunk of slide 2: %+v", c)
			}
		})
	}
}

// A slide without text is left out, and the slides after it keep their numbers.
func TestSlidesKeepTheirNumbersPastAnEmptySlide(t *testing.T) {
	slides := []loadtest.Slide{{Title: "Silane safety", Body: []string{"Pyrophoric gas"}}, {}, {Title: "Cabinet checks", Body: []string{"Check the exhaust flow."}}}
	for name, data := range map[string][]byte{"deck.pptx": loadtest.PPTX(slides, nil), "deck.odp": loadtest.ODP(slides, nil)} {
		doc := loadOffice(t, name, data, LoadOptions{})
		var got []string
		for _, s := range doc.Sections {
			got = append(got, fmt.Sprintf("%s=%s %d", s.Number, s.PageKind, s.Page))
		}
		if fmt.Sprint(got) != "[Slide 1=slide 1 Slide 3=slide 3]" {
			t.Errorf("%s: %v", name, got)
		}
	}
}

func TestOfficeBadFilesAreSkippedWithTheirReason(t *testing.T) {
	laughs := `<?xml version="1.0"?><!DOCTYPE w:document [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>` +
		`<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>&c;</w:t></w:r></w:p></w:body></w:document>`
	external := `<?xml version="1.0"?><!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:text><text:p>&xxe;</text:p></office:text></office:body></office:document-content>`
	deep := strings.Repeat("<w:sdt><w:sdtContent>", 2000) + strings.Repeat("</w:sdtContent></w:sdt>", 2000)
	bomb := loadtest.DOCX(loadtest.WordPara("", strings.Repeat("x", 3<<20)), nil)
	var many []loadtest.Part
	for i := range maxZipEntries + 1 {
		many = append(many, loadtest.Part{Name: fmt.Sprintf("p%d.xml", i), Data: "x"})
	}
	for _, c := range []struct {
		name string
		data []byte
		opts LoadOptions
		want string
	}{
		{"notzip.docx", []byte("This is a plain text file named .docx"), LoadOptions{}, "not a zip package"},
		{"notword.docx", loadtest.Zip(loadtest.Part{Name: "hello.txt", Data: "hi"}), LoadOptions{}, "no word/document.xml"},
		{"bomb.docx", bomb, LoadOptions{MaxFileBytes: 1 << 20}, "expands past the 1 MB limit"},
		{"laughs.docx", loadtest.DOCX("", map[string]string{"word/document.xml": laughs}), LoadOptions{}, "DOCTYPE"},
		{"xxe.odt", loadtest.ODT("", "", map[string]string{"content.xml": external}), LoadOptions{}, "DOCTYPE"},
		{"deep.docx", loadtest.DOCX(deep, nil), LoadOptions{}, "nested deeper"},
		{"many.pptx", loadtest.Zip(many...), LoadOptions{}, "parts (more than"},
		{"broken.odp", loadtest.Zip(loadtest.Part{Name: "content.xml", Data: "<office:document-content><office:body>"}), LoadOptions{}, "not well-formed"},
		{"empty.docx", loadtest.DOCX("", nil), LoadOptions{}, "no text"},
		{"notes.rtf", []byte("x"), LoadOptions{}, ".docx, .odt, .pptx, .odp, .xlsx"},
	} {
		if c.name == "bomb.docx" && len(c.data) > 64<<10 {
			t.Fatalf("the bomb should be a small file, it is %d bytes", len(c.data))
		}
		if got := skipReason(t, c.name, c.data, c.opts); !strings.Contains(got, c.want) {
			t.Errorf("%s: reason %q, want it to say %q", c.name, got, c.want)
		}
	}
}

func FuzzLoadDOCX(f *testing.F) {
	f.Add(loadtest.WordPara("Heading1", "§ 6 Informationsermittlung") + loadtest.WordPara("", "Text [^1] | # x"))
	f.Add(`<w:tbl><w:tr><w:tc><w:p><w:r><w:t>a</w:t></w:r></w:p></w:tc></w:tr></w:tbl><w:p><w:pPr><w:outlineLvl w:val="99"/><w:numPr><w:ilvl w:val="-4"/><w:numId w:val="2"/></w:numPr></w:pPr><w:r><w:footnoteReference w:id="1"/></w:r></w:p>`)
	f.Add(`<w:sdt><w:sdtContent><w:p><w:ins><w:r><w:t>in</w:t></w:r></w:ins><w:del><w:r><w:delText>out</w:delText></w:r></w:del></w:p></w:sdtContent></w:sdt>`)
	extra := map[string]string{
		"word/numbering.xml": wordNumbering,
		"word/footnotes.xml": loadtest.WordFootnotes(map[string]string{"1": "note", "2": "other"}),
	}
	f.Fuzz(func(t *testing.T, body string) {
		doc, ok := loadBytes(t, loadtest.DOCX(body, extra), ".docx")
		if !ok {
			return
		}
		for _, s := range sectionsOf(t, doc) {
			if strings.TrimSpace(s.Text) == "" && s.Heading == "" && s.Number == "" {
				t.Fatalf("an empty section: %+v", s)
			}
			checkChunks(t, s, func(start, end int) string { return s.Text[start-s.Offset : end-s.Offset] })
		}
	})
}
