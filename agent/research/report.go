package research

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"warren/agent"
	"warren/config"
	"warren/internal/citation"
	"warren/internal/snippet"
	"warren/llm"
)

// DefaultQualityThreshold is the total (of 500) below which a retry is considered.
const DefaultQualityThreshold = 375

// sources numbers the chunks the findings came from, in the order they were found.
func buildSources(s *State) {
	s.Sources = s.Sources[:0]
	index := map[string]int{}
	for _, f := range s.Findings {
		if _, ok := index[f.ChunkID]; ok {
			continue
		}
		index[f.ChunkID] = len(s.Sources) + 1
		s.Sources = append(s.Sources, Source{N: len(s.Sources) + 1, ChunkID: f.ChunkID, Doc: f.Doc, Section: f.Section,
			PageRef: f.PageRef, Collection: f.Collection, Excerpt: f.Excerpt})
	}
}

func sourceNumber(s *State, chunkID string) int {
	for _, src := range s.Sources {
		if src.ChunkID == chunkID {
			return src.N
		}
	}
	return 0
}

func (d *Deps) synthesize(ctx context.Context, call caller, s *State) (*agent.Interrupt, error) {
	buildSources(s)
	var b strings.Builder
	fmt.Fprintf(&b, "Write the research report for this question: %s\n", s.Question)
	if s.Context != "" {
		fmt.Fprintf(&b, "What the analyst wants: %s\n", s.Context)
	}
	b.WriteString("Sources (cite them as [n]; cite nothing else):\n")
	for _, f := range s.Findings {
		fmt.Fprintf(&b, "[%d] %s %s: %s\n", sourceNumber(s, f.ChunkID), f.Doc, f.Section, f.Information)
	}
	b.WriteString("Rules: Markdown; every paragraph cites at least one source as [n]; only facts from the sources; keep the documents' terms.")
	if s.RetryFocus != "" {
		fmt.Fprintf(&b, "\nThe previous draft fell short. Focus: %s", s.RetryFocus)
	}
	lang := "English"
	if s.Language == "de" {
		lang = "German"
	}
	ans, err := d.Gateway.Text(ctx, llm.Request{Call: call.Call, Role: config.RoleChat,
		System: "You write concise, cited research reports in " + lang + ".", Prompt: b.String(),
		OnToken: d.OnToken, OnRestart: func() {
			if d.OnToken != nil {
				d.OnToken("\n[the answer restarted]\n")
			}
		}})
	if err != nil {
		return nil, err
	}
	s.Report = strings.TrimSpace(ans.Text)
	s.Quality = Quality{}
	return nil, nil
}

// CheckCitations is the deterministic part of the quality check: every [n] names a source
// that was retrieved, and no paragraph of prose goes uncited.
func CheckCitations(report string, sources int) []string {
	var problems []string
	bad := map[int]bool{}
	for _, n := range citation.Numbers(report) {
		if n < 1 || n > sources {
			bad[n] = true
		}
	}
	var badList []int
	for n := range bad {
		badList = append(badList, n)
	}
	sort.Ints(badList)
	for _, n := range badList {
		problems = append(problems, fmt.Sprintf("citation [%d] names no retrieved source (there are %d)", n, sources))
	}
	for i, para := range strings.Split(report, "\n\n") {
		p := strings.TrimSpace(para)
		if p == "" || strings.HasPrefix(p, "#") || strings.HasPrefix(p, ">") || strings.HasPrefix(p, "|") || len(strings.Fields(p)) < 6 {
			continue // headings, quotes, tables and short lines are not claims
		}
		if !citation.Contains(p) {
			problems = append(problems, fmt.Sprintf("paragraph %d has no citation: %q", i+1, snippet.Cut(p, 80)))
		}
	}
	return problems
}

type qualityOut struct {
	FactualAccuracy     int      `json:"factual_accuracy" schema:"min=0,max=100,clamp"`
	SemanticValidity    int      `json:"semantic_validity" schema:"min=0,max=100,clamp"`
	StructuralIntegrity int      `json:"structural_integrity" schema:"min=0,max=100,clamp"`
	CitationCorrectness int      `json:"citation_correctness" schema:"min=0,max=100,clamp"`
	QueryRelevance      int      `json:"query_relevance" schema:"min=0,max=100,clamp"`
	Issues              []string `json:"issues" schema:"maxItems=8"`
}

