package tablequery

import (
	"slices"
	"strings"
	"unicode"
)

// readQuestion reads a question into what [Fallback] filters by: groups of fields named by
// neighbouring words, and words to search the text for, each possibly negated.
func readQuestion(schema Schema, question string) []item {
	ix := newFieldIndex(schema)
	var items []item
	negation := ""  // a negation waiting for the next field or word
	after := -1     // the field item just before that negation, for "CAS missing"
	or := false     // "or" since the last item
	lastGroup := -1 // the field item the previous word joined; -1 after any other word
	searches := 0   // words searched in the text
	seen := map[string]bool{}
	// A negation that can follow its field ("CAS missing", "CAS fehlt") and is followed by
	// nothing else it could turn around applies to the field before it.
	attachBack := func() {
		if negation != "" && postfix[negation] && after >= 0 && !items[after].negated {
			items[after].negated = true
			items[after].words = append(items[after].words, negation)
			negation = ""
		}
	}
	add := func(it item) {
		it.orWithPrevious = or
		if negation != "" {
			it.negated = true
			it.words = append([]string{negation}, it.words...)
		}
		items = append(items, it)
		negation, or = "", false
	}
	for _, token := range words(question) {
		switch {
		case negations[token]:
			negation, after, lastGroup = token, lastGroup, -1
			continue
		case token == "or" || token == "oder":
			attachBack()
			or, lastGroup = true, -1
			continue
		case token == "and" || token == "und":
			attachBack()
			continue
		case stopwords[token]:
			continue
		}
		word, prefixed := token, false
		if rest, ok := strings.CutPrefix(token, "non"); ok && len(rest) > 3 && ix.match(rest) != nil {
			word, prefixed = rest, true // "nonflammable"
		}
		if fields := ix.match(word); fields != nil {
			if lastGroup >= 0 && !prefixed && negation == "" {
				if narrowed := intersect(items[lastGroup].fields, fields); len(narrowed) > 0 {
					items[lastGroup].fields = narrowed
					items[lastGroup].words = append(items[lastGroup].words, token)
					continue
				}
			}
			add(item{words: []string{token}, fields: fields, negated: prefixed})
			lastGroup = len(items) - 1
			continue
		}
		lastGroup = -1
		n := len([]rune(word))
		if n < 2 || n < 3 && !strings.ContainsFunc(word, unicode.IsDigit) || seen[word] || searches == maxFallbackWords {
			continue
		}
		seen[word] = true
		searches++
		add(item{words: []string{token}, value: word, negated: prefixed})
	}
	attachBack()
	return items
}

// words splits a text into lower-case words of letters and digits. A hyphen stays inside a
// word with a digit, so that CAS numbers such as 7440-37-1 stay whole, and splits others:
// "non-toxic" is "non" "toxic", "CAS-Nummer" "cas" "nummer".
func words(text string) []string {
	var out []string
	for _, t := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-'
	}) {
		if !strings.ContainsFunc(t, unicode.IsDigit) {
			out = append(out, strings.FieldsFunc(t, func(r rune) bool { return r == '-' })...)
		} else if t = strings.Trim(t, "-"); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// fieldIndex holds, for each field of a schema, the words that name it: the parts of its
// name and the words of its Doc, without units, numbers and common words.
type fieldIndex [][]string

func newFieldIndex(schema Schema) fieldIndex {
	ix := make(fieldIndex, len(schema))
	for i, f := range schema {
		terms := strings.Split(strings.ToLower(f.Name), "_")
		for _, w := range words(f.Doc) {
			terms = append(terms, strings.Split(w, "-")...)
		}
		for _, t := range terms {
			if len(t) < 2 || unitWords[t] || stopwords[t] || negations[t] || strings.Trim(t, "0123456789") == "" || slices.Contains(ix[i], t) {
				continue
			}
			ix[i] = append(ix[i], t)
		}
	}
	return ix
}

// match returns the fields a word names, in schema order; nil when it names none.
func (ix fieldIndex) match(word string) []int {
	keys, ok := synonyms[word]
	if !ok {
		keys = []string{word}
	}
	var out []int
	for i, terms := range ix {
	terms:
		for _, t := range terms {
			for _, k := range keys {
				if similar(k, t) {
					out = append(out, i)
					break terms
				}
			}
		}
	}
	return out
}

// similar reports whether two words are one word in two forms: equal, or the longer one the
// shorter (of four letters or more) with up to three letters more ("name", "names";
// "toxic", "toxicity").
func similar(a, b string) bool {
	if a == b {
		return true
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	return len(a) >= 4 && strings.HasPrefix(b, a) && len(b)-len(a) <= 3
}

func intersect(a, b []int) []int {
	var out []int
	for _, x := range a {
		if slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

// synonyms maps words of questions to the field-name words they stand for (see [Fallback]).
var synonyms = func() map[string][]string {
	m := map[string][]string{}
	for _, s := range []struct{ words, keys string }{
		{"flammable inflammable flammability combustible burn burns burning fire flame brennbar entzündbar entzündlich", "flammable flammability"},
		{"toxic toxicity poison poisonous giftig toxisch", "toxic health"},
		{"pyrophoric pyrophor selbstentzündlich", "pyrophoric"},
		{"oxidising oxidizing oxidiser oxidizer oxidant brandfördernd", "oxidising"},
		{"corrosive corrosion ätzend", "corrosive"},
		{"explosive explosion explosiv", "explosive"},
		{"harmful irritant reizend", "harmful"},
		{"environment environmental aquatic umweltgefährlich", "environment"},
		{"odour odor smell geruch", "odour"},
		{"nummer nr", "number"},
	} {
		for _, w := range strings.Fields(s.words) {
			m[w] = strings.Fields(s.keys)
		}
	}
	return m
}()

// negations turn the next field or word around.
var negations = setOf(`no not non without missing empty blank lacking unknown
	ohne kein keine keinen keiner keinem nicht fehlt fehlen fehlende fehlender fehlenden leer leere leeren leerer`)

// postfix are the negations that may also follow their field ("CAS number missing").
var postfix = setOf(`missing empty blank unknown fehlt fehlen leer`)

// unitWords are parts of field names and docs that say a unit, not what the field is.
var unitWords = setOf(`c f k kg m3 g mol pct vol bar ppm mg`)

// stopwords are words of questions about a table that say nothing about the values sought.
var stopwords = setOf(`
	the a an and or of in on at by to for from with into onto than then
	is are was were be been being do does did have has had having can could would should will
	all any some each every only also just more most less least very much many few
	which what who whom whose where when why how that this these those there their them they
	it its me us we you our your please show list find give get tell display return select
	filter search look want need matching match matches rows row table entries entry records
	record items item value values gas gases compound compounds substance substances chemical
	chemicals material materials null none known set given hazardous dangerous nor but one ones
	greater lower higher smaller larger bigger above below under over between equal equals
	like same other others another such both either neither
	der die das den dem des ein eine einer eines einem einen und mit für von
	zu zum zur ist sind war waren hat haben alle alles jede jeder welche welcher welches
	zeige zeig liste gib finde gase deren dessen über unter als wie auf bei
	aus nach mehr weniger bitte`)

func setOf(list string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(list) {
		m[w] = true
	}
	return m
}
