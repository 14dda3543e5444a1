package rules_test

import (
	"runtime"
	"testing"

	"github.com/ofswitch/ofswitch/rules"
)

// TestRecycleModifyHoldsOneVersion: with Recycle, a table whose every flow
// has been modified holds about the memory it held before: one version per
// flow, in a node of one entry. Before, the unlinked version stayed in its
// flow's node (and out of the slab) until the flow next changed: a table
// of flows each modified once held two rules per flow and a node of two
// entries, the churn soak's live heap growing by half before it leveled
// off (internal/soak).
func TestRecycleModifyHoldsOneVersion(t *testing.T) {
	if raceEnabled {
		t.Skip("heap sizes are not meaningful under -race")
	}
	const n, burst = 16384, 1024
	adds := exactAdds(n, 0)
	p, err := rules.New(&rules.Config{Recycle: true, UnlinkAfter: -1})
	if err != nil {
		t.Fatal(err)
	}
	heap := func() uint64 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	output := func(port uint32) []rules.Instruction {
		return []rules.Instruction{{Kind: rules.InstApplyActions, Actions: []rules.Action{{Kind: rules.ActionOutput, Port: port}}}}
	}
	for i := range adds {
		adds[i].Instructions = output(1)
	}
	var res rules.BurstResult
	mods := make([]rules.Update, burst)
	round := func(port uint32) {
		for lo := 0; lo < n; lo += burst {
			for j := range mods {
				u := &adds[lo+j]
				mods[j] = rules.Update{Command: rules.CmdModifyStrict, Match: u.Match, Priority: u.Priority, Instructions: output(port), Flags: rules.FlagResetCounts}
			}
			p.ApplyBurstTo(&res, mods, false, nil)
			if countErrs(res.Errs) != 0 {
				t.Fatalf("modifies refused: %v", res.Errs)
			}
		}
	}
	for lo := 0; lo < n; lo += burst {
		mustApplyAll(t, p, adds[lo:lo+burst])
	}
	before := heap()
	for i := range 4 {
		round(uint32(i + 2))
	}
	after := heap()
	runtime.KeepAlive(p)
	// A second version and a node of two entries kept per flow would be
	// some 10 MB; what the slabs keep recycled, a burst's rules and nodes,
	// is under 1 MB.
	if after > before+2<<20 {
		t.Errorf("live heap %d bytes with %d flows, %d after modifying each 4 times: modifies hold more than one version per flow", before, n, after)
	}
	t.Logf("live heap %d bytes with %d flows, %d after modifying each 4 times", before, n, after)
}
