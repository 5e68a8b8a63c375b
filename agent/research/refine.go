package research

import (
	"context"
	"fmt"
	"strings"

	"warren/agent"
	"warren/config"
	"warren/internal/snippet"
	"warren/kb/analysis"
	"warren/retrieval"
)

// EndCommand ends refinement when given as the answer to the questions.
const EndCommand = "/end"

// NoHITLTermination is why refinement ends in a run without the analyst (--no-hitl).
const NoHITLTermination = "one round of search and analysis without questions (no analyst in the loop)"

// Convergence: refinement ends by itself when the knowledge base covers the question well,
// new searches mostly find what was found before, and few gaps remain.
const (
	convergedCoverage = 0.8
	convergedDedup    = 0.7
	convergedGaps     = 2
)

func (d *Deps) initRun(ctx context.Context, call caller, s *State) (*agent.Interrupt, error) {
	if s.Language == "" {
		s.Language = analysis.DetectLanguage(s.Question)
		if s.Language == "" {
			s.Language = "en"
		}
	}
	if s.MaxIterations <= 0 {
		s.MaxIterations = 3
	}
	return nil, nil
}

type queriesOut struct {
	Queries []string `json:"queries" desc:"the question itself and two alternative search queries" schema:"minItems=3,maxItems=3,minLength=3"`
}

func (d *Deps) generateQueries(ctx context.Context, call caller, s *State) (*agent.Interrupt, error) {
	queries, err := d.writeQueries(ctx, call, s)
	if err != nil {
		return nil, err
	}
	s.Queries = queries
	return nil, nil
}

// writeQueries asks for the next round's search queries, from the question, the earlier
// queries, the analyst's answers and the open gaps.
func (d *Deps) writeQueries(ctx context.Context, call caller, s *State) ([]string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "Research question: %s\n", s.Question)
	if len(s.Queries) > 0 {
		fmt.Fprintf(&b, "Earlier queries: %s\n", strings.Join(s.Queries, "; "))
	}
	for _, a := range s.Answers {
		fmt.Fprintf(&b, "The analyst answered (round %d): %s\n", a.Iteration+1, a.Text)
	}
	if len(s.Gaps) > 0 {
		fmt.Fprintf(&b, "Open gaps: %s\n", strings.Join(s.Gaps, "; "))
	}
	b.WriteString("Give three search queries for the knowledge base: the question, then two alternatives that refine it with the answers and aim at the gaps.")
	var out queriesOut
	if err := d.structured(ctx, call, s, config.RoleFast, "You write search queries for a document knowledge base.", b.String(), &out); err != nil {
		return nil, err
	}
	return out.Queries, nil
}

// retrieve runs each query (about three chunks each), keeps what earlier rounds have not seen,
// and records the share of results that were already known.
func (d *Deps) retrieve(ctx context.Context, call caller, s *State) (*agent.Interrupt, error) {
	// The dedup ratio is the share of this round's distinct passages that earlier rounds had
	// already found; overlap between this round's own queries does not count.
	earlier := map[string]bool{}
	for _, id := range s.Seen {
		earlier[id] = true
	}
	round := map[string]bool{}
	total, dup := 0, 0
	for _, q := range s.Queries {
		results, err := d.searcher(call).Search(ctx, retrieval.Request{Query: q, K: 3})
		if err != nil {
			return nil, err
		}
		for _, r := range results {
			if round[r.ID] {
				continue
			}
			round[r.ID] = true
			total++
			if earlier[r.ID] {
				dup++
				continue
			}
			s.Seen = append(s.Seen, r.ID)
			s.Evidence = append(s.Evidence, Evidence{ChunkID: r.ID, Doc: r.Doc, Section: r.Section, Text: snippet.Cut(r.Text, 600)})
		}
	}
	s.DedupRatio = 0
	if total > 0 {
		s.DedupRatio = float64(dup) / float64(total)
	}
	d.note(fmt.Sprintf("retrieved %d chunks, %.0f %% already known", total, 100*s.DedupRatio))
	return nil, nil
}

