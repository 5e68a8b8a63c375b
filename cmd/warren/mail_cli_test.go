package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"warren/internal/cli"
	"warren/kb/load/loadtest"
)

// An e-mail's attachments are ingested, listed, searched and removed as documents of their
// own, each saying which message it came with.
func TestMailAttachmentsThroughTheCLI(t *testing.T) {
	ws := t.TempDir()
	warren(t, nil, "init", ws)
	env := []string{"WARREN_WORKSPACE=" + ws, "OLLAMA_HOST=127.0.0.1:1"} // no Ollama: the built-in embedder
	docs := t.TempDir()
	msg := loadtest.Mail(loadtest.Message{From: "joerg@example.com", Subject: "Gas cabinet procedure", Date: "Tue, 3 Mar 2026 09:15:00 +0100"},
		"The procedure is attached.",
		loadtest.MailAttachment{Name: "procedure.md", Type: "text/markdown",
			Data: []byte("# Gas Cabinet Procedure\n\n## 4.2 Purge before disconnect\nPurge the pigtail with nitrogen.\n")},
		loadtest.MailAttachment{Name: "setup.exe", Type: "application/octet-stream", Data: []byte("MZ")})
	if err := os.WriteFile(filepath.Join(docs, "mail.eml"), msg, 0o644); err != nil {
		t.Fatal(err)
	}
	folder := filepath.Base(docs)

	r := warren(t, env, "ingest", docs, "--collection", "inbox")
	if r.code != cli.ExitPartial || !strings.Contains(r.stdout, "mail.eml › setup.exe: unsupported format \".exe\"") || !strings.Contains(r.stdout, "Ingested 2") {
		t.Fatalf("want the message and its Markdown attachment ingested, the program skipped with its reason: %+v", r)
	}

	r = warren(t, env, "kb", "list", "--json")
	var list struct {
		Documents []struct {
			ID, Source string
			Meta       map[string]string
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil || len(list.Documents) != 2 {
		t.Fatalf("kb list: %v %s", err, r.stdout)
	}
	att := list.Documents[1]
	if att.ID != folder+"/mail.eml/procedure.md" || att.Meta["attached_to"] != folder+"/mail.eml" || att.Meta["message_subject"] != "Gas cabinet procedure" ||
		!strings.HasSuffix(att.Source, "mail.eml › procedure.md") {
		t.Errorf("the attachment as listed: %+v", att)
	}

	r = warren(t, env, "search", "purging nitrogen", "--json", "-k", "1")
	var hits []struct{ Doc, Section string }
	if err := json.Unmarshal([]byte(r.stdout), &hits); err != nil || len(hits) == 0 || hits[0].Doc != folder+"/mail.eml/procedure.md" || hits[0].Section != "4.2" {
		t.Errorf("search: %+v %v", r, err)
	}
	if r = warren(t, env, "registry", "check"); r.code != 0 {
		t.Errorf("attachments, which have no file, stay out of the workspace registry: %+v", r)
	}

	if r = warren(t, env, "kb", "rm", "mail.eml"); r.code != 0 || !strings.Contains(r.stdout, "procedure.md") {
		t.Fatalf("kb rm: %+v", r)
	}
	r = warren(t, env, "kb", "list", "--json")
	if json.Unmarshal([]byte(r.stdout), &list) != nil || len(list.Documents) != 0 {
		t.Errorf("removing the message removes its attachments: %s", r.stdout)
	}
}
