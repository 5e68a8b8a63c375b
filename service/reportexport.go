package service

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"warren/agent/research"
	"warren/internal/atomicfile"
	"warren/internal/snippet"
	"warren/kb"
	"warren/report"
	"warren/service/audit"
)

// ReportFormats are the formats a report is exported as, Markdown first.
func ReportFormats() []string {
	out := make([]string, len(report.Formats))
	for i, f := range report.Formats {
		out[i] = string(f)
	}
	return out
}

// Export writes a finished run's report as a document for readers without warren, in format
// md, docx, odt, pdf or html: its question, date, analyst and approved plan; the report with
// its headings, lists and tables; each citation a numbered reference naming document,
// section and page; an appendix quoting every cited passage; and the quality check's
// findings, unsupported sentences marked. Markdown is the report file as `warren research`
// writes it.
//
// The file is written whole or not at all, to out or to exports/research-RUN.EXT. A served
// view writes into the workspace's exports folder only (out may name a file there, no
// folder) and, for an analyst who is not an admin, returns exports/NAME rather than the
// server path. An analyst who may not read every collection the run used is refused
// (*AccessError), and every export, refused or not, is in the audit trail.
func (rs *Research) Export(ctx context.Context, run, format, out string) (shown string, err error) {
	defer func() {
		rs.s.record(ctx, audit.ActionExport, shown, map[string]any{"what": "research report", "run": run, "format": format}, err)
	}()
	f, err := report.ParseFormat(format)
	if err != nil {
		return "", err
	}
	if run == "" || run == "." || run == ".." || strings.ContainsAny(run, `/\`) || filepath.Base(run) != run {
		return "", fmt.Errorf("couldn't export the report of run %q: a run name has no folders in it; `warren sessions list` shows the runs", run)
	}
	if err := rs.s.mayExport(ctx, run); err != nil {
		return "", err
	}
	cp, st, err := rs.RunState(ctx, run)
	if err != nil {
		return "", err
	}
	if st.Report == "" {
		return "", fmt.Errorf("couldn't export run %s: it has no report yet (it is %s); a run has one when it has finished", run, cp.Status)
	}
	return rs.s.writeExport("research-"+run+f.Ext(), out, func() ([]byte, error) {
		if f == report.MD {
			return []byte(ResearchReport(st)), nil
		}
		return report.Write(researchDocument(st, cp, rs.runAnalyst(ctx, run, st), rs.passages(ctx, st)), f)
	})
}

// writeExport writes what data gives to out, or to name in the exports folder, whole or not at
// all, and returns the path as this view shows it.
func (s *Service) writeExport(name, out string, data func() ([]byte, error)) (shown string, err error) {
	path, err := s.exportPath(name, out)
	if err != nil {
		return "", err
	}
	shown = s.shownExport(path)
	b, err := data()
	if err != nil {
		return shown, err
	}
	if err := atomicfile.WriteFile(path, b, 0o644); err != nil {
		if s.hidesPaths() {
			err = errors.New(s.pathHider(nil)(err.Error()))
		}
		return shown, fmt.Errorf("couldn't export %s: %w", shown, err)
	}
	return shown, nil
}

// exportPath is where an export goes: out, or name in the exports folder. A served view may
// only name a file in the exports folder: its analysts choose no folder on the server.
func (s *Service) exportPath(name, out string) (string, error) {
	dir := filepath.Join(s.ws.Dir, kb.ExportsDir)
	if out == "" {
		out = filepath.Join(dir, name)
	} else if s.served {
		if out == "." || out == ".." || strings.ContainsAny(out, `/\`) || filepath.Base(out) != out {
			return "", fmt.Errorf("couldn't export to %q: exports go into the workspace's exports folder; give a file name without a folder", out)
		}
		out = filepath.Join(dir, out)
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return "", fmt.Errorf("couldn't create the folder for %s: %w", s.shownExport(out), err)
	}
	return out, nil
}

// shownExport is how an export's path is shown: exports/NAME to a served analyst who is not
// an admin, else the path itself.
func (s *Service) shownExport(path string) string {
	if s.hidesPaths() {
		return filepath.ToSlash(filepath.Join(kb.ExportsDir, filepath.Base(path)))
	}
	return path
}

// runAnalyst names who a run is by: its job's owner, else who decided its plan, else this
// view's analyst.
func (rs *Research) runAnalyst(ctx context.Context, run string, st *research.State) string {
	if j, err := rs.s.jobs.Get(ctx, run); err == nil && j.Owner != "" {
		return j.Owner
	}
	for _, d := range st.Decisions {
		if d.By != "" {
			return d.By
		}
	}
	return rs.s.Owner
}

// passageLimit bounds a quoted passage: a chunk is short, but the file is read from the
// store as it is now.
const passageLimit = 4000

// passages are the cited passages to quote, by source number: the whole chunk where the
// store still holds the one the excerpt was cut from (read as this view's analyst may),
// else the excerpt the run kept.
func (rs *Research) passages(ctx context.Context, st *research.State) map[int]string {
	out := map[int]string{}
	var ids []string
	for _, src := range st.Sources {
		out[src.N] = src.Excerpt
		if src.ChunkID != "" {
			ids = append(ids, src.ChunkID)
		}
	}
	if len(ids) == 0 {
		return out
	}
	chunks, err := rs.s.reader().Chunks(ctx, ids)
	if err != nil {
		return out
	}
	byID := map[string]string{}
	for _, c := range chunks {
		byID[c.ID] = strings.Join(strings.Fields(c.Text), " ")
	}
	for _, src := range st.Sources {
		text, ok := byID[src.ChunkID]
		// The excerpt is the passage's beginning, cut: a passage that no longer begins so was
		// changed since the run, and the run's excerpt is what it read.
		if ok && strings.HasPrefix(text, strings.TrimSuffix(src.Excerpt, " …")) {
			out[src.N] = snippet.Cut(text, passageLimit)
		}
	}
	return out
}
