package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"warren/kb"
	"warren/retrieval"
	"warren/tui/styles"
)

// Messages of the Knowledge tab.
type (
	kbListMsg struct {
		cols []kb.CollectionInfo
		docs []kb.DocInfo
		err  error
	}
	kbChunksMsg struct {
		doc    string
		chunks []kb.Chunk
		err    error
	}
	kbSearchMsg struct {
		query   string
		results []retrieval.Result
		err     error
	}
	ingestProgressMsg struct {
		p     kb.Progress
		done  bool
		state *ingestState
	}
	ingestDoneMsg struct {
		rep *kb.IngestReport
		err error
	}
)

// ingestState carries progress from an ingest's goroutine to the program.
type ingestState struct {
	mu     sync.Mutex
	latest kb.Progress
	done   bool
	tick   chan struct{}
}

func (s *ingestState) wait() tea.Cmd {
	return func() tea.Msg {
		<-s.tick
		s.mu.Lock()
		defer s.mu.Unlock()
		return ingestProgressMsg{p: s.latest, done: s.done, state: s}
	}
}

var searchModes = []retrieval.Mode{retrieval.Hybrid, retrieval.Dense, retrieval.Lexical}

// knowledgeTab browses, searches and fills the knowledge base.
type knowledgeTab struct {
	served        bool // one connection of warren serve: an ingest goes on when it closes
	be            Backend
	st            *styles.Styles
	width, height int

	cols    []kb.CollectionInfo
	docs    []kb.DocInfo
	docCur  int
	chunks  []kb.Chunk
	chunkOf string
	chunkAt int

	input    textinput.Model
	inputFor string            // "", "search", "ingest"
	drafts   map[string]string // what each field held when esc left it
	mode     int
	query    string
	results  []retrieval.Result
	resCur   int
	showing  string // docs, chunks, results

	ingest       *ingestState
	ingestCancel context.CancelFunc
	progress     kb.Progress
	loaded       bool
}

func newKnowledgeTab(be Backend, st *styles.Styles) *knowledgeTab {
	in := textinput.New()
	return &knowledgeTab{be: be, st: st, input: in, showing: "docs", drafts: map[string]string{}}
}

func (k *knowledgeTab) SetSize(w, h int) { k.width, k.height = w, h; k.input.SetWidth(max(w-14, 10)) }

// ingesting reports an ingest in progress.
func (k *knowledgeTab) ingesting() bool { return k.ingestCancel != nil }

func (k *knowledgeTab) load() tea.Cmd {
	return func() tea.Msg {
		ctx := context.Background()
		cols, err := k.be.Collections(ctx)
		if err != nil {
			return kbListMsg{err: err}
		}
		docs, err := k.be.Documents(ctx, "")
		return kbListMsg{cols: cols, docs: docs, err: err}
	}
}

func (k *knowledgeTab) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case kbListMsg:
		if msg.err != nil {
			return setStatus(msg.err.Error(), true)
		}
		k.cols, k.docs, k.loaded = msg.cols, msg.docs, true
		k.docCur = min(k.docCur, max(len(k.docs)-1, 0))
		return nil
	case kbChunksMsg:
		if msg.err != nil {
			return setStatus(msg.err.Error(), true)
		}
		k.chunks, k.chunkOf, k.chunkAt, k.showing = msg.chunks, msg.doc, 0, "chunks"
		return nil
	case kbSearchMsg:
		if msg.err != nil {
			return setStatus(msg.err.Error(), true)
		}
		k.query, k.results, k.resCur, k.showing = msg.query, msg.results, 0, "results"
		return nil
	case ingestProgressMsg:
		if msg.state != k.ingest {
			return nil
		}
		k.progress = msg.p
		if msg.done {
			return nil
		}
		return msg.state.wait()
	case ingestDoneMsg:
		k.ingest, k.ingestCancel = nil, nil
		if msg.err != nil {
			return setStatus("ingest failed: "+msg.err.Error(), true)
		}
		text := fmt.Sprintf("ingested %d, unchanged %d, skipped %d, failed %d: %d chunks", msg.rep.Ingested, msg.rep.Unchanged,
			msg.rep.Skipped, msg.rep.Failed, msg.rep.Chunks)
		if msg.rep.Canceled {
			text = "ingest cancelled; " + text + " (both stores consistent)"
		}
		return tea.Batch(setStatus(text, msg.rep.Failed > 0), k.load())
	case tea.KeyPressMsg:
		return k.key(msg)
	case tea.PasteMsg:
		if k.inputFor != "" {
			var cmd tea.Cmd
			k.input, cmd = k.input.Update(msg)
			return cmd
		}
		return nil
	}
	if !k.loaded {
		k.loaded = true
		return k.load()
	}
	return nil
}

