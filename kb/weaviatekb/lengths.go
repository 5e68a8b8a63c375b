package weaviatekb

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"warren/kb/lexical"
)

// b from the chunks' lengths (kb.bm25_b = auto, lexical.LengthSource). The index in memory
// derives it from every chunk's terms; here each document's record carries, in length_sums,
// its chunks' lexical.LengthSums (one line per distinct chunk length), written with its
// chunks. Those of every document of the listed collections are read once per list and kept
// as the totals are (cache.go), and b is derived from them as the embedded store derives it.
// A list holding a record without them (written before the property, or by a write that
// died) ranks with lexical.FallbackB until its document is ingested again; so does a list
// whose records do not account for every chunk the server holds (a write under way).

// The same value carries the document's identity terms (lexical.IdentityTerms), which the
// feedback of a query naming a document reads (lexical.IdentitySource), on a last line
// "identity term term …". A record of version 1 has none: its document names nothing until
// it is ingested again (the feedback as before identities).

// lengthSumsHeader begins every length_sums value, so a record written before the property
// existed (empty) is told from a document without chunks; lengthSumsHeaderV1 begins those
// written before the identity terms.
const (
	lengthSumsHeader   = "lengths/2\n"
	lengthSumsHeaderV1 = "lengths/1\n"
	identityPrefix     = "identity "
)

// lengthSumsText writes the sums of a document's chunks (their analysed heading and body
// terms), one line per length: "length pairs head body headSq headBody bodySq", and its
// identity terms.
func lengthSumsText(terms [][2]string) string {
	var all []lexical.LengthSums
	headings := make([]string, len(terms))
	for i, hb := range terms {
		all = append(all, lexical.ChunkLengthSums(hb[0], hb[1]))
		headings[i] = hb[0]
	}
	var sb strings.Builder
	sb.WriteString(lengthSumsHeader)
	for _, s := range lexical.MergeLengthSums(all) {
		sb.WriteString(strconv.Itoa(int(s.Length)))
		for _, v := range []float64{s.Pairs, s.Head, s.Body, s.HeadSq, s.HeadBody, s.BodySq} {
			sb.WriteByte(' ')
			sb.WriteString(strconv.FormatFloat(v, 'f', -1, 64))
		}
		sb.WriteByte('\n')
	}
	if ids := lexical.IdentityTerms(headings); len(ids) > 0 {
		sb.WriteString(identityPrefix + strings.Join(ids, " ") + "\n")
	}
	return sb.String()
}

// parseLengthSums reads a length_sums value and the identity terms on it; false when it is
// not one.
func parseLengthSums(v string) ([]lexical.LengthSums, []string, bool) {
	rest, ok := strings.CutPrefix(v, lengthSumsHeader)
	if !ok {
		if rest, ok = strings.CutPrefix(v, lengthSumsHeaderV1); !ok {
			return nil, nil, false
		}
	}
	var out []lexical.LengthSums
	var identity []string
	for line := range strings.SplitSeq(rest, "\n") {
		if line == "" {
			continue
		}
		if terms, ok := strings.CutPrefix(line, identityPrefix); ok {
			identity = strings.Fields(terms)
			continue
		}
		f := strings.Fields(line)
		if len(f) != 7 {
			return nil, nil, false
		}
		length, err := strconv.ParseInt(f[0], 10, 32)
		if err != nil {
			return nil, nil, false
		}
		var v [6]float64
		for i := range v {
			if v[i], err = strconv.ParseFloat(f[i+1], 64); err != nil {
				return nil, nil, false
			}
		}
		out = append(out, lexical.LengthSums{Length: int32(length), Pairs: v[0], Head: v[1], Body: v[2], HeadSq: v[3], HeadBody: v[4], BodySq: v[5]})
	}
	return out, identity, true
}

// keptLengths are the length sums read for a list: complete is false when a record lacked
// them, and b falls back.
type keptLengths struct {
	sums       []lexical.LengthSums
	complete   bool
	identities lexical.Identities // the documents' identity terms, read on the same pass
}

