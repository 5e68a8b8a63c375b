package kb

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
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
	lo, hi     int32 // its entries in lexIndex.entries
}

// lexTermInfo bounds what a term can add to a chunk's score: its largest heading and body
// counts and the shortest chunk that holds it.
type lexTermInfo struct {
	maxHead, maxBody uint16
	minLength        int32
}

type lexIndex struct {
	token       string // the database state it reflects (lexicalToken)
	totals      LexicalTotals
	ids         map[string]int32 // term → term number
	terms       []string         // term number → term
	info        []lexTermInfo
	postings    []lexPosting
	postingsAt  []int32 // term t's postings are postings[postingsAt[t]:postingsAt[t+1]]
	entries     []lexEntry
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
}

// LexicalStats counts what lexical search did, so that a benchmark proves which path it
// measured.
type LexicalStats struct {
	Searches      int64 // searches answered from the index in memory
	Loads         int64 // times the index was read from warren.db
	SnapshotReads int64 // times it was read from its snapshot instead
	PostingsRead  int64 // postings walked, over all searches
	TermsPruned   int64 // query terms whose postings were left unread (MaxScore)
	LookedUp      int64 // of those, terms whose share was looked up in the chunks' own entries
	StoppedInside int64 // terms whose walk in impact order stopped before their last posting
}

// lexicalCache holds a store's index and its counters.
type lexicalCache struct {
	mu                                                                              sync.Mutex // held while the index is read
	index                                                                           *lexIndex
	searches, loads, snapshotReads, postingsRead, prunedTN, lookedUp, stoppedInside atomic.Int64
}

// LexicalStats reports the lexical search's counters.
func (s *Store) LexicalStats() LexicalStats {
	c := &s.lexical
	return LexicalStats{c.searches.Load(), c.loads.Load(), c.snapshotReads.Load(), c.postingsRead.Load(), c.prunedTN.Load(), c.lookedUp.Load(), c.stoppedInside.Load()}
}

// lexicalToken names the state of the lexical index: the collections' generations, which
// every write raises, the totals, and the stamp that every change to the index draws anew
// (a collection removed and written again can reach the same generations and totals).
func (s *Store) lexicalToken(ctx context.Context) (string, LexicalTotals, error) {
	var gens string
	var t LexicalTotals
	st, err := s.prepared(ctx, `SELECT coalesce((SELECT group_concat(name || ':' || generation, ',') FROM
	(SELECT name, generation FROM collections ORDER BY name)), ''), chunks, heading, body, stamp FROM lexical_totals WHERE id = 1`)
	if err != nil {
		return "", t, fmt.Errorf("couldn't read the lexical statistics: %w", err)
	}
	var stamp int64
	err = st.QueryRowContext(ctx).Scan(&gens, &t.Chunks, &t.Heading, &t.Body, &stamp)
	if errors.Is(err, sql.ErrNoRows) {
		// A workspace indexed before the statistics existed: count it, then ask again.
		if _, err := s.lexicalTotalsNow(ctx); err != nil {
			return "", t, err
		}
		return s.lexicalToken(ctx)
	}
	if err != nil {
		return "", t, fmt.Errorf("couldn't read the lexical statistics: %w", err)
	}
	return fmt.Sprintf("%s|%d|%d|%d|%x", gens, t.Chunks, t.Heading, t.Body, stamp), t, nil
}

