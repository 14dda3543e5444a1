package controller

import (
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/rules"
)

// TestIdleMaintenance runs an agent whose table's filter a burst fills to
// 94% with t = 0, so that some flows land in the Bloom part, then deletes
// half of the flows. With no further burst, the agent's idle maintenance
// must unlink the deleted rules and move the Bloom elements back into
// the freed cuckoo slots; every remaining flow must still be found.
func TestIdleMaintenance(t *testing.T) {
	p, err := rules.New(&rules.Config{FilterBuckets: 64, MaxOccupancy: 0.99, BloomAfter: 0})
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(&Config{Logger: quiet, Pipeline: p})
	if err != nil {
		t.Fatal(err)
	}
	runAgent(t, a)
	stats := func() rules.TableStats {
		a.tmu.Lock()
		defer a.tmu.Unlock()
		return p.Table(0).Stats()
	}
	ups := exactFlows(240, 0)
	if res := a.apply(ups, false, time.Now(), 0); countErrs(res.Errs) != 0 {
		t.Fatalf("adds refused: %v", res.Errs)
	}
	full := stats()
	if full.FilterBloomLen == 0 || full.FilterBuckets != 64 {
		t.Fatalf("setup: want Bloom elements in a 64-bucket filter, have %+v", full)
	}
	dels := make([]rules.Update, 120)
	for i := range dels {
		dels[i] = rules.Update{Command: rules.CmdDeleteStrict, Match: ups[i].Match, Priority: ups[i].Priority}
	}
	if res := a.apply(dels, false, time.Now(), 0); countErrs(res.Errs) != 0 {
		t.Fatalf("deletes refused: %v", res.Errs)
	}
	var st rules.TableStats
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if st = stats(); st.Rules == 120 && st.FilterBloomLen == 0 {
			break
		}
	}
	if st.Flows != 120 || st.Rules != 120 || st.FilterLen != 120 {
		t.Fatalf("after idle: %d flows, %d rules present, %d filter elements; want 120 of each", st.Flows, st.Rules, st.FilterLen)
	}
	// At 47% every Bloom element's buckets have room (the keys and the
	// seed are fixed); without the maintenance they stay where they are.
	if st.FilterBloomLen != 0 {
		t.Fatalf("Bloom part still holds %d elements (had %d at 94%%, now at %.0f%%)", st.FilterBloomLen, full.FilterBloomLen, 100*st.Occupancy)
	}
	for i, u := range ups {
		got := p.Table(0).Lookup(&u.Match.Key)
		if (got != nil) != (i >= 120) {
			t.Fatalf("flow %d: lookup found %v, want found=%v", i, got, i >= 120)
		}
	}
	t.Logf("Bloom part %d -> %d elements", full.FilterBloomLen, st.FilterBloomLen)
}
