// Package atomicfile writes files so that a reader, or a process killed mid-write, sees either
// the old content or the new one, never a mix.
package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
)

// WriteFile writes data to a temporary file in the same folder, syncs it, and renames it over
// path.
func WriteFile(path string, data []byte, perm os.FileMode) (err error) {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("couldn't create a temporary file in %s: %w", dir, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return fmt.Errorf("couldn't write %s: %w", path, err)
	}
	if err = tmp.Chmod(perm); err != nil {
		return fmt.Errorf("couldn't set permissions on %s: %w", path, err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("couldn't flush %s to disk: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("couldn't close %s: %w", path, err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("couldn't replace %s: %w", path, err)
	}
	if d, derr := os.Open(dir); derr == nil { // make the rename itself durable
		d.Sync()
		d.Close()
	}
	return nil
}
