package service

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"warren/config"
	"warren/internal/schema"
	"warren/kb"
)

// A workspace indexed by an older warren is re-indexed when it is opened, before anything
// searches it, and says how far it has come; the next open has nothing to do.
func TestOpeningAnOlderWorkspaceReindexesIt(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ws")
	if _, err := kb.Init(dir, schema.All()); err != nil {
		t.Fatal(err)
	}
	flags := config.Sources{Flags: map[string]string{"ollama.host": "127.0.0.1:9", "kb.embedder": "builtin"}}
	open := func(progress func(done, total int)) *Service {
		s, err := Open(dir, flags, Options{Owner: "ana", Reindexing: progress})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := open(nil)
	docs := filepath.Join(t.TempDir(), "sds")
	os.MkdirAll(docs, 0o755)
	os.WriteFile(filepath.Join(docs, "phosphine.md"), []byte("---\ntitle: \"Gas Data Sheet: Phosphine\"\n---\n\n# Identity\n\nA gas.\n\n# Exposure limit\n\nTWA 0.3 ppm.\n"), 0o644)
	if rep, err := s.Knowledge().Ingest(context.Background(), nil, IngestOptions{Paths: []string{docs}, Collection: "sds"}); err != nil || rep.Ingested != 1 {
		t.Fatalf("ingest: %+v %v", rep, err)
	}
	if _, err := s.ws.DB.Exec(`UPDATE meta SET value = '1' WHERE key = 'lexical_index_version'`); err != nil {
		t.Fatal(err)
	}
	s.Close()

	var last [2]int
	s = open(func(done, total int) { last = [2]int{done, total} })
	if last[1] == 0 || last[0] != last[1] {
		t.Errorf("the re-index's progress ended at %v", last)
	}
	s.Close()
	last = [2]int{}
	s = open(func(done, total int) { last = [2]int{done, total} })
	defer s.Close()
	if last != [2]int{} {
		t.Errorf("a second open re-indexed again: %v", last)
	}
}