func (d *Deps) quality(ctx context.Context, call caller, s *State) (*agent.Interrupt, error) {
	q := Quality{Problems: CheckCitations(s.Report, len(s.Sources))}
	// Numbers the cited passages do not state are found before the model's check, which
	// cannot be relied on to read them, and count as problems like a missing citation.
	q.Unsupported = CheckNumbers(s.Report, d.sourcePassages(ctx, s))
	for _, u := range q.Unsupported {
		q.Problems = append(q.Problems, unsupportedProblem(u))
	}
	var srcs strings.Builder
	for _, f := range s.Findings {
		fmt.Fprintf(&srcs, "[%d] %s\n", sourceNumber(s, f.ChunkID), f.Information)
	}
	prompt := fmt.Sprintf("Question: %s\nSources:\n%s\nReport:\n%s\nScore the report 0–100 on factual accuracy against the sources, semantic validity, structural integrity, citation correctness and relevance to the question, and list its issues.",
		s.Question, srcs.String(), s.Report)
	var out qualityOut
	if err := d.structured(ctx, call, s, config.RoleChat, "You review research reports strictly.", prompt, &out); err != nil {
		return nil, err
	}
	q.FactualAccuracy, q.SemanticValidity, q.StructuralIntegrity = out.FactualAccuracy, out.SemanticValidity, out.StructuralIntegrity
	q.CitationCorrectness, q.QueryRelevance, q.Issues = out.CitationCorrectness, out.QueryRelevance, out.Issues
	q.Total = q.FactualAccuracy + q.SemanticValidity + q.StructuralIntegrity + q.CitationCorrectness + q.QueryRelevance
	q.Checked = true
	s.Quality = q
	return nil, nil
}

func (d *Deps) threshold() int {
	if d.Thresholds.Quality > 0 {
		return d.Thresholds.Quality
	}
	return DefaultQualityThreshold
}

// afterQuality sends a weak first draft to the remediation decision; a second draft, or a
// good one, goes on to attribution.
func (d *Deps) afterQuality(s *State) string {
	switch {
	case s.Exhausted:
		return "write_partial"
	case s.Retried:
		return "attribute"
	case s.Quality.Total < d.threshold() || len(s.Quality.Problems) > 0:
		return "remediate"
	}
	return "attribute"
}

type remediationOut struct {
	Decision string `json:"decision" schema:"enum=accept|retry"`
	Focus    string `json:"focus" desc:"what a second draft must do better"`
}

func (d *Deps) remediate(ctx context.Context, call caller, s *State) (*agent.Interrupt, error) {
	issues := append(append([]string(nil), s.Quality.Problems...), s.Quality.Issues...)
	// The decision and the focus are about the question the report answers, so it is given.
	prompt := fmt.Sprintf("Research question: %s\nThe report scored %d of 500 (threshold %d). Issues:\n- %s\nAccept it as it is, or retry once with focus instructions?",
		s.Question, s.Quality.Total, d.threshold(), strings.Join(issues, "\n- "))
	var out remediationOut
	if err := d.structured(ctx, call, s, config.RoleChat, "You decide whether a research report needs a second draft.", prompt, &out); err != nil {
		return nil, err
	}
	s.Quality.Decision = out.Decision
	if out.Decision == "retry" {
		s.Retried, s.RetryFocus = true, out.Focus
		if len(s.Quality.Unsupported) > 0 {
			// The second draft is told which numbers its sources do not state, whatever the
			// model's focus says.
			var lines []string
			for _, u := range s.Quality.Unsupported {
				lines = append(lines, unsupportedProblem(u))
			}
			s.RetryFocus += "\nState only numbers the cited source states; these are not stated:\n- " + strings.Join(lines, "\n- ")
		}
	}
	return nil, nil
}

func afterRemediation(s *State) string {
	switch {
	case s.Exhausted:
		return "write_partial"
	case s.Quality.Decision == "retry":
		return "synthesize"
	}
	return "attribute"
}

