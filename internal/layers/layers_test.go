// Package layers holds the test that keeps warren's import rules (docs/architecture.md): it
// reads the imports of every package's non-test files from the source tree, as `go list`
// would report them, and fails on an import a rule forbids.
package layers

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "warren"

// imports maps each package of the module (by import path) to the module packages (and the
// Charm terminal libraries) its non-test files import.
func imports(t *testing.T) map[string][]string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "bin") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		pkg := module
		if rel != "." {
			pkg += "/" + filepath.ToSlash(rel)
		}
		for _, spec := range f.Imports {
			p, _ := strconv.Unquote(spec.Path.Value)
			if p == module || strings.HasPrefix(p, module+"/") || strings.HasPrefix(p, "charm.land/") {
				out[pkg] = append(out[pkg], p)
			}
		}
		if _, ok := out[pkg]; !ok {
			out[pkg] = nil
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func under(pkg string, roots ...string) bool {
	for _, r := range roots {
		if !strings.Contains(r, ".") {
			r = module + "/" + r
		}
		if pkg == r || strings.HasPrefix(pkg, r+"/") {
			return true
		}
	}
	return false
}

// rule forbids the packages under from to import the packages under to.
type rule struct {
	from, to []string
	why      string
}

var rules = []rule{
	{from: []string{"kb", "retrieval", "registry"}, to: []string{"llm", "agent"},
		why: "the store and the ranking take functions, not the model client; agents sit above them"},
	{from: []string{"gas", "tox"}, to: []string{"llm", "agent", "service", "tui", "cmd"},
		why: "a desk's home (its table or profiles) is below the agents and the service"},
	{from: []string{"report"}, to: []string{"llm", "agent", "service", "kb", "retrieval", "registry", "gas", "tox", "tui", "cmd"},
		why: "a report's writers write the document they are given; the service builds it from a desk"},
	{from: []string{"service", "agent", "llm", "kb", "retrieval", "registry", "config", "gas", "tox"}, to: []string{"tui", "cmd"},
		why: "arrows point downward: nothing below the front ends imports them"},
	{from: []string{"cmd", "tui", "internal/cli"}, to: []string{"agent", "llm"},
		why: "front ends reach agents and the model only through the service"},
	{from: []string{"service", "agent", "llm", "kb", "retrieval", "registry", "config", "gas", "tox", "access", "doctor", "internal", "report"},
		to:  []string{"charm.land/bubbletea/v2", "charm.land/lipgloss/v2", "charm.land/bubbles/v2", "charm.land/glamour/v2"},
		why: "nothing outside the front ends draws on a terminal"},
}

func TestImportRules(t *testing.T) {
	all := imports(t)
	if len(all) < 20 {
		t.Fatalf("found %d packages: the walk did not see the module", len(all))
	}
	var broken []string
	for pkg, deps := range all {
		for _, r := range rules {
			if !under(pkg, r.from...) {
				continue
			}
			for _, d := range deps {
				if under(d, r.to...) {
					broken = append(broken, pkg+" imports "+d+": "+r.why)
				}
			}
		}
	}
	sort.Strings(broken)
	for i, b := range broken {
		if i == 0 || b != broken[i-1] { // one line per package, not per file
			t.Error(b)
		}
	}
}

// The rules must be able to fail: the walk sees the imports it is meant to judge.
func TestTheWalkSeesKnownImports(t *testing.T) {
	all := imports(t)
	for pkg, dep := range map[string]string{
		"warren/service":    "warren/kb",
		"warren/cmd/warren": "warren/service",
	} {
		found := false
		for _, d := range all[pkg] {
			found = found || d == dep
		}
		if !found {
			t.Errorf("%s does not seem to import %s: %v", pkg, dep, all[pkg])
		}
	}
	if _, err := os.Stat("../../go.mod"); err != nil {
		t.Fatalf("the test must run from internal/layers: %v", err)
	}
}

// The knowledge base's rooms each do one job below the store: kb/load, kb/lexical and
// kb/vectors import neither the store (package kb) nor each other; what they share is in
// kb/chunk, which imports no room.
func TestKnowledgeRoomsStandAlone(t *testing.T) {
	all := imports(t)
	rooms := []string{module + "/kb/load", module + "/kb/lexical", module + "/kb/vectors"}
	for _, r := range append(rooms, module+"/kb/chunk") {
		if _, ok := all[r]; !ok {
			t.Fatalf("no package %s: the rooms of kb have moved", r)
		}
	}
	for _, r := range append(rooms, module+"/kb/chunk") {
		for _, d := range all[r] {
			if d == module+"/kb" || d != r && slices.Contains(rooms, d) {
				t.Errorf("%s imports %s: a room of kb reaches neither the store nor another room", r, d)
			}
		}
	}
}

// A panel never reaches into another: the panel packages under tui/ import neither each other
// nor the root model (package tui); what they share is in tui/component.
func TestPanelsStandAlone(t *testing.T) {
	all := imports(t)
	var panels []string
	for pkg := range all {
		if strings.HasPrefix(pkg, module+"/tui/") && !under(pkg, "tui/serve", "tui/styles", "tui/component") {
			panels = append(panels, pkg)
		}
	}
	sort.Strings(panels)
	if len(panels) < 5 {
		t.Fatalf("found the panel packages %v; the workbench's panels live in packages of their own", panels)
	}
	for _, p := range panels {
		for _, d := range all[p] {
			if d == module+"/tui" || slices.Contains(panels, d) {
				t.Errorf("%s imports %s: a panel reaches the others only through the root model", p, d)
			}
		}
	}
}

// The architecture page names every package of the module, and every package it names exists:
// a package is named by its path in backticks (`kb/load`), or by its last element in backticks
// after its parent's group (`internal/…` (`atomicfile`, …)).
func TestTheArchitecturePageMatchesThePackages(t *testing.T) {
	page, err := os.ReadFile("../../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(page)
	pkgs := imports(t)
	for pkg := range pkgs {
		rel := strings.TrimPrefix(pkg, module+"/")
		if rel == module || strings.Contains(rel, "/cmd/") || strings.HasSuffix(rel, "/internal/gguf") {
			continue // a command's main under a package, or a helper of the e2e models
		}
		if strings.Contains(doc, "`"+rel+"`") {
			continue
		}
		parent, name := filepath.Dir(rel), filepath.Base(rel)
		if parent != "." && strings.Contains(doc, "`"+parent+"/…`") && strings.Contains(doc, "`"+name+"`") {
			continue
		}
		t.Errorf("docs/architecture.md does not name package %s", rel)
	}
	top := map[string]bool{}
	for pkg := range pkgs {
		top[strings.SplitN(strings.TrimPrefix(pkg, module+"/"), "/", 2)[0]] = true
	}
	for _, f := range strings.Split(doc, "`")[1:] {
		if strings.ContainsAny(f, " .…*()") || !strings.Contains(f, "/") || !top[strings.SplitN(f, "/", 2)[0]] {
			continue
		}
		if _, ok := pkgs[module+"/"+f]; ok {
			continue
		}
		if info, err := os.Stat(filepath.Join("../..", f)); err != nil || !info.IsDir() {
			t.Errorf("docs/architecture.md names %s, which is not a package of the module", f)
		}
	}
}
