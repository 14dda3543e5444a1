package testutil

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
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

// TestLiveHeapPeak: memory that fn holds for a while is seen, whether or
// not fn still holds it when it returns.
func TestLiveHeapPeak(t *testing.T) {
	var keep [][]byte
	base, peak := LiveHeapPeak(func() {
		for range 64 {
			keep = append(keep, make([]byte, 1<<20))
		}
		runtime.GC()
		time.Sleep(20 * time.Millisecond)
		keep = nil
	})
	if grew := int64(peak) - int64(base); grew < 60<<20 {
		t.Errorf("live heap grew %d MB while 64 MB were held, want at least 60", grew>>20)
	}
	_ = keep
}
