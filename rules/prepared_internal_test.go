package rules

import "testing"

// TestPrefetchPrepares checks that each update of a burst into a subtable
// that exists uses the subtable and hash that prefetch worked out for it
// while the update before was applied: adds and strict deletes.
func TestPrefetchPrepares(t *testing.T) {
	p, err := New(&Config{Filter: FilterBloomCuckoo})
	if err != nil {
		t.Fatal(err)
	}
	const n = 64
	ups := make([]Update, n+1)
	dels := make([]Update, n)
	for i := range ups {
		var m Match
		m.SetExact(FieldEthType, EthTypeIPv4)
		m.SetExact(FieldIPProto, IPProtoTCP)
		m.SetExact(FieldIPv4Src, uint64(10<<24|i))
		m.SetExact(FieldL4Dst, 80)
		ups[i] = Update{Match: m, Priority: 100}
		if i > 0 {
			dels[i-1] = Update{Command: CmdDeleteStrict, Match: m, Priority: 100}
		}
	}
	// The first add makes the subtable: prefetch finds none for it.
	apply := func(ups []Update) {
		t.Helper()
		for i, err := range p.ApplyBatch(ups, true).Errs {
			if err != nil {
				t.Fatalf("update %d: %v", i, err)
			}
		}
	}
	apply(ups[:1])
	for _, c := range []struct {
		name string
		ups  []Update
	}{{"add", ups[1:]}, {"delete", dels}} {
		before := p.prepHits
		apply(c.ups)
		if got := p.prepHits - before; got != n {
			t.Errorf("%s: %d of %d updates used what prefetch prepared", c.name, got, n)
		}
	}
	if st := p.Table(0).Stats(); st.Flows != 1 {
		t.Errorf("%d flows left, want 1", st.Flows)
	}
	for i := range p.pre {
		if p.pre[i].u != nil {
			t.Errorf("pre[%d] still holds an update after the burst", i)
		}
	}
}
