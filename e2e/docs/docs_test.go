//go:build e2e

package docs

import (
	"bytes"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"warren/kb/load/loadtest"
)

var warrenBin, scratch string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "warren-e2e-docs-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	scratch = dir
	warrenBin = filepath.Join(dir, "warren")
	if out, err := exec.Command("go", "build", "-o", warrenBin, "../../cmd/warren").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building warren: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// run runs a program with a deadline and fails the test, with its output, when it fails.
func run(tb testing.TB, deadline time.Duration, dir, name string, args ...string) string {
	tb.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		tb.Fatalf("%s: %v (make e2e-docs installs LibreOffice, Tesseract and Poppler)", name, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			tb.Fatalf("%s %s: %v\n%s%s", name, strings.Join(args, " "), err, stdout.String(), stderr.String())
		}
	case <-time.After(deadline):
		cmd.Process.Kill()
		tb.Fatalf("%s %s: still running after %s", name, strings.Join(args, " "), deadline)
	}
	return stdout.String()
}

// office has LibreOffice convert files in dir to a format, into out; a private profile keeps it
// from meeting a user's running office suite.
func office(tb testing.TB, dir, out, to, infilter string, files ...string) {
	tb.Helper()
	args := []string{"--headless", "-env:UserInstallation=file://" + filepath.Join(scratch, "lo-profile"), "--convert-to", to, "--outdir", out}
	if infilter != "" {
		args = append(args, "--infilter="+infilter)
	}
	run(tb, 3*time.Minute, dir, "soffice", append(args, files...)...)
	for _, f := range files {
		ext := to
		if i := strings.IndexByte(ext, ':'); i >= 0 {
			ext = ext[:i]
		}
		want := filepath.Join(out, strings.TrimSuffix(f, filepath.Ext(f))+"."+ext)
		if _, err := os.Stat(want); err != nil {
			tb.Fatalf("LibreOffice wrote no %s: %v", want, err)
		}
	}
}

func write(tb testing.TB, path, text string) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// Markers: each sentence stands in one file, so a search for it must put that file first.
const (
	markerLawWord  = "Quarzblaue Flaschenventile werden monatlich geprüft."
	markerLawODT   = "Bernsteinfarbene Druckminderer werden jährlich getauscht."
	markerLawMD    = "Rostrote Prüfplaketten kleben am Flaschenhals."
	markerLawMail  = "Smaragdgrüne Schlauchschellen werden wöchentlich ersetzt."
	markerProcWord = "Saffron tags mark a cylinder that failed its leak check."
	markerProcODT  = "Teal tags mark a regulator that is due for service."
	markerPPTX     = "Amber snoop fluid bubbles reveal a leaking fitting."
	notePPTX       = "Show the class the torque wrench kept in the blue case."
	markerODP      = "Lilac snoop fluid foams over a loose union nut."
	noteODP        = "Hand out the pocket cards with the emergency numbers."
	markerXLSX     = "Delivers cobalt-green cylinder caps on Tuesdays."
	markerODS      = "Delivers ochre cylinder caps on Fridays."
	markerCSV      = "Umber pallets arrive before noon."
	markerMail     = "Indigo folders hold the signed permits for the audit."
	markerEnPage1  = "Violet chalk crosses mark the cylinders that wait for collection."
	markerEnPage2  = "Copper whistles hang beside every cabinet for the evacuation signal."
	markerDePage1  = "Weiße Prüfetiketten zeigen das Datum der nächsten Druckprüfung."
	markerDePage2  = "Grüne Übungsflaschen stehen für die jährliche Schulung im Lager bereit."
)

// The collections the documents are ingested into, one folder each: office documents; text
// PDFs; the same pages scanned; a PDF of a text page and a scanned one; image files.
var collections = []string{"office", "text", "scan", "mixed", "images"}

var (
	prepareOnce sync.Once
	prepared    string
	prepareErr  string
)

// documents writes the sources, has LibreOffice and Poppler make the documents and returns the
// folder that holds one subfolder per collection. It runs once for the whole suite.
func documents(tb testing.TB) string {
	tb.Helper()
	prepareOnce.Do(func() {
		ft := &fatalRecorder{TB: tb}
		func() {
			defer func() {
				if r := recover(); r != nil && r != errFatal {
					panic(r)
				}
			}()
			prepared = makeDocuments(ft)
		}()
		prepareErr = ft.msg
	})
	if prepareErr != "" {
		tb.Fatal(prepareErr)
	}
	return prepared
}

