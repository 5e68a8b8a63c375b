package kb

import (
	"context"
	"math"
	"testing"

	"warren/kb/chunk"
	"warren/kb/load"
)

// Similarities scores given chunks as Dense ranks them, without ranking: the same score for
// a chunk in both, unknown chunks and collections out of scope left out.
func TestSimilaritiesScoreGivenChunksAsDenseDoes(t *testing.T) {
	_, store := openTestStore(t)
	ctx := context.Background()
	texts := map[string]string{
		"a": "Arsine is a highly toxic hydride gas.",
		"b": "Phosphine smells of garlic and decaying fish.",
		"c": "Silane ignites spontaneously in air.",
	}
	for id, text := range texts {
		for _, col := range []string{"sop", "other"} {
			doc := &load.Document{ID: col + "/" + id, Collection: col, Language: "en", Meta: map[string]string{},
				Sections: []load.Section{{Heading: "Gas", Text: text}}}
			if _, err := store.AddDocument(ctx, doc, Builtin{}, load.ChunkOptions{}, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	query := BuiltinVector("toxic hydride gas arsine")
	scope := chunk.Scope{Collections: []string{"sop"}}
	ranked, err := store.Dense(ctx, query, scope, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(ranked) != 3 {
		t.Fatalf("%d dense hits in sop, want 3", len(ranked))
	}
	ids := []string{"no-such-chunk"}
	for _, h := range ranked {
		ids = append(ids, h.ChunkID)
	}
	other, err := store.Dense(ctx, query, chunk.Scope{Collections: []string{"other"}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	ids = append(ids, other[0].ChunkID)
	got, err := store.Similarities(ctx, query, scope, ids)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(ranked) {
		t.Errorf("%d similarities, want the %d chunks of sop: %v", len(got), len(ranked), got)
	}
	for _, h := range ranked {
		if s, ok := got[h.ChunkID]; !ok || math.Abs(s-h.Score) > 1e-6 {
			t.Errorf("%s: similarity %v (found %v), Dense scores it %v", h.ChunkID, s, ok, h.Score)
		}
	}
	if ranked[0].Score <= ranked[2].Score {
		t.Errorf("the scores do not tell the chunks apart: %+v", ranked)
	}
	all, err := store.Similarities(ctx, query, chunk.Scope{}, ids)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := all[other[0].ChunkID]; !ok || len(all) != len(ranked)+1 {
		t.Errorf("with no collection named, every collection is looked in: %v", all)
	}
}
