package weaviatekb

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"strings"
	"sync"
	"time"

	"warren/kb/lexical"
)

// What searches read that changes only when the knowledge base is written (the lexical
// index's totals, document frequencies and the term table, each collection's document
// counts) is kept between searches, valid for one state of the list of collections.
//
// Every write stamps its collection with a version: a "writing" one before it changes
// anything, a new clean one when it is done (versions are random, never reused). A read lists
// the collections beside its other requests; when the list is not the one it read with, it
// reads again over the new list and drops what was kept. A figure read while the list was K is
// kept only once a list read that ended before the figure's request began, and one that began
// after it ended, both saw K without a "writing" version: no write can have fallen between
// them. So a kept figure is the figure now, whichever process wrote, as long as writers finish
// (a writer that dies after its first batch leaves its "writing" version, which stops the
// keeping until the next write) and two writers do not overlap with one of them dying.

// writingPrefix begins the version of a collection that a write is changing.
const writingPrefix = "writing:"

// newVersion returns a fresh random version, marked as writing or clean.
func newVersion(writing bool) string {
	var r [8]byte
	rand.Read(r[:])
	v := hex.EncodeToString(r[:])
	if writing {
		return writingPrefix + v
	}
	return v
}

// snapshot is the list of collections as one read saw it.
type snapshot struct {
	cols    []collectionObject // sorted by name
	key     string             // the whole list, versions included
	writing bool               // some collection is being written: nothing read now is kept
}

func newSnapshot(cols []collectionObject) *snapshot {
	s := &snapshot{cols: cols}
	var k strings.Builder
	for _, c := range cols {
		k.WriteString(c.Name + "\x00" + c.Embedder + "\x00" + strconv.Itoa(c.Dim) + "\x00" +
			strconv.Itoa(c.Generation) + "\x00" + c.Version + "\x01")
		s.writing = s.writing || strings.HasPrefix(c.Version, writingPrefix)
	}
	s.key = k.String()
	return s
}

// docCounts are a collection's numbers of documents and chunks.
type docCounts struct{ docs, chunks int }

// maxKeptTerms bounds the document frequencies kept (they are dropped all at once beyond it).
const maxKeptTerms = 200_000

// readCache holds the figures kept for the last list of collections seen.
type readCache struct {
	mu      sync.Mutex
	snap    *snapshot
	since   time.Time // when a list read first saw snap
	totals  *lexical.Totals
	df      map[string]int64
	table   map[string]int64     // every term's frequency (termtable.go); nil when not kept
	counts  map[string]docCounts // nil when not kept
	lengths *keptLengths         // the chunks' length sums (lengths.go); nil when not kept
	pending []pendingRead
}

// pendingRead is a figure read under a list of collections, kept once a later list read
// confirms the list (see above).
type pendingRead struct {
	key     string
	done    time.Time
	totals  *lexical.Totals
	df      map[string]int64
	table   map[string]int64
	counts  map[string]docCounts
	lengths *keptLengths
}

// current returns the list last seen, nil when none is.
func (c *readCache) current() *snapshot {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.snap
}

// observe records a list read that began at start: another list drops everything kept; the
// same list keeps the figures read under it that ended before start.
func (c *readCache) observe(s *snapshot, start time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.snap == nil || c.snap.key != s.key {
		c.resetLocked()
		c.snap, c.since = s, start
		return
	}
	keep := c.pending[:0]
	for _, p := range c.pending {
		switch {
		case p.key != s.key:
		case p.done.Before(start):
			c.commitLocked(p)
		default:
			keep = append(keep, p)
		}
	}
	clear(c.pending[len(keep):])
	c.pending = keep
}

func (c *readCache) commitLocked(p pendingRead) {
	if p.totals != nil {
		c.totals = p.totals
	}
	if p.counts != nil {
		c.counts = p.counts
	}
	if p.table != nil {
		c.table = p.table
	}
	if p.lengths != nil {
		c.lengths = p.lengths
	}
	if len(p.df) > 0 {
		if c.df == nil || len(c.df)+len(p.df) > maxKeptTerms {
			c.df = make(map[string]int64, len(p.df))
		}
		for t, n := range p.df {
			c.df[t] = n
		}
	}
}

func (c *readCache) resetLocked() {
	c.snap, c.totals, c.df, c.table, c.counts, c.lengths, c.pending = nil, nil, nil, nil, nil, nil, nil
}

// invalidate forgets the list and every figure: this process is writing.
func (c *readCache) invalidate() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.resetLocked()
}

// remember records figures read under s that ended at done, to keep once confirmed.
func (c *readCache) remember(s *snapshot, done time.Time, p pendingRead) {
	if s.writing {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.snap == nil || c.snap.key != s.key {
		return
	}
	p.key, p.done = s.key, done
	c.pending = append(c.pending, p)
}

// keptTotals returns the lexical totals kept for s.
func (c *readCache) keptTotals(s *snapshot) (lexical.Totals, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.snap == nil || c.snap.key != s.key || c.totals == nil {
		return lexical.Totals{}, false
	}
	return *c.totals, true
}

// keptLengthSums returns the length sums kept for s.
func (c *readCache) keptLengthSums(s *snapshot) (keptLengths, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.snap == nil || c.snap.key != s.key || c.lengths == nil {
		return keptLengths{}, false
	}
	return *c.lengths, true
}

// keptFrequencies copies into out the document frequencies kept for s and returns the terms
// that are not.
func (c *readCache) keptFrequencies(s *snapshot, terms []string, out map[string]int64) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	valid := c.snap != nil && c.snap.key == s.key
	var missing []string
	for _, t := range terms {
		if n, ok := c.df[t]; ok && valid {
			out[t] = n
		} else {
			missing = append(missing, t)
		}
	}
	return missing
}

// unchangedFor is how long list reads have seen s (0 when it is not the list last seen).
func (c *readCache) unchangedFor(s *snapshot) time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.snap == nil || c.snap.key != s.key {
		return 0
	}
	return time.Since(c.since)
}

// keptTable returns the term table kept for s.
func (c *readCache) keptTable(s *snapshot) (map[string]int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.snap == nil || c.snap.key != s.key || c.table == nil {
		return nil, false
	}
	return c.table, true
}

// keptCounts returns the document counts kept for s.
func (c *readCache) keptCounts(s *snapshot) (map[string]docCounts, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.snap == nil || c.snap.key != s.key || c.counts == nil {
		return nil, false
	}
	return c.counts, true
}

// read runs fn over the collections as they are now. With a list seen before, fn runs over
// it while the list is read again beside it, and once more over the new list when it
// changed; without one, the list is read first.
func (b *Backend) read(ctx context.Context, fn func(*snapshot) error) error {
	s := b.cache.current()
	if s == nil {
		s, err := b.listCollections(ctx)
		if err != nil {
			return err
		}
		return fn(s)
	}
	type listed struct {
		s   *snapshot
		err error
	}
	now := make(chan listed, 1)
	go func() {
		s, err := b.listCollections(ctx)
		now <- listed{s, err}
	}()
	err := fn(s)
	l := <-now
	switch {
	case l.err != nil:
		return l.err
	case l.s.key == s.key:
		return err
	}
	return fn(l.s)
}
