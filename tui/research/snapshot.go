package research

import (
	"time"

	"warren/kb/chunk"
	"warren/service"
)

// Test support: the workbench's frame tests and benchmarks (package tui) set the tab up and
// read it back through these, without reaching into its fields. The workbench never calls
// them.

var viewNames = []string{viewEditor: "editor", viewRun: "run", viewRefine: "refine", viewPlan: "plan", viewReport: "report",
	viewTree: "tree", viewSessions: "sessions", viewPassage: "passage"}

func viewNamed(name string) researchView {
	for v, n := range viewNames {
		if n == name {
			return researchView(v)
		}
	}
	return viewEditor
}

// TrailStep is one line of a run's trail, for SetUp.
type TrailStep struct {
	Node     string
	Duration time.Duration
	Summary  string
	Done     bool
}

// Fixture is a state of the tab for SetUp (test support). View and Back name views: editor,
// run, refine, plan, report, tree, sessions or passage ("" is the editor).
type Fixture struct {
	View, Back    string
	Run, Status   string
	State         *service.ResearchState
	Calls, Tokens int
	Trail         []TrailStep
	Pending       *service.RunInterrupt
	Plan          []service.ResearchTask
	Runs          []service.RunInfo
	Passage       *chunk.Chunk
	Report        string // the report's Markdown, shown unrendered until Reflow's command is run
}

// SetUp puts the tab in the state f describes (test support: the frame tests and benchmarks
// of package tui start from it).
func (r *Model) SetUp(f Fixture) {
	r.view, r.back = viewNamed(f.View), viewNamed(f.Back)
	r.run, r.status, r.state, r.calls, r.tokens = f.Run, f.Status, f.State, f.Calls, f.Tokens
	r.trail = nil
	for _, s := range f.Trail {
		r.trail = append(r.trail, trailItem{node: s.Node, duration: s.Duration, summary: s.Summary, done: s.Done})
	}
	r.pending, r.plan, r.runs, r.passage = f.Pending, f.Plan, f.Runs, f.Passage
	if f.Report != "" {
		r.report.set(f.Report)
	}
}

// Snapshot is what the tab holds, as values (test support).
type Snapshot struct {
	View        string
	Run, Status string
	Running     bool
	Question    string // the question field's text
	Plan        []service.ResearchTask
	ReportLines int // the report's lines as drawn now
	TreeNodes   int // the reference tree's lines
}

// Snapshot returns what the tab holds now (test support).
func (r *Model) Snapshot() Snapshot {
	return Snapshot{View: viewNames[r.view], Run: r.run, Status: r.status, Running: r.running(), Question: r.question.Value(),
		Plan: r.plan, ReportLines: len(r.report.lines), TreeNodes: len(r.tree.nodes)}
}

// ForgetRendering drops the rendered report and the renderers, so that Reflow renders from
// scratch as for a new width (test support: the benchmarks time it).
func (r *Model) ForgetRendering() { r.report.rendered, r.report.cache = false, nil }
