package lexical

import (
	"bytes"
	"cmp"
	"encoding/hex"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"warren/kb/analysis"
	"warren/kb/chunk"
)

// The lexical index in memory. Ranking a query of common words through FTS5 meant reading
// long posting lists row by row and every candidate's text from disk (about 12 ms at 100,000
// chunks against 1 ms for a dense query). warren instead reads the analysed terms of every
// chunk once (FTS5's own content) into two compact tables: each term's postings and each
// chunk's terms. A query then walks the postings of its rarer terms, stops walking as soon
// as the terms left can no longer lift an unseen chunk into the candidates (MaxScore), and
// finishes the candidates' scores and the feedback from the chunks' own term lists. Scores
// are BM25 exactly as ranker.score computes them, so the candidates are the true top of the
// query's BM25 ranking. The index is rebuilt when the database changed: every write raises a
// collection's generation, which the index records with the lexical totals.

// lexPosting is a chunk holding a term: its slot in the index and the term's heading and
// body counts in it.
type lexPosting struct {
	slot       int32
	head, body uint16
}

// lexEntry is one distinct term of a chunk, with its heading and body counts.
type lexEntry struct {
	term       int32
	head, body uint16
}

// lexChunk is a chunk as the index holds it; its entries are sorted by term.
type lexChunk struct {
	rowid      int64
	id         string
	length     int32 // heading and body terms
	collection int32
	doc        int32
	section    string
	lo, hi     int32 // its entries in Index.entries
	seq        int32 // its terms in order start at Index.seq[seq] (length + 1 of them)
}

// lexTermInfo bounds what a term can add to a chunk's score: its largest heading and body
// counts and the shortest chunk that holds it.
type lexTermInfo struct {
	maxHead, maxBody uint16
	minLength        int32
}

type Index struct {
	token      string // the database state it reflects, as the store names it
	totals     Totals
	ids        map[string]int32 // term → term number
	terms      []string         // term number → term
	info       []lexTermInfo
	postings   []lexPosting
	postingsAt []int32 // term t's postings are postings[postingsAt[t]:postingsAt[t+1]]
	entries    []lexEntry
	// seq holds each chunk's heading and body terms in order, as the index of the term's
	// entry among the chunk's entries, the heading ended by proxSeparator: what proximity
	// reads (2 bytes a term).
	seq         []uint16
	chunks      []lexChunk // in rowid order
	lengths     []int32    // each chunk's length, packed for the walk through postings
	collections []string
	docs        map[string]int32

	accumulators sync.Pool // of *lexAccumulator

	impactMu     sync.Mutex
	impacts      map[int32][]lexPosting // terms' postings by impact (impactOrder)
	impactRanker ranker
	impactsReady chan struct{} // closed once prepareImpacts is done
	replaced     atomic.Bool   // a newer index took its place: prepareImpacts stops

	derived derivedB // b from the chunks' lengths, per heading weight and target

	identity    []bool    // by term: some document's identity term (identity.go)
	docIdentity [][]int32 // by document: its identity terms, sorted
}

// Stats counts what lexical search did, so that a benchmark proves which path it
// measured.
type Stats struct {
	Searches      int64 // searches answered from the index in memory
	Loads         int64 // times the index was read from warren.db
	SnapshotReads int64 // times it was read from its snapshot instead
	PostingsRead  int64 // postings walked, over all searches
	TermsPruned   int64 // query terms whose postings were left unread (MaxScore)
	LookedUp      int64 // of those, terms whose share was looked up in the chunks' own entries
	StoppedInside int64 // terms whose walk in impact order stopped before their last posting
	ProximityRead int64 // candidates whose terms in order were read for proximity
}

// Cache holds a store's index and counts what lexical search did.
type Cache struct {
	mu                                                                              sync.Mutex // held while the index is read
	index                                                                           *Index
	searches, loads, snapshotReads, postingsRead, prunedTN, lookedUp, stoppedInside atomic.Int64
	proximityRead                                                                   atomic.Int64
}

// Stats reports the lexical search's counters.
func (c *Cache) Stats() Stats {
	return Stats{c.searches.Load(), c.loads.Load(), c.snapshotReads.Load(), c.postingsRead.Load(), c.prunedTN.Load(), c.lookedUp.Load(), c.stoppedInside.Load(),
		c.proximityRead.Load()}
}

