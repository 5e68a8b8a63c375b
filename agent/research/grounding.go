package research

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"warren/internal/citation"
	"warren/internal/evidence"
	"warren/internal/snippet"
)

// UnsupportedSentence is a sentence of a report that states a number (with a unit), a limit
// value or a CAS number that none of the passages it cites states.
type UnsupportedSentence struct {
	Sentence string   `json:"sentence"`
	Claims   []string `json:"claims"` // what no cited passage states, as the sentence writes it
	Cited    []int    `json:"cited"`  // the source numbers the sentence cites
}

// UnsupportedMark is put after a sentence of the final report whose numbers its sources do not
// state; the workbench's report view picks it out.
const UnsupportedMark = "⚠ unsupported:"

// CheckNumbers finds the report's sentences whose numbers with a unit, limit values and CAS
// numbers none of the passages they cite states (normalised: decimal comma or point, thousands
// separators, unit conversions, rounding; see evidence.Supports). passages gives the text of
// source n; a sentence without a citation of its own is held to its paragraph's citations, and
// one whose paragraph cites nothing is left to CheckCitations. Headings, quotes and table rows
// are not claims.
func CheckNumbers(report string, passages map[int]string) []UnsupportedSentence {
	var out []UnsupportedSentence
	for _, para := range strings.Split(report, "\n\n") {
		p := strings.TrimSpace(para)
		if p == "" || strings.HasPrefix(p, "#") || strings.HasPrefix(p, ">") || strings.HasPrefix(p, "|") {
			continue
		}
		paraCited := citedSources(p, passages)
		for _, sent := range sentences(p) {
			cited := citedSources(sent, passages)
			if len(cited) == 0 {
				cited = paraCited
			}
			if len(cited) == 0 {
				continue
			}
			var missing []string
			for _, c := range evidence.Claims(stripCitations(sent)) {
				stated := false
				for _, n := range cited {
					if _, ok := evidence.Supports(passages[n], c, 0); ok {
						stated = true
						break
					}
				}
				if !stated {
					missing = append(missing, c.Text)
				}
			}
			if len(missing) > 0 {
				out = append(out, UnsupportedSentence{Sentence: strings.TrimSpace(sent), Claims: missing, Cited: cited})
			}
		}
	}
	return out
}

// citedSources lists the source numbers text cites that name a passage, in order, once each.
func citedSources(text string, passages map[int]string) []int {
	var out []int
	seen := map[int]bool{}
	for _, n := range citation.Numbers(text) {
		if _, ok := passages[n]; ok && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// stripCitations removes the [n] citations, whose numbers are no claims.
func stripCitations(text string) string {
	return citation.Rewrite(text, func([]int) string { return "" })
}

// sentences splits a paragraph at the end of each sentence (".", "!" or "?" and any
// citations after it, then a space and a capital letter, a digit or a list mark) and at line
// breaks of a list. A decimal point is followed by a digit, not a space, so numbers stay whole.
func sentences(p string) []string {
	var out []string
	flush := func(from, to int) {
		if t := strings.TrimSpace(p[from:to]); t != "" {
			out = append(out, t)
		}
	}
	start := 0
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c == '\n' {
			flush(start, i)
			start = i + 1
			continue
		}
		if c != '.' && c != '!' && c != '?' {
			continue
		}
		// Citations after the stop belong to the sentence: "… 0.05 ppm. [3] Next".
		j := i + 1
		for {
			k := j
			for k < len(p) && p[k] == ' ' {
				k++
			}
			if k < len(p) && p[k] == '[' {
				if e := strings.IndexByte(p[k:], ']'); e > 0 && citation.Contains(p[k:k+e+1]) {
					j = k + e + 1
					continue
				}
			}
			break
		}
		k := j
		for k < len(p) && p[k] == ' ' {
			k++
		}
		if k == j || k >= len(p) {
			continue // no space after the stop, or the paragraph's end
		}
		if r, _ := utf8.DecodeRuneInString(p[k:]); unicode.IsUpper(r) || unicode.IsDigit(r) || r == '-' || r == '*' {
			flush(start, j)
			start, i = k, k-1
		}
	}
	flush(start, len(p))
	return out
}

// sourcePassages is the text of each numbered source: its whole chunk from the knowledge base
// when the store has it, else the excerpt the state keeps.
func (d *Deps) sourcePassages(ctx context.Context, s *State) map[int]string {
	out := map[int]string{}
	var ids []string
	for _, src := range s.Sources {
		out[src.N] = src.Excerpt
		ids = append(ids, src.ChunkID)
	}
	if d.Store != nil && len(ids) > 0 {
		if chunks, err := d.Store.Chunks(ctx, ids); err == nil {
			text := map[string]string{}
			for _, c := range chunks {
				text[c.ID] = c.Text
			}
			for _, src := range s.Sources {
				if t, ok := text[src.ChunkID]; ok {
					out[src.N] = t
				}
			}
		}
	}
	return out
}

// unsupportedProblem words an unsupported sentence as a problem of the quality check.
func unsupportedProblem(u UnsupportedSentence) string {
	return fmt.Sprintf("%s not stated by the cited source(s) %s: %q", strings.Join(u.Claims, ", "), sourceList(u.Cited),
		snippet.Cut(u.Sentence, 120))
}

func sourceList(ns []int) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, ", ")
}

// markUnsupported puts UnsupportedMark after each unsupported sentence of the report, saying
// which claims its sources do not state, and a note above the report counting them.
func markUnsupported(report string, found []UnsupportedSentence) string {
	if len(found) == 0 {
		return report
	}
	// Longer sentences first, so a sentence that contains a shorter one is marked whole.
	sorted := append([]UnsupportedSentence(nil), found...)
	sort.SliceStable(sorted, func(i, j int) bool { return len(sorted[i].Sentence) > len(sorted[j].Sentence) })
	for _, u := range sorted {
		mark := fmt.Sprintf(" (%s %s not stated by source %s)", UnsupportedMark, strings.Join(u.Claims, ", "), sourceList(u.Cited))
		if i := strings.Index(report, u.Sentence); i >= 0 && !strings.HasPrefix(report[i+len(u.Sentence):], " ("+UnsupportedMark) {
			end := i + len(u.Sentence)
			report = report[:end] + mark + report[end:]
		}
	}
	return fmt.Sprintf("> %d sentence(s) state numbers their cited sources do not; they are marked %q.\n\n%s",
		len(found), strings.TrimSuffix(UnsupportedMark, ":"), report)
}
