package research

import (
	"encoding/json"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"warren/service"
	"warren/service/jobs"
	"warren/tui/component"
)

func (r *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	k := msg.String()
	if r.editing != "" {
		return r.editKey(msg)
	}
	if k == "ctrl+o" {
		if r.view != viewSessions {
			r.sessionsBack = r.view
		}
		r.view = viewSessions
		r.question.Blur() // the list takes the keys; the question waits, unfocused
		return r.loadRuns()
	}
	if k == "ctrl+x" {
		switch r.view {
		case viewRun, viewRefine, viewPlan, viewTree:
			// The distinct key for cancelling: the desk decides who may.
			return r.cancelRun()
		}
	}
	switch r.view {
	case viewEditor:
		switch k {
		case "enter":
			q := strings.TrimSpace(r.question.Value())
			if q == "" {
				return setStatus("type a question first", false)
			}
			r.question.Blur()
			r.sent = r.question.Value()
			return r.startRun(q)
		case "esc":
			// Leaves the field; any key that types goes back into it (this view is for
			// typing: q and the digits type, ctrl+c quits).
			r.question.Blur()
			return nil
		}
		var focus tea.Cmd
		if !r.question.Focused() && typing(msg) {
			focus = r.question.Focus()
		}
		var cmd tea.Cmd
		r.question, cmd = r.question.Update(msg)
		return tea.Batch(focus, cmd)
	case viewRun:
		switch k {
		case "esc":
			switch {
			case r.running() && r.watching:
				return r.stopWatching()
			case r.running():
				return setStatus("the run goes on: ctrl+x cancels it (it stays resumable)", false)
			}
			r.view = viewEditor
			return r.question.Focus()
		case "t":
			r.tree.build(r.state, r.st)
			r.view = viewTree
		case "enter", "r":
			if r.hasReport() {
				r.view = viewReport
				return r.report.renderCmd()
			}
			if r.pending != nil && !r.running() {
				// Back to the question or the plan it waits at (esc left it, nothing was sent).
				if r.pending.Kind == service.InterruptPlan {
					r.view = viewPlan
					return nil
				}
				r.view = viewRefine
				return r.FocusField()
			}
			if k == "enter" {
				return nil
			}
			if r.running() {
				return setStatus("nothing to resume: the run is running", false)
			}
			if r.run != "" {
				return r.resume(r.run, nil) // the desk says whether it may, and whether it can
			}
		case "n":
			if r.cancel == nil {
				r.view = viewEditor
				r.question.SetValue("")
				return r.question.Focus()
			}
		}
	case viewRefine:
		if r.readOnly() {
			// A watcher reads the questions. Sending anyway goes to the desk, which refuses
			// it in its words (see runEnded).
			switch k {
			case "ctrl+s", "ctrl+e":
				return r.resume(r.run, mustRaw(service.EndRefinement))
			case "esc":
				r.view = viewRun
			case "t":
				r.tree.build(r.state, r.st)
				r.view = viewTree
			}
			return nil
		}
		switch k {
		case "ctrl+s":
			text := strings.TrimSpace(r.answer.Value())
			if text == "" {
				return setStatus("the answer is empty: write one, or ctrl+e to stop refining", false)
			}
			r.answerSent = r.answer.Value()
			return r.resume(r.run, mustRaw(text))
		case "ctrl+e":
			return r.resume(r.run, mustRaw(service.EndRefinement))
		case "esc":
			// Leaves the field, as on the question: the run waits, the answer stays.
			r.answer.Blur()
			return nil
		}
		var focus tea.Cmd
		if !r.answer.Focused() && typing(msg) {
			focus = r.answer.Focus()
		}
		var cmd tea.Cmd
		r.answer, cmd = r.answer.Update(msg)
		return tea.Batch(focus, cmd)
	case viewPlan:
		if r.readOnly() {
			switch k {
			case "esc", "up", "down", "k", "j":
				return r.planKey(k)
			case "enter", "ctrl+s":
				// Approving anyway goes to the desk, which refuses it in its words.
				return r.resume(r.run, mustRaw(service.ResearchPlanAnswer{Action: "approve", Tasks: r.plan}))
			}
			return nil
		}
		return r.planKey(k)
	case viewReport:
		if r.exportPick {
			return r.exportKey(k)
		}
		switch k {
		case "n", "]":
			if !r.report.nextCitation(1) {
				return setStatus("the report cites no sources", false)
			}
		case "N", "[":
			if !r.report.nextCitation(-1) {
				return setStatus("the report cites no sources", false)
			}
		case "enter":
			n := r.report.selected()
			if n == 0 {
				return setStatus("select a citation with n first", false)
			}
			if r.state != nil {
				for _, src := range r.state.Sources {
					if src.N == n {
						return r.openPassage(src.ChunkID, viewReport)
					}
				}
			}
			return setStatus(fmt.Sprintf("citation [%d] names no source of this report", n), false)
		case "x":
			return r.openExport()
		case "t":
			r.view = viewTree
		case "c":
			return r.copyFromReport()
		case "esc":
			r.view = viewRun
		default:
			r.report.scroll(k, r.height)
		}
	case viewTree:
		switch k {
		case "up", "k":
			r.tree.move(-1)
		case "down", "j":
			r.tree.move(1)
		case "enter", " ":
			r.tree.toggle(r.st)
		case "o":
			if id := r.tree.current(); id != "" {
				return r.openPassage(id, viewTree)
			}
			return setStatus("o opens the passage of a chunk line; this line is a task or a reference", false)
		case "r":
			if r.state != nil && r.state.Report != "" {
				r.view = viewReport
				return nil
			}
			return setStatus("there is no report yet", false)
		case "esc":
			r.view = viewRun
		}
	case viewSessions:
		switch k {
		case "up", "k":
			r.runsCur = max(r.runsCur-1, 0)
		case "down", "j":
			r.runsCur = min(r.runsCur+1, max(len(r.runs)-1, 0))
		case "enter":
			if len(r.runs) > 0 {
				id := r.runs[r.runsCur].ID
				if j, ok := r.runJobs[id]; ok && (j.State == jobs.JobRunning || j.State == jobs.JobWaiting) {
					return r.watch(id, j.Owner) // followed live, or shown at its question, whoever's it is
				}
				return r.openRun(id)
			}
		case "r":
			if r.running() {
				return setStatus("a run is in progress here: ctrl+x cancels it, or esc on its view stops watching it", false)
			}
			if len(r.runs) > 0 {
				// The desk decides whether this analyst may, and whether the run can go on.
				return r.resume(r.runs[r.runsCur].ID, nil)
			}
		case "esc":
			// Back where ctrl+o came from; the question field is not given the keyboard
			// unless that was the question view.
			r.view = r.sessionsBack
			if r.view == viewSessions {
				r.view = viewEditor
			}
		}
	case viewPassage:
		switch k {
		case "esc", "enter":
			r.view = r.back
		case "c":
			if r.passage != nil {
				return copyText(component.PassageCitation(*r.passage), "the passage with its source")
			}
		}
	}
	return nil
}

