package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"warren/doctor"
	"warren/internal/schema"
	"warren/internal/testkb"
	"warren/kb"
	"warren/service"
	"warren/tox"
	"warren/tox/jsonpatch"
	toxpanel "warren/tui/tox"
)

// toxBackend is the fixture with a real toxicology store behind it: the sample profiles
// imported into a workspace database (SQLite, migrated as warren opens it). Its edits take the
// zero-model path only: the input must be a JSON Patch, which is applied to the latest version
// and saved against its base, so stale refusals are the store's own.
type toxBackend struct {
	store    *tox.Store
	rejected []string               // proposals closed as rejected
	waiting  []*service.ToxProposal // proposals left waiting, as by `warren tox edit` (see leaveWaiting)
}

func newToxBackend(t *testing.T) *toxBackend {
	t.Helper()
	db, err := kb.OpenDB(filepath.Join(t.TempDir(), kb.DBFileName), schema.All())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	be := &toxBackend{store: &tox.Store{DB: db, Analyst: "ana"}}
	if _, err := be.store.ImportJSON(context.Background(), filepath.Join(testkb.SampleDir(), "tox", "profiles.json")); err != nil {
		t.Fatal(err)
	}
	return be
}

// stable puts a fixed time on a version (version n at fixedTime plus n hours), so the
// snapshots don't depend on when the test ran.
func stable(v tox.VersionInfo) tox.VersionInfo {
	v.CreatedAt = fixedTime.Add(time.Duration(v.Version) * time.Hour)
	return v
}

func (b *toxBackend) Profiles(ctx context.Context) ([]tox.ProfileInfo, error) {
	ps, err := b.store.List(ctx)
	for i := range ps {
		ps[i].UpdatedAt = fixedTime.Add(time.Duration(ps[i].Version) * time.Hour)
	}
	return ps, err
}

func (b *toxBackend) Profile(ctx context.Context, inci string, version int) (tox.ProfileVersion, error) {
	var pv tox.ProfileVersion
	var err error
	if version == 0 {
		pv, err = b.store.Latest(ctx, inci)
	} else {
		pv, err = b.store.Version(ctx, inci, version)
	}
	pv.VersionInfo = stable(pv.VersionInfo)
	return pv, err
}

func (b *toxBackend) History(ctx context.Context, inci string) ([]tox.VersionInfo, error) {
	vs, err := b.store.History(ctx, inci)
	for i := range vs {
		vs[i] = stable(vs[i])
	}
	return vs, err
}

// Propose takes the structured path of the edit engine: parse the patch, apply it to the
// latest version, validate the result, and show the diff.
func (b *toxBackend) Propose(ctx context.Context, inci, input string) (*service.ToxProposal, error) {
	latest, err := b.store.Latest(ctx, inci)
	if err != nil {
		return nil, err
	}
	patch, err := jsonpatch.ParsePatch([]byte(input))
	if err != nil {
		return nil, fmt.Errorf("couldn't read the operations: %w", err)
	}
	after, err := jsonpatch.Apply(latest.Data, patch)
	if err != nil {
		return nil, fmt.Errorf("couldn't apply the operations: %w", err)
	}
	canon, err := tox.Canonical(after)
	if err != nil {
		return nil, fmt.Errorf("the edited profile is not valid: %w", err)
	}
	diff, err := jsonpatch.Render(latest.Data, canon, 0)
	if err != nil {
		return nil, err
	}
	var what []string
	for _, op := range patch {
		if op.Op != jsonpatch.OpTest {
			what = append(what, op.Op+" "+op.Path)
		}
	}
	return &service.ToxProposal{ID: "edit-1", INCI: latest.INCI, BaseVersion: latest.Version, Input: input,
		EditType: service.ToxFormStructured, Method: "structured", Patch: patch, Before: latest.Data, After: canon,
		Diff: diff, Summary: "structured edit: " + strings.Join(what, ", ")}, nil
}

func (b *toxBackend) Approve(ctx context.Context, p *service.ToxProposal, summary string) (int, error) {
	b.decide(p)
	ops, err := json.Marshal(p.Patch)
	if err != nil {
		return 0, err
	}
	return b.store.Save(ctx, p.INCI, p.BaseVersion, p.After, ops, summary, string(p.EditType), p.BatchID)
}

func (b *toxBackend) Reject(_ context.Context, p *service.ToxProposal, _ string) error {
	b.decide(p)
	b.rejected = append(b.rejected, p.INCI)
	return nil
}

func (b *toxBackend) Rollback(ctx context.Context, inci string, to, seen int, summary string) (int, error) {
	return b.store.Rollback(ctx, inci, to, seen, summary)
}

// toxDesk opens the workbench at a size on the Toxicology tab with the profiles loaded and
// EUGENOL selected.
func toxDesk(t *testing.T, be toxpanel.Service, w, h int) *Model {
	t.Helper()
	m := New(desksOf(fixture{}, be))
	m.tox.SetLocation(time.UTC)
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	m.Update(doctorMsg{report: doctor.Report{OK: true}})
	m.OpenTox("EUGENOL")
	settle(t, m, drain(m.tox.Load())...)
	if m.tox.Snapshot().Profile == nil || m.tox.Snapshot().Profile.INCI != "EUGENOL" {
		t.Fatal("EUGENOL isn't loaded")
	}
	return m
}
