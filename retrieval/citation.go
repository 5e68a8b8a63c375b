package retrieval

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"unicode"

	"warren/kb/chunk"
	"warren/retrieval/refs"
)

// Resolution methods of a cited work found by searching for its title.
const (
	MethodCitationScoped = "citation_scoped_search" // in the citing document's collection
	MethodCitationBroad  = "citation_broad_search"  // in the whole knowledge base
)

// DefaultTitleThreshold is the least similarity between a cited title and a document's title
// (Dice over their content words) for the document to count as the cited work.
const DefaultTitleThreshold = 0.7

// resolveAuthorYear follows "(Müller et al., 2019)" to the one entry of the citing document's
// reference list with that first author, author count and year, and from there to the
// document the entry names (see resolveWork). It ends unresolved when the entry is missing or
// not unique, rather than guess.
func (r *Resolver) resolveAuthorYear(ctx context.Context, out Resolved, from Origin) Resolved {
	fail := func(format string, args ...any) Resolved {
		out.Reason = fmt.Sprintf(format, args...)
		return out
	}
	if from.Doc == "" {
		return fail("an author–year citation needs the document it appears in (--from)")
	}
	cite, ok := refs.ParseCitation(out.Target)
	if !ok {
		return fail("%q is no author–year citation", out.Target)
	}
	entries, err := r.bibliography(ctx, from.Doc)
	if err != nil {
		return fail("couldn't read the reference list of %s: %v", from.Doc, err)
	}
	var matched []refs.Entry
	for _, e := range entries {
		if cite.Matches(e) {
			matched = append(matched, e)
		}
	}
	switch len(matched) {
	case 0:
		return fail("the reference list of %s has no entry for %s", from.Doc, out.Target)
	case 1:
	default:
		var titles []string
		for _, e := range matched {
			titles = append(titles, fmt.Sprintf("%s %s", e.Year, e.Title))
		}
		return fail("%s fits %d entries of the reference list of %s (%s): which one is meant is unclear", out.Target, len(matched), from.Doc, strings.Join(titles, "; "))
	}
	e := matched[0]
	if res := r.resolveWork(ctx, e, from); res != nil {
		out.Resolved = res
		return out
	}
	return fail("%s cites %q (%s, %s), which is not in the knowledge base", out.Target, e.Title, strings.Join(e.Authors, ", "), e.Year)
}

// resolveWork finds the document a reference-list entry names: its title as a registered name,
// then as a document's title metadata, then a search for the title in the citing document's
// collection and then in the whole knowledge base. A document found counts as the work only
// when one of its titles is similar enough to the cited title (TitleThreshold) and it names
// the first author (and, when it states a year, the same year); otherwise the work is not in
// the knowledge base and nil is returned: no guess.
func (r *Resolver) resolveWork(ctx context.Context, e refs.Entry, from Origin) *Resolution {
	threshold := r.TitleThreshold
	if threshold <= 0 || threshold > 1 {
		threshold = DefaultTitleThreshold
	}
	found := func(doc, method string) *Resolution {
		res := r.bestPassage(ctx, doc, from.Context)
		if res == nil {
			var err error
			if res, err = r.opening(ctx, doc); err != nil {
				return nil
			}
		}
		res.Method = method
		return res
	}
	if doc, _ := r.document(ctx, e.Title); doc != "" && doc != from.Doc && r.isWork(ctx, doc, e, 0) {
		return found(doc, MethodBibliography)
	}
	docs, err := r.Store.Documents(ctx, "")
	if err != nil {
		return nil
	}
	var byMeta []string
	for _, d := range docs {
		if d.ID != from.Doc && max(titleSimilarity(e.Title, d.Title), titleSimilarity(e.Title, d.Meta["title"])) >= threshold && r.isWork(ctx, d.ID, e, 0) {
			byMeta = append(byMeta, d.ID)
		}
	}
	if len(byMeta) == 1 {
		return found(byMeta[0], MethodBibliography)
	}
	if len(byMeta) > 1 || r.Searcher == nil {
		return nil // two documents claim the title: no guess
	}
	collection := ""
	for _, d := range docs {
		if d.ID == from.Doc {
			collection = d.Collection
		}
	}
	for _, step := range []struct {
		scope  chunk.Scope
		method string
	}{{chunk.Scope{Collections: []string{collection}}, MethodCitationScoped}, {chunk.Scope{}, MethodCitationBroad}} {
		if step.method == MethodCitationScoped && collection == "" {
			continue
		}
		results, err := r.Searcher.Search(ctx, Request{Query: e.Title, Scope: step.scope, K: 8, Mode: Lexical})
		if err != nil {
			return nil
		}
		tried := map[string]bool{from.Doc: true}
		for _, hit := range results {
			if tried[hit.Doc] {
				continue
			}
			tried[hit.Doc] = true
			if r.isWork(ctx, hit.Doc, e, threshold) {
				return found(hit.Doc, step.method)
			}
		}
	}
	return nil
}

