package weaviatekb

import (
	"strings"

	"github.com/weaviate/weaviate/entities/models"

	"warren/kb/lexical"
)

// The schema warren creates. Names and texts that are looked up whole (IDs, collection,
// section, source) are tokenized as one field; the analysed terms are split on whitespace
// only, since warren's analyser already lower-cased, stemmed and dropped stop words; the rest
// is stored and never indexed.

var (
	yes = func() *bool { b := true; return &b }()
	no  = func() *bool { b := false; return &b }()
)

// field is a text looked up whole: filterable, not searched.
func field(name string) *models.Property {
	return &models.Property{Name: name, DataType: []string{"text"}, Tokenization: models.PropertyTokenizationField,
		IndexFilterable: yes, IndexSearchable: no}
}

// fields is a list of such texts.
func fields(name string) *models.Property {
	p := field(name)
	p.DataType = []string{"text[]"}
	return p
}

// stored is a text or number kept for reading back.
func stored(name, dataType string) *models.Property {
	p := &models.Property{Name: name, DataType: []string{dataType}, IndexFilterable: no, IndexSearchable: no}
	if dataType != "text" {
		p.IndexSearchable = nil // only texts have a searchable index
	}
	return p
}

// terms is analysed text: searched by BM25 and filterable by term (document frequencies).
func terms(name string) *models.Property {
	return &models.Property{Name: name, DataType: []string{"text"}, Tokenization: models.PropertyTokenizationWhitespace,
		IndexFilterable: yes, IndexSearchable: yes}
}

// counted is a number that Weaviate sums (term totals).
func counted(name string) *models.Property {
	return &models.Property{Name: name, DataType: []string{"int"}, IndexFilterable: yes}
}

func (b *Backend) baseClass(name string, props ...*models.Property) *models.Class {
	c := &models.Class{Class: name, Properties: props, Vectorizer: "none",
		InvertedIndexConfig: &models.InvertedIndexConfig{
			// Stop words were dropped by warren's analyser, in the document's language; a
			// preset would drop English function words from German terms too.
			Stopwords: &models.StopwordConfig{Preset: "none", Additions: []string{}, Removals: []string{}},
			Bm25:      &models.BM25Config{K1: float32(b.opts.Lexical.K1), B: float32(serverB(b.opts.Lexical))},
		},
	}
	if b.opts.Replicas > 0 {
		// Asynchronous replication repairs a replica that missed writes while it was down.
		c.ReplicationConfig = &models.ReplicationConfig{Factor: int64(b.opts.Replicas), AsyncEnabled: b.opts.Replicas > 1}
	}
	return c
}

func (b *Backend) collectionSchema() *models.Class {
	return b.baseClass(b.collectionClass(), field("name"), stored("embedder", "text"), stored("dim", "int"), stored("generation", "int"),
		stored("version", "text"))
}

// documentSchema is the documents' records. The file's size and time are texts (decimal):
// GraphQL reads no int beyond 32 bits, and a number would round nanoseconds.
func (b *Backend) documentSchema() *models.Class {
	return b.baseClass(b.documentClass(), field("doc_id"), field("collection"), field("source"),
		stored("title", "text"), stored("format", "text"), stored("language", "text"), stored("hash", "text"),
		stored("meta", "text"), stored("chunks", "int"), stored("ingested_at", "text"), stored("term_chunks", "text"),
		stored("size", "text"), stored("mtime", "text"), stored("length_sums", "text"))
}

// chunkSchema is one collection's chunks, with an HNSW index of cosine distance over the
// vectors warren sends.
func (b *Backend) chunkSchema(collection string) *models.Class {
	c := b.baseClass(b.chunkClass(collection),
		field("chunk_id"), field("doc"), field("collection"), field("section"), fields("sections"),
		stored("section_path", "text"), stored("heading", "text"), stored("text", "text"), stored("file", "text"),
		stored("start_byte", "int"), stored("end_byte", "int"), stored("hash", "text"), stored("seq", "int"),
		stored("ingest_order", "number"),
		terms("heading_terms"), terms("body_terms"), counted("heading_len"), counted("body_len"),
		stored("page", "int"), stored("page_kind", "text"), stored("ocr", "boolean"), stored("ocr_confidence", "number"))
	c.VectorIndexType = "hnsw"
	c.VectorIndexConfig = map[string]any{"distance": "cosine"}
	return c
}

// chunkPropertyList are the properties a read of chunks asks for; chunkProperties the same
// for GraphQL.
var (
	chunkPropertyList = []string{"chunk_id", "doc", "collection", "section", "section_path", "heading", "text", "file",
		"start_byte", "end_byte", "hash", "seq", "page", "page_kind", "ocr", "ocr_confidence"}
	chunkProperties = strings.Join(chunkPropertyList, " ")
)

// serverB is the b of Weaviate's own BM25, which only proposes candidates: b derived from the
// chunks' lengths (lexical.AutoB) is not known to Weaviate, which ranks with lexical.FallbackB
// then, as warren's ranking over it does (lexical.Rank).
func serverB(p lexical.Params) float64 {
	if p.B < 0 {
		return lexical.FallbackB
	}
	return p.B
}
