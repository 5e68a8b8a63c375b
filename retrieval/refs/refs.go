// Package refs detects references inside document text: German legal citations ("§ 6 Absatz 1
// der Gefahrstoffverordnung", "Artikel 3 der Verordnung (EG) Nr. 1272/2008", "Anhang I Nummer
// 1.7"), RFC-style section and document references ("Section 4 of RFC 6901", "[RFC2119]"),
// academic citations ("[12]", "(Smith et al., 2020)"), cued mentions of named documents ("see the
// Gas Cabinet Procedure") and URLs.
//
// Detection only finds and normalises references; deciding whether to follow one and resolving it
// to a document and section happen elsewhere in retrieval.
//
// # Canonical targets
//
// Every Reference carries a Target in one canonical form, so that the same reference written in
// different ways ("§ 6 Absatz 1 Satz 2", "§ 6 Abs. 1 S. 2") compares equal:
//
//   - legal_section: a head ("§ 6", "§ 5a", "Art. 3", "Anhang I", "Anlage 2") followed by the
//     detail chain with abbreviated keywords: Abs. (Absatz), S. (Satz), Nr. (Nummer), Buchst.
//     (Buchstabe), UAbs. (Unterabsatz), Halbs. (Halbsatz), Alt. (Alternative), Teil, Abschn.,
//     Spalte, Eintrag, Zeile. Lists inside the chain keep their separators normalised to ", ",
//     " und ", " oder ", " bis ": "§ 6 Abs. 1 S. 2 Nr. 4", "§ 5a Abs. 1 und 2",
//     "Anhang I Nr. 1.7", "Art. 3 Abs. 1 UAbs. 2". Lists of whole sections ("§§ 93, 97",
//     "§§ 3 bis 5") become one Reference per section; short ranges are expanded.
//   - section: the bare section number of an RFC-style document, "3.2", "4.e", or the appendix
//     letter and number, "A", "A.1".
//   - document_mention: "RFC 2119", "BCP 14", "STD 90"; EU acts as "Verordnung (EG) Nr.
//     1272/2008", "Richtlinie 2012/18/EU"; German law names as written ("Chemikaliengesetz");
//     other bracketed citation labels as written ("ECMA-404"); cued document titles as written
//     ("Gas Cabinet Procedure").
//   - academic_numbered: the citation number, "12".
//   - academic_shortform: authors and year, "Smith et al. 2020", "Smith and Jones 2019".
//   - external: the URL without trailing punctuation.
//
// DocumentContext names the document a section reference points into, as written in the text
// ("Arbeitsschutzgesetzes", "GefStoffV", "Verordnung (EG) Nr. 1272/2008", "RFC 6901"). It is
// empty when the reference points into the current document.
package refs

import (
	"sort"
	"strings"
)

// Reference types. A reference has exactly one of them.
const (
	// TypeLegalSection is a section of a German law or EU act: "§ 6 Abs. 1", "Art. 3", "Anhang I".
	TypeLegalSection = "legal_section"
	// TypeSection is a numbered section of an RFC-style document: "3.2", "A.1".
	TypeSection = "section"
	// TypeDocumentMention names a whole document: "RFC 2119", "Verordnung (EG) Nr. 1907/2006".
	TypeDocumentMention = "document_mention"
	// TypeAcademicNumbered is a numbered citation such as "[12]".
	TypeAcademicNumbered = "academic_numbered"
	// TypeAcademicShortform is an author–year citation such as "(Smith et al., 2020)".
	TypeAcademicShortform = "academic_shortform"
	// TypeExternal is a URL; warren never fetches it and reports it as unresolved.
	TypeExternal = "external"
)

// MethodRegex marks references found by DetectRegex, as opposed to the model-based detector.
const MethodRegex = "regex"

// Reference is one reference found in a text. Start and End are byte offsets into the text that
// was searched, and OriginalText is text[Start:End].
type Reference struct {
	Type            string `json:"type"`
	Target          string `json:"target"`
	OriginalText    string `json:"original_text"`
	DocumentContext string `json:"document_context"`
	Method          string `json:"method"`
	Start           int    `json:"start"`
	End             int    `json:"end"`
}