// isWork checks a document against a cited work: it names the first author (in its metadata,
// title or opening passage), states no other year in its metadata, and, when threshold is
// above 0, has a title (metadata, first heading or first line) at least that similar to the
// cited one.
func (r *Resolver) isWork(ctx context.Context, doc string, e refs.Entry, threshold float64) bool {
	info, ok, err := r.Store.Document(ctx, doc)
	if err != nil || !ok || len(e.Authors) == 0 {
		return false
	}
	titles := []string{info.Title, info.Meta["title"]}
	opening := info.Title
	for _, v := range info.Meta {
		opening += "\n" + v
	}
	if chunks, err := r.Store.Chunks(ctx, []string{chunk.ID(doc, 0)}); err == nil && len(chunks) == 1 {
		c := chunks[0]
		head, _, _ := strings.Cut(c.SectionPath, " › ")
		first, _, _ := strings.Cut(strings.TrimSpace(c.Text), "\n")
		titles = append(titles, head, first)
		opening += "\n" + c.SectionPath + "\n" + c.Text
	}
	if !namesAuthor(opening, e.Authors[0]) {
		return false
	}
	for _, k := range []string{"year", "date"} {
		if y := yearIn.FindString(info.Meta[k]); y != "" && y != e.Year[:4] {
			return false
		}
	}
	if threshold > 0 {
		best := 0.0
		for _, t := range titles {
			best = max(best, titleSimilarity(e.Title, t))
		}
		return best >= threshold
	}
	return true
}

var yearIn = regexp.MustCompile(`\b(?:19|20)\d{2}\b`)

// namesAuthor reports whether text has the author's name as whole words, in any spelling
// FoldName treats as equal ("Müller", "MUELLER"; "van der Berg" over three words).
func namesAuthor(text, author string) bool {
	want := refs.FoldName(author)
	if want == "" {
		return false
	}
	words := strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' && r != '’' && r != '-' })
	for i := range words {
		joined := ""
		for j := i; j < len(words) && j < i+4; j++ {
			joined += refs.FoldName(words[j])
			if joined == want {
				return true
			}
			if len(joined) >= len(want) {
				break
			}
		}
	}
	return false
}

// stopWords are left out of title comparisons.
var stopWords = map[string]bool{
	"the": true, "and": true, "for": true, "with": true, "from": true, "into": true, "after": true, "during": true,
	"under": true, "over": true, "between": true, "its": true, "their": true, "this": true, "that": true, "are": true,
	"der": true, "die": true, "das": true, "und": true, "fur": true, "von": true, "mit": true, "bei": true,
	"nach": true, "zur": true, "zum": true, "den": true, "des": true, "ein": true, "eine": true, "einer": true,
}

// titleWords are a title's content words, folded, a plural "s" dropped.
func titleWords(title string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(title, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		w = refs.FoldName(w)
		if len(w) < 3 || stopWords[w] {
			continue
		}
		if len(w) > 4 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
			w = w[:len(w)-1]
		}
		out[w] = true
	}
	return out
}

// titleSimilarity is the Dice coefficient of two titles' content words.
func titleSimilarity(a, b string) float64 {
	wa, wb := titleWords(a), titleWords(b)
	if len(wa) == 0 || len(wb) == 0 {
		return 0
	}
	common := 0
	for w := range wa {
		if wb[w] {
			common++
		}
	}
	return 2 * float64(common) / float64(len(wa)+len(wb))
}

// bibliography parses the reference list of a document: the sections headed "References",
// "Bibliography", "Literatur" and the like, or else the text after the last such line.
func (r *Resolver) bibliography(ctx context.Context, doc string) ([]refs.Entry, error) {
	chunks, err := r.Store.DocumentChunks(ctx, doc)
	if err != nil {
		return nil, err
	}
	var list []chunk.Chunk
	for _, c := range chunks {
		last := c.SectionPath
		if i := strings.LastIndex(last, " › "); i >= 0 {
			last = last[i+len(" › "):]
		}
		if refs.ReferencesHeading.MatchString(last) || refs.ReferencesHeading.MatchString(c.Heading) {
			list = append(list, c)
		}
	}
	text := stitch(list)
	if len(list) == 0 {
		all := stitch(chunks)
		lines := strings.Split(all, "\n")
		for i := len(lines) - 1; i >= 0; i-- {
			if refs.ReferencesHeading.MatchString(lines[i]) {
				text = strings.Join(lines[i+1:], "\n")
				break
			}
		}
	}
	var out []refs.Entry
	seen := map[string]bool{}
	for _, raw := range refs.BibliographyEntries(text) {
		if e, ok := refs.ParseEntry(raw); ok && !seen[e.Text] {
			seen[e.Text] = true
			out = append(out, e)
		}
	}
	return out, nil
}

// stitch joins chunks in order into their text, without the overlap of neighbours: a chunk
// that starts before the previous one ended (in the same file) adds only what follows, and one
// that starts right after it goes on the same paragraph.
func stitch(chunks []chunk.Chunk) string {
	var b strings.Builder
	for i, c := range chunks {
		text := c.Text
		if i > 0 {
			prev := chunks[i-1]
			switch {
			case c.File != prev.File || c.End-c.Start != len(text):
				b.WriteString("\n\n")
			case c.Start < prev.End && prev.End-c.Start <= len(text):
				text = text[prev.End-c.Start:]
			case c.Start-prev.End <= 1:
				b.WriteString("\n") // split inside a paragraph: the entry goes on
			default:
				b.WriteString("\n\n")
			}
		}
		b.WriteString(text)
	}
	return b.String()
}