func makeDocuments(tb testing.TB) string {
	root := filepath.Join(scratch, "docs")
	src := filepath.Join(scratch, "src")
	for _, c := range collections {
		if err := os.MkdirAll(filepath.Join(root, c), 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	convert := func(out, to, infilter string, files ...string) {
		office(tb, src, filepath.Join(root, out), to, infilter, files...)
	}
	start := time.Now()

	write(tb, filepath.Join(src, "law-word.html"), lawHTML("Musterverordnung über Gase", markerLawWord))
	write(tb, filepath.Join(src, "law-odt.html"), lawHTML("Musterverordnung über Gase", markerLawODT))
	write(tb, filepath.Join(src, "law-mail.html"), lawHTML("Musterverordnung über Gase", markerLawMail))
	write(tb, filepath.Join(root, "office", "law.md"), lawMarkdown("Musterverordnung über Gase", markerLawMD))
	write(tb, filepath.Join(src, "procedure-word.fodt"), procedureFODT(markerProcWord))
	write(tb, filepath.Join(src, "procedure-odt.fodt"), procedureFODT(markerProcODT))
	write(tb, filepath.Join(src, "slides-pptx.fodp"), slidesFODP(markerPPTX, notePPTX))
	write(tb, filepath.Join(src, "slides-odp.fodp"), slidesFODP(markerODP, noteODP))
	write(tb, filepath.Join(src, "sheets-xlsx.fods"), sheetsFODS(markerXLSX))
	write(tb, filepath.Join(src, "sheets-ods.fods"), sheetsFODS(markerODS))
	write(tb, filepath.Join(root, "office", "deliveries.csv"), "Supplier,Day,Remark\nNordgas,Monday,Pallets are wrapped.\nSüdgas,Wednesday,"+markerCSV+"\n")
	en, de := englishPages, germanPages
	en[0][1] += " " + markerEnPage1
	en[1][1] += " " + markerEnPage2
	de[0][1] += " " + markerDePage1
	de[1][1] += " " + markerDePage2
	write(tb, filepath.Join(src, "handbook.html"), pagedHTML("en", en))
	write(tb, filepath.Join(src, "handbuch.html"), pagedHTML("de", de))

	convert("office", "docx:MS Word 2007 XML", "HTML (StarWriter)", "law-word.html", "law-mail.html")
	convert("office", "odt", "HTML (StarWriter)", "law-odt.html")
	convert("office", "docx:MS Word 2007 XML", "", "procedure-word.fodt")
	convert("office", "odt", "", "procedure-odt.fodt")
	convert("office", "pptx", "", "slides-pptx.fodp")
	convert("office", "odp", "", "slides-odp.fodp")
	convert("office", "xlsx", "", "sheets-xlsx.fods")
	convert("office", "ods", "", "sheets-ods.fods")
	convert("text", "pdf", "HTML (StarWriter)", "handbook.html", "handbuch.html")

	// The law as a Word file attached to an e-mail; the Word file itself is not in the folder.
	attached := filepath.Join(root, "office", "law-mail.docx")
	data, err := os.ReadFile(attached)
	if err != nil {
		tb.Fatal(err)
	}
	os.Remove(attached)
	write(tb, filepath.Join(root, "office", "notice.eml"), mail(markerMail, "musterverordnung.docx", data))

	// Scans: each page of the text PDFs at 300 dpi, and back into PDFs that are images only.
	scans := filepath.Join(scratch, "scans")
	os.MkdirAll(scans, 0o755)
	for _, name := range []string{"handbook", "handbuch"} {
		run(tb, time.Minute, scans, "pdftoppm", "-r", "300", "-gray", "-png", filepath.Join(root, "text", name+".pdf"), name)
	}
	office(tb, scans, scans, "pdf", "", "handbook-1.png", "handbook-2.png", "handbuch-1.png", "handbuch-2.png")
	for _, p := range []string{"handbook-1.pdf", "handbook-2.pdf", "handbuch-1.pdf", "handbuch-2.pdf"} {
		if fonts := run(tb, time.Minute, scans, "pdffonts", p); strings.Count(fonts, "\n") > 2 {
			tb.Fatalf("%s was to be an image only, yet has fonts:\n%s", p, fonts)
		}
	}
	run(tb, time.Minute, scans, "pdfunite", "handbook-1.pdf", "handbook-2.pdf", filepath.Join(root, "scan", "handbook-scan.pdf"))
	run(tb, time.Minute, scans, "pdfunite", "handbuch-1.pdf", "handbuch-2.pdf", filepath.Join(root, "scan", "handbuch-scan.pdf"))
	run(tb, time.Minute, scans, "pdfseparate", "-f", "1", "-l", "1", filepath.Join(root, "text", "handbook.pdf"), "text-%d.pdf")
	run(tb, time.Minute, scans, "pdfunite", "text-1.pdf", "handbook-2.pdf", filepath.Join(root, "mixed", "handbook-mixed.pdf"))
	// Image files: a PNG, a JPEG and a TIFF, each of one page.
	copyFile(tb, filepath.Join(scans, "handbook-1.png"), filepath.Join(root, "images", "handbook-1.png"))
	run(tb, time.Minute, filepath.Join(root, "images"), "pdftoppm", "-r", "300", "-gray", "-jpeg", "-f", "2", "-l", "2", "-singlefile", filepath.Join(root, "text", "handbook.pdf"), "handbook-2")
	run(tb, time.Minute, filepath.Join(root, "images"), "pdftoppm", "-r", "300", "-gray", "-tiff", "-f", "1", "-l", "1", "-singlefile", filepath.Join(root, "text", "handbuch.pdf"), "handbuch-1")
	tb.Logf("e2e-docs: LibreOffice and Poppler wrote the documents in %s", time.Since(start).Round(time.Millisecond))
	return root
}

// mail is a MIME message with a text body and one attachment.
func mail(body, name string, attachment []byte) string {
	enc := base64.StdEncoding.EncodeToString(attachment)
	var lines []string
	for len(enc) > 76 {
		lines, enc = append(lines, enc[:76]), enc[76:]
	}
	lines = append(lines, enc)
	return "From: Safety Office <safety@example.org>\r\nTo: Lab C <lab-c@example.org>\r\nSubject: New regulation for the gas cabinets\r\n" +
		"Date: Tue, 03 Nov 2026 09:30:00 +0100\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"b1\"\r\n\r\n" +
		"--b1\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nHello all,\r\n\r\n" + body + "\r\nThe regulation is attached.\r\n\r\n" +
		"--b1\r\nContent-Type: application/vnd.openxmlformats-officedocument.wordprocessingml.document; name=\"" + name + "\"\r\n" +
		"Content-Disposition: attachment; filename=\"" + name + "\"\r\nContent-Transfer-Encoding: base64\r\n\r\n" +
		strings.Join(lines, "\r\n") + "\r\n--b1--\r\n"
}

func copyFile(tb testing.TB, from, to string) {
	tb.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		tb.Fatal(err)
	}
}

var (
	workspaceOnce sync.Once
	workspace     string
)

// ingested is a workspace holding every collection, ingested once with the real binary.
func ingested(t *testing.T) string {
	t.Helper()
	root := documents(t)
	workspaceOnce.Do(func() {
		ws := filepath.Join(scratch, "ws")
		run(t, time.Minute, scratch, warrenBin, "-w", ws, "init")
		for _, c := range collections {
			out := run(t, 10*time.Minute, scratch, warrenBin, "-w", ws, "--json", "ingest", "--collection", c, filepath.Join(root, c))
			var rep struct {
				Files []struct {
					Path, Doc, Status, Reason string
				} `json:"files"`
				Skipped, Failed int
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatalf("ingest %s: %v\n%s", c, err, out)
			}
			for _, f := range rep.Files {
				t.Logf("ingest %s: %s %s %s", c, f.Doc, f.Status, f.Reason)
			}
			if rep.Skipped+rep.Failed > 0 {
				t.Fatalf("ingest %s: %d skipped, %d failed:\n%s", c, rep.Skipped, rep.Failed, out)
			}
		}
		workspace = ws
	})
	if workspace == "" {
		t.Fatal("the workspace could not be ingested (see the first test's failure)")
	}
	return workspace
}

// hit is what `warren search --json` says of a passage.
type hit struct {
	Doc           string  `json:"doc"`
	Section       string  `json:"section"`
	Heading       string  `json:"heading"`
	Text          string  `json:"text"`
	Page          int     `json:"page"`
	PageKind      string  `json:"page_kind"`
	OCR           bool    `json:"ocr"`
	OCRConfidence float64 `json:"ocr_confidence"`
}

func search(t *testing.T, ws, collection, query string) []hit {
	t.Helper()
	out := run(t, time.Minute, scratch, warrenBin, "-w", ws, "--json", "search", "--collection", collection, query)
	var hits []hit
	if err := json.Unmarshal([]byte(out), &hits); err != nil {
		t.Fatalf("search %q: %v\n%s", query, err, out)
	}
	if len(hits) == 0 {
		t.Fatalf("search %q in %s found nothing", query, collection)
	}
	return hits
}

func TestEveryFormatPutsItsMarkerFirst(t *testing.T) {
	ws := ingested(t)
	for _, tc := range []struct {
		collection, query string
		doc               string // the document, or the start of its ID for an attachment ("…/")
		section           string // the section's number, else its heading
		page              int
		pageKind          string
		ocr               bool
	}{
		{"office", markerLawWord, "office/law-word.docx", "§ 7", 0, "", false},
		{"office", markerLawODT, "office/law-odt.odt", "§ 7", 0, "", false},
		{"office", markerLawMD, "office/law.md", "§ 7", 0, "", false},
		{"office", markerLawMail, "office/notice.eml/", "§ 7", 0, "", false},
		{"office", markerMail, "office/notice.eml", "", 0, "", false},
		{"office", markerProcWord, "office/procedure-word.docx", "2.2", 0, "", false},
		{"office", markerProcODT, "office/procedure-odt.odt", "2.2", 0, "", false},
		{"office", markerPPTX, "office/slides-pptx.pptx", "", 2, "slide", false},
		{"office", notePPTX, "office/slides-pptx.pptx", "", 2, "slide", false},
		{"office", markerODP, "office/slides-odp.odp", "", 2, "slide", false},
		{"office", noteODP, "office/slides-odp.odp", "", 2, "slide", false},
		{"office", markerXLSX, "office/sheets-xlsx.xlsx", "Suppliers", 0, "", false},
		{"office", markerODS, "office/sheets-ods.ods", "Suppliers", 0, "", false},
		{"office", markerCSV, "office/deliveries.csv", "", 0, "", false},
		{"text", markerEnPage1, "text/handbook.pdf", "1", 1, "page", false},
		{"text", markerEnPage2, "text/handbook.pdf", "2", 2, "page", false},
		{"text", markerDePage2, "text/handbuch.pdf", "2", 2, "page", false},
		{"scan", markerEnPage2, "scan/handbook-scan.pdf", "", 2, "page", true},
		{"scan", markerDePage2, "scan/handbuch-scan.pdf", "", 2, "page", true},
		{"mixed", markerEnPage1, "mixed/handbook-mixed.pdf", "1", 1, "page", false},
		{"mixed", markerEnPage2, "mixed/handbook-mixed.pdf", "", 2, "page", true},
		{"images", markerEnPage1, "images/handbook-1.png", "", 0, "", true},
		{"images", markerEnPage2, "images/handbook-2.jpg", "", 0, "", true},
		{"images", markerDePage1, "images/handbuch-1.tif", "", 0, "", true},
	} {
		t.Run(tc.doc+" "+tc.query[:12], func(t *testing.T) {
			top := search(t, ws, tc.collection, tc.query)[0]
			docOK := top.Doc == tc.doc || strings.HasSuffix(tc.doc, "/") && strings.HasPrefix(top.Doc, tc.doc)
			if !docOK {
				t.Fatalf("the top passage is from %s (%s %s), want %s: %q", top.Doc, top.Section, top.Heading, tc.doc, top.Text)
			}
			label := top.Section
			if label == "" {
				label = top.Heading
			}
			if tc.section != "" && label != tc.section {
				t.Errorf("section %q (heading %q), want %q", top.Section, top.Heading, tc.section)
			}
			if top.Page != tc.page || top.PageKind != tc.pageKind {
				t.Errorf("page %d (%q), want %d (%q)", top.Page, top.PageKind, tc.page, tc.pageKind)
			}
			if top.OCR != tc.ocr || tc.ocr && (top.OCRConfidence <= 0 || top.OCRConfidence > 100) {
				t.Errorf("read by OCR %v with confidence %.1f, want OCR %v", top.OCR, top.OCRConfidence, tc.ocr)
			}
		})
	}
}

// A reference in the Word and the OpenDocument law text resolves as in its Markdown twin.
func TestReferencesInOfficeLawTextsResolveAsInMarkdown(t *testing.T) {
	ws := ingested(t)
	for _, doc := range []string{"office/law.md", "office/law-word.docx", "office/law-odt.odt"} {
		out := run(t, time.Minute, scratch, warrenBin, "-w", ws, "--json", "refs", "resolve", "--from", doc, "--section", "§ 7",
			"Die Maßnahmen nach § 6 sind zu dokumentieren.")
		var results []struct {
			Target   string `json:"target"`
			Resolved *struct {
				Doc      string   `json:"doc"`
				Section  string   `json:"section"`
				ChunkIDs []string `json:"chunk_ids"`
			} `json:"resolved"`
		}
		if err := json.Unmarshal([]byte(out), &results); err != nil {
			t.Fatalf("%s: %v\n%s", doc, err, out)
		}
		if len(results) != 1 || results[0].Target != "§ 6" || results[0].Resolved == nil ||
			results[0].Resolved.Doc != doc || results[0].Resolved.Section != "§ 6" || len(results[0].Resolved.ChunkIDs) == 0 {
			t.Errorf("%s: want § 6 resolved in the same document, got %s", doc, out)
		}
	}
}

// OCR reads the scanned pages close to their text layer: the character error rate of each page
// against the text PDF it was rendered from.
func TestOCRAgainstTheTextLayer(t *testing.T) {
	ws := ingested(t)
	db, err := sql.Open("sqlite", filepath.Join(ws, "warren.db")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, tc := range []struct {
		text, scan string
		limit      float64
	}{
		{"text/handbook.pdf", "scan/handbook-scan.pdf", 0.02},
		{"text/handbuch.pdf", "scan/handbuch-scan.pdf", 0.03},
		{"text/handbook.pdf", "mixed/handbook-mixed.pdf", 0.02}, // page 1 is its text layer: 0
	} {
		for page := 1; page <= 2; page++ {
			want, got := pageText(t, db, tc.text, page), pageText(t, db, tc.scan, page)
			if want == "" || got == "" {
				t.Fatalf("%s page %d: no text (text layer %d bytes, OCR %d bytes)", tc.scan, page, len(want), len(got))
			}
			rate := loadtest.CharErrorRate(got, want)
			t.Logf("e2e-docs: OCR %s page %d: character error rate %.2f%% (%d characters)", tc.scan, page, 100*rate, len([]rune(want)))
			if rate > tc.limit {
				t.Errorf("%s page %d: character error rate %.2f%% is above %.0f%%\ntext layer: %s\nOCR:        %s", tc.scan, page, 100*rate, 100*tc.limit, want, got)
			}
		}
	}
}

// pageText is the stored text of one page of a document: its chunks in order, each section's
// number and heading before its first chunk, white space collapsed. Pages here are shorter
// than a chunk, so no text is counted twice.
func pageText(t *testing.T, db *sql.DB, doc string, page int) string {
	t.Helper()
	rows, err := db.Query(`SELECT section, heading, text FROM chunks WHERE doc = ? AND page = ? ORDER BY seq`, doc, page)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	last := "\x00"
	for rows.Next() {
		var section, heading, text string
		if err := rows.Scan(&section, &heading, &text); err != nil {
			t.Fatal(err)
		}
		if head := section + " " + heading; head != last {
			b.WriteString(head + " ")
			last = head
		}
		b.WriteString(text + " ")
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// fatalRecorder lets the once-only preparation fail the test that ran it and every later one.
type fatalRecorder struct {
	testing.TB
	msg string
}

var errFatal = fmt.Errorf("preparation failed")

func (f *fatalRecorder) Fatal(args ...any) { f.msg = fmt.Sprint(args...); panic(errFatal) }
func (f *fatalRecorder) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	panic(errFatal)
}