// SectionNumber returns the part of the target used to look the section up in its document: the
// head of a legal target ("§ 6" for "§ 6 Abs. 1 S. 2", "Art. 3", "Anhang I", "Anlage 2") or the
// number of an RFC-style section ("4.2", "A.1"). It returns "" for references that do not point
// at a section.
func (r Reference) SectionNumber() string {
	switch r.Type {
	case TypeSection:
		return r.Target
	case TypeLegalSection:
		f := strings.Fields(r.Target)
		if len(f) < 2 {
			return r.Target
		}
		return f[0] + " " + f[1]
	}
	return ""
}

// Key returns "type:target", the identity used to deduplicate references and to skip targets
// that were already visited.
func (r Reference) Key() string { return r.Type + ":" + r.Target }

// found is a reference under construction. explicitCurrent records "dieses Gesetzes" and the
// like, which must not inherit a neighbour's document context.
type found struct {
	Reference
	explicitCurrent bool
}

// DetectRegex returns the references in text in text order. References of the same type and
// target whose spans overlap are reported once; a document mention that only repeats the document
// context of a section reference around it ("Section 4 of [RFC6901]") is dropped, and nothing
// inside a URL is reported except the URL itself.
func DetectRegex(text string) []Reference {
	urls := detectURLs(text)
	var all []found
	all = append(all, urls...)
	all = append(all, detectLegal(text)...)
	all = append(all, detectEUActs(text)...)
	all = append(all, detectLawMentions(text)...)
	all = append(all, detectSections(text)...)
	all = append(all, detectRFCMentions(text)...)
	all = append(all, detectBracketLabels(text)...)
	all = append(all, detectNumbered(text)...)
	all = append(all, detectShortform(text)...)
	all = append(all, detectNamedDocuments(text)...)

	kept := make([]found, 0, len(all))
	for _, f := range all {
		if f.Type != TypeExternal && insideAny(f, urls) {
			continue
		}
		kept = append(kept, f)
	}
	kept = dropRestatedContext(kept)

	// Longer spans first at the same start, so the fuller reading of a reference wins the
	// deduplication below.
	sort.SliceStable(kept, func(i, j int) bool {
		if kept[i].Start != kept[j].Start {
			return kept[i].Start < kept[j].Start
		}
		return kept[i].End > kept[j].End
	})
	out := make([]Reference, 0, len(kept))
	for _, f := range kept {
		dup := false
		for _, o := range out {
			if o.Type == f.Type && o.Target == f.Target && o.Start < f.End && f.Start < o.End {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, f.Reference)
		}
	}
	return out
}

// insideAny reports whether f overlaps one of the URL spans: a "Section 3" or "[12]" in a URL is
// part of an address, not a reference.
func insideAny(f found, urls []found) bool {
	for _, u := range urls {
		if f.Start < u.End && u.Start < f.End {
			return true
		}
	}
	return false
}

// dropRestatedContext removes document mentions lying inside a section reference that already
// names the same document as its context; reporting them again would make the agent follow the
// whole document besides the section.
func dropRestatedContext(fs []found) []found {
	out := fs[:0:0]
	for _, f := range fs {
		if f.Type == TypeDocumentMention && restated(f, fs) {
			continue
		}
		out = append(out, f)
	}
	return out
}

func restated(m found, fs []found) bool {
	for _, s := range fs {
		if s.Type != TypeLegalSection && s.Type != TypeSection {
			continue
		}
		if s.DocumentContext == "" || s.Start > m.Start || m.End > s.End {
			continue
		}
		if sameDocumentName(s.DocumentContext, m.Target) {
			return true
		}
	}
	return false
}

// sameDocumentName compares two spellings of a document name, ignoring spaces and case, so that
// "RFC 6901" in a context matches the mention "RFC 6901" taken from "[RFC6901]".
func sameDocumentName(a, b string) bool {
	squash := func(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), "")) }
	return squash(a) == squash(b)
}

func newFound(text, typ, target, context string, start, end int) found {
	return found{Reference: Reference{
		Type:            typ,
		Target:          target,
		OriginalText:    text[start:end],
		DocumentContext: context,
		Method:          MethodRegex,
		Start:           start,
		End:             end,
	}}
}
