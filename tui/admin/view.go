package admin

import (
	"fmt"
	"strings"

	"warren/service/grants"
	"warren/tui/component"
)

// Every name, target and detail below comes from the store: it goes through component.SafeLine
// or OneLine before it is drawn, as the other panels' outside text does.

// View draws the current view.
func (m *Model) View() string {
	switch m.view {
	case viewForm:
		return m.formView()
	case viewTrail:
		return m.trailView()
	}
	return m.grantsView()
}

// Column widths of the grants table; the rest of the line is left blank.
const (
	analystW    = 12
	collectionW = 18
	levelW      = 6
	byW         = 12
)

func (m *Model) grantsView() string {
	var b strings.Builder
	n := len(m.list.Grants)
	b.WriteString(component.Truncate(m.st.Title.Render("Access to collections")+m.st.Subtle.Render(fmt.Sprintf("  %d grant(s) · t audit trail", n)), m.width) + "\n")
	if m.view == viewConfirm {
		g := m.confirm
		q := fmt.Sprintf("Revoke %s's %s on %s? Then the default applies to them (%s).", component.SafeLine(g.Analyst),
			component.SafeLine(string(g.Level)), component.SafeLine(g.Collection), component.SafeLine(string(m.list.Default)))
		b.WriteString(component.Wrap(m.st.StatusError.Render(q), m.width) + "\n")
		b.WriteString(m.st.Key.Render("y") + " revokes · any other key keeps it\n")
	} else {
		def := "…"
		if m.loaded {
			def = component.SafeLine(string(m.list.Default))
		}
		b.WriteString(component.Wrap(m.st.Subtle.Render("Without a grant an analyst may "+levelWords(m.list.Default)+
			" a collection (the default level: "+def+"); admins may write everywhere."), m.width) + "\n")
	}
	b.WriteString("\n")
	switch {
	case m.loadErr != "":
		b.WriteString(m.st.Subtle.Render(component.Wrap("The grants could not be read: "+component.OneLine(m.loadErr), m.width)))
		return b.String()
	case !m.loaded:
		b.WriteString(m.st.Subtle.Render("reading the grants…"))
		return b.String()
	case n == 0:
		b.WriteString(component.Wrap(m.st.Subtle.Render("No grants yet: g grants an analyst a level on a collection."), m.width))
		return b.String()
	}
	head := "  " + component.Pad("ANALYST", analystW) + " " + component.Pad("COLLECTION", collectionW) + " " +
		component.Pad("LEVEL", levelW) + " " + component.Pad("GRANTED BY", byW) + " WHEN"
	b.WriteString(m.st.Subtle.Render(component.Truncate(head, m.width)) + "\n")
	room := max(m.height-component.LineCount(b.String()), 1)
	b.WriteString(component.ListWindow(n, m.cur, room, func(i int) string {
		g := m.list.Grants[i]
		return component.Pad(component.SafeLine(g.Analyst), analystW) + " " + component.Pad(component.SafeLine(g.Collection), collectionW) + " " +
			component.Pad(component.SafeLine(string(g.Level)), levelW) + " " + component.Pad(component.SafeLine(g.GrantedBy), byW) + " " +
			g.At.In(m.loc).Format("2006-01-02 15:04")
	}, m.st, m.width))
	return b.String()
}

// levelWords says what a level lets an analyst do with a collection.
func levelWords(l grants.Level) string {
	switch l {
	case grants.Read:
		return "read"
	case grants.Write:
		return "read and ingest into"
	case grants.None:
		return "neither read nor ingest into"
	}
	return "…"
}

func (m *Model) formView() string {
	var b strings.Builder
	title := "Grant access to a collection"
	if m.changing {
		title = "Change a grant"
	}
	if m.granting {
		title += m.st.Subtle.Render("  granting…")
	}
	b.WriteString(m.st.Title.Render(title) + "\n\n")
	row := func(i int, label, value, hint string) {
		mark := "  "
		if m.row == i {
			mark = m.st.Selected.Render("▸ ")
		}
		line := mark + component.Pad(label, 12) + value
		if hint != "" {
			line += "  " + m.st.Subtle.Render(hint)
		}
		b.WriteString(component.Truncate(line, m.width) + "\n")
	}
	row(rowAnalyst, "Analyst", m.analyst.View(), "")
	// The collection may be typed (a grant ahead of its first ingest) or picked with ←/→.
	coll := m.collInput.View()
	if m.row != rowCollection {
		coll = component.SafeLine(m.collInput.Value())
	}
	row(rowCollection, "Collection", coll, "")
	row(rowLevel, "Level", "‹ "+string(m.level)+" ›", "")
	b.WriteString("\n")
	switch m.row {
	case rowAnalyst:
		b.WriteString(component.Wrap(m.st.Subtle.Render("The analyst's name, as `warren users list` shows it; enter goes on to the collection."), m.width))
	case rowCollection:
		offer := "none is ingested yet: type its name"
		if len(m.collection) > 0 {
			safe := make([]string, len(m.collection))
			for i, c := range m.collection {
				safe[i] = component.SafeLine(c)
			}
			offer = "←/→ picks one of " + strings.Join(safe, ", ") + "; or type a collection not ingested yet"
		}
		b.WriteString(component.Wrap(m.st.Subtle.Render(offer+"; enter goes on to the level."), m.width))
	case rowLevel:
		b.WriteString(component.Wrap(m.st.Subtle.Render("←/→ or n, r, w: none (no access), read (search it, research in it, open its documents), "+
			"write (read, and ingest into it or remove its documents). Enter grants."), m.width))
	}
	return b.String()
}

