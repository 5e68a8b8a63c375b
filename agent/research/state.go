// Package research is warren's research agent: a graph that sharpens the analyst's question
// with them, proposes a plan they approve, works each task by following references through
// the knowledge base, and writes a cited report that it checks and, once, retries.
package research

import (
	"strings"

	"warren/kb/chunk"
	"warren/llm"
	"warren/retrieval"
)

// State is everything a research run knows; it is checkpointed after every node.
type State struct {
	Question string `json:"question"`
	Language string `json:"language"` // "de" or "en": the report's language
	HITL     bool   `json:"hitl"`

	// Phase 1: refinement with the analyst.
	Iteration     int        `json:"iteration"`
	MaxIterations int        `json:"max_iterations"`
	Queries       []string   `json:"queries"`
	Seen          []string   `json:"seen"` // chunk IDs retrieved so far
	Evidence      []Evidence `json:"evidence"`
	DedupRatio    float64    `json:"dedup_ratio"`
	Coverage      float64    `json:"coverage"`
	Gaps          []string   `json:"gaps"`
	Questions     []string   `json:"questions"`
	Answers       []Answer   `json:"answers"`
	Insights      []string   `json:"insights"`
	PendingAnswer string     `json:"pending_answer"`
	Termination   string     `json:"termination"` // why refinement ended
	ResearchQs    []string   `json:"research_queries"`
	Context       string     `json:"context"`
	// Analysis is the query analysis: from each round's analysis while refining, then from
	// the final step, which the plan is written from.
	Analysis *QueryAnalysis `json:"analysis,omitempty"`

	// Phase 2: the plan.
	Plan        []Task `json:"plan"`
	Replan      bool   `json:"replan"`
	PlanComment string `json:"plan_comment"`

	// Phase 3: work.
	Findings   []Finding      `json:"findings"`
	References []RefRecord    `json:"references"`
	RefTokens  map[string]int `json:"ref_tokens"` // reference tokens spent, per task
	// Read lists, per task, the passages its passes have read, so a later pass of a task the
	// re-evaluation kept open reads only what is new.
	Read map[string][]string `json:"read,omitempty"`
	// Unread are the passages tasks reached but did not read because the run stopped on its
	// budget; the references left undecided are References recorded over_budget.
	Unread []UnreadPassage `json:"unread,omitempty"`

	// Phase 4: the report.
	Report      string           `json:"report"`
	Sources     []Source         `json:"sources"`
	Quality     Quality          `json:"quality"`
	Retried     bool             `json:"retried"`
	RetryFocus  string           `json:"retry_focus"`
	Attribution map[string][]int `json:"attribution"` // task ID → source numbers
	Exhausted   bool             `json:"exhausted"`   // the budget ran out: the report is partial
	PartialNote string           `json:"partial_note"`
	// NotDone says, one line each, what a run stopped by its budget left undone.
	NotDone    []string `json:"not_done,omitempty"`
	ReportPath string   `json:"report_path"`
	ElapsedNS  int64    `json:"elapsed_ns"`  // working time so far, against budgets.run_time
	PlanRounds int      `json:"plan_rounds"` // plans proposed so far
	// Budget is the call and token budget the run was started with; it holds across resumes.
	Budget *llm.Budget `json:"budget,omitempty"`
	// Decisions are the analysts' answers to the run's questions and plans, with who gave them.
	Decisions []Decision `json:"decisions,omitempty"`
	// Withheld names the collections whose passages, and the text written from them, were
	// left out of this state for an analyst who may not read them (watching another's run);
	// never set in a saved run.
	Withheld []string `json:"withheld,omitempty"`
}

// QueryAnalysis is how the research question is read: what it is about, what it names, and
// what it covers.
type QueryAnalysis struct {
	KeyConcepts []string `json:"key_concepts"`
	Entities    []string `json:"entities"`
	Scope       string   `json:"scope"`
}

// String writes the analysis on one line: "key concepts: …; entities: …; scope: …".
func (a QueryAnalysis) String() string {
	var parts []string
	if len(a.KeyConcepts) > 0 {
		parts = append(parts, "key concepts: "+strings.Join(a.KeyConcepts, ", "))
	}
	if len(a.Entities) > 0 {
		parts = append(parts, "entities: "+strings.Join(a.Entities, ", "))
	}
	if a.Scope != "" {
		parts = append(parts, "scope: "+a.Scope)
	}
	return strings.Join(parts, "; ")
}

