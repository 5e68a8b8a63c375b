package research

import (
	"fmt"
	"strings"

	"warren/service"
	"warren/tui/styles"
)

// treeNode is one line of the rabbit-hole tree: a task, a chunk read for it, or a reference
// found in a chunk. Chunks expand to show their passage's place and excerpt.
type treeNode struct {
	depth    int
	kind     string // task, chunk, ref
	label    string
	chunkID  string
	key      string // keeps a line expanded across rebuilds
	detail   []string
	expanded bool
}

// treeView draws only the lines around the cursor, so a tree of thousands of nodes costs a
// screenful per frame.
type treeView struct {
	nodes         []treeNode
	cursor        int
	width, height int
}

func (t *treeView) setSize(w, h int) { t.width, t.height = w, max(h, 3) }

// build lays out, per task, the chunks read (indented by depth) and under each the references
// found in it with their state and reason.
func (t *treeView) build(s *service.ResearchState, st *styles.Styles) {
	expanded := map[string]bool{}
	for _, n := range t.nodes {
		if n.expanded {
			expanded[n.key] = true
		}
	}
	t.nodes = t.nodes[:0]
	if s == nil {
		return
	}
	refsFrom := map[string][]service.ResearchRef{}
	for _, r := range s.References {
		refsFrom[r.Task+"|"+r.FromChunk] = append(refsFrom[r.Task+"|"+r.FromChunk], r)
	}
	for _, task := range s.Plan {
		t.nodes = append(t.nodes, treeNode{kind: "task", label: oneLine(fmt.Sprintf("%s %s (%s)", task.ID, task.Query, task.Status))})
		seen := map[string]bool{}
		addChunk := func(id, doc, section, collection, info, excerpt string, depth int) {
			if seen[id] {
				return
			}
			seen[id] = true
			label := fmt.Sprintf("%s %s", doc, section)
			if info != "" {
				label += " — " + info
			}
			t.nodes = append(t.nodes, treeNode{depth: depth + 1, kind: "chunk", label: oneLine(label), chunkID: id, key: id, expanded: expanded[id],
				detail: []string{fmt.Sprintf("document %s, section %s, collection %s", doc, orNone(section), collection), excerpt}})
			for _, r := range refsFrom[task.ID+"|"+id] {
				state := r.State
				switch r.State {
				case service.RefFollowed:
					state = st.Followed.Render(state)
				case service.RefSkipped:
					state = st.Skipped.Render(state)
				case service.RefUnresolved:
					state = st.Unresolved.Render(state)
				case service.RefOverBudget:
					state = st.OverBudget.Render(state)
				}
				label := fmt.Sprintf("→ «%s» %s", oneLine(r.Text), state)
				if r.Reason != "" {
					label += ": " + oneLine(r.Reason)
				}
				key := "ref|" + task.ID + "|" + id + "|" + r.Text
				t.nodes = append(t.nodes, treeNode{depth: depth + 2, kind: "ref", label: label, key: key, expanded: expanded[key], detail: ledTo(r)})
			}
		}
		for _, f := range s.Findings {
			if f.Task == task.ID {
				addChunk(f.ChunkID, f.Doc, f.Place(), f.Collection, f.Information, f.Excerpt, f.Depth)
			}
		}
		for _, r := range s.References { // chunks whose references were read though nothing was extracted
			if r.Task == task.ID {
				addChunk(r.FromChunk, strings.SplitN(r.FromChunk, "#", 2)[0], "", "", "", "", r.Depth)
			}
		}
	}
	t.cursor = min(t.cursor, max(len(t.nodes)-1, 0))
}

func (t *treeView) move(d int) { t.cursor = min(max(t.cursor+d, 0), max(len(t.nodes)-1, 0)) }

// toggle expands or collapses the chunk or reference under the cursor.
func (t *treeView) toggle(*styles.Styles) {
	if t.cursor < len(t.nodes) && len(t.nodes[t.cursor].detail) > 0 {
		t.nodes[t.cursor].expanded = !t.nodes[t.cursor].expanded
	}
}

// ledTo says where a reference led: the document, section and passages it resolved to.
func ledTo(r service.ResearchRef) []string {
	res := r.Resolved
	if res == nil {
		if r.State == service.RefFollowed {
			return []string{"led to no stored passage"}
		}
		return nil
	}
	where := fmt.Sprintf("led to %s", res.Doc)
	if res.Section != "" {
		where += " § " + res.Section
	}
	where += fmt.Sprintf(" (collection %s, found by %s)", orNone(res.Collection), orNone(res.Method))
	out := []string{where}
	if len(res.ChunkIDs) > 0 {
		out = append(out, "passages: "+strings.Join(res.ChunkIDs, ", "))
	}
	return out
}

func (t *treeView) current() string {
	if t.cursor < len(t.nodes) {
		return t.nodes[t.cursor].chunkID
	}
	return ""
}

func (t *treeView) view(st *styles.Styles) string {
	if len(t.nodes) == 0 {
		return st.Subtle.Render("No tasks worked yet: the tree grows as the run follows references.")
	}
	start := max(t.cursor-t.height/2, 0)
	var lines []string
	for i := start; i < len(t.nodes) && len(lines) < t.height; i++ {
		n := t.nodes[i]
		marker := "  "
		if i == t.cursor {
			marker = st.Selected.Render("▸ ")
		}
		line := marker + strings.Repeat("  ", n.depth) + n.label
		if n.kind == "task" {
			line = marker + st.Title.Render(n.label)
		}
		lines = append(lines, truncate(line, t.width))
		if n.expanded {
			for _, d := range n.detail {
				if d != "" && len(lines) < t.height {
					lines = append(lines, truncate(strings.Repeat("  ", n.depth+2)+st.Subtle.Render(oneLine(d)), t.width))
				}
			}
		}
	}
	return strings.Join(lines, "\n")
}
