package load

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"warren/kb/load/loadtest"
)

// crlf writes a message with the line endings mail carries.
func crlf(s string) []byte { return []byte(strings.ReplaceAll(s, "\n", "\r\n")) }

const sdsMail = `From: =?UTF-8?Q?J=C3=B6rg_M=C3=BCller?= <joerg@example.com>
To: lab@example.com
Subject: =?UTF-8?Q?Sicherheitsdatenblatt_f=C3=BCr_Silan?=
Date: Tue, 3 Mar 2026 09:15:00 +0100
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="outer"

--outer
Content-Type: multipart/alternative; boundary="inner"

--inner
Content-Type: text/plain; charset=iso-8859-1
Content-Transfer-Encoding: quoted-printable

Anbei das Datenblatt f=FCr Silan. Marker sentence in the body.
--inner
Content-Type: text/html; charset=utf-8

<p>HTML version that must not be read.</p>
--inner--
--outer
Content-Type: application/pdf; name="sds.pdf"
Content-Disposition: attachment; filename="sds.pdf"
Content-Transfer-Encoding: base64

` + "%s" + `
--outer--
`

func TestEMLHeadersBodyAndAttachments(t *testing.T) {
	pdf := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("%PDF", 300))) // 1200 bytes
	doc := loadOffice(t, "sds.eml", crlf(strings.Replace(sdsMail, "%s", pdf[:76]+"\n"+pdf[76:], 1)), LoadOptions{})
	if doc.Format != "eml" || doc.Title != "Sicherheitsdatenblatt für Silan" {
		t.Fatalf("format %q, title %q", doc.Format, doc.Title)
	}
	if doc.Meta["from"] != "Jörg Müller <joerg@example.com>" || doc.Meta["date"] != "2026-03-03T08:15:00Z" || doc.Meta["subject"] != doc.Title {
		t.Fatalf("meta %v", doc.Meta)
	}
	if len(doc.Sections) != 2 {
		t.Fatalf("%d sections: %+v", len(doc.Sections), doc.Sections)
	}
	body, att := doc.Sections[0], doc.Sections[1]
	if body.Heading != doc.Title || body.Text != "Anbei das Datenblatt für Silan. Marker sentence in the body." {
		t.Fatalf("body: %+v", body)
	}
	// Not a PDF at all: listed with the reason it is not a document of its own.
	if att.Heading != "Attachments" || !strings.HasPrefix(att.Text, "- sds.pdf (application/pdf, 1200 bytes, not read: ") {
		t.Fatalf("attachments: %+v", att)
	}
	if len(doc.Attachments) != 1 || doc.Attachments[0].Name != "sds.pdf" || doc.Attachments[0].Doc != nil || doc.Attachments[0].Skip == "" {
		t.Fatalf("attachments: %+v", doc.Attachments)
	}
}

func TestEMLWithOnlyHTMLIsReadAsMarkdown(t *testing.T) {
	msg := "Subject: Purge\nContent-Type: text/html; charset=utf-8\n\n<h1>Purge</h1><p>Purge <b>three</b> times.</p><ul><li>N2</li></ul>\n"
	doc := loadOffice(t, "purge.eml", crlf(msg), LoadOptions{})
	if got := doc.Sections[0].Text; !strings.Contains(got, "Purge three times.") || !strings.Contains(got, "- N2") {
		t.Fatalf("body %q", got)
	}
}

// An attachment past the limit is counted through it and listed as not read.
func TestMailAttachmentPastTheLimitIsNotRead(t *testing.T) {
	big := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("y", 5000)))
	m, err := readMail(strings.NewReader(string(crlf(strings.Replace(sdsMail, "%s", big, 1)))), mailLoad{limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.attachments) != 1 || !m.attachments[0].over || m.attachments[0].size != 1000 || m.attachments[0].doc != nil {
		t.Fatalf("attachments %+v", m.attachments)
	}
	if got := m.attachmentList(); got != "- sds.pdf (application/pdf, not read: larger than the 1000-byte limit (raise kb.max_file_mb to ingest it))" {
		t.Fatalf("list %q", got)
	}
}

