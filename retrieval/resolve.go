package retrieval

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"warren/kb"
	"warren/kb/chunk"
	"warren/registry"
	"warren/retrieval/refs"
)

// Resolution methods: how a reference found its passage.
const (
	MethodSection      = "section"       // exact lookup of the section in the named or current document
	MethodDocument     = "document"      // a document mention without context: its opening chunks
	MethodScopedSearch = "scoped_search" // a document mention: the passage best matching its context
	MethodBibliography = "bibliography"  // a citation's reference-list entry, followed to the document it names
)

// Resolution is where a reference leads in the knowledge base.
type Resolution struct {
	Doc        string   `json:"doc"`
	Collection string   `json:"collection"`
	Section    string   `json:"section"`
	ChunkIDs   []string `json:"chunk_ids"`
	Method     string   `json:"method"`
}

// Resolved is a reference with its outcome: a resolution, or nil and the reason why not.
type Resolved struct {
	refs.Reference
	Resolved *Resolution `json:"resolved"`
	Reason   string      `json:"reason,omitempty"`
}

// Origin is where a reference was found: its document and section, and the text around it,
// which scoped search uses when a named section does not exist.
type Origin struct {
	Doc     string
	Section string
	Context string
}

// Resolver resolves references against the knowledge base and the document registry.
type Resolver struct {
	Store    kb.Backend
	Names    *registry.Resolver
	Searcher *Searcher
	// MaxChunks bounds the chunks a resolution lists (a long section has many).
	MaxChunks int
	// TitleThreshold is the least similarity of a cited title and a document's title for a
	// document found by its title to count as the cited work; 0 means DefaultTitleThreshold.
	TitleThreshold float64
}

// NewResolver builds a resolver over a store and registry. fuzzy is the least Jaro-Winkler
// similarity a misspelt document name needs to resolve (thresholds.fuzzy_match); values
// outside (0, 1] mean registry.DefaultFuzzyThreshold.
func NewResolver(store kb.Backend, reg *registry.Registry, searcher *Searcher, fuzzy float64) *Resolver {
	names := registry.NewResolver(reg)
	if fuzzy > 0 && fuzzy <= 1 {
		names.Threshold = fuzzy
	}
	return &Resolver{Store: store, Names: names, Searcher: searcher, MaxChunks: 8, TitleThreshold: DefaultTitleThreshold}
}

// Resolve follows one reference. It never guesses across documents: a named document that is
// not in the knowledge base, an external reference, or a citation it cannot trace ends
// unresolved with the reason. Citations ("[12]", "(Müller et al., 2019)") go through the
// citing document's reference list to the work's title, and from there to the registry, a
// document's title metadata, then a search in the citing collection and in the whole
// knowledge base, each held to the work's title and first author (see resolveWork).
func (r *Resolver) Resolve(ctx context.Context, ref refs.Reference, from Origin) Resolved {
	out := Resolved{Reference: ref}
	from.Context = ownWords(from.Context, ref)
	fail := func(format string, args ...any) Resolved {
		out.Reason = fmt.Sprintf(format, args...)
		return out
	}
	switch ref.Type {
	case refs.TypeExternal:
		return fail("external reference: warren never fetches anything outside the knowledge base")
	case refs.TypeAcademicShortform:
		return r.resolveAuthorYear(ctx, out, from)
	case refs.TypeAcademicNumbered:
		return r.resolveCitation(ctx, out, from)
	case refs.TypeDocumentMention:
		doc, reason := r.document(ctx, ref.Target)
		if doc == "" {
			return fail("%s", reason)
		}
		if res := r.bestPassage(ctx, doc, from.Context); res != nil {
			out.Resolved = res
			return out
		}
		res, err := r.opening(ctx, doc)
		if err != nil {
			return fail("%s", failedRead("couldn't read "+doc, err))
		}
		out.Resolved = res
		return out
	case refs.TypeLegalSection, refs.TypeSection:
		doc := from.Doc
		if ref.DocumentContext != "" {
			var reason string
			if doc, reason = r.document(ctx, ref.DocumentContext); doc == "" {
				return fail("%s", reason)
			}
		} else if doc == "" {
			return fail("a section reference without a named document needs the document it appears in (--from)")
		}
		return r.resolveSection(ctx, out, doc, ref.SectionNumber(), from)
	}
	return fail("unknown reference type %q", ref.Type)
}

// ownWordsMax bounds the text taken on each side of a reference by ownWords: statutes write
// sentences of a thousand words.
const ownWordsMax = 400

