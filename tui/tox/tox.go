// Package tox is the Toxicology tab: the diff desk of the toxicology profiles, where edits are
// proposed as JSON Patch diffs and saved as a new version only when the analyst approves.
package tox

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/textarea"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"warren/service"
	"warren/tox"
	"warren/tui/component"
	"warren/tui/styles"
)

// toxView is what the Toxicology tab shows.
type toxView int

const (
	toxBrowse   toxView = iota // the ingredient list and the profile
	toxProposal                // a proposal waiting for approve, reject, edit or comment
	toxHistory                 // a profile's versions
	toxVersions                // the diff between two versions
	toxConfirm                 // a rollback waiting for y/n, with its diff
)

// toxInput says which text field has the keyboard.
type toxInput int

const (
	toxNoInput     toxInput = iota
	toxFilter               // `/` filters the list by name
	toxInstruction          // an instruction in words, a JSON payload or a JSON Patch
	toxOps                  // the proposal's operations as JSON
	toxComment              // the summary of the version to save
)

// Messages of the Toxicology tab.
type (
	toxListMsg struct {
		profiles []tox.ProfileInfo
		err      error
	}
	toxProfileMsg struct {
		seq int
		pv  tox.ProfileVersion
		err error
	}
	toxProposedMsg struct {
		seq int
		p   *service.ToxProposal
		err error
	}
	toxSavedMsg struct {
		inci     string
		version  int
		rollback int // the version rolled back to; 0 for an approval
		err      error
	}
	toxHistoryMsg struct {
		inci     string
		versions []tox.VersionInfo
		err      error
	}
	toxDiffMsg struct {
		title         string
		before, after []byte
		confirm       int // a rollback to this version waits for y/n
		err           error
	}
)

// Model is the diff desk of the toxicology profiles: the ingredient list, the profile, and
// edits proposed as JSON Patch diffs that are saved as a new version only when approved.
type Model struct {
	be            Service
	st            *styles.Styles
	width, height int
	loc           *time.Location // where times are shown

	profiles []tox.ProfileInfo
	shown    []int // indices into profiles after the filter
	cur      int   // index into shown
	listOff  int
	filter   string
	want     string // the profile to select when the list arrives
	loaded   bool
	loading  bool
	onProf   bool // the profile pane has the keys (it scrolls)

	profile    *tox.ProfileVersion
	profileErr string
	profSeq    int
	scroll     int // of the profile, the proposal, the history diff or the confirmation

	view     toxView
	input    toxInput
	text     textarea.Model  // instruction and operations
	line     textinput.Model // filter and comment
	inputErr string

	drafts        map[string]string // instructions left with esc, by profile key
	proposal      *service.ToxProposal
	comment       string
	proposeSeq    int
	proposeCancel context.CancelFunc
	saving        bool

	history  []tox.VersionInfo
	hcur     int
	marked   []int // versions selected with space, at most two
	diffText string
	diffA    []byte
	diffB    []byte
	confirm  int // the version a rollback goes back to
	// confirmSeen is the latest version when the rollback was asked for: it is refused if
	// another analyst saves one meanwhile.
	confirmSeen int

	waiting toxWaitingList // proposals made on the CLI or by a batch
}

// New is the desk over be, drawn with st.
func New(be Service, st *styles.Styles) *Model {
	ta := textarea.New()
	ta.ShowLineNumbers = false
	ta.Prompt = "│ "
	tst := ta.Styles()
	tst.Cursor.Blink = false // a steady cursor: no redraw every half second over SSH
	ta.SetStyles(tst)
	in := textinput.New()
	in.Prompt = ""
	ist := in.Styles()
	ist.Cursor.Blink = false
	in.SetStyles(ist)
	return &Model{be: be, st: st, loc: time.Local, text: ta, line: in, drafts: map[string]string{}}
}

func (x *Model) SetSize(w, h int) {
	x.width, x.height = w, h
	x.text.SetWidth(max(w-2, 20))
	x.text.SetHeight(max(min(h-6, 14), 3))
	x.line.SetWidth(max(w-20, 20))
}

// running reports a proposal being made.
func (x *Model) running() bool { return x.proposeCancel != nil }

func (x *Model) cancelPropose() {
	if x.proposeCancel != nil {
		x.proposeCancel()
		x.proposeCancel = nil
	}
	x.proposeSeq++ // a late answer is dropped
}

