package tablequery

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// maxFallbackWords bounds the words the fallback searches the row's text for.
const maxFallbackWords = 6

// RatingFloor is where a whole-number field named by a word of the question starts to count:
// such fields are hazard ratings (HMIS, NFPA: 0 minimal … 4 severe), and "toxic" or
// "flammable" means a serious hazard, 3 or 4.
const RatingFloor = 3

// Fallback builds a filter without the model, for when no model expression compiled. It reads
// the question word by word (lower-cased; a hyphen splits words except in numbers, so a CAS
// number such as 7440-37-1 stays whole):
//
//   - Words that name fields. A word names a field when it is a part of the field's name or a
//     word of its Doc ("cas" → cas_number, "flash" → flash_point_c), also with up to three
//     more letters ("names", "toxicity"), or through the synonyms below. Neighbouring words
//     narrow each other: "cas number" is cas_number alone, "flash point" flash_point_c. The
//     fields one word names are alternatives: a true/false field must be true, a whole-number
//     field (a hazard rating) at least [RatingFloor], a text or number field must have a
//     value. "toxic" → `hmis_health >= 3 or nfpa_health >= 3 or ghs06_toxic or …`.
//   - Negations ("no", "not", "non", "without", "missing", "empty", "unknown"; German
//     "ohne", "kein", "nicht", "fehlende", "leer") turn the next field or word around: "no
//     CAS" → `empty(cas_number)`; "non-flammable" → no flammability field says so and one at
//     least is filled in (a blank cell is not a "no"). "missing", "empty", "blank", "unknown",
//     "fehlt", "fehlen" and "leer" may also follow their field ("CAS number missing") when
//     nothing but "and" or "or" comes after them.
//   - Any other word of three letters or more (or two with a digit, as "n2") that is not a
//     common word of questions ("show", "which", "gases", "mit", …) is searched for in the
//     row's text, ignoring case: `any_text contains "silane"`. These words are alternatives
//     (at most six): "silane and arsine" finds both rows.
//   - The conditions must all hold, except where the question says "or" between two fields:
//     "toxic or pyrophoric".
//
// Synonyms, each leading to the field-name words it stands for:
//
//	flammable, inflammable, flammability, combustible, burn(s), burning, fire, flame,
//	  brennbar, entzündbar, entzündlich          → flammable, flammability
//	toxic, toxicity, poison(ous), giftig, toxisch → toxic, health
//	pyrophoric, pyrophor, selbstentzündlich      → pyrophoric
//	oxidising, oxidizing, oxidiser, oxidizer, oxidant, brandfördernd → oxidising
//	corrosive, corrosion, ätzend                 → corrosive
//	explosive, explosion, explosiv               → explosive
//	harmful, irritant, reizend                   → harmful
//	environment(al), aquatic, umweltgefährlich   → environment
//	odour, odor, smell, geruch                   → odour
//	nummer, nr                                   → number
//
// It is a word match, not an understanding of the question, which is why its answer is
// labelled a fallback and note says how each word was read. When nothing in the question
// names a field or a value the filter is `false` and note says so: the fallback never answers
// with the whole table.
func Fallback(schema Schema, question string) (expression, note string) {
	items := readQuestion(schema, question)
	if len(items) == 0 {
		return "false", "fallback: nothing in the question names a field or a value to look for, so no rows are selected; " +
			`name a gas, a field ("no CAS number") or a hazard ("flammable"), or write the filter yourself`
	}
	var clauses, searches, readings, texts []string
	previousWasField := false
	for _, it := range items {
		switch {
		case it.fields == nil && it.negated:
			readings = append(readings, it.quoted()+" as no mention of "+strconv.Quote(it.value))
		case it.fields == nil:
			texts = append(texts, it.quoted())
		default:
			readings = append(readings, it.quoted()+" as "+it.fieldNames(schema))
		}
		clause := it.clause(schema)
		switch {
		case it.fields == nil && !it.negated:
			searches = append(searches, clause) // the words searched for are alternatives
		case it.fields != nil && it.orWithPrevious && previousWasField:
			last := len(clauses) - 1
			clauses[last] = "(" + unparen(clauses[last]) + " or " + unparen(clause) + ")"
		case !slices.Contains(clauses, clause):
			clauses = append(clauses, clause)
		}
		previousWasField = it.fields != nil
	}
	if len(searches) > 0 {
		clauses = append(clauses, group(searches, " or "))
	}
	if len(clauses) == 1 {
		clauses[0] = unparen(clauses[0])
	}
	var parts []string
	if len(readings) > 0 {
		parts = append(parts, "reads "+strings.Join(readings, "; "))
	}
	if len(texts) > 0 {
		parts = append(parts, "rows whose text mentions "+strings.Join(texts, ", "))
	}
	return strings.Join(clauses, " and "),
		"fallback: " + strings.Join(parts, "; ") + " (a word match without the model; edit the filter to refine it)"
}

// item is one thing the question asks for: fields (named by one or more neighbouring words)
// or a word to search the row's text for.
type item struct {
	words          []string // as the question has them, a negation included
	value          string   // the word searched for in the text; "" for fields
	fields         []int    // indexes into the schema; nil for a text search
	negated        bool
	orWithPrevious bool // the question said "or" between this and the item before
}

func (it item) clause(schema Schema) string {
	if it.fields == nil {
		c := AnyText + " contains " + strconv.Quote(it.value)
		if it.negated {
			return "not (" + c + ")"
		}
		return c
	}
	var alts []string
	presence := true // every field only has to have a value (or, negated, lack one)
	for _, i := range it.fields {
		f := schema[i]
		switch f.Type {
		case TypeBool:
			alts = append(alts, f.Name)
			presence = false
		case TypeInt:
			alts = append(alts, fmt.Sprintf("%s >= %d", f.Name, RatingFloor))
			presence = false
		case TypeString, TypeNumber:
			if it.negated {
				alts = append(alts, fnEmpty+"("+f.Name+")")
			} else {
				alts = append(alts, fnHas+"("+f.Name+")")
			}
		}
	}
	switch {
	case it.negated && presence:
		return group(alts, " and ")
	case it.negated && len(alts) == 1 && schema[it.fields[0]].Type == TypeBool:
		return alts[0] + " == false"
	case it.negated:
		// Known not to be: no field says so, and one at least has a value. A blank is not a
		// "no" ("non-flammable" must not bring back every gas whose cells are empty).
		known := make([]string, len(it.fields))
		for i, f := range it.fields {
			known[i] = fnHas + "(" + schema[f].Name + ")"
		}
		return "(not (" + unparen(group(alts, " or ")) + ") and " + group(known, " or ") + ")"
	}
	return group(alts, " or ")
}

func (it item) quoted() string { return strconv.Quote(strings.Join(it.words, " ")) }

func (it item) fieldNames(schema Schema) string {
	names := make([]string, len(it.fields))
	for i, f := range it.fields {
		names[i] = schema[f].Name
	}
	return strings.Join(names, ", ")
}

// group joins alternatives, in parentheses when there are several.
func group(alts []string, op string) string {
	if len(alts) == 1 {
		return alts[0]
	}
	return "(" + strings.Join(alts, op) + ")"
}

// unparen drops parentheses around a whole clause.
func unparen(s string) string {
	if strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")") && balanced(s[1:len(s)-1]) {
		return s[1 : len(s)-1]
	}
	return s
}

// balanced reports whether every parenthesis in s closes one opened before it.
func balanced(s string) bool {
	depth := 0
	for _, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
			if depth < 0 {
				return false
			}
		}
	}
	return depth == 0
}
