package lexical

import (
	"cmp"
	"context"
	"slices"
	"strings"
)

// A document's identity in the feedback. Every chunk of a document carries the document's
// title and the substances its front matter names in its heading field (kb.IndexedTerms), so
// a question naming a substance finds that substance's chunks. The pseudo-relevance feedback
// undid it for a short question ("phosphine exposure limit", docs/retrieval.md): its best
// chunks were other substances' short "Exposure limits" sections, whose names it lent back to
// the query, and those sections outranked phosphine's own data sheet. So:
//
//   - A document's identity terms are the heading terms every one of its chunks holds, in a
//     document of two or more chunks (a document of one chunk names nothing apart from its
//     heading, so the collections of one chunk a document rank as before).
//   - A query term that is some document's identity term names what the question is about.
//     When a query names something, the feedback reads only the candidates that hold every
//     term it names (unless none does), so it learns what is said about that.
//   - A feedback chunk does not lend its own document's identity terms from its heading:
//     they are there because of the document, not because the passage says them.

// IdentityTerms are the identity terms of a document from its chunks' analysed headings
// (space-separated, as IndexedTerms writes them), in the order of the first: the terms every
// heading holds, when there are two or more; none otherwise. The index in memory derives
// the same from its chunks (Index.markIdentity); another backend stores them with the
// document.
func IdentityTerms(headings []string) []string {
	if len(headings) < 2 {
		return nil
	}
	count := map[string]int{}
	var order []string
	for _, h := range headings {
		seen := map[string]bool{}
		eachTerm(h, func(t string) {
			if seen[t] {
				return
			}
			seen[t] = true
			if count[t] == 0 {
				order = append(order, t)
			}
			count[t]++
		})
	}
	var out []string
	for _, t := range order {
		if count[t] == len(headings) {
			out = append(out, t)
		}
	}
	return out
}

// Identities are the identity terms of the documents another backend ranks over
// (IdentitySource).
type Identities struct {
	byDoc map[string][]string // by document ID
	terms map[string]bool     // every document's
}

// NewIdentities holds the identity terms of documents, by document ID.
func NewIdentities(byDoc map[string][]string) Identities {
	terms := map[string]bool{}
	for _, ts := range byDoc {
		for _, t := range ts {
			terms[t] = true
		}
	}
	return Identities{byDoc: byDoc, terms: terms}
}

// Of are a document's identity terms.
func (ids Identities) Of(doc string) []string { return ids.byDoc[doc] }

// Documents are the documents that have identity terms.
func (ids Identities) Documents() []string {
	out := make([]string, 0, len(ids.byDoc))
	for d := range ids.byDoc {
		out = append(out, d)
	}
	slices.Sort(out)
	return out
}

// IdentitySource is a Source that knows its documents' identity terms. A Source that does
// not is ranked with feedback as it was before identities (no query names anything).
type IdentitySource interface {
	Identities(ctx context.Context) (Identities, error)
}

// named are the query's terms that are some document's identity terms.
func (ids Identities) named(q Query) []string {
	var out []string
	for _, t := range q {
		if ids.terms[t.term] {
			out = append(out, t.term)
		}
	}
	return out
}

// docOfChunk is the document of a chunk ID (chunk.ID: the document, "#", the chunk's number).
func docOfChunk(id string) string {
	if i := strings.LastIndexByte(id, '#'); i >= 0 {
		return id[:i]
	}
	return id
}

// markIdentity derives each document's identity terms from its chunks' heading entries.
func (ix *Index) markIdentity() {
	ix.identity = make([]bool, len(ix.terms))
	ix.docIdentity = make([][]int32, len(ix.docs))
	slots := make([]int32, 0, len(ix.chunks))
	for i, c := range ix.chunks {
		if c.doc >= 0 {
			slots = append(slots, int32(i))
		}
	}
	slices.SortStableFunc(slots, func(a, b int32) int { return cmp.Compare(ix.chunks[a].doc, ix.chunks[b].doc) })
	count := make([]int32, len(ix.terms))
	var touched []int32
	for lo := 0; lo < len(slots); {
		doc := ix.chunks[slots[lo]].doc
		hi := lo + 1
		for hi < len(slots) && ix.chunks[slots[hi]].doc == doc {
			hi++
		}
		n := int32(hi - lo)
		if n >= 2 {
			for _, slot := range slots[lo:hi] {
				c := &ix.chunks[slot]
				for _, e := range ix.entries[c.lo:c.hi] {
					if e.head == 0 {
						continue
					}
					if count[e.term] == 0 {
						touched = append(touched, e.term)
					}
					count[e.term]++
				}
			}
			var own []int32
			for _, t := range touched {
				if count[t] == n {
					own = append(own, t)
					ix.identity[t] = true
				}
				count[t] = 0
			}
			touched = touched[:0]
			slices.Sort(own)
			ix.docIdentity[doc] = own
		}
		lo = hi
	}
}

// named are the query's terms that are some document's identity terms, by term number.
func (ix *Index) named(q Query) []int32 {
	var out []int32
	for _, t := range q {
		if id, ok := ix.ids[t.term]; ok && ix.identity[id] {
			out = append(out, id)
		}
	}
	return out
}

// holdsAll tells whether a chunk holds every one of the terms (heading or body).
func (ix *Index) holdsAll(c *lexChunk, terms []int32) bool {
	entries := ix.entries[c.lo:c.hi]
	for _, t := range terms {
		if _, ok := slices.BinarySearchFunc(entries, t, func(e lexEntry, t int32) int { return cmp.Compare(e.term, t) }); !ok {
			return false
		}
	}
	return true
}

// ofIdentity tells whether a term is one of the identity terms of a chunk's document.
func (ix *Index) ofIdentity(c *lexChunk, term int32) bool {
	if c.doc < 0 || int(c.doc) >= len(ix.docIdentity) {
		return false
	}
	_, ok := slices.BinarySearch(ix.docIdentity[c.doc], term)
	return ok
}

// Identities are the index's documents' identity terms, as another backend stores them
// (IdentitySource).
func (ix *Index) Identities() Identities {
	byDoc := map[string][]string{}
	for doc, d := range ix.docs {
		if int(d) < len(ix.docIdentity) && len(ix.docIdentity[d]) > 0 {
			terms := make([]string, len(ix.docIdentity[d]))
			for i, t := range ix.docIdentity[d] {
				terms[i] = ix.terms[t]
			}
			byDoc[doc] = terms
		}
	}
	return NewIdentities(byDoc)
}
