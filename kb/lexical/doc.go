// Package lexical is warren's lexical ranking: BM25 over the chunks' analysed terms with
// pseudo-relevance feedback, over an index held in memory (and its snapshot file), or over the
// candidates another backend proposes (Rank). It does not read warren.db: the store (package
// kb) feeds it the rows (Builder) and tells it when the database changed.
package lexical
