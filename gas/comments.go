package gas

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"

	"github.com/xuri/excelize/v2"
)

// Cell comments in bulk. excelize's AddComment searches the sheet's existing comments on every
// call, so tens of thousands of comments take seconds; an export of 2,000 rows has ~37,000.
// Instead the first comment is added through excelize, which creates the comments part, its
// VML drawing, the relationships and the content types, and the two parts are then written
// whole, with every comment, as the workbook is zipped (excelize's SetZipWriter hook).

// note is one comment: a 1-based sheet row below the header, a 0-based column, the text and
// its author.
type note struct {
	row, col     int
	text, author string
}

func (n note) ref() string { return columnLetters(n.col+1) + strconv.Itoa(n.row+1) }

type commentWriter struct {
	parts map[string][]byte // zip path → content that replaces excelize's
}

// newCommentWriter adds the first note through excelize and prepares the full parts.
func newCommentWriter(f *excelize.File, sheet string, notes []note) (*commentWriter, error) {
	if err := f.AddComment(sheet, excelize.Comment{Cell: notes[0].ref(), Author: notes[0].author, Text: notes[0].text}); err != nil {
		return nil, err
	}
	if len(f.Comments) != 1 || len(f.VMLDrawing) != 1 {
		return nil, fmt.Errorf("expected one comments part and one drawing, found %d and %d", len(f.Comments), len(f.VMLDrawing))
	}
	cw := &commentWriter{parts: map[string][]byte{}}
	for path := range f.Comments {
		cw.parts[path] = commentsXML(notes)
	}
	for path := range f.VMLDrawing {
		cw.parts[path] = commentsVML(notes)
	}
	return cw, nil
}

// zipWriter is the function handed to excelize's SetZipWriter.
func (cw *commentWriter) zipWriter(w io.Writer) excelize.ZipWriter {
	return &replacingZip{zw: zip.NewWriter(w), parts: cw.parts}
}

// replacingZip writes the prepared parts in place of excelize's versions of them.
type replacingZip struct {
	zw    *zip.Writer
	parts map[string][]byte
}

func (z *replacingZip) Create(name string) (io.Writer, error) {
	w, err := z.zw.Create(name)
	if err != nil {
		return nil, err
	}
	if content, ok := z.parts[name]; ok {
		if _, err := w.Write(content); err != nil {
			return nil, err
		}
		return io.Discard, nil
	}
	return w, nil
}

func (z *replacingZip) AddFS(fsys fs.FS) error { return z.zw.AddFS(fsys) }
func (z *replacingZip) Close() error           { return z.zw.Close() }

func commentsXML(notes []note) []byte {
	var b bytes.Buffer
	b.WriteString(xml.Header)
	b.WriteString(`<comments xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><authors>`)
	authorID := map[string]int{}
	for _, n := range notes {
		if _, ok := authorID[n.author]; !ok {
			authorID[n.author] = len(authorID)
			b.WriteString(`<author>`)
			xml.EscapeText(&b, []byte(strings.ToValidUTF8(n.author, "�")))
			b.WriteString(`</author>`)
		}
	}
	b.WriteString(`</authors><commentList>`)
	for _, n := range notes {
		b.WriteString(`<comment ref="` + n.ref() + `" authorId="` + strconv.Itoa(authorID[n.author]) + `"><text><t xml:space="preserve">`)
		xml.EscapeText(&b, []byte(strings.ToValidUTF8(n.text, "�")))
		b.WriteString(`</t></text></comment>`)
	}
	b.WriteString(`</commentList></comments>`)
	return b.Bytes()
}

// commentsVML writes the legacy drawing that Excel needs to show the notes: one hidden shape
// per note, anchored beside its cell. Shape IDs are numbered in blocks of 1024, all listed in
// the idmap.
func commentsVML(notes []note) []byte {
	var b bytes.Buffer
	blocks := (1024+len(notes))/1024 + 1
	ids := make([]string, 0, blocks)
	for i := 1; i <= blocks; i++ {
		ids = append(ids, strconv.Itoa(i))
	}
	b.WriteString(`<xml xmlns:v="urn:schemas-microsoft-com:vml" xmlns:o="urn:schemas-microsoft-com:office:office" xmlns:x="urn:schemas-microsoft-com:office:excel">`)
	b.WriteString(`<o:shapelayout v:ext="edit"><o:idmap v:ext="edit" data="` + strings.Join(ids, ",") + `"/></o:shapelayout>`)
	b.WriteString(`<v:shapetype id="_x0000_t202" coordsize="21600,21600" o:spt="202" path="m,l,21600r21600,l21600,xe"><v:stroke joinstyle="miter"/><v:path gradientshapeok="t" o:connecttype="rect"/></v:shapetype>`)
	for i, n := range notes {
		top := n.row - 1
		if top < 0 {
			top = 0
		}
		fmt.Fprintf(&b, `<v:shape id="_x0000_s%d" type="#_x0000_t202" style="position:absolute;margin-left:0;margin-top:0;width:210pt;height:82pt;z-index:%d;visibility:hidden" fillcolor="#ffffe1" o:insetmode="auto">`, 1025+i, i+1)
		b.WriteString(`<v:fill color2="#ffffe1"/><v:shadow on="t" color="black" obscured="t"/><v:path o:connecttype="none"/><v:textbox style="mso-direction-alt:auto"><div style="text-align:left"></div></v:textbox>`)
		fmt.Fprintf(&b, `<x:ClientData ObjectType="Note"><x:MoveWithCells/><x:SizeWithCells/><x:Anchor>%d, 15, %d, 10, %d, 15, %d, 4</x:Anchor><x:AutoFill>False</x:AutoFill><x:Row>%d</x:Row><x:Column>%d</x:Column></x:ClientData></v:shape>`,
			n.col+1, top, n.col+4, top+6, n.row, n.col)
	}
	b.WriteString(`</xml>`)
	return b.Bytes()
}