func (k *knowledgeTab) key(msg tea.KeyPressMsg) tea.Cmd {
	s := msg.String()
	if k.inputFor != "" {
		switch s {
		case "esc":
			// What was typed stays in the field for the next / or i.
			k.drafts[k.inputFor] = k.input.Value()
			k.inputFor = ""
			k.input.Blur()
			return nil
		case "enter":
			text := strings.TrimSpace(k.input.Value())
			mode := k.inputFor
			k.inputFor = ""
			k.input.Blur()
			if mode == "search" {
				k.drafts[mode] = text // / opens with the last query, to refine it
			} else {
				delete(k.drafts, mode)
			}
			if text == "" {
				return nil
			}
			if mode == "search" {
				return k.search(text)
			}
			return k.startIngest(text)
		}
		var cmd tea.Cmd
		k.input, cmd = k.input.Update(msg)
		return cmd
	}
	switch s {
	case "/":
		k.inputFor, k.input.Placeholder = "search", "search the knowledge base"
		k.input.SetValue(k.drafts["search"])
		return k.input.Focus()
	case "i":
		if k.ingest != nil {
			return setStatus("an ingest is running: esc cancels it", false)
		}
		placeholder := "path to a file or folder, then enter (collection: general)"
		if roots := k.be.IngestRoots(); k.served || roots != nil {
			// Served, only the administrator's folders can be read, named as the analyst types them.
			if len(roots) == 0 {
				return setStatus("ingest is off on this server: the administrator names no folder for it (serve.ingest_roots)", true)
			}
			placeholder = fmt.Sprintf("a file or folder in %s, e.g. %s/report.pdf, then enter (collection: general)", ingestFolders(roots), roots[0])
		}
		k.inputFor, k.input.Placeholder = "ingest", placeholder
		k.input.SetValue(k.drafts["ingest"])
		return k.input.Focus()
	case "m":
		k.mode = (k.mode + 1) % len(searchModes)
		if k.query != "" {
			return k.search(k.query)
		}
		return setStatus("search mode: "+string(searchModes[k.mode]), false)
	case "esc":
		if k.ingestCancel != nil {
			k.ingestCancel()
			return setStatus("cancelling the ingest after the current document…", false)
		}
		if k.showing == "passage" {
			k.showing = "results"
		} else {
			k.showing = "docs"
		}
	case "c":
		if c, ok := k.shownChunk(); ok {
			return copyText(passageCitation(c), "the passage with its source")
		}
		return setStatus("c copies a passage: open one with enter first", false)
	case "up", "k":
		k.move(-1)
	case "down", "j":
		k.move(1)
	case "enter":
		if k.showing == "results" && k.resCur < len(k.results) {
			k.showing = "passage"
			return nil
		}
		if k.showing == "docs" && len(k.docs) > 0 {
			doc := k.docs[k.docCur].ID
			return func() tea.Msg {
				chunks, err := k.be.DocumentChunks(context.Background(), doc)
				return kbChunksMsg{doc: doc, chunks: chunks, err: err}
			}
		}
	case "r":
		return k.load()
	}
	return nil
}