func TestMBOXMessagesAreSections(t *testing.T) {
	box := "From joerg@example.com Tue Mar  3 09:15:00 2026\n" +
		"From: joerg@example.com\nSubject: Silane cabinet\nDate: Tue, 3 Mar 2026 09:15:00 +0100\n\nCheck the exhaust.\n>From here on, quoted.\n\n" +
		"From nobody Tue Mar  3 10:00:00 2026\n" +
		"this line is not a header\n\n" +
		"From anna@example.com Wed Mar  4 11:00:00 2026\n" +
		"From: anna@example.com\nSubject: Re: Silane cabinet\n\nDone.\n"
	doc := loadOffice(t, "lab.mbox", []byte(box), LoadOptions{})
	if doc.Format != "mbox" || doc.Meta["subject"] != "Silane cabinet" || doc.Meta["messages"] != "3" || doc.Meta["unreadable_messages"] != "1" {
		t.Fatalf("format %q, meta %v", doc.Format, doc.Meta)
	}
	if len(doc.Sections) != 2 {
		t.Fatalf("%d sections", len(doc.Sections))
	}
	one, two := doc.Sections[0], doc.Sections[1]
	if one.Heading != "Silane cabinet" || one.Text != "From: joerg@example.com\nDate: 2026-03-03T08:15:00Z\n\nCheck the exhaust.\nFrom here on, quoted." {
		t.Fatalf("first: %+v", one)
	}
	if two.Heading != "Re: Silane cabinet" || two.Text != "From: anna@example.com\n\nDone." {
		t.Fatalf("second: %+v", two)
	}
}

func TestBadMailIsSkippedWithItsReason(t *testing.T) {
	deep := "Subject: deep\nContent-Type: multipart/mixed; boundary=b\n\n" + strings.Repeat("--b\nContent-Type: multipart/mixed; boundary=b\n\n", 40)
	for _, c := range []struct {
		name, data, want string
	}{
		{"plain.eml", "this is not an e-mail at all\n", "not a readable e-mail message"},
		{"noboundary.eml", "Subject: x\nContent-Type: multipart/mixed\n\nbody\n", "without a boundary"},
		{"deep.eml", deep, "not a readable e-mail message"},
		{"empty.eml", "Subject: nothing\n\n\n", "no text and no attachments"},
		{"notmbox.mbox", "Subject: x\n\nbody\n", "does not start with a \"From \" line"},
		{"junk.mbox", "From x\nnot a header\n", "none of its 1 messages"},
	} {
		if got := skipReason(t, c.name, crlf(c.data), LoadOptions{}); !strings.Contains(got, c.want) {
			t.Errorf("%s: reason %q, want it to say %q", c.name, got, c.want)
		}
	}
}

func FuzzLoadEML(f *testing.F) {
	f.Add(string(crlf(strings.Replace(sdsMail, "%s", "JVBERg==", 1))))
	f.Add("Subject: a\nContent-Type: multipart/alternative; boundary=x\n\n--x\nContent-Transfer-Encoding: base64\n\n!!\n--x")
	f.Fuzz(func(t *testing.T, data string) {
		if doc, ok := loadBytes(t, []byte(data), ".eml"); ok {
			sectionsOf(t, doc)
		}
	})
}

var labMessage = loadtest.Message{From: "Jörg Müller <joerg@example.com>", Subject: "GefStoffV und Verfahren", Date: "Tue, 3 Mar 2026 09:15:00 +0100"}

const lawMarkdown = "# Gefahrstoffverordnung\n\n## § 6 Informationsermittlung\n\nDie Gefährdungsbeurteilung nach § 7 Absatz 1 ist zu dokumentieren.\n"

// attachmentsOf maps the attachments of doc by name.
func attachmentsOf(doc *Document) map[string]Attachment {
	out := map[string]Attachment{}
	for _, a := range doc.Attachments {
		out[a.Name] = a
	}
	return out
}

