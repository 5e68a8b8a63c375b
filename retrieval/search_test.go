package retrieval

import (
	"context"
	"math"
	"strings"
	"testing"

	"warren/kb/chunk"
)

func TestFuseWeighsNormalisedScoresAndIsDeterministic(t *testing.T) {
	lex := []chunk.Hit{{ChunkID: "a", Score: 9}, {ChunkID: "b", Score: 5}}
	dense := []chunk.Hit{{ChunkID: "b", Score: 0.9}, {ChunkID: "c", Score: 0.8}}
	order := func(rs []Result) string {
		var ids []string
		for _, r := range rs {
			ids = append(ids, r.ID)
		}
		return strings.Join(ids, ",")
	}
	// Scaled: lexical a 1, b 0; dense b 1, c 0.
	got := fuse(Hybrid, lex, dense, len(dense), 0.6)
	if order(got) != "b,a,c" || got[0].Score != 0.6 {
		t.Errorf("with the dense ranking weighing 0.6, b leads: %+v", got)
	}
	if got[0].LexicalRank != 2 || got[0].DenseRank != 1 || got[1].DenseRank != 0 {
		t.Errorf("ranks not recorded: %+v", got)
	}
	if low := fuse(Hybrid, lex, dense, len(dense), 0.1); order(low) != "a,b,c" {
		t.Errorf("with the dense ranking weighing 0.1, lexical order stands: %+v", low)
	}
	if tie := fuse(Hybrid, lex, dense, len(dense), 0.5); order(tie) != "a,b,c" {
		t.Errorf("a tie keeps lexical order: %+v", tie)
	}
	if one := fuse(Hybrid, lex[:1], nil, 0, 0.1); one[0].Score != 0.9 {
		t.Errorf("a ranking of one hit scales it to 1: %+v", one)
	}
	// A hit after the dense ranking (a lexical candidate scored on the dense side) takes part in
	// the scaling and the score, without a dense rank: dense b 1, c 0, a 0.5.
	withCandidate := append(dense[:2:2], chunk.Hit{ChunkID: "a", Score: 0.85})
	got = fuse(Hybrid, lex, withCandidate, 2, 0.5)
	if order(got) != "a,b,c" || math.Abs(got[0].Score-0.75) > 1e-9 || got[0].DenseRank != 0 || got[1].DenseRank != 1 {
		t.Errorf("the scored candidate weighs in without a dense rank: %+v", got)
	}
	if lexOnly := fuse(Lexical, lex, nil, 0, 0.1); lexOnly[0].Score != 9 {
		t.Errorf("single-ranking modes keep their scores: %+v", lexOnly)
	}
}

// Over built-in vectors the hybrid mode is the lexical ranking, and dense hits only come
// after it, when lexical search finds fewer chunks than asked for.
func TestHybridOverBuiltinVectorsFollowsTheLexicalRanking(t *testing.T) {
	store, _ := corpusStore(t)
	s := &Searcher{Store: store}
	ctx := context.Background()
	for _, q := range []string{"JSON Patch test operation compares values", "Gefährdungsbeurteilung Arbeitgeber Schutzmaßnahmen"} {
		lex, err := s.Search(ctx, Request{Query: q, K: 10, Mode: Lexical})
		if err != nil {
			t.Fatal(err)
		}
		hyb, err := s.Search(ctx, Request{Query: q, K: 10, Mode: Hybrid})
		if err != nil {
			t.Fatal(err)
		}
		if len(lex) != 10 || len(hyb) != 10 {
			t.Fatalf("%q: %d lexical, %d hybrid results", q, len(lex), len(hyb))
		}
		for i := range lex {
			if lex[i].ID != hyb[i].ID || hyb[i].LexicalRank != i+1 {
				t.Errorf("%q: hybrid #%d is %s, lexical #%d is %s", q, i+1, hyb[i].ID, i+1, lex[i].ID)
			}
		}
	}
	// A misspelt word the index lacks: lexical search finds the other word's chunks, dense
	// search adds the misspelt word's neighbours after them.
	q := "Verordnnung Gefährdungsbeurteilung"
	lex, _ := s.Search(ctx, Request{Query: q, K: 200, Mode: Lexical})
	hyb, err := s.Search(ctx, Request{Query: q, K: len(lex) + 5, Mode: Hybrid})
	if err != nil {
		t.Fatal(err)
	}
	if len(lex) == 0 || len(hyb) != len(lex)+5 {
		t.Fatalf("%d lexical, %d hybrid results", len(lex), len(hyb))
	}
	for i, r := range hyb {
		if i < len(lex) && r.ID != lex[i].ID || i >= len(lex) && (r.LexicalRank != 0 || r.DenseRank == 0) {
			t.Errorf("#%d %s (lexical %d, dense %d)", i+1, r.ID, r.LexicalRank, r.DenseRank)
		}
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
	res, err := s.Search(ctx, Request{Query: "Gefährdungsbeurteilung Arbeitgeber", Scope: chunk.Scope{Doc: "gesetze/GefStoffV", Section: "§ 6"}, K: 3})
	if err != nil || len(res) == 0 {
		t.Fatalf("scoped search: %v %v", res, err)
	}
	for _, r := range res {
		if r.Doc != "gesetze/GefStoffV" || r.Section != "§ 6" {
			t.Errorf("scope leaked: %s %s", r.Doc, r.Section)
		}
	}
	res, _ = s.Search(ctx, Request{Query: "Gefährdungsbeurteilung", Scope: chunk.Scope{Collections: []string{"rfc"}}, K: 3, Mode: Lexical})
	if len(res) != 0 {
		t.Errorf("no German law in the rfc collection: %+v", res)
	}
	if _, err := s.Search(ctx, Request{Query: "x", Mode: "telepathic"}); err == nil {
		t.Error("an unknown mode must be refused")
	}
}
