package service

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"warren/access"
	"warren/kb"
	"warren/service/audit"
	"warren/service/grants"
)

// ErrAccessAdminsOnly refuses the access grants to a served analyst who is not an admin.
var ErrAccessAdminsOnly = errors.New("only an admin may see or change who may read which collection")

// ErrNoAccess is wrapped by every *AccessError; it is kb.ErrNotAccessible, so packages below
// the service (reference resolution) tell a refusal from a failure.
var ErrNoAccess = kb.ErrNotAccessible

// AccessError refuses an analyst a collection: it names the collection and the command an
// admin runs to grant it, so the analyst knows whom to ask for what.
type AccessError struct {
	Analyst    string
	Collection string
	Want       grants.Level // read, or write for an ingest
}

func (e *AccessError) Error() string {
	verb := "read"
	if e.Want == grants.Write {
		verb = "ingest into"
	}
	return fmt.Sprintf("%s may not %s %s; an admin grants it: warren access grant %s %s %s",
		e.Analyst, verb, e.Collection, e.Analyst, e.Collection, e.Want)
}

func (e *AccessError) Unwrap() error { return ErrNoAccess }

// isAdmin says whether this view may manage access and reach every collection: an admin of
// `warren serve`, or anyone outside it (the account owns its workspace).
func (s *Service) isAdmin() bool { return !s.served || s.Admin }

func (s *Service) grantStore() *grants.Store { return &grants.Store{DB: s.ws.DB} }

// defaultAccess is serve.default_access as a level; an unset value keeps today's behaviour.
func (s *Service) defaultAccess() grants.Level {
	l, err := grants.ParseLevel(s.ws.Config.Serve.DefaultAccess)
	if err != nil {
		return grants.Write
	}
	return l
}

// levels returns this view's analyst's level on any collection, read from the grants once:
// a search asks it for every collection in scope.
func (s *Service) levels(ctx context.Context) (func(collection string) grants.Level, error) {
	if s.isAdmin() {
		return func(string) grants.Level { return grants.Write }, nil
	}
	m, err := s.grantStore().Levels(ctx, s.Owner)
	if err != nil {
		return nil, err
	}
	def := s.defaultAccess()
	return func(c string) grants.Level {
		if l, ok := m[c]; ok {
			return l
		}
		return def
	}, nil
}

// require refuses the first of collections on which this view's analyst lacks want, with an
// *AccessError.
func (s *Service) require(ctx context.Context, want grants.Level, collections ...string) error {
	level, err := s.levels(ctx)
	if err != nil {
		return err
	}
	for _, c := range collections {
		if !level(c).Allows(want) {
			return &AccessError{Analyst: s.Owner, Collection: c, Want: want}
		}
	}
	return nil
}

// readable keeps the names this view's analyst may read, in their order; it is the searcher's
// confinement (retrieval.Searcher.Readable).
func (s *Service) readable(ctx context.Context, names []string) ([]string, error) {
	level, err := s.levels(ctx)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(slices.Clone(names), func(c string) bool { return !level(c).Allows(grants.Read) }), nil
}

// Access is the access desk: who may read or ingest into which collection. Only admins use
// it; outside `warren serve` the account is the admin of its own workspace.
type Access struct{ s *Service }

// Access is the access desk of this view.
func (s *Service) Access() *Access { return &Access{s: s} }

// AccessList is every grant (or one analyst's) and the level of everyone else.
type AccessList struct {
	Default grants.Level   `json:"default"`
	Grants  []grants.Grant `json:"grants"`
}

// Level is this view's analyst's level on a collection.
func (ac *Access) Level(ctx context.Context, collection string) (grants.Level, error) {
	level, err := ac.s.levels(ctx)
	if err != nil {
		return "", err
	}
	return level(collection), nil
}

// Grant sets analyst's level on collection (a collection not ingested yet may be granted
// ahead). Every change, and every refused one, is in the audit trail.
func (ac *Access) Grant(ctx context.Context, analyst, collection string, level grants.Level) (g grants.Grant, err error) {
	defer func() {
		ac.record(ctx, "grant", analyst, collection, map[string]any{"level": level}, err)
	}()
	if err := ac.check(analyst, collection); err != nil {
		return grants.Grant{}, err
	}
	if _, err := grants.ParseLevel(string(level)); err != nil {
		return grants.Grant{}, err
	}
	return ac.s.grantStore().Set(ctx, grants.Grant{Analyst: analyst, Collection: collection, Level: level, GrantedBy: ac.s.Owner})
}

// Revoke drops analyst's grant on collection, so serve.default_access applies again; it
// reports whether there was one.
func (ac *Access) Revoke(ctx context.Context, analyst, collection string) (revoked bool, err error) {
	detail := map[string]any{}
	defer func() {
		detail["revoked"] = revoked
		ac.record(ctx, "revoke", analyst, collection, detail, err)
	}()
	if err := ac.check(analyst, collection); err != nil {
		return false, err
	}
	was, ok, err := ac.s.grantStore().Remove(ctx, analyst, collection)
	if ok {
		detail["was"] = was.Level
	}
	return ok, err
}

// List returns the grants of analyst ("" for everyone's) and the default level.
func (ac *Access) List(ctx context.Context, analyst string) (AccessList, error) {
	if !ac.s.isAdmin() {
		return AccessList{}, ErrAccessAdminsOnly
	}
	list, err := ac.s.grantStore().List(ctx, analyst)
	if err != nil {
		return AccessList{}, err
	}
	if list == nil {
		list = []grants.Grant{}
	}
	return AccessList{Default: ac.s.defaultAccess(), Grants: list}, nil
}

// check refuses a change by a non-admin, and names that could never match an analyst or a
// collection.
func (ac *Access) check(analyst, collection string) error {
	if !ac.s.isAdmin() {
		return ErrAccessAdminsOnly
	}
	if err := access.CheckName(analyst); err != nil {
		return err
	}
	if !kb.CollectionName.MatchString(collection) {
		return fmt.Errorf("collection name %q: use 1 to 64 lower-case letters, digits, '-' and '_'", collection)
	}
	return nil
}

// record puts an access change in the audit trail: action access, target analyst/collection.
func (ac *Access) record(ctx context.Context, change, analyst, collection string, detail map[string]any, err error) {
	detail["change"] = change
	outcome := auditOutcome(err)
	if errors.Is(err, ErrAccessAdminsOnly) {
		outcome = audit.Refused
	}
	if err != nil {
		detail["error"] = err.Error()
	}
	ac.s.Audit().Record(ctx, audit.Entry{Action: audit.ActionAccess, Target: analyst + "/" + collection,
		Detail: auditDetail(detail), Outcome: outcome})
}