// shownChunk is the passage on screen: the open search result or the browsed chunk.
func (k *knowledgeTab) shownChunk() (kb.Chunk, bool) {
	switch {
	case k.showing == "passage" && k.resCur < len(k.results):
		return k.results[k.resCur].Chunk, true
	case k.showing == "chunks" && k.chunkAt < len(k.chunks):
		return k.chunks[k.chunkAt], true
	}
	return kb.Chunk{}, false
}

// title is a document's title, or its ID when it has none.
func (k *knowledgeTab) title(doc string) string {
	for _, d := range k.docs {
		if d.ID == doc && d.Title != "" {
			return d.Title
		}
	}
	return doc
}

func (k *knowledgeTab) move(d int) {
	switch k.showing {
	case "docs":
		k.docCur = min(max(k.docCur+d, 0), max(len(k.docs)-1, 0))
	case "chunks":
		k.chunkAt = min(max(k.chunkAt+d, 0), max(len(k.chunks)-1, 0))
	case "results":
		k.resCur = min(max(k.resCur+d, 0), max(len(k.results)-1, 0))
	}
}

func (k *knowledgeTab) search(q string) tea.Cmd {
	mode := searchModes[k.mode]
	return func() tea.Msg {
		res, err := k.be.Search(context.Background(), retrieval.Request{Query: q, K: 20, Mode: mode})
		return kbSearchMsg{query: q, results: res, err: err}
	}
}

// ingestFolders lists the folders a served analyst may ingest from: "inbox/ or sds/".
func ingestFolders(roots []string) string {
	shown := make([]string, len(roots))
	for i, r := range roots {
		shown[i] = r + "/"
	}
	if n := len(shown); n > 1 {
		return strings.Join(shown[:n-1], ", ") + " or " + shown[n-1]
	}
	return shown[0]
}

func (k *knowledgeTab) startIngest(path string) tea.Cmd {
	ctx, cancel := context.WithCancel(context.Background())
	st := &ingestState{tick: make(chan struct{}, 1)}
	k.ingest, k.ingestCancel, k.progress = st, cancel, kb.Progress{Current: path}
	work := func() tea.Msg {
		rep, err := k.be.IngestPaths(ctx, []string{path}, "general", func(p kb.Progress) {
			st.mu.Lock()
			st.latest = p
			st.mu.Unlock()
			select {
			case st.tick <- struct{}{}:
			default:
			}
		})
		st.mu.Lock()
		st.done = true
		st.mu.Unlock()
		select {
		case st.tick <- struct{}{}:
		default:
		}
		if err == nil && rep == nil {
			err = errors.New("no report")
		}
		return ingestDoneMsg{rep: rep, err: err}
	}
	return tea.Batch(work, st.wait())
}