// Index returns the index of the database state token: the one in memory, else the snapshot
// in dir if it reflects this state, else the index read() reads from warren.db, which then
// replaces the snapshot (written once the index is in place, so searches need not wait for
// it). The common terms' postings are sorted by impact for p beside the searches.
func (c *Cache) Index(token, dir string, p Params, read func() (*Index, error)) (*Index, error) {
	c.mu.Lock()
	if c.index != nil && c.index.token == token {
		c.mu.Unlock()
		return c.index, nil
	}
	ix, err := readLexSnapshot(dir, token)
	fromDB := err != nil
	if fromDB {
		// A write between reading the token and reading the index leaves a token older than
		// the index: the next search reads it again.
		if ix, err = read(); err != nil {
			c.mu.Unlock()
			return nil, err
		}
		c.loads.Add(1)
	} else {
		c.snapshotReads.Add(1)
	}
	if c.index != nil {
		c.index.replaced.Store(true)
	}
	c.index = ix
	ix.impactsReady = make(chan struct{})
	go ix.prepareImpacts(p.rankerFor(ix), impactWalkMin)
	c.mu.Unlock()
	if fromDB {
		// A snapshot that cannot be written costs the next process a read of warren.db, no more.
		_ = writeLexSnapshot(dir, ix)
	}
	return ix, nil
}

// Search ranks the chunks in scope over ix by BM25 with p's settings, then by the query
// expanded with the best chunks' terms, the feedback ranking again the best pool chunks (at
// least k) of the query's BM25 ranking.
func (c *Cache) Search(ix *Index, q Query, scope chunk.Scope, k, pool int, p Params) []chunk.Hit {
	c.searches.Add(1)
	return ix.search(q, scope, k, max(pool, k), p.rankerFor(ix), p, c)
}

// WaitReady waits until the index in memory has sorted its common terms' postings by impact
// (prepareImpacts), so that a benchmark times searches, not that sorting.
func (c *Cache) WaitReady() {
	c.mu.Lock()
	ix := c.index
	c.mu.Unlock()
	if ix != nil {
		<-ix.impactsReady
	}
}

// ParseQuery analyses a query; lang is its language ("" when unknown: both German and
// English forms of each word are searched). A query of no terms finds nothing.
func ParseQuery(query, lang string) Query { return newQueryOfWords(analysis.QueryWords(query, lang)) }

// Builder reads an index from the chunks' analysed terms and scope tokens, as the store's FTS5
// table holds them (IndexedTerms, ScopeTokens).
type Builder struct {
	ix          *Index
	collections map[string]int32
	// at[term] is where the chunk being read holds the term in entries (when at or after its
	// first entry).
	at []int32
	// tokens are the chunk's terms in order, proxSeparator (as -1) after its heading.
	tokens []int32
}

// NewBuilder starts the index of the database state token; size, the totals kept with the
// statistics, sizes its tables (they are counted again as read).
func NewBuilder(token string, size Totals) *Builder {
	return &Builder{ix: &Index{token: token, ids: map[string]int32{}, docs: map[string]int32{},
		chunks: make([]lexChunk, 0, size.Chunks), entries: make([]lexEntry, 0, size.Heading+size.Body)},
		collections: map[string]int32{}}
}

