package service

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"warren/agent"
	"warren/agent/toxedit"
	"warren/service/audit"
	"warren/service/jobs"
	"warren/tox"
	"warren/tox/jsonpatch"
)

// The toxicology use cases of the CLI: profiles found by a forgiving name, imports, diffs,
// rollbacks, edits decided by run, batches. The workbench shares the simpler ones (tox.go,
// workbench.go).

// ToxUnknownError says that no profile has a name; it tells how to find the names and suggests
// one that differs only by case or spacing.
type ToxUnknownError struct {
	INCI       string // the name asked for
	Profiles   int    // how many profiles the workspace has
	Suggestion string // a stored name with the same letters and digits, or ""
}

func (e *ToxUnknownError) Error() string {
	switch {
	case e.Profiles == 0:
		return fmt.Sprintf("no toxicology profile %q: the workspace has no profiles yet; import some with `warren tox import FILE`", e.INCI)
	case e.Suggestion != "":
		return fmt.Sprintf("no toxicology profile %q: did you mean %q? (`warren tox list` shows every name)", e.INCI, e.Suggestion)
	}
	return fmt.Sprintf("no toxicology profile %q: `warren tox list` shows the %d profile names", e.INCI, e.Profiles)
}

// Is makes errors.Is(err, tox.ErrNoProfile) true.
func (e *ToxUnknownError) Is(target error) bool { return target == tox.ErrNoProfile }

// ToxNameKey is the form of an INCI name that suggestions compare: upper case, without spaces,
// hyphens and other separators.
func ToxNameKey(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || r == '-' || r == '_' || r == '.' || r == ',' {
			return -1
		}
		return unicode.ToUpper(r)
	}, s)
}

// toxLatest loads the latest version of the profile named inci (case-insensitively); for an
// unknown name the error is a *ToxUnknownError.
func (s *Service) toxLatest(ctx context.Context, inci string) (tox.ProfileVersion, error) {
	st := s.toxStore()
	v, err := st.Latest(ctx, inci)
	if !errors.Is(err, tox.ErrNoProfile) {
		return v, err
	}
	list, err := st.List(ctx)
	if err != nil {
		return v, err
	}
	unknown := &ToxUnknownError{INCI: inci, Profiles: len(list)}
	want := ToxNameKey(inci)
	for _, p := range list {
		if ToxNameKey(p.INCI) == want {
			unknown.Suggestion = p.INCI
			break
		}
	}
	return v, unknown
}

// Resolve returns the stored name of the profile named inci (case-insensitively); for an
// unknown name the error is a *ToxUnknownError.
func (x *Tox) Resolve(ctx context.Context, inci string) (string, error) {
	v, err := x.s.toxLatest(ctx, inci)
	return v.INCI, err
}

// Profile loads version n of the profile named inci (case-insensitively); version 0 is the
// latest. An unknown name gives a *ToxUnknownError, an unknown version an error that wraps
// tox.ErrNoVersion and names the way to the versions.
func (x *Tox) Profile(ctx context.Context, inci string, n int) (tox.ProfileVersion, error) {
	latest, err := x.s.toxLatest(ctx, inci)
	if err != nil || n == 0 {
		return latest, err
	}
	v, err := x.s.toxStore().Version(ctx, latest.INCI, n)
	if errors.Is(err, tox.ErrNoVersion) {
		return v, fmt.Errorf("%w; `warren tox history %s` lists them", err, ShellQuote(latest.INCI))
	}
	return v, err
}

// History lists the versions of the profile named inci (case-insensitively), newest first.
func (x *Tox) History(ctx context.Context, inci string) ([]tox.VersionInfo, error) {
	name, err := x.Resolve(ctx, inci)
	if err != nil {
		return nil, err
	}
	return x.s.toxStore().History(ctx, name)
}

// ToxShown is one version of a profile and the number of the latest one.
type ToxShown struct {
	tox.ProfileVersion
	Latest int
}

// Show loads version n of a profile (0: the latest) with the latest version's number.
func (x *Tox) Show(ctx context.Context, inci string, n int) (*ToxShown, error) {
	v, err := x.Profile(ctx, inci, n)
	if err != nil {
		return nil, err
	}
	latest, err := x.s.toxStore().Latest(ctx, v.INCI)
	if err != nil {
		return nil, err
	}
	return &ToxShown{v, latest.Version}, nil
}

// ShellQuote quotes an INCI name for a command line shown in a message.
func ShellQuote(s string) string {
	if strings.ContainsAny(s, " '\"\\$`!*?()[]{};&|<>#~") {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	return s
}

// ToxImported is what an import did: how many profiles were new, updated or unchanged, and
// each one's status and version. The fields are in alphabetical order, as the CLI has always
// printed them.
type ToxImported struct {
	File      string             `json:"file"`
	New       int                `json:"new"`
	Profiles  int                `json:"profiles"`
	Results   []tox.ImportResult `json:"results"`
	Unchanged int                `json:"unchanged"`
	Updated   int                `json:"updated"`
}

// ToxBadRecord is one bad record of a refused import.
type ToxBadRecord struct {
	Where string `json:"where,omitempty"`
	Error string `json:"error"`
}

// ToxImportFailure refuses a file with bad records, each listed; nothing of it was imported.
type ToxImportFailure struct {
	Errors   []ToxBadRecord `json:"errors"`
	File     string         `json:"file"`
	Imported bool           `json:"imported"` // always false
	err      *tox.ImportError
}

func (f *ToxImportFailure) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "couldn't import %s (nothing was imported): ", f.File)
	if len(f.Errors) > 1 {
		fmt.Fprintf(&b, "%d bad records:", len(f.Errors))
	}
	for _, r := range f.Errors {
		if len(f.Errors) > 1 {
			b.WriteString("\n  ")
		}
		if r.Where != "" {
			b.WriteString(r.Where + ": ")
		}
		b.WriteString(r.Error)
	}
	return b.String()
}

