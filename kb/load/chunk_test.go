package load

import (
	"strings"
	"testing"
	"unicode"

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

func TestChunkerKeepsAGiantWordWhole(t *testing.T) {
	word := strings.Repeat("x", 300)
	c := &Chunker{Doc: "d", Options: ChunkOptions{Size: 100, Overlap: 10}}
	chunks := c.Section(Section{Text: "start " + word + " end"})
	found := false
	for _, ch := range chunks {
		found = found || strings.Contains(ch.Text, word)
	}
	if !found {
		t.Errorf("the long word was split: %+v", chunks)
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
