package service

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"warren/kb"
)

// A registry is refused when two entries share a path or a synonym, or when a document lies
// outside its folder (unless that is allowed); a sound one lists its documents.
func TestIngestRegistryRefusesConflictsAndOutsiders(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	write("a.md", "# A\n\nalpha")
	write("b.md", "# B\n\nbeta")
	conflicting := write("conflicting.json", `{"collections": {"general": {"documents": [
		{"path": "a.md", "title": "A", "synonyms": ["the sheet"]}, {"path": "b.md", "title": "B", "synonyms": ["the sheet"]}]}}}`)
	var refused *RegistryRefusal
	if _, _, err := IngestRegistry(conflicting, false); !errors.As(err, &refused) || refused.Outside || len(refused.Problems) == 0 {
		t.Errorf("a synonym of two documents: %v", err)
	}
	outside := write("outside.json", `{"collections": {"general": {"documents": [{"path": "../elsewhere.md", "title": "E"}]}}}`)
	if _, _, err := IngestRegistry(outside, false); !errors.As(err, &refused) || !refused.Outside || refused.Path != outside {
		t.Errorf("a document outside the folder: %v", err)
	}
	if _, items, err := IngestRegistry(outside, true); err != nil || len(items) != 1 {
		t.Errorf("outside allowed: %v %v", items, err)
	}
	bad := write("bad.json", `{"collections": {"Bad Name!": {"documents": [{"path": "a.md"}]}}}`)
	if _, _, err := IngestRegistry(bad, false); err == nil || errors.As(err, &refused) {
		t.Errorf("a collection name warren cannot use: %v", err)
	}
	sound := write("sound.json", `{"collections": {"general": {"documents": [{"path": "a.md", "title": "A"}, {"path": "b.md", "title": "B"}]}}}`)
	reg, items, err := IngestRegistry(sound, false)
	if err != nil || reg == nil || len(items) != 2 || items[0].Path != filepath.Join(dir, "a.md") || items[0].Collection != "general" {
		t.Errorf("a sound registry: %+v %v", items, err)
	}
}

// Synonyms are proposed for documents from their metadata, and saved to the workspace
// registry only when applied; once applied, nothing new is proposed.
func TestSuggestSynonyms(t *testing.T) {
	s := openService(t)
	ctx := context.Background()
	doc := filepath.Join(t.TempDir(), "gas-cabinet.md")
	if err := os.WriteFile(doc, []byte("---\ntitle: Gas Cabinet Operating Procedure (GCOP)\ndoc_number: KS-SOP-0042\n---\n# Scope\n\nCabinets.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	items, err := kb.CollectItems([]string{doc}, "standards")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Knowledge().Ingest(ctx, items, IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	proposals, err := s.Knowledge().SuggestSynonyms(ctx, false)
	if err != nil || len(proposals) != 1 || len(proposals[0].Synonyms) == 0 {
		t.Fatalf("proposals: %+v %v", proposals, err)
	}
	if again, _ := s.Knowledge().SuggestSynonyms(ctx, true); len(again) != 1 {
		t.Errorf("not applied, the same is proposed again: %+v", again)
	}
	reg, err := s.Registry()
	if err != nil {
		t.Fatal(err)
	}
	entry := reg.Collections["standards"].Documents[0]
	if len(entry.Synonyms) != len(proposals[0].Synonyms) {
		t.Errorf("applied: the registry entry is %+v", entry)
	}
	if after, err := s.Knowledge().SuggestSynonyms(ctx, false); err != nil || len(after) != 0 {
		t.Errorf("once applied: %+v %v", after, err)
	}
}
