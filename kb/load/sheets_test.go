package load

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"warren/kb/load/loadtest"
)

// checkHeaderInEveryChunk fails unless every chunk of every section starts with header, which
// is what lets a chunk of rows be read without the rest of its sheet.
func checkHeaderInEveryChunk(t *testing.T, sections []Section, header string) {
	t.Helper()
	c := &Chunker{Doc: "d", Options: DefaultChunkOptions}
	for _, s := range sections {
		for _, ch := range c.Section(s) {
			if !strings.HasPrefix(ch.Text, header) {
				t.Fatalf("section %q: a chunk without the header row: %q", s.Heading, ch.Text)
			}
		}
	}
}

func TestXLSXSheetsAreSectionsWithTheirHeaderInEveryChunk(t *testing.T) {
	x := excelize.NewFile()
	x.SetSheetName("Sheet1", "Gases")
	x.SetSheetRow("Gases", "A1", &[]any{"Gas", "TLV", "Note"})
	for i := 2; i <= 101; i++ {
		x.SetSheetRow("Gases", fmt.Sprintf("A%d", i), &[]any{fmt.Sprintf("gas-%d", i), i, "keep | dry"})
	}
	x.NewSheet("Notes")
	x.SetCellValue("Notes", "B3", "Marker sentence in the notes sheet.")
	x.SetDocProps(&excelize.DocProperties{Title: "Supplier gases"})
	var buf bytes.Buffer
	if err := x.Write(&buf); err != nil {
		t.Fatal(err)
	}
	doc := loadOffice(t, "gases.xlsx", buf.Bytes(), LoadOptions{})
	if doc.Format != "xlsx" || doc.Title != "Supplier gases" {
		t.Fatalf("format %q, title %q", doc.Format, doc.Title)
	}
	last := doc.Sections[len(doc.Sections)-1]
	if last.Heading != "Notes" || last.Text != "|  | Marker sentence in the notes sheet. |\n| --- | --- |" {
		t.Fatalf("notes sheet: %+v", last)
	}
	gases := doc.Sections[:len(doc.Sections)-1]
	if len(gases) < 3 {
		t.Fatalf("100 rows in %d sections, want them cut into several", len(gases))
	}
	// The sections cover rows 2 to 101 in order, with no row lost or repeated.
	next := 2
	for _, s := range gases {
		var from, to int
		if _, err := fmt.Sscanf(s.Heading, "Gases (rows %d–%d)", &from, &to); err != nil || from != next {
			t.Fatalf("heading %q after row %d", s.Heading, next-1)
		}
		if got := strings.Count(s.Text, "\n") - 1; got != to-from+1 {
			t.Fatalf("%s holds %d rows", s.Heading, got)
		}
		if !strings.Contains(s.Text, fmt.Sprintf("| gas-%d | %d | keep \\| dry |", from, from)) {
			t.Fatalf("%s: %q", s.Heading, s.Text)
		}
		next = to + 1
	}
	if next != 102 {
		t.Fatalf("rows end at %d", next-1)
	}
	checkHeaderInEveryChunk(t, gases, "| Gas | TLV | Note |\n| --- | --- | --- |")
}

const odsNS = `xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:dc="http://purl.org/dc/elements/1.1/"`

func ods(tables string) []byte {
	return loadtest.Zip(
		loadtest.Part{Name: "mimetype", Data: "application/vnd.oasis.opendocument.spreadsheet"},
		loadtest.Part{Name: "content.xml", Data: `<?xml version="1.0"?><office:document-content ` + odsNS + `><office:body><office:spreadsheet>` + tables + `</office:spreadsheet></office:body></office:document-content>`},
		loadtest.Part{Name: "meta.xml", Data: `<?xml version="1.0"?><office:document-meta ` + odsNS + `><office:meta><dc:title>Cylinder list</dc:title></office:meta></office:document-meta>`},
	)
}

func odsCell(text string) string {
	return `<table:table-cell><text:p>` + text + `</text:p></table:table-cell>`
}

// Office suites repeat empty cells and rows to the sheet's edge: those cost nothing, and a
// repeated row with text is expanded within a bound.
func TestODSRepeatsAreExpandedWithinBounds(t *testing.T) {
	edge := `<table:table-cell table:number-columns-repeated="16000"/>`
	tables := `<table:table table:name="Cylinders"><table:table-header-rows><table:table-row>` + odsCell("Gas") + odsCell("Size") + edge + `</table:table-row></table:table-header-rows>` +
		`<table:table-row>` + odsCell("Silane") + `<table:table-cell table:number-columns-repeated="2"/>` + odsCell("40<text:s text:c=\"2\"/>l") + edge + `</table:table-row>` +
		`<table:table-row table:number-rows-repeated="5000">` + edge + `</table:table-row>` +
		`<table:table-row table:number-rows-repeated="3">` + odsCell("N2") + odsCell("50 l") + `</table:table-row>` +
		`<table:table-row table:number-rows-repeated="1048000">` + edge + `</table:table-row></table:table>` +
		`<table:table table:name="Empty"><table:table-row>` + edge + `</table:table-row></table:table>`
	doc := loadOffice(t, "cyl.ods", ods(tables), LoadOptions{})
	if doc.Format != "ods" || doc.Title != "Cylinder list" || len(doc.Sections) != 1 {
		t.Fatalf("format %q, title %q, %d sections", doc.Format, doc.Title, len(doc.Sections))
	}
	want := "| Gas | Size |  |  |\n| --- | --- | --- | --- |\n| Silane |  |  | 40 l |\n| N2 | 50 l |  |  |\n| N2 | 50 l |  |  |\n| N2 | 50 l |  |  |"
	if s := doc.Sections[0]; s.Heading != "Cylinders" || s.Text != want {
		t.Fatalf("%+v", s)
	}
}

