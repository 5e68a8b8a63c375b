package report

import (
	"fmt"
	"strings"
	"testing"
)

// longReport is a long research report: 40 sections, each with citations, a nested list and
// a table, and 40 references with their quoted passages.
func longReport() *Document {
	s := samples["de"]
	var md strings.Builder
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&md, "## Abschnitt %d\n\nSilan entzündet sich an Luft; die Lagertemperatur bleibt ≤ 40 °C und der Filter hält 5 µm zurück [%d]. "+
			"Die Absaugung erreicht ≥ 0,5 m/s, der Voralarm liegt bei 20 %% UEG, und die Prüffristen folgen § 5 Abs. 2 [%d, %d].\n\n"+
			"- erster Punkt [%d]\n- zweiter Punkt\n  - darunter\n\n| Größe | Wert |\n|---|--:|\n| Temperatur | ≤ 40 °C |\n| Filter | 5 µm |\n\n", i, i, i, (i%40)+1, i)
	}
	s.markdown = md.String()
	d := s.document()
	for i := 4; i <= 40; i++ {
		d.Blocks = append(d.Blocks, Block{Kind: Reference, N: i, Inlines: []Inline{Plain(fmt.Sprintf("dokumente/quelle-%d.pdf, 3.%d, p. %d", i, i, i))}},
			Block{Kind: Quote, Blocks: []Block{Para(Plain(strings.Repeat("Der Arbeitsplatzgrenzwert für Silan beträgt 0,5 ppm. ", 8)))}})
	}
	return d
}

func BenchmarkWrite(b *testing.B) {
	d := longReport()
	for _, f := range Formats {
		b.Run(string(f), func(b *testing.B) {
			var size int
			for b.Loop() {
				data, err := Write(d, f)
				if err != nil {
					b.Fatal(err)
				}
				size = len(data)
			}
			b.ReportMetric(float64(size), "bytes")
		})
	}
}
