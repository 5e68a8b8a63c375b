package kb

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"warren/kb/chunk"
	"warren/kb/load/loadtest"
	"warren/retrieval/refs"
)

const (
	mailMarker  = "Der Arbeitgeber prüft vor jeder Tätigkeit mit Silan die Zündquellen im Gasschrank."
	mailRefText = "Die Gefährdungsbeurteilung nach § 7 Absatz 1 und Artikel 3 der Verordnung (EG) Nr. 1272/2008 ist zu dokumentieren."
)

var mailHeader = loadtest.Message{From: "joerg@example.com", Subject: "GefStoffV und Verfahren", Date: "Tue, 3 Mar 2026 09:15:00 +0100"}

func lawAttachments() []loadtest.MailAttachment {
	docx := loadtest.DOCX(loadtest.WordPara("Heading1", "Abschnitt 2 Gefährdungsbeurteilung")+
		loadtest.WordPara("Heading2", "§ 6 Informationsermittlung")+
		loadtest.WordPara("", mailMarker)+loadtest.WordPara("", mailRefText), nil)
	md := "# Abschnitt 2 Gefährdungsbeurteilung\n\n## § 6 Informationsermittlung\n\n" + mailMarker + "\n\n" + mailRefText + "\n"
	return []loadtest.MailAttachment{
		{Name: "gefstoffv.md", Type: "text/markdown", Data: []byte(md)},
		{Name: "gefstoffv.docx", Type: "application/vnd.openxmlformats-officedocument.wordprocessingml.document", Data: docx},
		{Name: "setup.exe", Type: "application/octet-stream", Data: []byte("MZ\x90\x00")},
	}
}

// statuses maps an ingest's report lines by path to their status.
func statuses(rep *IngestReport) map[string]string {
	out := map[string]string{}
	for _, f := range rep.Files {
		out[f.Path] = f.Status
	}
	return out
}