// Load reads the ingredient list and the waiting proposals.
func (x *Model) Load() tea.Cmd {
	x.loading = true
	be := x.be
	return tea.Batch(func() tea.Msg {
		ps, err := be.Profiles(context.Background())
		return toxListMsg{profiles: ps, err: err}
	}, loadWaiting(be))
}

// loadProfile reads the latest version of the selected profile.
func (x *Model) loadProfile() tea.Cmd {
	inci := x.selected()
	if inci == "" {
		x.profile = nil
		return nil
	}
	x.profSeq++
	seq, be := x.profSeq, x.be
	return func() tea.Msg {
		pv, err := be.Profile(context.Background(), inci, 0)
		return toxProfileMsg{seq: seq, pv: pv, err: err}
	}
}

// selected is the INCI name under the cursor, "" without one.
func (x *Model) selected() string {
	if x.cur < 0 || x.cur >= len(x.shown) {
		return ""
	}
	return x.profiles[x.shown[x.cur]].INCI
}

func (x *Model) refilter() {
	keep := x.selected()
	x.shown = x.shown[:0]
	f := strings.ToLower(strings.TrimSpace(x.filter))
	for i, p := range x.profiles {
		if f == "" || strings.Contains(strings.ToLower(p.INCI), f) || strings.Contains(p.CAS, f) {
			x.shown = append(x.shown, i)
		}
	}
	x.cur = 0
	for j, i := range x.shown {
		if x.profiles[i].INCI == keep {
			x.cur = j
		}
	}
}

func (x *Model) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case toxListMsg:
		x.loading, x.loaded = false, true
		if msg.err != nil {
			return component.SetStatus(msg.err.Error(), true)
		}
		before := x.selected()
		x.profiles = msg.profiles
		x.refilter()
		if x.want != "" {
			x.selectINCI(x.want)
			x.want = ""
		}
		if x.selected() != before || x.profile == nil {
			x.scroll = 0
		}
		return x.loadProfile()
	case toxProfileMsg:
		if msg.seq != x.profSeq {
			return nil
		}
		if msg.err != nil {
			x.profile, x.profileErr = nil, msg.err.Error()
			return nil
		}
		x.profile, x.profileErr = &msg.pv, ""
		return nil
	case toxProposedMsg:
		return x.proposed(msg)
	case toxSavedMsg:
		return x.saved(msg)
	case toxWaitingMsg:
		return x.waitingLoaded(msg)
	case toxWaitingOpenMsg:
		return x.waitingOpened(msg)
	case toxHistoryMsg:
		if msg.err != nil {
			return component.SetStatus(msg.err.Error(), true)
		}
		if msg.inci != x.selected() {
			return nil
		}
		x.history, x.marked = msg.versions, nil
		x.hcur = min(x.hcur, max(len(x.history)-1, 0))
		return nil
	case toxDiffMsg:
		if msg.err != nil {
			return component.SetStatus(msg.err.Error(), true)
		}
		x.diffText, x.diffA, x.diffB, x.scroll = msg.title, msg.before, msg.after, 0
		x.view = toxVersions
		if msg.confirm > 0 {
			x.view, x.confirm = toxConfirm, msg.confirm
		}
		return nil
	case tea.KeyPressMsg:
		return x.key(msg)
	case tea.PasteMsg:
		return x.paste(msg)
	}
	return nil
}

// paste puts pasted text into the field that has the keyboard.
func (x *Model) paste(msg tea.PasteMsg) tea.Cmd {
	if x.running() {
		return nil
	}
	var cmd tea.Cmd
	switch x.input {
	case toxInstruction, toxOps:
		x.text, cmd = x.text.Update(msg)
	case toxFilter, toxComment:
		x.line, cmd = x.line.Update(msg)
	}
	return cmd
}

// selectINCI puts the cursor on a profile by name, when it is shown.
func (x *Model) selectINCI(inci string) {
	for j, i := range x.shown {
		if tox.Key(x.profiles[i].INCI) == tox.Key(inci) {
			x.cur = j
		}
	}
}

func (x *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	if x.input != toxNoInput {
		return x.inputKey(msg)
	}
	if x.saving {
		return component.SetStatus("saving the version…", false)
	}
	switch x.view {
	case toxProposal:
		return x.proposalKey(msg.String())
	case toxHistory:
		return x.historyKey(msg.String())
	case toxVersions:
		return x.versionsKey(msg.String())
	case toxConfirm:
		return x.confirmKey(msg.String())
	}
	return x.browseKey(msg.String())
}

