package service

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"warren/agent"
	"warren/agent/research"
	"warren/internal/snippet"
	"warren/kb/chunk"
	"warren/service/audit"
	"warren/service/grants"
)

// silanePassage is a passage of the workspace's safety data sheet: the run cites its
// beginning, the export quotes it whole.
const silanePassage = "Silan entzündet sich spontan an Luft. Lagertemperatur ≤ 40 °C. Flaschen stehen im belüfteten Gasschrank mit Absaugung ≥ 0,5 m/s, geschützt vor Sonne und Wärmequellen."

// finishedRun ingests the safety data sheet and records a finished German run of owner's that
// cites it [1] and a law no longer in the knowledge base [2], with an unsupported sentence.
func finishedRun(t *testing.T, s *Service, run, owner string) {
	t.Helper()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "sds")
	os.MkdirAll(dir, 0o755)
	if err := os.WriteFile(filepath.Join(dir, "silan.md"), []byte("# Silan\n\n## 4.1 Lagerung\n\n"+silanePassage+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Knowledge().Ingest(ctx, nil, IngestOptions{Paths: []string{dir}, Collection: "sds"}); err != nil {
		t.Fatal(err)
	}
	chunks, err := s.store.DocumentChunks(ctx, "sds/silan.md")
	if err != nil || len(chunks) == 0 {
		t.Fatalf("the sheet's passages: %v %v", chunks, err)
	}
	c := chunks[len(chunks)-1]
	st := research.State{Question: "Welche Grenzwerte gelten für Silan im Gaslager?", Language: "de",
		Plan:      []research.Task{{ID: "t1", Query: "Silan Lagerung Grenzwerte", Rationale: "Die Lagerbedingungen stehen im Sicherheitsdatenblatt.", Status: "done"}},
		Decisions: []research.Decision{{Kind: research.InterruptPlan, Round: 1, Action: research.DecisionApproved, By: owner, At: time.Date(2026, 3, 4, 9, 0, 0, 0, time.UTC)}},
		Findings:  []research.Finding{{Task: "t1", ChunkID: c.ID, Doc: c.Doc, Collection: "sds", Section: c.Section}},
		Sources: []research.Source{
			{N: 1, ChunkID: c.ID, Doc: c.Doc, Section: c.Section, Collection: "sds", Excerpt: snippet.Cut(c.Text, 60)},
			{N: 2, ChunkID: "gesetze/GefStoffV#0004", Doc: "gesetze/GefStoffV", Section: "§ 5", PageRef: chunk.PageRef{Page: 12, Kind: chunk.KindPage}, Collection: "sds", Excerpt: "Der Arbeitsplatzgrenzwert für Silan beträgt 0,5 ppm."},
		},
		Report: "# Silan im Gaslager\n\nSilan entzündet sich an Luft [1].\n\n| Größe | Wert |\n|---|--:|\n| Temperatur | ≤ 40 °C [1] |\n\n" +
			"- Absaugung ≥ 0,5 m/s [1]\n  - Grenzwert 0,5 ppm [2]\n\nDie Leckrate beträgt 20 ppm [2] (⚠ unsupported: 20 ppm not stated by source 2).\n",
		Quality: research.Quality{Checked: true, Total: 410, Problems: []string{"paragraph 4 has no citation: \"x\""},
			Unsupported: []research.UnsupportedSentence{{Sentence: "Die Leckrate beträgt 20 ppm [2]", Claims: []string{"20 ppm"}, Cited: []int{2}}}}}
	store := s.RunStore()
	if err := store.CreateRun(ctx, run, research.GraphName, "silan"); err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(st)
	if err := store.Save(ctx, agent.Checkpoint{Run: run, Step: 1, Node: "attribute", Status: agent.StatusDone, State: raw}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ws.DB.ExecContext(ctx, `INSERT INTO jobs (id, kind, owner, title, state, created_at, updated_at)
VALUES (?, 'research', ?, 'silan', 'done', '', '')`, run, owner); err != nil {
		t.Fatal(err)
	}
}

// docText is the text of a DOCX's or ODT's body, a line per paragraph.
func docText(t *testing.T, path string) string {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	for _, f := range zr.File {
		if f.Name != "word/document.xml" && f.Name != "content.xml" {
			continue
		}
		rc, _ := f.Open()
		data, _ := io.ReadAll(rc)
		rc.Close()
		text := regexp.MustCompile(`</(w|text):(p|h)>`).ReplaceAll(data, []byte("\n"))
		text = regexp.MustCompile(`<[^>]+>`).ReplaceAll(text, nil)
		return strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&", "&#34;", `"`, "&#39;", "'").Replace(string(text))
	}
	t.Fatalf("%s has no body", path)
	return ""
}

func TestExportWritesEachFormatIntoExports(t *testing.T) {
	s := openService(t)
	ctx := context.Background()
	const run = "run-silan"
	finishedRun(t, s, run, "ana")
	exports := filepath.Join(s.ws.Dir, "exports")
	for _, f := range ReportFormats() {
		path, err := s.Research().Export(ctx, run, f, "")
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if want := filepath.Join(exports, "research-"+run+"."+f); path != want {
			t.Errorf("%s went to %s, want %s", f, path, want)
		}
		data, err := os.ReadFile(path)
		if err != nil || len(data) == 0 {
			t.Fatalf("%s: %v", f, err)
		}
		var text string
		switch f {
		case "docx", "odt":
			text = docText(t, path)
		case "pdf":
			if !bytes.HasPrefix(data, []byte("%PDF-")) {
				t.Errorf("the PDF begins %q", data[:8])
			}
			continue // read back by the report package's tests and e2e-docs
		default:
			text = string(data)
		}
		text = strings.Join(strings.Fields(text), " ")
		want := []string{"[1]", "[2]", "sds/silan.md", "gesetze/GefStoffV", "≤ 40 °C", "≥ 0,5 m/s"}
		if f != "md" { // Markdown is the report file as it always was
			want = append(want, "Welche Grenzwerte gelten für Silan im Gaslager?")
			// The document's own parts: the plan and who approved it, the reference's page,
			// the whole passage (beyond the run's excerpt), the unsupported sentence.
			want = append(want, "Genehmigter Plan", "Genehmigt von ana am 2026-03-04 09:00 UTC.", "§ 5, p. 12", silanePassage,
				"Der Arbeitsplatzgrenzwert für Silan beträgt 0,5 ppm.", "Nicht belegte Sätze", "20 ppm nicht belegt durch Quelle", "Bewertung: 410 von 500",
				"paragraph 4 has no citation")
		}
		for _, w := range want {
			if f == "html" {
				w = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;").Replace(w)
			}
			if !strings.Contains(text, w) {
				t.Errorf("%s lacks %q", f, w)
			}
		}
	}
	// Written whole: no temporary file is left beside the exports.
	entries, _ := os.ReadDir(exports)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("a temporary file is left in exports/: %s", e.Name())
		}
	}
	// Each export is in the audit trail with its format.
	var formats []string
	for _, e := range trail(t, s, audit.Filter{}) {
		if e.Action == audit.ActionExport && e.Outcome == audit.OK {
			var detail map[string]any
			json.Unmarshal([]byte(e.Detail), &detail)
			formats = append(formats, detail["format"].(string))
		}
	}
	if strings.Join(formats, ",") != strings.Join(ReportFormats(), ",") {
		t.Errorf("the trail's exports: %v", formats)
	}
	// Outside serve, --out names any file.
	out := filepath.Join(t.TempDir(), "bericht.docx")
	if path, err := s.Research().Export(ctx, run, "docx", out); err != nil || path != out {
		t.Errorf("export to %s: %s %v", out, path, err)
	}
}

