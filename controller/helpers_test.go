package controller

import (
	"testing"

	"github.com/ofswitch/ofswitch/internal/ovstest"
	"github.com/ofswitch/ofswitch/internal/testutil"
	"github.com/ofswitch/ofswitch/rules"
)

var deleteAll = []rules.Update{{Command: rules.CmdDelete, Table: 0xff}}

// startOVS starts Open vSwitch for a benchmark, or returns nil where it
// cannot run: benchmarks measure what is there and do not fail for a
// missing peer.
func startOVS(b *testing.B) *ovstest.Switch {
	if err := ovstest.Available(testutil.RepoRoot(b)); err != nil {
		b.Logf("no Open vSwitch baseline: %v", err)
		return nil
	}
	return ovstest.Start(b)
}
