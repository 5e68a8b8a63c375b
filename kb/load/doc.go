// Package load reads the documents warren ingests — Markdown, plain text, HTML, PDF, Word and
// OpenDocument texts, slides and folder documents — into structural sections, and cuts
// sections into chunks (Chunker). It does not store or search anything: that is the store's
// (package kb).
package load
