package analysis

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// englishStop holds English function words: articles, pronouns, determiners and quantifiers,
// auxiliary and modal verbs, prepositions, conjunctions, connecting adverbs, the stems that
// contractions leave behind ("isn't" tokenises as "isn" and "t"; single letters stay, as
// they name things in technical text: "t", "d", "m"), and a few words that only
// hedge a request ("available", "possible", "various"). None of them says what a passage is
// about, and removing them lets BM25 weigh the words that do. The price is the rare homonym
// ("will" as a testament, "can" as a container), which is only found with its context.
var englishStop = set(
	// articles and pronouns
	"a", "an", "the", "i", "me", "my", "mine", "myself", "we", "us", "our", "ours", "ourselves",
	"you", "your", "yours", "yourself", "yourselves", "he", "him", "his", "himself", "she", "her",
	"hers", "herself", "it", "its", "itself", "they", "them", "their", "theirs", "themselves",
	"one", "ones", "oneself", "this", "that", "these", "those", "who", "whom", "whose", "which",
	"what", "whatever", "whichever", "whoever", "whomever", "anyone", "anybody", "anything",
	"anywhere", "everyone", "everybody", "everything", "everywhere", "someone", "somebody",
	"something", "somewhere", "noone", "nobody", "nothing", "nowhere",
	// auxiliaries and modals
	"am", "is", "are", "was", "were", "be", "been", "being", "have", "has", "had", "having", "do",
	"does", "did", "doing", "done", "will", "would", "shall", "should", "can", "could", "may",
	"might", "must", "ought",
	// conjunctions
	"and", "or", "but", "nor", "so", "yet", "if", "then", "else", "than", "because", "since",
	"unless", "although", "though", "while", "whereas", "whether",
	// prepositions
	"as", "at", "by", "for", "from", "in", "into", "of", "off", "on", "onto", "out", "over", "to",
	"up", "upon", "with", "within", "without", "about", "above", "across", "after", "against",
	"along", "amid", "among", "amongst", "around", "before", "behind", "below", "beneath",
	"beside", "besides", "between", "beyond", "down", "during", "except", "inside", "near",
	"outside", "past", "per", "through", "throughout", "till", "toward", "towards", "under",
	"underneath", "until", "via",
	// determiners, quantifiers and hedges
	"not", "no", "neither", "either", "both", "each", "every", "all", "any", "some", "few", "many",
	"much", "more", "most", "less", "least", "other", "others", "another", "such", "same", "own",
	"only", "several", "various", "certain", "given", "available", "possible",
	// adverbs that connect or qualify
	"very", "too", "also", "just", "even", "still", "again", "already", "ever", "never", "always",
	"often", "sometimes", "usually", "perhaps", "rather", "quite", "here", "there", "where",
	"when", "why", "how", "wherever", "whenever", "hence", "thus", "therefore", "thereby",
	"therein", "thereof", "herein", "hereby", "whereby", "wherein", "however", "moreover",
	"furthermore", "nevertheless", "nonetheless", "otherwise", "instead", "meanwhile",
	// what contractions leave, and Latin abbreviations
	"isn", "aren", "wasn", "weren", "don", "doesn", "didn", "won", "wouldn", "couldn", "shouldn",
	"hasn", "haven", "hadn", "mustn", "ll", "re", "ve", "etc", "ie", "eg", "i.e", "e.g",
)

