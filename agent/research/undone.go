package research

import (
	"fmt"
	"strings"
)

// undone lists, one line each, what a run whose budget ran out at node left undone: the tasks
// not worked or not finished, the references found but not decided, the passages reached but
// not read, and the steps of the report not taken.
func undone(s *State, node string) []string {
	var out []string
	if len(s.Plan) == 0 || node == "plan" {
		out = append(out, "the plan: no task was worked")
	}
	started := map[string]bool{}
	for _, f := range s.Findings {
		started[f.Task] = true
	}
	for _, r := range s.References {
		started[r.Task] = true
	}
	for _, u := range s.Unread {
		started[u.Task] = true
	}
	for _, t := range s.Plan {
		switch {
		case t.Status == "done":
		case t.Passes == 0 && !started[t.ID]:
			out = append(out, fmt.Sprintf("task %s «%s»: not worked", t.ID, t.Query))
		default:
			out = append(out, fmt.Sprintf("task %s «%s»: pass %d not finished", t.ID, t.Query, t.Passes+1))
		}
	}
	refs := map[string][]string{}
	var order []string
	for _, r := range s.References {
		if r.State == RefOverBudget && strings.HasPrefix(r.Reason, "not decided") {
			if refs[r.Task] == nil {
				order = append(order, r.Task)
			}
			refs[r.Task] = append(refs[r.Task], "«"+oneLine(r.Text)+"»")
		}
	}
	for _, task := range order {
		out = append(out, fmt.Sprintf("task %s: %d reference(s) found but not followed: %s", task, len(refs[task]), strings.Join(refs[task], ", ")))
	}
	unread := map[string][]string{}
	order = order[:0]
	for _, u := range s.Unread {
		if unread[u.Task] == nil {
			order = append(order, u.Task)
		}
		unread[u.Task] = append(unread[u.Task], place(u.Doc, u.Section))
	}
	for _, task := range order {
		out = append(out, fmt.Sprintf("task %s: %d passage(s) reached but not read: %s", task, len(unread[task]), strings.Join(unread[task], ", ")))
	}
	switch {
	case node == "synthesize" && s.Retried:
		out = append(out, "the second draft of the report (the first is kept)")
	case node == "quality" && s.Retried:
		out = append(out, "the check of the second draft")
	case node == "quality":
		out = append(out, "the report's check and its remediation")
	case node == "remediate":
		out = append(out, "the remediation decision (the report is kept unchecked)")
	default:
		out = append(out, "the report: the findings are listed instead")
	}
	return out
}

// notDoneSection is the report's list of what was not done, quoted like the partial note
// (no claim: the citation check passes it by).
func notDoneSection(s *State) string {
	if len(s.NotDone) == 0 {
		return ""
	}
	return "\n\n> Not done:\n> - " + strings.Join(s.NotDone, "\n> - ")
}
