package service

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"warren/internal/realpath"
	"warren/kb"
	"warren/kb/load"
)

// ErrOutsideIngestRoots means an analyst of `warren serve` named a path the server does not
// let them ingest: an absolute one, one that climbs out with "..", one that does not begin
// with the name of a folder of serve.ingest_roots, or one whose real path (after symbolic
// links) lies outside those folders. The error that wraps it names the folders they may use.
var ErrOutsideIngestRoots = errors.New("not inside the folders this server ingests from")

// serveDir is the workspace folder of `warren serve` (host key, authorized keys, log): no
// ingest folder may hold it or lie in it.
const serveDir = "serve"

// Served is this view as one connection of `warren serve` uses it: Ingest reads only the
// folders serve.ingest_roots names, with paths given relative to them ("inbox/sds/x.pdf"),
// and for an analyst who is not an admin the workspace and the files ingested are named
// without their server paths. Like a view of As, it must not be closed.
func (s *Service) Served() *Service {
	v := s.As(s.Owner, s.Admin)
	v.served = true
	return v
}

// IngestRoots names the folders an analyst of `warren serve` may ingest from, as they type
// them: the last name of each folder of serve.ingest_roots ("inbox"). It is nil when this
// view is not served (the account's own rights decide what it reads), and empty when the
// server allows no ingest.
func (k *Knowledge) IngestRoots() []string {
	if !k.s.served {
		return nil
	}
	names := []string{}
	for _, r := range k.s.ws.Config.Serve.IngestRoots {
		names = append(names, filepath.Base(filepath.Clean(r)))
	}
	return names
}

// hidesPaths says whether this view keeps server paths from its analyst.
func (s *Service) hidesPaths() bool { return s.served && !s.Admin }

// ingestRoot is one folder of serve.ingest_roots.
type ingestRoot struct {
	name string // as the analyst types it
	dir  string // as configured, made absolute against the workspace
	real string // dir with its symbolic links followed
}

// ingestRoots resolves serve.ingest_roots now (a folder created since counts); one that is
// missing, holds the workspace or lies in its serve folder is an error for the administrator.
func (s *Service) ingestRoots() ([]ingestRoot, error) {
	ws, err := filepath.EvalSymlinks(s.ws.Dir)
	if err != nil {
		return nil, fmt.Errorf("couldn't resolve the workspace: %w", err)
	}
	var roots []ingestRoot
	for _, entry := range s.ws.Config.Serve.IngestRoots {
		r, err := s.ingestRoot(ws, entry)
		if err != nil {
			return nil, err
		}
		roots = append(roots, r)
	}
	return roots, nil
}

// ingestRoot resolves one entry of serve.ingest_roots; ws is the workspace's real path.
func (s *Service) ingestRoot(ws, entry string) (ingestRoot, error) {
	r := ingestRoot{dir: entry}
	if !filepath.IsAbs(entry) {
		r.dir = filepath.Join(s.ws.Dir, entry)
	}
	r.dir = filepath.Clean(r.dir)
	r.name = filepath.Base(r.dir)
	real, err := filepath.EvalSymlinks(r.dir)
	if err != nil {
		fix := "ask the administrator to create it"
		if !s.hidesPaths() {
			fix = fmt.Sprintf("create it (`mkdir -m 0750 %s`; `warren init` creates inbox/) or change serve.ingest_roots", r.dir)
		}
		return r, fmt.Errorf("couldn't open the ingest folder %s: %w; %s", s.rootShown(r), fs.ErrNotExist, fix)
	}
	switch {
	case realpath.Within(ws, real):
		return r, fmt.Errorf("couldn't use the ingest folder %s: it holds the workspace (its host key, users and database); "+
			"set serve.ingest_roots to a folder inside it, such as inbox", s.rootShown(r))
	case realpath.Within(real, filepath.Join(ws, serveDir)):
		return r, fmt.Errorf("couldn't use the ingest folder %s: it lies in the workspace's %s/ folder (host key, users); "+
			"set serve.ingest_roots to another folder, such as inbox", s.rootShown(r), serveDir)
	}
	r.real = real
	return r, nil
}

// rootShown names a root for this view's analyst: by name, and for an admin with its server
// path as well.
func (s *Service) rootShown(r ingestRoot) string {
	if s.hidesPaths() {
		return r.name + "/"
	}
	return fmt.Sprintf("%s/ (%s)", r.name, r.dir)
}

// outside is the error for an analyst path p outside the roots, why saying how.
func (s *Service) outside(p, why string, roots []ingestRoot) error {
	shown := make([]string, len(roots))
	for i, r := range roots {
		shown[i] = s.rootShown(r)
	}
	list := shown[0]
	if n := len(shown); n > 1 {
		list = strings.Join(shown[:n-1], ", ") + " or " + shown[n-1]
	}
	// The allowed folders come first: a status line cut at the terminal's width keeps them.
	return fmt.Errorf("only %s may be ingested from, e.g. %s/report.pdf: %q is %w (%s)",
		list, roots[0].name, p, ErrOutsideIngestRoots, why)
}

