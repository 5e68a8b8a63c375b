package service

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"warren/service/audit"
)

// ErrAuditAdminsOnly refuses the audit trail to a served analyst who is not an admin: the trail
// names what every analyst searched for.
var ErrAuditAdminsOnly = errors.New("only an admin may read the audit trail")

// Audit is the audit trail of this view: what it records names this view's analyst.
type Audit struct{ s *Service }

// Audit is the audit desk of this view.
func (s *Service) Audit() *Audit { return &Audit{s: s} }

func (s *Service) auditStore() *audit.Store { return &audit.Store{DB: s.ws.DB} }

// Record appends e to the trail in this view's analyst's name (unless e names one). It never
// fails the action it records: a failed write goes to the log at error level, with the entry,
// so that serve.log holds what the table could not. No action is refused for want of its
// entry: the trail lives in the same warren.db the action wrote, so a write that fails there
// has already failed the action, or will be noticed in the log.
func (a *Audit) Record(ctx context.Context, e audit.Entry) {
	if e.Analyst == "" {
		e.Analyst = a.s.Owner
	}
	if e.Analyst == "" {
		e.Analyst = "(unknown)"
	}
	// The action happened even when its caller's context was cancelled just after.
	if _, err := a.s.auditStore().Record(context.WithoutCancel(ctx), e); err != nil {
		a.s.log.Error("couldn't record an audit entry", "analyst", e.Analyst, "action", e.Action,
			"target", e.Target, "outcome", e.Outcome, "error", err)
	}
}

// List returns the entries f selects, oldest first. A served view refuses analysts who are
// not admins; outside `warren serve` the account owns the workspace and may read it.
func (a *Audit) List(ctx context.Context, f audit.Filter) ([]audit.Entry, error) {
	if !a.s.isAdmin() {
		return nil, ErrAuditAdminsOnly
	}
	return a.s.auditStore().List(ctx, f)
}

// auditQuery is a search or research question as audit.keep_queries keeps it.
func (s *Service) auditQuery(q string) string {
	if s.ws.Config.Audit.KeepQueries == "hash" {
		return audit.HashQuery(q)
	}
	return q
}

// auditDetail is v as the JSON an entry's detail holds.
func auditDetail(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

// auditOutcome is an action's outcome in the trail's words.
func auditOutcome(err error) string {
	if errors.Is(err, ErrNoAccess) {
		return audit.Refused
	}
	if err != nil {
		return audit.Failed
	}
	return audit.OK
}

// record appends an entry for an action of this view's analyst that ended with err; the
// error, when there is one, joins the detail.
func (s *Service) record(ctx context.Context, action, target string, detail map[string]any, err error) {
	if err != nil {
		if detail == nil {
			detail = map[string]any{}
		}
		detail["error"] = err.Error()
	}
	d := ""
	if len(detail) > 0 {
		d = auditDetail(detail)
	}
	s.Audit().Record(ctx, audit.Entry{Action: action, Target: target, Detail: d, Outcome: auditOutcome(err)})
}

// RecordLogin records an analyst's connection to `warren serve`.
func (a *Audit) RecordLogin(ctx context.Context, analyst, from, key string) {
	a.Record(ctx, audit.Entry{Analyst: analyst, Action: audit.ActionLogin, Target: from,
		Detail: auditDetail(map[string]string{"key": key}), Outcome: audit.OK})
}

// RecordRefusal records a connection or key that was refused, and why; analyst is whoever the
// key or user named ("" when nobody: the entry then names the SSH user).
func (a *Audit) RecordRefusal(ctx context.Context, analyst, user, from, what, why string) {
	if analyst == "" {
		analyst = "ssh:" + user
	}
	a.Record(ctx, audit.Entry{Analyst: analyst, Action: audit.ActionRefused, Target: from,
		Detail: auditDetail(map[string]string{"what": what, "why": why, "user": user}), Outcome: audit.Refused})
}

// ParseSince reads --since: a duration back from now ("24h", "7d") or a date or time
// ("2026-11-01", RFC 3339).
func ParseSince(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	if n, ok := strings.CutSuffix(s, "d"); ok {
		if d, err := time.ParseDuration(n + "h"); err == nil && d >= 0 {
			return now.Add(-24 * d), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	if t, err := time.ParseInLocation("2006-01-02", s, time.Local); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	return time.Time{}, errors.New("allowed is a duration back from now (24h, 7d), a date (2026-11-01) or an RFC 3339 time")
}
