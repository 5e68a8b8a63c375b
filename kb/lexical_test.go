package kb

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"warren/config"
)

func addTestDoc(t *testing.T, store *Store, id, coll string, secs ...Section) {
	t.Helper()
	doc := &Document{ID: id, Collection: coll, Language: "en", Meta: map[string]string{}, Sections: secs}
	if _, err := store.AddDocument(context.Background(), doc, Builtin{}, DefaultChunkOptions, nil); err != nil {
		t.Fatal(err)
	}
}

// storedStats reads the totals as kept, and as counted afresh from the index.
func storedStats(t *testing.T, ws *Workspace) (kept, counted LexicalTotals) {
	t.Helper()
	ctx := context.Background()
	read := func() LexicalTotals {
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
		Section{Number: "1", Heading: "Purge", Text: "Purge the line with nitrogen."},
		Section{Number: "2", Heading: "Leaks", Text: "Check the fittings for leaks with nitrogen."})
	addTestDoc(t, store, "b", "one", Section{Number: "1", Heading: "Silane", Text: "Silane ignites in air."})
	addTestDoc(t, store, "c", "two", Section{Number: "1", Heading: "Arsine", Text: "Arsine is toxic; purge twice."})
	addTestDoc(t, store, "a", "one", Section{Number: "1", Heading: "Purge again", Text: "Purge with argon."}) // replaced
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
			addTestDoc(t, store, "a", "one", Section{Number: "1", Heading: "Purge", Text: "Purge the line with nitrogen."})
			addTestDoc(t, store, "b", "one", Section{Number: "1", Heading: "Silane", Text: "Silane ignites in air."})
			ws.DB.Exec(`DELETE FROM lexical_totals`)
			switch first {
			case "search":
				hits, err := store.Lexical(ctx, "nitrogen purge", "en", Scope{}, 5)
				if err != nil || len(hits) != 1 {
					t.Fatalf("search: %+v %v", hits, err)
				}
			case "write":
				addTestDoc(t, store, "a", "one", Section{Number: "1", Heading: "Purge", Text: "Purge with argon."})
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
	addTestDoc(t, store, "long", "c", Section{Number: "1", Heading: "Notes", Text: "Purge. Purge. " + filler})
	addTestDoc(t, store, "short", "c", Section{Number: "1", Heading: "Notes", Text: "Purge the line."})
	for i := range 5 {
		addTestDoc(t, store, fmt.Sprintf("other%d", i), "c", Section{Number: "1", Heading: "Other", Text: filler})
	}
	for _, tc := range []struct {
		b    float64
		best string
	}{{1, "short#0000"}, {0, "long#0000"}} {
		store.K1, store.B = 1.2, tc.b
		hits, err := store.Lexical(context.Background(), "purge", "en", Scope{}, 5)
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
		addTestDoc(t, store, fmt.Sprintf("d%02d", i), "c", Section{Number: "1", Heading: "Note", Text: text})
	}
	const budget = 10
	q := newLexicalQuery([]string{"pressur", "temperatur"})
	totals, _ := store.lexicalTotalsNow(ctx)
	if err := weighFrom(ctx, embeddedSource{store}, q, totals); err != nil {
		t.Fatal(err)
	}
	rare, common := q.splitByBudget(budget)
	if len(rare) != 0 || len(common) != 2 {
		t.Fatalf("rare %v, common %v", rare, common)
	}
	rowids, err := store.lexicalCandidates(ctx, termsOf(rare), termsOf(common), Scope{}, 20, 10)
	if err != nil || len(rowids) != 20 {
		t.Fatalf("%d candidates, want 20: %v", len(rowids), err)
	}
	docs, err := store.indexedTerms(ctx, rowids)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		if !strings.Contains(d.body, "temperatur") {
			t.Errorf("candidate %d lacks one of the common terms: %q", d.rowid, d.body)
		}
	}
	hits, err := store.Lexical(ctx, "pressure temperature", "en", Scope{}, 5)
	if err != nil || len(hits) != 5 {
		t.Errorf("search: %+v %v", hits, err)
	}
}

// Feedback reorders the candidates by the words the best of them share; it never brings in a
// chunk that says none of the query's words.
func TestFeedbackKeepsToTheCandidates(t *testing.T) {
	_, store := openTestStore(t)
	ctx := context.Background()
	addTestDoc(t, store, "a", "c", Section{Number: "1", Heading: "Silane", Text: "Silane is pyrophoric and ignites in air."})
	addTestDoc(t, store, "b", "c", Section{Number: "1", Heading: "Pyrophoric gases", Text: "Pyrophoric gases ignite in air."})
	addTestDoc(t, store, "c", "c", Section{Number: "1", Heading: "Air", Text: "Silane ignites in air."})
	store.FeedbackDocs = 1
	hits, err := store.Lexical(ctx, "pyrophoric", "en", Scope{}, 5)
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
	if d.BM25K1 != DefaultBM25K1 || d.BM25B != DefaultBM25B || d.HeadingWeight != DefaultHeadingWeight ||
		d.FeedbackDocs != DefaultFeedbackDocs || d.FeedbackTerms != DefaultFeedbackTerms {
		t.Errorf("config defaults %+v differ from kb's", d)
	}
	if store.K1 != DefaultBM25K1 || store.B != DefaultBM25B || store.FeedbackDocs != DefaultFeedbackDocs {
		t.Errorf("store %+v does not start from the defaults", store)
	}
	ws.Config.KB.BM25K1, ws.Config.KB.BM25B, ws.Config.KB.FeedbackDocs = 2, 0.3, 0
	if s := NewStore(ws); s.K1 != 2 || s.B != 0.3 || s.FeedbackDocs != 0 {
		t.Errorf("store ignores the configuration: k1 %g b %g feedback %d", s.K1, s.B, s.FeedbackDocs)
	}
}