// ownWords is the sentence of a passage that holds a reference, which is what the reference
// says about the passage it points to: a scoped search with the whole passage would find what
// the rest of the passage is about, and a reference near the start of a window would resolve
// by what follows it, one near the end by what precedes it. The whole text when the reference
// doesn't point into it.
func ownWords(text string, ref refs.Reference) string {
	if ref.Start < 0 || ref.End > len(text) || ref.Start >= ref.End || text[ref.Start:ref.End] != ref.OriginalText {
		return text
	}
	start := max(0, ref.Start-ownWordsMax)
	for i := ref.Start - 1; i >= start; i-- {
		if sentenceBreak(text, i) {
			start = i + 1
			break
		}
	}
	end := min(len(text), ref.End+ownWordsMax)
	for i := ref.End; i < end; i++ {
		if sentenceBreak(text, i) {
			end = i + 1
			break
		}
	}
	// Cut at spaces, so that no word (or rune) is cut in half.
	if start > 0 && !sentenceBreak(text, start-1) {
		if k := strings.IndexAny(text[start:ref.Start], " \n"); k >= 0 {
			start += k + 1
		} else {
			start = ref.Start
		}
	}
	if end < len(text) && !sentenceBreak(text, end-1) {
		if k := strings.LastIndexAny(text[ref.End:end], " \n"); k >= 0 {
			end = ref.End + k
		} else {
			end = ref.End
		}
	}
	return strings.TrimSpace(text[start:end])
}

// sentenceBreak reports whether the byte at i ends a sentence: a blank line, or a full stop,
// question or exclamation mark before a space and a capital or an opening bracket ("… gelten.
// (2) Der …"); "Nr. 4" and "gem. § 5" go on.
func sentenceBreak(text string, i int) bool {
	switch text[i] {
	case '\n':
		return i+1 < len(text) && text[i+1] == '\n'
	case '.', '!', '?':
		j := i + 1
		for j < len(text) && (text[j] == ' ' || text[j] == '\n' || text[j] == '\t') {
			j++
		}
		if j == i+1 || j >= len(text) {
			return j >= len(text)
		}
		r, _ := utf8.DecodeRuneInString(text[j:])
		return unicode.IsUpper(r) || r == '('
	}
	return false
}

// document finds the stored document a name refers to, or says why there is none.
func (r *Resolver) document(ctx context.Context, name string) (doc, reason string) {
	m, ok := r.Names.Resolve(name, "")
	if !ok {
		return "", fmt.Sprintf("%q is not in the knowledge base", name)
	}
	info, stored, err := r.Store.Document(ctx, m.Doc.Path)
	if err != nil {
		return "", failedRead(fmt.Sprintf("couldn't look up %s", m.Doc.Path), err)
	}
	if !stored {
		return "", fmt.Sprintf("%q is registered as %s but not ingested: run `warren ingest`", name, m.Doc.Path)
	}
	return info.ID, ""
}

// NotAccessible begins the reason of a reference into a document its analyst may not read:
// it is reported so, never followed or quoted.
const NotAccessible = "not accessible: "

// failedRead is the reason a lookup failed: "not accessible: …" when the analyst's access
// refused it, else what (when given) and the error.
func failedRead(what string, err error) string {
	switch {
	case errors.Is(err, kb.ErrNotAccessible):
		return NotAccessible + err.Error()
	case what != "":
		return what + ": " + err.Error()
	}
	return err.Error()
}

// sectionCandidates lists the labels a section number may be stored under.
func sectionCandidates(number string) []string {
	c := []string{number}
	switch {
	case strings.HasPrefix(number, "Art. "):
		c = append(c, "Artikel "+strings.TrimPrefix(number, "Art. "))
	case len(number) == 1 && number[0] >= 'A' && number[0] <= 'Z':
		c = append(c, "Appendix "+number, "Anhang "+number)
	}
	return c
}

func (r *Resolver) resolveSection(ctx context.Context, out Resolved, doc, number string, from Origin) Resolved {
	info, _, err := r.Store.Document(ctx, doc)
	if err != nil {
		out.Reason = failedRead("", err)
		return out
	}
	for _, label := range sectionCandidates(number) {
		chunks, err := r.Store.SectionChunks(ctx, doc, label)
		if err != nil {
			out.Reason = failedRead("", err)
			return out
		}
		if len(chunks) > 0 {
			out.Resolved = r.resolution(info, label, chunks, MethodSection)
			return out
		}
	}
	// A precise section number that the document lacks (repealed, or an annex that was not
	// ingested) ends unresolved: any other passage would be a wrong citation.
	out.Reason = fmt.Sprintf("%s has no section %s in the knowledge base", doc, number)
	return out
}

