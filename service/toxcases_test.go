package service

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"warren/agent/toxedit"
	"warren/internal/testkb"
	"warren/service/jobs"
	"warren/tox"
)

func toxService(t *testing.T) *Service {
	t.Helper()
	s := openService(t)
	res, err := s.Tox().Import(context.Background(), filepath.Join(testkb.SampleDir(), "tox", "profiles.json"))
	if err != nil || res.New != res.Profiles || res.Profiles == 0 {
		t.Fatalf("import: %+v %v", res, err)
	}
	return s
}

func TestToxResolveFindsNamesAndSuggestsOnes(t *testing.T) {
	s := openService(t)
	ctx := context.Background()
	var unknown *ToxUnknownError
	if _, err := s.Tox().Resolve(ctx, "EUGENOL"); !errors.As(err, &unknown) || unknown.Profiles != 0 || !strings.Contains(err.Error(), "warren tox import") {
		t.Fatalf("an empty store: %v", err)
	}
	s = toxService(t)
	if name, err := s.Tox().Resolve(ctx, "eugenol"); err != nil || name != "EUGENOL" {
		t.Errorf("case-insensitive: %q %v", name, err)
	}
	for in, want := range map[string]string{"ci16035": "CI 16035", "Methyl  Salicylate": "METHYL SALICYLATE", "NOPE": ""} {
		_, err := s.Tox().Resolve(ctx, in)
		if !errors.As(err, &unknown) || unknown.Suggestion != want || !errors.Is(err, tox.ErrNoProfile) || !strings.Contains(err.Error(), "warren tox list") {
			t.Errorf("%q: %v", in, err)
		}
	}
	if _, err := s.Tox().Profile(ctx, "eugenol", 9); !errors.Is(err, tox.ErrNoVersion) || !strings.Contains(err.Error(), "`warren tox history EUGENOL`") {
		t.Errorf("a missing version: %v", err)
	}
	if got := ShellQuote("METHYL SALICYLATE"); got != "'METHYL SALICYLATE'" {
		t.Errorf("ShellQuote: %s", got)
	}
}

