package research

// stepWords say what each node of the research graph does, in the analyst's words: the
// screens and the CLI show these, never the node's name.
var stepWords = map[string]string{
	"init":             "starting the run",
	"generate_queries": "writing search queries",
	"retrieve":         "searching the documents",
	"analyze":          "reading what was found",
	"ask":              "asking you",
	"process_answer":   "taking your answer",
	"finalize":         "settling the question",
	"plan":             "proposing a plan",
	"execute":          "working the plan",
	"synthesize":       "writing the report",
	"quality":          "checking the report",
	"remediate":        "revising the report",
	"attribute":        "tying sources to tasks",
	"write_partial":    "writing a partial report",
}

// StepWords says what a node of the research graph does; ok is false for a name that is not
// one of its nodes.
func StepWords(node string) (string, bool) {
	w, ok := stepWords[node]
	return w, ok
}
