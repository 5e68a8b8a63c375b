package load

import (
	"fmt"
	"testing"

	"warren/kb/load/loadtest"
)

// ligaturePDF is a one-page PDF whose font maps code 2 to the ligature "fl" and 11 to "ff",
// as LibreOffice and Word write them, through a ToUnicode map.
func ligaturePDF(content string) []byte {
	cmap := "/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n1 begincodespacerange <00> <FF> endcodespacerange\n" +
		"10 beginbfchar\n<01> <0050>\n<02> <0066006C>\n<03> <0069>\n<04> <0063>\n<05> <0068>\n<06> <0074>\n<07> <0020>\n<08> <0053>\n<0A> <006F>\n<0B> <00660066>\nendbfchar\n" +
		"endcmap CMapName currentdict /CMap defineresource pop end end"
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [6 0 R] /Count 1 >>",
		"<< /Type /Font /Subtype /TrueType /BaseFont /ABCDEF+DejaVuSerif /FirstChar 1 /LastChar 11 " +
			"/Widths [600 550 250 500 550 300 280 600 0 550 600] /ToUnicode 4 0 R >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(cmap)+1, cmap),
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content)+1, content),
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>",
	}
	return loadtest.Assemble(objs, 1, "")
}

// A ligature is one code and two letters: the letters after it keep their places, and no
// stray letter ends a TJ array.
func TestPDFLigaturesReadAsTheirLetters(t *testing.T) {
	for _, tc := range []struct{ name, content, want string }{
		{"Tj", "BT /F1 12 Tf 72 700 Td <0102030405060708060A0B> Tj ET", "Pflicht Stoff"},
		{"TJ", "BT /F1 12 Tf 72 700 Td [<010203> 10 <040506> -300 <08060A0B>] TJ ET", "Pflicht Stoff"},
		{"two lines", "BT /F1 12 Tf 14 TL 72 700 Td <0102030405060708060A0B> Tj T* [<08060A0B>] TJ ET", "Pflicht Stoff\nStoff"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pages, err := extractPDF(writeTestFile(t, "ligature.pdf", ligaturePDF(tc.content)))
			if err != nil {
				t.Fatal(err)
			}
			if len(pages) != 1 || pages[0] != tc.want {
				t.Fatalf("got %q, want %q", pages, tc.want)
			}
		})
	}
}

// fpdf maps every two-byte code to the same text ("<0000> <FFFF> <0000>"), a range the PDF
// library reads by the last byte only: "≤" (U+2264) came out "d".
func TestAWideToUnicodeRangeReadsWholeCodes(t *testing.T) {
	r := wideRange{lo: 0x0000, hi: 0xffff, dst: 0x0000}
	for code, want := range map[string]string{"\x22\x64": "≤", "\x20\x22": "•", "\x00\xfc": "ü", "\x00A": "A"} {
		truncated := string(rune(code[1]))
		got, ok := r.decode(code, truncated)
		if code[0] == 0 {
			if ok && got != want {
				t.Errorf("%q: %q", code, got)
			}
			continue
		}
		if !ok || got != want {
			t.Errorf("%q reads %q (%v), want %q", code, got, ok, want)
		}
	}
	// A code the library read otherwise (a bfchar of its own) keeps the library's text.
	if _, ok := r.decode("\x22\x64", "≦"); ok {
		t.Error("the library's own reading was replaced")
	}
}
