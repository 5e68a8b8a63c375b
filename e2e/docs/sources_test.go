//go:build e2e

package docs

import (
	"fmt"
	"html"
	"strings"
)

// The sources below are ours; each marker sentence occurs in one file only, so the top
// passage of a search for it names the file that was read.

// lawHTML is a short German regulation: § 7 refers to § 6, and marker stands in § 7.
func lawHTML(title, marker string) string {
	return `<!DOCTYPE html><html lang="de"><head><meta charset="utf-8"><title>` + html.EscapeString(title) + `</title></head><body>
<h1>` + html.EscapeString(title) + `</h1>
<h2>§ 6 Gefährdungsbeurteilung</h2>
<p>Der Arbeitgeber beurteilt die Gefährdung durch Gase vor Aufnahme der Tätigkeit und hält das Ergebnis fest.</p>
<h2>§ 7 Grundpflichten</h2>
<p>Die Maßnahmen nach § 6 sind zu dokumentieren. ` + html.EscapeString(marker) + `</p>
<table><tr><th>Gas</th><th>Grenzwert</th></tr><tr><td>Silan</td><td>5 ppm</td></tr></table>
<h2>§ 8 Unterweisung</h2>
<p>Beschäftigte werden vor der ersten Tätigkeit und danach jährlich unterwiesen.</p>
</body></html>`
}

// lawMarkdown is lawHTML's regulation as Markdown, to compare reference resolution with.
func lawMarkdown(title, marker string) string {
	return "# " + title + "\n\n## § 6 Gefährdungsbeurteilung\n\nDer Arbeitgeber beurteilt die Gefährdung durch Gase vor Aufnahme der Tätigkeit und hält das Ergebnis fest.\n\n" +
		"## § 7 Grundpflichten\n\nDie Maßnahmen nach § 6 sind zu dokumentieren. " + marker + "\n\n## § 8 Unterweisung\n\nBeschäftigte werden vor der ersten Tätigkeit und danach jährlich unterwiesen.\n"
}

const odfNamespaces = `xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" ` +
	`xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" ` +
	`xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0" ` +
	`xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0"`

// procedureFODT is an English procedure whose headings are numbered by the outline style, as a
// word processor numbers them: the numbers are not in the text. marker stands in 2.2.
func procedureFODT(marker string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>
<office:document ` + odfNamespaces + ` office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.text">
<office:styles>
 <style:style style:name="Heading_20_1" style:display-name="Heading 1" style:family="paragraph" style:default-outline-level="1"/>
 <style:style style:name="Heading_20_2" style:display-name="Heading 2" style:family="paragraph" style:default-outline-level="2"/>
 <text:outline-style style:name="Outline">
  <text:outline-level-style text:level="1" style:num-format="1"/>
  <text:outline-level-style text:level="2" style:num-format="1" text:display-levels="2"/>
 </text:outline-style>
</office:styles>
<office:body><office:text>
 <text:h text:style-name="Heading_20_1" text:outline-level="1">Scope</text:h>
 <text:p>This procedure covers the gas cabinets of building C.</text:p>
 <text:h text:style-name="Heading_20_1" text:outline-level="1">Cylinder handling</text:h>
 <text:p>Cylinders move on a trolley and are never rolled.</text:p>
 <text:h text:style-name="Heading_20_2" text:outline-level="2">Storage</text:h>
 <text:p>Store cylinders upright and chained at two thirds of their height.</text:p>
 <text:h text:style-name="Heading_20_2" text:outline-level="2">Leak checks</text:h>
 <text:p>` + html.EscapeString(marker) + `</text:p>
</office:text></office:body></office:document>`
}

// slidesFODP is a three-slide deck; marker is on slide 2 and note in its speaker notes.
func slidesFODP(marker, note string) string {
	frame := func(class, style, y, h, text string) string {
		return `<draw:frame presentation:style-name="` + style + `" draw:layer="layout" presentation:class="` + class + `" svg:x="1cm" svg:y="` + y +
			`" svg:width="24cm" svg:height="` + h + `"><draw:text-box><text:p>` + html.EscapeString(text) + `</text:p></draw:text-box></draw:frame>`
	}
	page := func(n int, title, body, notes string) string {
		s := fmt.Sprintf(`<draw:page draw:name="page%d" draw:master-page-name="Default" presentation:presentation-page-layout-name="AL1T1">`, n) +
			frame("title", "pr1", "1cm", "3cm", title) + frame("outline", "pr2", "5cm", "12cm", body)
		if notes != "" {
			s += `<presentation:notes>` + frame("notes", "pr3", "14cm", "10cm", notes) + `</presentation:notes>`
		}
		return s + `</draw:page>`
	}
	return `<?xml version="1.0" encoding="UTF-8"?>
<office:document ` + odfNamespaces + ` office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.presentation">
<office:styles><style:presentation-page-layout style:name="AL1T1">
 <presentation:placeholder presentation:object="title" svg:x="1cm" svg:y="1cm" svg:width="24cm" svg:height="3cm"/>
 <presentation:placeholder presentation:object="outline" svg:x="1cm" svg:y="5cm" svg:width="24cm" svg:height="12cm"/>
</style:presentation-page-layout></office:styles>
<office:automatic-styles><style:page-layout style:name="PM1"/></office:automatic-styles>
<office:master-styles><style:master-page style:name="Default" style:page-layout-name="PM1"/></office:master-styles>
<office:body><office:presentation>` +
		page(1, "Cylinder training", "Welcome to the course on compressed gases.", "") +
		page(2, "Leak checks", marker, note) +
		page(3, "Questions", "Ask the safety officer.", "") +
		`</office:presentation></office:body></office:document>`
}

