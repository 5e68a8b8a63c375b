// Package knowledge is the Knowledge tab: it browses the collections and documents of the
// knowledge base, searches it and ingests files into it.
package knowledge

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"warren/kb"
	"warren/kb/chunk"
	"warren/retrieval"
	"warren/service"
	"warren/tui/component"
	"warren/tui/styles"
)

// Messages of the Knowledge tab.
type (
	// ListMsg carries the collections and documents of the knowledge base.
	ListMsg struct {
		Cols []kb.CollectionInfo
		Docs []kb.DocInfo
		Err  error
	}
	kbChunksMsg struct {
		doc    string
		chunks []chunk.Chunk
		err    error
	}
	// SearchMsg carries the results of a search.
	SearchMsg struct {
		Query   string
		Results []retrieval.Result
		Err     error
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

// Service is what the tab needs of warren's knowledge desk.
type Service interface {
	Collections(ctx context.Context) ([]kb.CollectionInfo, error)
	Documents(ctx context.Context, collection string) ([]kb.DocInfo, error)
	DocumentChunks(ctx context.Context, doc string) ([]chunk.Chunk, error)
	Search(ctx context.Context, req retrieval.Request) ([]retrieval.Result, error)
	// Ingest ingests files and folders (opts.Paths) into a collection. Served, each path
	// begins with the name of one of IngestRoots ("inbox/report.pdf"); others are refused
	// with an error that wraps service.ErrOutsideIngestRoots and names the folders allowed.
	Ingest(ctx context.Context, items []kb.Item, opts service.IngestOptions) (*kb.IngestReport, error)
	// IngestRoots names the folders a served analyst may ingest from, as they type them; nil
	// when not served (any path the account can read), empty when the server allows none.
	IngestRoots() []string
}

// Model browses, searches and fills the knowledge base.
type Model struct {
	served        bool // one connection of warren serve: an ingest goes on when it closes
	be            Service
	st            *styles.Styles
	width, height int

	cols    []kb.CollectionInfo
	docs    []kb.DocInfo
	docCur  int
	chunks  []chunk.Chunk
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
	stopping     bool // the ingest was cancelled and is saving what it did
	progress     kb.Progress
	loaded       bool
}

// New is the tab over be, drawn with st.
func New(be Service, st *styles.Styles) *Model {
	in := textinput.New()
	return &Model{be: be, st: st, input: in, showing: "docs", drafts: map[string]string{}}
}

// SetStyles draws the tab with st from now on.
func (k *Model) SetStyles(st *styles.Styles) { k.st = st }

// SetServed marks the tab as one connection's of warren serve: an ingest goes on when the
// connection closes, so quitting does not name it as lost.
func (k *Model) SetServed(served bool) { k.served = served }

// StopIngest cancels an ingest in progress (it stops after the current document).
func (k *Model) StopIngest() {
	if k.ingestCancel != nil {
		k.ingestCancel()
		k.stopping = true
	}
}

// Stopping names the ingest still saving what it did after StopIngest, "" when none: the
// program may quit before it ends, and the process then waits for it.
func (k *Model) Stopping() string {
	if k.ingesting() && k.stopping && !k.served {
		return "the ingest"
	}
	return ""
}

// Drafts is what the analyst typed in the search and ingest fields, by field, including the
// text of the open field.
func (k *Model) Drafts() map[string]string {
	d := make(map[string]string, len(k.drafts)+1)
	for f, v := range k.drafts {
		d[f] = v
	}
	if k.inputFor != "" && k.input.Value() != "" {
		d[k.inputFor] = k.input.Value()
	}
	return d
}

// RestoreDrafts gives the fields back what an earlier connection typed in them.
func (k *Model) RestoreDrafts(d map[string]string) {
	for f, v := range d {
		k.drafts[f] = v
	}
}

// Typed is the text in the tab's field.
func (k *Model) Typed() string { return k.input.Value() }

// SetSize sets the area the tab is drawn in.
func (k *Model) SetSize(w, h int) { k.width, k.height = w, h; k.input.SetWidth(max(w-14, 10)) }

// Changed reloads the collections and documents when the inbox ingested or removed files
// (warren serve watches its ingest folders); the root says what it did.
func (k *Model) Changed(cs []service.Change) tea.Cmd {
	if !k.loaded {
		return nil
	}
	for _, c := range cs {
		if c.Kind == service.ChangeInbox && (c.Action == service.InboxIngested || c.Action == service.InboxUpdated || c.Action == service.InboxRemoved) {
			return k.load()
		}
	}
	return nil
}

// ingesting reports an ingest in progress.
func (k *Model) ingesting() bool { return k.ingestCancel != nil }

func (k *Model) load() tea.Cmd {
	return func() tea.Msg {
		ctx := context.Background()
		cols, err := k.be.Collections(ctx)
		if err != nil {
			return ListMsg{Err: err}
		}
		docs, err := k.be.Documents(ctx, "")
		return ListMsg{Cols: cols, Docs: docs, Err: err}
	}
}

// Update takes keys and the results of the tab's commands.
func (k *Model) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case ListMsg:
		if msg.Err != nil {
			return component.SetStatus(msg.Err.Error(), true)
		}
		k.cols, k.docs, k.loaded = msg.Cols, msg.Docs, true
		k.docCur = min(k.docCur, max(len(k.docs)-1, 0))
		return nil
	case kbChunksMsg:
		if msg.err != nil {
			return component.SetStatus(msg.err.Error(), true)
		}
		k.chunks, k.chunkOf, k.chunkAt, k.showing = msg.chunks, msg.doc, 0, "chunks"
		return nil
	case SearchMsg:
		if msg.Err != nil {
			return component.SetStatus(msg.Err.Error(), true)
		}
		k.query, k.results, k.resCur, k.showing = msg.Query, msg.Results, 0, "results"
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
			return component.SetStatus("ingest failed: "+msg.err.Error(), true)
		}
		text := fmt.Sprintf("ingested %d, unchanged %d, skipped %d, failed %d: %d chunks", msg.rep.Ingested, msg.rep.Unchanged,
			msg.rep.Skipped, msg.rep.Failed, msg.rep.Chunks)
		if msg.rep.Canceled {
			// What to do next first: at 80 columns the counts run past the status line.
			text = "ingest cancelled, what is done is kept (the same ingest again goes on): " + text
		}
		return tea.Batch(component.SetStatus(text, msg.rep.Failed > 0), k.load())
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

func (k *Model) key(msg tea.KeyPressMsg) tea.Cmd {
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
			return component.SetStatus("an ingest is running: esc cancels it", false)
		}
		placeholder := "path to a file or folder, then enter (collection: general)"
		if roots := k.be.IngestRoots(); k.served || roots != nil {
			// Served, only the administrator's folders can be read, named as the analyst types them.
			if len(roots) == 0 {
				return component.SetStatus("ingest is off on this server: the administrator names no folder for it (serve.ingest_roots)", true)
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
		return component.SetStatus("search mode: "+string(searchModes[k.mode]), false)
	case "esc":
		if k.ingestCancel != nil {
			k.ingestCancel()
			k.stopping = true
			return component.SetStatus("stopping the ingest: the documents in hand are stored or dropped whole…", false)
		}
		if k.showing == "passage" {
			k.showing = "results"
		} else {
			k.showing = "docs"
		}
	case "c":
		if c, ok := k.shownChunk(); ok {
			return component.CopyText(component.PassageCitation(c), "the passage with its source")
		}
		return component.SetStatus("c copies a passage: open one with enter first", false)
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
func (k *Model) shownChunk() (chunk.Chunk, bool) {
	switch {
	case k.showing == "passage" && k.resCur < len(k.results):
		return k.results[k.resCur].Chunk, true
	case k.showing == "chunks" && k.chunkAt < len(k.chunks):
		return k.chunks[k.chunkAt], true
	}
	return chunk.Chunk{}, false
}

// title is a document's title, or its ID when it has none.
func (k *Model) title(doc string) string {
	for _, d := range k.docs {
		if d.ID == doc && d.Title != "" {
			return d.Title
		}
	}
	return doc
}

func (k *Model) move(d int) {
	switch k.showing {
	case "docs":
		k.docCur = min(max(k.docCur+d, 0), max(len(k.docs)-1, 0))
	case "chunks":
		k.chunkAt = min(max(k.chunkAt+d, 0), max(len(k.chunks)-1, 0))
	case "results":
		k.resCur = min(max(k.resCur+d, 0), max(len(k.results)-1, 0))
	}
}

func (k *Model) search(q string) tea.Cmd {
	mode := searchModes[k.mode]
	return func() tea.Msg {
		res, err := k.be.Search(context.Background(), retrieval.Request{Query: q, K: 20, Mode: mode})
		return SearchMsg{Query: q, Results: res, Err: err}
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

func (k *Model) startIngest(path string) tea.Cmd {
	ctx, cancel := context.WithCancel(context.Background())
	st := &ingestState{tick: make(chan struct{}, 1)}
	k.ingest, k.ingestCancel, k.progress, k.stopping = st, cancel, kb.Progress{Current: path}, false
	work := func() tea.Msg {
		progress := func(p kb.Progress) {
			st.mu.Lock()
			st.latest = p
			st.mu.Unlock()
			select {
			case st.tick <- struct{}{}:
			default:
			}
		}
		rep, err := k.be.Ingest(ctx, nil, service.IngestOptions{Paths: []string{path}, Collection: "general", Progress: progress})
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

// ingestView draws an ingest's progress on two lines that fit the tab's width: the bar with
// the files done of all, the rate and the time left (once the ingest has measured them); under
// it the chunks stored, the file in hand and how to cancel.
func (k *Model) ingestView() string {
	p := k.progress
	const label = "ingest     "
	words := "reading the files to ingest…" // until the folder is walked and the first progress comes
	if p.Files > 0 {
		words = service.IngestProgressWords(p.FilesDone, p.Files, p.Rate, p.Remaining)
	}
	if k.stopping { // the pace no longer holds
		words = "stopping"
		if p.Files > 0 {
			words = service.IngestProgressWords(p.FilesDone, p.Files, 0, 0) + " · stopping"
		}
	}
	// The bar's width is set by the longest words this ingest may show, so that it does not
	// jump as the rate and the time left come and change.
	longest := max(ansi.StringWidth(words), ansi.StringWidth(service.IngestProgressWords(p.Files-1, p.Files, 999, 59*time.Minute)))
	w := min(max(k.width-len(label)-2-longest, 10), 40)
	filled := 0
	if p.Files > 0 {
		filled = min(w, w*p.FilesDone/p.Files)
	}
	bar := label + k.st.BarFull.Render(strings.Repeat("█", filled)) + k.st.BarEmpty.Render(strings.Repeat("░", w-filled)) + "  " + words
	chunks := strings.Repeat(" ", len(label)) + service.Count(p.Chunks) + " chunks · "
	cancel := "esc cancels, keeping what is stored"
	if k.stopping {
		cancel = "saving what is done, then it stops"
	}
	// The file's name gets what is left, so that the way out stays on screen.
	if room := k.width - ansi.StringWidth(chunks+cancel) - 3; p.Current != "" && room >= 8 {
		chunks += component.Truncate(component.SafeLine(filepath.Base(p.Current)), room) + " · "
	}
	return component.Truncate(bar, k.width) + "\n" + component.Truncate(k.st.Subtle.Render(chunks+cancel), k.width)
}

// View draws the current view: documents, chunks, results or a passage.
func (k *Model) View() string {
	var b strings.Builder
	if k.inputFor != "" {
		b.WriteString(fmt.Sprintf("%-10s %s\n", map[string]string{"search": "Search:", "ingest": "Ingest:"}[k.inputFor], k.input.View()))
	} else {
		b.WriteString(k.st.Subtle.Render(fmt.Sprintf("/ search (mode %s, m switches) · i ingest a path · enter browse chunks", searchModes[k.mode])) + "\n")
	}
	if k.ingest != nil {
		b.WriteString(k.ingestView() + "\n")
	}
	// The embedder is said once when every collection shares it: five repeats of it took
	// three lines of an 80x24 screen.
	shared := len(k.cols) > 0
	for _, c := range k.cols {
		shared = shared && c.Embedder == k.cols[0].Embedder
	}
	var cols []string
	for _, c := range k.cols {
		if shared {
			cols = append(cols, fmt.Sprintf("%s (%d docs, %d chunks)", component.SafeLine(c.Name), c.Documents, c.Chunks))
			continue
		}
		cols = append(cols, fmt.Sprintf("%s (%d docs, %d chunks, %s)", component.SafeLine(c.Name), c.Documents, c.Chunks, component.SafeLine(embedderWords(c.Embedder))))
	}
	switch {
	case len(cols) == 0:
		b.WriteString(k.st.Subtle.Render("The knowledge base is empty: press i to ingest a file or folder.") + "\n")
	case shared:
		b.WriteString(component.Wrap(k.st.Subtle.Render("Collections, each "+component.SafeLine(sharedEmbedderWords(k.cols[0].Embedder))+": "+strings.Join(cols, " · ")), k.width) + "\n")
	default:
		b.WriteString(component.Wrap(k.st.Subtle.Render("Collections: "+strings.Join(cols, " · ")), k.width) + "\n")
	}
	room := max(k.height-component.LineCount(b.String())-1, 1)
	switch k.showing {
	case "docs":
		// Columns as wide as their longest entry, up to a share of the width; a longer id is
		// cut at its start (the file name is at its end) and the selected one is shown whole
		// under the title.
		idW, colW := 8, 10
		for _, d := range k.docs {
			idW, colW = max(idW, ansi.StringWidth(component.SafeLine(d.ID))), max(colW, ansi.StringWidth(component.SafeLine(d.Collection)))
		}
		idW, colW = min(idW, max(k.width/2-2, 20)), min(colW, 16)
		head := k.st.Title.Render("Documents")
		if k.docCur < len(k.docs) {
			if id := component.SafeLine(k.docs[k.docCur].ID); ansi.StringWidth(id) > idW {
				head = component.Wrap(head+k.st.Subtle.Render("  selected: "+id), k.width)
			}
		}
		b.WriteString(head + "\n")
		room = max(room-component.LineCount(head)+1, 1)
		b.WriteString(component.ListWindow(len(k.docs), k.docCur, room, func(i int) string {
			d := k.docs[i]
			return fmt.Sprintf("%s %s %4d chunks  %s", component.Pad(cutStart(component.SafeLine(d.ID), idW), idW),
				component.Pad(component.Truncate(component.SafeLine(d.Collection), colW), colW), d.Chunks, component.SafeLine(d.Title))
		}, k.st, k.width))
	case "chunks":
		b.WriteString(component.Wrap(k.st.Title.Render("Chunks of "+component.SafeLine(k.chunkOf))+k.st.Subtle.Render("  esc: back to documents"), k.width) + "\n")
		if k.chunkAt < len(k.chunks) {
			c := k.chunks[k.chunkAt]
			where := component.OrNone(c.SectionPath)
			if page := c.PageRef().Label(); page != "" {
				where += ", " + page
			}
			b.WriteString(fmt.Sprintf("%d/%d  %s — %s\n", k.chunkAt+1, len(k.chunks), where, component.SafeLine(c.Heading)))
			b.WriteString(component.Wrap(component.Safe(c.Text), min(k.width, 110)))
		}
	case "results":
		b.WriteString(k.st.Title.Render(fmt.Sprintf("Results for “%s”", component.SafeLine(k.query))) + k.st.Subtle.Render(fmt.Sprintf("  %s · esc: back", searchModes[k.mode])) + "\n")
		if len(k.results) == 0 {
			b.WriteString(k.st.Subtle.Render("No matching passages."))
		}
		b.WriteString(component.ListWindow(len(k.results), k.resCur, room, func(i int) string {
			r := k.results[i]
			where := k.title(r.Doc) + component.PlaceSuffix(r.Section, r.PageRef())
			if r.Heading != "" {
				where += " — " + r.Heading
			}
			return fmt.Sprintf("%.3f  %s  %s", r.Score, component.OneLine(where), k.st.Subtle.Render(component.OneLine(r.Text)))
		}, k.st, k.width))
	case "passage":
		if k.resCur < len(k.results) {
			r := k.results[k.resCur]
			b.WriteString(k.st.Title.Render(component.OneLine(k.title(r.Doc)+" "+r.Place()+" — "+r.Heading)) + "\n")
			// Wrapped: the document id and the section path are where the passage is.
			b.WriteString(component.Wrap(k.st.Subtle.Render(fmt.Sprintf("score %.3f · %s · collection %s · %s", r.Score, component.SafeLine(r.Doc), component.SafeLine(r.Collection), component.OrNone(r.SectionPath))), k.width) + "\n\n")
			b.WriteString(component.Wrap(component.Safe(r.Text), min(k.width, 110)))
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// Keys lists the keys of the current view; a key that cannot be used now says why.
func (k *Model) Keys() component.KeyMap {
	short := []key.Binding{component.Bind("/", "search"), component.Bind("enter", "chunks"), component.Bind("i", "ingest"), component.Bind("m", "search mode"), component.Bind("esc", "back / cancel ingest")}
	switch k.showing {
	case "results":
		short = []key.Binding{component.Bind("enter", "open passage"), component.Bind("↑/↓", "move", "up", "down"), component.Bind("/", "search"), component.Bind("m", "mode"), component.Bind("esc", "back")}
	case "passage", "chunks":
		short = []key.Binding{component.Bind("esc", "back"), component.Bind("c", "copy with source"), component.Bind("/", "search"), component.Bind("↑/↓", "move", "up", "down")}
	}
	if k.ingest != nil {
		if !k.stopping { // esc again changes nothing: it is stopping
			short = append([]key.Binding{component.Bind("esc", "cancel the ingest")}, short...)
		}
		for i := range short {
			if short[i].Help().Key == "i" {
				short[i] = component.Disabled("i", "ingest (one is running)")
			}
		}
	}
	if k.inputFor != "" {
		short = []key.Binding{component.Bind("enter", "go"), component.Bind("esc", "cancel")}
	}
	return component.KeyMap{Short: short, Full: [][]key.Binding{short}}
}

// The focus, quit and status contract (see component.Panel).

// Field reports a field with the keyboard while search or ingest is typed.
func (k *Model) Field() component.FieldState {
	if k.inputFor != "" {
		return component.FieldActive
	}
	return component.NoField
}

// FocusField does nothing: a field has the keyboard whenever it is open.
func (k *Model) FocusField() tea.Cmd { return nil }

// Screen names the view and the open field.
func (k *Model) Screen() string { return k.showing + "/" + k.inputFor }

// Pending names a running ingest and an unsent field.
func (k *Model) Pending() []string {
	var out []string
	if k.ingesting() && !k.served {
		out = append(out, "an ingest is running (it stops after the documents in hand, keeping what is done; the same ingest again goes on)")
	}
	if k.inputFor != "" && k.input.Value() != "" {
		out = append(out, fmt.Sprintf("the %s field holds “%s”", k.inputFor, k.input.Value()))
	}
	return out
}

// cutStart shortens s to w cells by cutting its start: a document id keeps its file name.
func cutStart(s string, w int) string {
	if ansi.StringWidth(s) <= w {
		return s
	}
	r := []rune(s)
	for len(r) > 0 && ansi.StringWidth(string(r))+1 > w {
		r = r[1:]
	}
	return "…" + string(r)
}

// embedderWords says what embedded a collection: the built-in embedder or a model, never the
// embedder's id (builtin:hash-v1:512).
// sharedEmbedderWords says the embedder of every collection after "each": "with the built-in
// embedder (offline)", "embedded with nomic-embed-text".
func sharedEmbedderWords(id string) string {
	if w := embedderWords(id); strings.HasPrefix(w, "embedded with ") {
		return w
	}
	if id == (kb.Builtin{}).ID() {
		return "with the built-in embedder (offline)"
	}
	return "with " + embedderWords(id)
}

func embedderWords(id string) string {
	if id == (kb.Builtin{}).ID() {
		return "built-in embedder (offline)"
	}
	if strings.HasPrefix(id, "ollama:") {
		return "embedded with " + kb.EmbedderName(id)
	}
	return kb.EmbedderName(id)
}