func TestEMLAttachmentsAreIngestedAsDocumentsOfTheirOwn(t *testing.T) {
	_, store := openTestStore(t)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "mail.eml")
	writeMail := func(atts ...loadtest.MailAttachment) {
		t.Helper()
		if err := os.WriteFile(path, loadtest.Mail(mailHeader, "Anbei die Verordnung in zwei Fassungen.", atts...), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ingest := func() *IngestReport {
		t.Helper()
		items, err := CollectItems([]string{path}, "inbox")
		if err != nil {
			t.Fatal(err)
		}
		rep, err := store.Ingest(ctx, items, IngestOptions{Embedder: Builtin{}})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	writeMail(lawAttachments()...)

	rep := ingest()
	got := statuses(rep)
	if rep.Ingested != 3 || rep.Skipped != 1 || got[path] != StatusIngested || got[path+" › gefstoffv.md"] != StatusIngested ||
		got[path+" › gefstoffv.docx"] != StatusIngested || got[path+" › setup.exe"] != StatusSkipped {
		t.Fatalf("report: %+v", rep.Files)
	}
	for _, f := range rep.Files {
		switch {
		case f.Path == path:
			if f.Doc != "mail.eml" || f.AttachedTo != "" {
				t.Errorf("message line: %+v", f)
			}
		case f.Doc != "mail.eml/"+filepath.Base(f.Path[len(path+" › "):]) || f.AttachedTo != "mail.eml":
			t.Errorf("attachment line: %+v", f)
		case f.Status == StatusSkipped && f.Reason == "":
			t.Errorf("skipped without a reason: %+v", f)
		}
	}
	docs, err := store.Documents(ctx, "inbox")
	if err != nil || len(docs) != 3 {
		t.Fatalf("documents: %+v %v", docs, err)
	}
	info, ok, err := store.Document(ctx, "mail.eml/gefstoffv.md")
	if err != nil || !ok || info.Meta[MetaAttachedTo] != "mail.eml" || info.Meta["message_subject"] != "GefStoffV und Verfahren" ||
		info.Meta["message_from"] != "joerg@example.com" || info.Format != "markdown" || info.Source != path+" › gefstoffv.md" {
		t.Fatalf("attachment document: %+v %v", info, err)
	}

	// Searched, cited by its own ID, and its references detected as in any Markdown file.
	hits, err := store.Lexical(ctx, "Zündquellen Gasschrank Silan", "de", chunk.Scope{Doc: "mail.eml/gefstoffv.docx"}, 5)
	if err != nil || len(hits) == 0 {
		t.Fatalf("search: %+v %v", hits, err)
	}
	if top, err := store.Chunks(ctx, []string{hits[0].ChunkID}); err != nil || len(top) != 1 || top[0].Doc != "mail.eml/gefstoffv.docx" || top[0].Section != "§ 6" {
		t.Errorf("top passage: %+v %v", top, err)
	}
	keys := func(doc string) []string {
		chunks, err := store.DocumentChunks(ctx, doc)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range chunks {
			if c.Section == "§ 6" {
				for _, r := range refs.DetectRegex(c.Text) {
					out = append(out, r.Key())
				}
			}
		}
		return out
	}
	fromMD, fromDOCX := keys("mail.eml/gefstoffv.md"), keys("mail.eml/gefstoffv.docx")
	if len(fromMD) < 2 || !slices.Equal(fromDOCX, fromMD) {
		t.Errorf("references in § 6 of the attachments: Markdown %v, Word %v", fromMD, fromDOCX)
	}

	// Unchanged: the message and its attachments alike.
	if rep = ingest(); rep.Unchanged != 3 || rep.Ingested != 0 || rep.Skipped != 1 {
		t.Errorf("unchanged re-ingest: %+v", rep.Files)
	}

	// An ingest that died before an attachment was stored stores it when run again.
	if _, err := store.RemoveDocument(ctx, "mail.eml/gefstoffv.docx"); err != nil {
		t.Fatal(err)
	}
	if rep = ingest(); rep.Ingested != 1 || rep.Unchanged != 2 || statuses(rep)[path+" › gefstoffv.docx"] != StatusIngested {
		t.Errorf("resumed ingest: %+v", rep.Files)
	}

	// The message changed and dropped its Word attachment: that document goes.
	writeMail(lawAttachments()[0])
	if rep = ingest(); rep.Ingested != 1 || rep.Unchanged != 1 {
		t.Errorf("changed message: %+v", rep.Files)
	}
	if _, ok, _ := store.Document(ctx, "mail.eml/gefstoffv.docx"); ok {
		t.Error("the dropped attachment is still stored")
	}
	if _, ok, _ := store.Document(ctx, "mail.eml/gefstoffv.md"); !ok {
		t.Error("the attachment kept is gone")
	}

	// Removing the message removes its attachments, first.
	removed, err := RemoveDocumentAndAttachments(ctx, store, "mail.eml")
	if err != nil || !slices.Equal(removed, []string{"mail.eml/gefstoffv.md", "mail.eml"}) {
		t.Fatalf("removed %v %v", removed, err)
	}
	if docs, _ := store.Documents(ctx, ""); len(docs) != 0 {
		t.Errorf("left: %+v", docs)
	}
}

func TestMBOXAttachmentsAreIngestedUnderTheirMessage(t *testing.T) {
	_, store := openTestStore(t)
	ctx := context.Background()
	one := loadtest.Mail(loadtest.Message{From: "a@example.com", Subject: "Purge", Date: mailHeader.Date}, "See the procedure.",
		loadtest.MailAttachment{Name: "purge.md", Type: "text/markdown", Data: []byte("# Purge\n\n## 4.2 Purge before disconnect\n\nPurge the pigtail with nitrogen.\n")})
	two := loadtest.Mail(loadtest.Message{From: "b@example.com", Subject: "Leak check", Date: mailHeader.Date}, "And the leak check.",
		loadtest.MailAttachment{Name: "leak.txt", Type: "text/plain", Data: []byte("Leak check with helium after every cylinder change.\n")})
	path := filepath.Join(t.TempDir(), "lab.mbox")
	if err := os.WriteFile(path, loadtest.MBOX(one, two), 0o644); err != nil {
		t.Fatal(err)
	}
	items, err := CollectItems([]string{path}, "inbox")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := store.Ingest(ctx, items, IngestOptions{Embedder: Builtin{}})
	if err != nil {
		t.Fatal(err)
	}
	got := statuses(rep)
	if rep.Ingested != 3 || got[path+" › message 1 › purge.md"] != StatusIngested || got[path+" › message 2 › leak.txt"] != StatusIngested {
		t.Fatalf("report: %+v", rep.Files)
	}
	for id, subject := range map[string]string{"lab.mbox/1/purge.md": "Purge", "lab.mbox/2/leak.txt": "Leak check"} {
		info, ok, err := store.Document(ctx, id)
		if err != nil || !ok || info.Meta[MetaAttachedTo] != "lab.mbox" || info.Meta["message_subject"] != subject {
			t.Errorf("%s: %+v %v", id, info, err)
		}
	}
	hits, err := store.Lexical(ctx, "helium cylinder", "en", chunk.Scope{Collections: []string{"inbox"}}, 1)
	if err != nil || len(hits) == 0 || hits[0].ChunkID != chunk.ID("lab.mbox/2/leak.txt", 0) {
		t.Errorf("search: %+v %v", hits, err)
	}
}
