package load

import (
	"regexp"
	"testing"

	"warren/kb/load/loadtest"
)

// pdfunite writes a trailer /Size smaller than its table; such a PDF must still be read whole.
func TestPDFWithTooSmallTrailerSizeIsReadWhole(t *testing.T) {
	good := loadtest.PDF([]string{
		"BT /F2 12 Tf 72 700 Td (First page of the handbook.) Tj ET",
		"BT /F2 12 Tf 72 700 Td (Second page of the handbook.) Tj ET",
	}, "")
	bad := regexp.MustCompile(`/Size \d+`).ReplaceAll(good, []byte("/Size 3"))
	if string(bad) == string(good) {
		t.Fatal("the trailer was not changed")
	}
	pages, err := extractPDF(writeTestFile(t, "united.pdf", bad))
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) != 2 || pages[0] != "First page of the handbook." || pages[1] != "Second page of the handbook." {
		t.Fatalf("pages: %q", pages)
	}
}