func (k *knowledgeTab) View() string {
	var b strings.Builder
	if k.inputFor != "" {
		b.WriteString(fmt.Sprintf("%-10s %s\n", map[string]string{"search": "Search:", "ingest": "Ingest:"}[k.inputFor], k.input.View()))
	} else {
		b.WriteString(k.st.Subtle.Render(fmt.Sprintf("/ search (mode %s, m switches) · i ingest a path · enter browse chunks", searchModes[k.mode])) + "\n")
	}
	if k.ingest != nil {
		p := k.progress
		b.WriteString(bar(k.st, "ingest", p.FilesDone, max(p.Files, 1), k.width) +
			k.st.Subtle.Render(fmt.Sprintf("  %d chunks · esc cancels", p.Chunks)) + "\n")
	}
	var cols []string
	for _, c := range k.cols {
		cols = append(cols, fmt.Sprintf("%s (%d docs, %d chunks, %s)", safeLine(c.Name), c.Documents, c.Chunks, safeLine(c.Embedder)))
	}
	if len(cols) == 0 {
		b.WriteString(k.st.Subtle.Render("The knowledge base is empty: press i to ingest a file or folder.") + "\n")
	} else {
		b.WriteString(wrap(k.st.Subtle.Render("Collections: "+strings.Join(cols, " · ")), k.width) + "\n")
	}
	room := max(k.height-lineCount(b.String())-1, 1)
	switch k.showing {
	case "docs":
		b.WriteString(k.st.Title.Render("Documents") + "\n")
		b.WriteString(listWindow(len(k.docs), k.docCur, room, func(i int) string {
			d := k.docs[i]
			return fmt.Sprintf("%-40s %-12s %4d chunks  %s", safeLine(d.ID), safeLine(d.Collection), d.Chunks, safeLine(d.Title))
		}, k.st, k.width))
	case "chunks":
		b.WriteString(k.st.Title.Render("Chunks of "+safeLine(k.chunkOf)) + k.st.Subtle.Render("  esc: back to documents") + "\n")
		if k.chunkAt < len(k.chunks) {
			c := k.chunks[k.chunkAt]
			b.WriteString(fmt.Sprintf("%d/%d  %s — %s\n", k.chunkAt+1, len(k.chunks), orNone(c.SectionPath), safeLine(c.Heading)))
			b.WriteString(wrap(safe(c.Text), min(k.width, 110)))
		}
	case "results":
		b.WriteString(k.st.Title.Render(fmt.Sprintf("Results for “%s”", safeLine(k.query))) + k.st.Subtle.Render(fmt.Sprintf("  %s · esc: back", searchModes[k.mode])) + "\n")
		if len(k.results) == 0 {
			b.WriteString(k.st.Subtle.Render("No matching passages."))
		}
		b.WriteString(listWindow(len(k.results), k.resCur, room, func(i int) string {
			r := k.results[i]
			where := k.title(r.Doc)
			if r.Section != "" {
				where += " § " + r.Section
			}
			if r.Heading != "" {
				where += " — " + r.Heading
			}
			return fmt.Sprintf("%.3f  %s  %s", r.Score, oneLine(where), k.st.Subtle.Render(oneLine(r.Text)))
		}, k.st, k.width))
	case "passage":
		if k.resCur < len(k.results) {
			r := k.results[k.resCur]
			b.WriteString(k.st.Title.Render(oneLine(k.title(r.Doc)+" "+r.Section+" — "+r.Heading)) + "\n")
			b.WriteString(k.st.Subtle.Render(fmt.Sprintf("score %.3f · %s · collection %s · %s", r.Score, safeLine(r.Doc), safeLine(r.Collection), orNone(r.SectionPath))) + "\n\n")
			b.WriteString(wrap(safe(r.Text), min(k.width, 110)))
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

func (k *knowledgeTab) Keys() keyMap {
	short := []keyBinding{bind("/", "search"), bind("enter", "chunks"), bind("i", "ingest"), bind("m", "search mode"), bind("esc", "back / cancel ingest")}
	switch k.showing {
	case "results":
		short = []keyBinding{bind("enter", "open passage"), bind("↑/↓", "move", "up", "down"), bind("/", "search"), bind("m", "mode"), bind("esc", "back")}
	case "passage", "chunks":
		short = []keyBinding{bind("esc", "back"), bind("c", "copy with source"), bind("/", "search"), bind("↑/↓", "move", "up", "down")}
	}
	if k.ingest != nil {
		short = append([]keyBinding{bind("esc", "cancel the ingest")}, short...)
		for i := range short {
			if short[i].Help().Key == "i" {
				short[i] = disabled("i", "ingest (one is running)")
			}
		}
	}
	if k.inputFor != "" {
		short = []keyBinding{bind("enter", "go"), bind("esc", "cancel")}
	}
	return keyMap{short: short, full: [][]keyBinding{short}}
}

func lineCount(s string) int { return strings.Count(s, "\n") + 1 }

// listWindow draws rows around the cursor.
func listWindow(n, cur, room int, row func(int) string, st *styles.Styles, width int) string {
	start := max(cur-room+1, 0)
	var lines []string
	for i := start; i < n && len(lines) < room; i++ {
		line := "  " + row(i)
		if i == cur {
			line = st.Selected.Render("▸ " + row(i))
		}
		lines = append(lines, truncate(line, width))
	}
	return strings.Join(lines, "\n")
}