func mustRaw(v any) json.RawMessage {
	data, _ := json.Marshal(v)
	return data
}

// planKey edits the proposed plan before approval.
func (r *Model) planKey(k string) tea.Cmd {
	switch k {
	case "K", "shift+up", "J", "shift+down", "d":
		r.planEdited = true
	}
	switch k {
	case "up", "k":
		r.planCursor = max(r.planCursor-1, 0)
	case "down", "j":
		r.planCursor = min(r.planCursor+1, max(len(r.plan)-1, 0))
	case "K", "shift+up":
		if r.planCursor > 0 {
			r.plan[r.planCursor-1], r.plan[r.planCursor] = r.plan[r.planCursor], r.plan[r.planCursor-1]
			r.planCursor--
		}
	case "J", "shift+down":
		if r.planCursor < len(r.plan)-1 {
			r.plan[r.planCursor+1], r.plan[r.planCursor] = r.plan[r.planCursor], r.plan[r.planCursor+1]
			r.planCursor++
		}
	case "d":
		if len(r.plan) > 1 {
			r.plan = append(r.plan[:r.planCursor], r.plan[r.planCursor+1:]...)
			r.planCursor = min(r.planCursor, len(r.plan)-1)
		} else {
			return setStatus("a plan needs at least one task", false)
		}
	case "e":
		if len(r.plan) > 0 {
			r.editing = "task"
			r.edit.SetValue(r.plan[r.planCursor].Query)
			return r.edit.Focus()
		}
	case "a":
		if len(r.plan) >= service.MaxPlanTasks {
			return setStatus("a plan has at most 15 tasks", false)
		}
		r.editing = "add"
		r.edit.SetValue("")
		r.edit.Placeholder = "the new task's search query"
		return r.edit.Focus()
	case "g":
		r.editing = "comment"
		r.edit.SetValue("")
		r.edit.Placeholder = "what the new plan should do differently"
		return r.edit.Focus()
	case "enter", "ctrl+s":
		return r.resume(r.run, mustRaw(service.ResearchPlanAnswer{Action: "approve", Tasks: r.plan}))
	case "esc":
		// Back to the run view; the run keeps waiting with the plan as changed (enter or r
		// comes back to it).
		r.view = viewRun
	}
	return nil
}

