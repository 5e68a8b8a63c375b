package access

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// CheckModes refuses, as sshd's StrictModes does, files and folders that someone else could
// change: one that group or others may write, or that is owned by neither the current user nor
// root. Give it the authorized-keys file, the host key and the folders that hold them. A
// missing path is not an error (it is created later, safely).
func CheckModes(paths ...string) error {
	for _, path := range paths {
		fi, err := os.Stat(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("couldn't check the permissions of %s: %w", path, err)
		}
		if why := unsafeMode(path, fi); why != "" {
			return errors.New(why)
		}
	}
	return nil
}

// unsafeMode says why someone other than its owner or root could change path, with the fix;
// empty when nobody else can.
func unsafeMode(path string, fi fs.FileInfo) string {
	fix := "chmod 600 " + path
	if fi.IsDir() {
		fix = "chmod 700 " + path
	}
	if perm := fi.Mode().Perm(); perm&0o022 != 0 {
		return fmt.Sprintf("%s may be written by group or others (mode %04o), so anyone could let themselves in: %s", path, perm, fix)
	}
	if uid, ok := fileOwner(fi); ok && uid != 0 && uid != os.Getuid() {
		return fmt.Sprintf("%s is owned by uid %d, neither you (uid %d) nor root, so its owner could let anyone in: chown $(id -un) %s", path, uid, os.Getuid(), path)
	}
	return ""
}