// germanStop holds German function words: articles, pronouns, prepositions and their
// contractions with articles, conjunctions, auxiliary and modal verbs in their common forms,
// and connecting adverbs. Words that refer inside a law ("Absatz", "Satz", "Nummer") are
// not function words and stay searchable. Each word is listed as written; the analyser
// checks a token before stemming and folding.
var germanStop = set(
	// articles and pronouns
	"der", "die", "das", "des", "dem", "den", "ein", "eine", "einer", "eines", "einem", "einen",
	"kein", "keine", "keiner", "keines", "keinem", "keinen", "ich", "mich", "mir", "meiner", "mein",
	"meine", "meinem", "meinen", "meines", "du", "dich", "dir", "dein", "deine", "deinem", "deinen",
	"deiner", "deines", "er", "ihn", "ihm", "sein", "seine", "seinem", "seinen", "seiner", "seines",
	"sie", "ihr", "ihre", "ihrem", "ihren", "ihrer", "ihres", "es", "wir", "uns", "unser", "unsere",
	"unserem", "unseren", "unserer", "unseres", "euch", "euer", "eure", "eurem", "euren", "eurer",
	"eures", "sich", "man", "dies", "diese", "dieser", "dieses", "diesem", "diesen", "jene", "jener",
	"jenes", "jenem", "jenen", "welche", "welcher", "welches", "welchem", "welchen", "derselbe",
	"dieselbe", "dasselbe", "denselben", "demselben", "derjenige", "diejenige", "dasjenige",
	"diejenigen", "denjenigen", "derer", "deren", "dessen", "denen", "wer", "wen", "wem", "wessen",
	"was", "jemand", "niemand", "etwas", "nichts", "alle", "alles", "allen", "aller", "allem",
	"jede", "jeder", "jedes", "jedem", "jeden", "manche", "mancher", "manches", "manchem",
	"manchen", "einige", "einiger", "einiges", "einigen", "mehrere", "viele", "vielen", "wenige",
	"beide", "beiden", "andere", "anderer", "anderes", "anderem", "anderen", "solche", "solcher",
	"solches", "solchem", "solchen", "selbst",
	// prepositions and their contractions
	"ab", "an", "am", "ans", "auf", "aufs", "aus", "außer", "bei", "beim", "bis", "durch", "durchs",
	"entgegen", "entsprechend", "für", "fürs", "gegen", "gegenüber", "gemäß", "hinter", "in", "im",
	"ins", "innerhalb", "außerhalb", "mit", "nach", "neben", "ohne", "seit", "statt", "anstatt",
	"trotz", "über", "überm", "übers", "um", "ums", "unter", "unterm", "von", "vom", "vor", "vorm",
	"während", "wegen", "zu", "zum", "zur", "zwischen", "laut", "mittels", "bezüglich",
	"hinsichtlich", "einschließlich", "ausschließlich", "sowie",
	// conjunctions
	"und", "oder", "aber", "denn", "sondern", "doch", "dass", "daß", "ob", "weil", "wenn", "falls",
	"sofern", "soweit", "solange", "sobald", "als", "wie", "damit", "obwohl", "obgleich", "bevor",
	"nachdem", "indem", "sodass", "sowohl", "weder", "noch", "entweder", "je", "desto", "umso",
	// auxiliary and modal verbs
	"bin", "bist", "ist", "sind", "seid", "war", "warst", "waren", "wart", "wäre", "wären", "gewesen",
	"habe", "hast", "hat", "haben", "habt", "hatte", "hattest", "hatten", "hätte", "hätten", "gehabt",
	"werde", "wirst", "wird", "werden", "werdet", "wurde", "wurdest", "wurden", "würde", "würden",
	"worden", "geworden", "kann", "kannst", "können", "könnt", "konnte", "konnten", "könnte",
	"könnten", "muss", "musst", "müssen", "müsst", "musste", "mussten", "müsste", "müssten", "soll",
	"sollst", "sollen", "sollt", "sollte", "sollten", "darf", "darfst", "dürfen", "dürft", "durfte",
	"durften", "dürfte", "dürften", "will", "willst", "wollen", "wollt", "wollte", "wollten", "mag",
	"magst", "mögen", "möchte", "möchten",
	// adverbs that connect, qualify or point
	"nicht", "auch", "nur", "schon", "sehr", "so", "sonst", "dann", "da", "dabei", "dafür",
	"dagegen", "daher", "dahin", "damals", "danach", "daneben", "daran", "darauf", "daraus",
	"darin", "darüber", "darum", "darunter", "davon", "davor", "dazu", "dort", "hier", "hierbei",
	"hierfür", "hierzu", "hiernach", "wo", "wobei", "wodurch", "wofür", "wogegen",
	"woher", "wohin", "womit", "wonach", "woran", "worauf", "woraus", "worin", "worüber", "wozu",
	"wann", "warum", "weshalb", "wieso", "etwa", "ja", "nein", "immer", "bereits", "jedoch",
	"jeweils", "ebenso", "ebenfalls", "insbesondere", "außerdem", "ferner", "zudem", "also",
	"somit", "deshalb", "deswegen", "dennoch", "trotzdem", "allerdings", "bzw", "usw", "ggf",
	"sog", "z.b", "d.h", "u.a", "u.u", "s.o", "s.u",
)

// Markers for language detection: frequent words that are unambiguous between the two.
var germanMarkers = set("der", "die", "und", "das", "den", "des", "ist", "nicht", "mit", "sich", "auf",
	"für", "werden", "nach", "wird", "einer", "eine", "oder", "bei", "sind", "zur", "zum", "dem")

var englishMarkers = set("the", "and", "of", "is", "are", "with", "for", "that", "this", "be", "which",
	"from", "shall", "must", "should", "not", "it", "on", "as", "by", "an")
