package service

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"warren/internal/atomicfile"
	"warren/kb"
	"warren/service/audit"
)

// IsAdmin reports whether this view may manage access and read the audit trail: an admin of
// `warren serve`, or the account outside it (where Admin stays false), so that a front end
// offers the admin's views only to those the desks will answer.
func (s *Service) IsAdmin() bool { return s.isAdmin() }

// ExportCSV writes the entries f selects, as `warren audit --csv` does, to a new file in the
// workspace's exports folder (exports/audit-YYYYMMDD-HHMMSS.csv), whole or not at all, and
// returns its path and the number of entries. The export is itself in the trail.
func (a *Audit) ExportCSV(ctx context.Context, f audit.Filter) (path string, n int, err error) {
	dir := filepath.Join(a.s.ws.Dir, kb.ExportsDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", 0, fmt.Errorf("couldn't create the exports folder: %w", err)
	}
	path, err = freshName(dir, "audit-"+time.Now().Format("20060102-150405"), ".csv")
	if err != nil {
		return "", 0, err
	}
	n, err = a.writeCSV(ctx, f, path)
	return path, n, err
}

// WriteCSV writes the entries f selects to path as CSV, whole or not at all, and records the
// export in the trail; it is the account's `warren audit --csv FILE` (a served analyst exports
// only into exports/, with ExportCSV).
func (a *Audit) WriteCSV(ctx context.Context, f audit.Filter, path string) (int, error) {
	if a.s.served {
		return 0, errors.New("couldn't export the audit trail: a served analyst exports into exports/ only")
	}
	return a.writeCSV(ctx, f, path)
}

func (a *Audit) writeCSV(ctx context.Context, f audit.Filter, path string) (n int, err error) {
	list, err := a.List(ctx, f)
	if err != nil {
		return 0, err
	}
	defer func() {
		detail := map[string]any{"what": "audit trail", "entries": len(list)}
		if f.Analyst != "" {
			detail["analyst"] = f.Analyst
		}
		if !f.Since.IsZero() {
			detail["since"] = f.Since.UTC().Format(time.RFC3339)
		}
		a.s.record(ctx, audit.ActionExport, path, detail, err)
	}()
	data, err := audit.CSV(list)
	if err != nil {
		return 0, err
	}
	if err := atomicfile.WriteFile(path, data, 0o600); err != nil {
		return 0, fmt.Errorf("couldn't write the audit trail to %s: %w", path, err)
	}
	return len(list), nil
}

// freshName is dir/base+ext, or with -2, -3, … when taken: two exports in one second keep both.
func freshName(dir, base, ext string) (string, error) {
	for i := 1; i < 100; i++ {
		name := base + ext
		if i > 1 {
			name = base + "-" + strconv.Itoa(i) + ext
		}
		p := filepath.Join(dir, name)
		if _, err := os.Lstat(p); errors.Is(err, os.ErrNotExist) {
			return p, nil
		}
	}
	return "", fmt.Errorf("couldn't find a free name for %s%s in %s", base, ext, dir)
}
