// Package lexical is warren's lexical ranking: BM25 over the chunks' analysed terms, its b
// derived from the chunks' lengths (lengthnorm.go), with pseudo-relevance feedback and a bonus
// for neighbouring query words found close together (proximity.go), over an index held in
// memory (and its snapshot file), or over the candidates another backend proposes (Rank). It
// does not read warren.db: the store (package kb) feeds it the rows (Builder) and tells it when
// the database changed.
package lexical
