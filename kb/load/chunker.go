package load

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode"
	"unicode/utf8"

	"warren/kb/chunk"
)

// ChunkOptions size the chunks, in bytes of text.
type ChunkOptions struct {
	Size    int // the most a chunk holds
	Overlap int // how much of the previous chunk the next one repeats, for context
}

// DefaultChunkOptions suit a 300-token chunk for the default models.
var DefaultChunkOptions = ChunkOptions{Size: 1200, Overlap: 150}

// Chunker cuts a document's sections into chunks, numbering them across the document.
type Chunker struct {
	Doc        string
	Collection string
	Options    ChunkOptions
	seq        int
}

// Section returns the chunks of one section. A chunk never crosses the section and never
// splits a word shorter than the chunk; breaks fall at a paragraph, else a sentence, else a
// line, else a space. A run of text with no space in the chunk's size is cut at the size.
func (c *Chunker) Section(s Section) []chunk.Chunk {
	size := max(c.Options.Size, 100)
	overlap := min(max(c.Options.Overlap, 0), size/2)
	text := s.Text
	var out []chunk.Chunk
	for start := 0; start < len(text); {
		start = skipSpace(text, start)
		if start >= len(text) {
			break
		}
		end := len(text)
		if end-start > size {
			end = breakPoint(text, start, start+size)
		}
		piece := strings.TrimRightFunc(text[start:end], unicode.IsSpace)
		out = append(out, c.chunk(s, piece, start))
		if end >= len(text) {
			break
		}
		next := overlapStart(text, start, end, overlap)
		if next <= start {
			next = end
		}
		start = next
	}
	return out
}

func (c *Chunker) chunk(s Section, text string, start int) chunk.Chunk {
	sum := sha256.Sum256([]byte(text))
	ch := chunk.Chunk{
		ID: chunk.ID(c.Doc, c.seq), Doc: c.Doc, Collection: c.Collection, Section: s.Number,
		SectionPath: s.PathString(), Heading: s.Heading, Text: text, File: s.File,
		Start: s.Offset + start, End: s.Offset + start + len(text), Hash: hex.EncodeToString(sum[:8]), Seq: c.seq,
		Page: s.Page, PageKind: s.PageKind, OCR: s.OCR, OCRConfidence: s.OCRConfidence,
	}
	c.seq++
	return ch
}

// breakPoint finds where to end a chunk that starts at start and may run to limit.
func breakPoint(text string, start, limit int) int {
	window := text[start:limit]
	floor := len(window) / 2 // a break in the first half would make chunks too small
	if i := strings.LastIndex(window, "\n\n"); i > floor {
		return start + i
	}
	if i := lastSentenceEnd(window); i > floor {
		return start + i
	}
	if i := strings.LastIndexByte(window, '\n'); i > floor {
		return start + i
	}
	if i := strings.LastIndexFunc(window, unicode.IsSpace); i > 0 {
		return start + i
	}
	// No space in the window (a long token, a base64 blob, a 5 MB line): cut at the limit, at
	// the start of a rune, so that no chunk outgrows the size or splits a character.
	cut := limit
	for cut > start+1 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	return cut
}

// lastSentenceEnd returns the index just after the last ". ", "? " or "! " in s whose next
// word starts a new sentence (not "Abs. 1" or "z. B.").
func lastSentenceEnd(s string) int {
	for i := len(s) - 2; i > 0; i-- {
		if (s[i] == '.' || s[i] == '?' || s[i] == '!' || s[i] == ';') && (s[i+1] == ' ' || s[i+1] == '\n') {
			r, _ := utf8.DecodeRuneInString(strings.TrimLeft(s[i+1:], " \n"))
			if unicode.IsUpper(r) || r == '(' {
				return i + 1
			}
		}
	}
	return -1
}

// overlapStart returns where the next chunk begins: about overlap bytes before end, moved
// forward to the start of a word (or of a sentence, when one starts inside the overlap).
func overlapStart(text string, start, end, overlap int) int {
	if overlap == 0 {
		return end
	}
	from := max(end-overlap, start+1)
	window := text[from:end]
	if i := strings.Index(window, ". "); i >= 0 && i+2 < len(window) {
		return from + i + 2
	}
	for i := from; i < end; i++ {
		if unicode.IsSpace(rune(text[i])) {
			return skipSpace(text, i)
		}
	}
	return end
}

func skipSpace(text string, i int) int {
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !unicode.IsSpace(r) {
			break
		}
		i += size
	}
	return i
}
