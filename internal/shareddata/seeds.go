package shareddata

import (
	"path/filepath"
	"testing"
)

// Seeds returns the path of rel inside shared/data for seeding a fuzz corpus, or "" when it is
// absent. Unlike Path it does not skip: a fuzz target still runs on its inline seeds, so the
// absence is only logged. Under CI=true the absence is a failure, as for Path.
func Seeds(tb testing.TB, rel string) string {
	tb.Helper()
	p, err := locate(tb, rel)
	if err != nil {
		tb.Logf("shared test data %s is not here (%v); fuzzing with the inline seeds only", rel, err)
	}
	return p
}

// Project returns the absolute path of rel inside the project (for seeds from sample/), found
// from the working directory, which go test sets to the package's folder.
func Project(tb testing.TB, rel string) string {
	tb.Helper()
	root, err := projectRoot()
	if err != nil {
		tb.Fatalf("couldn't find the project root: %v", err)
	}
	return filepath.Join(root, rel)
}