type analysisOut struct {
	Coverage float64  `json:"coverage" desc:"how well the retrieved passages cover the question, 0 to 1" schema:"min=0,max=1,clamp"`
	Gaps     []string `json:"gaps" desc:"what the passages do not answer yet" schema:"maxItems=5"`
	Summary  string   `json:"summary"`
	queryAnalysisOut
}

// queryAnalysisOut is the query analysis as the model writes it, in the analysis of each round
// and in the final step.
type queryAnalysisOut struct {
	KeyConcepts []string `json:"key_concepts" desc:"the concepts the question is about, as short noun phrases" schema:"maxItems=8"`
	Entities    []string `json:"entities" desc:"named things the question involves: substances, documents, laws, organisations, equipment" schema:"maxItems=10"`
	Scope       string   `json:"scope" desc:"what the research covers and what it leaves out, in one sentence"`
}

func (q queryAnalysisOut) analysis() *QueryAnalysis {
	return &QueryAnalysis{KeyConcepts: q.KeyConcepts, Entities: q.Entities, Scope: strings.TrimSpace(q.Scope)}
}

func evidenceText(ev []Evidence, max int) string {
	var b strings.Builder
	for i, e := range ev {
		if i >= max {
			break
		}
		fmt.Fprintf(&b, "- %s %s: %s\n", e.Doc, e.Section, e.Text)
	}
	return b.String()
}

func (d *Deps) analyze(ctx context.Context, call caller, s *State) (*agent.Interrupt, error) {
	var answers strings.Builder
	for _, a := range s.Answers {
		fmt.Fprintf(&answers, "- %s\n", a.Text)
	}
	prompt := fmt.Sprintf("Research question: %s\nRound %d. The analyst's answers so far:\n%sRetrieved passages:\n%s\nJudge how well these passages cover the question as the analyst means it, and list the knowledge gaps. Analyse the question: its key concepts, the entities it involves, and its scope.",
		s.Question, s.Iteration+1, answers.String(), evidenceText(s.Evidence, 12))
	var out analysisOut
	if err := d.structured(ctx, call, s, config.RoleFast, "You analyse retrieval results for a research question.", prompt, &out); err != nil {
		return nil, err
	}
	s.Coverage, s.Gaps, s.Analysis = out.Coverage, out.Gaps, out.analysis()
	// Whether refinement ends is decided here, in the node, so the checkpoint records it.
	switch {
	case s.Coverage >= convergedCoverage && s.DedupRatio >= convergedDedup && len(s.Gaps) <= convergedGaps:
		s.Termination = "converged"
	case !s.HITL:
		// Without the analyst there is nobody to clarify the question with: one round of
		// search and analysis, and no questions (a model answering its own questions would
		// put words in the analyst's mouth).
		s.Termination = NoHITLTermination
	case s.Iteration >= s.MaxIterations:
		s.Termination = "iteration limit"
	}
	return nil, nil
}

// afterAnalysis asks the analyst unless refinement has ended.
func afterAnalysis(s *State) string {
	switch {
	case s.Exhausted:
		return "write_partial"
	case s.Termination != "":
		return "finalize"
	}
	return "ask"
}

type questionsOut struct {
	Questions []string `json:"questions" desc:"questions for the analyst aimed at the gaps" schema:"minItems=2,maxItems=3,minLength=5"`
}

// QuestionsPayload is what the analyst sees when asked.
type QuestionsPayload struct {
	Iteration int      `json:"iteration"`
	Coverage  float64  `json:"coverage"`
	Gaps      []string `json:"gaps"`
	Questions []string `json:"questions"`
	// Analysis is how the question is read so far, for the analyst to correct in the answer.
	Analysis *QueryAnalysis `json:"analysis,omitempty"`
}

