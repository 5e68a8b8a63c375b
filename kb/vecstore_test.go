package kb

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"warren/kb/chunk"
	"warren/kb/load"
	"warren/kb/vectors"
)

func addDoc(t *testing.T, s *Store, id, text string) {
	t.Helper()
	doc := &load.Document{ID: id, Collection: "general", Language: "en", Meta: map[string]string{},
		Sections: []load.Section{{Heading: id, Text: text}}}
	if _, err := s.AddDocument(context.Background(), doc, Builtin{}, load.DefaultChunkOptions, nil); err != nil {
		t.Fatal(err)
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return info.Size()
}

func TestVectorFilesAreAppendedNotRewritten(t *testing.T) {
	ws, store := openTestStore(t)
	ctx := context.Background()
	if _, err := store.vectorStore(ctx); err != nil {
		t.Fatal(err)
	}
	addDoc(t, store, "a.md", "Silane is pyrophoric and ignites in air.")
	if err := store.SaveVectors(ctx); err != nil {
		t.Fatal(err)
	}
	dir := ws.VectorDir()
	vecFile, logFile, _ := vectors.Files(dir, "general")
	head, _ := os.ReadFile(vecFile)
	logHead, _ := os.ReadFile(logFile)

	addDoc(t, store, "b.md", "Arsine is a highly toxic hydride gas.")
	store.RemoveDocument(ctx, "a.md")
	if err := store.SaveVectors(ctx); err != nil {
		t.Fatal(err)
	}
	vec, _ := os.ReadFile(vecFile)
	log, _ := os.ReadFile(logFile)
	if len(vec) <= len(head) || !slices.Equal(vec[:len(head)], head) || !slices.Equal(log[:len(logHead)], logHead) {
		t.Fatalf("the second save must append to both files (vec %d → %d bytes, log %d → %d)", len(head), len(vec), len(logHead), len(log))
	}

	fresh := NewStore(ws)
	hits, err := fresh.Dense(ctx, BuiltinVector("pyrophoric silane"), chunk.Scope{}, 5)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		if strings.HasPrefix(h.ChunkID, "a.md") {
			t.Errorf("a removed chunk was found: %+v", hits)
		}
	}
	if st := fresh.vectors.Stats(); st.FilesRead != 1 || st.Rebuilt != 0 {
		t.Errorf("a fresh store must read the files: %+v", st)
	}
}

func TestDamagedOrStaleVectorFilesAreRebuilt(t *testing.T) {
	tests := []struct {
		name   string
		damage func(t *testing.T, ws *Workspace, store *Store)
	}{
		{"vectors cut short", func(t *testing.T, ws *Workspace, _ *Store) {
			p, _, _ := vectors.Files(ws.VectorDir(), "general")
			os.Truncate(p, fileSize(t, p)-8)
		}},
		{"a vector byte flipped", func(t *testing.T, ws *Workspace, _ *Store) {
			p, _, _ := vectors.Files(ws.VectorDir(), "general")
			b, _ := os.ReadFile(p)
			b[len(b)-3] ^= 0x40
			os.WriteFile(p, b, 0o644)
		}},
		{"last batch torn", func(t *testing.T, ws *Workspace, _ *Store) {
			_, p, _ := vectors.Files(ws.VectorDir(), "general")
			os.Truncate(p, fileSize(t, p)-2)
		}},
		{"a write never saved", func(t *testing.T, ws *Workspace, _ *Store) {
			addDoc(t, NewStore(ws), "c.md", "Phosphine smells of garlic.")
		}},
		{"files missing", func(t *testing.T, ws *Workspace, _ *Store) {
			_, log, _ := vectors.Files(ws.VectorDir(), "general")
			os.Remove(log)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, store := openTestStore(t)
			ctx := context.Background()
			store.vectorStore(ctx)
			addDoc(t, store, "a.md", "Silane is pyrophoric and ignites in air.")
			store.SaveVectors(ctx)
			addDoc(t, store, "b.md", "Arsine is a highly toxic hydride gas.")
			store.SaveVectors(ctx)
			tt.damage(t, ws, store)

			fresh := NewStore(ws)
			if _, err := fresh.Dense(ctx, BuiltinVector("arsine"), chunk.Scope{}, 5); err != nil {
				t.Fatal(err)
			}
			if st := fresh.vectors.Stats(); st.Rebuilt != 1 || st.FilesRead != 0 {
				t.Errorf("want a rebuild from warren.db: %+v", st)
			}
			var chunks int
			ws.DB.QueryRow(`SELECT count(*) FROM chunks`).Scan(&chunks)
			if got := fresh.vectors.Live("general"); got != chunks {
				t.Errorf("rebuilt %d vectors for %d chunks", got, chunks)
			}
			// The rebuild rewrote the files: the next open reads them.
			again := NewStore(ws)
			again.Dense(ctx, BuiltinVector("arsine"), chunk.Scope{}, 5)
			if st := again.vectors.Stats(); st.FilesRead != 1 || st.Rebuilt != 0 {
				t.Errorf("after a rebuild the files must be current: %+v", st)
			}
		})
	}
}
