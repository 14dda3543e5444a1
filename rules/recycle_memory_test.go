package rules_test

import (
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/rules"
)

// TestRecycleModifyHoldsOneVersion: with Recycle, a table whose every flow
// has been modified (with reset_counts) holds about the memory it held
// before: one version per flow, in a node of one entry. Before, the
// unlinked version stayed in its flow's node (and out of the slab) until
// the flow next changed: a table of flows each modified once held two
// rules per flow and a node of two entries, the churn soak's live heap
// growing by half before it leveled off (internal/soak). Without
// reset_counts a modified flow also keeps its first version's slot for
// its counters (see successor): two slots per flow, by design, which the
// test leaves out.
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

// TestRecycleFlowRemovedRecords: with Recycle, flows with
// OFPFF_SEND_FLOW_REM that expire over and over, among flows deleted and
// added back, take no more memory than flows without the flag: the
// FlowRemoved record gets a copy of its rule, which goes back to the slab.
// Before, the expired rule stayed out of recycling for its record's sake,
// and its slab slot, in a chunk that the table's other rules keep alive,
// was lost: each expiry left some 450 bytes behind, up to a chunk per
// live rule.
func TestRecycleFlowRemovedRecords(t *testing.T) {
	if raceEnabled {
		t.Skip("heap sizes are not meaningful under -race")
	}
	const perm, timed, rounds = 8192, 1024, 40
	permAdds := exactAdds(perm, 0)
	run := func(flags rules.FlowFlags) uint64 {
		now := time.Unix(1000, 0)
		p, err := rules.New(&rules.Config{Recycle: true, UnlinkAfter: -1, Now: func() time.Time { return now }})
		if err != nil {
			t.Fatal(err)
		}
		timedAdds := exactAdds(timed, perm)
		for i := range timedAdds {
			timedAdds[i].HardTimeout, timedAdds[i].Flags, timedAdds[i].ID = 1, flags, i+1
		}
		dels, back := make([]rules.Update, timed), make([]rules.Update, timed)
		rng := rand.New(rand.NewPCG(3, 4))
		mustApplyAll(t, p, permAdds)
		for range rounds {
			// Random flows deleted and added back: the deleted rules'
			// slots, in chunks that the other flows keep alive, go
			// to the timed flows, which then expire.
			for i, j := range rng.Perm(perm)[:timed] {
				u := &permAdds[j]
				dels[i] = rules.Update{Command: rules.CmdDeleteStrict, Match: u.Match, Priority: u.Priority}
				back[i] = *u
			}
			mustApplyAll(t, p, dels)
			mustApplyAll(t, p, timedAdds)
			mustApplyAll(t, p, back)
			now = now.Add(2 * time.Second)
			recs := p.Expire()
			if flags != 0 && len(recs) != timed {
				t.Fatalf("%d records, want %d", len(recs), timed)
			}
			for _, r := range recs {
				if r.Reason != rules.RemovedHardTimeout || r.Rule.HardTimeout != 1 || r.Rule.Flags != flags || r.Rule.Match != timedAdds[r.Rule.ID-1].Match {
					t.Fatalf("record %+v of rule %+v: want a hard timeout of a timed flow", r, r.Rule)
				}
			}
		}
		if got := p.Table(0).Stats().Flows; got != perm {
			t.Fatalf("%d flows after the rounds, want %d", got, perm)
		}
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		runtime.KeepAlive(p)
		return ms.HeapAlloc
	}
	plain := run(0)
	records := run(rules.FlagSendFlowRem)
	// 40 rounds expire 40,960 flows: a slot lost for each would be 18 MB.
	if records > plain+2<<20 {
		t.Errorf("live heap %d bytes after %d rounds of expiries with FlowRemoved records, %d without: expired rules' memory is lost", records, rounds, plain)
	}
	t.Logf("live heap %d bytes after %d rounds of expiries with FlowRemoved records, %d without", records, rounds, plain)
}
