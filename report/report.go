// Package report is the document a report travels as, whatever its file: a neutral model
// (a title, a few facts under it, headings, paragraphs with emphasis, lists, tables, quotes,
// code, notes and numbered references that citations link to), the conversion of a Markdown
// report into it, and the writers that turn it into DOCX, ODT, PDF, HTML or Markdown for
// people who do not run warren. It knows nothing of the desks: the service builds a Document
// from a research run, a gas table or a toxicology profile, and picks the words.
//
// Every writer is deterministic: the same Document gives the same bytes (fixed archive times,
// stable order), so golden tests can hold them.
package report

import (
	"fmt"
	"strings"
	"time"
)

// Document is a report as every writer takes it.
type Document struct {
	// Lang is the language of the text as a BCP 47 tag ("de", "en"); writers declare it so
	// that spelling, hyphenation and screen readers treat it right.
	Lang  string
	Title string
	// Meta are the facts shown under the title (question, date, analyst), in order.
	Meta   []Field
	Blocks []Block
	// Created is when the content was made (the run's end); written into the file's
	// properties. Zero leaves it out.
	Created time.Time
	// Author names who the file is by, for its properties ("" leaves it out).
	Author string
}

// Field is one fact under the title: a label and its value.
type Field struct{ Label, Value string }

// Kind is what a Block is.
type Kind int

// The kinds of block.
const (
	Paragraph Kind = iota
	Heading        // Level 1–6
	List           // Items, Ordered, Start
	Table          // Header, Rows, Align
	Quote          // Blocks: quoted text
	Code           // Text, kept verbatim
	Note           // Blocks, Warn: a boxed remark (a partial report, a quality problem)
	Reference      // N: an entry of the reference list, the target of citations [N]
	Rule           // a thematic break
)

// Align is a table column's alignment.
type Align int

// Column alignments.
const (
	AlignNone Align = iota
	AlignLeft
	AlignCenter
	AlignRight
)

// Block is one block of the document; which fields count depends on Kind.
type Block struct {
	Kind    Kind
	Level   int      // Heading: 1 (top) to 6
	Inlines []Inline // Paragraph, Heading, Reference
	// List: each item is a list of blocks (its paragraphs and nested lists).
	Items   [][]Block
	Ordered bool
	Start   int // the first number of an ordered list (0 means 1)
	// Table: the header row (may be nil) and the body rows, each cell a run of inlines.
	Header [][]Inline
	Rows   [][][]Inline
	Align  []Align
	Blocks []Block // Quote, Note
	Warn   bool    // Note: it flags a problem rather than informs
	Text   string  // Code
	N      int     // Reference: its number
}

// Inline is a run of text with one style.
type Inline struct {
	Text   string
	Bold   bool
	Italic bool
	Code   bool
	// Flag marks text the quality check found unsupported: every writer shows it apart.
	Flag bool
	// Cite > 0 makes the text a citation of reference Cite: a link to its entry.
	Cite int
	// Break is a line break within the paragraph (Text is empty).
	Break bool
}

// Plain is a run of unstyled text.
func Plain(text string) Inline { return Inline{Text: text} }

// Para is a paragraph of inlines.
func Para(in ...Inline) Block { return Block{Kind: Paragraph, Inlines: in} }

// Head is a heading of a level.
func Head(level int, text string) Block {
	return Block{Kind: Heading, Level: level, Inlines: []Inline{Plain(text)}}
}

// PlainText is the text of inlines without styles; a line break becomes a space.
func PlainText(in []Inline) string {
	var b strings.Builder
	for _, x := range in {
		if x.Break {
			b.WriteByte(' ')
			continue
		}
		b.WriteString(x.Text)
	}
	return b.String()
}

// Format is a file format a Document is written as.
type Format string

// The formats.
const (
	MD   Format = "md"
	DOCX Format = "docx"
	ODT  Format = "odt"
	PDF  Format = "pdf"
	HTML Format = "html"
)

// Formats lists the formats, Markdown first (the one warren has always written).
var Formats = []Format{MD, DOCX, ODT, PDF, HTML}

// FormatNames is the formats as a reader is told them: "md, docx, odt, pdf, html".
func FormatNames() string {
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = string(f)
	}
	return strings.Join(names, ", ")
}

// ParseFormat reads a format's name, case-insensitively, with or without a leading dot;
// "markdown", "word" and "htm" are taken too. An unknown name is an error that lists them.
func ParseFormat(name string) (Format, error) {
	n := strings.ToLower(strings.TrimPrefix(strings.TrimSpace(name), "."))
	switch n {
	case "markdown":
		n = "md"
	case "word":
		n = "docx"
	case "htm":
		n = "html"
	}
	for _, f := range Formats {
		if string(f) == n {
			return f, nil
		}
	}
	return "", fmt.Errorf("unknown format %q: choose one of %s", name, FormatNames())
}

// Ext is the file extension of the format, with its dot.
func (f Format) Ext() string { return "." + string(f) }

// Write writes d in format f.
func Write(d *Document, f Format) ([]byte, error) {
	switch f {
	case MD:
		return []byte(Markdown(d)), nil
	case DOCX:
		return WriteDOCX(d)
	case ODT:
		return WriteODT(d)
	case PDF:
		return WritePDF(d)
	case HTML:
		return []byte(WriteHTML(d)), nil
	}
	return nil, fmt.Errorf("unknown format %q: choose one of %s", f, FormatNames())
}

// anchor is the name of reference n's link target in every format: letters, digits and an
// underscore, as Word wants a bookmark's name.
func anchor(n int) string { return fmt.Sprintf("ref_%d", n) }
