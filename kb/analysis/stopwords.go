package analysis

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// englishStop is the classic short English stop list used by Lucene's English analyser; a
// longer list hurts technical queries ("not", "no" and "will" stay meaningful elsewhere, but
// the classic list is what the Cranfield baseline was measured with).
var englishStop = set("a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into",
	"is", "it", "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there", "these",
	"they", "this", "to", "was", "will", "with")

// germanStop holds German function words: articles, pronouns, prepositions, conjunctions and
// auxiliaries. Legal terms such as "nach" or "gemäß" carry no search meaning either.
var germanStop = set("aber", "als", "am", "an", "auch", "auf", "aus", "bei", "bis", "da", "damit", "dann",
	"das", "dass", "daß", "dem", "den", "denen", "der", "deren", "des", "dessen", "die", "dies", "diese",
	"diesem", "diesen", "dieser", "dieses", "doch", "dort", "du", "durch", "ein", "eine", "einem", "einen",
	"einer", "eines", "er", "es", "etwa", "für", "gegen", "gemäß", "hat", "hatte", "haben", "ich", "ihm",
	"ihn", "ihr", "ihre", "ihrem", "ihren", "ihrer", "ihres", "im", "in", "ins", "ist", "ja", "jede",
	"jedem", "jeden", "jeder", "jedes", "kann", "können", "man", "mit", "muss", "nach", "nicht", "noch",
	"nur", "ob", "oder", "ohne", "sein", "seine", "seinem", "seinen", "seiner", "seines", "sich", "sie",
	"sind", "so", "soll", "sollen", "soweit", "sowie", "über", "um", "und", "uns", "unter", "vom", "von",
	"vor", "während", "war", "waren", "was", "welche", "welchem", "welchen", "welcher", "welches", "wenn",
	"werden", "wie", "wird", "wir", "wo", "worden", "wurde", "wurden", "zu", "zum", "zur", "zwischen")

// Markers for language detection: frequent words that are unambiguous between the two.
var germanMarkers = set("der", "die", "und", "das", "den", "des", "ist", "nicht", "mit", "sich", "auf",
	"für", "werden", "nach", "wird", "einer", "eine", "oder", "bei", "sind", "zur", "zum", "dem")

var englishMarkers = set("the", "and", "of", "is", "are", "with", "for", "that", "this", "be", "which",
	"from", "shall", "must", "should", "not", "it", "on", "as", "by", "an")
