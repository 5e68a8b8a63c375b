package ireval

import (
	"html"
	"regexp"
	"strings"
)

// CACM as distributed in TREC form (Anserini's cacm.tar.gz): each <DOC>'s <TEXT> holds, in
// paragraphs, what the SMART original held in fields: the title (.T), the abstract (.W), the
// issue's date (.B), the authors (.A), for some the keywords (.K) and CR categories (.C), then
// the record's line (.N, "CA581203 JB March 22, 1978 8:28 PM") and the citation table (.X, one
// "doc kind doc" line per citation). The title becomes the document's title; the record line
// and the citation table are dropped, as the CISI loader drops .X: they are numbers about the
// record, not words of the paper.

var (
	cacmTextRe     = regexp.MustCompile(`(?is)<text>(.*?)</text\s*>`)
	cacmRecordRe   = regexp.MustCompile(`^CA\d{6} `)
	cacmCitationRe = regexp.MustCompile(`^\d+\s+\d+\s+\d+$`)
)

// loadCACM keeps the judgments as given: in the distributed qrels 55 name "CACM-756" for the
// document "CACM-0756" and can never be found, as in the published figures (see
// Collection.Absent).
func loadCACM(docsPath, queriesPath, qrelsPath string) (*Collection, error) {
	return loadTRECWith(parseCACMDocs, docsPath, queriesPath, qrelsPath)
}

func parseCACMDocs(path string) ([]Doc, error) {
	return eachTRECDoc(path, func(id, body string, _ []int, line int) (Doc, error) {
		t := cacmTextRe.FindStringSubmatch(body)
		if t == nil {
			return Doc{}, parseErr(path, line, "<DOC> %s without <TEXT>…</TEXT>", id)
		}
		title, text := cacmFields(html.UnescapeString(t[1]))
		if title == "" {
			return Doc{}, parseErr(path, line, "<DOC> %s has no title", id)
		}
		return Doc{ID: id, Title: title, Text: text}, nil
	})
}

// cacmFields splits a CACM record's text into its title (the first paragraph, on one line) and
// the rest without the record line and citation table, one line per non-blank source line.
func cacmFields(text string) (title, rest string) {
	var titleLines, lines []string
	inTitle := true
	for l := range strings.SplitSeq(text, "\n") {
		l = oneLine(l)
		switch {
		case l == "":
			inTitle = inTitle && len(titleLines) == 0
		case inTitle:
			titleLines = append(titleLines, l)
		case cacmRecordRe.MatchString(l), cacmCitationRe.MatchString(l):
		default:
			lines = append(lines, l)
		}
	}
	return strings.Join(titleLines, " "), strings.Join(lines, "\n")
}

// Absent counts the relevant judgments of evaluated queries that name a document the
// collection does not hold: they count as relevant documents never found (as trec_eval counts
// them), which caps MAP and recall.
func (c *Collection) Absent() int {
	ids := make(map[string]bool, len(c.Docs))
	for _, d := range c.Docs {
		ids[d.ID] = true
	}
	n := 0
	for _, q := range c.Judged() {
		for d, g := range c.Qrels[q.ID] {
			if g > 0 && !ids[d] {
				n++
			}
		}
	}
	return n
}
