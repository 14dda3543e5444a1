package rules_test

import (
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/rules"
)

// exactAdds returns n adds of distinct exact UDP flows, from offset on:
// both addresses and both ports exact, so that none merges (rules'
// relaxMask).
func exactAdds(n, offset int) []rules.Update {
	ups := make([]rules.Update, n)
	for i := range ups {
		var m rules.Match
		m.SetExact(rules.FieldEthType, rules.EthTypeIPv4)
		m.SetExact(rules.FieldIPProto, rules.IPProtoUDP)
		m.SetExact(rules.FieldIPv4Src, uint64(10<<24|offset+i))
		m.SetExact(rules.FieldIPv4Dst, 10<<24|1)
		m.SetExact(rules.FieldL4Src, 5353)
		m.SetExact(rules.FieldL4Dst, 53)
		ups[i] = rules.Update{Match: m, Priority: 100}
	}
	return ups
}

// TestUpdateCosts: the iterations ApplyBurstTo records for each update add
// up to the filter's own count, adds into a nearly full filter take kick
// walks, deletes and replacements insert nothing, and the errors and the
// table are those of ApplyBurst.
func TestUpdateCosts(t *testing.T) {
	const buckets = 1024
	cfg := rules.Config{FilterBuckets: buckets, MaxOccupancy: 0.99, BloomAfter: 0, Seed: 5}
	timed, err := rules.New(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := rules.New(&cfg)
	n := 4 * buckets * 95 / 100 // up to 95% occupancy: late insertions kick
	ups := exactAdds(n, 0)
	// A replacement of a flow already there, and a bad update.
	ups = append(ups, ups[0])
	bad := ups[1]
	bad.Table = 7
	ups = append(ups, bad)
	costs := make([]rules.UpdateCost, len(ups))
	start := time.Now()
	var res rules.BurstResult
	timed.ApplyBurstTo(&res, ups, true, costs)
	wall := time.Since(start)
	want := plain.ApplyBurst(ups, true)
	for i := range ups {
		if (res.Errs[i] == nil) != (want.Errs[i] == nil) {
			t.Fatalf("update %d: error %v with costs, %v without", i, res.Errs[i], want.Errs[i])
		}
	}
	if res.Errs[len(ups)-1] == nil {
		t.Fatal("the update of table 7 of 1 was applied")
	}
	st := timed.Table(0).Stats()
	if st.Rebuilds != 0 {
		t.Fatalf("the filter was rebuilt (%d buckets, occupancy %.3f): the test wants one filter throughout", st.FilterBuckets, st.Occupancy)
	}
	if ws := plain.Table(0).Stats(); ws.Flows != st.Flows || ws.FilterLen != st.FilterLen {
		t.Errorf("%d flows and %d filter elements with costs, %d and %d without", st.Flows, st.FilterLen, ws.Flows, ws.FilterLen)
	}
	var sum, most int
	var total time.Duration
	for i, c := range costs {
		sum += c.Iterations
		most = max(most, c.Iterations)
		total += c.Time
		if c.Time < 0 {
			t.Errorf("update %d took %v", i, c.Time)
		}
		if i < n && c.Iterations < 1 {
			t.Errorf("add %d of a new flow: %d iterations, want at least 1", i, c.Iterations)
		}
	}
	if c := costs[n]; c.Iterations != 0 {
		t.Errorf("the replacement of a present flow: %d iterations, want 0", c.Iterations)
	}
	if c := costs[n+1]; c.Iterations != 0 {
		t.Errorf("the refused update: %d iterations, want 0", c.Iterations)
	}
	var fromFilter uint64
	for i, k := range st.FilterStats.Iterations {
		fromFilter += uint64(i) * k
	}
	if uint64(sum) != fromFilter {
		t.Errorf("the costs add up to %d iterations, the filter counted %d", sum, fromFilter)
	}
	if most < 2 || most != st.FilterStats.MaxIterationsSeen {
		t.Errorf("most iterations of one update %d, the filter's most %d; want equal and at least 2 (a kick) at 95%% occupancy", most, st.FilterStats.MaxIterationsSeen)
	}
	if total <= 0 || total > wall {
		t.Errorf("the updates took %v in all, the call %v", total, wall)
	}

	// Deletes insert nothing.
	dels := make([]rules.Update, 100)
	for i := range dels {
		dels[i] = rules.Update{Command: rules.CmdDeleteStrict, Match: ups[i].Match, Priority: ups[i].Priority}
	}
	timed.ApplyBurstTo(&res, dels, true, costs)
	for i, c := range costs[:len(dels)] {
		if res.Errs[i] != nil || c.Iterations != 0 {
			t.Errorf("delete %d: %v, %d iterations", i, res.Errs[i], c.Iterations)
		}
	}

	// The summary of the filters agrees with the table's figures.
	st = timed.Table(0).Stats()
	fs := timed.Filters()
	if fs.Len != st.FilterLen || fs.BloomLen != st.FilterBloomLen || fs.Occupancy != st.Occupancy {
		t.Errorf("Filters() = %+v; the table has %d elements, %d in the Bloom part, occupancy %v", fs, st.FilterLen, st.FilterBloomLen, st.Occupancy)
	}
	if fs.BloomLen == 0 {
		t.Error("no element in the Bloom part after filling to 95% with t = 0")
	}

	// Without a filter nothing is inserted.
	none, _ := rules.New(&rules.Config{Filter: rules.FilterNone})
	none.ApplyBurstTo(&res, exactAdds(50, 0), true, costs)
	for i, c := range costs[:50] {
		if c.Iterations != 0 {
			t.Errorf("add %d without a filter: %d iterations", i, c.Iterations)
		}
	}
	if fs := none.Filters(); fs != (rules.FilterSummary{}) {
		t.Errorf("Filters() without a filter = %+v", fs)
	}

	defer func() {
		if recover() == nil {
			t.Error("ApplyBurstTo with too few costs did not panic")
		}
	}()
	timed.ApplyBurstTo(&res, exactAdds(3, 1<<20), true, costs[:2])
}

// TestIndexRebuilds: TableStats counts the flow index's rebuilds, which
// adds that outgrow it and deletes that leave tombstones both cause, and
// nothing else does.
func TestIndexRebuilds(t *testing.T) {
	p, err := rules.New(&rules.Config{Filter: rules.FilterNone})
	if err != nil {
		t.Fatal(err)
	}
	idx := func() int { return p.Table(0).Stats().IndexRebuilds }
	p.ApplyBurst(exactAdds(16, 0), true)
	small := idx()
	p.ApplyBurst(exactAdds(4096, 16), true)
	grown := idx()
	if grown <= small {
		t.Fatalf("4096 adds: index rebuilds %d -> %d, want more", small, grown)
	}
	// Lookups and a replacement of a present flow rebuild nothing.
	p.ApplyBurst(exactAdds(1, 16), true)
	if idx() != grown {
		t.Fatalf("a replacement rebuilt the index (%d -> %d)", grown, idx())
	}
	// Churn at a steady size: deletes leave tombstones that a rebuild clears.
	for i := range 8 {
		dels := exactAdds(2048, 16+i*2048)
		for j := range dels {
			dels[j].Command = rules.CmdDeleteStrict
		}
		p.ApplyBurst(dels, true)
		p.ApplyBurst(exactAdds(2048, 1<<20+i*2048), true)
	}
	if idx() <= grown {
		t.Fatalf("churn of 16K flows: index rebuilds stayed %d", idx())
	}
}

// TestFilterFPR: a table without a filter has no rate; an empty filter
// passes nothing; a Bloom-Cuckoo filter filled to 95% passes some absent
// keys, more once a burst has filled its Bloom part, and fewer again
// once Rebalance has drained it.
func TestFilterFPR(t *testing.T) {
	none, err := rules.New(&rules.Config{Filter: rules.FilterNone})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := none.Table(0).FilterFPR(1000, 1); ok {
		t.Fatal("filter none reported a false-positive rate")
	}
	const buckets = 1 << 12
	p, err := rules.New(&rules.Config{FilterBuckets: buckets, MaxOccupancy: 0.99, BloomAfter: 0, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	const queries = 1 << 18
	if r, ok := p.Table(0).FilterFPR(queries, 1); !ok || r != 0 {
		t.Fatalf("empty filter: rate %g, ok %v; want 0, true", r, ok)
	}
	n := 4 * buckets * 90 / 100
	p.ApplyBurst(exactAdds(n, 0), true)
	p.Rebalance(1 << 20)
	full, _ := p.Table(0).FilterFPR(queries, 2)
	if full <= 0 || full > 0.01 {
		t.Fatalf("at 90%%: rate %g, want in (0, 0.01]", full)
	}
	b0 := p.Table(0).Stats().FilterBloomLen
	p.ApplyBurst(exactAdds(4*buckets*7/100, n), true) // to 97%: walks at t=0 take the Bloom bits
	b1 := p.Table(0).Stats().FilterBloomLen
	burst, _ := p.Table(0).FilterFPR(queries, 3)
	if b1 <= b0 || burst <= full {
		t.Fatalf("after a burst at t=0: Bloom part %d -> %d, rate %g -> %g; want both to grow", b0, b1, full, burst)
	}
	p.Rebalance(1 << 20)
	b2 := p.Table(0).Stats().FilterBloomLen
	drained, _ := p.Table(0).FilterFPR(queries, 4)
	if b2 >= b1 || drained >= burst {
		t.Fatalf("after Rebalance: Bloom part %d -> %d, rate %g -> %g; want both to fall", b1, b2, burst, drained)
	}
	t.Logf("FPR at 90%% %.5f (Bloom part %d), after a burst to 97%% %.5f (%d), rebalanced %.5f (%d)", full, b0, burst, b1, drained, b2)
}
