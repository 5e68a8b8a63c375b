package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// TestEveryKeyIsRead walks the key table and fails on a key whose setting no code path reads:
// `warren config` must list no key that does nothing (thresholds.fuzzy_match was listed and
// read by nothing). For each key it finds the Config fields that setting the key changes, then
// type-checks the module's non-test code and looks for a read of one of those fields: a field
// selection that is not the target of a plain assignment or of &. The key table itself
// (keys.go), tests, and the end-to-end harness (e2e/) do not count as readers.
func TestEveryKeyIsRead(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks the whole module")
	}
	fields := map[string][][]string{} // key → the Config field paths it sets
	for _, k := range keys {
		paths := fieldsSetBy(k)
		if len(paths) == 0 {
			t.Errorf("%s: no value tried sets a Config field; add one to keyValueCandidates", k.name)
			continue
		}
		fields[k.name] = paths
	}
	reads, cfgType := moduleFieldReads(t)
	for _, name := range KeyNames() {
		read := false
		var where []string
		for _, path := range fields[name] {
			id, err := fieldID(cfgType, path)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			where = append(where, strings.Join(path, "."))
			if len(reads[id]) > 0 {
				read = true
				t.Logf("%s: %s read at %s and %d more", name, strings.Join(path, "."), reads[id][0], len(reads[id])-1)
			}
		}
		if !read && len(fields[name]) > 0 {
			t.Errorf("%s sets %s, which no code outside the key table reads: make the setting work or remove the key", name, strings.Join(where, ", "))
		}
	}
}

// keyValueCandidates are the texts tried on each key, in order; the first that the key accepts
// and that changes the default configuration shows which fields the key sets.
var keyValueCandidates = []string{"3", "333", "0.37", "7s", "7m", "qwen3:4b", "http://10.1.2.3:11434", "builtin", "ollama",
	"127.0.0.1:2299", "http://10.1.2.3:11434,http://10.1.2.4:11434", "weaviate", "Wz", "off", "hash", "read"}

// fieldsSetBy returns the paths of the Config fields that setting k changes.
func fieldsSetBy(k key) [][]string {
	for _, v := range keyValueCandidates {
		c := Default()
		if err := k.set(c, v); err != nil {
			continue
		}
		var changed [][]string
		diffFields(reflect.ValueOf(*Default()), reflect.ValueOf(*c), nil, &changed)
		if len(changed) > 0 {
			return changed
		}
	}
	return nil
}

// diffFields collects the paths of the leaf fields (not structs) in which a and b differ.
func diffFields(a, b reflect.Value, path []string, out *[][]string) {
	if a.Kind() == reflect.Struct && a.Type().Name() != "Duration" {
		for i := range a.NumField() {
			f := a.Type().Field(i)
			if f.Name == "Sources" || !f.IsExported() {
				continue
			}
			diffFields(a.Field(i), b.Field(i), append(append([]string(nil), path...), f.Name), out)
		}
		return
	}
	if !reflect.DeepEqual(a.Interface(), b.Interface()) {
		*out = append(*out, path)
	}
}

// fieldID names a field of the configuration by where it is declared, so that a selection
// found in any package (imported from export data or checked from source) compares equal.
func fieldID(cfg types.Type, path []string) (string, error) {
	typ := cfg
	var field *types.Var
	for _, name := range path {
		st, ok := typ.Underlying().(*types.Struct)
		if !ok {
			return "", fmt.Errorf("%s is no struct", typ)
		}
		field = nil
		for i := range st.NumFields() {
			if st.Field(i).Name() == name {
				field = st.Field(i)
			}
		}
		if field == nil {
			return "", fmt.Errorf("no field %s in %s", name, typ)
		}
		typ = field.Type()
	}
	return varID(field), nil
}

var fset = token.NewFileSet()

func varID(v *types.Var) string {
	p := fset.Position(v.Pos())
	return fmt.Sprintf("%s:%d:%s", filepath.Base(p.Filename), p.Line, v.Name())
}

// listedPackage is what `go list -json` says of a package.
type listedPackage struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Export     string
	DepOnly    bool
	Module     *struct{ Path string }
}

// moduleFieldReads type-checks every package of the module from source, against the export
// data of its dependencies, and returns the places where each struct field is read, by
// fieldID, with the type of Config.
func moduleFieldReads(t *testing.T) (map[string][]string, types.Type) {
	t.Helper()
	cmd := exec.Command("go", "list", "-export", "-deps", "-json", "warren/...")
	cmd.Dir = ".."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	exports := map[string]string{}
	var mine []listedPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listedPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		exports[p.ImportPath] = p.Export
		if !p.DepOnly && p.Module != nil && p.Module.Path == "warren" && !strings.HasPrefix(p.ImportPath, "warren/e2e") {
			mine = append(mine, p)
		}
	}
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok || file == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	})
	cfgPkg, err := imp.Import("warren/config")
	if err != nil {
		t.Fatal(err)
	}
	reads := map[string][]string{}
	for _, p := range mine {
		var files []*ast.File
		for _, name := range p.GoFiles {
			if p.ImportPath == "warren/config" && name == "keys.go" {
				continue // the key table sets and gets every field by construction
			}
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		info := &types.Info{Selections: map[*ast.SelectorExpr]*types.Selection{}}
		conf := types.Config{Importer: imp, Error: func(error) {}} // keys.go left out: config's own check has holes
		conf.Check(p.ImportPath, fset, files, info)
		for _, f := range files {
			for sel, where := range fieldReads(f, info) {
				reads[sel] = append(reads[sel], fset.Position(where).String())
			}
		}
	}
	for id := range reads {
		sort.Strings(reads[id])
	}
	return reads, cfgPkg.Scope().Lookup("Config").Type()
}

// fieldReads returns the field selections of a file that read the field, by fieldID.
func fieldReads(f *ast.File, info *types.Info) map[string]token.Pos {
	written := map[ast.Expr]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if n.Tok == token.ASSIGN || n.Tok == token.DEFINE {
				for _, lhs := range n.Lhs {
					written[lhs] = true
				}
			}
		case *ast.UnaryExpr:
			if n.Op == token.AND {
				written[n.X] = true // &cfg.X: bound to a flag or a setter, not read here
			}
		}
		return true
	})
	out := map[string]token.Pos{}
	ast.Inspect(f, func(n ast.Node) bool {
		se, ok := n.(*ast.SelectorExpr)
		if !ok || written[se] {
			return true
		}
		if sel := info.Selections[se]; sel != nil && sel.Kind() == types.FieldVal {
			if v, ok := sel.Obj().(*types.Var); ok {
				out[varID(v)] = se.Sel.Pos()
			}
		}
		return true
	})
	return out
}
