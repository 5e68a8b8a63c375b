// Package tui is the Bubble Tea workbench: the root model, which routes messages to the panels,
// owns focus and quitting, and draws the frame around them. The panels live in packages of
// their own (research, knowledge, gas, tox, logview, and admin, the admins' view) behind
// component.Panel. The workbench reaches the rest of warren only through its Desks, and only
// inside commands: Update never does I/O.
package tui

import (
	"context"

	"warren/doctor"
	"warren/service"
	"warren/tui/admin"
	gaspanel "warren/tui/gas"
	"warren/tui/knowledge"
	researchpanel "warren/tui/research"
	toxpanel "warren/tui/tox"
)

// Desks are the desks of warren's service the workbench works on. Each field's type is what
// the panels that use the desk declare of it, so that tests fill it with fakes; DesksOf gives
// a service's own.
type Desks struct {
	Research  researchpanel.Desk
	Knowledge Knowledge
	Gas       gaspanel.Desk
	Tox       toxpanel.Service
	Jobs      Jobs
	Team      Team
	Session   Session
	// Access and Audit are the admin view's (ctrl+g), which only admins reach; nil leaves the
	// view out.
	Access admin.Access
	Audit  admin.Trail
}

// Knowledge is the knowledge desk as the Knowledge tab and the Research tab (cited passages)
// use it.
type Knowledge interface {
	knowledge.Service
	researchpanel.Passages
}

// Jobs is the jobs desk as the Research and Gas tabs use it.
type Jobs interface {
	researchpanel.Jobs
	gaspanel.Jobs
}

// Team is the other analysts' work as the root model shows it.
type Team interface {
	// Changes delivers the gas cell decisions and toxicology versions that other analysts (other
	// workbenches) make, until ctx ends; the workbench's own are not delivered. It never blocks
	// the analyst who made them: a reader that falls behind loses the oldest.
	Changes(ctx context.Context) <-chan service.Change
}

// Session is the open workspace and who the workbench acts for.
type Session interface {
	researchpanel.Session
	Workspace() string
	Doctor(ctx context.Context) doctor.Report
	// IsAdmin reports whether the analyst may manage access and read the audit trail (an admin
	// of warren serve, or the account outside it).
	IsAdmin() bool
}

// DesksOf is the desks of a service (a view of it, for an analyst of warren serve).
func DesksOf(s *service.Service) Desks {
	return Desks{Research: s.Research(), Knowledge: s.Knowledge(), Gas: s.Gas(), Tox: s.Tox(),
		Jobs: s.Jobs(), Team: s.Team(), Session: s, Access: s.Access(), Audit: s.Audit()}
}

// The panels that use more than one desk get them together.
type (
	researchDesks struct {
		researchpanel.Desk
		researchpanel.Jobs
		researchpanel.Passages
		researchpanel.Session
	}
	gasDesks struct {
		gaspanel.Desk
		gaspanel.Jobs
	}
)