func TestEMLAttachmentsAreDocumentsOfTheirOwn(t *testing.T) {
	docx := loadtest.DOCX(loadtest.WordPara("Heading1", "1 Purge")+loadtest.WordPara("", "Purge the pigtail with nitrogen."), nil)
	msg := loadtest.Mail(labMessage, "Anbei die Verordnung.",
		loadtest.MailAttachment{Name: "gefstoffv.md", Type: "text/markdown", Data: []byte(lawMarkdown)},
		loadtest.MailAttachment{Name: "procedure.docx", Type: "application/vnd.openxmlformats-officedocument.wordprocessingml.document", Data: docx},
		loadtest.MailAttachment{Name: "setup.exe", Type: "application/octet-stream", Data: []byte("MZ\x90\x00")},
		loadtest.MailAttachment{Name: `C:\temp\gefstoffv.md`, Type: "text/markdown", Data: []byte("# Zweite Fassung\n\nText.\n")},
		loadtest.MailAttachment{Type: "application/pdf", Data: []byte("not a pdf")})
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // the attachments' temporary files must all be gone afterwards
	doc := loadOffice(t, "mail.eml", msg, LoadOptions{})

	got := attachmentsOf(doc)
	if len(doc.Attachments) != 5 {
		t.Fatalf("attachments %+v", doc.Attachments)
	}
	law := got["gefstoffv.md"].Doc
	if law == nil || law.Format != "markdown" || law.Title != "Gefahrstoffverordnung" || len(law.Sections) == 0 {
		t.Fatalf("markdown attachment: %+v", got["gefstoffv.md"])
	}
	if sum := sha256.Sum256([]byte(lawMarkdown)); law.Hash != hex.EncodeToString(sum[:]) {
		t.Errorf("the attachment's hash is of its own bytes: %s", law.Hash)
	}
	if law.Meta["message_subject"] != "GefStoffV und Verfahren" || law.Meta["message_from"] != "Jörg Müller <joerg@example.com>" || law.Meta["message_date"] != "2026-03-03T08:15:00Z" {
		t.Errorf("message metadata: %v", law.Meta)
	}
	if d := got["procedure.docx"].Doc; d == nil || d.Format != "docx" || !strings.Contains(sectionsText(d), "Purge the pigtail") {
		t.Errorf("Word attachment: %+v", d)
	}
	if a := got["setup.exe"]; a.Doc != nil || !strings.Contains(a.Skip, `unsupported format ".exe"`) {
		t.Errorf("unreadable attachment: %+v", a)
	}
	if d := got["gefstoffv-2.md"].Doc; d == nil || d.Title != "Zweite Fassung" {
		t.Errorf("a second attachment of the same name is numbered, its folder dropped: %+v", doc.Attachments)
	}
	if a := got["attachment.pdf"]; a.Doc != nil || a.Skip == "" {
		t.Errorf("an unnamed PDF is named by its type and skipped with the reason it is no PDF: %+v", a)
	}
	list := bySection(doc)["Attachments"].Text
	for _, want := range []string{"- gefstoffv.md (text/markdown", "- procedure.docx (", `- setup.exe (application/octet-stream, 4 bytes, not read: unsupported format ".exe"`} {
		if !strings.Contains(list, want) {
			t.Errorf("the message lists %q: %s", want, list)
		}
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func sectionsText(d *Document) string {
	var b strings.Builder
	for _, s := range d.Sections {
		b.WriteString(s.Text + "\n")
	}
	return b.String()
}

func TestMBOXAttachmentsAreNamedUnderTheirMessage(t *testing.T) {
	one := loadtest.Mail(loadtest.Message{From: "a@example.com", Subject: "First", Date: "Tue, 3 Mar 2026 09:15:00 +0100"}, "One.",
		loadtest.MailAttachment{Name: "notes.md", Type: "text/markdown", Data: []byte("# Notes\n\nFirst notes.\n")})
	two := loadtest.Mail(loadtest.Message{From: "b@example.com", Subject: "Second", Date: "Wed, 4 Mar 2026 09:15:00 +0100"}, "Two.",
		loadtest.MailAttachment{Name: "notes.md", Type: "text/markdown", Data: []byte("# Notes\n\nSecond notes.\n")})
	doc := loadOffice(t, "lab.mbox", loadtest.MBOX(one, two), LoadOptions{})
	got := attachmentsOf(doc)
	first, second := got["1/notes.md"].Doc, got["2/notes.md"].Doc
	if len(doc.Attachments) != 2 || first == nil || second == nil {
		t.Fatalf("attachments %+v", doc.Attachments)
	}
	if first.Meta["message"] != "1" || first.Meta["message_subject"] != "First" || second.Meta["message"] != "2" || second.Meta["message_from"] != "b@example.com" {
		t.Errorf("metadata %v, %v", first.Meta, second.Meta)
	}
	if !strings.Contains(sectionsText(second), "Second notes.") {
		t.Errorf("second: %+v", second.Sections)
	}
}

// E-mail attached to e-mail is read a few levels down, then listed with the reason.
func TestAttachedMailIsReadToABoundedDepth(t *testing.T) {
	msg := loadtest.Mail(labMessage, "Innermost.", loadtest.MailAttachment{Name: "deep.md", Type: "text/markdown", Data: []byte("# Deep\n\nDeep.\n")})
	for i := range 3 {
		msg = loadtest.Mail(loadtest.Message{From: "x@example.com", Subject: fmt.Sprintf("Fwd %d", i), Date: labMessage.Date, Boundary: fmt.Sprint("fwd", i)}, "Forwarded.",
			loadtest.MailAttachment{Type: "message/rfc822", Data: msg, Encoding: "8bit"})
	}
	doc := loadOffice(t, "fwd.eml", msg, LoadOptions{})
	level := doc
	for depth := 1; depth < maxMailNesting; depth++ {
		if len(level.Attachments) != 1 || level.Attachments[0].Name != "attachment.eml" || level.Attachments[0].Doc == nil {
			t.Fatalf("depth %d: %+v", depth, level.Attachments)
		}
		level = level.Attachments[0].Doc
		if level.Format != "eml" {
			t.Fatalf("depth %d: format %q", depth, level.Format)
		}
	}
	if a := level.Attachments; len(a) != 1 || a[0].Doc != nil || !strings.Contains(a[0].Skip, "levels deep") {
		t.Fatalf("too deep: %+v", a)
	}
}

// A 50 MB attachment is counted through the limit as it streams past, never held whole:
// refused with its reason under a 20 MB limit, and read (here: found to be no PDF) under
// 60 MB, without reading the message allocating anything like its size.
func TestFiftyMBAttachmentKeepsMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 50 MB")
	}
	const size = 50 << 20
	big := func() io.Reader { return io.LimitReader(rand.NewChaCha8([32]byte{1}), size) }
	head := string(loadtest.Mail(labMessage, "Big.", loadtest.MailAttachment{Name: "big.pdf", Type: "application/pdf", Encoding: "8bit"}))
	head = strings.TrimSuffix(head, "\r\n--b0undary--\r\n")

	// Through readMail, base64 as mail carries it: past the limit, counted, not kept.
	r, w := io.Pipe()
	defer r.Close()
	go func() {
		w.Write([]byte(strings.Replace(head, "Content-Transfer-Encoding: 8bit", "Content-Transfer-Encoding: base64", 1)))
		loadtest.WriteBase64Lines(w, big())
		w.Write([]byte("\r\n--b0undary--\r\n"))
		w.Close()
	}()
	var m *mailMessage
	allocated := allocatedBy(func() {
		var err error
		if m, err = readMail(r, mailLoad{limit: 20 << 20}); err != nil {
			t.Fatal(err)
		}
	})
	if len(m.attachments) != 1 || !m.attachments[0].over || !strings.Contains(m.attachments[0].reason, "larger than the 20 MB limit") {
		t.Fatalf("attachments %+v", m.attachments)
	}
	if allocated > size/10 { // about 150 KB when written
		t.Errorf("reading the message allocated %d MB", allocated>>20)
	}

	// Through Load: under 20 MB the file is refused whole; under 60 MB its message is read and
	// the attachment, streamed to a temporary file, found to be no PDF.
	path := filepath.Join(t.TempDir(), "big.eml")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(head)
	io.Copy(f, big())
	f.WriteString("\r\n--b0undary--\r\n")
	f.Close()
	if _, err := Load(path, LoadOptions{MaxFileBytes: 20 << 20}); err == nil || !strings.Contains(err.Error(), "larger than the 20 MB limit") {
		t.Fatalf("20 MB: %v", err)
	}
	var doc *Document
	allocated = allocatedBy(func() {
		if doc, err = Load(path, LoadOptions{MaxFileBytes: 60 << 20}); err != nil {
			t.Fatal(err)
		}
	})
	if a := doc.Attachments; len(a) != 1 || a[0].Doc != nil || a[0].Skip == "" {
		t.Fatalf("attachments %+v", a)
	}
	if allocated > size/2 { // about 60 KB when written: the attachment is never held whole
		t.Errorf("loading the message allocated %d MB", allocated>>20)
	}
}

// allocatedBy is how many bytes fn allocates on the heap, in all.
func allocatedBy(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A picture the HTML body shows (a logo in a signature) is part of the message: listed in
// it, not an attachment to read or to report as skipped.
func TestEmbeddedImagesAreNotAttachments(t *testing.T) {
	msg := "Subject: Logo\nContent-Type: multipart/related; boundary=r\n\n" +
		"--r\nContent-Type: text/html; charset=utf-8\n\n<p>Purge three times.</p><img src=\"cid:logo\">\n" +
		"--r\nContent-Type: image/png; name=\"image001.png\"\nContent-Disposition: inline; filename=\"image001.png\"\nContent-ID: <logo>\nContent-Transfer-Encoding: base64\n\niVBORw0KGgo=\n" +
		"--r--\n"
	doc := loadOffice(t, "logo.eml", crlf(msg), LoadOptions{})
	if len(doc.Attachments) != 0 {
		t.Errorf("attachments %+v", doc.Attachments)
	}
	if list := bySection(doc)["Attachments"].Text; list != "- image001.png (image/png, 8 bytes, shown in the message)" {
		t.Errorf("list %q", list)
	}
}