// servedItems turns the paths an analyst typed into ingest items, refusing what lies outside
// the ingest roots, and returns the options that keep the load to them. Every item is checked
// again on the open file as it is loaded, so a name swapped for a link meanwhile is refused.
func (s *Service) servedItems(paths []string, collection string) ([]kb.Item, IngestOptions, error) {
	roots, err := s.ingestRoots()
	if err != nil {
		return nil, IngestOptions{}, err
	}
	if len(roots) == 0 {
		return nil, IngestOptions{}, fmt.Errorf("couldn't ingest: %w (serve.ingest_roots names none, so ingest is off on this server); "+
			"ask the administrator to name a folder there, such as inbox", ErrOutsideIngestRoots)
	}
	var full, reals []string
	for _, r := range roots {
		reals = append(reals, r.real)
	}
	for _, p := range paths {
		f, err := s.servedPath(strings.TrimSpace(p), roots, reals)
		if err != nil {
			return nil, IngestOptions{}, err
		}
		full = append(full, f)
	}
	hide := s.pathHider(roots)
	items, err := kb.CollectItemsWith(full, collection, kb.CollectOptions{FollowSymlinks: true, Confine: reals})
	var out *load.OutsideError
	switch {
	case errors.As(err, &out):
		return nil, IngestOptions{}, s.outside(hide(out.Path), "a symbolic link leads out of them", roots)
	case err != nil:
		return nil, IngestOptions{}, errors.New(hide(err.Error()))
	}
	return items, IngestOptions{confine: reals, shown: hide}, nil
}

// servedPath is the server path of p, an analyst's path that begins with a root's name.
func (s *Service) servedPath(p string, roots []ingestRoot, reals []string) (string, error) {
	slashed := filepath.ToSlash(p)
	if p == "" {
		return "", s.outside(p, "no path given", roots)
	}
	if filepath.IsAbs(p) || strings.HasPrefix(slashed, "/") || filepath.VolumeName(p) != "" {
		return "", s.outside(p, "an absolute path", roots)
	}
	var elems []string
	for _, e := range strings.Split(slashed, "/") {
		switch e {
		case "", ".":
		case "..":
			return "", s.outside(p, `it climbs out with ".."`, roots)
		default:
			elems = append(elems, e)
		}
	}
	var root *ingestRoot
	for i := range roots {
		if len(elems) > 0 && roots[i].name == elems[0] {
			root = &roots[i]
		}
	}
	if root == nil {
		return "", s.outside(p, "it must begin with the name of one", roots)
	}
	full := filepath.Join(append([]string{root.real}, elems[1:]...)...)
	real, err := filepath.EvalSymlinks(full)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("couldn't ingest %q: %w: nothing of that name in %s", p, fs.ErrNotExist, s.rootShown(*root))
	case err != nil:
		return "", fmt.Errorf("couldn't ingest %q: %s", p, s.pathHider(roots)(err.Error()))
	case !realpath.WithinAny(real, reals):
		return "", s.outside(p, "a symbolic link leads out of them", roots)
	}
	return full, nil
}

// pathHider rewrites server paths in a text (a file's path, a reason) as the analyst names
// them: a root's folder by its name, the workspace by its name. For a view that shows server
// paths it changes nothing.
func (s *Service) pathHider(roots []ingestRoot) func(string) string {
	if !s.hidesPaths() {
		return func(t string) string { return t }
	}
	name := filepath.Base(s.ws.Dir)
	pairs := map[string]string{s.ws.Dir: name}
	if real, err := filepath.EvalSymlinks(s.ws.Dir); err == nil {
		pairs[real] = name
	}
	for _, r := range roots {
		pairs[r.dir], pairs[r.real] = r.name, r.name
	}
	olds := make([]string, 0, len(pairs))
	for old := range pairs {
		olds = append(olds, old)
	}
	// The longest first: a root inside the workspace is named by its own name.
	sort.Slice(olds, func(i, j int) bool { return len(olds[i]) > len(olds[j]) })
	var args []string
	for _, old := range olds {
		args = append(args, old, pairs[old])
	}
	r := strings.NewReplacer(args...)
	return r.Replace
}

// hideReport names the files of a served ingest as the analyst does.
func hideReport(rep *kb.IngestReport, hide func(string) string) {
	if rep == nil || hide == nil {
		return
	}
	for i := range rep.Files {
		rep.Files[i].Path = hide(rep.Files[i].Path)
		rep.Files[i].Reason = hide(rep.Files[i].Reason)
	}
}