// LengthB is the b that p ranks with over the listed collections (lexical.LengthSource).
func (r *lexicalReader) LengthB(ctx context.Context, p lexical.Params) (float64, error) {
	if p.B >= 0 {
		return p.B, nil
	}
	lengths, err := r.readLengthSums(ctx)
	if err != nil || !lengths.complete {
		return lexical.FallbackB, err
	}
	totals, err := r.readTotals(ctx) // read with the sums
	return p.BFromSums(lengths.sums, totals), err
}

// Identities are the identity terms of the listed collections' documents
// (lexical.IdentitySource), read with the length sums; none while a write is under way.
func (r *lexicalReader) Identities(ctx context.Context) (lexical.Identities, error) {
	lengths, err := r.readLengthSums(ctx)
	return lengths.identities, err
}

// readLengthSums are the list's length sums and identities, read once per search: b and the
// identities come from the same read, also while a write under way keeps them from the cache.
func (r *lexicalReader) readLengthSums(ctx context.Context) (keptLengths, error) {
	if r.lengths != nil {
		return *r.lengths, nil
	}
	totals, err := r.readTotals(ctx)
	if err != nil {
		return keptLengths{}, err
	}
	lengths, err := r.b.lengthSums(ctx, r.snap, totals)
	if err == nil {
		r.lengths = &lengths
	}
	return lengths, err
}

// lengthSums are the length sums of every document of the listed collections, kept or read;
// totals are the list's, whose chunks the records must account for.
func (b *Backend) lengthSums(ctx context.Context, s *snapshot, totals lexical.Totals) (keptLengths, error) {
	if k, ok := b.cache.keptLengthSums(s); ok {
		return k, nil
	}
	in := map[string]bool{}
	for _, c := range s.cols {
		in[c.Name] = true
	}
	type record struct {
		DocID      string `json:"doc_id"`
		Collection string `json:"collection"`
		Chunks     int64  `json:"chunks"`
		LengthSums string `json:"length_sums"`
	}
	var all []lexical.LengthSums
	var chunks int64
	complete := true
	identities := map[string][]string{}
	err := eachObject(ctx, b, b.documentClass(), "doc_id collection chunks length_sums", lengthPage, func(d record) error {
		if !in[d.Collection] {
			return nil
		}
		sums, identity, ok := parseLengthSums(d.LengthSums)
		if !ok {
			complete = false
			return nil
		}
		if len(identity) > 0 {
			identities[d.DocID] = identity
		}
		all = append(all, sums...)
		chunks += d.Chunks
		return nil
	})
	if err != nil {
		return keptLengths{}, fmt.Errorf("couldn't read the documents' chunk lengths: %w", err)
	}
	k := keptLengths{sums: lexical.MergeLengthSums(all), complete: complete, identities: lexical.NewIdentities(identities)}
	if complete && chunks != totals.Chunks {
		// A document's chunks are written before its record: a write under way, or one that
		// died. Not kept: the next search reads them again.
		return keptLengths{}, nil
	}
	b.cache.remember(s, time.Now(), pendingRead{lengths: &k})
	return k, nil
}

// lengthPage is how many document records one read of the length sums asks for (a few
// hundred bytes each).
const lengthPage = 200

// LexicalLengthB is the b that p ranks with over every collection as they are now, as
// kb.Store.LexicalLengthB gives it for the embedded store.
func (b *Backend) LexicalLengthB(ctx context.Context, p lexical.Params) (float64, error) {
	var out float64
	err := b.read(ctx, func(s *snapshot) error {
		var err error
		out, err = (&lexicalReader{b: b, snap: s, df: map[string]int64{}}).LengthB(ctx, p)
		return err
	})
	return out, err
}

// LexicalIdentities are the documents' identity terms as a search over every collection
// reads them now, as kb.Store.LexicalIdentities gives them for the embedded store.
func (b *Backend) LexicalIdentities(ctx context.Context) (lexical.Identities, error) {
	var out lexical.Identities
	err := b.read(ctx, func(s *snapshot) error {
		var err error
		out, err = (&lexicalReader{b: b, snap: s, df: map[string]int64{}}).Identities(ctx)
		return err
	})
	return out, err
}
