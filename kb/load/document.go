package load

import (
	"fmt"
	"strings"
)

// Document is a loaded document before chunking: its identity in the registry, where it came
// from, and its text cut into structural sections.
type Document struct {
	ID         string            // registry path, e.g. "gesetze/GefStoffV" or "suppliers/silane.md"
	Collection string            // registry collection, e.g. "regulatory"
	Title      string            // from front matter, the first heading, or the file name
	Source     string            // file or folder on disk
	Format     string            // markdown, text, pdf, html, docx, odt, pptx, odp, xlsx, ods, csv, eml, mbox, image, folder
	Meta       map[string]string // front matter and other facts the loader found
	Language   string            // "de", "en" or "" when unknown
	Sections   []Section
	Hash       string // sha256 of the source bytes (all files, for a folder document)
	// Size and ModTime (Unix nanoseconds) are the file's when it was read, so a later ingest
	// can find it unchanged from a stat; 0 for folder documents and attachments.
	Size    int64
	ModTime int64
	// Attachments are the files an e-mail came with, each a document of its own or the reason
	// it is not one (see Attachment).
	Attachments []Attachment

	stream func(emit func(Section) error) error // streamed formats read sections on demand
}

// Section is a structural unit of a document. Chunks never cross a section.
type Section struct {
	Number  string   // "§ 6", "4.1", "Anhang I", "" for an unnumbered part
	Heading string   // the heading text without its number
	Path    []string // labels from the outermost ancestor down to this section
	Text    string   // the body, without the heading line
	Offset  int      // byte offset of Text in File (or in Source when File is empty)
	File    string   // the file inside a folder document, else ""
	// Page and PageKind place a section of a paginated source ("page" of a PDF or scan,
	// "slide" of a presentation); a section never spans two pages. 0 and "" elsewhere.
	Page     int
	PageKind string
	// OCR marks text read from an image, with its mean word confidence in percent.
	OCR           bool
	OCRConfidence float64
}

// Label is how the section is named in a path: its number, else its heading.
func (s Section) Label() string {
	if s.Number != "" {
		return s.Number
	}
	return s.Heading
}

// PathString joins the section path for display: "Abschnitt 3 › § 6".
func (s Section) PathString() string { return strings.Join(s.Path, " › ") }

// SkipError explains why a file was not ingested; the rest of the ingest goes on.
type SkipError struct {
	Path   string
	Reason string
}

func (e *SkipError) Error() string { return fmt.Sprintf("skipped %s: %s", e.Path, e.Reason) }