func (d *Deps) ask(ctx context.Context, call caller, s *State) (*agent.Interrupt, error) {
	prompt := fmt.Sprintf("Research question: %s\nKnowledge gaps: %s\nAsk the analyst two or three short questions whose answers would close these gaps.",
		s.Question, strings.Join(s.Gaps, "; "))
	var out questionsOut
	if err := d.structured(ctx, call, s, config.RoleChat, "You help an analyst sharpen a research question.", prompt, &out); err != nil {
		return nil, err
	}
	s.Questions = out.Questions
	return agent.NewInterrupt(InterruptQuestions, QuestionsPayload{Iteration: s.Iteration + 1, Coverage: s.Coverage, Gaps: s.Gaps,
		Questions: s.Questions, Analysis: s.Analysis})
}

type insightsOut struct {
	Insights []string `json:"insights" desc:"what the answer tells about the research need" schema:"maxItems=5"`
}

func (d *Deps) processAnswer(ctx context.Context, call caller, s *State) (*agent.Interrupt, error) {
	answer := strings.TrimSpace(s.PendingAnswer)
	s.PendingAnswer = ""
	if strings.EqualFold(answer, EndCommand) {
		s.Termination = "ended by the analyst (/end)"
		return nil, nil
	}
	s.Answers = append(s.Answers, Answer{Iteration: s.Iteration, Questions: s.Questions, Text: answer})
	s.Iteration++
	prompt := fmt.Sprintf("Research question: %s\nQuestions asked: %s\nThe analyst answered: %s\nState the insights this answer gives.",
		s.Question, strings.Join(s.Questions, " / "), answer)
	// The next round's queries are written from the answers and the gaps, not from the
	// insights, so both calls go out at once (generate_queries runs in the first round only).
	var out insightsOut
	var queries []string
	err := parallel(ctx, call, 2, 2, func(ctx context.Context, call caller, i int) error {
		if i == 0 {
			return d.structured(ctx, call, s, config.RoleFast, "You extract insights from an analyst's answer.", prompt, &out)
		}
		var err error
		queries, err = d.writeQueries(ctx, call, s)
		return err
	})
	if err != nil {
		return nil, err
	}
	s.Insights = append(s.Insights, out.Insights...)
	s.Queries = queries
	return nil, nil
}

// afterAnswer goes on to the next round's search (process_answer wrote its queries), or to
// the final step once refinement has ended.
func afterAnswer(s *State) string {
	switch {
	case s.Exhausted:
		return "write_partial"
	case s.Termination != "":
		return "finalize"
	}
	return "retrieve"
}

type finalizeOut struct {
	ResearchQueries []string `json:"research_queries" desc:"the sharpened research queries for planning" schema:"minItems=1,maxItems=8"`
	Context         string   `json:"context" desc:"what the analyst wants, in a few sentences"`
	queryAnalysisOut
}

// finalize is refinement's last step: the research queries, the context and the query
// analysis (key concepts, entities, scope) that the plan is written from.
func (d *Deps) finalize(ctx context.Context, call caller, s *State) (*agent.Interrupt, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "Research question: %s\nAnalyst's insights: %s\nQueries so far: %s\n", s.Question, strings.Join(s.Insights, "; "), strings.Join(s.Queries, "; "))
	for _, a := range s.Answers {
		fmt.Fprintf(&b, "The analyst answered (round %d): %s\n", a.Iteration+1, a.Text)
	}
	if a := s.Analysis; a != nil {
		fmt.Fprintf(&b, "Analysis so far: %s\n", a.String())
	}
	b.WriteString("Finalise the research queries, summarise the context for planning, and give the final query analysis: key concepts, entities and scope.")
	var out finalizeOut
	if err := d.structured(ctx, call, s, config.RoleChat, "You prepare a research plan's inputs.", b.String(), &out); err != nil {
		return nil, err
	}
	s.ResearchQs, s.Context, s.Analysis = out.ResearchQueries, out.Context, out.analysis()
	return nil, nil
}