// Evidence is a chunk retrieved during refinement.
type Evidence struct {
	ChunkID string `json:"chunk_id"`
	Doc     string `json:"doc"`
	Section string `json:"section"`
	Text    string `json:"text"`
}

// Answer is the analyst's answer to one round of questions.
type Answer struct {
	Iteration int      `json:"iteration"`
	Questions []string `json:"questions"`
	Text      string   `json:"text"`
}

// Task is one item of the research plan.
type Task struct {
	ID        string `json:"id"`
	Query     string `json:"query"`
	Rationale string `json:"rationale"`
	DoneWhen  string `json:"done_when"`
	Status    string `json:"status"`          // pending, done
	Added     bool   `json:"added,omitempty"` // added by re-evaluation, not by the plan
	// Passes counts the times the task was worked; the re-evaluation keeps a task that is not
	// done open for another pass, which searches for NextQuery.
	Passes    int    `json:"passes,omitempty"`
	NextQuery string `json:"next_query,omitempty"`
	// Unfinished marks a task that was still not done when its passes ran out.
	Unfinished bool `json:"unfinished,omitempty"`
}

// Finding is information extracted from one chunk for one task.
type Finding struct {
	Task       string `json:"task"`
	ChunkID    string `json:"chunk_id"`
	Doc        string `json:"doc"`
	Collection string `json:"collection"`
	Section    string `json:"section"`
	// The page of a paginated source, kept with the citation (page, page_kind, ocr,
	// ocr_confidence; none in runs checkpointed before pages were recorded).
	chunk.PageRef
	Depth       int    `json:"depth"` // 0: found by search; 1 and deeper: by following references
	Information string `json:"information"`
	Excerpt     string `json:"excerpt"`
}

// Place is the finding's section and page, as its citation names them ("4.1, p. 3").
func (f Finding) Place() string { return chunk.Place(f.Section, f.PageRef) }

// UnreadPassage is a passage a task reached but did not read.
type UnreadPassage struct {
	Task    string `json:"task"`
	ChunkID string `json:"chunk_id"`
	Doc     string `json:"doc"`
	Section string `json:"section"`
	Depth   int    `json:"depth"`
}

// Reference states: every detected reference ends in one of them.
const (
	RefFollowed   = "followed"
	RefSkipped    = "skipped"
	RefUnresolved = "unresolved"
	RefOverBudget = "over_budget"
)

// RefRecord is what happened to one reference.
type RefRecord struct {
	Task      string                `json:"task"`
	Depth     int                   `json:"depth"`
	FromChunk string                `json:"from_chunk"`
	Type      string                `json:"type"`
	Target    string                `json:"target"`
	Text      string                `json:"text"`
	Context   string                `json:"document_context,omitempty"`
	State     string                `json:"state"`
	Reason    string                `json:"reason,omitempty"`
	Resolved  *retrieval.Resolution `json:"resolved,omitempty"`
}

// Source is one numbered source of the report.
type Source struct {
	N       int    `json:"n"`
	ChunkID string `json:"chunk_id"`
	Doc     string `json:"doc"`
	Section string `json:"section"`
	chunk.PageRef
	Collection string `json:"collection"`
	Excerpt    string `json:"excerpt"`
}

// Place is the source's section and page, as its citation names them ("4.1, p. 3").
func (s Source) Place() string { return chunk.Place(s.Section, s.PageRef) }

// Quality is the report check: deterministic problems and the model's five scores.
type Quality struct {
	Problems []string `json:"problems"` // deterministic: unknown citations, uncited paragraphs, unsupported numbers
	// Unsupported are the sentences whose numbers, limit values or CAS numbers none of their
	// cited passages states (see CheckNumbers); each is also one of Problems.
	Unsupported         []UnsupportedSentence `json:"unsupported,omitempty"`
	FactualAccuracy     int                   `json:"factual_accuracy"`
	SemanticValidity    int                   `json:"semantic_validity"`
	StructuralIntegrity int                   `json:"structural_integrity"`
	CitationCorrectness int                   `json:"citation_correctness"`
	QueryRelevance      int                   `json:"query_relevance"`
	Issues              []string              `json:"issues"`
	Total               int                   `json:"total"`
	Decision            string                `json:"decision"` // accept, retry
	Checked             bool                  `json:"checked"`
}
