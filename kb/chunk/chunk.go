// Package chunk is the vocabulary the knowledge base's rooms and its store share: a chunk (the
// unit of retrieval), its ID, the scope of a search and the hits it returns. It sits below
// them all — kb/load cuts documents into chunks, kb/lexical and kb/vectors rank them, kb stores
// them — so that no room has to import another, or the store, to name what it works on.
package chunk

import (
	"fmt"
	"strings"
)

// Chunk is the unit of retrieval: a piece of one section with everything needed to cite it.
type Chunk struct {
	ID          string `json:"id"` // "<doc>#<seq>", stable while the document is unchanged
	Doc         string `json:"doc"`
	Collection  string `json:"collection"`
	Section     string `json:"section"`
	SectionPath string `json:"section_path"`
	Heading     string `json:"heading"`
	Text        string `json:"text"`
	File        string `json:"file,omitempty"`
	Start       int    `json:"start"` // byte offsets of Text in File (or the document's source)
	End         int    `json:"end"`
	Hash        string `json:"hash"` // sha256 of Text
	Seq         int    `json:"seq"`
	// Page is the page (or slide, see PageKind) of a paginated source the chunk is on, 1-based;
	// 0 for sources without pages.
	Page     int    `json:"page,omitempty"`
	PageKind string `json:"page_kind,omitempty"` // "page" or "slide" when Page is set
	// OCR says the text was read from an image by optical character recognition, with
	// OCRConfidence its mean word confidence in percent (0–100).
	OCR           bool    `json:"ocr,omitempty"`
	OCRConfidence float64 `json:"ocr_confidence,omitempty"`
}

// ID builds the ID of the seq-th chunk of a document.
func ID(doc string, seq int) string { return fmt.Sprintf("%s#%04d", doc, seq) }

// IndexText is what gets embedded and indexed for a chunk: its section label and heading, then
// its text, so that "§ 6" and the heading's words find the chunk.
func IndexText(c Chunk) string {
	head := strings.TrimSpace(c.Section + " " + c.Heading)
	if head == "" {
		return c.Text
	}
	return head + "\n" + c.Text
}

// Scope narrows a search: to collections, to one document, to one section of it.
type Scope struct {
	Collections []string `json:"collections,omitempty"`
	Doc         string   `json:"doc,omitempty"`
	Section     string   `json:"section,omitempty"` // "§ 6" or "4" (4 includes 4.1, 4.2 …)
}

// Hit is one chunk found by a search, with its score in that search.
type Hit struct {
	ChunkID string
	Score   float64
}

// SectionScopes lists the sections a chunk belongs to for scoped search and section lookup:
// its own and, for a dotted number, every enclosing one ("4.1.2" is also in "4.1" and "4").
func SectionScopes(section string) []string {
	out := []string{section}
	for i := range len(section) {
		if section[i] == '.' {
			out = append(out, section[:i])
		}
	}
	return out
}
