package report

import (
	"fmt"
	"time"
)

// sample is a small research report in lang ("de" or "en") as the service builds one: its
// facts, the approved plan, the report read from Markdown (headings, nested lists, a table,
// a quote, code, citations and a flagged sentence), the quality check, the references and
// the cited passages.
type sample struct {
	lang     string
	question string
	markdown string
	refs     []sampleRef
	labels   map[string]string
}

type sampleRef struct {
	n                int
	doc, place, coll string
	passage          string
}

var samples = map[string]sample{
	"de": {
		lang:     "de",
		question: "Welche Grenzwerte gelten für Silan im Gaslager?",
		markdown: "# Silan im Gaslager\n\n" +
			"Silan ist pyrophor und entzündet sich an Luft [1]. Der Arbeitsplatzgrenzwert liegt bei **0,5 ppm** [2].\n\n" +
			"## Maßnahmen\n\n" +
			"- Gasschrank mit Absaugung ≥ 0,5 m/s [1, 2]\n  - Durchflussbegrenzer *vor* dem Druckminderer [3]\n- Gaswarnanlage mit Voralarm bei 20 % UEG [3]\n\n" +
			"3. Flasche schließen\n4. Mit Stickstoff spülen\n\n" +
			"| Größe | Wert | Quelle |\n|:--|--:|:-:|\n| Lagertemperatur | ≤ 40 °C | [1] |\n| Partikelfilter | 5 µm | [2] |\n\n" +
			"> Prüffristen gemäß § 5 Abs. 2 <GefStoffV> & TRGS 407.\n\n" +
			"```\nventil --schließen 0,5 µm\n```\n\n" +
			"Die Leckrate beträgt 20 ppm [2] (⚠ unsupported: 20 ppm not stated by source [2]).\n",
		refs: []sampleRef{
			{1, "sds/silan.pdf", "4.1, p. 3", "sds", "Silan entzündet sich spontan an Luft. Lagertemperatur ≤ 40 °C."},
			{2, "gesetze/GefStoffV", "§ 5, p. 12", "regulatory", "Der Arbeitsplatzgrenzwert für Silan beträgt 0,5 ppm; Partikelfilter 5 µm."},
			{3, "verfahren/gasschrank.docx", "3.2 Überwachung", "internal", "Die Gaswarnanlage löst bei 20 % UEG den Voralarm aus; ein Durchflussbegrenzer sitzt vor dem Druckminderer."},
		},
		labels: map[string]string{"title": "Recherchebericht", "question": "Frage", "date": "Datum", "analyst": "Analyst",
			"plan": "Genehmigter Plan", "report": "Bericht", "quality": "Qualitätsprüfung", "refs": "Quellen", "passages": "Anhang: zitierte Textstellen",
			"unsupported": "Nicht belegt"},
	},
	"en": {
		lang:     "en",
		question: "How is a silane cylinder purged before it is disconnected?",
		markdown: "# Purging silane cylinders\n\n" +
			"Before a cylinder is disconnected the line is purged with nitrogen [1]. The purge runs *at least* **five cycles** [1, 2].\n\n" +
			"## Steps\n\n" +
			"1. Close the cylinder valve [2]\n   - check the gauge reads ≤ 0.2 bar\n2. Purge with nitrogen [1–2]\n\n" +
			"| Step | Pressure | Source |\n|---|---|---|\n| vent | 0.2 bar | [2] |\n| purge | 5 bar | [1] |\n\n" +
			"> Operators wear a self-contained breathing apparatus.\n\n" +
			"The filter retains particles above 5 µm at 20 °C [3] (⚠ unsupported: 5 µm not stated by source [3]).\n",
		refs: []sampleRef{
			{1, "procedures/gas-cabinet.md", "5.2, p. 4", "internal", "Purge the pigtail with nitrogen for at least five cycles before disconnecting the cylinder."},
			{2, "standards/monitoring.pdf", "3", "standards", "Close the cylinder valve and vent the line until the gauge reads 0.2 bar or less."},
			{3, "studies/filters.pdf", "p. 7, read by OCR, 91 % confidence", "studies", "The filter cartridge is changed every six months."},
		},
		labels: map[string]string{"title": "Research report", "question": "Question", "date": "Date", "analyst": "Analyst",
			"plan": "Approved plan", "report": "Report", "quality": "Quality check", "refs": "References", "passages": "Appendix: cited passages",
			"unsupported": "Unsupported"},
	},
}

// document builds the sample's Document.
func (s sample) document() *Document {
	l := s.labels
	d := &Document{Lang: s.lang, Title: l["title"], Author: "ana", Created: time.Date(2026, 3, 4, 9, 30, 0, 0, time.UTC),
		Meta: []Field{{l["question"], s.question}, {l["date"], "2026-03-04"}, {l["analyst"], "ana"}}}
	d.Blocks = append(d.Blocks, Head(1, l["plan"]),
		Block{Kind: List, Ordered: true, Items: [][]Block{{Para(Plain(s.question))}, {Para(Plain("Grenzwerte / limit values"))}}})
	d.Blocks = append(d.Blocks, Head(1, l["report"]))
	d.Blocks = append(d.Blocks, FromMarkdown(s.markdown, MarkdownOptions{Shift: 1, Mark: "⚠ unsupported:"})...)
	d.Blocks = append(d.Blocks, Head(1, l["quality"]),
		Block{Kind: Note, Warn: true, Blocks: []Block{Para(Inline{Text: l["unsupported"] + ": ", Bold: true}, Inline{Text: "20 ppm", Flag: true})}})
	d.Blocks = append(d.Blocks, Head(1, l["refs"]))
	for _, r := range s.refs {
		d.Blocks = append(d.Blocks, Block{Kind: Reference, N: r.n, Inlines: []Inline{{Text: r.doc, Bold: true}, Plain(", " + r.place + " (" + r.coll + ")")}})
	}
	d.Blocks = append(d.Blocks, Head(1, l["passages"]))
	for _, r := range s.refs {
		d.Blocks = append(d.Blocks, Para(Inline{Text: fmt.Sprintf("[%d] %s, %s", r.n, r.doc, r.place), Bold: true}),
			Block{Kind: Quote, Blocks: []Block{Para(Plain(r.passage))}})
	}
	return d
}
