package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"warren/kb/load/loadtest"
)

// A search hit from a PDF names its page: in the text output after the section, and as page
// and page_kind in the JSON.
func TestSearchHitsOfAPDFNameTheirPage(t *testing.T) {
	ws := t.TempDir()
	warren(t, nil, "init", ws)
	env := []string{"WARREN_WORKSPACE=" + ws, "OLLAMA_HOST=127.0.0.1:1"} // no Ollama: the built-in embedder
	docs := t.TempDir()
	line := func(y int, s string) string { return fmt.Sprintf("BT /F1 12 Tf 72 %d Td (%s) Tj ET", y, s) }
	pdf := loadtest.PDF([]string{
		line(700, "4 Cylinder change") + "\n" + line(686, "Close the cylinder valve first."),
		line(700, "Purge the pigtail with nitrogen before disconnecting it."),
	}, "")
	if err := os.WriteFile(filepath.Join(docs, "procedure.pdf"), pdf, 0o644); err != nil {
		t.Fatal(err)
	}
	if r := warren(t, env, "ingest", docs, "--collection", "standards"); r.code != 0 {
		t.Fatalf("ingest: %+v", r)
	}

	r := warren(t, env, "search", "pigtail nitrogen", "--json", "-k", "1")
	var hits []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &hits); err != nil || len(hits) != 1 {
		t.Fatalf("search --json: %+v %v", r, err)
	}
	if h := hits[0]; h["section"] != "4" || h["page"] != 2.0 || h["page_kind"] != "page" || h["ocr"] != nil {
		t.Errorf("the hit's JSON: %v", h)
	}

	r = warren(t, env, "search", "pigtail nitrogen", "-k", "1")
	if want := filepath.Base(docs) + "/procedure.pdf 4, p. 2 — Cylinder change"; r.code != 0 || !strings.Contains(r.stdout, want) {
		t.Errorf("the text output should name %q: %+v", want, r)
	}
}
