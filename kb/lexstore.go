package kb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"warren/config"
	"warren/kb/lexical"
)

// LexicalStats reports the lexical search's counters.
func (s *Store) LexicalStats() lexical.Stats { return s.lexical.Stats() }

// LexicalParamsFrom reads the lexical ranking's settings from a workspace configuration;
// the postings budget and the target from which b is derived, which have no key, are the
// defaults.
func LexicalParamsFrom(c *config.Config) lexical.Params {
	p := lexical.DefaultParams()
	p.K1, p.B, p.HeadingWeight = c.KB.BM25K1, c.KB.BM25B, c.KB.HeadingWeight
	p.FeedbackDocs, p.FeedbackTerms = c.KB.FeedbackDocs, c.KB.FeedbackTerms
	p.Proximity = c.KB.Proximity
	return p
}

// lexicalToken names the state of the lexical index: the collections' generations, which
// every write raises, the totals, and the stamp that every change to the index draws anew
// (a collection removed and written again can reach the same generations and totals).
func (s *Store) lexicalToken(ctx context.Context) (string, lexical.Totals, error) {
	var gens string
	var t lexical.Totals
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

// lexicalIndex returns the lexical index of the database as it is now (lexical.Cache.Index).
func (s *Store) lexicalIndex(ctx context.Context) (*lexical.Index, error) {
	token, totals, err := s.lexicalToken(ctx)
	if err != nil {
		return nil, err
	}
	return s.lexical.Index(token, s.vdir, s.Params, func() (*lexical.Index, error) {
		return s.readLexicalIndex(ctx, token, totals)
	})
}

// readLexicalIndex reads every chunk's analysed terms and scope (FTS5's content) and ID into
// an index. The totals kept with the statistics size its tables.
func (s *Store) readLexicalIndex(ctx context.Context, token string, size lexical.Totals) (*lexical.Index, error) {
	b := lexical.NewBuilder(token, size)
	rows, err := s.db.QueryContext(ctx, `SELECT rowid, heading, body, scope FROM chunks_fts ORDER BY rowid`)
	if err != nil {
		return nil, fmt.Errorf("couldn't read the lexical index: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var rowid int64
		var heading, body, scope sql.RawBytes
		if err := rows.Scan(&rowid, &heading, &body, &scope); err != nil {
			return nil, err
		}
		b.Add(rowid, heading, body, scope)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("couldn't read the lexical index: %w", err)
	}
	rows.Close()
	// The chunks' IDs, through the index on them (the chunk rows, which hold the vectors, are
	// not read).
	ids, err := s.db.QueryContext(ctx, `SELECT rowid, id FROM chunks`)
	if err != nil {
		return nil, fmt.Errorf("couldn't read the chunk IDs: %w", err)
	}
	defer ids.Close()
	for ids.Next() {
		var rowid int64
		var id string
		if err := ids.Scan(&rowid, &id); err != nil {
			return nil, err
		}
		b.SetID(rowid, id)
	}
	if err := ids.Err(); err != nil {
		return nil, err
	}
	return b.Index(), nil
}

// LexicalLengthB is the b that p ranks with over the index as it is now (lexical.LengthSource):
// p.B, or b derived from the chunks' lengths when p.B is below 0.
func (s *Store) LexicalLengthB(ctx context.Context, p lexical.Params) (float64, error) {
	ix, err := s.lexicalIndex(ctx)
	if err != nil {
		return 0, err
	}
	return ix.EffectiveB(p), nil
}

// LexicalIdentities are the documents' identity terms as the index derives them now
// (lexical.IdentitySource).
func (s *Store) LexicalIdentities(ctx context.Context) (lexical.Identities, error) {
	ix, err := s.lexicalIndex(ctx)
	if err != nil {
		return lexical.Identities{}, err
	}
	return ix.Identities(), nil
}
