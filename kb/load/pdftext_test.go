package load

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledongthuc/pdf"

	"warren/kb/load/loadtest"
)

// buildTestPDF writes loadtest.PDF to a file.
func buildTestPDF(t *testing.T, contents []string, trailerExtra string) string {
	t.Helper()
	return writeTestFile(t, "doc.pdf", loadtest.PDF(contents, trailerExtra))
}

func writeTestFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// pdfWord draws s with font F1 at 12 pt, its baseline starting at (x, y).
func pdfWord(x, y int, s string) string {
	return fmt.Sprintf("BT /F1 12 Tf %d %d Td (%s) Tj ET", x, y, s)
}

func TestExtractPDFRebuildsLines(t *testing.T) {
	page1 := strings.Join([]string{
		// Drawn out of reading order, so only the positions can put the words right.
		pdfWord(150, 700, "world"),
		pdfWord(72, 700, "Hello"),
		pdfWord(110, 700, "brave"),
		pdfWord(72, 686, "Second"),
		pdfWord(125, 686, "line"),
		// A gap of two lines starts a paragraph.
		pdfWord(72, 650, "Next"),
		pdfWord(110, 650, "paragraph"),
		// With widths known, the gap a TJ kerning leaves is measured, not guessed.
		"BT /F2 12 Tf 72 636 Td [(Hel) -10 (lo) -300 (there)] TJ ET",
		// A space glyph already separates these words; no second space is added.
		"BT /F2 12 Tf 72 622 Td (two words) Tj ET",
	}, "\n")
	page2 := pdfWord(72, 700, "Page") + "\n" + pdfWord(110, 700, "two")
	path := buildTestPDF(t, []string{page1, page2}, "")

	pages, err := extractPDF(path)
	if err != nil {
		t.Fatalf("extractPDF: %v", err)
	}
	want := []string{
		"Hello brave world\nSecond line\n\nNext paragraph\nHello there\ntwo words",
		"Page two",
	}
	if len(pages) != len(want) {
		t.Fatalf("got %d pages %q, want %d", len(pages), pages, len(want))
	}
	for i := range want {
		if pages[i] != want[i] {
			t.Errorf("page %d:\n got %q\nwant %q", i+1, pages[i], want[i])
		}
	}
}

func TestExtractPDFErrors(t *testing.T) {
	tests := []struct {
		name string
		path func(t *testing.T) string
		want string
	}{
		{
			name: "rectangle only",
			path: func(t *testing.T) string {
				return buildTestPDF(t, []string{"0 0 1 rg 100 100 200 150 re f"}, "")
			},
			want: "no text layer (scanned PDF?)",
		},
		{
			name: "garbage",
			path: func(t *testing.T) string {
				return writeTestFile(t, "junk.pdf", bytes.Repeat([]byte{0xde, 0xad, 0xbe, 0xef}, 64))
			},
			want: "couldn't read PDF",
		},
		{
			name: "truncated",
			path: func(t *testing.T) string {
				return writeTestFile(t, "cut.pdf", []byte("%PDF-1.4\n1 0 obj\n<< /Type /Catalog"))
			},
			want: "couldn't read PDF",
		},
		{
			// A malformed hex string makes the library's lexer panic.
			name: "library panic",
			path: func(t *testing.T) string {
				return buildTestPDF(t, []string{"BT /F1 12 Tf 72 700 Td <zz> Tj ET"}, "")
			},
			want: "couldn't read page 1 of PDF",
		},
		{
			name: "encrypted",
			path: func(t *testing.T) string {
				extra := fmt.Sprintf("/ID [(%s)] /Encrypt << /Filter /Standard /V 1 /R 2 /Length 40 /O (%s) /U (%s) /P 0 >> ",
					strings.Repeat("I", 16), strings.Repeat("O", 32), strings.Repeat("U", 32))
				return buildTestPDF(t, []string{pdfWord(72, 700, "secret")}, extra)
			},
			want: "encrypted",
		},
		{
			name: "missing file",
			path: func(t *testing.T) string { return filepath.Join(t.TempDir(), "nope.pdf") },
			want: "couldn't open PDF",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pages, err := extractPDF(tt.path(t))
			if err == nil {
				t.Fatalf("got pages %q, want an error containing %q", pages, tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
		})
	}
}

func TestPDFLayoutPage(t *testing.T) {
	// glyphs lays s out one glyph per rune, each w points wide, from x on baseline y.
	glyphs := func(x, y, size, w float64, s string) []pdf.Text {
		var out []pdf.Text
		for _, r := range s {
			out = append(out, pdf.Text{FontSize: size, X: x, Y: y, W: w, S: string(r)})
			x += w
		}
		return out
	}
	cat := func(parts ...[]pdf.Text) []pdf.Text {
		var out []pdf.Text
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	tests := []struct {
		name   string
		glyphs []pdf.Text
		want   string
	}{
		{"empty", nil, ""},
		{"tight glyphs stay one word", glyphs(72, 700, 10, 5, "word"), "word"},
		{"kerning is not a space", cat(glyphs(72, 700, 10, 5, "ke"), glyphs(83, 700, 10, 5, "rn")), "kern"},
		{"gap is a space", cat(glyphs(72, 700, 10, 5, "ab"), glyphs(85, 700, 10, 5, "cd")), "ab cd"},
		{
			"subscript stays on its line",
			cat(glyphs(72, 700, 10, 5, "H"), glyphs(77, 697, 7, 3.5, "2"), glyphs(80.5, 700, 10, 5, "O")),
			"H2O",
		},
		{"TJ newline glyph is dropped", cat(glyphs(72, 700, 10, 5, "ab"), glyphs(82, 700, 10, 0, "\n")), "ab"},
		{"rotated text has no size", glyphs(72, 700, 0, 0, "x"), "x"},
		{
			"justified spaces collapse",
			cat(glyphs(72, 700, 10, 5, "a  "), glyphs(100, 700, 10, 5, " b")),
			"a b",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := pdfLayoutPage(tt.glyphs); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
