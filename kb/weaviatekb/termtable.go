package weaviatekb

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The term table. Ranking needs each query and feedback term's document frequency, and
// counting a term on the server reads every chunk that holds it: a hybrid query of new words
// took 335 ms (p50) at 100,000 chunks, most of it counting. So every document's record also
// carries, in term_chunks, how many of its chunks hold each of their analysed terms. Summed
// over the documents of the listed collections, these are the frequencies the server would
// count. The table is read beside the searches once the list of collections has stayed the
// same for termTableSettle, and is used once it is complete and confirmed like every kept figure (cache.go): the documents'
// chunks add up to the chunks the server holds (a new document whose ingest died after its
// first chunks has no record yet). A record without its terms (written before term_chunks, or
// by a write that died) has its document's chunks' terms read instead. Until the table is
// kept, terms are counted on the server. Several warren servers stay right: the table is read
// from the records as they are now.

// termChunksHeader begins every term_chunks value, so a record written before the property
// existed (empty) is told from a document without terms.
const termChunksHeader = "terms/1\n"

// maxTableTerms bounds the table: beyond it, terms are counted on the server.
const maxTableTerms = 5_000_000

// termPage is how many document records one read of the table asks for: their term lists
// are large (about 130 kB for a document of 1,000 chunks).
const termPage = 32

// termChunks counts, for a document's chunks (their analysed heading and body terms), the
// chunks that hold each term, written as sorted "term count" lines after the header.
func termChunks(terms [][2]string) string {
	counts := map[string]int{}
	seen := map[string]bool{}
	for _, hb := range terms {
		clear(seen)
		for _, part := range hb {
			for _, t := range strings.Fields(part) {
				if !seen[t] {
					seen[t] = true
					counts[t]++
				}
			}
		}
	}
	keys := make([]string, 0, len(counts))
	for t := range counts {
		keys = append(keys, t)
	}
	slices.Sort(keys)
	var sb strings.Builder
	sb.WriteString(termChunksHeader)
	for _, t := range keys {
		sb.WriteString(t)
		sb.WriteByte(' ')
		sb.WriteString(strconv.Itoa(counts[t]))
		sb.WriteByte('\n')
	}
	return sb.String()
}

// addTermChunks adds a term_chunks value to the table; false, adding nothing, when it is not
// one (a record written before the property, or one whose document is being rewritten).
func addTermChunks(v string, table map[string]int64) bool {
	rest, ok := strings.CutPrefix(v, termChunksHeader)
	if !ok {
		return false
	}
	type termCount struct {
		term  string
		count int64
	}
	var read []termCount
	for line := range strings.SplitSeq(rest, "\n") {
		if line == "" {
			continue
		}
		t, n, ok := strings.Cut(line, " ")
		count, err := strconv.ParseInt(n, 10, 64)
		if !ok || err != nil || t == "" {
			return false
		}
		read = append(read, termCount{t, count})
	}
	for _, tc := range read {
		table[tc.term] += tc.count
	}
	return true
}

// TermTableStats say how the term table served searches, for tests and benchmarks.
type TermTableStats struct {
	Built  int64 // tables read complete from the document records
	Failed int64 // tables found incomplete (or unreadable)
	Used   int64 // searches whose frequencies all came from the table
}

// TermTableStats returns the counters of the term table.
func (b *Backend) TermTableStats() TermTableStats {
	return TermTableStats{Built: b.tableBuilt.Load(), Failed: b.tableFailed.Load(), Used: b.tableUsed.Load()}
}

// termTableSettle is how long the list of collections must stay the same before the table is
// read for it: during an ingest every document changes the list, and a table read after each
// would be read for nothing (a variable for the tests).
var termTableSettle = 2 * time.Second

// tableFrequencies sets in out the frequency of every term from the table kept for s and
// reports whether there was one; without one, it starts reading it once the list has settled
// (unless a collection is being written, or the table was found incomplete for this list).
func (b *Backend) tableFrequencies(s *snapshot, terms []string, out map[string]int64) bool {
	if table, ok := b.cache.keptTable(s); ok {
		for _, t := range terms {
			out[t] = table[t]
		}
		b.tableUsed.Add(1)
		return true
	}
	if !s.writing && b.cache.unchangedFor(s) >= termTableSettle {
		b.startTermTable(s)
	}
	return false
}

