package kb

import (
	"strings"

	"warren/kb/analysis"
	"warren/kb/chunk"
	"warren/kb/lexical"
	"warren/kb/load"
)

// IndexVersion numbers what the lexical index holds of each chunk. A workspace indexed under
// an older number is analysed again when it is opened (Store.Reindex), so that no search
// runs on an index older than the code that reads it. Raise it with every change to the
// analysis or to what a chunk's fields hold.
//
//	1: the chunk's section label and heading in the heading field, its text in the body
//	2: also its document's title and substance names in the heading field
//	3: German compounds also indexed as their parts, "ae", "oe", "ue" read as umlauts;
//	   abbreviations of single letters ("e.g.", "U.S.") kept whole (kb/analysis)
const IndexVersion = 3

// identityKeys are the front-matter keys whose values name what a document is about.
var identityKeys = []string{"substance", "substances", "synonyms"}

// IdentityText is what names a document whichever chunk of it is read: its title and the
// substances its front matter names. A chunk of a data sheet says "Exposure limits", not
// whose; with these in its heading field, "phosphine exposure limit" finds phosphine's.
func IdentityText(title string, meta map[string]string) string {
	parts := []string{title}
	for _, k := range identityKeys {
		if v := meta[k]; v != "" {
			parts = append(parts, strings.ReplaceAll(v, ";", " "))
		}
	}
	return strings.Join(parts, " ")
}

// IndexedTerms are a chunk's analysed heading and body terms as every backend indexes them:
// lexical.IndexedTerms, with the terms of its document's identity (IdentityText) that its
// own heading lacks added to the heading field, each once.
func IndexedTerms(c chunk.Chunk, doc *load.Document) (heading, body string) {
	heading, body = lexical.IndexedTerms(c, doc.Language)
	extra := analysis.Terms(IdentityText(doc.Title, doc.Meta), doc.Language)
	if len(extra) == 0 {
		return heading, body
	}
	have := map[string]bool{}
	for _, t := range strings.Fields(heading) {
		have[t] = true
	}
	var b strings.Builder
	b.WriteString(heading)
	for _, t := range extra {
		if have[t] {
			continue
		}
		have[t] = true
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(t)
	}
	return b.String(), body
}
