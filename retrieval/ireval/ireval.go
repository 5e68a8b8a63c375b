// Package ireval loads classic information-retrieval test collections (Cranfield 1400, CISI,
// CACM and TREC-style files) and scores ranked runs against their relevance judgments with MAP, nDCG@10,
// P@10 and Recall@100.
//
// A run maps a query ID to the document IDs a system returned, best first. Only queries that
// appear in the collection's query file and have at least one relevant judgment (grade > 0) are
// evaluated; see [Collection.Judged].
package ireval

import (
	"fmt"
	"strings"
)

// Doc is one document of a collection. A retrieval system should index Title and Text together
// (see [Doc.Content]).
type Doc struct {
	ID, Title, Text string
}

// Content returns the text to index: the title followed by the body.
func (d Doc) Content() string {
	switch {
	case d.Title == "":
		return d.Text
	case d.Text == "":
		return d.Title
	}
	return d.Title + "\n" + d.Text
}

// Query is one information need; Text is the query string handed to a searcher.
type Query struct {
	ID, Text string
}

// Qrels holds relevance judgments: query ID → doc ID → grade. A grade > 0 means relevant; larger
// grades are more relevant (nDCG uses the grade as gain).
type Qrels map[string]map[string]int

// Collection is a loaded test collection.
type Collection struct {
	Docs    []Doc
	Queries []Query
	Qrels   Qrels
}

// Judged returns, in query-file order, the queries that are evaluated: those with at least one
// judged document of grade > 0.
func (c *Collection) Judged() []Query {
	var out []Query
	for _, q := range c.Queries {
		if countRelevant(c.Qrels[q.ID]) > 0 {
			out = append(out, q)
		}
	}
	return out
}

// ParseError reports malformed input: the file, the 1-based line and what is wrong.
type ParseError struct {
	File string
	Line int
	Msg  string
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

func parseErr(file string, line int, format string, args ...any) error {
	return &ParseError{File: file, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// Load reads a collection. format is "cranfield", "cisi", "cacm" or "trec":
//
//   - cranfield: cran.all.1400, cran.qry and cranqrel. Queries get IDs "1"…"225" by their
//     position in cran.qry (its .I numbers have gaps; cranqrel numbers by position). Codes 1–4 are
//     stored as grade 5 − code; -1 lines are dropped.
//   - cisi: CISI.ALL, CISI.QRY and CISI.REL. Query text is .T (if present) followed by .W;
//     judgments are binary (grade 1).
//   - cacm: CACM in TREC form (doc-text.trec, query-text.trec, qrels): each document's first
//     paragraph is its title; the record line and citation table are dropped (see loadCACM).
//     Judgments are kept as given, also those naming absent documents ([Collection.Absent]).
//   - trec: <DOC><DOCNO>…</DOCNO>…</DOC> documents (other tags stripped; <TITLE>, <HEADLINE> or
//     <HEAD> content becomes the title), <top> topics using <title> as query text, and
//     "qid iter docid rel" qrels.
//
// Malformed input yields a *ParseError naming the file and line.
func Load(format, docsPath, queriesPath, qrelsPath string) (*Collection, error) {
	return LoadWith(format, docsPath, queriesPath, qrelsPath, Options{})
}

// Options change how judgments are read.
type Options struct {
	// KeepSourcePapers counts Cranfield's "-1" judgment of each query (the paper the query was
	// written from) as relevant with the top grade. shared/data's README drops these lines;
	// the published Lucene figures for Cranfield (MAP 0.4258 with an English analyser, 0.3871
	// with a standard one) were measured with them counted.
	KeepSourcePapers bool
}

// LoadWith is Load with options.
func LoadWith(format, docsPath, queriesPath, qrelsPath string, opts Options) (*Collection, error) {
	switch strings.ToLower(strings.TrimSpace(format)) {
	case "cranfield":
		return loadCranfield(docsPath, queriesPath, qrelsPath, opts.KeepSourcePapers)
	case "cisi":
		return loadCISI(docsPath, queriesPath, qrelsPath)
	case "cacm":
		return loadCACM(docsPath, queriesPath, qrelsPath)
	case "trec":
		return loadTREC(docsPath, queriesPath, qrelsPath)
	}
	return nil, fmt.Errorf("ireval: unknown collection format %q (want cranfield, cisi, cacm or trec)", format)
}

// addJudgment records a grade, keeping the highest grade when a pair is judged twice.
func (q Qrels) addJudgment(qid, docid string, grade int) {
	m := q[qid]
	if m == nil {
		m = map[string]int{}
		q[qid] = m
	}
	if old, ok := m[docid]; !ok || grade > old {
		m[docid] = grade
	}
}
