//go:build e2e

package docs

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"warren/agent"
	"warren/agent/research"
	"warren/config"
	"warren/kb/chunk"
	"warren/service"
)

// sampleReport is a finished research run, built without a model: its question, plan, sources
// (document, section, page, passage), Markdown report and quality check.
type sampleReport struct {
	lang, question, report string
	sources                []research.Source
	unsupported            research.UnsupportedSentence
}

var sampleReports = []sampleReport{
	{
		lang:     "de",
		question: "Welche Grenzwerte und Lagerbedingungen gelten für Silan im Gaslager?",
		report: "# Silan im Gaslager\n\nSilan entzündet sich spontan an Luft [1]. Der Arbeitsplatzgrenzwert beträgt **0,5 ppm** [2].\n\n" +
			"## Maßnahmen\n\n- Gasschrank mit Absaugung ≥ 0,5 m/s [1, 3]\n  - Durchflussbegrenzer *vor* dem Druckminderer [3]\n- Voralarm bei 20 % UEG [3]\n\n" +
			"| Größe | Wert | Quelle |\n|:--|--:|:-:|\n| Lagertemperatur | ≤ 40 °C | [1] |\n| Partikelfilter | 5 µm | [2] |\n\n" +
			"> Prüffristen gemäß § 5 Abs. 2 GefStoffV.\n\nDie Leckrate beträgt 20 ppm [2] (⚠ unsupported: 20 ppm not stated by source 2).\n",
		sources: []research.Source{
			{N: 1, ChunkID: "sds/silan.pdf#0007", Doc: "sds/silan.pdf", Section: "7.2 Lagerung", PageRef: chunk.PageRef{Page: 3, Kind: chunk.KindPage}, Collection: "sds",
				Excerpt: "Silan entzündet sich spontan an Luft. Lagertemperatur höchstens 40 °C (≤ 40 °C); Flaschen nur im belüfteten Gasschrank lagern."},
			{N: 2, ChunkID: "gesetze/GefStoffV#0012", Doc: "gesetze/GefStoffV", Section: "§ 5", PageRef: chunk.PageRef{Page: 12, Kind: chunk.KindPage}, Collection: "regulatory",
				Excerpt: "Der Arbeitsplatzgrenzwert für Silan beträgt 0,5 ppm; Partikelfilter halten Teilchen über 5 µm zurück."},
			{N: 3, ChunkID: "verfahren/gasschrank.docx#0004", Doc: "verfahren/gasschrank.docx", Section: "3.2 Überwachung", Collection: "internal",
				Excerpt: "Die Gaswarnanlage löst bei 20 % UEG den Voralarm aus; ein Durchflussbegrenzer sitzt vor dem Druckminderer, die Absaugung erreicht ≥ 0,5 m/s."},
		},
		unsupported: research.UnsupportedSentence{Sentence: "Die Leckrate beträgt 20 ppm [2]", Claims: []string{"20 ppm"}, Cited: []int{2}},
	},
	{
		lang:     "en",
		question: "How is a silane cylinder purged before it is disconnected?",
		report: "# Purging silane cylinders\n\nBefore a cylinder is disconnected the pigtail is purged with nitrogen [1]. The purge runs *at least* **five cycles** [1, 2].\n\n" +
			"## Steps\n\n1. Close the cylinder valve [2]\n   - the gauge must read ≤ 0.2 bar\n2. Purge with nitrogen [1–2]\n\n" +
			"| Step | Pressure | Source |\n|---|---|---|\n| vent | 0.2 bar | [2] |\n| purge | 5 bar | [1] |\n\n" +
			"The filter retains particles above 5 µm at 20 °C [3] (⚠ unsupported: 5 µm not stated by source 3).\n",
		sources: []research.Source{
			{N: 1, ChunkID: "procedures/gas-cabinet.md#0009", Doc: "procedures/gas-cabinet.md", Section: "5.2 Purging", PageRef: chunk.PageRef{Page: 4, Kind: chunk.KindPage}, Collection: "internal",
				Excerpt: "Purge the pigtail with nitrogen for at least five cycles before disconnecting the cylinder; record each cycle in the cabinet log."},
			{N: 2, ChunkID: "standards/monitoring.pdf#0003", Doc: "standards/monitoring.pdf", Section: "3 Venting", PageRef: chunk.PageRef{Page: 2, Kind: chunk.KindPage}, Collection: "standards",
				Excerpt: "Close the cylinder valve and vent the line until the gauge reads 0.2 bar or less (≤ 0.2 bar)."},
			{N: 3, ChunkID: "studies/filters.pdf#0001", Doc: "studies/filters.pdf", Section: "Results", PageRef: chunk.PageRef{Page: 7, Kind: chunk.KindPage, OCR: true, OCRConfidence: 91}, Collection: "studies",
				Excerpt: "The filter cartridge is changed every six months; at 20 °C the flow stays within 5 %."},
		},
		unsupported: research.UnsupportedSentence{Sentence: "The filter retains particles above 5 µm at 20 °C [3]", Claims: []string{"5 µm"}, Cited: []int{3}},
	},
}