func (x *Model) browseKey(k string) tea.Cmd {
	if !x.loaded {
		return nil
	}
	switch k {
	case "up", "k":
		if x.onProf {
			x.scroll = max(x.scroll-1, 0)
			return nil
		}
		return x.move(-1)
	case "down", "j":
		if x.onProf {
			x.scroll++
			return nil
		}
		return x.move(1)
	case "pgup":
		if x.onProf {
			x.scroll = max(x.scroll-x.height/2, 0)
			return nil
		}
		return x.move(-max(x.height-3, 1))
	case "pgdown":
		if x.onProf {
			x.scroll += x.height / 2
			return nil
		}
		return x.move(max(x.height-3, 1))
	case "g", "home":
		x.scroll = 0
		if !x.onProf {
			return x.move(-len(x.shown))
		}
	case "G", "end":
		if !x.onProf {
			return x.move(len(x.shown))
		}
	case "right", "l":
		if x.profile != nil {
			x.onProf = true
		}
	case "left", "esc":
		if x.onProf {
			x.onProf = false
			return nil
		}
		if k == "esc" && x.filter != "" {
			x.filter = ""
			x.refilter()
			return x.loadProfile()
		}
	case "enter":
		if !x.onProf {
			if x.profile != nil {
				x.onProf = true
			}
			return nil
		}
		return x.openInstruction()
	case "i":
		return x.openInstruction()
	case "/":
		x.input, x.inputErr = toxFilter, ""
		x.line.Placeholder = "part of the INCI name or the CAS number"
		x.line.SetValue(x.filter)
		x.line.CursorEnd()
		return x.line.Focus()
	case "h":
		return x.openHistory()
	case "w":
		return x.openNextWaiting()
	case "r":
		return x.Load()
	}
	return nil
}

func (x *Model) move(d int) tea.Cmd {
	was := x.cur
	x.cur = min(max(x.cur+d, 0), max(len(x.shown)-1, 0))
	if x.cur == was {
		return nil
	}
	x.scroll = 0
	return x.loadProfile()
}

func (x *Model) openInstruction() tea.Cmd {
	if x.profile == nil {
		return component.SetStatus("no profile selected", false)
	}
	if tox.Key(x.profile.INCI) != tox.Key(x.selected()) {
		// The profile under the cursor is still loading: an edit must go to the profile shown.
		return component.SetStatus("loading "+x.selected()+"…", false)
	}
	x.input, x.inputErr = toxInstruction, ""
	x.text.Placeholder = `e.g. Set NOAEL 1 to 200 mg/kg bw/day — or a JSON Patch: [{"op":"replace","path":"/noael/0/value","value":200}]`
	x.text.Reset()
	if d, ok := x.drafts[tox.Key(x.profile.INCI)]; ok {
		x.text.SetValue(d)
		delete(x.drafts, tox.Key(x.profile.INCI))
	}
	return x.text.Focus()
}

func (x *Model) openHistory() tea.Cmd {
	inci := x.selected()
	if inci == "" {
		return component.SetStatus("no profile selected", false)
	}
	x.view, x.hcur, x.marked, x.history = toxHistory, 0, nil, nil
	return x.loadHistory(inci)
}

func (x *Model) loadHistory(inci string) tea.Cmd {
	be := x.be
	return func() tea.Msg {
		vs, err := be.History(context.Background(), inci)
		return toxHistoryMsg{inci: inci, versions: vs, err: err}
	}
}

