package testutil

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRepoRootAndSharedData(t *testing.T) {
	root := RepoRoot(t)
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("RepoRoot = %s without go.mod", root)
	}
	p := SharedData(t, "openflow-captures")
	if filepath.Base(p) != "openflow-captures" || filepath.Dir(filepath.Dir(p)) != filepath.Join(root, "..", "shared") {
		t.Fatalf("SharedData = %s", p)
	}
}

func TestInCI(t *testing.T) {
	t.Setenv("CI", "true")
	if !InCI() {
		t.Error("InCI() = false with CI=true")
	}
	t.Setenv("CI", "")
	if InCI() {
		t.Error("InCI() = true without CI")
	}
}
