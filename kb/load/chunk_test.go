package load

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"warren/kb/chunk"
)

func TestChunksNeverSplitWordsAndCoverTheSection(t *testing.T) {
	para := "Der Arbeitgeber hat die Gefährdung zu beurteilen. Die Beschäftigten sind zu unterweisen; die Unterweisung ist zu dokumentieren. "
	text := strings.Repeat(para, 30) + "\n\n" + strings.Repeat("Silane ignites spontaneously in air. ", 40)
	sec := Section{Number: "§ 6", Heading: "Gefährdungsbeurteilung", Path: []string{"Abschnitt 3", "§ 6"}, Text: text, Offset: 100}
	c := &Chunker{Doc: "gesetze/GefStoffV", Collection: "gesetze", Options: ChunkOptions{Size: 400, Overlap: 80}}
	chunks := c.Section(sec)
	if len(chunks) < 10 {
		t.Fatalf("want many chunks, got %d", len(chunks))
	}
	words := map[string]bool{}
	for _, w := range strings.Fields(text) {
		words[w] = true
	}
	covered := 0
	for i, ch := range chunks {
		if len(ch.Text) > 400 {
			t.Errorf("chunk %d is %d bytes", i, len(ch.Text))
		}
		for _, w := range strings.Fields(ch.Text) {
			if !words[w] {
				t.Errorf("chunk %d split a word: %q", i, w)
			}
		}
		if text[ch.Start-100:ch.End-100] != ch.Text {
			t.Errorf("chunk %d offsets do not point at its text", i)
		}
		if ch.Section != "§ 6" || ch.SectionPath != "Abschnitt 3 › § 6" || ch.Seq != i || ch.ID != chunk.ID("gesetze/GefStoffV", i) {
			t.Errorf("chunk %d metadata: %+v", i, ch)
		}
		if i > 0 && ch.Start >= chunks[i-1].End {
			t.Errorf("chunk %d does not overlap its predecessor", i)
		}
		covered = max(covered, ch.End-100)
	}
	if strings.TrimRightFunc(text[covered:], unicode.IsSpace) != "" {
		t.Errorf("text after byte %d is not in any chunk", covered)
	}
}

// A run of text without spaces longer than a chunk (a 5 MB line, a base64 blob) is cut at the
// chunk's size, between runes, and every byte of it lands in a chunk.
func TestChunkerCutsAnOverlongRunAtTheSize(t *testing.T) {
	run := strings.Repeat("xä€", 20000) // 1-, 2- and 3-byte runes, 120 KB without a space
	text := "start " + run + " end"
	c := &Chunker{Doc: "d", Options: ChunkOptions{Size: 100, Overlap: 10}}
	chunks := c.Section(Section{Text: text})
	if len(chunks) < len(run)/100 {
		t.Fatalf("%d chunks for a %d-byte run: it was not cut", len(chunks), len(run))
	}
	covered := 0
	for i, ch := range chunks {
		if len(ch.Text) > 100 {
			t.Fatalf("chunk %d is %d bytes, more than the size 100", i, len(ch.Text))
		}
		if !utf8.ValidString(ch.Text) {
			t.Fatalf("chunk %d splits a character: %q", i, ch.Text)
		}
		if text[ch.Start:ch.End] != ch.Text {
			t.Fatalf("chunk %d offsets do not point at its text", i)
		}
		if ch.Start > covered && strings.TrimSpace(text[covered:ch.Start]) != "" {
			t.Fatalf("bytes %d to %d are in no chunk", covered, ch.Start)
		}
		covered = max(covered, ch.End)
	}
	if covered != len(text) {
		t.Errorf("the chunks end at %d of %d", covered, len(text))
	}
}

func TestSmallSectionIsOneChunkAndNumberingContinues(t *testing.T) {
	c := &Chunker{Doc: "d", Options: DefaultChunkOptions}
	a := c.Section(Section{Number: "1", Text: "First."})
	b := c.Section(Section{Number: "2", Text: "Second."})
	if len(a) != 1 || len(b) != 1 || b[0].Seq != 1 || b[0].Section != "2" {
		t.Fatalf("got %+v %+v", a, b)
	}
	if got := chunk.IndexText(b[0]); got != "2\nSecond." {
		t.Errorf("chunk.IndexText = %q", got)
	}
}
