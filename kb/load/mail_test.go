package load

import (
	"encoding/base64"
	"strings"
	"testing"
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
	if att.Heading != "Attachments" || att.Text != "- sds.pdf (application/pdf, 1200 bytes)" {
		t.Fatalf("attachments: %+v", att)
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
	m, err := readMail(strings.NewReader(string(crlf(strings.Replace(sdsMail, "%s", big, 1)))), 1000)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.attachments) != 1 || !m.attachments[0].over || m.attachments[0].size != 1000 {
		t.Fatalf("attachments %+v", m.attachments)
	}
	if got := m.attachmentList(1 << 20); got != "- sds.pdf (application/pdf, larger than the 1 MB limit, not read)" {
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