// inputKey handles the filter, the instruction, the operations editor and the comment.
func (x *Model) inputKey(msg tea.KeyPressMsg) tea.Cmd {
	k := msg.String()
	if x.running() {
		if k == "esc" {
			x.cancelPropose()
			return component.SetStatus("proposal cancelled", false)
		}
		return nil // the text being proposed stays as it is
	}
	switch x.input {
	case toxFilter:
		switch k {
		case "esc", "enter":
			x.input = toxNoInput
			x.line.Blur()
			if k == "esc" {
				// The filter typed so far stays: show the profile now under the cursor, so the
				// profile shown is the one an edit goes to.
				if x.profile == nil || tox.Key(x.profile.INCI) != tox.Key(x.selected()) {
					x.scroll = 0
					return x.loadProfile()
				}
				return nil
			}
			x.filter = strings.TrimSpace(x.line.Value())
			x.refilter()
			return tea.Batch(x.loadProfile(), component.SetStatus(fmt.Sprintf("%d of %d profiles match %q", len(x.shown), len(x.profiles), x.filter), false))
		}
		var cmd tea.Cmd
		x.line, cmd = x.line.Update(msg)
		if x.line.Value() != x.filter { // filter as the analyst types
			x.filter = x.line.Value()
			x.refilter()
		}
		return cmd
	case toxComment:
		switch k {
		case "esc":
			x.input = toxNoInput
			x.line.Blur()
			return nil
		case "enter":
			x.input = toxNoInput
			x.line.Blur()
			x.comment = strings.TrimSpace(x.line.Value())
			if x.comment == "" {
				return component.SetStatus("comment cleared: the proposal's own summary will be saved", false)
			}
			return component.SetStatus("the comment will be the version's summary", false)
		}
		var cmd tea.Cmd
		x.line, cmd = x.line.Update(msg)
		return cmd
	}
	// The instruction and the operations editor.
	text := strings.TrimSpace(x.text.Value())
	submit := k == "ctrl+s"
	if k == "enter" && x.input == toxInstruction && !strings.Contains(x.text.Value(), "\n") && !looksJSON(text) {
		submit = true // an instruction in words is one line: enter sends it
	}
	switch {
	case k == "esc":
		var keep tea.Cmd
		if x.input == toxInstruction && text != "" && x.profile != nil {
			// Leaving the editor keeps what was typed: i brings it back for this profile.
			x.drafts[tox.Key(x.profile.INCI)] = x.text.Value()
			keep = component.SetStatus("instruction kept as a draft: i brings it back", false)
		}
		x.input, x.inputErr = toxNoInput, ""
		x.text.Blur()
		return keep
	case submit:
		if text == "" {
			x.inputErr = "type an instruction or JSON (esc cancels)"
			return nil
		}
		x.inputErr = ""
		return x.propose(text)
	}
	var cmd tea.Cmd
	x.text, cmd = x.text.Update(msg)
	return cmd
}

// looksJSON reports input that starts like a JSON document: enter is a new line in it.
func looksJSON(s string) bool { return strings.HasPrefix(s, "[") || strings.HasPrefix(s, "{") }

// propose asks for a proposal for the selected profile; the text field stays open (and its
// text kept) until the proposal arrives, so an error loses nothing.
func (x *Model) propose(input string) tea.Cmd {
	inci := x.selected()
	if x.input == toxOps && x.proposal != nil {
		inci = x.proposal.INCI
	}
	if inci == "" {
		x.inputErr = "no profile selected"
		return nil
	}
	x.cancelPropose()
	ctx, cancel := context.WithCancel(context.Background())
	x.proposeCancel = cancel
	seq, be := x.proposeSeq, x.be
	return func() tea.Msg {
		p, err := be.Propose(ctx, inci, input)
		cancel()
		return toxProposedMsg{seq: seq, p: p, err: err}
	}
}

func (x *Model) proposed(msg toxProposedMsg) tea.Cmd {
	if msg.seq != x.proposeSeq {
		return nil // cancelled, or replaced by a newer proposal
	}
	x.proposeCancel = nil
	if msg.err != nil {
		if errors.Is(msg.err, context.Canceled) {
			return component.SetStatus("proposal cancelled", false)
		}
		x.inputErr = msg.err.Error()
		return component.SetStatus("no proposal: "+msg.err.Error(), true)
	}
	fromEdit := x.input == toxOps
	x.input, x.inputErr = toxNoInput, ""
	x.text.Blur()
	if !fromEdit {
		x.comment = ""
	}
	var closeOld tea.Cmd
	if old, be := x.proposal, x.be; fromEdit && old != nil && old != msg.p {
		// The edited operations replace the proposal: its run is closed, not left waiting.
		closeOld = func() tea.Msg {
			if err := be.Reject(context.Background(), old, "replaced by edited operations"); err != nil {
				return component.NewStatus("the earlier proposal's run could not be closed: "+err.Error(), true)
			}
			return nil
		}
	}
	x.proposal, x.view, x.scroll = msg.p, toxProposal, 0
	if msg.p.Empty() {
		note := "the input changes nothing"
		if msg.p.Note != "" {
			note = msg.p.Note
		}
		return component.SetStatus("nothing to approve: "+note, false)
	}
	if fromEdit {
		return tea.Batch(closeOld, component.SetStatus("the edited operations were checked and proposed again", false))
	}
	return nil
}