// sheetsFODS is a workbook of two sheets with header rows; marker is in sheet "Suppliers".
func sheetsFODS(marker string) string {
	row := func(cells ...string) string {
		var b strings.Builder
		b.WriteString(`<table:table-row>`)
		for _, c := range cells {
			b.WriteString(`<table:table-cell office:value-type="string"><text:p>` + html.EscapeString(c) + `</text:p></table:table-cell>`)
		}
		b.WriteString(`</table:table-row>`)
		return b.String()
	}
	return `<?xml version="1.0" encoding="UTF-8"?>
<office:document ` + odfNamespaces + ` office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.spreadsheet">
<office:body><office:spreadsheet>
<table:table table:name="Gases">` + row("Gas", "CAS", "Cylinder") + row("Silane", "7803-62-5", "SiH4-50") + row("Arsine", "7784-42-1", "AsH3-10") + `</table:table>
<table:table table:name="Suppliers">` + row("Supplier", "Remark") + row("Nordgas", marker) + row("Südgas", "Invoices monthly.") + `</table:table>
</office:spreadsheet></office:body></office:document>`
}

// pagedHTML is an English text of two pages, each a numbered heading and a paragraph; the
// paragraphs are what OCR is measured on, so they are plain prose.
func pagedHTML(lang string, pages [2][2]string) string {
	return `<!DOCTYPE html><html lang="` + lang + `"><head><meta charset="utf-8"></head><body>
<h1>1 ` + html.EscapeString(pages[0][0]) + `</h1><p>` + html.EscapeString(pages[0][1]) + `</p>
<h1 style="page-break-before: always">2 ` + html.EscapeString(pages[1][0]) + `</h1><p>` + html.EscapeString(pages[1][1]) + `</p>
</body></html>`
}

var englishPages = [2][2]string{
	{"Storage of compressed gases", "Cylinders are stored upright and secured with a chain at two thirds of their height. " +
		"The valve cap stays on until the cylinder is connected to the regulator, and empty cylinders are marked and kept apart from full ones. " +
		"Violet chalk crosses mark the cylinders that wait for collection."},
	{"Emergency response", "Evacuate the area when the toxic gas alarm sounds and wait for the response team at the assembly point. " +
		"Nobody returns to the building before the all clear is given by the shift supervisor. " +
		"Copper whistles hang beside every cabinet for the evacuation signal."},
}

var germanPages = [2][2]string{
	{"Lagerung von Druckgasflaschen", "Druckgasflaschen werden stehend gelagert und gegen Umfallen gesichert. " +
		"Die Schutzkappe bleibt aufgeschraubt, bis die Flasche an den Druckminderer angeschlossen wird. " +
		"Größere Mengen müssen in belüfteten Schränken außerhalb der Fluchtwege aufbewahrt werden."},
	{"Maßnahmen bei Störungen", "Bei einem Gasalarm verlassen alle Beschäftigten zügig den Raum über den nächsten Fluchtweg. " +
		"Die Einsatzkräfte werden über die Lage der Flaschen und die gelagerten Stoffe unterrichtet. " +
		"Grüne Übungsflaschen stehen für die jährliche Schulung im Lager bereit."},
}