func TestExportSaysWhatIsWrong(t *testing.T) {
	s := openService(t)
	ctx := context.Background()
	finishedRun(t, s, "run-silan", "ana")
	for _, tc := range []struct{ run, format, want string }{
		{"run-silan", "rtf", `unknown format "rtf": choose one of md, docx, odt, pdf, html`},
		{"run-none", "docx", "`warren sessions list` shows the runs"},
		{"../run-silan", "docx", "a run name has no folders in it"},
	} {
		if _, err := s.Research().Export(ctx, tc.run, tc.format, ""); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s as %s: %v, want %q", tc.run, tc.format, err, tc.want)
		}
	}
	// A run without a report yet.
	raw, _ := json.Marshal(research.State{Question: "q"})
	s.RunStore().CreateRun(ctx, "run-waiting", research.GraphName, "q")
	s.RunStore().Save(ctx, agent.Checkpoint{Run: "run-waiting", Step: 1, Node: "refine", Status: agent.StatusInterrupted, State: raw})
	if _, err := s.Research().Export(ctx, "run-waiting", "pdf", ""); err == nil || !strings.Contains(err.Error(), "it has no report yet (it is interrupted)") {
		t.Errorf("a run without a report: %v", err)
	}
}

func TestServedAnalystsExportIntoExportsOnly(t *testing.T) {
	s := openService(t)
	ctx := context.Background()
	finishedRun(t, s, "run-silan", "alice")
	alice := s.As("alice", false).Served()
	shown, err := alice.Research().Export(ctx, "run-silan", "pdf", "")
	if err != nil || shown != "exports/research-run-silan.pdf" {
		t.Errorf("alice's export: %q %v", shown, err)
	}
	if shown, err := alice.Research().Export(ctx, "run-silan", "html", "bericht.html"); err != nil || shown != "exports/bericht.html" {
		t.Errorf("alice's export by name: %q %v", shown, err)
	} else if _, err := os.Stat(filepath.Join(s.ws.Dir, "exports", "bericht.html")); err != nil {
		t.Error(err)
	}
	elsewhere := filepath.Join(t.TempDir(), "x.docx")
	for _, out := range []string{elsewhere, "../x.docx", "sub/x.docx", ".."} {
		_, err := alice.Research().Export(ctx, "run-silan", "docx", out)
		if err == nil || !strings.Contains(err.Error(), "exports go into the workspace's exports folder") || strings.Contains(err.Error(), s.ws.Dir) {
			t.Errorf("alice exporting to %q: %v", out, err)
		}
	}
	if _, err := os.Stat(elsewhere); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a served export was written outside exports/: %v", err)
	}
	// An admin of serve sees where the file is; its folder is still exports/.
	lead := s.As("lead", true).Served()
	if shown, err := lead.Research().Export(ctx, "run-silan", "odt", ""); err != nil || shown != filepath.Join(s.ws.Dir, "exports", "research-run-silan.odt") {
		t.Errorf("the admin's export: %q %v", shown, err)
	}
}

