// Package testutil holds small helpers shared by tests: locating the shared
// test data, skipping (or, under CI=true, failing) when a dependency is
// missing, golden-file updates, and synthetic TCP captures. Reading and
// writing capture files is package capture's; testutil only wraps it.
package testutil

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

// Update is the -update flag: tests rewrite their golden files instead of
// comparing against them.
var Update = flag.Bool("update", false, "rewrite golden files")

// InCI reports whether the CI environment variable is "true"; tests then
// fail instead of skipping when something they need is missing.
func InCI() bool { return os.Getenv("CI") == "true" }

// SkipOrFail skips the test with msg, or fails it when InCI.
func SkipOrFail(t testing.TB, msg string) {
	t.Helper()
	if InCI() {
		t.Fatalf("CI=true and %s", msg)
	}
	t.Skip(msg)
}

// RepoRoot returns the directory holding go.mod, searching upward from the
// working directory.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("testutil: go.mod not found above the working directory")
		}
		dir = parent
	}
}

// SharedData returns the path of elem under the shared test data folder
// (../shared/data next to the repository). It skips the test (fails under
// CI=true) if that path does not exist.
func SharedData(t testing.TB, elem ...string) string {
	t.Helper()
	p := filepath.Join(append([]string{RepoRoot(t), "..", "shared", "data"}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		SkipOrFail(t, "shared test data missing: "+p)
	}
	return p
}
