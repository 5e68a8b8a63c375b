// Package realpath answers where a path really leads once symbolic links are followed, and
// whether it stays inside a folder: the checks that keep an ingest or a registry from reading
// files outside the folders it was given.
package realpath

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// Within reports whether path is dir or lies under it. Both are cleaned; give both absolute
// and resolved (see Resolve), or the answer is only lexical.
func Within(path, dir string) bool {
	rel, err := filepath.Rel(filepath.Clean(dir), filepath.Clean(path))
	if err != nil {
		return false
	}
	return rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// WithinAny reports whether path lies in one of dirs.
func WithinAny(path string, dirs []string) bool {
	for _, d := range dirs {
		if Within(path, d) {
			return true
		}
	}
	return false
}

// Resolve returns the absolute path with every symbolic link followed. A path that does not
// exist (yet) keeps its missing tail, joined to its longest existing part resolved: a link
// earlier in the path still counts, so "link/missing.md" with link → /etc gives /etc/missing.md.
func Resolve(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("couldn't resolve %s: %w", path, err)
	}
	var tail []string
	for p := abs; ; {
		real, err := filepath.EvalSymlinks(p)
		if err == nil {
			return filepath.Join(append([]string{real}, tail...)...), nil
		}
		parent := filepath.Dir(p)
		if !errors.Is(err, fs.ErrNotExist) || parent == p {
			return "", fmt.Errorf("couldn't resolve %s: %w", path, err)
		}
		tail = append([]string{filepath.Base(p)}, tail...)
		p = parent
	}
}

// OfOpen returns the real path of a file already open, so that a check made on it holds for
// what will be read, not for whatever the name points at by then. On Linux the kernel names
// the open file (/proc/self/fd); elsewhere name is resolved and the open file must be the one
// found there (same device and inode), else the error says it changed.
func OfOpen(f *os.File, name string) (string, error) {
	if runtime.GOOS == "linux" {
		if p, err := os.Readlink("/proc/self/fd/" + strconv.FormatUint(uint64(f.Fd()), 10)); err == nil && filepath.IsAbs(p) {
			return strings.TrimSuffix(p, " (deleted)"), nil
		}
	}
	real, err := filepath.EvalSymlinks(name)
	if err != nil {
		return "", fmt.Errorf("couldn't resolve %s: %w", name, err)
	}
	opened, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("couldn't check %s: %w", name, err)
	}
	found, err := os.Stat(real)
	if err != nil || !os.SameFile(opened, found) {
		return "", fmt.Errorf("couldn't check %s: it changed while it was opened; try again", name)
	}
	return real, nil
}