// startTermTable reads the table for s in the background, one read at a time.
func (b *Backend) startTermTable(s *snapshot) {
	b.tableMu.Lock()
	if b.tableReading || b.tableGaveUp == s.key || b.tableRead == s.key {
		b.tableMu.Unlock()
		return
	}
	b.tableReading = true
	b.tableMu.Unlock()
	b.bgRuns.Go(func() {
		table, err := b.readTermTable(b.bg, s)
		b.tableMu.Lock()
		b.tableReading = false
		if err != nil || table == nil {
			b.tableGaveUp = s.key // not again until the list changes
			b.tableFailed.Add(1)
		} else {
			b.tableRead = s.key // kept once a list read confirms it: not read again meanwhile
		}
		b.tableMu.Unlock()
		if table != nil {
			b.cache.remember(s, time.Now(), pendingRead{table: table})
			b.tableBuilt.Add(1)
		}
	})
}

// WaitTermTable waits until no table is being read (for tests and benchmarks).
func (b *Backend) WaitTermTable(ctx context.Context) error {
	for {
		b.tableMu.Lock()
		reading := b.tableReading
		b.tableMu.Unlock()
		if !reading {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// readTermTable sums the term_chunks of every document record of the listed collections. A
// record without them (written before the property, or by a write that died) has its
// document's chunks read instead. It returns nil when the documents' chunks are not all the
// chunks the server holds, or when the table would exceed maxTableTerms.
func (b *Backend) readTermTable(ctx context.Context, s *snapshot) (map[string]int64, error) {
	in := map[string]bool{}
	for _, c := range s.cols {
		in[c.Name] = true
	}
	table := map[string]int64{}
	var chunks int64
	type docRef struct{ collection, id string }
	var without []docRef // records without their terms
	type record struct {
		DocID      string `json:"doc_id"`
		Collection string `json:"collection"`
		Chunks     int64  `json:"chunks"`
		TermChunks string `json:"term_chunks"`
	}
	errTooMany := errors.New("too many terms")
	err := eachObject(ctx, b, b.documentClass(), "doc_id collection chunks term_chunks", termPage, func(d record) error {
		switch {
		case !in[d.Collection]:
		case addTermChunks(d.TermChunks, table):
			chunks += d.Chunks
		default:
			without = append(without, docRef{d.Collection, d.DocID})
		}
		if len(table) > maxTableTerms {
			return errTooMany
		}
		return nil
	})
	if errors.Is(err, errTooMany) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("couldn't read the documents' terms: %w", err)
	}
	for _, d := range without {
		terms, n, err := b.chunkTerms(ctx, d.collection, d.id)
		if err != nil {
			return nil, err
		}
		addTermChunks(termChunks(terms), table)
		chunks += int64(n)
	}
	if len(table) > maxTableTerms {
		return nil, nil
	}
	totals, err := b.totals(ctx, s)
	if err != nil {
		return nil, err
	}
	if totals.Chunks != chunks {
		return nil, nil
	}
	return table, nil
}

// chunkTerms reads the analysed heading and body terms of a document's chunks in its
// collection, and how many chunks there are.
func (b *Backend) chunkTerms(ctx context.Context, collection, doc string) ([][2]string, int, error) {
	class := b.chunkClass(collection)
	var out [][2]string
	for offset := 0; ; offset += pageSize {
		if offset+pageSize > maxResults {
			return nil, 0, fmt.Errorf("couldn't read the terms of %s: more than %d chunks (Weaviate's QUERY_MAXIMUM_RESULTS)", doc, maxResults)
		}
		var data struct {
			Get map[string][]struct {
				Heading string `json:"heading_terms"`
				Body    string `json:"body_terms"`
			}
		}
		q := fmt.Sprintf(`{ Get { %s(where: %s, limit: %d, offset: %d) { heading_terms body_terms } } }`, class, equal("doc", doc), pageSize, offset)
		if err := b.graphQL(ctx, q, &data); err != nil {
			return nil, 0, fmt.Errorf("couldn't read the terms of %s: %w", doc, err)
		}
		page := data.Get[class]
		for _, c := range page {
			out = append(out, [2]string{c.Heading, c.Body})
		}
		if len(page) < pageSize {
			return out, len(out), nil
		}
	}
}
