// Package tui is the Bubble Tea workbench: the root model, which routes messages to the panels,
// owns focus and quitting, and draws the frame around them. The panels live in packages of
// their own (research, knowledge, gas, tox, logview) behind component.Panel. The workbench
// reaches the rest of warren only through Backend, and only inside commands: Update never
// does I/O.
package tui

import (
	"context"

	"warren/config"
	"warren/doctor"
	"warren/service"
	gaspanel "warren/tui/gas"
	"warren/tui/knowledge"
	researchpanel "warren/tui/research"
	toxpanel "warren/tui/tox"
)

// Backend is what the workbench needs from warren. cmd/warren implements it over a workspace;
// tests implement it over llmtest.
type Backend interface {
	// Each desk's panel declares the part of the service it uses.
	knowledge.Service
	gaspanel.Service
	toxpanel.Service
	researchpanel.Service

	Workspace() string
	Budgets() config.Budgets
	Doctor(ctx context.Context) doctor.Report

	// Analyst names who the workbench acts for (and whether they are an admin).
	Analyst() (name string, admin bool)

	// Changes delivers the gas cell decisions and toxicology versions that other analysts (other
	// workbenches) make, until ctx ends; the workbench's own are not delivered. It never blocks
	// the analyst who made them: a reader that falls behind loses the oldest.
	Changes(ctx context.Context) <-chan service.Change
}

// GasQueryResult is the outcome of a gas-table query.
type GasQueryResult = service.GasQueryResult