func TestToxImportFailureListsEveryBadRecord(t *testing.T) {
	s := openService(t)
	path := filepath.Join(t.TempDir(), "mixed.json")
	if err := os.WriteFile(path, []byte(`[{"inci":"CAFFEINE"},{"inci":"A","noael":[{"value":1,"unit":"mg","type":"NOAEL"}]},{"inci":"B","cas":"1-2-3"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := s.Tox().Import(context.Background(), path)
	var f *ToxImportFailure
	var ie *tox.ImportError
	if !errors.As(err, &f) || f.Imported || f.File != path || len(f.Errors) != 2 || !errors.As(err, &ie) ||
		!strings.Contains(err.Error(), "nothing was imported") || !strings.Contains(err.Error(), "2 bad records:\n  ") {
		t.Fatalf("bad records: %#v", err)
	}
	if list, _ := s.Tox().Profiles(context.Background()); len(list) != 0 {
		t.Errorf("imported %d profiles from a refused file", len(list))
	}
}

// approveEdit proposes an edit of a profile and approves it, as an analyst does in two steps.
func approveEdit(ctx context.Context, s *Service, inci, input string) (int, error) {
	p, err := s.Tox().Propose(ctx, inci, input)
	if err != nil {
		return 0, err
	}
	return s.Tox().Approve(ctx, p, "")
}

func TestToxEditDiffAndPlannedRollback(t *testing.T) {
	s := toxService(t)
	ctx := context.Background()
	if v, err := approveEdit(ctx, s, "eugenol", `{"dap":[{"value":10}]}`); err != nil || v != 2 {
		t.Fatalf("edit: version %d %v", v, err)
	}
	d, err := s.Tox().Diff(ctx, "Eugenol", 1, 2)
	if err != nil || d.From.Version != 1 || d.To.Version != 2 || len(d.Ops) == 0 {
		t.Fatalf("diff 1 2: %+v %v", d, err)
	}
	if d, err = s.Tox().Diff(ctx, "EUGENOL", 2, 2); err != nil || d.Ops == nil || len(d.Ops) != 0 {
		t.Errorf("diff 2 2: %+v %v", d, err)
	}

	if _, err := s.Tox().PlanRollback(ctx, "EUGENOL", 2); err == nil || !strings.Contains(err.Error(), "already the latest") {
		t.Errorf("rollback to the latest version: %v", err)
	}
	plan, err := s.Tox().PlanRollback(ctx, "eugenol", 1)
	if err != nil || plan.INCI != "EUGENOL" || plan.Latest.Version != 2 || plan.Target.Version != 1 {
		t.Fatalf("plan: %+v %v", plan, err)
	}
	// A save after the plan makes it stale: nothing is saved, and who saved it is told.
	if _, err := approveEdit(ctx, s, "EUGENOL", `{"dap":[{"value":20}]}`); err != nil {
		t.Fatal(err)
	}
	_, err = s.Tox().Rollback(ctx, plan.INCI, plan.Target.Version, plan.Latest.Version, "")
	var stale *tox.StaleError
	if err == nil || !strings.Contains(err.Error(), "changed while you were deciding") || !errors.As(err, &stale) || !errors.Is(err, tox.ErrStale) {
		t.Errorf("a stale plan: %v", err)
	}
	if _, err := s.Tox().Rollback(ctx, "EUGENOL", 3, 3, ""); err == nil || !strings.Contains(err.Error(), "already the latest") {
		t.Errorf("a rollback to the latest version: %v", err)
	}
	if plan, err = s.Tox().PlanRollback(ctx, "EUGENOL", 1); err != nil {
		t.Fatal(err)
	}
	if v, err := s.Tox().Rollback(ctx, plan.INCI, plan.Target.Version, plan.Latest.Version, ""); err != nil || v != 4 {
		t.Errorf("rollback: version %d %v", v, err)
	}
}

func TestToxEditWaitsAndIsDecidedByRun(t *testing.T) {
	s := toxService(t)
	ctx := context.Background()
	if p, err := s.Tox().Propose(ctx, "COUMARIN", "hello"); err != nil || !p.Empty() {
		t.Errorf("no edit: %+v %v", p, err)
	}
	ask := func() string {
		p, err := s.Tox().Propose(ctx, "COUMARIN", `{"dap":[{"value":10}]}`)
		if err != nil || p.Empty() || p.ID == "" {
			t.Fatalf("edit without approval: %+v %v", p, err)
		}
		return p.ID
	}
	waiting := func(run string) *toxedit.Proposal {
		p, err := s.Tox().WaitingProposal(ctx, run)
		if err != nil {
			t.Fatalf("the waiting proposal %s: %v", run, err)
		}
		return p
	}
	run := ask()
	if err := s.Tox().Reject(ctx, waiting(run), "wrong study"); err != nil {
		t.Fatalf("reject: %v", err)
	}
	if _, err := s.Tox().WaitingProposal(ctx, run); !errors.Is(err, toxedit.ErrNotWaiting) {
		t.Errorf("a decided run: %v", err)
	}
	if v, err := s.Tox().Approve(ctx, waiting(ask()), "from the desk"); err != nil || v != 2 {
		t.Fatalf("approve: version %d %v", v, err)
	}
	if hist, err := s.Tox().History(ctx, "coumarin"); err != nil || len(hist) != 2 || hist[0].Summary != "from the desk" {
		t.Errorf("history: %+v %v", hist, err)
	}
}

func TestToxBatchReportsEachLine(t *testing.T) {
	s := toxService(t)
	path := filepath.Join(t.TempDir(), "edits.jsonl")
	if err := os.WriteFile(path, []byte("{\"inci\":\"COUMARIN\",\"payload\":{\"dap\":[{\"value\":3}]}}\n{\"inci\":\"VANILLIN\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := s.Tox().Batch(context.Background(), path, true, nil)
	if err != nil || res.Applied != 1 || res.Failed != 1 || len(res.Lines) != 2 {
		t.Fatalf("batch: %+v %v", res, err)
	}
	// The batch ran as a recorded job, with its lines as progress.
	list, err := s.jobs.List(context.Background())
	if err != nil || len(list) != 1 || list[0].Kind != jobs.KindToxBatch || list[0].State != jobs.JobDone || list[0].Progress.Total != 2 {
		t.Fatalf("the batch's job: %+v %v", list, err)
	}
	if _, err := s.Tox().Batch(context.Background(), filepath.Join(t.TempDir(), "none.jsonl"), false, nil); err == nil || !strings.Contains(err.Error(), "couldn't read the batch") {
		t.Errorf("a missing file: %v", err)
	}
}
