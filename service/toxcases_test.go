package service

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

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

func TestToxEditDiffAndPlannedRollback(t *testing.T) {
	s := toxService(t)
	ctx := context.Background()
	res, err := s.Tox().Edit(ctx, "eugenol", `{"dap":[{"value":10}]}`, true)
	if err != nil || res.Status != ToxSaved || res.Version != 2 {
		t.Fatalf("edit: %+v %v", res, err)
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
	// A save after the plan makes it stale: nothing is saved.
	if _, err := s.Tox().Edit(ctx, "EUGENOL", `{"dap":[{"value":20}]}`, true); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Tox().RollbackPlanned(ctx, plan); err == nil || !strings.Contains(err.Error(), "changed while you were deciding") {
		t.Errorf("a stale plan: %v", err)
	}
	if plan, err = s.Tox().PlanRollback(ctx, "EUGENOL", 1); err != nil {
		t.Fatal(err)
	}
	if v, err := s.Tox().RollbackPlanned(ctx, plan); err != nil || v != 4 {
		t.Errorf("rollback: version %d %v", v, err)
	}
}

func TestToxEditWaitsAndIsDecidedByRun(t *testing.T) {
	s := toxService(t)
	ctx := context.Background()
	if res, err := s.Tox().Edit(ctx, "COUMARIN", "hello", false); err != nil || res.Status != ToxNoChange {
		t.Errorf("no edit: %+v %v", res, err)
	}
	ask := func() string {
		res, err := s.Tox().Edit(ctx, "COUMARIN", `{"dap":[{"value":10}]}`, false)
		if err != nil || res.Status != ToxPending || res.Proposal.ID == "" {
			t.Fatalf("edit without approval: %+v %v", res, err)
		}
		return res.Proposal.ID
	}
	run := ask()
	if res, err := s.Tox().DecideRun(ctx, run, true, "wrong study"); err != nil || res.Status != ToxRejected {
		t.Fatalf("reject: %+v %v", res, err)
	}
	if _, err := s.Tox().DecideRun(ctx, run, false, ""); err == nil || !strings.Contains(err.Error(), "not waiting") {
		t.Errorf("a decided run: %v", err)
	}
	if res, err := s.Tox().DecideRun(ctx, ask(), false, "from the desk"); err != nil || res.Status != ToxSaved || res.Version != 2 {
		t.Fatalf("approve: %+v %v", res, err)
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
