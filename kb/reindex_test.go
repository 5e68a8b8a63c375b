package kb

import (
	"context"
	"strings"
	"testing"

	"warren/kb/chunk"
	"warren/kb/lexical"
	"warren/kb/load"
)

// dataSheets stores three data sheets whose "Exposure limits" sections name no substance:
// only each document's title says whose they are.
func dataSheets(t *testing.T, store *Store) {
	t.Helper()
	for _, d := range []struct{ id, title, limit string }{
		{"co.md", "Gas Data Sheet: Carbon Monoxide", "TWA 25 ppm."},
		{"arsine.md", "Gas Data Sheet: Arsine", "TWA 0.005 ppm."},
		{"phosphine.md", "Supplier Gas Data Sheet: Phosphine", "TWA 0.05 ppm; short-term limit 0.15 ppm, a limit for every shift and every exposure of the staff to the gas in the cabinets."},
	} {
		doc := &load.Document{ID: d.id, Collection: "sds", Title: d.title, Language: "en", Meta: map[string]string{},
			Sections: []load.Section{{Number: "1", Heading: "Identity", Text: "A colourless gas supplied in cylinders."},
				{Number: "8", Heading: "Exposure limits", Text: d.limit}}}
		if _, err := store.AddDocument(context.Background(), doc, Builtin{}, load.DefaultChunkOptions, nil); err != nil {
			t.Fatal(err)
		}
	}
}

func topChunk(t *testing.T, store *Store, query string) string {
	t.Helper()
	hits, err := store.Lexical(context.Background(), query, "en", chunk.Scope{}, 3)
	if err != nil || len(hits) == 0 {
		t.Fatalf("%q: %v %v", query, hits, err)
	}
	return hits[0].ChunkID
}

func TestTheDocumentsTitleIsInEveryChunksHeading(t *testing.T) {
	_, store := openTestStore(t)
	dataSheets(t, store)
	if got, want := topChunk(t, store, "phosphine exposure limit"), chunk.ID("phosphine.md", 1); got != want {
		t.Errorf("phosphine exposure limit: first %s, want %s", got, want)
	}
	if got, want := topChunk(t, store, "arsine exposure limit"), chunk.ID("arsine.md", 1); got != want {
		t.Errorf("arsine exposure limit: first %s, want %s", got, want)
	}
	if n, err := store.IndexStale(context.Background()); err != nil || n != 0 {
		t.Errorf("a workspace written now is stale: %d %v", n, err)
	}
}

// An index written by an older warren (the titles not in the headings) is analysed again by
// Reindex, in one transaction, with progress, and searched as a fresh one is afterwards.
func TestReindexBringsAnOlderIndexUpToDate(t *testing.T) {
	ws, store := openTestStore(t)
	dataSheets(t, store)
	ctx := context.Background()
	fresh, _ := storedStats(t, ws)
	// As version 1 wrote it: the section label and heading only.
	rows, err := ws.DB.Query(`SELECT rowid, section, heading, text FROM chunks`)
	if err != nil {
		t.Fatal(err)
	}
	type old struct {
		rowid         int64
		heading, body string
	}
	var olds []old
	for rows.Next() {
		var o old
		var c chunk.Chunk
		rows.Scan(&o.rowid, &c.Section, &c.Heading, &c.Text)
		o.heading, o.body = lexical.IndexedTerms(c, "en")
		olds = append(olds, o)
	}
	rows.Close()
	for _, o := range olds {
		if _, err := ws.DB.Exec(`UPDATE chunks_fts SET heading = ?, body = ? WHERE rowid = ?`, o.heading, o.body, o.rowid); err != nil {
			t.Fatal(err)
		}
	}
	ws.DB.Exec(`UPDATE meta SET value = '1' WHERE key = ?`, indexVersionKey)
	ws.DB.Exec(`UPDATE lexical_totals SET stamp = random()`)
	if got := topChunk(t, store, "phosphine exposure limit"); got == chunk.ID("phosphine.md", 1) {
		t.Log("the old index happens to rank phosphine's limits first too")
	}
	stale, err := store.IndexStale(ctx)
	if err != nil || stale != 6 {
		t.Fatalf("stale: %d %v, want 6", stale, err)
	}
	var calls [][2]int
	n, err := store.Reindex(ctx, func(done, total int) { calls = append(calls, [2]int{done, total}) })
	if err != nil || n != 6 {
		t.Fatalf("reindex: %d %v", n, err)
	}
	if len(calls) == 0 || calls[len(calls)-1] != [2]int{6, 6} {
		t.Errorf("progress: %v", calls)
	}
	var heading string
	ws.DB.QueryRow(`SELECT f.heading FROM chunks_fts f JOIN chunks c ON c.rowid = f.rowid WHERE c.id = ?`, chunk.ID("phosphine.md", 1)).Scan(&heading)
	if !strings.Contains(heading, "phosphin") {
		t.Errorf("the re-indexed heading: %q", heading)
	}
	if got, want := topChunk(t, store, "phosphine exposure limit"), chunk.ID("phosphine.md", 1); got != want {
		t.Errorf("after the re-index: first %s, want %s", got, want)
	}
	kept, counted := storedStats(t, ws)
	if kept != counted || kept != fresh {
		t.Errorf("totals after the re-index: kept %+v, counted %+v, as written fresh %+v", kept, counted, fresh)
	}
	if n, err := store.Reindex(ctx, nil); err != nil || n != 0 {
		t.Errorf("a second re-index: %d %v", n, err)
	}
}

// A cancelled re-index changes nothing: the next open re-indexes.
func TestACancelledReindexLeavesTheOldIndex(t *testing.T) {
	ws, store := openTestStore(t)
	dataSheets(t, store)
	ws.DB.Exec(`UPDATE meta SET value = '1' WHERE key = ?`, indexVersionKey)
	ctx, cancel := context.WithCancel(context.Background())
	if _, err := store.Reindex(ctx, func(int, int) { cancel() }); err == nil {
		t.Fatal("a cancelled re-index succeeded")
	}
	if n, err := store.IndexStale(context.Background()); err != nil || n != 6 {
		t.Errorf("after the cancel: stale %d %v, want 6", n, err)
	}
}
