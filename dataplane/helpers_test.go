package dataplane

import (
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