// Add adds a chunk's analysed heading and body terms (space-separated) and its scope tokens;
// chunks come in rowid order.
func (b *Builder) Add(rowid int64, heading, body, scope []byte) {
	c := lexChunk{rowid: rowid, lo: int32(len(b.ix.entries)), seq: int32(len(b.ix.seq))}
	b.tokens = b.tokens[:0]
	for _, part := range [2]struct {
		text    []byte
		heading bool
	}{{heading, true}, {body, false}} {
		for text := part.text; len(text) > 0; {
			word := text
			if i := bytes.IndexByte(text, ' '); i >= 0 {
				word, text = text[:i], text[i+1:]
			} else {
				text = nil
			}
			if len(word) == 0 {
				continue
			}
			id, ok := b.ix.ids[string(word)]
			if !ok {
				id = int32(len(b.ix.terms))
				t := string(word)
				b.ix.ids[t] = id
				b.ix.terms = append(b.ix.terms, t)
				b.ix.info = append(b.ix.info, lexTermInfo{minLength: math.MaxInt32})
				b.at = append(b.at, -1)
			}
			if b.at[id] < c.lo {
				b.at[id] = int32(len(b.ix.entries))
				b.ix.entries = append(b.ix.entries, lexEntry{term: id})
			}
			e := &b.ix.entries[b.at[id]]
			if part.heading {
				e.head = min(e.head+1, math.MaxUint16)
				b.ix.totals.Heading++
			} else {
				e.body = min(e.body+1, math.MaxUint16)
				b.ix.totals.Body++
			}
			c.length++
			b.tokens = append(b.tokens, id)
		}
		if part.heading {
			b.tokens = append(b.tokens, -1)
		}
	}
	c.hi = int32(len(b.ix.entries))
	own := b.ix.entries[c.lo:c.hi]
	slices.SortFunc(own, func(a, b lexEntry) int { return cmp.Compare(a.term, b.term) })
	for j, e := range own {
		b.at[e.term] = c.lo + int32(j)
	}
	for _, t := range b.tokens {
		local := proxSeparator
		if t >= 0 {
			// A chunk of more distinct terms than a position can name leaves the rest out of
			// proximity (they read as a separator).
			local = min(int(b.at[t]-c.lo), proxSeparator)
		}
		b.ix.seq = append(b.ix.seq, uint16(local))
	}
	for _, e := range own {
		in := &b.ix.info[e.term]
		in.maxHead, in.maxBody, in.minLength = max(in.maxHead, e.head), max(in.maxBody, e.body), min(in.minLength, c.length)
	}
	b.ix.totals.Chunks++
	c.collection, c.doc, c.section = b.ix.scopeOf(string(scope), b.collections)
	b.ix.chunks = append(b.ix.chunks, c)
}

// SetID names the chunk of a rowid.
func (b *Builder) SetID(rowid int64, id string) {
	if slot, ok := slices.BinarySearchFunc(b.ix.chunks, rowid, func(c lexChunk, r int64) int { return cmp.Compare(c.rowid, r) }); ok {
		b.ix.chunks[slot].id = id
	}
}

// Index finishes the index: the chunks' lengths, and each term's postings.
func (b *Builder) Index() *Index {
	ix := b.ix
	ix.lengths = make([]int32, len(ix.chunks))
	for i, c := range ix.chunks {
		ix.lengths[i] = c.length
	}
	// Postings in slot order, one run per term.
	ix.postingsAt = make([]int32, len(ix.terms)+1)
	for _, e := range ix.entries {
		ix.postingsAt[e.term+1]++
	}
	for t := range ix.terms {
		ix.postingsAt[t+1] += ix.postingsAt[t]
	}
	ix.postings = make([]lexPosting, len(ix.entries))
	next := slices.Clone(ix.postingsAt[:len(ix.terms)])
	for slot, c := range ix.chunks {
		for _, e := range ix.entries[c.lo:c.hi] {
			ix.postings[next[e.term]] = lexPosting{slot: int32(slot), head: e.head, body: e.body}
			next[e.term]++
		}
	}
	ix.markIdentity()
	return ix
}

// scopeOf reads a chunk's collection, document and section from its scope tokens (ScopeTokens:
// the collection's, the document's, then its own section's first).
func (ix *Index) scopeOf(scope string, collections map[string]int32) (collection, doc int32, section string) {
	collection, doc = -1, -1
	sectionSeen := false
	eachTerm(scope, func(tok string) {
		if len(tok) < 3 || !strings.HasPrefix(tok, "ws") {
			return
		}
		raw, err := hex.DecodeString(tok[3:])
		if err != nil {
			return
		}
		switch v := string(raw); tok[2] {
		case 'c':
			id, ok := collections[v]
			if !ok {
				id = int32(len(ix.collections))
				collections[v] = id
				ix.collections = append(ix.collections, v)
			}
			collection = id
		case 'd':
			id, ok := ix.docs[v]
			if !ok {
				id = int32(len(ix.docs))
				ix.docs[v] = id
			}
			doc = id
		case 's':
			if !sectionSeen {
				sectionSeen = true
				_, section, _ = strings.Cut(v, "\x00")
			}
		}
	})
	return collection, doc, section
}