// bestPassage is the chunk of a mentioned document that best matches the text around the
// mention, or nil without context or match.
func (r *Resolver) bestPassage(ctx context.Context, doc, context string) *Resolution {
	if context == "" || r.Searcher == nil {
		return nil
	}
	results, err := r.Searcher.Search(ctx, Request{Query: context, Scope: chunk.Scope{Doc: doc}, K: 1, Mode: Lexical})
	if err != nil || len(results) == 0 {
		return nil
	}
	c := results[0]
	return &Resolution{Doc: doc, Collection: c.Collection, Section: c.Section, ChunkIDs: []string{c.ID}, Method: MethodScopedSearch}
}

func (r *Resolver) resolution(info kb.DocInfo, section string, chunks []chunk.Chunk, method string) *Resolution {
	res := &Resolution{Doc: info.ID, Collection: info.Collection, Section: section, Method: method}
	for i, c := range chunks {
		if r.MaxChunks > 0 && i >= r.MaxChunks {
			break
		}
		res.ChunkIDs = append(res.ChunkIDs, c.ID)
	}
	return res
}

// opening resolves a document mention to the document's first chunks.
func (r *Resolver) opening(ctx context.Context, doc string) (*Resolution, error) {
	info, _, err := r.Store.Document(ctx, doc)
	if err != nil {
		return nil, err
	}
	n := min(3, info.Chunks)
	ids := make([]string, n)
	for i := range ids {
		ids[i] = chunk.ID(doc, i)
	}
	return &Resolution{Doc: doc, Collection: info.Collection, ChunkIDs: ids, Method: MethodDocument}, nil
}

var urlLike = regexp.MustCompile(`(?i)\bhttps?://|\bwww\.`)

// resolveCitation follows "[n]" to the entry of the current document's reference list and from
// there to the document the entry names, when that document is in the knowledge base.
func (r *Resolver) resolveCitation(ctx context.Context, out Resolved, from Origin) Resolved {
	if from.Doc == "" {
		out.Reason = "a numbered citation needs the document it appears in (--from)"
		return out
	}
	entry, err := r.bibliographyEntry(ctx, from.Doc, out.Target)
	switch {
	case err != nil:
		out.Reason = failedRead("", err)
		return out
	case entry == "":
		out.Reason = fmt.Sprintf("%s has no reference-list entry [%s]", from.Doc, out.Target)
		return out
	}
	for _, named := range refs.DetectRegex(entry) {
		if named.Type != refs.TypeDocumentMention {
			continue
		}
		if doc, _ := r.document(ctx, named.Target); doc != "" && doc != from.Doc {
			res, err := r.opening(ctx, doc)
			if err == nil {
				res.Method = MethodBibliography
				out.Resolved = res
				return out
			}
		}
	}
	if e, ok := refs.ParseEntry(entry); ok && !urlLike.MatchString(entry) {
		// An academic entry: the work by its title, as for an author–year citation.
		if res := r.resolveWork(ctx, e, from); res != nil {
			out.Resolved = res
			return out
		}
	}
	if urlLike.MatchString(entry) {
		out.Reason = fmt.Sprintf("[%s] cites an external source (%s): warren never fetches it", out.Target, strings.TrimSpace(entry))
	} else {
		out.Reason = fmt.Sprintf("[%s] cites %q, which is not in the knowledge base", out.Target, strings.TrimSpace(entry))
	}
	return out
}

// bibliographyEntry finds the line of a document that starts with "[n]" and returns it with
// its continuation lines.
func (r *Resolver) bibliographyEntry(ctx context.Context, doc, n string) (string, error) {
	chunks, err := r.Store.DocumentChunks(ctx, doc)
	if err != nil {
		return "", err
	}
	entry := regexp.MustCompile(`(?m)^\s*\[` + regexp.QuoteMeta(n) + `\]\s+(.+(?:\n\s{4,}\S.*)*)`)
	for i := len(chunks) - 1; i >= 0; i-- { // reference lists come last
		if m := entry.FindStringSubmatch(chunks[i].Text); m != nil {
			return strings.Join(strings.Fields(m[1]), " "), nil
		}
	}
	return "", nil
}
