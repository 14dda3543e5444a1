package dataplane

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/internal/testutil"
)

var timeZero time.Time

// mustLoad loads a committed capture from testdata/pcaps.
func mustLoad(t testing.TB, name string) *Capture {
	t.Helper()
	c, err := LoadFile(filepath.Join(testutil.RepoRoot(t), "testdata", "pcaps", name))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// demoCapture loads the demo capture of the replay laboratory
// (replay/testdata/demo.pcap, embedded by package replay, which imports
// this one).
func demoCapture(t testing.TB) *Capture {
	t.Helper()
	c, err := LoadFile(filepath.Join(testutil.RepoRoot(t), "replay", "testdata", "demo.pcap"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// demoFlows reads the demo rule set (replay/testdata/demo.flows).
func demoFlows(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testutil.RepoRoot(t), "replay", "testdata", "demo.flows"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