// inScope is the chunk filter of a scope: nil when the scope takes every chunk, and a
// filter that takes none when it names nothing the index holds.
func (ix *Index) inScope(scope chunk.Scope) func(slot int32) bool {
	var colls []int32
	for i, name := range ix.collections {
		if slices.Contains(scope.Collections, name) {
			colls = append(colls, int32(i))
		}
	}
	doc := int32(-1)
	if scope.Doc != "" {
		d, ok := ix.docs[scope.Doc]
		if !ok {
			return func(int32) bool { return false }
		}
		doc = d
	}
	if len(scope.Collections) == 0 && doc < 0 {
		return nil
	}
	section := ""
	if doc >= 0 {
		section = scope.Section
	}
	return func(slot int32) bool {
		c := &ix.chunks[slot]
		if len(scope.Collections) > 0 && !slices.Contains(colls, c.collection) {
			return false
		}
		if doc >= 0 && c.doc != doc {
			return false
		}
		return section == "" || c.section == section || strings.HasPrefix(c.section, section) && c.section[len(section)] == '.'
	}
}

// indexedQuery is a query over the index: its terms' numbers, weight × idf and places in the
// query, sorted by term number. part holds one share of the score per place: scoreChunk sums
// them in the query's order, as ranker.score does, so both give the same score to the bit.
type indexedQuery struct {
	terms   []int32
	weights []float64
	places  []int
	part    []float64
}

func (ix *Index) queryOf(q Query) indexedQuery {
	out := indexedQuery{part: make([]float64, len(q))}
	for i, t := range q {
		if id, ok := ix.ids[t.term]; ok {
			out.terms = append(out.terms, id)
			out.weights = append(out.weights, t.weight*t.idf)
			out.places = append(out.places, i)
		}
	}
	return sortedQuery(out)
}

// weigh sets the query's terms' document frequencies and idf from the index.
func (ix *Index) weigh(q Query) {
	q.weigh(ix.DocumentFrequencies(termsOf(q)), ix.totals)
}

// scoreChunk is the chunk's BM25 score for the query: a merge of its sorted entries with the
// query's sorted terms.
func (r ranker) scoreChunk(ix *Index, c *lexChunk, q indexedQuery) float64 {
	norm := r.norm(float64(c.length))
	clear(q.part)
	entries := ix.entries[c.lo:c.hi]
	i, j := 0, 0
	for i < len(q.terms) && j < len(entries) {
		switch {
		case q.terms[i] < entries[j].term:
			i++
		case q.terms[i] > entries[j].term:
			j++
		default:
			tf := r.tf(float64(entries[j].head), float64(entries[j].body))
			q.part[q.places[i]] = r.termScore(q.weights[i], tf, norm)
			i++
			j++
		}
	}
	var score float64
	for _, p := range q.part {
		score += p
	}
	return score
}

// contribution is a term's share of a chunk's score, as scoreChunk adds it.
func (r ranker) contribution(weight float64, head, body uint16, length int32) float64 {
	return r.termScore(weight, r.tf(float64(head), float64(body)), r.norm(float64(length)))
}

// bound is the most a term can add to any chunk's score.
func (r ranker) bound(weight float64, in lexTermInfo) float64 {
	return r.contribution(weight, in.maxHead, in.maxBody, in.minLength)
}

func sortedQuery(q indexedQuery) indexedQuery {
	idx := make([]int, len(q.terms))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(q.terms[a], q.terms[b]) })
	out := indexedQuery{terms: make([]int32, len(idx)), weights: make([]float64, len(idx)), places: make([]int, len(idx)), part: q.part}
	for i, j := range idx {
		out.terms[i], out.weights[i], out.places[i] = q.terms[j], q.weights[j], q.places[j]
	}
	return out
}