// trailRows is how many entries the trail shows at once.
func (m *Model) trailRows() int { return max(m.height-6, 1) }

func (m *Model) trailView() string {
	var b strings.Builder
	if m.filterFor != "" {
		label := map[string]string{"analyst": "Analyst:", "since": "Since:"}[m.filterFor]
		b.WriteString(component.Truncate(fmt.Sprintf("%-9s %s", label, m.filter.View()), m.width) + "\n")
	} else {
		who, since := "everyone", "all time"
		if m.byAnalyst != "" {
			who = "analyst " + component.SafeLine(m.byAnalyst)
		}
		if m.sinceArg != "" {
			since = "since " + component.SafeLine(m.sinceArg)
		}
		count := fmt.Sprintf("%d entries", len(m.entries))
		if len(m.entries) >= trailLimit {
			count = fmt.Sprintf("the latest %d entries (e exports them all)", trailLimit)
		}
		b.WriteString(component.Truncate(m.st.Title.Render("Audit trail")+m.st.Subtle.Render(fmt.Sprintf("  newest first · %s · %s · %s", who, since, count)), m.width) + "\n")
	}
	switch {
	case m.trailErr != "":
		b.WriteString(m.st.Subtle.Render(component.Wrap("The trail could not be read: "+component.OneLine(m.trailErr), m.width)))
		return b.String()
	case !m.trailLoaded:
		b.WriteString(m.st.Subtle.Render("reading the trail…"))
		return b.String()
	case len(m.entries) == 0:
		b.WriteString(component.Wrap(m.st.Subtle.Render("No entries match: a changes the analyst, s the time."), m.width))
		return b.String()
	}
	// Wide screens show the year; at 80 columns the target and detail need the room.
	timeFmt, timeW := "01-02 15:04:05", 14
	if m.width >= 110 {
		timeFmt, timeW = "2006-01-02 15:04:05", 19
	}
	const whoW, actionW, outcomeW = 10, 8, 7
	targetW := min(max((m.width-timeW-whoW-actionW-outcomeW-8)/2, 12), 40)
	cols := func(at, who, action, target, outcome, detail string) string {
		return component.Pad(at, timeW) + " " + component.Pad(who, whoW) + " " + component.Pad(action, actionW) + " " +
			component.Pad(target, targetW) + " " + component.Pad(outcome, outcomeW) + " " + detail
	}
	b.WriteString(m.st.Subtle.Render(component.Truncate("  "+cols("TIME", "ANALYST", "ACTION", "TARGET", "OUTCOME", "DETAIL"), m.width)) + "\n")
	b.WriteString(component.ListWindow(len(m.entries), m.trailCur, m.trailRows(), func(i int) string {
		e := m.entries[i]
		return cols(e.At.In(m.loc).Format(timeFmt), component.SafeLine(e.Analyst), component.SafeLine(e.Action), component.OneLine(e.Target),
			component.SafeLine(e.Outcome), component.OneLine(e.Detail))
	}, m.st, m.width))
	// The selected entry whole: its target and detail are cut in the table.
	if m.trailCur < len(m.entries) {
		e := m.entries[m.trailCur]
		whole := fmt.Sprintf("#%d · %s · %s · %s · %s · %s %s", e.Seq, e.At.In(m.loc).Format("2006-01-02 15:04:05"), component.SafeLine(e.Analyst),
			component.SafeLine(e.Action), component.OneLine(e.Target), component.SafeLine(e.Outcome), component.OneLine(e.Detail))
		lines := strings.Split(component.Wrap(whole, m.width), "\n")
		if len(lines) > 2 {
			lines = append(lines[:2], "…")
		}
		b.WriteString("\n\n" + m.st.Subtle.Render(strings.Join(lines, "\n")))
	}
	return b.String()
}
