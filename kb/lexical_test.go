package kb

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"warren/config"
	"warren/kb/chunk"
	"warren/kb/lexical"
	"warren/kb/load"
)

func addTestDoc(t *testing.T, store *Store, id, coll string, secs ...load.Section) {
	t.Helper()
	doc := &load.Document{ID: id, Collection: coll, Language: "en", Meta: map[string]string{}, Sections: secs}
	if _, err := store.AddDocument(context.Background(), doc, Builtin{}, load.DefaultChunkOptions, nil); err != nil {
		t.Fatal(err)
	}
}

// storedStats reads the totals as kept, and as counted afresh from the index.
func storedStats(t *testing.T, ws *Workspace) (kept, counted lexical.Totals) {
	t.Helper()
	ctx := context.Background()
	read := func() lexical.Totals {
		tot, ok, err := readLexicalTotals(ctx, ws.DB)
		if err != nil || !ok {
			t.Fatalf("totals: %v %v", ok, err)
		}
		return tot
	}
	kept = read()
	tx, err := ws.DB.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	tx.Exec(`DELETE FROM lexical_totals`)
	if err := ensureLexicalStats(ctx, tx); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return kept, read()
}

func TestLexicalStatisticsFollowEveryChange(t *testing.T) {
	ws, store := openTestStore(t)
	ctx := context.Background()
	addTestDoc(t, store, "a", "one",
		load.Section{Number: "1", Heading: "Purge", Text: "Purge the line with nitrogen."},
		load.Section{Number: "2", Heading: "Leaks", Text: "Check the fittings for leaks with nitrogen."})
	addTestDoc(t, store, "b", "one", load.Section{Number: "1", Heading: "Silane", Text: "Silane ignites in air."})
	addTestDoc(t, store, "c", "two", load.Section{Number: "1", Heading: "Arsine", Text: "Arsine is toxic; purge twice."})
	addTestDoc(t, store, "a", "one", load.Section{Number: "1", Heading: "Purge again", Text: "Purge with argon."}) // replaced
	if _, err := store.RemoveDocument(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	steps := []string{"after adds, a replace and a remove"}
	check := func() {
		kept, counted := storedStats(t, ws)
		if kept != counted {
			t.Errorf("%s: kept %+v, counted %+v", steps[len(steps)-1], kept, counted)
		}
	}
	check()
	if err := store.resetCollection(ctx, "two", "other"); err != nil {
		t.Fatal(err)
	}
	steps = append(steps, "after a collection reset")
	check()
	var chunks int64
	ws.DB.QueryRow(`SELECT chunks FROM lexical_totals`).Scan(&chunks)
	if chunks != 1 {
		t.Errorf("%d chunks counted, want 1", chunks)
	}
}

// A workspace indexed before the statistics existed has no totals row: its first search
// counts the index, and so does its first write, before changing it.
func TestLexicalStatisticsOfAnOlderWorkspaceAreCountedOnFirstUse(t *testing.T) {
	for _, first := range []string{"search", "write"} {
		t.Run(first, func(t *testing.T) {
			ws, store := openTestStore(t)
			ctx := context.Background()
			addTestDoc(t, store, "a", "one", load.Section{Number: "1", Heading: "Purge", Text: "Purge the line with nitrogen."})
			addTestDoc(t, store, "b", "one", load.Section{Number: "1", Heading: "Silane", Text: "Silane ignites in air."})
			ws.DB.Exec(`DELETE FROM lexical_totals`)
			switch first {
			case "search":
				hits, err := store.Lexical(ctx, "nitrogen purge", "en", chunk.Scope{}, 5)
				if err != nil || len(hits) != 1 {
					t.Fatalf("search: %+v %v", hits, err)
				}
			case "write":
				addTestDoc(t, store, "a", "one", load.Section{Number: "1", Heading: "Purge", Text: "Purge with argon."})
			}
			kept, counted := storedStats(t, ws)
			if kept != counted || kept.Chunks != 2 {
				t.Errorf("kept %+v, counted %+v", kept, counted)
			}
		})
	}
}

// k1 and b change the ranking as BM25 says they should: with b = 1 a long chunk that says a
// word twice loses to a short one that says it once; with b = 0 it wins.
func TestBM25ParametersChangeTheRanking(t *testing.T) {
	_, store := openTestStore(t)
	store.FeedbackDocs = 0
	filler := strings.Repeat("pressure temperature density viscosity ", 10)
	addTestDoc(t, store, "long", "c", load.Section{Number: "1", Heading: "Notes", Text: "Purge. Purge. " + filler})
	addTestDoc(t, store, "short", "c", load.Section{Number: "1", Heading: "Notes", Text: "Purge the line."})
	for i := range 5 {
		addTestDoc(t, store, fmt.Sprintf("other%d", i), "c", load.Section{Number: "1", Heading: "Other", Text: filler})
	}
	for _, tc := range []struct {
		b    float64
		best string
	}{{1, "short#0000"}, {0, "long#0000"}} {
		store.K1, store.B = 1.2, tc.b
		hits, err := store.Lexical(context.Background(), "purge", "en", chunk.Scope{}, 5)
		if err != nil || len(hits) != 2 {
			t.Fatalf("b=%g: %+v %v", tc.b, hits, err)
		}
		if hits[0].ChunkID != tc.best {
			t.Errorf("b=%g: %s ranks first, want %s", tc.b, hits[0].ChunkID, tc.best)
		}
	}
}

// In the FTS5 reference (fts5ref_test.go), a query made only of terms found in nearly every
// chunk is answered from the chunks that hold all of them, without ranking the whole index:
// with a budget of 10 postings, the candidates are the 20 that FTS5 hands over first.
// Store.Lexical answers the same query from its index in memory.
func TestCommonTermsProposeBoundedCandidates(t *testing.T) {
	_, store := openTestStore(t)
	ctx := context.Background()
	for i := range 60 {
		text := "Pressure and temperature of the gas."
		if i%3 == 0 {
			text = "Pressure only."
		}
		addTestDoc(t, store, fmt.Sprintf("d%02d", i), "c", load.Section{Number: "1", Heading: "Note", Text: text})
	}
	// With a budget of 10 postings both terms are common: RankPooled asks the source for 20
	// candidates that hold them, wanting 10.
	p := store.Params
	p.PostingsBudget = 10
	src := &recordedCandidates{Source: embeddedSource{store}}
	if _, err := lexical.RankPooled(ctx, src, p, "pressure temperature", "en", chunk.Scope{}, 10, 20); err != nil {
		t.Fatal(err)
	}
	if len(src.rare) != 0 || len(src.common) != 2 {
		t.Fatalf("rare %v, common %v", src.rare, src.common)
	}
	if len(src.got) != 20 {
		t.Fatalf("%d candidates, want 20", len(src.got))
	}
	for _, c := range src.got {
		if !strings.Contains(c.Body, "temperatur") {
			t.Errorf("candidate %s lacks one of the common terms: %q", c.ID, c.Body)
		}
	}
	hits, err := store.Lexical(ctx, "pressure temperature", "en", chunk.Scope{}, 5)
	if err != nil || len(hits) != 5 {
		t.Errorf("search: %+v %v", hits, err)
	}
}

// Feedback reorders the candidates by the words the best of them share; it never brings in a
// chunk that says none of the query's words.
func TestFeedbackKeepsToTheCandidates(t *testing.T) {
	_, store := openTestStore(t)
	ctx := context.Background()
	addTestDoc(t, store, "a", "c", load.Section{Number: "1", Heading: "Silane", Text: "Silane is pyrophoric and ignites in air."})
	addTestDoc(t, store, "b", "c", load.Section{Number: "1", Heading: "Pyrophoric gases", Text: "Pyrophoric gases ignite in air."})
	addTestDoc(t, store, "c", "c", load.Section{Number: "1", Heading: "Air", Text: "Silane ignites in air."})
	store.FeedbackDocs = 1
	hits, err := store.Lexical(ctx, "pyrophoric", "en", chunk.Scope{}, 5)
	if err != nil || len(hits) != 2 {
		t.Fatalf("%+v %v", hits, err)
	}
	for _, h := range hits {
		if h.ChunkID == "c#0000" {
			t.Errorf("feedback brought in a chunk without the query's words: %+v", hits)
		}
	}
}

// The configuration's defaults are the store's: config cannot import kb, so the figures are
// written twice and this keeps them in step.
func TestStoreTakesTheLexicalSettingsFromTheConfiguration(t *testing.T) {
	ws, store := openTestStore(t)
	d := config.Default().KB
	if d.BM25K1 != lexical.DefaultBM25K1 || d.BM25B != lexical.DefaultBM25B || d.HeadingWeight != lexical.DefaultHeadingWeight ||
		d.FeedbackDocs != lexical.DefaultFeedbackDocs || d.FeedbackTerms != lexical.DefaultFeedbackTerms ||
		d.Proximity != lexical.DefaultProximity || config.AutoB != lexical.AutoB {
		t.Errorf("config defaults %+v differ from kb's", d)
	}
	if store.K1 != lexical.DefaultBM25K1 || store.B != lexical.DefaultBM25B || store.FeedbackDocs != lexical.DefaultFeedbackDocs {
		t.Errorf("store %+v does not start from the defaults", store)
	}
	ws.Config.KB.BM25K1, ws.Config.KB.BM25B, ws.Config.KB.FeedbackDocs, ws.Config.KB.Proximity = 1.2, 0.3, 0, 0.5
	if s := NewStore(ws); s.K1 != 1.2 || s.B != 0.3 || s.FeedbackDocs != 0 || s.Proximity != 0.5 {
		t.Errorf("store ignores the configuration: k1 %g b %g feedback %d proximity %g", s.K1, s.B, s.FeedbackDocs, s.Proximity)
	}
}

// recordedCandidates records what a ranking asked its source for, and the candidates it got.
type recordedCandidates struct {
	lexical.Source
	rare, common []string
	got          []lexical.Candidate
}

func (r *recordedCandidates) LexicalCandidates(ctx context.Context, rare, common []string, scope chunk.Scope, m, want int) ([]lexical.Candidate, error) {
	r.rare, r.common = rare, common
	cands, err := r.Source.LexicalCandidates(ctx, rare, common, scope, m, want)
	r.got = cands
	return cands, err
}