func TestExportIsRefusedForARunOfACollectionTheAnalystMayNotRead(t *testing.T) {
	s := confidentialWorkspace(t)
	ctx := context.Background()
	grant(t, s, "bob", "confidential", grants.None)
	grant(t, s, "carol", "confidential", grants.Read)
	const run = "run-bluefinch"
	alicesRun(t, s, run)
	bob := s.As("bob", false).Served()
	for _, f := range ReportFormats() {
		shown, err := bob.Research().Export(ctx, run, f, "")
		if !errors.Is(err, ErrNoAccess) || err.Error() != bobsRefusal || shown != "" {
			t.Errorf("bob exporting alice's report as %s: %q %v", f, shown, err)
		}
	}
	if _, err := os.Stat(filepath.Join(s.ws.Dir, "exports", "research-"+run+".docx")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("bob's refused export left a file: %v", err)
	}
	es := trail(t, s, audit.Filter{Analyst: "bob"})
	if len(es) == 0 || es[len(es)-1].Action != audit.ActionExport || es[len(es)-1].Outcome != audit.Refused || !strings.Contains(es[len(es)-1].Detail, `"format":"html"`) {
		t.Errorf("bob's refused export in the trail: %+v", es)
	}
	carol := s.As("carol", false).Served()
	shown, err := carol.Research().Export(ctx, run, "docx", "")
	if err != nil {
		t.Fatalf("carol's export: %v", err)
	}
	if text := docText(t, filepath.Join(s.ws.Dir, shown)); !strings.Contains(text, secret) {
		t.Errorf("carol's export lacks the confidential passage:\n%s", text)
	}
}

func TestGasSummaryAndToxProfileExportAsDocuments(t *testing.T) {
	s, _ := deskService(t)
	ctx := context.Background()
	// The filled boiling point cites a passage on a page; the others name only the document.
	tab, _ := s.Gas().Table(ctx, "fab")
	c := tab.Row(1).Cells["boiling_point_c"]
	c.SourceSection, c.SourcePage, c.Excerpt = "9.1", chunk.PageRef{Page: 4, Kind: chunk.KindPage}, "Siedepunkt: −112 °C bei 1013 hPa."
	tab.Row(1).Set("boiling_point_c", c)
	if err := s.GasStore().SaveTable(ctx, tab); err != nil {
		t.Fatal(err)
	}
	path, err := s.Gas().ExportSummary(ctx, "", "docx", "")
	if err != nil || path != filepath.Join(s.ws.Dir, "exports", "gas-fab.docx") {
		t.Fatalf("gas summary: %q %v", path, err)
	}
	text := strings.Join(strings.Fields(docText(t, path)), " ")
	for _, w := range []string{"Gas table fab", "Silane", "UN2203", "-112 °C", "review", "rejected by the analyst: was -50 °C", "[1]",
		"suppliers/silane.md, 9.1, p. 4", "Siedepunkt: −112 °C bei 1013 hPa."} {
		if !strings.Contains(text, w) {
			t.Errorf("the gas summary lacks %q", w)
		}
	}
	if strings.Contains(text, "Nitrogen") {
		t.Error("the summary lists values from the sheet")
	}

	x := toxService(t)
	path, err = x.Tox().Export(ctx, "eugenol", "odt", "")
	if err != nil || path != filepath.Join(x.ws.Dir, "exports", "tox-EUGENOL.odt") {
		t.Fatalf("tox export: %q %v", path, err)
	}
	if text := docText(t, path); !strings.Contains(text, "Toxicology profile: EUGENOL") || !strings.Contains(text, "Points of departure") {
		t.Errorf("the profile's document:\n%s", text)
	}
	if _, err := x.Tox().Export(ctx, "NOPE", "pdf", ""); err == nil || !strings.Contains(err.Error(), "warren tox list") {
		t.Errorf("an unknown ingredient: %v", err)
	}
	for _, who := range []*Service{s, x} {
		es := trail(t, who, audit.Filter{})
		if len(es) == 0 || es[len(es)-1].Action != audit.ActionExport {
			t.Errorf("the export is not in the trail: %+v", es)
		}
	}
}
