package registry

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"warren/internal/realpath"
)

// The kinds of Problem Check reports.
const (
	// ProblemMissingPath: the document's path is neither a file nor a folder.
	ProblemMissingPath = "missing-path"
	// ProblemDuplicateSynonym: a synonym is, after Normalize, also a name (synonym, title or
	// base name) of another document, so it resolves to neither.
	ProblemDuplicateSynonym = "duplicate-synonym"
	// ProblemEmptyTitle: the document has no title to show the analyst.
	ProblemEmptyTitle = "empty-title"
	// ProblemEmptySynonym: a synonym without letters ("", "12"), which can never match.
	ProblemEmptySynonym = "empty-synonym"
	// ProblemDuplicatePath: two entries register the same path.
	ProblemDuplicatePath = "duplicate-path"
	// ProblemOutside: the document's path leads out of the registry's folder (see Outside).
	ProblemOutside = "outside-folder"
)

// Conflicts are the problems that make a registry ambiguous: a path registered twice, or a
// synonym that names two documents. An ingest of the registry would silently keep one of them.
func Conflicts(problems []Problem) []Problem {
	var out []Problem
	for _, p := range problems {
		if p.Kind == ProblemDuplicatePath || p.Kind == ProblemDuplicateSynonym {
			out = append(out, p)
		}
	}
	return out
}

// Outside reports the documents of r whose path, relative to dir (the registry file's folder),
// leads out of dir: an absolute path elsewhere, one that climbs out with "..", or one that
// leads out through a symbolic link (the folder and each path are compared with their links
// followed; of a path that does not exist, the part that does).
func (r *Registry) Outside(dir string) []Problem {
	root, err := filepath.Abs(dir)
	if err != nil {
		root = filepath.Clean(dir)
	}
	realRoot, err := realpath.Resolve(root)
	if err != nil {
		realRoot = root
	}
	var problems []Problem
	for _, coll := range r.Names() {
		for _, d := range r.Collections[coll].Documents {
			full := filepath.FromSlash(d.Path)
			if !filepath.IsAbs(full) {
				full = filepath.Join(root, full)
			}
			full = filepath.Clean(full)
			real, err := realpath.Resolve(full)
			switch {
			case !realpath.Within(full, root):
				problems = append(problems, Problem{ProblemOutside, d.Path,
					fmt.Sprintf("collection %s: %s is outside the registry's folder %s", coll, full, root)})
			case err != nil:
				problems = append(problems, Problem{ProblemOutside, d.Path,
					fmt.Sprintf("collection %s: where %s leads can't be told (%v), so it may be outside the registry's folder %s", coll, full, err, root)})
			case !realpath.Within(real, realRoot):
				problems = append(problems, Problem{ProblemOutside, d.Path,
					fmt.Sprintf("collection %s: %s leads through a symbolic link to %s, outside the registry's folder %s", coll, full, real, root)})
			}
		}
	}
	return problems
}

// Problem is one thing wrong with a registry. Doc is the path of the document concerned.
type Problem struct {
	Kind, Doc, Detail string
}

// String returns the problem as one line.
func (p Problem) String() string { return p.Kind + " " + p.Doc + ": " + p.Detail }

// Check loads the registry file at path and validates it; see (*Registry).Check. The error is
// for a registry that cannot be read at all.
func Check(path string) ([]Problem, error) {
	r, err := Load(path)
	if err != nil {
		return nil, err
	}
	return r.Check(filepath.Dir(path)), nil
}

// nameOwner is a name of one document, for finding names two documents share.
type nameOwner struct {
	id, collection, path string
	kind, text           string
}

// Check validates r, whose paths are relative to dir: every path exists as a file or folder,
// every document has a title, no synonym is empty, no path is registered twice, and no synonym is
// (after Normalize) a name of another document. A synonym a document lists twice in different
// spellings ("RFC 6901", "RFC6901") is no problem. Problems come in registry order, the
// duplicates last, ordered by name.
func (r *Registry) Check(dir string) []Problem {
	var problems []Problem
	owners := map[string][]nameOwner{}
	paths := map[string]string{}
	for _, coll := range r.Names() {
		for _, d := range r.Collections[coll].Documents {
			id := coll + "\x00" + d.Path
			full := filepath.FromSlash(d.Path)
			if d.Source != "" {
				full = d.Source // a workspace registry records where each document came from
			} else if !filepath.IsAbs(full) {
				full = filepath.Join(dir, full)
			}
			if _, err := os.Stat(full); err != nil {
				problems = append(problems, Problem{ProblemMissingPath, d.Path,
					fmt.Sprintf("collection %s: %s is neither a file nor a folder (%v)", coll, full, err)})
			}
			clean := filepath.Clean(full)
			if other, ok := paths[clean]; ok {
				problems = append(problems, Problem{ProblemDuplicatePath, d.Path,
					fmt.Sprintf("collection %s registers the path that collection %s already has", coll, other)})
			} else {
				paths[clean] = coll
			}
			if strings.TrimSpace(d.Title) == "" {
				problems = append(problems, Problem{ProblemEmptyTitle, d.Path,
					fmt.Sprintf("collection %s: the document has no title", coll)})
			}
			for _, s := range d.Synonyms {
				if parseName(s).letters == "" {
					problems = append(problems, Problem{ProblemEmptySynonym, d.Path,
						fmt.Sprintf("collection %s: synonym %q has no letters and can never match", coll, s)})
				}
			}
			add := func(kind, text string) {
				n := parseName(text)
				if n.letters != "" {
					owners[n.key] = append(owners[n.key], nameOwner{id, coll, d.Path, kind, text})
				}
			}
			for _, s := range d.Synonyms {
				add("synonym", s)
			}
			add("title", d.Title)
			add("base name", d.BaseName())
		}
	}
	return append(problems, duplicateNames(owners)...)
}

// duplicateNames reports every key that names more than one document, as long as one of those
// names is a synonym: equal titles or base names alone are the analyst's business, but a synonym
// is there to pick one document.
func duplicateNames(owners map[string][]nameOwner) []Problem {
	keys := make([]string, 0, len(owners))
	for k := range owners {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var problems []Problem
	for _, key := range keys {
		var docs []nameOwner // the first name of each document, a synonym where there is one
		synonym := false
		for _, o := range owners[key] {
			synonym = synonym || o.kind == "synonym"
			i := 0
			for i < len(docs) && docs[i].id != o.id {
				i++
			}
			if i == len(docs) {
				docs = append(docs, o)
			} else if docs[i].kind != "synonym" && o.kind == "synonym" {
				docs[i] = o
			}
		}
		if len(docs) < 2 || !synonym {
			continue
		}
		first := docs[0]
		for _, o := range docs[1:] {
			problems = append(problems, Problem{ProblemDuplicateSynonym, o.path, fmt.Sprintf(
				"%s %q (collection %s) and %s %q of %s (collection %s) are the same name %q after normalisation",
				o.kind, o.text, o.collection, first.kind, first.text, first.path, first.collection, key)})
		}
	}
	return problems
}