// search is Lexical over the index: BM25's best pool candidates, feedback from the best of
// them, and the candidates ranked again by the expanded query and the closeness of the
// query's terms in them.
func (ix *Index) search(q Query, scope chunk.Scope, k, pool int, r ranker, p Params, stats *Cache) []chunk.Hit {
	ix.weigh(q)
	q = q.found()
	if len(q) == 0 {
		return nil
	}
	in := ix.inScope(scope)
	iq := ix.queryOf(q)
	cands := ix.candidates(r, iq, in, pool, stats)
	rescored := false
	if p.FeedbackDocs > 0 && len(cands) > p.FeedbackDocs {
		expanded := ix.queryOf(ix.expand(cands, q, p.FeedbackDocs, p.FeedbackTerms))
		for i := range cands {
			cands[i].score = r.scoreChunk(ix, &ix.chunks[cands[i].slot], expanded)
		}
		rescored = true
	}
	if p.Proximity > 0 {
		for i, s := range ix.proximityScores(r, cands, q, iq, p.Proximity, stats) {
			cands[i].score += s
			rescored = rescored || s > 0
		}
	}
	if rescored {
		cands = slices.DeleteFunc(cands, func(c scoredSlot) bool { return c.score <= 0 })
		slices.SortFunc(cands, better)
	}
	hits := make([]chunk.Hit, 0, min(k, len(cands)))
	for _, c := range cands[:min(k, len(cands))] {
		hits = append(hits, chunk.Hit{ChunkID: ix.chunks[c.slot].id, Score: c.score})
	}
	return hits
}

// expand is expandQuery over the index: the best candidates (of those holding every term
// the query names, identity.go) lend their terms (each occurrence, heading or body, once;
// not their own document's identity terms from the heading) in proportion to their share
// of those candidates' scores; the strongest join the query's own terms.
func (ix *Index) expand(cands []scoredSlot, q Query, feedbackDocs, feedbackTerms int) Query {
	best := cands[:min(len(cands), feedbackDocs)] // cands are sorted best first
	if named := ix.named(q); len(named) > 0 {
		var on []scoredSlot
		for _, c := range cands {
			if !ix.holdsAll(&ix.chunks[c.slot], named) {
				continue
			}
			if on = append(on, c); len(on) == feedbackDocs {
				break
			}
		}
		if len(on) > 0 {
			best = on
		}
	}
	var sum float64
	for _, c := range best {
		sum += c.score
	}
	if sum <= 0 || feedbackTerms <= 0 {
		return q
	}
	// Each term's weight goes in the accumulator's per-term scratch (all zero between uses),
	// in the order the terms are first met.
	acc := ix.accumulator()
	defer ix.release(acc)
	if acc.rel == nil {
		acc.rel = make([]float64, len(ix.terms))
	}
	met := acc.met[:0]
	for _, c := range best {
		ch := &ix.chunks[c.slot]
		if ch.length == 0 {
			continue
		}
		share := c.score / sum / float64(ch.length)
		if share <= 0 { // adds nothing (and a weight of 0 would not mark its terms as met)
			continue
		}
		for _, e := range ix.entries[ch.lo:ch.hi] {
			// One addition per occurrence, as expandQuery makes them.
			n := int(e.head) + int(e.body)
			if e.head > 0 && ix.ofIdentity(ch, e.term) {
				n = int(e.body)
			}
			if n == 0 {
				continue
			}
			w := acc.rel[e.term]
			if w == 0 {
				met = append(met, e.term)
			}
			for range n {
				w += share
			}
			acc.rel[e.term] = w
		}
	}
	expansion := make(Query, 0, len(met))
	for _, t := range met {
		expansion = append(expansion, queryTerm{term: ix.terms[t], weight: acc.rel[t]})
		acc.rel[t] = 0
	}
	acc.met = met
	out, fresh := mergeStrongest(q, expansion, feedbackTerms)
	ix.weigh(fresh)
	return append(out, fresh...)
}

// DocumentFrequencies returns in how many chunks each of the terms that the index holds
// appears.
func (ix *Index) DocumentFrequencies(terms []string) map[string]int64 {
	out := make(map[string]int64, len(terms))
	for _, t := range terms {
		if id, ok := ix.ids[t]; ok {
			out[t] = int64(ix.postingsAt[id+1] - ix.postingsAt[id])
		}
	}
	return out
}