// recordRun saves s as a finished run of ana's in the workspace, as the research graph would.
func recordRun(t *testing.T, ws, run string, s sampleReport) {
	t.Helper()
	svc, err := service.Open(ws, config.Sources{Flags: map[string]string{"ollama.host": "127.0.0.1:9", "kb.embedder": "builtin"}}, service.Options{Owner: "ana"})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	st := research.State{Question: s.question, Language: s.lang, Report: s.report, Sources: s.sources,
		Plan: []research.Task{{ID: "t1", Query: s.question, Status: "done"}},
		Decisions: []research.Decision{{Kind: research.InterruptPlan, Round: 1, Action: research.DecisionApproved, By: "ana",
			At: time.Date(2026, 3, 4, 9, 0, 0, 0, time.UTC)}},
		Quality: research.Quality{Checked: true, Total: 402, Unsupported: []research.UnsupportedSentence{s.unsupported}}}
	raw, _ := json.Marshal(st)
	ctx := context.Background()
	if err := svc.RunStore().CreateRun(ctx, run, research.GraphName, s.question); err != nil {
		t.Fatal(err)
	}
	if err := svc.RunStore().Save(ctx, agent.Checkpoint{Run: run, Step: 1, Node: "attribute", Status: agent.StatusDone, State: raw}); err != nil {
		t.Fatal(err)
	}
}

// pdfText is a PDF's text as Poppler reads it, its whitespace folded.
func pdfText(t *testing.T, path string) string {
	t.Helper()
	out := run(t, time.Minute, filepath.Dir(path), "pdftotext", "-enc", "UTF-8", path, "-")
	// Ligatures some fonts draw are read back as one character.
	out = strings.NewReplacer("ﬁ", "fi", "ﬂ", "fl", "ﬀ", "ff", "\u00ad", "").Replace(out)
	return strings.Join(strings.Fields(out), " ")
}

// TestExportedReportsReadBack exports a German and an English report as DOCX, ODT, HTML and
// PDF with the real binary, has LibreOffice open each DOCX, ODT and HTML and print it to PDF,
// and reads every PDF, warren's own too, back with pdftotext: every citation number, document
// name, page and quoted passage is there, umlauts and symbols intact.
func TestExportedReportsReadBack(t *testing.T) {
	ws := filepath.Join(scratch, "ws-reports")
	run(t, time.Minute, scratch, warrenBin, "-w", ws, "init")
	for _, s := range sampleReports {
		runID := "report-" + s.lang
		recordRun(t, ws, runID, s)
		want := []string{s.question, "ä", "µ", "°", "≤"}
		if s.lang == "de" {
			want = append(want, "ö", "ü", "ß", "Maßnahmen", "Größe", "Genehmigter Plan", "Anhang: zitierte Textstellen", "Nicht belegte Sätze")
		} else {
			want = want[:1]
			want = append(want, "µ", "°", "≤", "Approved plan", "Appendix: cited passages", "Unsupported sentences")
		}
		for _, src := range s.sources {
			want = append(want, fmt.Sprintf("[%d]", src.N), src.Doc, src.Place(), src.Excerpt)
		}
		out := filepath.Join(scratch, "exports-"+s.lang)
		for _, format := range []string{"docx", "odt", "html", "pdf"} {
			file := filepath.Join(out, format, "report-"+s.lang+"."+format)
			if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			res := run(t, time.Minute, scratch, warrenBin, "-w", ws, "--json", "research", "export", runID, "--format", format, "--out", file)
			took := time.Since(start)
			var got struct {
				Path  string
				Bytes int64
			}
			if err := json.Unmarshal([]byte(res), &got); err != nil || got.Path != file {
				t.Fatalf("export %s %s: %v\n%s", s.lang, format, err, res)
			}
			printed := file
			if format != "pdf" {
				office(t, filepath.Dir(file), filepath.Join(filepath.Dir(file), "printed"), "pdf", "", filepath.Base(file))
				printed = filepath.Join(filepath.Dir(file), "printed", "report-"+s.lang+".pdf")
			}
			text := pdfText(t, printed)
			for _, w := range want {
				if !strings.Contains(text, w) {
					t.Errorf("%s %s read back through %s lacks %q", s.lang, format, filepath.Base(printed), w)
				}
			}
			t.Logf("%s %s: %d bytes, exported in %s (the binary's start included)", s.lang, format, got.Bytes, took.Round(time.Millisecond))
		}
	}
}
