package tablequery

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// maxFallbackWords bounds the words the fallback searches for.
const maxFallbackWords = 6

// Fallback builds a filter without the model, for when no model expression compiled. The rule:
//
//   - the question is split into words (letters, digits and inner hyphens, so CAS numbers such
//     as 7440-37-1 stay whole) and lower-cased;
//   - words shorter than three characters (unless they hold a digit, as in "n2"), common
//     English and German words ("show", "which", "without", "gases", "ohne", …) and words that
//     name a field or part of one ("cas", "number" for cas_number) are dropped: they describe
//     columns or the query, not values;
//   - a row matches when its text fields mention any of the first six remaining words,
//     ignoring case: `any_text contains "w1" or any_text contains "w2"`.
//
// It is a word search, not an understanding of the question (negations such as "without" are
// lost), which is why its answer is labelled a fallback. Without any word left the filter is
// `true`, every row, so the analyst starts from the whole table. note says which it was.
func Fallback(schema Schema, question string) (expression, note string) {
	words := fallbackWords(schema, question)
	if len(words) == 0 {
		return "true", "fallback: the question has no words to search for, so the filter keeps every row; edit it to narrow the table"
	}
	clauses := make([]string, len(words))
	for i, w := range words {
		clauses[i] = AnyText + " contains " + strconv.Quote(w)
	}
	return strings.Join(clauses, " or "),
		fmt.Sprintf("fallback: rows whose text mentions any of %s (a word search without the model; edit the filter to refine it)",
			strings.Join(quoteAll(words), ", "))
}

func fallbackWords(schema Schema, question string) []string {
	fieldWords := map[string]bool{}
	for _, f := range schema {
		name := strings.ToLower(f.Name)
		fieldWords[name] = true
		for _, p := range strings.Split(name, "_") {
			fieldWords[p] = true
		}
	}
	tokens := strings.FieldsFunc(strings.ToLower(question), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-'
	})
	var words []string
	seen := map[string]bool{}
	for _, t := range tokens {
		t = strings.Trim(t, "-")
		n := len([]rune(t))
		hasDigit := strings.ContainsFunc(t, unicode.IsDigit)
		if n < 2 || n < 3 && !hasDigit || stopwords[t] || fieldWords[t] || seen[t] {
			continue
		}
		seen[t] = true
		words = append(words, t)
		if len(words) == maxFallbackWords {
			break
		}
	}
	return words
}

func quoteAll(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = strconv.Quote(w)
	}
	return out
}

// stopwords are words of questions about a table that say nothing about the values sought.
var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`
		the a an and or not no nor but of in on at by to for from with without into onto than then
		is are was were be been being do does did have has had having can could would should will
		all any some each every only also just more most less least very much many few
		which what who whom whose where when why how that this these those there their them they
		it its me us we you our your please show list find give get tell display return select
		filter search look want need matching match matches rows row table entries entry records
		record items item value values gas gases compound compounds substance substances chemical
		chemicals material materials missing empty blank null none unknown known set given
		greater lower higher smaller larger bigger above below under over between equal equals
		least most than like same other others another such both either neither
		der die das den dem des ein eine einer eines einem einen und oder nicht ohne mit für von
		zu zum zur ist sind war waren hat haben alle alles jede jeder welche welcher welches
		zeige zeig liste gib finde gase kein keine keinen deren dessen über unter als wie auf bei
		aus nach mehr weniger fehlt fehlen fehlende leer leere bitte`) {
		m[w] = true
	}
	return m
}()