// attribute lists the sources and which came from which task, and makes sure every citation
// of the final report names a retrieved source: one that does not is removed, and the report
// says how many were. It needs no model.
func (d *Deps) attribute(ctx context.Context, call caller, s *State) (*agent.Interrupt, error) {
	if len(s.Sources) == 0 {
		buildSources(s)
	}
	var removed int
	s.Report, removed = dropUnknownCitations(s.Report, len(s.Sources))
	// The final draft's unsupported sentences are marked where the analyst reads them.
	unsupported := CheckNumbers(s.Report, d.sourcePassages(ctx, s))
	s.Quality.Unsupported = unsupported
	s.Report = markUnsupported(s.Report, unsupported)
	if removed > 0 {
		s.Report = fmt.Sprintf("> %d citation(s) named no retrieved source and were removed; the sentences they supported are unverified.\n\n%s", removed, s.Report)
	}
	s.Attribution = map[string][]int{}
	for _, f := range s.Findings {
		n := sourceNumber(s, f.ChunkID)
		list := s.Attribution[f.Task]
		if len(list) == 0 || list[len(list)-1] != n {
			s.Attribution[f.Task] = append(list, n)
		}
	}
	return nil, nil
}

// writePartial ends a run whose budget ran out: what was found, cited, clearly marked.
func (d *Deps) writePartial(ctx context.Context, call caller, s *State) (*agent.Interrupt, error) {
	if s.Report != "" && len(s.Sources) > 0 {
		// A report was written; only its check (or its second draft) was cut short. Keep it,
		// with the numbers its sources do not state marked: that check needs no model.
		s.Quality.Unsupported = CheckNumbers(s.Report, d.sourcePassages(ctx, s))
		s.Report = markUnsupported(s.Report, s.Quality.Unsupported)
		s.Report = fmt.Sprintf("> This report was not fully checked: %s.\n\n%s%s", s.PartialNote, s.Report, notDoneSection(s))
		return nil, nil
	}
	buildSources(s)
	var b strings.Builder
	title := "Partial report"
	if s.Language == "de" {
		title = "Unvollständiger Bericht"
	}
	fmt.Fprintf(&b, "# %s: %s\n\n> This report is partial: %s. It lists the findings gathered until then; nothing was synthesised after that point.\n\n",
		title, s.Question, s.PartialNote)
	for _, t := range s.Plan {
		var lines []string
		for _, f := range s.Findings {
			if f.Task == t.ID {
				lines = append(lines, fmt.Sprintf("- %s [%d]", f.Information, sourceNumber(s, f.ChunkID)))
			}
		}
		if len(lines) > 0 {
			fmt.Fprintf(&b, "## %s\n\n%s\n\n", t.Query, strings.Join(lines, "\n"))
		}
	}
	if len(s.Findings) == 0 {
		b.WriteString("No findings were gathered before the budget ran out.\n")
	}
	b.WriteString(notDoneSection(s))
	s.Report = strings.TrimSpace(b.String())
	return nil, nil
}

// FullReport is the report with its source list, as written to the report file.
func FullReport(s *State) string {
	var b strings.Builder
	b.WriteString(s.Report)
	if len(s.Sources) > 0 {
		b.WriteString("\n\n## Sources\n\n")
		for _, src := range s.Sources {
			where := src.Doc
			if place := src.Place(); place != "" {
				where += " " + place
			}
			fmt.Fprintf(&b, "[%d] %s (%s, chunk %s): %s\n\n", src.N, where, src.Collection, src.ChunkID, src.Excerpt)
		}
	}
	return strings.TrimSpace(b.String()) + "\n"
}

// dropUnknownCitations rewrites each [n, m] citation to keep only numbers 1..sources, removing
// a citation with none left. It returns the count of numbers removed.
func dropUnknownCitations(report string, sources int) (string, int) {
	removed := 0
	out := citation.Rewrite(report, func(numbers []int) string {
		var keep []string
		for _, n := range numbers {
			if n >= 1 && n <= sources {
				keep = append(keep, strconv.Itoa(n))
			} else {
				removed++
			}
		}
		if len(keep) == 0 {
			return ""
		}
		return "[" + strings.Join(keep, ", ") + "]"
	})
	return out, removed
}
