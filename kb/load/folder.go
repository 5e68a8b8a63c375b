package load

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// A folder document is a folder of section files, one Markdown file per section, whose front
// matter gives the section number and heading (as the German laws in shared/data are laid
// out: paragraphs/0006.md is "§ 6"). An optional toc.json gives the order and meta.json the
// document's metadata.

// IsFolderDocument reports whether dir is a folder document rather than a folder of documents.
func IsFolderDocument(dir string) bool {
	for _, marker := range []string{"toc.json", "paragraphs"} {
		if _, err := os.Stat(filepath.Join(dir, marker)); err == nil {
			return true
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.md"))
	if len(files) == 0 {
		return false
	}
	numbered := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if meta, _, err := splitFrontMatter(string(data)); err == nil && metaString(meta["number"]) != "" {
			numbered++
		}
	}
	return numbered*2 >= len(files)
}

// sectionFiles lists a folder document's section files in document order: toc.json order when
// present, else paragraphs/, annexes/ and the folder itself, each by name.
func sectionFiles(dir string, g guard) ([]string, error) {
	data, err := g.readFile(filepath.Join(dir, "toc.json"))
	if errors.Is(err, ErrOutside) {
		return nil, err
	}
	if err == nil {
		var toc struct {
			Sections []struct {
				File string `json:"file"`
			} `json:"sections"`
		}
		if err := json.Unmarshal(data, &toc); err != nil {
			return nil, fmt.Errorf("couldn't parse %s/toc.json: %w", dir, err)
		}
		var files []string
		for _, s := range toc.Sections {
			if s.File != "" {
				files = append(files, filepath.FromSlash(s.File))
			}
		}
		if len(files) > 0 {
			return files, nil
		}
	}
	var files []string
	for _, sub := range []string{"paragraphs", "annexes", "."} {
		matches, _ := filepath.Glob(filepath.Join(dir, sub, "*.md"))
		sort.Strings(matches)
		for _, m := range matches {
			rel, _ := filepath.Rel(dir, m)
			files = append(files, rel)
		}
	}
	return files, nil
}

func loadFolder(dir string, g guard) (*Document, error) {
	files, err := sectionFiles(dir, g)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, &SkipError{Path: dir, Reason: "a folder document without section files"}
	}
	doc := &Document{Source: dir, Format: "folder", Title: filepath.Base(dir), Meta: map[string]string{}}
	data, err := g.readFile(filepath.Join(dir, "meta.json"))
	if errors.Is(err, ErrOutside) {
		return nil, err
	}
	if err == nil {
		var meta map[string]any
		if err := json.Unmarshal(data, &meta); err != nil {
			return nil, &SkipError{Path: dir, Reason: "meta.json is not valid JSON: " + err.Error()}
		}
		for k, v := range meta {
			switch v.(type) {
			case string, float64, bool:
				doc.Meta[k] = metaString(v)
			}
		}
	}
	h := sha256.New()
	var sample strings.Builder
	for _, rel := range files {
		data, err := g.readFile(filepath.Join(dir, rel))
		var outside *OutsideError
		if errors.As(err, &outside) {
			return nil, err
		}
		if err != nil {
			return nil, fmt.Errorf("couldn't read %s: %w", filepath.Join(dir, rel), err)
		}
		fmt.Fprintf(h, "%s\x00%d\x00", filepath.ToSlash(rel), len(data))
		h.Write(data)
		text := string(data)
		meta, body, err := splitFrontMatter(text)
		if err != nil {
			return nil, &SkipError{Path: filepath.Join(dir, rel), Reason: err.Error()}
		}
		number := metaString(meta["number"])
		heading := metaString(meta["heading"])
		path := append(metaList(meta["breadcrumb"]), orDefault(number, heading))
		rest := text[body:]
		// The file's own first heading repeats its number and heading; the body starts after it.
		_, sections := parseMarkdown(rest, body, filepath.ToSlash(rel), path[:len(path)-1])
		if len(sections) > 0 && (sections[0].Number == number || sections[0].Number == "" && sections[0].Heading == "") {
			sections[0].Number, sections[0].Heading, sections[0].Path = number, heading, path
		} else {
			sections = append([]Section{{Number: number, Heading: heading, Path: path, File: filepath.ToSlash(rel), Offset: body}}, sections...)
		}
		doc.Sections = append(doc.Sections, sections...)
		if sample.Len() < 16<<10 {
			sample.WriteString(rest)
		}
	}
	doc.Hash = hex.EncodeToString(h.Sum(nil))
	doc.Language = languageOf(doc.Meta, sample.String())
	if t := doc.Meta["jurabk"]; t != "" {
		doc.Title = t
	}
	return doc, nil
}

func orDefault(s, def string) string {
	if s != "" {
		return s
	}
	return def
}
