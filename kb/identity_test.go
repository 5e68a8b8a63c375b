package kb

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"warren/kb/chunk"
	"warren/kb/lexical"
	"warren/kb/load"
)

// withoutIdentities serves the embedded index to lexical.Rank as a backend that keeps no
// identity terms: the feedback as it was before them.
type withoutIdentities struct{ s *Store }

func (w withoutIdentities) LexicalTotals(ctx context.Context) (lexical.Totals, error) {
	return embeddedSource(w).LexicalTotals(ctx)
}
func (w withoutIdentities) LengthB(ctx context.Context, p lexical.Params) (float64, error) {
	return embeddedSource(w).LengthB(ctx, p)
}
func (w withoutIdentities) DocumentFrequencies(ctx context.Context, terms []string) (map[string]int64, error) {
	return embeddedSource(w).DocumentFrequencies(ctx, terms)
}
func (w withoutIdentities) LexicalCandidates(ctx context.Context, rare, common []string, scope chunk.Scope, m, want int) ([]lexical.Candidate, error) {
	return embeddedSource(w).LexicalCandidates(ctx, rare, common, scope, m, want)
}

// longTableSheets stores data sheets as the sample's are written: the substance named in the
// title only, its exposure limit one row of a long table on one sheet, a short section of
// its own on the others.
func longTableSheets(t *testing.T, store *Store) {
	t.Helper()
	fields := []string{"Molecular weight | 34 g/mol", "Physical form | liquefied gas", "Boiling point | −88 °C",
		"Classification | Flam. Gas 1; Acute Tox. 1", "Signal word | Danger", "Pictograms | GHS02, GHS06",
		"Hazard statements | H220, H330", "Odour | garlic, no warning", "Packing group | none", "Valve | DISS 632",
		"Synonyms | phosphorus trihydride, hydrogen phosphide", "CAS number | 7803-51-2", "UN number | 2199", "Formula | PH3"}
	table := "| Field | Value |\n|---|---|\n| Exposure limit | Ontario OEL TWA 0.3 ppm, STEL 1 ppm |\n"
	for _, f := range fields {
		table += "| " + f + " |\n"
	}
	for i := range 12 {
		table += fmt.Sprintf("| Test pressure, cylinder size %d | %d bar |\n", i+1, 200+10*i)
	}
	add := func(id, title string, secs ...load.Section) {
		doc := &load.Document{ID: id, Collection: "suppliers", Title: title, Language: "en", Meta: map[string]string{}, Sections: secs}
		if _, err := store.AddDocument(context.Background(), doc, Builtin{}, load.DefaultChunkOptions, nil); err != nil {
			t.Fatal(err)
		}
	}
	add("phosphine.md", "Gas Data Sheet: Phosphine",
		load.Section{Number: "1", Heading: "Identification", Text: table},
		load.Section{Number: "2", Heading: "Handling", Text: "Keep cylinders upright and chained; purge with nitrogen before opening the line."})
	for i, s := range []string{"Arsine", "Diborane", "Germane", "Silane", "Stibine", "Chlorine", "Ammonia", "Fluorine"} {
		add(strings.ToLower(s)+".md", "Gas Data Sheet: "+s,
			load.Section{Number: "1", Heading: "Identification", Text: s + " is supplied as a compressed gas in cylinders."},
			load.Section{Number: "2", Heading: "Exposure limits", Text: fmt.Sprintf("Occupational exposure limit (Ontario OEL): TWA 0.0%d ppm; no STEL.", i+2)},
			load.Section{Number: "3", Heading: "Handling", Text: "Keep cylinders upright and chained; purge with nitrogen before opening the line."})
	}
}

// A question naming a substance and a property finds the substance's sheet first, though
// the other sheets' short "Exposure limits" sections hold more of its words: the feedback
// learns from the chunks that hold the substance's name, and a feedback chunk does not lend
// its own document's name. Ranked without identities (as before them) the question finds
// another substance's section, so the test shows what the identities do; lexical.Rank over
// a backend that keeps them ranks as the embedded store.
func TestAQueryNamingADocumentTakesItsFeedbackFromWhatNamesIt(t *testing.T) {
	_, store := openTestStore(t)
	longTableSheets(t, store)
	ctx := context.Background()
	ids, err := store.LexicalIdentities(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ids.Of("phosphine.md"), []string{"data", "ga", "phosphin", "sheet"}; !slices.Equal(sorted(got), want) {
		t.Errorf("phosphine.md's identity %q, want %q", got, want)
	}
	const query = "phosphine exposure limit"
	want, err := store.Lexical(ctx, query, "en", chunk.Scope{}, 10)
	if err != nil || len(want) == 0 {
		t.Fatal(want, err)
	}
	if doc := docOf(want[0].ChunkID); doc != "phosphine.md" {
		t.Errorf("%q: first %s, want phosphine.md's; %v", query, want[0].ChunkID, want)
	}
	for _, q := range []string{query, "arsine exposure limit", "phosphine cylinder test pressure", "gas data sheet", "purge nitrogen"} {
		want, err := store.Lexical(ctx, q, "en", chunk.Scope{}, 10)
		if err != nil {
			t.Fatal(err)
		}
		got, err := lexical.Rank(ctx, embeddedSource{store}, store.Params, q, "en", chunk.Scope{}, 10)
		if err != nil || len(want) == 0 || !slices.Equal(got, want) {
			t.Errorf("%q ranked over a backend that keeps the identities:\n got %v\nwant %v (%v)", q, got, want, err)
		}
	}
	before, err := lexical.Rank(ctx, withoutIdentities{store}, store.Params, query, "en", chunk.Scope{}, 10)
	if err != nil || len(before) == 0 {
		t.Fatal(before, err)
	}
	if docOf(before[0].ChunkID) == "phosphine.md" {
		t.Errorf("without identities %q finds phosphine.md first too: the data do not show what they do (%v)", query, before)
	}
}

// lexical.IdentityTerms, which another backend stores with each document, derives from the
// chunks' indexed headings what the index in memory derives.
func TestIdentityTermsAreWhatTheIndexDerives(t *testing.T) {
	ws, store := openTestStore(t)
	longTableSheets(t, store)
	addTestDoc(t, store, "single.md", "suppliers", load.Section{Number: "1", Heading: "Gas Data Sheet: Neon", Text: "Neon is inert."})
	ctx := context.Background()
	rows, err := ws.DB.Query(`SELECT c.doc, f.heading FROM chunks_fts f JOIN chunks c ON c.rowid = f.rowid ORDER BY f.rowid`)
	if err != nil {
		t.Fatal(err)
	}
	headings := map[string][]string{}
	for rows.Next() {
		var doc, heading string
		if err := rows.Scan(&doc, &heading); err != nil {
			t.Fatal(err)
		}
		headings[doc] = append(headings[doc], heading)
	}
	rows.Close()
	ids, err := store.LexicalIdentities(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(headings) != 10 {
		t.Fatalf("documents: %d", len(headings))
	}
	for doc, hs := range headings {
		if got, want := sorted(ids.Of(doc)), sorted(lexical.IdentityTerms(hs)); !slices.Equal(got, want) {
			t.Errorf("%s: the index derives %q, IdentityTerms %q", doc, got, want)
		}
	}
	if got := ids.Of("single.md"); got != nil {
		t.Errorf("a document of one chunk has identity terms %q", got)
	}
}

func sorted(s []string) []string { s = slices.Clone(s); slices.Sort(s); return s }

func docOf(chunkID string) string { d, _, _ := strings.Cut(chunkID, "#"); return d }