func TestCSVSniffsItsSeparatorAndNumbersRowsByLine(t *testing.T) {
	var b strings.Builder
	b.WriteString("\uFEFFGas;Cylinder;Remark\n")
	b.WriteString("Silane;\"12\"\" cylinder; 40 l\";\"first line\nsecond line\"\n") // the record spans lines 2–3
	for i := 4; i <= 80; i++ {
		fmt.Fprintf(&b, "gas-%d;%d;ok\n", i, i)
	}
	b.WriteString("Argon;5 l;stray \" quote\n")
	doc := loadOffice(t, "gases.csv", []byte(b.String()), LoadOptions{})
	if doc.Format != "csv" || doc.Title != "gases" || len(doc.Sections) < 2 {
		t.Fatalf("format %q, title %q, %d sections", doc.Format, doc.Title, len(doc.Sections))
	}
	first := doc.Sections[0]
	if !strings.HasPrefix(first.Heading, "gases (rows 2–") || !strings.Contains(first.Text, "| Silane | 12\" cylinder; 40 l | first line second line |\n| gas-4 |") {
		t.Fatalf("first section: %+v", first)
	}
	if last := doc.Sections[len(doc.Sections)-1]; !strings.HasSuffix(last.Heading, "–81)") || !strings.HasSuffix(last.Text, "| Argon | 5 l | stray \" quote |") {
		t.Fatalf("last section: %+v", last)
	}
	checkHeaderInEveryChunk(t, doc.Sections, "| Gas | Cylinder | Remark |")
	if got := loadOffice(t, "tabs.csv", []byte("a\tb\tc,d\n1\t2\t3,4\n"), LoadOptions{}).Sections[0].Text; got != "| a | b | c,d |\n| --- | --- | --- |\n| 1 | 2 | 3,4 |" {
		t.Fatalf("tab-separated: %q", got)
	}
}

func TestBadSheetsAreSkippedWithTheirReason(t *testing.T) {
	x := excelize.NewFile()
	// A cell holds at most 32,767 characters, so the bomb is many distinct long cells.
	for i := 1; i <= 200; i++ {
		x.SetCellValue("Sheet1", fmt.Sprintf("A%d", i), fmt.Sprint(i)+strings.Repeat("x", 32000))
	}
	var bomb bytes.Buffer
	if err := x.Write(&bomb); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		data []byte
		opts LoadOptions
		want string
	}{
		{"notzip.xlsx", []byte("Gas,TLV\nSilane,5\n"), LoadOptions{}, "not a readable XLSX workbook"},
		{"bomb.xlsx", bomb.Bytes(), LoadOptions{MaxFileBytes: 1 << 20}, "expands past the 1 MB limit"},
		{"notzip.ods", []byte("x"), LoadOptions{}, "not a zip package"},
		{"text.ods", loadtest.Zip(loadtest.Part{Name: "content.xml", Data: `<office:document-content ` + odsNS + `><office:body><office:text/></office:body></office:document-content>`}), LoadOptions{}, "no office:spreadsheet"},
		{"empty.ods", ods(`<table:table table:name="A"><table:table-row><table:table-cell/></table:table-row></table:table>`), LoadOptions{}, "no cells with text"},
		{"open.csv", []byte("a,b\n\"never closed,1\n"), LoadOptions{}, "not readable as CSV"},
		{"blank.csv", []byte(";;;\n ; \n"), LoadOptions{}, "no cells with text"},
		{"binary.csv", []byte("a,b\n\x00\x01,2\n"), LoadOptions{}, "binary file"},
	} {
		if c.name == "bomb.xlsx" && bomb.Len() > 64<<10 {
			t.Fatalf("the bomb should be a small file, it is %d bytes", bomb.Len())
		}
		if got := skipReason(t, c.name, c.data, c.opts); !strings.Contains(got, c.want) {
			t.Errorf("%s: reason %q, want it to say %q", c.name, got, c.want)
		}
	}
}

func FuzzLoadCSV(f *testing.F) {
	f.Add("a;b\n\"x\"\"y\";2\n")
	f.Add("a,\"b\nc\",d\n1,2\n\"")
	f.Fuzz(func(t *testing.T, data string) {
		doc, ok := loadBytes(t, []byte(data), ".csv")
		if !ok {
			return
		}
		for _, s := range sectionsOf(t, doc) {
			if !strings.HasPrefix(s.Text, "| ") {
				t.Fatalf("a section that is not a table: %+v", s)
			}
		}
	})
}

// Excel's "Unicode text" export is UTF-16 with a byte-order mark.
func TestCSVInUTF16IsReadAsASheet(t *testing.T) {
	doc, err := Load(utf16File(t, "export.csv", "Stoff\tGrenzwert\nSilan\t5 ppm\n", binary.LittleEndian), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if doc.Format != "csv" || doc.Sections[0].Text != "| Stoff | Grenzwert |\n| --- | --- |\n| Silan | 5 ppm |" {
		t.Fatalf("format %q, sections %+v", doc.Format, doc.Sections)
	}
}