// typing reports a key that writes into a field: a character, or an editing key.
func typing(msg tea.KeyPressMsg) bool {
	k := msg.Key()
	if k.Text != "" && k.Mod&(tea.ModCtrl|tea.ModAlt|tea.ModMeta|tea.ModSuper) == 0 {
		return true
	}
	switch msg.String() {
	case "backspace", "delete", "left", "right", "home", "end", "ctrl+u", "ctrl+w", "ctrl+k", "ctrl+a":
		return true
	}
	return false
}

func (r *Model) editKey(msg tea.KeyPressMsg) tea.Cmd {
	switch msg.String() {
	case "esc":
		r.editing = ""
		r.edit.Blur()
		return nil
	case "enter":
		text := strings.TrimSpace(r.edit.Value())
		mode := r.editing
		r.editing = ""
		r.edit.Blur()
		if text == "" {
			return setStatus("nothing entered", false)
		}
		if mode != "comment" {
			r.planEdited = true
		}
		switch mode {
		case "task":
			r.plan[r.planCursor].Query = text
		case "add":
			at := min(r.planCursor+1, len(r.plan))
			r.plan = append(r.plan[:at], append([]service.ResearchTask{{Query: text, Status: "pending"}}, r.plan[at:]...)...)
			r.planCursor = at
		case "comment":
			return r.resume(r.run, mustRaw(service.ResearchPlanAnswer{Action: "replan", Comment: text}))
		}
		return nil
	}
	var cmd tea.Cmd
	r.edit, cmd = r.edit.Update(msg)
	return cmd
}

