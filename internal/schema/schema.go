// Package schema composes the workspace database's schema: every package that keeps tables in
// warren.db exports its steps, and this is the one place that lists them. Whoever opens a
// workspace passes All to kb.Init, kb.Open or kb.OpenDB.
//
// kb cannot compose the list itself (the packages with tables import kb), and the packages
// below must not import this one: tests inside kb, agent, gas, tox and service
// compose the part of the list they need.
package schema

import (
	"slices"

	"warren/agent"
	"warren/gas"
	"warren/kb"
	"warren/kb/kbcopy"
	"warren/service/audit"
	"warren/service/grants"
	"warren/service/jobs"
	"warren/tox"
)

// All returns every schema step of warren.db, in ascending version order: the knowledge base
// (1–9), runs, checkpoints and the call ledger (10–19), gas tables (20–29), toxicology
// versions (30–39), jobs (40–49), knowledge base copies (50–59), the audit trail (60–69) and
// the access grants (70–79). The slice is the caller's own.
func All() []kb.Migration {
	return slices.Concat(kb.Migrations, agent.Migrations, gas.Migrations, tox.Migrations, jobs.Migrations, kbcopy.Migrations, audit.Migrations, grants.Migrations)
}
