package kb

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"warren/kb/chunk"
	"warren/kb/load"
)

// zipfText writes n words drawn from a Zipf law over vocab words, so that a few words are in
// most chunks, as in real text.
func zipfText(r *rand.Rand, z *rand.Zipf, n int) string {
	words := make([]string, n)
	for i := range words {
		words[i] = fmt.Sprintf("word%dx", z.Uint64())
	}
	return strings.Join(words, " ")
}

// The index in memory follows every write: a search after an add, a replace or a removal
// sees it, and only a write makes the index be read again.
func TestLexicalIndexFollowsWrites(t *testing.T) {
	_, store := openTestStore(t)
	ctx := context.Background()
	search := func(q string) []string {
		hits, err := store.Lexical(ctx, q, "en", chunk.Scope{}, 10)
		if err != nil {
			t.Fatal(err)
		}
		var docs []string
		for _, h := range hits {
			docs = append(docs, strings.Split(h.ChunkID, "#")[0])
		}
		return docs
	}
	addTestDoc(t, store, "a", "one", load.Section{Number: "1", Heading: "Purge", Text: "Purge the line with nitrogen."})
	if got := search("nitrogen"); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("after the add: %v", got)
	}
	search("purge")
	if st := store.LexicalStats(); st.Loads != 1 || st.Searches != 2 {
		t.Fatalf("two searches without a write in between must read the index once: %+v", st)
	}
	addTestDoc(t, store, "b", "two", load.Section{Number: "1", Heading: "Argon", Text: "Argon purge."})
	if got := search("argon"); !slices.Equal(got, []string{"b"}) {
		t.Fatalf("after a second add: %v", got)
	}
	addTestDoc(t, store, "a", "one", load.Section{Number: "1", Heading: "Helium", Text: "Helium only."})
	if got := search("nitrogen"); len(got) != 0 {
		t.Fatalf("after the replace: %v", got)
	}
	if _, err := store.RemoveDocument(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	if got := search("argon"); len(got) != 0 {
		t.Fatalf("after the removal: %v", got)
	}
	if got := search("helium"); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("after the removal: %v", got)
	}
	if st := store.LexicalStats(); st.Loads != 4 {
		t.Errorf("three writes, so four reads of the index: %+v", st)
	}
}