// lexicalIndex returns the index of the database as it is now: the one in memory, else the
// snapshot if it reflects this state, else the index read from warren.db, which then
// replaces the snapshot (written once the index is in place, so searches need not wait for it).
func (s *Store) lexicalIndex(ctx context.Context) (*lexIndex, error) {
	token, totals, err := s.lexicalToken(ctx)
	if err != nil {
		return nil, err
	}
	c := &s.lexical
	c.mu.Lock()
	if c.index != nil && c.index.token == token {
		c.mu.Unlock()
		return c.index, nil
	}
	ix, err := readLexSnapshot(s.vdir, token)
	fromDB := err != nil
	if fromDB {
		// A write between reading the token and reading the index leaves a token older than
		// the index: the next search reads it again.
		if ix, err = s.readLexicalIndex(ctx, token, totals); err != nil {
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
	go ix.prepareImpacts(s.rankerOver(ix.totals), impactWalkMin)
	c.mu.Unlock()
	if fromDB {
		// A snapshot that cannot be written costs the next process a read of warren.db, no more.
		_ = writeLexSnapshot(s.vdir, ix)
	}
	return ix, nil
}

// readLexicalIndex reads every chunk's analysed terms and scope (FTS5's content) and ID. The
// totals kept with the statistics size its tables (they are counted again as read).
func (s *Store) readLexicalIndex(ctx context.Context, token string, size LexicalTotals) (*lexIndex, error) {
	ix := &lexIndex{token: token, ids: map[string]int32{}, docs: map[string]int32{},
		chunks: make([]lexChunk, 0, size.Chunks), entries: make([]lexEntry, 0, size.Heading+size.Body)}
	collections := map[string]int32{}
	rows, err := s.db.QueryContext(ctx, `SELECT rowid, heading, body, scope FROM chunks_fts ORDER BY rowid`)
	if err != nil {
		return nil, fmt.Errorf("couldn't read the lexical index: %w", err)
	}
	defer rows.Close()
	// at[term] is where the chunk being read holds the term in entries (when at or after its
	// first entry).
	var at []int32
	for rows.Next() {
		var rowid int64
		var heading, body, scope sql.RawBytes
		if err := rows.Scan(&rowid, &heading, &body, &scope); err != nil {
			return nil, err
		}
		c := lexChunk{rowid: rowid, lo: int32(len(ix.entries))}
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
				id, ok := ix.ids[string(word)]
				if !ok {
					id = int32(len(ix.terms))
					t := string(word)
					ix.ids[t] = id
					ix.terms = append(ix.terms, t)
					ix.info = append(ix.info, lexTermInfo{minLength: math.MaxInt32})
					at = append(at, -1)
				}
				if at[id] < c.lo {
					at[id] = int32(len(ix.entries))
					ix.entries = append(ix.entries, lexEntry{term: id})
				}
				e := &ix.entries[at[id]]
				if part.heading {
					e.head = min(e.head+1, math.MaxUint16)
					ix.totals.Heading++
				} else {
					e.body = min(e.body+1, math.MaxUint16)
					ix.totals.Body++
				}
				c.length++
			}
		}
		c.hi = int32(len(ix.entries))
		own := ix.entries[c.lo:c.hi]
		slices.SortFunc(own, func(a, b lexEntry) int { return cmp.Compare(a.term, b.term) })
		for _, e := range own {
			in := &ix.info[e.term]
			in.maxHead, in.maxBody, in.minLength = max(in.maxHead, e.head), max(in.maxBody, e.body), min(in.minLength, c.length)
		}
		ix.totals.Chunks++
		c.collection, c.doc, c.section = ix.scopeOf(string(scope), collections)
		ix.chunks = append(ix.chunks, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("couldn't read the lexical index: %w", err)
	}
	rows.Close()
	if err := ix.readChunkIDs(ctx, s.db); err != nil {
		return nil, err
	}
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
	return ix, nil
}

// scopeOf reads a chunk's collection, document and section from its scope tokens (scopeTokens:
// the collection's, the document's, then its own section's first).
func (ix *lexIndex) scopeOf(scope string, collections map[string]int32) (collection, doc int32, section string) {
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

// readChunkIDs fills in the chunks' IDs, through the index on them (the chunk rows, which
// hold the vectors, are not read).
func (ix *lexIndex) readChunkIDs(ctx context.Context, db *sql.DB) error {
	rows, err := db.QueryContext(ctx, `SELECT rowid, id FROM chunks`)
	if err != nil {
		return fmt.Errorf("couldn't read the chunk IDs: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var rowid int64
		var id string
		if err := rows.Scan(&rowid, &id); err != nil {
			return err
		}
		if slot, ok := slices.BinarySearchFunc(ix.chunks, rowid, func(c lexChunk, r int64) int { return cmp.Compare(c.rowid, r) }); ok {
			ix.chunks[slot].id = id
		}
	}
	return rows.Err()
}

// inScope is the chunk filter of a scope: nil when the scope takes every chunk, and a
// filter that takes none when it names nothing the index holds.
func (ix *lexIndex) inScope(scope Scope) func(slot int32) bool {
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

func (ix *lexIndex) queryOf(q lexicalQuery) indexedQuery {
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
func (ix *lexIndex) weigh(q lexicalQuery) {
	df := make(map[string]int64, len(q))
	for _, t := range q {
		if id, ok := ix.ids[t.term]; ok {
			df[t.term] = int64(ix.postingsAt[id+1] - ix.postingsAt[id])
		}
	}
	q.weigh(df, ix.totals)
}

// scoreChunk is the chunk's BM25 score for the query: a merge of its sorted entries with the
// query's sorted terms.
func (r ranker) scoreChunk(ix *lexIndex, c *lexChunk, q indexedQuery) float64 {
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

type scoredSlot struct {
	slot  int32
	score float64
}

// better orders scored chunks best first, ties by index order, as topDocs does.
func better(a, b scoredSlot) int {
	return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.slot, b.slot))
}

// candidates returns the m chunks in scope that score best for the query, best first, with
// their scores. Terms are walked from the fewest postings up; once the best m seen so far
// all score above what the remaining terms could give an unseen chunk, no unseen chunk can
// join them, so the remaining terms' postings are left unread and their share is added to
// the chunks that can still make the m, from those postings or the chunks' own entries.
//
// A term of many postings is walked in impact order (its largest shares first), so that the
// walk can stop inside it: once a share plus what the later terms could add falls below the
// m-th score, the rest of that term's postings cannot bring in an unseen chunk either, and
// are added to the chunks still in the running like an unread term's.
func (ix *lexIndex) candidates(r ranker, q indexedQuery, in func(int32) bool, m int, stats *lexicalCache) []scoredSlot {
	acc := ix.accumulator()
	defer ix.release(acc)
	order := acc.order[:0]
	for i := range q.terms {
		order = append(order, i)
	}
	acc.order = order
	df := func(i int) int32 { t := q.terms[i]; return ix.postingsAt[t+1] - ix.postingsAt[t] }
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(df(a), df(b)) })
	// left[i]: the most the terms order[i:] can add to a chunk.
	left := make([]float64, len(order)+1)
	for i := len(order) - 1; i >= 0; i-- {
		left[i] = left[i+1] + r.bound(q.weights[order[i]], ix.info[q.terms[order[i]]])
	}
	// theta is the m-th best score so far (0 before m chunks are seen). Scores only grow, so
	// it only rises, and each new one is looked for among the chunks at or above the last.
	var best, theta float64
	add := func(slot int32, share float64) {
		s := acc.scores[slot]
		if s == 0 {
			acc.touched = append(acc.touched, slot)
		}
		s += share
		acc.scores[slot] = s
		best = max(best, s)
	}
	// The term walked in part, if any: its postings rest (in impact order) are unread, and
	// none of them adds more than restBound.
	partial := -1
	var rest []lexPosting
	var restBound float64
	walked := 0
	for ; walked < len(order); walked++ {
		if len(acc.touched) >= m && left[walked] < best {
			// With the margin: a chunk at exactly the m-th score must not lose its tie to
			// rounding.
			if theta = kthScore(acc.scores, acc.touched, m, theta, &acc.buf); left[walked] < theta*(1-1e-9) {
				break
			}
		}
		i := order[walked]
		t := q.terms[i]
		w := q.weights[i]
		ps := ix.postings[ix.postingsAt[t]:ix.postingsAt[t+1]]
		if len(ps) < impactWalkMin {
			stats.postingsRead.Add(int64(len(ps)))
			for _, p := range ps {
				if in == nil || in(p.slot) {
					add(p.slot, r.contribution(w, p.head, p.body, ix.lengths[p.slot]))
				}
			}
			continue
		}
		byImpact := ix.impactOrder(r, t)
		next := 2 * m // where the m-th score is looked at next
		stopped := -1
		for at, p := range byImpact {
			share := r.contribution(w, p.head, p.body, ix.lengths[p.slot])
			if at == next {
				next *= 2
				if len(acc.touched) >= m {
					theta = kthScore(acc.scores, acc.touched, m, theta, &acc.buf)
					if bound := share*(1+1e-9) + left[walked+1]; bound < theta {
						stopped = at
						break
					}
				}
			}
			if in == nil || in(p.slot) {
				add(p.slot, share)
			}
		}
		if stopped < 0 {
			stats.postingsRead.Add(int64(len(byImpact)))
			continue
		}
		stats.postingsRead.Add(int64(stopped))
		stats.stoppedInside.Add(1)
		partial, rest = walked, byImpact[stopped:]
		p := rest[0]
		restBound = r.contribution(w, p.head, p.body, ix.lengths[p.slot]) * (1 + 1e-9)
		walked++
		break
	}
	// What is left to add: the term walked in part, then the unread ones; more[k] is the most
	// the steps from k on can add to a chunk.
	steps := order[walked:]
	more := left[walked:]
	if partial >= 0 {
		steps = order[partial:]
		more = slices.Clone(left[partial:])
		more[0] = more[1] + restBound
	}
	// The chunks that can still reach the m-th score: with every term added, those at or
	// above it (scores summed in another order may differ in the last bits, hence the margin,
	// which the bounds of the terms left get too).
	// Otherwise those that the terms left could lift to it; each term's share is then added
	// to them, and the m-th score rises as it goes, until the last.
	alive := append(acc.alive[:0], acc.touched...)
	for k := 0; ; k++ {
		theta = kthScore(acc.scores, alive, m, theta, &acc.buf)
		cut := theta * (1 - 1e-9)
		alive = slices.DeleteFunc(alive, func(slot int32) bool {
			if acc.scores[slot]+more[k] < cut {
				acc.scores[slot] = -1 // out: no posting adds to it
				return true
			}
			return false
		})
		if k == len(steps) {
			break
		}
		stats.prunedTN.Add(1)
		i := steps[k]
		t := q.terms[i]
		w := q.weights[i]
		ps := ix.postings[ix.postingsAt[t]:ix.postingsAt[t+1]]
		inPart := k == 0 && partial >= 0
		if inPart {
			ps = rest
		}
		// A term's share is added from its postings unless they are many times more than the
		// chunks left (postingsWalkRatio).
		if len(ps) < postingsWalkRatio*len(alive) {
			for _, p := range ps {
				if acc.scores[p.slot] > 0 {
					acc.scores[p.slot] += r.contribution(w, p.head, p.body, ix.lengths[p.slot])
				}
			}
			continue
		}
		stats.lookedUp.Add(1)
		for _, slot := range alive {
			c := &ix.chunks[slot]
			e, ok := ix.entry(c, t)
			if !ok {
				continue
			}
			// Of the term walked in part, only the postings not walked are added.
			if inPart && !impactAfter(r, lexPosting{slot, e.head, e.body}, c.length, rest[0], ix.lengths[rest[0].slot]) {
				continue
			}
			acc.scores[slot] += r.contribution(w, e.head, e.body, c.length)
		}
	}
	acc.alive = alive
	// Every chunk left is scored whole, in the query's order, so that its score does not
	// depend on the order the terms were walked in.
	out := make([]scoredSlot, len(alive))
	for i, slot := range alive {
		out[i] = scoredSlot{slot, r.scoreChunk(ix, &ix.chunks[slot], q)}
	}
	slices.SortFunc(out, better)
	return out[:min(len(out), m)]
}

// postingsWalkRatio: an unread term's share is added from its postings when they are fewer
// than this many times the chunks left, else looked up in each chunk's entries. A walk through
// postings is sequential, a lookup is a search in memory far from the last one; 32 was the
// fastest of 8–128 on BenchmarkHybridQuery100kCommonTerms. A variable for the tests.
var postingsWalkRatio = 32

// impactWalkMin is the number of postings from which a term is walked in impact order (a
// variable for the tests).
var impactWalkMin = 2048

// impact is a posting's share of a chunk's score per unit of query weight: the order of a
// term's postings by impact is the same for every query.
func (r ranker) impact(p lexPosting, length int32) float64 {
	return r.contribution(1, p.head, p.body, length)
}

// impactAfter reports whether posting p comes at or after posting at in impact order (share
// down, then slot up).
func impactAfter(r ranker, p lexPosting, pLength int32, at lexPosting, atLength int32) bool {
	a, b := r.impact(p, pLength), r.impact(at, atLength)
	return a < b || a == b && p.slot >= at.slot
}

// impactOrder returns a term's postings by impact, largest first (then by slot), kept with
// the index for the ranker that sorted them: sorted by prepareImpacts after the index is read,
// or here on first use.
func (ix *lexIndex) impactOrder(r ranker, t int32) []lexPosting {
	ix.impactMu.Lock()
	if ix.impacts == nil || ix.impactRanker != r {
		ix.impacts, ix.impactRanker = map[int32][]lexPosting{}, r
	}
	ps, ok := ix.impacts[t]
	ix.impactMu.Unlock()
	if ok {
		return ps
	}
	ps = ix.sortByImpact(r, t)
	ix.impactMu.Lock()
	if ix.impactRanker == r {
		ix.impacts[t] = ps
	}
	ix.impactMu.Unlock()
	return ps
}

func (ix *lexIndex) sortByImpact(r ranker, t int32) []lexPosting {
	type keyed struct {
		impact float64
		lexPosting
	}
	postings := ix.postings[ix.postingsAt[t]:ix.postingsAt[t+1]]
	ks := make([]keyed, len(postings))
	for i, p := range postings {
		ks[i] = keyed{r.impact(p, ix.lengths[p.slot]), p}
	}
	slices.SortFunc(ks, func(a, b keyed) int {
		return cmp.Or(cmp.Compare(b.impact, a.impact), cmp.Compare(a.slot, b.slot))
	})
	out := make([]lexPosting, len(ks))
	for i, k := range ks {
		out[i] = k.lexPosting
	}
	return out
}

// prepareImpacts sorts, most common first, every term that a walk would take in impact
// order, so that searches do not sort them on first use; it runs beside the searches after
// the index is read (0.1–0.2 s at 100,000 chunks) and closes ix.impactsReady when done.
func (ix *lexIndex) prepareImpacts(r ranker, walkMin int) {
	defer close(ix.impactsReady)
	var terms []int32
	for t := range ix.terms {
		if ix.postingsAt[t+1]-ix.postingsAt[t] >= int32(walkMin) {
			terms = append(terms, int32(t))
		}
	}
	df := func(t int32) int32 { return ix.postingsAt[t+1] - ix.postingsAt[t] }
	slices.SortFunc(terms, func(a, b int32) int { return cmp.Compare(df(b), df(a)) })
	for _, t := range terms {
		if ix.replaced.Load() { // a write came: the new index sorts its own
			return
		}
		ix.impactOrder(r, t)
	}
}

// entry finds a term among the chunk's entries.
func (ix *lexIndex) entry(c *lexChunk, term int32) (lexEntry, bool) {
	lo, hi := c.lo, c.hi
	for lo < hi {
		mid := int32(uint32(lo+hi) >> 1)
		if ix.entries[mid].term < term {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < c.hi && ix.entries[lo].term == term {
		return ix.entries[lo], true
	}
	return lexEntry{}, false
}

// lexAccumulator is a search's scratch space: a partial score per chunk, all zero between
// searches, the chunks touched, and buffers.
type lexAccumulator struct {
	scores, buf    []float64
	touched, alive []int32
	order          []int
	rel            []float64 // a weight per term, for the feedback (expand)
	met            []int32   // the terms whose rel is set
}

func (ix *lexIndex) accumulator() *lexAccumulator {
	if a, ok := ix.accumulators.Get().(*lexAccumulator); ok {
		return a
	}
	return &lexAccumulator{scores: make([]float64, len(ix.chunks))}
}

// release zeroes the scores the search touched and hands the accumulator back.
func (ix *lexIndex) release(acc *lexAccumulator) {
	for _, slot := range acc.touched {
		acc.scores[slot] = 0
	}
	acc.touched = acc.touched[:0]
	ix.accumulators.Put(acc)
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

// kthScore is the m-th largest score of the given chunks (0 with fewer than m). floor is a
// score known to be at or below it (an earlier m-th score, as scores only grow): only the
// scores at or above it are selected from. buf is scratch space.
func kthScore(scores []float64, slots []int32, m int, floor float64, buf *[]float64) float64 {
	if len(slots) < m || m <= 0 {
		return 0
	}
	s := (*buf)[:0]
	for _, slot := range slots {
		if v := scores[slot]; v >= floor {
			s = append(s, v)
		}
	}
	*buf = s
	if len(s) < m { // not a floor after all: select from every score
		if floor <= 0 {
			return 0
		}
		return kthScore(scores, slots, m, 0, buf)
	}
	return quickselect(s, m-1)
}

// quickselect returns the element that would be at position k if s were sorted descending.
func quickselect(s []float64, k int) float64 {
	lo, hi := 0, len(s)-1
	for lo < hi {
		p := s[(lo+hi)/2]
		i, j := lo, hi
		for i <= j {
			for s[i] > p {
				i++
			}
			for s[j] < p {
				j--
			}
			if i <= j {
				s[i], s[j] = s[j], s[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return s[k]
		}
	}
	return s[k]
}

// search is Lexical over the index: BM25's best candidates, feedback from the best of them,
// and the candidates ranked again by the expanded query.
func (ix *lexIndex) search(q lexicalQuery, scope Scope, k int, r ranker, feedbackDocs, feedbackTerms int, stats *lexicalCache) []Hit {
	ix.weigh(q)
	q = q.found()
	if len(q) == 0 {
		return nil
	}
	in := ix.inScope(scope)
	cands := ix.candidates(r, ix.queryOf(q), in, max(candidateFactor*k, minCandidates), stats)
	if feedbackDocs > 0 && len(cands) > feedbackDocs {
		expanded := ix.queryOf(ix.expand(cands, q, feedbackDocs, feedbackTerms))
		for i := range cands {
			cands[i].score = r.scoreChunk(ix, &ix.chunks[cands[i].slot], expanded)
		}
		cands = slices.DeleteFunc(cands, func(c scoredSlot) bool { return c.score <= 0 })
		slices.SortFunc(cands, better)
	}
	hits := make([]Hit, 0, min(k, len(cands)))
	for _, c := range cands[:min(k, len(cands))] {
		hits = append(hits, Hit{ChunkID: ix.chunks[c.slot].id, Score: c.score})
	}
	return hits
}

// expand is expandQuery over the index: the best candidates lend their terms (each
// occurrence, heading or body, once) in proportion to their share of those candidates'
// scores; the strongest join the query's own terms.
func (ix *lexIndex) expand(cands []scoredSlot, q lexicalQuery, feedbackDocs, feedbackTerms int) lexicalQuery {
	best := cands[:min(len(cands), feedbackDocs)] // cands are sorted best first
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
			w := acc.rel[e.term]
			if w == 0 {
				met = append(met, e.term)
			}
			for range int(e.head) + int(e.body) {
				w += share
			}
			acc.rel[e.term] = w
		}
	}
	expansion := make(lexicalQuery, 0, len(met))
	for _, t := range met {
		expansion = append(expansion, queryTerm{term: ix.terms[t], weight: acc.rel[t]})
		acc.rel[t] = 0
	}
	acc.met = met
	out, fresh := mergeStrongest(q, expansion, feedbackTerms)
	ix.weigh(fresh)
	return append(out, fresh...)
}
