// Package shareddata locates the real test material in ../shared/data beside the checkout.
// Where it is absent (a user's clone) tests skip with a message; under CI=true its absence is a
// failure, never a skip.
package shareddata

import (
	"os"
	"path/filepath"
	"testing"
)

// Path returns the absolute path of rel inside shared/data, or skips (fails under CI) the test
// when it is not there.
func Path(t testing.TB, rel string) string {
	t.Helper()
	p, err := locate(t, rel)
	if err != nil {
		t.Skipf("shared test data %s is not here (%v); put shared/data beside the checkout to run this test", rel, err)
	}
	return p
}

// locate finds rel inside shared/data; its absence fails the test under CI=true.
func locate(tb testing.TB, rel string) (string, error) {
	tb.Helper()
	root, err := projectRoot()
	if err == nil {
		p := filepath.Join(root, "..", "shared", "data", rel)
		if _, err = os.Stat(p); err == nil {
			return p, nil
		}
	}
	if os.Getenv("CI") == "true" {
		tb.Fatalf("shared test data %s is missing under CI: %v", rel, err)
	}
	return "", err
}

// projectRoot walks up from the working directory to the folder holding go.mod.
func projectRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", os.ErrNotExist
		}
		dir = parent
	}
}