// Unwrap returns the store's *tox.ImportError.
func (f *ToxImportFailure) Unwrap() error { return f.err }

// Import imports the profiles of a .json file (whole profiles) or any other file as CSV (NOAEL
// rows). A file with bad records imports nothing and gives a *ToxImportFailure.
func (x *Tox) Import(ctx context.Context, path string) (*ToxImported, error) {
	st := x.s.toxStore()
	var results []tox.ImportResult
	var err error
	if strings.EqualFold(filepath.Ext(path), ".json") {
		results, err = st.ImportJSON(ctx, path)
	} else {
		results, err = st.ImportCSV(ctx, path)
	}
	if ie := (*tox.ImportError)(nil); errors.As(err, &ie) {
		f := &ToxImportFailure{File: ie.File, Errors: make([]ToxBadRecord, len(ie.Records)), err: ie}
		for i, r := range ie.Records {
			f.Errors[i] = ToxBadRecord{r.Where, r.Err.Error()}
		}
		return nil, f
	}
	if err != nil {
		return nil, err
	}
	out := &ToxImported{File: path, Profiles: len(results), Results: results}
	if out.Results == nil {
		out.Results = []tox.ImportResult{}
	}
	for _, r := range results {
		switch r.Status {
		case tox.ImportNew:
			out.New++
		case tox.ImportUpdated:
			out.Updated++
		case tox.ImportUnchanged:
			out.Unchanged++
		}
	}
	return out, nil
}

// ToxDiff is what changed between two versions of a profile.
type ToxDiff struct {
	From, To tox.ProfileVersion
	Ops      jsonpatch.Patch // the RFC 6902 operations that turn From into To ([] when equal)
}

// Diff compares versions v1 and v2 of the profile named inci.
func (x *Tox) Diff(ctx context.Context, inci string, v1, v2 int) (*ToxDiff, error) {
	from, err := x.Profile(ctx, inci, v1)
	if err != nil {
		return nil, err
	}
	to, err := x.Profile(ctx, from.INCI, v2)
	if err != nil {
		return nil, err
	}
	ops, err := jsonpatch.Diff(from.Data, to.Data)
	if err != nil {
		return nil, fmt.Errorf("couldn't compare versions %d and %d of %s: %w", v1, v2, from.INCI, err)
	}
	if ops == nil {
		ops = jsonpatch.Patch{}
	}
	return &ToxDiff{From: from, To: to, Ops: ops}, nil
}

// ToxRollbackPlan is a rollback about to be made: the version to restore and the latest
// version, which the restored data will follow.
type ToxRollbackPlan struct {
	INCI           string
	Target, Latest tox.ProfileVersion
}

// PlanRollback prepares the rollback of the profile named inci to version to; rolling back
// to the latest version is refused.
func (x *Tox) PlanRollback(ctx context.Context, inci string, to int) (*ToxRollbackPlan, error) {
	target, err := x.Profile(ctx, inci, to)
	if err != nil {
		return nil, err
	}
	name := target.INCI
	latest, err := x.s.toxStore().Latest(ctx, name)
	if err != nil {
		return nil, err
	}
	if latest.Version == to {
		return nil, fmt.Errorf("version %d is already the latest version of %s: nothing to roll back (`warren tox history %s` lists the versions)", to, name, ShellQuote(name))
	}
	return &ToxRollbackPlan{INCI: name, Target: target, Latest: latest}, nil
}

// What became of an edit (ToxEditResult.Status).
const (
	ToxSaved    = "saved"
	ToxPending  = "waiting"
	ToxRejected = "rejected"
	ToxNoChange = "no change"
)

// ToxEditResult is an edit's proposal and what became of it, as the command line reports it.
type ToxEditResult struct {
	Proposal *toxedit.Proposal `json:"proposal"`
	Status   string            `json:"status"` // ToxSaved, ToxPending, ToxRejected or ToxNoChange
	Version  int               `json:"version,omitempty"`
}

// Batch proposes the edits of a JSONL file (toxedit.Editor.BatchWith); with yes the edits
// that need no model are saved at once. A failing line is in the result, not an error.
func (x *Tox) Batch(ctx context.Context, path string, yes bool, progress func(done, total int)) (*toxedit.BatchResult, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("couldn't read the batch: %w", err)
	}
	defer f.Close()
	// The batch is a job (kind toxbatch, progress in lines), so that it is recorded and can be
	// watched; cancelling ctx cancels it between lines.
	var res *toxedit.BatchResult
	work := func(jctx context.Context, em *jobs.Emitter) (string, error) {
		res, err = x.s.toxEditor().BatchWith(jctx, f, toxedit.BatchOptions{Yes: yes, Progress: func(done, total int) {
			em.Progress(jobs.Progress{Done: done, Total: total})
			if progress != nil {
				progress(done, total)
			}
		}})
		if err != nil {
			return "", err
		}
		return jobs.JobDone, nil
	}
	jerr := x.s.runJob(ctx, agent.NewRunID("toxbatch-"), jobs.KindToxBatch, "toxicology batch "+filepath.Base(path), work, nil)
	// With yes the batch saves versions: a desk decision the trail must hold.
	d := map[string]any{"decision": "batch", "file": path, "yes": yes}
	if res != nil {
		d["batch_id"], d["applied"], d["proposed"], d["failed"] = res.ID, res.Applied, res.Proposed, res.Failed
	}
	x.s.record(ctx, audit.ActionTox, filepath.Base(path), d, errors.Join(jerr, err))
	if jerr != nil {
		return nil, jerr
	}
	return res, err
}
