package rules

import (
	"sync"
	"sync/atomic"
	"testing"
)

// TestPrefault: Prefault makes spare chunks only for the slabs in use, up
// to a burst's worth; adds take them, and rules added from them, while
// Prefault runs on another goroutine all the time, are all found.
func TestPrefault(t *testing.T) {
	p, err := New(&Config{Tables: 2, PrefaultRules: 256})
	if err != nil {
		t.Fatal(err)
	}
	if n := p.Prefault(); n != 0 {
		t.Fatalf("Prefault before any add made %d chunks, want 0", n)
	}
	ups, keys := emptyTestFlows(10, 0, 10)
	mustApply(t, p, ups)
	made := p.Prefault()
	rules := (256 + p.ruleSlab.perChunk() - 1) / p.ruleSlab.perChunk()
	nodes := (256 + p.tables[0].nodeSlab.perChunk() - 1) / p.tables[0].nodeSlab.perChunk()
	if made < rules+nodes || p.Prefaulted() != made {
		t.Fatalf("Prefault after adds made %d chunks (%d ready), want at least %d", made, p.Prefaulted(), rules+nodes)
	}
	if got := len(p.ruleSlab.spare); got != cap(p.ruleSlab.spare) || got < rules {
		t.Errorf("rule spares %d of %d, want %d full", got, cap(p.ruleSlab.spare), rules)
	}
	if n := len(p.tables[1].nodeSlab.spare) + len(p.tables[1].entSlab.spare); n != 0 {
		t.Errorf("table 1, never used, has %d spare chunks", n)
	}
	if n := p.Prefault(); n != 0 {
		t.Errorf("Prefault when full made %d chunks", n)
	}

	// PrefaultDue: unset while every slab keeps more than half of its
	// spares, set by the add that leaves one with half or less, unset
	// again by Prefault.
	halfUsed := func() bool {
		return 2*len(p.ruleSlab.spare) <= cap(p.ruleSlab.spare) ||
			2*len(p.tables[0].nodeSlab.spare) <= cap(p.tables[0].nodeSlab.spare)
	}
	few, fewKeys := emptyTestFlows(256, 0, 12)
	took := 0
	for ; took < len(few) && !p.PrefaultDue(); took++ {
		if halfUsed() {
			t.Fatalf("after %d adds half of the spares are used and PrefaultDue is unset", took)
		}
		mustApply(t, p, few[took:took+1])
	}
	if !p.PrefaultDue() || !halfUsed() {
		t.Fatalf("after %d adds PrefaultDue %v, half of the spares used %v; want both", took, p.PrefaultDue(), halfUsed())
	}
	if p.Prefault() == 0 || p.PrefaultDue() {
		t.Errorf("Prefault made no chunk or left PrefaultDue set")
	}
	keys = append(keys, fewKeys[:took]...)

	// Bursts of 100 adds while Prefault runs without pause on another
	// goroutine, until it has made chunks the bursts take (bounded: 100
	// bursts at most), and two bursts after that.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var refills atomic.Int64
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
				refills.Add(int64(p.Prefault()))
			}
		}
	}()
	more, moreKeys := emptyTestFlows(10_000, 0, 11)
	added, after := 0, 0
	for added < len(more) && after < 2 {
		mustApply(t, p, more[added:added+100])
		added += 100
		if refills.Load() > 0 {
			after++
		}
	}
	close(stop)
	wg.Wait()
	if refills.Load() == 0 {
		t.Errorf("Prefault made no chunk while %d rules were added", added)
	}
	for i, k := range append(keys, moreKeys[:added]...) {
		if r := p.Table(0).Lookup(&k); r == nil || r.Priority != 100 {
			t.Fatalf("key %d: lookup found %v", i, r)
		}
	}
	if st := p.Table(0).Stats(); st.Flows != 10+took+added {
		t.Errorf("%d flows, want %d", st.Flows, 10+took+added)
	}
}

// TestTouch: touching a chunk leaves it zero, whatever its size.
func TestTouch(t *testing.T) {
	for _, n := range []int{1, 3, 20, 5000} {
		c := make([]ruleWithStats, n)
		touch(c)
		for i := range c {
			if c[i].r.Priority != 0 || c[i].r.st != nil || c[i].s.created != 0 {
				t.Fatalf("chunk of %d: element %d not zero after touch", n, i)
			}
		}
	}
	touch([]entry(nil))
}

// TestPrefaultRulesBounded: New refuses more rules made ahead than
// MaxPrefaultRules (each slab sizes its queue of spare chunks for them
// before any is made) and fewer than none; the bound itself is taken.
func TestPrefaultRulesBounded(t *testing.T) {
	for _, n := range []int{-1, MaxPrefaultRules + 1, 1 << 30} {
		if _, err := New(&Config{PrefaultRules: n}); err == nil {
			t.Errorf("New with PrefaultRules %d: no error", n)
		}
	}
	p, err := New(&Config{PrefaultRules: MaxPrefaultRules})
	if err != nil {
		t.Fatalf("New with PrefaultRules %d: %v", MaxPrefaultRules, err)
	}
	if c := cap(p.ruleSlab.spare); c == 0 || c > MaxPrefaultRules {
		t.Errorf("spare queue of %d chunks for %d rules", c, MaxPrefaultRules)
	}
}
