// Package retrieval finds passages in the knowledge base: hybrid search (dense and BM25,
// fused), scoped search, the relevance filter, and reference detection and resolution.
package retrieval