// Keys are the Research tab's bindings for its current view; a binding that cannot be used
// now says why.
func (r *Model) Keys() keyMap {
	var short []keyBinding
	switch {
	case r.editing != "":
		short = []keyBinding{bind("enter", "confirm"), bind("esc", "cancel the edit")}
	case r.view == viewEditor:
		if r.question.Focused() {
			short = []keyBinding{bind("enter", "start run"), bind("esc", "leave field"), bind("ctrl+o", "sessions")}
		} else {
			short = []keyBinding{bind("type", "to write"), bind("enter", "start run"), bind("ctrl+o", "sessions")}
		}
	case r.view == viewRun:
		switch {
		case r.running() && r.readOnly():
			short = []keyBinding{bind("esc", "stop watching"), bind("t", "reference tree")}
		case r.Cancellable() && r.watching:
			short = []keyBinding{bind("ctrl+x", "cancel run (resumable)"), bind("esc", "stop watching"), bind("t", "reference tree")}
		case r.Cancellable():
			short = []keyBinding{bind("ctrl+x", "cancel run (resumable)"), bind("t", "reference tree")}
		case r.pending != nil && r.readOnly():
			short = []keyBinding{bind("enter", "its question"), bind("t", "reference tree"), bind("n", "new question"), bind("ctrl+o", "sessions")}
		case r.pending != nil:
			short = []keyBinding{bind("enter", "back to your answer"), bind("t", "reference tree"), bind("n", "new question"), bind("ctrl+o", "sessions")}
		case r.hasReport():
			short = []keyBinding{bind("enter", "report"), bind("t", "reference tree"), bind("n", "new question"), bind("ctrl+o", "sessions")}
		case r.run != "":
			short = []keyBinding{bind("r", "resume"), bind("t", "reference tree"), bind("n", "new question"), bind("ctrl+o", "sessions")}
		default:
			short = []keyBinding{bind("n", "new question"), bind("ctrl+o", "sessions")}
		}
	case r.view == viewRefine && r.readOnly():
		short = []keyBinding{bind("esc", "run view"), bind("t", "reference tree"), bind("ctrl+o", "sessions")}
	case r.view == viewRefine:
		leave := bind("esc", "leave field")
		if !r.answer.Focused() {
			leave = bind("type", "to write")
		}
		short = []keyBinding{bind("ctrl+s", "send"), bind("ctrl+e", "stop refining"), leave, bind("ctrl+o", "sessions")}
	case r.view == viewPlan && r.readOnly():
		short = []keyBinding{bind("↑/↓", "move", "up", "down"), bind("esc", "run view")}
	case r.view == viewPlan:
		short = []keyBinding{bind("enter", "approve"), bind("esc", "run view (it waits)"), bind("e", "edit"), bind("a", "add"), bind("d", "delete"),
			bind("K/J", "move", "K", "J"), bind("g", "new plan")}
		if len(r.plan) <= 1 {
			short[4] = disabled("d", "delete (the plan needs a task)")
		}
	case r.view == viewReport && r.exportPick:
		short = []keyBinding{bind("m", "Markdown"), bind("d", "DOCX"), bind("o", "ODT"), bind("p", "PDF"), bind("h", "HTML"),
			bind("←/→", "choose", "left", "right"), bind("enter", "export"), bind("esc", "cancel")}
	case r.view == viewReport:
		short = []keyBinding{bind("n/N", "citation", "n", "N"), bind("enter", "open source"), bind("c", "copy"), bind("x", "export"),
			bind("esc", "run view"), bind("t", "tree"), bind("↑/↓", "scroll", "up", "down")}
	case r.view == viewTree:
		short = []keyBinding{bind("↑/↓", "move", "up", "down"), bind("enter", "expand"), bind("o", "open passage"), bind("r", "report"), bind("esc", "back")}
		if !r.hasReport() {
			short[3] = disabled("r", "report (none yet)")
		}
	case r.view == viewSessions:
		short = []keyBinding{bind("enter", "open"), bind("r", "resume"), bind("esc", "back")}
	case r.view == viewPassage:
		short = []keyBinding{bind("esc", "back"), bind("c", "copy with its source")}
	}
	full := [][]keyBinding{short}
	if r.view == viewReport && !r.exportPick {
		full = [][]keyBinding{{bind("n/N", "next/previous citation", "n", "N"), bind("enter", "open the cited passage"),
			bind("c", "copy the selected citation, or the report as Markdown (OSC 52)"), bind("x", "export to exports/: m Markdown, d DOCX, o ODT, p PDF, h HTML")},
			{bind("esc", "back to the run view"), bind("t", "reference tree"), bind("↑/↓ pgup/pgdown", "scroll"), bind("g/G", "top/bottom")}}
	}
	return keyMap{Short: short, Full: full}
}
