package retrieval

import (
	"context"
	"strings"
	"testing"

	"warren/kb"
)

func TestFuseIsReciprocalRankAndDeterministic(t *testing.T) {
	lex := []kb.Hit{{ChunkID: "a", Score: 9}, {ChunkID: "b", Score: 5}}
	dense := []kb.Hit{{ChunkID: "b", Score: 0.9}, {ChunkID: "c", Score: 0.8}}
	got := fuse(Hybrid, lex, dense, 1)
	var ids []string
	for _, r := range got {
		ids = append(ids, r.ID)
	}
	if strings.Join(ids, ",") != "b,a,c" {
		t.Errorf("b is in both rankings and must lead: %v", ids)
	}
	if got[0].LexicalRank != 2 || got[0].DenseRank != 1 || got[1].DenseRank != 0 {
		t.Errorf("ranks not recorded: %+v", got)
	}
	if low := fuse(Hybrid, lex, dense, 0); low[0].ID != "a" || low[1].ID != "b" {
		t.Errorf("with the dense ranking weighed 0, lexical order stands: %+v", low)
	}
	if lexOnly := fuse(Lexical, lex, nil, 1); lexOnly[0].Score != 9 {
		t.Errorf("single-ranking modes keep their scores: %+v", lexOnly)
	}
}

func TestFilterRelevantBackfillsFromTheBestRejected(t *testing.T) {
	type scored struct {
		id    string
		score float64
	}
	items := []scored{{"a", 0.9}, {"b", 0.2}, {"c", 0.5}, {"d", 0.1}}
	score := func(s scored) float64 { return s.score }
	kept, rejected := FilterRelevant(items, score, 0.6, 3)
	var k, r []string
	for _, s := range kept {
		k = append(k, s.id)
	}
	for _, s := range rejected {
		r = append(r, s.id)
	}
	if strings.Join(k, ",") != "a,c,b" || strings.Join(r, ",") != "d" {
		t.Errorf("kept %v rejected %v", k, r)
	}
	kept, _ = FilterRelevant(items, score, 0.6, 0)
	if len(kept) != 1 {
		t.Errorf("without min_results only a passes: %v", kept)
	}
}

func TestSearchModesAndScopesOnTheCorpus(t *testing.T) {
	store, _ := corpusStore(t)
	s := &Searcher{Store: store}
	ctx := context.Background()
	for _, mode := range []Mode{Hybrid, Dense, Lexical} {
		res, err := s.Search(ctx, Request{Query: "JSON Patch test operation compares values", K: 5, Mode: mode})
		if err != nil {
			t.Fatal(err)
		}
		if len(res) == 0 || res[0].Doc != "rfc/rfc6902.txt" {
			t.Errorf("%s: want RFC 6902 first, got %+v", mode, res)
		}
	}
	res, err := s.Search(ctx, Request{Query: "Gefährdungsbeurteilung Arbeitgeber", Scope: kb.Scope{Doc: "gesetze/GefStoffV", Section: "§ 6"}, K: 3})
	if err != nil || len(res) == 0 {
		t.Fatalf("scoped search: %v %v", res, err)
	}
	for _, r := range res {
		if r.Doc != "gesetze/GefStoffV" || r.Section != "§ 6" {
			t.Errorf("scope leaked: %s %s", r.Doc, r.Section)
		}
	}
	res, _ = s.Search(ctx, Request{Query: "Gefährdungsbeurteilung", Scope: kb.Scope{Collections: []string{"rfc"}}, K: 3, Mode: Lexical})
	if len(res) != 0 {
		t.Errorf("no German law in the rfc collection: %+v", res)
	}
	if _, err := s.Search(ctx, Request{Query: "x", Mode: "telepathic"}); err == nil {
		t.Error("an unknown mode must be refused")
	}
}
