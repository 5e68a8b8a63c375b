package research

import (
	"fmt"
	"slices"
	"strings"
)

// DescribeChange says in the analyst's words what one step changed in a run: what was found,
// asked, planned or written. Bookkeeping (working time, reference token counts) is left out.
func DescribeChange(before, after *State) string {
	var parts []string
	add := func(format string, args ...any) { parts = append(parts, fmt.Sprintf(format, args...)) }
	if n := len(after.Queries) - len(before.Queries); n > 0 {
		add("%s written", count(n, "search query", "search queries"))
	}
	if n := len(after.Evidence) - len(before.Evidence); n > 0 {
		add("%s found (%d in all)", count(n, "new passage", "new passages"), len(after.Evidence))
	}
	if after.Coverage != before.Coverage {
		add("coverage %.0f %%", 100*after.Coverage)
	}
	if n := len(after.Gaps); n > 0 && !slices.Equal(after.Gaps, before.Gaps) {
		add("%s named", count(n, "gap", "gaps"))
	}
	if n := len(after.Questions); n > 0 && !slices.Equal(after.Questions, before.Questions) {
		add("%s for you", count(n, "question", "questions"))
	}
	if n := len(after.Answers) - len(before.Answers); n > 0 {
		add("your answer taken")
	}
	if after.Termination != "" && after.Termination != before.Termination {
		add("refinement ended: %s", after.Termination)
	}
	if n := len(after.ResearchQs) - len(before.ResearchQs); n > 0 {
		add("%s for the plan", count(n, "research query", "research queries"))
	}
	if after.PlanRounds > before.PlanRounds {
		add("plan of %s proposed", count(len(after.Plan), "task", "tasks"))
	} else if len(after.Plan) != len(before.Plan) {
		add("plan now has %s", count(len(after.Plan), "task", "tasks"))
	}
	if done := doneTasks(after) - doneTasks(before); done > 0 {
		add("%s done (%d of %d)", count(done, "task", "tasks"), doneTasks(after), len(after.Plan))
	}
	if n := len(after.Findings) - len(before.Findings); n > 0 {
		add("%s", count(n, "finding", "findings"))
	}
	if n := len(after.References) - len(before.References); n > 0 {
		add("%s", refCounts(after.References[len(before.References):]))
	}
	if after.Report != before.Report && after.Report != "" {
		if before.Report == "" {
			add("report written (%s, %s)", count(len(strings.Fields(after.Report)), "word", "words"), count(len(after.Sources), "source", "sources"))
		} else {
			add("report revised")
		}
	}
	if after.Quality.Checked && (after.Quality.Total != before.Quality.Total || after.Quality.Decision != before.Quality.Decision || !before.Quality.Checked) {
		if after.Quality.Decision != "" {
			add("quality %d/500, %s", after.Quality.Total, after.Quality.Decision)
		} else {
			add("quality %d/500", after.Quality.Total)
		}
	}
	if len(after.Attribution) > 0 && len(before.Attribution) == 0 {
		add("sources attributed to tasks")
	}
	if after.Exhausted && !before.Exhausted {
		add("budget ran out: the report is partial")
	}
	if len(parts) == 0 {
		return "nothing new"
	}
	return strings.Join(parts, "; ")
}

func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func doneTasks(s *State) int {
	n := 0
	for _, t := range s.Plan {
		if t.Status == "done" {
			n++
		}
	}
	return n
}

// refCounts says what happened to references: "3 references: 2 followed, 1 unresolved".
func refCounts(refs []RefRecord) string {
	by := map[string]int{}
	for _, r := range refs {
		by[r.State]++
	}
	var states []string
	for _, st := range []string{RefFollowed, RefSkipped, RefUnresolved, RefOverBudget} {
		if by[st] > 0 {
			states = append(states, fmt.Sprintf("%d %s", by[st], strings.ReplaceAll(st, "_", " ")))
		}
	}
	return count(len(refs), "reference", "references") + ": " + strings.Join(states, ", ")
}

// RefCounts says in words how many references ended in each state, for a whole run.
func RefCounts(refs []RefRecord) string {
	if len(refs) == 0 {
		return "no references"
	}
	return refCounts(refs)
}
